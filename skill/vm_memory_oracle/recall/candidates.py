"""The candidates of one recall: the sources' lists fused so far, by fact number; and the
reciprocal rank every fusion of recall scores a list's place with."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..model.fact import Fact
from .corpus import Corpus

# The constant of every reciprocal rank (weight / (RRF_K + place)), the best measured on the
# LoCoMo development split (benchmarks/locomo_retrieval.py) with the sources' weights.
RRF_K = 10


def reciprocal(weight, places):
    """A list's share of an item's fused score: `weight` / (RRF_K + its place), places
    counted from 1 (a number, or an array of them)."""
    return weight / (RRF_K + places)


class Candidates:
    """The lists fused so far, by fact number: each fact's summed reciprocal ranks, and
    which source's list holds it. A re-ranking source reads the candidates in the order
    fused so far (`ordered`)."""

    def __init__(self, corpus: Corpus, names: Sequence[str]):
        self.corpus = corpus
        self.tables = corpus.tables
        self.rows = {name: row for row, name in enumerate(names)}
        self.outside: dict[str, int] = {}  # fact id -> number, of facts outside the snapshot
        self._outside_ids: dict[int, str] = {}
        self.scores = np.zeros(len(self.tables.ids), dtype=np.float64)
        self.found = np.zeros((len(names), len(self.tables.ids)), dtype=np.bool_)
        self._held = np.zeros(len(self.tables.ids), dtype=np.bool_)  # by some list
        self._candidates: np.ndarray | None = None

    def numbered(self, fact_ids: Iterable[str]) -> np.ndarray:
        """The fact number of each id, a slot after the snapshot's for a fact outside it."""
        numbers = []
        for fact_id in fact_ids:
            number = self.tables.position.get(fact_id)
            if number is None:
                number = self.outside.get(fact_id)
                if number is None:
                    number = self.outside[fact_id] = len(self.tables.ids) + len(self.outside)
                    self._outside_ids[number] = fact_id
            numbers.append(number)
        grown = len(self.tables.ids) + len(self.outside) - len(self.scores)
        if grown:
            self.scores = np.concatenate([self.scores, np.zeros(grown)])
            self.found = np.concatenate(
                [self.found, np.zeros((len(self.rows), grown), dtype=np.bool_)], axis=1
            )
            self._held = np.concatenate([self._held, np.zeros(grown, dtype=np.bool_)])
        return np.array(numbers, dtype=np.intp)

    def fact_id(self, number: int) -> str:
        if number < len(self.tables.ids):
            return self.tables.ids[number]
        return self._outside_ids[number]

    def fact(self, number: int) -> Fact | None:
        """The current record of a fact, None for one no longer active."""
        return self.corpus.view.records.get(self.fact_id(number))

    def add(self, name: str, weight: float, numbers: np.ndarray) -> None:
        """Fuse one list, best first."""
        self.scores[numbers] += reciprocal(weight, np.arange(1, len(numbers) + 1))
        self.found[self.rows[name], numbers] = True
        if not self._held[numbers].all():  # else it re-ranks the candidates held
            self._held[numbers] = True
            self._candidates = None

    def found_by(self, name: str) -> np.ndarray:
        """Whether each fact (by number) is in the list of the source `name`."""
        return self.found[self.rows[name]]

    @property
    def candidates(self) -> np.ndarray:
        """The numbers of the facts some list holds."""
        if self._candidates is None:
            self._candidates = np.flatnonzero(self._held)
        return self._candidates

    def ordered(self) -> np.ndarray:
        """The candidates in the order of what is fused so far."""
        candidates = self.candidates
        return candidates[np.argsort(-self.scores[candidates], kind="stable")]

    def best(self, count: int) -> np.ndarray:
        """The first `count` of ordered(), without sorting the others: those scoring at
        least the count-th best score are sorted, and every one before it is among them."""
        candidates = self.candidates
        if not 0 < count < len(candidates):
            return self.ordered()[: max(0, count)]
        lowered = -self.scores[candidates]
        head = np.flatnonzero(lowered <= np.partition(lowered, count - 1)[count - 1])
        return candidates[head[np.argsort(lowered[head], kind="stable")[:count]]]
