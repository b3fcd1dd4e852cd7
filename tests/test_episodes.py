"""Episodes: every turn of the conversation kept in the memory and found by recall, even when
no fact came from it (an assistant's answer, a pasted article)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from vm_memory_oracle.episodes import PASSAGE_CHARS, episodes_of, passages
from vm_memory_oracle.model.text import tokens
from vm_memory_oracle.recall.entries import clipped

from conftest import hash_embedder, log_turns, remember_records

SESSION = "2026-05-10-090000.jsonl"
SAID = "2026-05-10T10:00:00Z"
LATER = "2026-05-20T10:00:00Z"

TRIP = [
    ("user", "I'm planning a trip to Tokyo in October. Any ideas for things to do?"),
    (
        "assistant",
        "For Tokyo in October I suggest the teamLab Planets museum, a day trip to Nikko for "
        "the autumn leaves, and the Tsukiji outer market for breakfast. The Ghibli Museum "
        "needs tickets a month ahead.",
    ),
    ("user", "Please renew the TLS certificate for api.example.org before Friday."),
    ("user", "ok thanks"),
]


def log(data_dir: Path, turns, name: str = SESSION) -> Path:
    return log_turns(data_dir, turns, name)


def episodes_in(data_dir: Path) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((data_dir / "episodes").glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def recalled(cli, query: str, *args: str) -> list[dict]:
    result = cli("--json", "--action", "recall", "--query", query, "--no-boost", *args, now=LATER)
    assert result.code == 0, result.err
    return result.json()["results"]


def summarize(cli) -> dict:
    result = cli("--json", "--action", "summarize", "--all", now=SAID)
    assert result.code == 0, result.err
    return result.json()


def test_a_short_turn_is_one_passage_on_one_line():
    assert passages("I like tea.\n\nAnd  coffee.") == ["I like tea. And coffee."]


def test_a_long_turn_is_cut_into_passages_after_sentences_losing_no_word():
    article = " ".join(
        f"Sentence number {n} of the article says something new." for n in range(300)
    )
    parts = passages(article)
    assert len(parts) > 1 and all(len(part) <= PASSAGE_CHARS for part in parts)
    assert all(part.endswith(".") for part in parts)  # cut after a sentence
    assert " ".join(parts).split() == article.split()


def test_a_run_without_spaces_is_cut_anyway():
    blob = "x" * 100_000
    parts = passages(blob)
    assert all(len(part) <= PASSAGE_CHARS for part in parts)
    assert "".join(parts) == blob


def test_a_turn_of_next_to_no_words_is_no_episode():
    assert episodes_of("sessions/a.jsonl:1", SAID, "user", "ok thanks") == []
    assert episodes_of("sessions/a.jsonl:1", SAID, "user", "😀😀😀 🎉") == []
    [episode] = episodes_of("sessions/a.jsonl:2", SAID, "user", "我在深圳工作。")
    assert episode.text == "我在深圳工作。"


def test_a_question_is_an_episode_only_when_the_asker_speaks_of_themself():
    """A question's answer is the turn to find, but a person's question about their own
    things tells what they have and care about: a later "could it be my living room?" must
    find it."""
    for small_talk in ("Wow! What was the best part?", "How was the trip?", "你去哪儿了？"):
        assert episodes_of("sessions/a.jsonl:1", SAID, "user", small_talk) == [], small_talk
    for own in (
        "What are some simple ways to keep my living room dust-free, with a cat that sheds?",
        "I'm looking for mid-century modern ideas for a new dresser, any websites?",
        "我应该怎么照顾我的猫？",
    ):
        [episode] = episodes_of("sessions/a.jsonl:2", SAID, "user", own)
        assert episode.text == own


def test_a_clipped_text_is_the_window_holding_the_query_words():
    text = "Filler words here. " * 40 + "The advisor is Dr. Lander. " + "More filler. " * 40
    window = clipped(text, words("who is the advisor"), 120)
    assert "advisor" in window and len(window) <= 120
    assert window.startswith("…") and window.endswith("…")
    assert clipped("short", words("anything"), 120) == "short"


def words(query: str) -> frozenset[str]:
    """A query's words as recall matches an episode by them (Query.words)."""
    return frozenset(tokens(query, pairs=False))


