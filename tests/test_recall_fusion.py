"""Fusion gives a query's candidates in one order, by score, then activation, then id,
however few of them are sorted at first (recall/fusion.py, by_score); the best few
candidates so far are the first of the order fused so far (recall/candidates.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from vm_memory_oracle.recall.candidates import Candidates
from vm_memory_oracle.recall.fusion import by_score

# Few values, so that scores and activations tie often.
VALUES = st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0])


@given(
    held=st.lists(st.tuples(VALUES, VALUES), max_size=40),
    first=st.integers(0, 45),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_candidates_come_in_the_order_of_one_whole_sort(held, first, seed):
    rng = np.random.default_rng(seed)
    size = len(held) + 5  # a snapshot of a few more facts than the candidates
    candidates = np.sort(rng.choice(size, len(held), replace=False)).astype(np.intp)
    activation = np.zeros(size)
    activation[candidates] = [value for _, value in held]
    scores = np.array([score for score, _ in held], dtype=np.float64)
    id_order = rng.permutation(size).astype(np.uint32)  # each fact id's place in id order
    fused = SimpleNamespace(
        corpus=SimpleNamespace(activation=activation),
        outside={},
        tables=SimpleNamespace(id_order=id_order),
    )
    whole = np.lexsort((id_order[candidates], -activation[candidates], -scores))
    expected = list(zip(candidates[whole].tolist(), scores[whole].tolist()))
    assert list(by_score(fused, candidates, scores, first)) == expected


@given(
    lists=st.lists(
        st.tuples(st.sampled_from([1.0, 2.0]), st.lists(st.integers(0, 29), unique=True)),
        min_size=1,
        max_size=4,
    ),
    count=st.integers(0, 35),
)
def test_the_best_candidates_are_the_first_of_their_order(lists, count):
    corpus = SimpleNamespace(tables=SimpleNamespace(ids=[f"fact-{n}" for n in range(30)]))
    names = [f"list-{place}" for place in range(len(lists))]
    fused = Candidates(corpus, names)
    for name, (weight, numbers) in zip(names, lists):
        fused.add(name, weight, np.array(numbers, dtype=np.intp))
    assert fused.best(count).tolist() == fused.ordered()[:count].tolist()
