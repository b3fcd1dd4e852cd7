"""The times a query or a fact names (model/periods.py), and recall preferring the facts
of the time a query names."""

from __future__ import annotations

import sys
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "skill"))

from vm_memory_oracle.model.periods import Period, named_periods  # noqa: E402
from vm_memory_oracle.recall.sources.time import FactTimes, of_the_time  # noqa: E402

from conftest import fact_of, recall_results, remember_records  # noqa: E402

TODAY = date(2026, 11, 26)  # a Thursday


def spans(text: str, today: date = TODAY) -> list[tuple[str, str]]:
    return [(p.first.isoformat(), p.last.isoformat()) for p in named_periods(text, today)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What did Maria donate in December 2023?", [("2023-12-01", "2023-12-31")]),
        ("in June, 2023", [("2023-06-01", "2023-06-30")]),
        ("the book she finished on 8th December, 2023", [("2023-12-08", "2023-12-08")]),
        ("on October 13, 2023", [("2023-10-13", "2023-10-13")]),
        ("December 1,2023", [("2023-12-01", "2023-12-01")]),
        ("in 2022", [("2022-01-01", "2022-12-31")]),
        ("summer 2021", [("2021-06-01", "2021-08-31")]),
        ("winter of 2023", [("2023-12-01", "2024-02-29")]),
        ("yesterday", [("2026-11-25", "2026-11-25")]),
        ("last week", [("2026-11-16", "2026-11-22")]),
        ("last weekend", [("2026-11-21", "2026-11-22")]),
        ("last month", [("2026-10-01", "2026-10-31")]),
        ("last year", [("2025-01-01", "2025-12-31")]),
        ("last summer", [("2026-06-01", "2026-08-31")]),
        ("next summer", [("2027-06-01", "2027-08-31")]),
        ("two weeks ago", [("2026-11-09", "2026-11-15")]),
        ("3 months ago", [("2026-08-01", "2026-08-31")]),
        # A month without a year: the latest one begun, and the next when still to come.
        ("in June", [("2026-06-01", "2026-06-30")]),
        ("in December", [("2025-12-01", "2025-12-31"), ("2026-12-01", "2026-12-31")]),
        ("last May", [("2026-05-01", "2026-05-31")]),
        ("what did I say in may?", [("2026-05-01", "2026-05-31")]),
        # Dates as facts carry them once resolved (extract/dates.py).
        ("went (2023-05-07)", [("2023-05-07", "2023-05-07")]),
        (
            "last week (week of 2023-06-26)",
            [("2026-11-16", "2026-11-22"), ("2023-06-26", "2023-07-02")],
        ),
        ("Next month (2023-08)", [("2026-12-01", "2026-12-31"), ("2023-08-01", "2023-08-31")]),
        # Chinese.
        ("去年我去了哪里", [("2025-01-01", "2025-12-31")]),
        ("2023年5月的会议", [("2023-05-01", "2023-05-31")]),
        ("2024年", [("2024-01-01", "2024-12-31")]),
        ("五月我做了什么", [("2026-05-01", "2026-05-31")]),
        ("十二月", [("2025-12-01", "2025-12-31"), ("2026-12-01", "2026-12-31")]),
        ("3月15日", [("2026-03-15", "2026-03-15")]),
        ("上个月", [("2026-10-01", "2026-10-31")]),
        ("上周", [("2026-11-16", "2026-11-22")]),
        ("昨天", [("2026-11-25", "2026-11-25")]),
        ("两年前", [("2024-01-01", "2024-12-31")]),
        ("三个月前", [("2026-08-01", "2026-08-31")]),
    ],
)
def test_named_periods(text, expected):
    assert spans(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "May I ask what you know about me?",
        "I march in the parade",  # a lowercase month name is a month only after a cue
        "three months of practice",  # a length of time names no time
        "三个月的练习",
        "version 12.2023",
        "",
    ],
)
def test_texts_that_name_no_time(text):
    assert [p for p in named_periods(text, TODAY) if p.first.year in (2023, 2026)] == []


def test_february_30_names_no_day_but_its_year_stands():
    assert spans("February 30, 2023") == [("2023-01-01", "2023-12-31")]


def test_periods_overlap_on_a_shared_day_only():
    may = Period(date(2023, 5, 1), date(2023, 5, 31))
    assert may.overlaps(Period(date(2023, 5, 31), date(2023, 6, 6)))
    assert not may.overlaps(Period(date(2023, 6, 1), date(2023, 6, 30)))