def test_summarize_keeps_each_turn_of_both_sides_once_and_chatter_not(cli, data_dir):
    hash_embedder(cli)
    path = log(data_dir, TRIP)
    assert summarize(cli)["episodes"] == 3
    kept = episodes_in(data_dir)
    assert [(episode["speaker"], episode["source"]) for episode in kept] == [
        ("user", "sessions/2026-05-10-090000.jsonl:1"),
        ("assistant", "sessions/2026-05-10-090000.jsonl:2"),
        ("user", "sessions/2026-05-10-090000.jsonl:3"),
    ]
    assert kept[1]["text"] == TRIP[1][1] and kept[1]["ts"] == "2026-05-10T09:01:00Z"
    before = (data_dir / "episodes" / "2026-05-10.jsonl").read_bytes()
    assert summarize(cli)["episodes"] == 0  # read already: nothing again
    assert (data_dir / "episodes" / "2026-05-10.jsonl").read_bytes() == before
    log(data_dir, [("assistant", "The certificate for api.example.org is renewed until 2027.")])
    assert summarize(cli)["episodes"] == 1  # only the line the log gained
    assert episodes_in(data_dir)[-1]["source"] == f"sessions/{path.name}:5"


def test_what_the_assistant_suggested_is_found_though_no_fact_came_from_it(cli, data_dir):
    """The assistant's answer leaves no fact; its turn is found all the same, citing the
    line, and a question about something never said finds nothing."""
    cli("--action", "init")
    log(data_dir, TRIP)
    summarize(cli)
    facts = (data_dir / "knowledge-graph" / "facts.jsonl").read_text()
    assert "teamLab" not in facts
    results = recalled(cli, "what did you suggest for my trip to Tokyo?")
    answer = [hit for hit in results if hit.get("kind") == "episode" and "teamLab" in hit["text"]]
    assert answer and answer[0]["source"] == f"sessions/{SESSION}:2"
    assert answer[0]["speaker"] == "assistant" and answer[0]["said_at"].startswith("2026-05-10")
    assert "TLS" not in json.dumps(results)  # the unrelated request is not dragged along
    assert recalled(cli, "What is the capital of Peru?") == []
    text = cli("--action", "recall", "--query", "which museum needs tickets ahead", now=LATER)
    assert re.search(r"ep-[0-9a-f]{16}  assistant said: For Tokyo", text.out), text.out


def test_episodes_outlive_the_session_logs_clean_removes(cli, data_dir):
    hash_embedder(cli)
    log(data_dir, TRIP, name="2026-01-10-090000.jsonl")
    assert cli("--action", "summarize", "--all", now="2026-01-10T10:00:00Z").code == 0
    assert cli("--action", "consolidate", now="2026-06-10T10:00:00Z").code == 0
    assert not list((data_dir / "sessions").glob("2026-01-10-*.jsonl"))  # cleaned away
    results = recalled(cli, "which museum needs tickets a month ahead")
    assert any("Ghibli" in hit["text"] for hit in results)


def test_a_lost_or_damaged_episode_index_is_built_again_and_says_so(cli, data_dir):
    hash_embedder(cli)
    log(data_dir, TRIP)
    summarize(cli)
    first = recalled(cli, "which museum needs tickets ahead")
    assert first
    cache = data_dir / "state" / "cache"
    (cache / "episode-vectors" / "000001.bin").write_bytes(b"damaged")
    again = recalled(cli, "which museum needs tickets ahead")
    assert [hit["id"] for hit in again] == [hit["id"] for hit in first]
    audit = (data_dir / "state" / "audit.jsonl").read_text().splitlines()
    repairs = [repair for line in audit for repair in json.loads(line).get("repairs", [])]
    assert any(
        repair.startswith("episode index: 3 added") and "rebuilt because" in repair
        for repair in repairs
    ), repairs


def test_a_bad_line_in_an_episodes_file_is_quarantined_with_a_warning(cli, data_dir):
    hash_embedder(cli)
    log(data_dir, TRIP)
    summarize(cli)
    episodes = data_dir / "episodes" / "2026-05-10.jsonl"
    lines = episodes.read_text().splitlines()
    episodes.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    result = cli("--json", "--action", "recall", "--query", "which museum needs tickets ahead")
    assert result.code == 0, result.err
    assert any("Ghibli" in hit["text"] for hit in result.json()["results"])
    assert (
        "episodes/2026-05-10.jsonl:2: invalid JSON" in result.err
        and "moved to episodes/2026-05-10.quarantine.jsonl" in result.err
    )
    assert episodes.read_text().splitlines() == lines  # the good lines stay, in order
    assert "{not json" in (data_dir / "episodes" / "2026-05-10.quarantine.jsonl").read_text()


