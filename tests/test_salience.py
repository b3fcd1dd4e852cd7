"""Salience: the shipped model, its features, and what summarize does with its score."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from test_extract import TS
from vm_memory_oracle.embed.bundled import MODEL_ID
from vm_memory_oracle.extract import salience
from vm_memory_oracle.extract.fragments import fragments
from vm_memory_oracle.extract.rules import extract_statements, in_context, turn_fragments
from vm_memory_oracle.model.turn import Turn

from conftest import hash_embedder

NIGHT = "2026-05-15T23:00:00Z"


def statements_of(text: str, speaker: str = "Caroline", addressee: str = "Melanie"):
    turn = Turn("sessions/2026-05-15-143000.jsonl", 3, TS, "user", text, speaker, None, addressee)
    return extract_statements([(turn, fragment) for fragment in fragments(text)], threshold=0.35)


def test_the_shipped_weights_are_small_and_name_their_features():
    data = salience.shipped()
    assert salience.WEIGHTS.stat().st_size < 64_000
    assert data.features == salience.FEATURES
    assert set(data.kinds) == set(salience.KINDS)
    people = data.kinds[salience.PEOPLE]
    assert set(people) == {MODEL_ID, None}
    assert len(people[None].weights) == len(salience.FEATURES)
    assert len(people[MODEL_ID].weights) == len(salience.FEATURES) + 384
    # with an assistant the features alone decide, whatever the embedder
    [alone] = data.kinds[salience.ASSISTANT].values()
    assert alone.model_id is None and len(alone.weights) == len(salience.FEATURES)
    for kind in data.kinds.values():
        for model in kind.values():
            assert len(model.mean) == len(model.scale) == len(salience.FEATURES)
            assert all(math.isfinite(value) for value in model.weights)


def test_the_model_for_an_unknown_embedder_reads_the_features_alone():
    assert salience.model_for("hash-256").model_id is None
    assert salience.model_for(None).model_id is None
    assert salience.model_for(MODEL_ID).model_id == MODEL_ID
    assert salience.model_for(MODEL_ID, salience.ASSISTANT).model_id is None


def test_a_turn_said_to_an_assistant_or_by_it_is_scored_by_the_assistant_model():
    turns = in_context(
        [
            Turn("sessions/2026-05-15-143000.jsonl", 1, TS, "user", "I adopted a cat in May."),
            Turn("sessions/2026-05-15-143000.jsonl", 2, TS, "assistant", "Congratulations!"),
        ]
    )
    [(_, statement)] = extract_statements(
        turn_fragments(turns, frozenset({"user"})), threshold=0.35
    )
    assert statement.kind == salience.ASSISTANT
    [(_, between_people)] = statements_of("I adopted a cat in May.")
    assert between_people.kind == salience.PEOPLE
    assert salience.kind_of("assistant", "user") == salience.ASSISTANT
    assert salience.kind_of("user", "Melanie") == salience.PEOPLE
    # the same statement, two models: the kinds' weights differ
    row = np.array([salience.features(statement)])
    people = salience.model_for(None, salience.PEOPLE).scores(row)[0]
    assistant = salience.model_for(None, salience.ASSISTANT).scores(row)[0]
    assert 0 < people < 1 and 0 < assistant < 1 and abs(people - assistant) > 1e-3


def test_features_read_the_statement_and_its_turn():
    [(fields, statement)] = statements_of(
        "Hey Mel! I'm going to a transgender conference in Boston on 5 July. Any tips?"
    )
    row = dict(zip(salience.FEATURES, salience.features(statement)))
    assert row["first_person"] == 1 and row["named_entity"] == 1 and row["number_or_date"] == 1
    assert row["turn_has_question"] == 1 and row["turn_opens_with_chatter"] == 1
    assert row["second_person"] == 0 and row["chinese"] == 0 and row["photo"] == 0
    # the addressee's and speaker's names are not entities of the statement
    [(_, plain)] = statements_of("I told Melanie about it yesterday.")
    assert dict(zip(salience.FEATURES, salience.features(plain)))["named_entity"] == 0


def test_a_turn_is_read_in_its_log_place_news_and_the_question_after_it():
    said = [
        ("Caroline", "Hey Mel! I went to a pottery class in Boston yesterday."),
        ("Melanie", "Wow, how was the pottery class?"),
        ("Caroline", "The pottery class in Boston was fun."),
        ("Melanie", "Glad to hear it."),
    ]
    turns = in_context(
        [
            Turn("sessions/2026-05-15-143000.jsonl", line, TS, "user", text, who)
            for line, (who, text) in enumerate(said, 1)
        ]
    )
    assert [turn.place for turn in turns] == [0, 1, 2, 3]
    assert [turn.addressee for turn in turns] == ["Melanie", "Caroline", "Melanie", "Caroline"]
    assert [turn.after_question for turn in turns] == [False, False, True, False]
    assert [turn.followed_by_question for turn in turns] == [True, False, False, False]
    assert turns[0].novelty == 1.0
    # of "pottery", "class", "Boston", "fun" only "fun" is new
    assert turns[2].novelty == pytest.approx(1 / 4)
    found = extract_statements(turn_fragments(turns, frozenset({"user"})), threshold=0.35)
    rows = {
        fields.source: dict(zip(salience.FEATURES, salience.features(statement)))
        for fields, statement in found
    }
    first = rows["sessions/2026-05-15-143000.jsonl:1"]
    assert first["opens_log"] == 1 and first["past_event"] == 1
    assert first["followed_by_question"] == 1 and first["log_turn_place"] == 0
    assert rows["sessions/2026-05-15-143000.jsonl:3"]["turn_novelty"] == pytest.approx(1 / 4)


def test_scores_are_probabilities_and_a_life_event_outranks_a_passing_remark():
    model = salience.model_for(None)
    event = statements_of("I'm going to a transgender conference in Boston on 5 July.")
    remark = statements_of("Life's too short to do anything else!")
    rows = np.array([salience.features(s) for _, s in event + remark])
    scores = model.scores(rows)
    assert ((0 < scores) & (scores < 1)).all()
    assert scores[0] > scores[1]


@pytest.mark.parametrize(
    "intrinsic, signals, score, expected",
    [
        (0.5, 0, 0.5, 0.5),
        (0.5, 0, 1.0, 0.8),
        (0.5, 0, 0.0, 0.2),
        (1.0, 0, 1.0, 1.0),
        (0.2, 0, 0.0, 0.0),
        (0.8, 0.5, 0.1, 1.0),
        (0.5, -0.2, 0.5, 0.3),
    ],
)
def test_salience_moves_importance_within_its_bounds(intrinsic, signals, score, expected):
    assert salience.importance_with(intrinsic, signals, score) == pytest.approx(expected)


@pytest.mark.parametrize(
    "score, intrinsic, signals, expected",
    [
        (0.2, 0.5, 0.0, 0.2),  # a remark: the model alone
        (0.2, 1.0, 0.0, 0.6),  # an allergy: lasting kind, +0.5
        (0.025, 0.8, 0.5, 0.805),  # "记住，我讨厌香菜": a preference said with "remember"
        (0.9, 0.5, -0.2, 0.9),  # a negative signal takes nothing from the model's score
    ],
)
def test_what_the_rules_know_makes_a_statement_salient_too(score, intrinsic, signals, expected):
    assert salience.with_evidence(score, intrinsic, signals) == pytest.approx(expected)


def test_summarize_scores_every_fact_it_learns(cli, data_dir):
    hash_embedder(cli)
    (data_dir / "sessions").mkdir(parents=True, exist_ok=True)
    turns = [
        ("Caroline", "I'm going to a transgender conference in Boston on 5 July."),
        ("Melanie", "Life's too short to do anything else!"),
    ]
    (data_dir / "sessions" / "2026-05-15-090000.jsonl").write_text(
        "".join(
            json.dumps(
                {"ts": f"2026-05-15T09:0{n}:00Z", "role": "user", "speaker": who, "text": text}
            )
            + "\n"
            for n, (who, text) in enumerate(turns)
        )
    )
    result = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert result.code == 0, result.err
    assert result.json()["salience"] == "features"  # the hashing embedder: features alone
    facts = [
        json.loads(line)
        for line in (data_dir / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    ]
    assert len(facts) == 2
    for fact in facts:
        assert 0 <= fact["salience"] <= 1
        assert fact["importance"] == salience.importance_with(0.5, 0.0, fact["salience"])
    event, remark = sorted(facts, key=lambda fact: fact["subject"])
    assert event["salience"] > remark["salience"]
