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
    fused so far (`ordered`).

    Only the facts some list holds take a place (a slot): a query's lists hold a few
    hundred facts, and arrays over every fact of the memory, made and scanned for each
    query, cost in proportion to the memory (a million facts: 16 MB a query)."""

    def __init__(self, corpus: Corpus, names: Sequence[str]):
        self.corpus = corpus
        self.tables = corpus.tables
        self.rows = {name: row for row, name in enumerate(names)}
        self.outside: dict[str, int] = {}  # fact id -> number, of facts outside the snapshot
        self._outside_ids: dict[int, str] = {}
        self._slot: dict[int, int] = {}  # fact number -> its slot, in the order first held
        self._numbers = np.zeros(0, dtype=np.intp)  # slot -> fact number
        self._scores = np.zeros(0, dtype=np.float64)  # by slot
        self._found = np.zeros((len(names), 0), dtype=np.bool_)  # by list and slot
        self._candidates: np.ndarray | None = None

    def numbered(self, fact_ids: Iterable[str]) -> np.ndarray:
        """The fact number of each id, a number after the snapshot's for a fact outside it."""
        numbers = []
        for fact_id in fact_ids:
            number = self.tables.position.get(fact_id)
            if number is None:
                number = self.outside.get(fact_id)
                if number is None:
                    number = self.outside[fact_id] = len(self.tables.ids) + len(self.outside)
                    self._outside_ids[number] = fact_id
            numbers.append(number)
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
        slots = self._slots(numbers)
        self._scores[slots] += reciprocal(weight, np.arange(1, len(numbers) + 1))
        self._found[self.rows[name], slots] = True

    def _slots(self, numbers: np.ndarray) -> np.ndarray:
        """The slot of each fact number, a new one for a fact not held before."""
        slot = self._slot
        fresh = [number for number in numbers.tolist() if number not in slot]
        if fresh:
            for number in fresh:
                slot.setdefault(number, len(slot))
            grown = len(slot) - len(self._numbers)
            self._numbers = np.concatenate(
                [self._numbers, np.fromiter(list(slot)[-grown:], dtype=np.intp, count=grown)]
            )
            self._scores = np.concatenate([self._scores, np.zeros(grown)])
            self._found = np.concatenate(
                [self._found, np.zeros((len(self.rows), grown), dtype=np.bool_)], axis=1
            )
            self._candidates = None
        return np.fromiter((slot[number] for number in numbers.tolist()), np.intp, len(numbers))

    def _held_slots(self, numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(which of `numbers` some list holds, their slots)."""
        slot = self._slot
        places = [slot.get(number, -1) for number in numbers.tolist()]
        slots = np.array(places, dtype=np.intp)
        return slots >= 0, slots

    def scores_of(self, numbers: np.ndarray) -> np.ndarray:
        """The score fused so far of each fact (by number); 0 for one no list holds."""
        held, slots = self._held_slots(numbers)
        return np.where(held, self._scores[np.maximum(slots, 0)], 0.0)

    def found_in(self, name: str, numbers: np.ndarray) -> np.ndarray:
        """Whether each fact (by number) is in the list of the source `name`."""
        held, slots = self._held_slots(numbers)
        return held & self._found[self.rows[name], np.maximum(slots, 0)]

    def lists_holding(self, number: int) -> tuple[str, ...]:
        """The names of the sources whose lists hold the fact of `number`."""
        place = self._slot.get(number)
        if place is None:
            return ()
        return tuple(name for name, row in self.rows.items() if self._found[row, place])

    @property
    def candidates(self) -> np.ndarray:
        """The numbers of the facts some list holds, in ascending order."""
        if self._candidates is None:
            self._candidates = np.sort(self._numbers)
        return self._candidates

    def ordered(self) -> np.ndarray:
        """The candidates in the order of what is fused so far."""
        candidates = self.candidates
        return candidates[np.argsort(-self.scores_of(candidates), kind="stable")]