@pytest.mark.slow
def test_a_pasted_article_is_found_by_a_passage_and_results_stay_short(cli, data_dir):
    hash_embedder(cli)
    filler = " ".join(
        f"Paragraph {n} of the report discusses budgets and committees at length."
        for n in range(1200)
    )
    secret = "sk-proj-Zx81kL0pQ9rT5vW2yB7nM4cD"
    article = (
        filler[:50_000]
        + " The President's Chief Advisor for Science and Technology is Dr. Eric Lander. "
        + f"The lab's API key is {secret}. "
        + filler[50_000:]
    )
    log(data_dir, [("user", article), ("assistant", "The article names Dr. Eric Lander.")])
    summarize(cli)
    assert secret not in (data_dir / "episodes" / "2026-05-10.jsonl").read_text()
    results = recalled(cli, "who is the Chief Advisor for Science and Technology?", "--k", "10")
    assert any("Lander" in hit["text"] for hit in results), results
    assert sum(len(hit["text"]) for hit in results) <= 2000
    assert all(len(hit["text"]) <= 600 for hit in results if hit.get("kind") == "episode")


def test_recall_of_a_memory_without_episodes_is_unchanged(cli, data_dir):
    hash_embedder(cli)
    remember_records(
        cli,
        data_dir.parent / "facts.jsonl",
        [{"subject": "user", "predicate": "drives", "object": "a blue Volvo"}],
    )
    assert not (data_dir / "episodes").exists()
    results = recalled(cli, "Volvo")
    assert [hit["text"] for hit in results] == ["user drives a blue Volvo"]
    assert not (data_dir / "state" / "cache" / "episode-vectors").exists()


@pytest.mark.parametrize("notes, episodes_shown", [(7, 5), (12, 1)])
def test_ten_results_of_long_facts_and_turns_stay_within_2000_characters(
    cli, data_dir, notes, episodes_shown
):
    """Beside five facts of ~230 characters, five episodes share the rest; beside five of
    ~375, what is left is too little for five windows, and one is shown."""
    hash_embedder(cli)
    remember_records(
        cli,
        data_dir.parent / "facts.jsonl",
        [
            {
                "subject": "user",
                "predicate": "grows",
                "object": f"orchid number {n} " + "with a long note on its care " * notes,
            }
            for n in range(5)
        ],
    )
    log(
        data_dir,
        [("assistant", f"About orchid {n}: " + "water it weekly. " * 60) for n in range(6)],
    )
    summarize(cli)
    results = recalled(cli, "orchid care", "--k", "10")
    kinds = [hit.get("kind", "fact") for hit in results]
    assert kinds.count("episode") == episodes_shown and kinds.count("fact") == 5
    assert sum(len(hit["text"]) for hit in results) <= 2000


RYOKAN = (
    " ".join(
        f"Option {n}: a guesthouse in the old quarter, breakfast included, bicycles to borrow."
        for n in range(30)
    )
    + " For the cherry blossoms, book the Hoshinoya ryokan by the Hozu river three months ahead."
)


