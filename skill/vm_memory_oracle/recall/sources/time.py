"""The candidates of the time a query names ("in May 2023", "last year", 去年), in the order
fused so far: a fact is of a period when it was stated (or became valid) a day in it, or
its sentence names a day, week, month or year that overlaps it (model/periods.py).

For the facts of a lexical snapshot the answer is kept as day numbers in arrays
(FactTimes), filled the first time a fact is a candidate, so a recall that names a time
tests its candidates at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from functools import lru_cache

import numpy as np

from ...clock import parse_iso
from ...lexical.tables import Tables
from ...model.fact import Fact
from ...model.periods import Period, named_periods
from ..candidates import Candidates
from ..query import Query
from .read_once import ReadOnce

NAME = "time"
WEIGHT = 2.0
LEAD = 0.0
RERANKS = True


def rank(query: Query, candidates: Candidates) -> np.ndarray | None:
    if not query.periods:
        return None
    ordered = candidates.ordered()
    tables = candidates.tables
    records = query.corpus.view.records
    indexed = ordered < len(tables.ids)
    timely = np.zeros(len(ordered), dtype=np.bool_)
    timely[indexed] = _times_of(tables).of_the_time(
        ordered[indexed], lambda number: records.get(tables.ids[number]), query.periods
    )
    for place in np.flatnonzero(~indexed).tolist():
        fact = candidates.fact(int(ordered[place]))
        timely[place] = fact is not None and of_the_time(fact, query.periods)
    return ordered[timely]


# What is known of the facts of each snapshot's tables this process has seen.
_times_of: ReadOnce[Tables, FactTimes] = ReadOnce(lambda tables: FactTimes(len(tables.ids)))


def of_the_time(fact: Fact, periods: Sequence[Period]) -> bool:
    """Whether `fact` is of one of `periods`."""
    stated, named = fact_times(fact)
    return any(
        period.first <= stated <= period.last or any(period.overlaps(span) for span in named)
        for period in periods
    )


def fact_times(fact: Fact) -> tuple[date, tuple[Period, ...]]:
    """The day `fact` was stated (its valid_from, else when it was recorded) and the
    periods its sentence names, relative ones read from that day."""
    stated = parse_iso(fact.valid_from or fact.created).date()
    return stated, _named_in(fact.sentence, stated)


@lru_cache(maxsize=4096)
def _named_in(sentence: str, stated: date) -> tuple[Period, ...]:
    return tuple(named_periods(sentence, stated))


class FactTimes:
    """fact_times of numbered facts as day ordinals: the day stated, and up to SLOTS named
    periods (first and last day; an empty slot is a period that overlaps nothing). A fact
    naming more is kept whole in `more`."""

    SLOTS = 3

    def __init__(self, size: int):
        self.known = np.zeros(size, dtype=np.bool_)
        self.stated = np.zeros(size, dtype=np.int64)
        self.first = np.ones((size, self.SLOTS), dtype=np.int64)
        self.last = np.zeros((size, self.SLOTS), dtype=np.int64)
        self.more: dict[int, tuple[Period, ...]] = {}
        self.has_more = np.zeros(size, dtype=np.bool_)

    def of_the_time(
        self, numbers: np.ndarray, fact_of: Callable[[int], Fact | None], periods: Sequence[Period]
    ) -> np.ndarray:
        """A mask over `numbers`: which of those facts are of one of `periods`. `fact_of`
        gives a number's fact, read only for facts not seen before (None: not of any)."""
        for number in numbers[~self.known[numbers]].tolist():
            self._learn(number, fact_of(number))
        stated = self.stated[numbers]
        first, last = self.first[numbers], self.last[numbers]
        mask = np.zeros(len(numbers), dtype=np.bool_)
        for period in periods:
            low, high = period.first.toordinal(), period.last.toordinal()
            mask |= (stated >= low) & (stated <= high)
            mask |= ((first <= high) & (last >= low)).any(axis=1)
        for place in np.flatnonzero(~mask & self.has_more[numbers]).tolist():
            named = self.more[int(numbers[place])]
            mask[place] = any(p.overlaps(span) for span in named for p in periods)
        return mask

    def _learn(self, number: int, fact: Fact | None) -> None:
        self.known[number] = True
        if fact is None:
            return  # stated on day 0, naming nothing: of no period
        stated, named = fact_times(fact)
        self.stated[number] = stated.toordinal()
        for slot, span in enumerate(named[: self.SLOTS]):
            self.first[number, slot] = span.first.toordinal()
            self.last[number, slot] = span.last.toordinal()
        if len(named) > self.SLOTS:
            self.more[number] = named
            self.has_more[number] = True
