"""Hollow turns: an earlier asking of the question, and an assistant's turn that only says it
does not know or is a pleasantry, are no evidence of the answer. Recall keeps them (they stay
in episodes/ and the session log) but lists them after every fact and every turn that
states something."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vm_memory_oracle.episodes import Episode
from vm_memory_oracle.model.text import evidence_terms
from vm_memory_oracle.recall.hollow import hollow

from conftest import log_turns

SAID = "2026-05-10T10:00:00Z"
LATER = "2026-05-20T10:00:00Z"


def is_hollow(speaker: str, text: str, query: str) -> bool:
    return hollow(Episode("sessions/a.jsonl:1", 0, 1, SAID, speaker, text), evidence_terms(query))


@pytest.mark.parametrize(
    "speaker, text, query",
    [
        ("user", "What am I allergic to?", "What am I allergic to?"),
        ("user", "Hi! Do you remember what I'm allergic to?", "What am I allergic to?"),
        ("user", "我对什么过敏？", "我对什么过敏？"),
        ("assistant", "What are you allergic to?", "What am I allergic to?"),
        (
            "assistant",
            "I'm a large language model, I don't have personal experiences or memories, so I "
            "didn't know you had a dog named Lola. That sounds like a good investment in her "
            "health!",
            "How much did I spend on Lola?",
        ),
        ("assistant", "Thanks for letting me know. I hope Lola is doing well!", "Lola"),
        ("assistant", "I don't have any record of your allergies. Could you tell me?", "allergy"),
        ("assistant", "I'm sorry, I couldn't find that information.", "What am I allergic to?"),
        ("assistant", "Thanks for letting me know. I'll keep that in mind.", "peanuts"),
        ("assistant", "抱歉，我没有找到相关的记录。希望你一切都好！", "我对什么过敏？"),
    ],
)
def test_askings_not_knowing_and_pleasantries_are_hollow(speaker, text, query):
    assert is_hollow(speaker, text, query)


@pytest.mark.parametrize(
    "speaker, text, query",
    [
        # statements of the person, whatever their words
        ("user", "I'm severely allergic to peanuts.", "What am I allergic to?"),
        ("user", "I don't have a car, I cycle everywhere.", "Do I have a car?"),
        ("user", "I hope to move to Porto next year.", "Where do I hope to move?"),
        ("user", "我对花生严重过敏。", "我对什么过敏？"),
        # a question that tells more than the query asks
        (
            "user",
            "What are some ways to keep my living room dust-free, with a cat that sheds?",
            "Could it be my living room?",
        ),
        ("user", "Should I book the Hyatt?", "Which hotel did I ask you to book?"),
        # the assistant's substance, beside a pleasantry or a disclaimer
        (
            "assistant",
            "For Tokyo in October I suggest the teamLab Planets museum. Enjoy your trip!",
            "What did you suggest for Tokyo?",
        ),
        (
            "assistant",
            "Unfortunately, as an AI I cannot access your records, but peanuts are a common "
            "allergen.",
            "What am I allergic to?",
        ),
        ("assistant", "Enjoy the ramen at Ichiran near Shibuya station.", "ramen"),
        # a person's pleasantry is theirs to make: only the assistant's speak of the talk
        ("Caroline", "I hope your mom is doing well!", "How is Melanie's mom?"),
    ],
)
def test_statements_and_substance_are_evidence(speaker, text, query):
    assert not is_hollow(speaker, text, query)


def test_a_hollow_episode_comes_after_every_fact_and_statement_with_score_zero():
    """First in both episodes' lists, an asking of the question still comes after the facts
    and the turn that states something, and says by its score 0 that it is no evidence."""
    from types import SimpleNamespace

    from vm_memory_oracle.recall.fusion import with_episodes
    from vm_memory_oracle.recall.sources.episodes import EpisodeHit

    def source(line: int) -> str:
        return f"sessions/2026-05-10-090000.jsonl:{line}"

    def episode(line: int, text: str, rank: int, hollow: bool) -> EpisodeHit:
        said = Episode(source(line), 0, 1, SAID, "user", text)
        return EpisodeHit(said, 0.0, {"lexical": rank, "semantic": rank}, 0.0, hollow=hollow)

    asking = episode(1, "What am I allergic to?", 0, True)
    statement = episode(3, "I'm severely allergic to peanuts.", 1, False)
    fact = SimpleNamespace(turn=source(3), score=0.0)
    ranked = with_episodes([fact], [asking, statement], 3, lambda hit: hit.turn)
    assert ranked[-1] is asking and {id(hit) for hit in ranked[:2]} == {id(fact), id(statement)}
    assert asking.score == 0.0 and statement.score > 0 and fact.score > 0


def episodes_in(data_dir: Path) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((data_dir / "episodes").glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def recalled(cli, query: str, k: int) -> list[dict]:
    result = cli(
        "--json", "--action", "recall", "--query", query, "--k", str(k), "--no-boost", now=LATER
    )
    assert result.code == 0, result.err
    return result.json()["results"]


def summarize(cli) -> None:
    result = cli("--action", "summarize", "--all", now=SAID)
    assert result.code == 0, result.err


def places(results: list[dict], source: str) -> list[int]:
    return [place for place, hit in enumerate(results) if hit["source"] == source]


def kept(data_dir: Path, source: str) -> bool:
    """The turn at `source` is in episodes/ and still in its session log."""
    name, line = source[len("sessions/") :].rsplit(":", 1)
    logged = (data_dir / "sessions" / name).read_text(encoding="utf-8").splitlines()
    return any(episode["source"] == source for episode in episodes_in(data_dir)) and (
        len(logged) >= int(line)
    )


@pytest.mark.parametrize(
    "asked, stated, query",
    [
        ("What am I allergic to?", "I'm severely allergic to peanuts.", "What am I allergic to?"),
        ("我对什么过敏？", "我对花生严重过敏。", "我对什么过敏？"),
    ],
)
def test_a_statement_answers_before_the_earlier_askings_of_the_question(
    cli, data_dir, asked, stated, query
):
    """The person asked twice, and once said the answer: at k=3 the statement comes first,
    and the askings, kept in episodes/ and the logs, after it."""
    cli("--action", "init")
    first = log_turns(data_dir, [("user", asked)], "2026-05-01-090000.jsonl")
    said = log_turns(data_dir, [("user", stated)], "2026-05-03-090000.jsonl")
    again = log_turns(data_dir, [("user", asked)], "2026-05-05-090000.jsonl")
    summarize(cli)
    askings = [f"sessions/{first.name}:1", f"sessions/{again.name}:1"]
    statement = f"sessions/{said.name}:1"
    assert all(kept(data_dir, source) for source in [*askings, statement])
    results = recalled(cli, query, 3)
    assert results[0]["source"] == statement, results
    last_statement = max(places(results, statement))
    assert all(place > last_statement for source in askings for place in places(results, source))


LOLA = [
    ("user", "I spent $120 on a new collar and a vet check for my dog Lola last week."),
    (
        "assistant",
        "I'm a large language model, I don't have personal experiences or memories, so I didn't "
        "know you had a dog named Lola. That sounds like a good investment in her health!",
    ),
    ("user", "Yes, she had a minor ear infection."),
    ("assistant", "Thanks for letting me know. I hope Lola is doing well!"),
]


def test_the_persons_statement_outranks_the_assistant_not_knowing_and_its_pleasantry(cli, data_dir):
    cli("--action", "init")
    path = log_turns(data_dir, LOLA, "2026-05-07-090000.jsonl")
    summarize(cli)
    statement, unknowing, pleasantry = (f"sessions/{path.name}:{line}" for line in (1, 2, 4))
    assert kept(data_dir, unknowing) and kept(data_dir, pleasantry)
    results = recalled(cli, "How much did I spend on Lola?", 5)
    mine = places(results, statement)
    theirs = places(results, unknowing) + places(results, pleasantry)
    assert mine and mine[0] == 0, results
    assert all(place > max(mine) for place in theirs), results
    assert all(results[place]["score"] == 0 for place in theirs)
    assert "$120" in results[0]["text"]


def test_what_the_assistant_suggested_comes_first_though_asked_for_again(cli, data_dir):
    """The assistant's answer of substance is found first when asked about, above the
    person's asking again and the assistant's reply that it holds no record of it."""
    cli("--action", "init")
    trip = log_turns(
        data_dir,
        [
            ("user", "I'm planning a trip to Tokyo in October. Any ideas for things to do?"),
            (
                "assistant",
                "For Tokyo in October I suggest the teamLab Planets museum, a day trip to "
                "Nikko for the autumn leaves, and the Tsukiji outer market for breakfast.",
            ),
        ],
        "2026-05-01-090000.jsonl",
    )
    later = log_turns(
        data_dir,
        [
            ("user", "What did you suggest for my trip to Tokyo?"),
            ("assistant", "I'm sorry, I don't have a record of our earlier conversations."),
        ],
        "2026-05-08-090000.jsonl",
    )
    summarize(cli)
    answer = f"sessions/{trip.name}:2"
    asking, no_record = f"sessions/{later.name}:1", f"sessions/{later.name}:2"
    assert kept(data_dir, asking) and kept(data_dir, no_record)
    results = recalled(cli, "What did you suggest for my trip to Tokyo?", 5)
    assert results[0]["source"] == answer and "teamLab" in results[0]["text"], results
    hollow_places = places(results, asking) + places(results, no_record)
    assert all(results[place]["score"] == 0 for place in hollow_places)