def test_a_turn_is_embedded_once_by_its_opening_and_a_long_one_found_by_words_further_on(
    cli, data_dir, monkeypatch
):
    """The model embeds one text a turn: its first passage's opening, after the question it
    answers, which is also the context of the facts learned from a short turn (one embedding
    for both). A long turn's later passages have no vector of their own and are found by
    their words."""
    from vm_memory_oracle.clock import parse_iso
    from vm_memory_oracle.config import Settings
    from vm_memory_oracle.embed.hashing import HashEmbedder
    from vm_memory_oracle.episodes import EMBEDDED_CHARS, Episode
    from vm_memory_oracle.indexes import bring_in_step
    from vm_memory_oracle.memory import Memory

    hash_embedder(cli)
    embedded: list[str] = []
    real = HashEmbedder.embed_passages

    def counted(self, texts):
        embedded.extend(texts)
        return real(self, texts)

    monkeypatch.setattr(HashEmbedder, "embed_passages", counted)
    asked = "Where did you stay the last time you were in Kyoto?"
    answer = "A small ryokan in Gion, and my partner loved the garden there."
    log(
        data_dir,
        [
            ("user", "Which hotel should I book in Kyoto for the cherry blossoms?"),
            ("assistant", RYOKAN),
            ("assistant", asked),
            ("user", answer),
        ],
    )
    summarize(cli)
    recalled(cli, "Kyoto")  # the indexes brought in step
    episodes = [Episode.from_record(record) for record in episodes_in(data_dir)]
    long_turn = [episode for episode in episodes if episode.speaker == "assistant"]
    assert len(long_turn) == len(passages(RYOKAN)) >= 3
    assert [episode.embedded is None for episode in long_turn] == [False] + [True] * (
        len(long_turn) - 1
    )
    opening = long_turn[0].embedded
    assert opening.startswith("user: Which hotel should I book in Kyoto")  # the question
    assert len(opening) <= len("user: Which hotel should I book in Kyoto for the cherry ") + (
        len("blossoms? assistant: ") + EMBEDDED_CHARS
    )
    # The person's question speaks of them ("should I book"): an episode of its own too.
    question, reply = [episode for episode in episodes if episode.speaker == "user"]
    assert question.text.startswith("Which hotel should I book") and question.asked is None
    assert reply.asked == f"assistant: {asked}"
    facts = [json.loads(line) for line in (data_dir / "knowledge-graph" / "facts.jsonl").open()]
    contexts = {fact.get("context") for fact in facts if fact["source"] == reply.source}
    assert contexts == {reply.embedded}, (contexts, reply.embedded)

    settings = Settings(embedding_model="hash", lock_timeout_seconds=5)
    graph = Memory.open(data_dir, settings, now=parse_iso(SAID)).graph()
    indexes = bring_in_step(graph)
    report = indexes.report.vectors
    assert indexes.report.episodes.episodes == len(episodes)
    assert len(indexes.episodes.vectors) == 3  # the question, the long turn's opening, the reply
    assert len(embedded) == len(set(embedded))  # no text twice
    assert embedded.count(reply.embedded) == 1 and opening in embedded
    assert not any("Hoshinoya" in text for text in embedded)
    assert indexes.report.episodes.embedded == 0 and report.embedded == 0  # all in the cache
    found = recalled(cli, "Hoshinoya ryokan Hozu river")
    assert any(hit.get("kind") == "episode" and "Hoshinoya" in hit["text"] for hit in found), found


def test_an_answer_keeps_the_end_of_a_long_turn_that_asked_it():
    """A long turn asks at its end: the answer after it is embedded with that question, not
    with the whole turn before it (the model's cost is its tokens)."""
    from vm_memory_oracle.model.text import ASKED_CHARS, question_of, turn_context

    advice = " ".join(f"Tip {n}: pack light layers for the mountains." for n in range(40))
    turn = f"{advice} Would you like a packing list for Kyoto?"
    asked = question_of("assistant", turn)
    assert asked.endswith("Would you like a packing list for Kyoto?")
    said = asked[len("assistant: ") :]
    assert len(said) <= ASKED_CHARS and f" {said}" in f" {turn}"  # from a word's start
    short = question_of("Bob", "Where to next?")
    assert short == "Bob: Where to next?"
    assert turn_context("Ann", "Sweden, four years ago", short) == (
        "Bob: Where to next? Ann: Sweden, four years ago"
    )


def test_the_assistant_answers_what_the_person_said_last_question_or_not():
    """ "What was the move you made after 27. Kg2 Bd5+?": the answer, "28. Kg3 would be my
    move.", says nothing of what it answers; the person's turn before it does, with no
    question mark. An assistant's turn keeps the end of the person's turn before it; a
    person's turn keeps only a question the assistant asked."""
    from datetime import datetime, timezone

    from vm_memory_oracle.extract.rules import in_context
    from vm_memory_oracle.model.turn import Turn

    said = datetime(2023, 5, 21, 13, 30, tzinfo=timezone.utc)
    turns = in_context(
        [
            Turn("sessions/2023-05-21-133000.jsonl", line, said, role, text)
            for line, (role, text) in enumerate(
                [
                    ("user", "you already have a pawn on d4. 26. hxg4 Rh8 27. Kg2 Bd5+"),
                    ("assistant", "28. Kg3 would be my move."),
                    ("user", "fine. Rh4"),
                    ("assistant", "29. Rd3 Rh4"),
                ],
                1,
            )
        ]
    )
    assert turns[1].asked == "user: you already have a pawn on d4. 26. hxg4 Rh8 27. Kg2 Bd5+"
    assert turns[2].asked is None  # the assistant asked nothing
    assert turns[3].asked == "user: fine. Rh4"
    [episode] = episodes_of(
        turns[1].source, "2023-05-21T13:30:30Z", "assistant", turns[1].text, asked=turns[1].asked
    )
    assert "27. Kg2 Bd5+ assistant: 28. Kg3" in episode.embedded