def test_a_fact_is_of_the_time_it_was_stated_or_names():
    fact = fact_of(
        {
            "subject": "user",
            "predicate": "ran",
            "object": "a marathon",
            "text": "The user ran a marathon last week (week of 2023-06-26).",
            "valid_from": "2023-07-03T10:00:00Z",
        }
    )
    assert of_the_time(fact, named_periods("in July 2023", TODAY))  # stated then
    assert of_the_time(fact, named_periods("in June 2023", TODAY))  # names a week of June
    assert not of_the_time(fact, named_periods("in May 2023", TODAY))
    assert not of_the_time(fact, named_periods("last year", TODAY))  # 2025


APRIL = "2026-04-01T00:00:00Z"  # when the concerts are remembered and recalled
CONCERTS = [
    {
        "subject": "user",
        "predicate": "went to",
        "object": "a concert in Lisbon",
        "text": "The user went to a jazz concert in Lisbon.",
        "valid_from": "2025-05-10",
    },
    {
        "subject": "user",
        "predicate": "went to",
        "object": "a concert in Porto",
        "text": "The user went to a jazz concert in Porto.",
        "valid_from": "2026-03-02",
    },
    {
        "subject": "user",
        "predicate": "went to",
        "object": "a concert in Faro",
        "text": "The user went to a jazz concert in Faro (2024-10-06).",
        "valid_from": "2026-01-15",
    },
]


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("Which jazz concert did I go to in May 2025?", "a concert in Lisbon"),
        ("which jazz concert did I go to last year", "a concert in Lisbon"),
        ("jazz concert in March", "a concert in Porto"),
        ("jazz concert in October 2024", "a concert in Faro"),  # the date the text names
        ("去年的 jazz concert", "a concert in Lisbon"),
    ],
)
def test_recall_prefers_the_facts_of_the_time_a_query_names(cli, tmp_path, query, first):
    remember_records(cli, tmp_path / "concerts.jsonl", CONCERTS, now=APRIL)
    results = recall_results(cli, query, now=APRIL)
    assert [hit["object"] for hit in results][0] == first
    assert "time" in results[0]["matched"]
    assert len(results) == 3  # the others still come, after it
    assert all("time" not in hit["matched"] for hit in results[1:])


def test_without_a_time_named_the_order_is_the_plain_one(cli, tmp_path):
    remember_records(cli, tmp_path / "concerts.jsonl", CONCERTS, now=APRIL)
    results = recall_results(cli, "jazz concert", now=APRIL)
    assert len(results) == 3
    assert all("time" not in hit["matched"] for hit in results)


PIECES = [
    "in May 2023",
    "(2023-05-07)",
    "(week of 2023-06-26)",
    "(2023-08)",
    "last year",
    "yesterday",
    "2022",
    "去年",
    "summer 2021",
    "a walk",
]


@given(
    sentences=st.lists(
        st.lists(st.sampled_from(PIECES), min_size=0, max_size=6), min_size=1, max_size=12
    ),
    days=st.lists(st.integers(0, 1500), min_size=12, max_size=12),
    missing=st.sets(st.integers(0, 11)),
    queries=st.lists(st.sampled_from(PIECES[:-1] + ["in June", "上个月"]), min_size=1, max_size=3),
)
@settings(max_examples=150, deadline=None)
def test_fact_times_in_arrays_answer_as_of_the_time(sentences, days, missing, queries):
    facts = [
        fact_of(
            {
                "subject": "user",
                "predicate": "did",
                "object": f"thing {number}",
                "text": "The user did " + " ".join(pieces) + f" thing {number}.",
                "valid_from": (date(2021, 1, 1) + timedelta(days=days[number])).isoformat(),
            }
        )
        for number, pieces in enumerate(sentences)
    ]
    periods = [p for query in queries for p in named_periods(query, TODAY)]
    times = FactTimes(len(facts))
    numbers = np.arange(len(facts), dtype=np.intp)
    for _ in range(2):  # learned on the first call, read from the arrays on the second
        mask = times.of_the_time(numbers, lambda n: None if n in missing else facts[n], periods)
        expected = [n not in missing and of_the_time(fact, periods) for n, fact in enumerate(facts)]
        assert mask.tolist() == expected
