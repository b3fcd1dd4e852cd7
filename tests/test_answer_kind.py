"""The fact that answers outranks the one that only names the topic: a question asking how
much, how many, when, where, who or which is answered first by a fact holding a value of
that kind (model/answer_kind.py, recall/sources/answer.py), active or faded alike."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from vm_memory_oracle.model.answer_kind import (
    AMOUNT,
    HELD,
    KINDS,
    NAME,
    NUMBER,
    PERSON,
    PLACE,
    SPAN,
    TIME,
    asked_kind,
    asked_words,
    holds,
)
from vm_memory_oracle.model.fact import new_fact
from vm_memory_oracle.recall.sources.answer import ValuesHeld, holds_value

from conftest import log_turns

DAY0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
SAID = date(2026, 1, 1)


def stamp(days: float) -> str:
    return (DAY0 + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize(
    "question, kind",
    [
        ("How much did Lola's vet visit cost?", AMOUNT),
        ("我的新车花了多少钱？", AMOUNT),
        ("How much weight did I lose?", NUMBER),
        ("我减了多少公斤？", NUMBER),
        ("How much time do I spend on guitar practice each day?", SPAN),
        ("我每天花多长时间练琴？", SPAN),
        # A difference is worked out from two values: a fact naming any number is no answer
        # to it, but each of two amounts is told by its currency.
        ("How much earlier do I wake up on Fridays than on other days?", None),
        ("How much longer is my new commute?", None),
        ("我周五比平时早起多少？", None),
        ("How much more did the new bike cost than the old one?", AMOUNT),
        ("新车比旧车贵了多少钱？", AMOUNT),
        # A count is worked out over many turns: a fact naming any number is no answer to it.
        ("How many books did I read last month?", None),
        ("How many days passed between the workshop and the meeting?", None),
        ("我去过几次日本？", None),
        ("我养了多少只猫？", None),
        # A duration is no count: a fact naming any number is no answer to it.
        ("How long did I wait for the decision?", None),
        ("When did I start learning Portuguese?", TIME),
        ("我什么时候搬的家？", TIME),
        ("Where did I buy my bike?", PLACE),
        ("我在哪里买的自行车？", PLACE),
        ("Who gave me the cookbook?", PERSON),
        ("谁送我的书？", PERSON),
        ("Which play did I attend last week?", NAME),
        ("我上周看的是哪部电影？", NAME),
        ("What do I like to eat?", None),
        ("Do I have a dog?", None),
    ],
)
def test_the_kind_of_value_a_question_asks_for(question, kind):
    assert asked_kind(question) == kind


@pytest.mark.parametrize(
    "sentence, kinds",
    [
        ("user said: I paid $120 for the visit, vaccines included.", {AMOUNT, NUMBER}),
        ("用户的新车花了25万元", {AMOUNT, NUMBER}),
        ("user said: Lola had her check-up at the vet", set()),
        ("user said: I read three novels", {NUMBER}),
        ("user has been practising for about an hour each day", {SPAN}),
        ("user said: I practise guitar for 30 minutes every day", {SPAN, NUMBER}),
        ("用户每天练琴一个半小时", {SPAN, NUMBER}),
        # A rate ("twice a week") is no span of time; a number of things is none either.
        ("user goes climbing twice a week", set()),
        ("user thinks they can fit in 2-3 tasks", {NUMBER}),
        ("user started learning Portuguese last month (2025-12)", {TIME}),
        ("user bought a bike at Cycle Hub", {PLACE}),
        # A person or a name is asked for, but no fact is held to hold one (the names of
        # a conversation's speakers are in nearly all of its facts).
        ("user said: my sister gave me the cookbook", set()),
        ("用户上周看的电影是《流浪地球》", {TIME}),
    ],
)
def test_the_kinds_of_value_a_fact_holds(sentence, kinds):
    held = {kind for kind in KINDS if holds(sentence, kind, SAID)}
    assert held == kinds


SAID_CHARACTERS = "Who met Anna in Lisbon at 9am for $5 2 hours 在北京谁 "


@given(
    sentence=st.text(alphabet=st.sampled_from(SAID_CHARACTERS)) | st.text(),
    kind=st.sampled_from([kind for kind in KINDS if kind not in HELD]),
)
def test_a_kind_outside_held_is_held_by_no_sentence(sentence, kind):
    # The answer source reads no candidate for such a question (recall/sources/answer.py)
    assert set(KINDS) - set(HELD) == {PERSON, NAME}
    assert not holds(sentence, kind, SAID, asked_words(sentence))


def test_a_place_the_question_names_is_not_the_place_it_asks_for():
    asked = asked_words("Where in Lisbon did I stay?")
    assert not holds("user said: I love the food in Lisbon", PLACE, SAID, asked)
    assert holds("user stayed at Casa Amora in Lisbon", PLACE, SAID, asked)


SAID_OBJECTS = [
    "paid $120 for the visit",
    "practises guitar for 30 minutes every day",
    "read three novels",
    "started learning Portuguese last month (2025-12)",
    "bought a bike at Cycle Hub",
    "stayed at Casa Amora in Lisbon",
    "met Anna at 9am on Friday",
    "had a check-up at the vet",
]
ASKED = ["", "Where in Lisbon did I stay?", "Where did I buy the bike at Cycle Hub?"]


@given(
    objects=st.lists(st.sampled_from(SAID_OBJECTS + [None]), min_size=1, max_size=10),
    size=st.integers(0, 10),
    asks=st.lists(
        st.tuples(
            st.sampled_from(HELD),
            st.sampled_from(ASKED),
            st.lists(st.integers(0, 9), unique=True),
        ),
        max_size=6,
    ),
)
def test_the_values_held_kept_for_a_recall_are_holds_value_of_each_fact(objects, size, asks):
    # A number at or past `size` is outside the snapshot and read every time; None: a fact
    # no longer active, which holds none.
    facts = [
        None
        if obj is None
        else new_fact(
            {"subject": "user", "predicate": "said", "object": obj},
            created=stamp(0),
            default_source="test",
        )
        for obj in objects
    ]

    def fact_of(number: int):
        return facts[number] if number < len(facts) else None

    values = ValuesHeld(size)
    for kind, question, numbers in asks:
        asked = asked_words(question)
        held = values.held(np.array(numbers, dtype=np.intp), kind, asked, fact_of)
        assert held.tolist() == [holds_value(fact_of(n), kind, asked) for n in numbers]


VISIT = [
    ("user", "Lola had her check-up at the vet today."),
    ("assistant", "I hope Lola is doing well!"),
    ("user", "I paid $120 for the visit, vaccines included."),
    ("assistant", "That's a fair price for a check-up with vaccines."),
]
QUESTION = "How much did Lola's vet visit cost?"


def recalled(cli, query: str, now: str) -> list[dict]:
    result = cli(
        "--json", "--action", "recall", "--query", query, "--no-boost", "--k", "5", now=now
    )
    assert result.code == 0, result.err
    return result.json()["results"]


def test_an_active_fact_holding_the_amount_asked_for_comes_before_the_topic(cli, data_dir):
    assert cli("--action", "init").code == 0
    log_turns(data_dir, VISIT, "2026-01-01-090000.jsonl")
    assert cli("--action", "summarize", "--all", now=stamp(0.5)).code == 0
    found = recalled(cli, QUESTION, now=stamp(1))
    assert "$120" in found[0]["text"], found
    assert "answer" in found[0]["matched"]
    assert any("check-up" in hit["text"] for hit in found[1:]), found
    # A question that asks for no value keeps the order by meaning and words alone.
    plain = recalled(cli, "Lola's check-up at the vet", now=stamp(1))
    assert all("answer" not in hit["matched"] for hit in plain)


@pytest.mark.slow
def test_a_faded_fact_holding_the_amount_comes_before_an_active_one_naming_the_topic(cli, data_dir):
    """The amount was said once, 200 days ago, and faded; the visit is named again today.
    The faded fact is placed among the active ones by the measure recall ranks them by."""
    assert cli("--action", "init").code == 0
    log_turns(data_dir, VISIT, "2026-01-01-090000.jsonl")
    assert cli("--action", "summarize", "--all", now=stamp(0.5)).code == 0
    for day in range(10, 201, 10):
        assert cli("--action", "consolidate", now=stamp(day)).code == 0
    again = [("user", "Lola had her yearly check-up at the vet again today.")]
    log_turns(data_dir, again, "2026-07-20-090000.jsonl")
    assert cli("--action", "summarize", "--all", now=stamp(200.5)).code == 0
    found = recalled(cli, QUESTION, now=stamp(201))
    assert "$120" in found[0]["text"], found
    assert {"archive", "dormant"} & set(found[0]["matched"]), found
    active = [hit for hit in found if not {"archive", "dormant"} & set(hit["matched"])]
    assert any("yearly check-up" in hit["text"] for hit in active), found