def test_an_answer_the_model_alone_ranks_first_stands_beside_the_best_fact():
    """ "28. Kg3 would be my move." shares no word with "what was the move you made after
    27. Kg2 Bd5+?": only the model's list holds it, first. It comes right after the best
    fact, before the turns the words' list ranks higher but the model lower, and each turn
    is shown once before any again."""
    from types import SimpleNamespace

    from vm_memory_oracle.episodes import Episode
    from vm_memory_oracle.recall.fusion import with_episodes
    from vm_memory_oracle.recall.sources.episodes import EpisodeHit

    def source(line: int) -> str:
        return f"sessions/2023-05-21-133000.jsonl:{line}"

    def fact(line: int):
        return SimpleNamespace(turn=source(line), score=0.0)

    def episode(line: int, facts: int, **ranks: int) -> EpisodeHit:
        said = Episode(source(line), 0, 1, SAID, "assistant", f"turn {line}", facts)
        return EpisodeHit(said, 0.0, ranks, 0.0)

    answer = episode(20, 0, semantic=0)
    worded = episode(16, 0, lexical=0, semantic=12)
    again = fact(19)
    facts = [fact(19), fact(11), fact(15), again]
    ranked = with_episodes(facts, [worded, answer], 10, lambda hit: hit.turn)
    turns = [hit.turn if hasattr(hit, "turn") else hit.episode.source for hit in ranked]
    assert turns[:2] == [source(19), source(20)]
    assert turns.index(source(20)) < turns.index(source(16))
    assert ranked[-1] is again  # its turn was shown already
    assert ranked[0].score == 1.0 and all(0 < hit.score <= 1 for hit in ranked)
    assert len(with_episodes(facts, [worded, answer], 3, lambda hit: hit.turn)) == 3


@pytest.mark.parametrize(
    "query, of_the_person",
    [
        ("What is the total cost of the food bowl and collar I got for Max?", True),
        ("What degree did I graduate with?", True),
        ("我上个月买了什么？", True),
        ("What did you suggest for my trip to Tokyo?", False),
        ("In our last chat, which hotel did I pick?", False),
        ("我们上次聊了什么？", False),
        ("Can you tell me more?", False),  # says nothing of the one asking
        ("Where does Priya live?", False),
    ],
)
def test_a_query_asks_of_the_persons_own_life_unless_it_turns_to_the_assistant(
    query, of_the_person
):
    from vm_memory_oracle.recall.query import Query

    assert Query(query, corpus=None).of_the_person is of_the_person  # type: ignore[arg-type]


def test_a_question_of_the_persons_own_doings_finds_their_turns_before_the_assistants_echo():
    """ "What is the total cost of the food bowl and collar I got for Max?": the person said
    what they bought; the assistant's running total restates it in more of the question's
    words and ranks first in both of the episodes' lists. Asked of the person, their own
    turns come first; asked of the assistant ("what total did you work out?"), its answer
    does, as before."""
    from vm_memory_oracle.episodes import Episode
    from vm_memory_oracle.recall.fusion import with_episodes
    from vm_memory_oracle.recall.sources.episodes import EpisodeHit

    def episode(line: int, speaker: str, rank: int) -> EpisodeHit:
        said = Episode(f"sessions/{SESSION}:{line}", 0, 1, SAID, speaker, f"turn {line}")
        return EpisodeHit(said, 0.0, {"lexical": rank, "semantic": rank}, 0.0)

    total = episode(8, "assistant", 0)
    bowl, collar = episode(3, "user", 1), episode(7, "user", 2)
    found = [total, bowl, collar]

    def lines(**how) -> list[str]:
        return [hit.episode.source[-1] for hit in with_episodes([], found, 3, **how)]

    assert lines(of_the_person=True) == ["3", "7", "8"]
    assert lines(of_the_person=False) == ["8", "3", "7"]
    assert lines() == ["8", "3", "7"]


