"""Activation over numpy columns equals the documented scalar formula, fact by fact."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from vm_memory_oracle.clock import format_iso, parse_iso
from vm_memory_oracle.config import Settings
from vm_memory_oracle.graph.columns import (
    ActivationColumns,
    FactColumns,
    activation_values,
    fact_columns,
    microseconds,
)
from vm_memory_oracle.model.activation import ActivationEntries, ActivationEntry, fact_activation
from vm_memory_oracle.model.fact import new_fact
from vm_memory_oracle.steps.memory_md import block as memory_md

START = parse_iso("2026-01-01T00:00:00Z")

fact_inputs = st.tuples(
    st.floats(0, 1),  # importance
    st.booleans(),  # pinned
    st.floats(0, 1),  # creation activation
    st.integers(0, 400 * 86400 * 10**6),  # created, microseconds after START
    st.one_of(
        st.none(),
        st.tuples(st.floats(0, 1), st.integers(0, 400 * 86400 * 10**6)),  # a0, last access
    ),
)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(fact_inputs, min_size=1, max_size=30),
    st.integers(-10 * 86400, 800 * 86400),  # now, seconds after START (before a fact, too)
    st.floats(0.5, 365),
)
def test_vectorized_activation_is_the_scalar_formula(rows, now_seconds, half_life):
    now = START + timedelta(seconds=now_seconds)
    facts, state = [], ActivationEntries()
    for number, (importance, pinned, initial, created, entry) in enumerate(rows):
        stamp = format_iso(START + timedelta(microseconds=created))
        fact = new_fact(
            {
                "subject": "user",
                "predicate": "noted",
                "object": f"thing {number}",
                "importance": round(importance, 3),
                "pinned": pinned,
                "activation": initial,
            },
            created=stamp,
            default_source="user-stated",
        )
        facts.append(fact)
        if entry is not None:
            state[fact.id] = ActivationEntry(
                entry[0], format_iso(START + timedelta(microseconds=entry[1])), 1
            )
    inputs = FactColumns(
        np.array([fact.importance or 0.0 for fact in facts]),
        np.array([fact.pinned for fact in facts]),
        np.array([microseconds(fact.created) for fact in facts], dtype=np.int64),
        np.array([fact.activation for fact in facts]),
    )
    ids = [fact.id for fact in facts]
    columns = ActivationColumns.of({fact_id: n for n, fact_id in enumerate(ids)}, inputs, state)
    vectorized = columns.activation(inputs, now, half_life)
    scalar = [
        fact_activation(fact, state.get(fact.id), now, half_life_days=half_life) for fact in facts
    ]
    # numpy's power over an array need not round like math's pow: the same formula agrees
    # within a few units in the last place, and so decides alike at every threshold an
    # activation is compared with (search, prune, MEMORY.md's add and remove).
    assert_same_activations(vectorized.tolist(), scalar)
    # What the consolidation steps use: the columns made from the facts themselves.
    assert fact_columns(facts).created.tolist() == inputs.created.tolist()
    assert_same_activations(activation_values(facts, state, now, half_life), scalar)


THRESHOLDS = (
    Settings().search_threshold,
    Settings().prune_threshold,
    memory_md.ADD_ABOVE,
    memory_md.REMOVE_BELOW,
)
ULPS = 4


def assert_same_activations(vectorized: list[float], scalar: list[float]) -> None:
    assert len(vectorized) == len(scalar)
    for ours, formula in zip(vectorized, scalar):
        assert abs(ours - formula) <= ULPS * np.spacing(formula), (ours, formula)
        for threshold in THRESHOLDS:
            assert (ours >= threshold) == (formula >= threshold), (ours, formula, threshold)
            assert (ours > threshold) == (formula > threshold), (ours, formula, threshold)


def test_the_journal_of_recalls_is_applied_over_the_columns():
    fact = new_fact(
        {"subject": "user", "predicate": "likes", "object": "tea"},
        created="2026-01-01T00:00:00Z",
        default_source="user-stated",
    )
    inputs = FactColumns(
        np.array([0.0]), np.array([False]), np.array([microseconds(fact.created)]), np.array([1.0])
    )
    columns = ActivationColumns.of({fact.id: 0}, inputs, ActivationEntries())
    now = parse_iso("2026-01-31T00:00:00Z")
    assert columns.activation(inputs, now, 30.0)[0] == 0.5
    columns.apply(ActivationEntries.of({fact.id: ActivationEntry(0.8, "2026-01-31T00:00:00Z", 1)}))
    assert columns.activation(inputs, now, 30.0)[0] == 0.8


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 1),  # importance
            st.booleans(),  # pinned
            st.sampled_from([0.0, 0.15, 0.3, 0.5, 1.0]) | st.floats(0, 1),  # a0
            st.integers(0, 400 * 86400 * 10**6),  # last access, microseconds after START
        ),
        min_size=1,
        max_size=40,
    ),
    st.lists(st.integers(-10 * 86400 * 10**6, 800 * 86400 * 10**6), min_size=1, max_size=4),
    # A threshold below the smallest normal float is left out: an activation that has
    # rounded down to a subnormal stays "at or above" it for days after the true crossing,
    # which no deadline can place; every threshold a memory uses is far above it.
    st.sampled_from([0.0, 0.15, 0.3, 0.5, 1.0]) | st.floats(np.finfo(float).tiny, 1),
    st.floats(0.5, 365),
    st.data(),
)
def test_the_searchable_mask_is_activation_at_or_above_the_threshold(
    rows, moments, threshold, half_life, data
):
    """searchable() decides by deadlines and settles only facts near theirs by the formula:
    it must say exactly what comparing every activation with the threshold says, at several
    moments, before and after boosts move some deadlines; and the values it gives for a few
    facts are those of the whole array."""
    inputs = FactColumns(
        np.array([row[0] for row in rows]),
        np.array([row[1] for row in rows]),
        np.zeros(len(rows), dtype=np.int64),
        np.array([row[2] for row in rows]),
    )
    ids = [f"fact-{number}" for number in range(len(rows))]
    start = microseconds(START)
    state = ActivationEntries.of(
        {
            fact_id: ActivationEntry(row[2], format_iso(START + timedelta(microseconds=row[3])), 0)
            for fact_id, row in zip(ids, rows)
        }
    )
    columns = ActivationColumns.of({fact_id: n for n, fact_id in enumerate(ids)}, inputs, state)
    for offset in moments:
        now = START + timedelta(microseconds=offset)
        exact = columns.activation(inputs, now, half_life) >= threshold
        assert columns.searchable(inputs, now, half_life, threshold).tolist() == exact.tolist()
        # A deadline itself, to the microsecond: the rounding band settles it.
        number = data.draw(st.integers(0, len(rows) - 1))
        deadline = columns._deadline(inputs, half_life, threshold, np.array([number]))[0]
        if np.isfinite(deadline) and abs(deadline) < 2**52:
            at = START + timedelta(microseconds=int(deadline) - start)
            exact = columns.activation(inputs, at, half_life) >= threshold
            assert columns.searchable(inputs, at, half_life, threshold).tolist() == exact.tolist()
        boosted = data.draw(st.lists(st.sampled_from(ids), max_size=3, unique=True))
        columns.apply(
            ActivationEntries.of(
                {
                    fact_id: ActivationEntry(
                        min(1.0, data.draw(st.floats(0, 1))),
                        format_iso(now.replace(microsecond=0)),
                        1,
                    )
                    for fact_id in boosted
                }
            )
        )
        chosen = np.array(sorted({0, len(rows) - 1}), dtype=np.intp)
        assert_same_activations(
            columns.activation(inputs, now, half_life, chosen).tolist(),
            columns.activation(inputs, now, half_life)[chosen].tolist(),
        )
