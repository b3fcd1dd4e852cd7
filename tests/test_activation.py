"""Activation is a pure function of time."""

import json
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from vm_memory_oracle.clock import parse_iso
from vm_memory_oracle.model.activation import (
    ActivationEntries,
    ActivationEntry,
    activation_at,
    boosted,
    effective_half_life,
)

T0 = parse_iso("2026-05-15T14:30:00Z")


def test_thirty_days_without_access_halves_activation():
    assert activation_at(0.8, T0, T0 + timedelta(days=30), half_life_days=30) == pytest.approx(0.4)


def test_computing_decay_twice_gives_the_same_numbers():
    now = T0 + timedelta(days=30)
    first = [activation_at(a0, T0, now, half_life_days=30) for a0 in (1.0, 0.6, 0.2)]
    second = [activation_at(a0, T0, now, half_life_days=30) for a0 in (1.0, 0.6, 0.2)]
    assert first == second == pytest.approx([0.5, 0.3, 0.1])


def test_important_facts_fade_at_half_the_rate():
    assert effective_half_life(30, 1.0) == 60
    assert activation_at(
        1.0, T0, T0 + timedelta(days=60), half_life_days=30, importance=1.0
    ) == pytest.approx(0.5)


def test_pinned_facts_do_not_decay():
    assert activation_at(0.7, T0, T0 + timedelta(days=3650), half_life_days=30, pinned=True) == 0.7


def test_time_before_last_access_does_not_raise_activation():
    assert activation_at(0.5, T0, T0 - timedelta(days=10), half_life_days=30) == 0.5


def test_boost_adds_and_caps_at_one():
    assert boosted(0.5, 0.3) == pytest.approx(0.8)
    assert boosted(0.9, 0.3) == 1.0


@given(
    a0=st.floats(0, 1), days=st.floats(0, 3650), split=st.floats(0, 1), importance=st.floats(0, 1)
)
def test_decay_is_a_function_of_elapsed_time_only(a0, days, split, importance):
    # Decaying in two passes from the same stored a0 equals one pass: nothing compounds.
    now = T0 + timedelta(days=days)
    middle = T0 + timedelta(days=days * split)
    activation_at(a0, T0, middle, half_life_days=30, importance=importance)
    once = activation_at(a0, T0, now, half_life_days=30, importance=importance)
    again = activation_at(a0, T0, now, half_life_days=30, importance=importance)
    assert once == again
    assert 0 <= once <= a0


@pytest.mark.parametrize(
    "line",
    [
        '{"activation":0.5,"last_accessed":"2026-05-15T14:30:00Z","access_count":0}',
        '{"activation":1,"last_accessed":"2026-05-15T14:30:00.25+02:00","access_count":7}',
        '{"activation":0.8,"last_accessed":"2026-05-15T14:30:00Z","access_count":2,'
        '"heard":["sessions/a.jsonl:3","sessions/b.jsonl:9"]}',
    ],
)
def test_an_activation_entry_gives_back_the_record_it_was_read_from(line):
    """The entry a file holds, made a record and written again, is the same bytes: the same
    keys in the same order, an integer a0 kept an integer, "heard" only when it names one."""
    entry = ActivationEntry.from_json(json.loads(line))
    assert json.dumps(entry.to_json(), separators=(",", ":")) == line


def test_an_entry_without_sources_heard_writes_no_heard_key():
    record = ActivationEntry(0.5, "2026-05-15T14:30:00Z", 1).to_json()
    assert list(record) == ["activation", "last_accessed", "access_count"]


def test_activation_entries_make_records_of_the_json_they_hold_and_share_it():
    held = {
        "fact-a": {"activation": 0.5, "last_accessed": "2026-05-15T14:30:00Z", "access_count": 0},
        "fact-b": {"activation": 0.2, "last_accessed": "2026-05-15T14:30:00Z", "access_count": 3},
    }
    state = ActivationEntries(dict(held))
    assert state["fact-b"] == ActivationEntry(0.2, "2026-05-15T14:30:00Z", 3)
    assert "fact-a" in state and "fact-c" not in state and len(state) == 2
    assert list(state.decay_starts()) == [
        ("fact-a", 0.5, "2026-05-15T14:30:00Z"),
        ("fact-b", 0.2, "2026-05-15T14:30:00Z"),
    ]
    kept = state.only(["fact-b", "fact-c", "fact-a"])
    assert list(kept) == ["fact-b", "fact-a"]
    assert all(kept.to_json()[fact_id] is held[fact_id] for fact_id in kept)  # not copied
    state["fact-a"] = ActivationEntry(0.9, "2026-05-16T00:00:00Z", 1, ("user-stated",))
    assert held["fact-a"]["activation"] == 0.5  # replaced in the mapping, not changed
    assert state.to_json()["fact-a"]["heard"] == ["user-stated"]
    assert state != ActivationEntries(dict(held))
    assert ActivationEntries.of(dict(state)) == state