def test_indexes_made_by_other_code_are_built_again_without_a_repair(cli, data_dir):
    """An upgrade changes the code that makes the episodes' and the full-text index: their
    records name another layout, so both are made again, found as before, and neither the
    warnings nor the audit log call it damage."""
    import marshal

    import numpy as np
    from vm_memory_oracle.storage import snapshot

    hash_embedder(cli)
    log(data_dir, TRIP)
    summarize(cli)
    first = recalled(cli, "which museum needs tickets ahead")
    assert any(hit.get("kind") == "episode" for hit in first)
    cache = data_dir / "state" / "cache"
    # The layout a record was made with is the first part of its key, in both records.
    state = cache / "episode-index.marshal"
    stored_format, key, payload = marshal.loads(state.read_bytes())
    state.write_bytes(marshal.dumps((stored_format, (key[0] + 1, *key[1:]), payload)))
    record = cache / "text-index.npz"
    with np.load(record, allow_pickle=False) as held:
        parts = {name: held[name] for name in held.files}
    head = json.loads(parts["head"].tobytes().decode("utf-8"))
    head["layout"] += 1
    parts["head"] = np.frombuffer(json.dumps(head).encode("utf-8"), dtype=np.uint8)
    np.savez(record, **parts)
    snapshot.forget_memory()  # the upgraded code runs in a new process
    audit = data_dir / "state" / "audit.jsonl"
    before = audit.read_text().splitlines()
    result = cli("--json", "--action", "recall", "--query", "which museum needs tickets ahead",
                 "--no-boost", now=LATER)  # fmt: skip
    assert result.code == 0, result.err
    assert [hit["id"] for hit in result.json()["results"]] == [hit["id"] for hit in first]
    assert "rebuilt" not in result.err, result.err
    lines = [json.loads(line) for line in audit.read_text().splitlines()[len(before) :]]
    notes = [note for line in lines for note in line["change"].split("; ")]
    assert any(
        note.startswith("episode index: ") and "made by another version" in note for note in notes
    ), notes
    assert any(
        note.startswith("full-text index: ") and "made by another version" in note for note in notes
    ), notes
    assert not [repair for line in lines for repair in line.get("repairs", [])]


def test_many_episodes_are_indexed_a_chunk_at_a_time_into_segments(cli, data_dir, monkeypatch):
    """An index of many episodes is made a few at a time (CHUNK) into segments of SEGMENT
    vectors each: recall finds the same as from one segment, and a turn learned later
    rewrites the last segment alone."""
    from vm_memory_oracle.episodes import index as module
    from vm_memory_oracle.episodes import vectors as segments
    from vm_memory_oracle.semantic.vectors import FLAT, IVF, VectorIndex

    hash_embedder(cli)
    turns = [
        ("user", f"My neighbour number {n} keeps {n + 2} {animal} in the garden shed.")
        for n, animal in enumerate(["rabbits", "hens", "goats", "bees", "ducks"] * 5)
    ]
    log(data_dir, turns)
    summarize(cli)
    queries = ["who keeps bees in the shed", "neighbour number 7", "how many ducks"]
    whole = [[hit["id"] for hit in recalled(cli, query, "--k", "8")] for query in queries]
    vectors_dir = data_dir / "state" / "cache" / "episode-vectors"
    assert sorted(path.name for path in vectors_dir.iterdir()) == ["000001.bin"]

    monkeypatch.setattr(segments, "SEGMENT", 4)
    monkeypatch.setattr(module, "CHUNK", 3)
    rebuilt = cli("--json", "--action", "reindex", now=LATER)
    assert rebuilt.code == 0, rebuilt.err
    assert rebuilt.json()["episodes"] == 25
    names = sorted(path.name for path in vectors_dir.iterdir())
    assert names == [f"{number:06d}.bin" for number in range(1, 8)]  # 25 = 6 x 4 + 1
    kinds = [VectorIndex.load(vectors_dir / name, 512).kind for name in names]
    assert kinds == [IVF] * 6 + [FLAT]  # full segments search the nearest groups only
    split = [[hit["id"] for hit in recalled(cli, query, "--k", "8")] for query in queries]
    assert split == whole

    stamps = {name: (vectors_dir / name).stat().st_mtime_ns for name in names}
    log(
        data_dir, [("user", "My neighbour number 99 keeps llamas.")], name="2026-05-11-090000.jsonl"
    )
    assert cli("--action", "summarize", "--all", now=LATER).code == 0
    found = recalled(cli, "who keeps llamas")
    assert any("llamas" in hit["text"] for hit in found)
    assert {name: (vectors_dir / name).stat().st_mtime_ns for name in names[:-1]} == {
        name: stamps[name] for name in names[:-1]
    }
    assert (vectors_dir / names[-1]).stat().st_mtime_ns != stamps[names[-1]]
