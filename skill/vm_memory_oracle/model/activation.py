"""Activation as a pure function of time.

activation(t) = a0 * 0.5 ** ((t - last_accessed) / half_life_eff), with
half_life_eff = half_life_days / (1 - 0.5 * importance). Nothing is multiplied in place,
so computing it twice, or after a retried consolidation, gives the same number.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..clock import days_between
from .fact import Fact


@dataclass(frozen=True, slots=True)
class ActivationEntry:
    """A fact's activation state: its a0 at its last access, the time of that access (its
    creation, a recall or a reassertion), how many accesses, and the line-precise sources of
    the restatements already counted in it (so that re-reading a line does not boost twice).
    """

    activation: float
    last_accessed: str
    access_count: int
    heard: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> ActivationEntry:
        """The entry an activation-metadata.json or journal record holds (a journal record's
        "id" is not part of it)."""
        heard = record.get("heard")
        return cls(
            record["activation"],
            record["last_accessed"],
            record["access_count"],
            tuple(heard) if heard else (),
        )

    @classmethod
    def initial(cls, fact: Fact, stamp: str | None = None) -> ActivationEntry:
        """The state of a fact that has none yet: its creation activation and time (or
        `stamp`), never accessed."""
        return cls(fact.activation, stamp or fact.created, 0)

    def to_json(self) -> dict[str, Any]:
        """The record as the files hold it: "heard" only when it names a source."""
        record: dict[str, Any] = {
            "activation": self.activation,
            "last_accessed": self.last_accessed,
            "access_count": self.access_count,
        }
        if self.heard:
            record["heard"] = list(self.heard)
        return record


class HeldRecords(MutableMapping[str, dict]):
    """The files' records by fact id held otherwise than as a dictionary of them (the
    packed state of storage/activation_packed.py, with the changes made to it held apart):
    what ActivationEntries asks of them besides a mapping's methods, each answered without
    a record made of every entry."""

    @abstractmethod
    def select(self, ids: Sequence[str], made: Callable[[int], dict] | None = None) -> HeldRecords:
        """The records of `ids` that are held; with `made`, those of the others too, the
        n-th id's made by made(n)."""

    @abstractmethod
    def decay_starts(self) -> Iterator[tuple[str, float, str]]:
        """(fact id, a0, last access) of each record."""


class ActivationEntries(MutableMapping[str, ActivationEntry]):
    """Fact id -> ActivationEntry: the activation state, as the store reads and writes it.

    The entries are held as the files' JSON records, a dictionary of them or HeldRecords
    (the file's records packed, as the store reads the whole state), and made records when
    one is looked up: the state has an entry per active fact, and making 100,000 records
    (100 ms) cost more than loading the file's snapshot (45 ms), at every recall process and
    consolidation, which look at a few entries or at two fields of each (decay_starts). A
    record set is held as its JSON record; entries passed on (only, for_facts) are shared,
    not copied (held packed, a selection of the rows), so the store writes them back as
    they were read and need not check them again.
    """

    __slots__ = ("_json",)

    def __init__(self, json: MutableMapping[str, dict] | None = None):
        """`json`: the files' records by fact id, held (not copied); a record is never
        changed in place, only replaced."""
        self._json: MutableMapping[str, dict] = {} if json is None else json

    @classmethod
    def of(cls, entries: Mapping[str, ActivationEntry]) -> ActivationEntries:
        """`entries` as ActivationEntries: itself when it is one, else their JSON records."""
        if isinstance(entries, ActivationEntries):
            return entries
        return cls({fact_id: entry.to_json() for fact_id, entry in entries.items()})

    def __getitem__(self, fact_id: str) -> ActivationEntry:
        return ActivationEntry.from_json(self._json[fact_id])

    def __setitem__(self, fact_id: str, entry: ActivationEntry) -> None:
        self._json[fact_id] = entry.to_json()

    def __delitem__(self, fact_id: str) -> None:
        del self._json[fact_id]

    def __contains__(self, fact_id: object) -> bool:
        return fact_id in self._json

    def __iter__(self) -> Iterator[str]:
        return iter(self._json)

    def __len__(self) -> int:
        return len(self._json)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ActivationEntries):
            return self.to_json() == other.to_json()
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"ActivationEntries({len(self)} entries)"

    def only(self, ids: Iterable[str]) -> ActivationEntries:
        """The entries of `ids` that are held, in the order of `ids` (held packed: those of
        the packed rows in that order, then the others)."""
        held = self._json
        if isinstance(held, HeldRecords):
            return ActivationEntries(held.select(list(ids)))
        return ActivationEntries({fact_id: held[fact_id] for fact_id in ids if fact_id in held})

    def for_facts(self, facts: Iterable[Fact]) -> ActivationEntries:
        """The entries of `facts` alone, in their order; a fact without one at its creation
        state (ActivationEntry.initial)."""
        held = self._json
        if isinstance(held, HeldRecords):
            listed = list(facts)
            return ActivationEntries(
                held.select(
                    [fact.id for fact in listed],
                    lambda number: ActivationEntry.initial(listed[number]).to_json(),
                )
            )
        return ActivationEntries(
            {
                fact.id: held[fact.id]
                if fact.id in held
                else ActivationEntry.initial(fact).to_json()
                for fact in facts
            }
        )

    def decay_starts(self) -> Iterator[tuple[str, float, str]]:
        """(fact id, a0, last access) of each entry, where its fact's decay starts from,
        without making a record of each (activation columns read all of them)."""
        held = self._json
        if isinstance(held, HeldRecords):
            yield from held.decay_starts()
            return
        for fact_id, record in self._json.items():
            yield fact_id, record["activation"], record["last_accessed"]

    def to_json(self) -> Mapping[str, dict]:
        """The entries as the files' records, by fact id (the held records themselves: the
        caller only reads them; held packed, each is made when it is looked up)."""
        return self._json


def effective_half_life(half_life_days: float, importance: float) -> float:
    """Important facts fade slower: importance 1 doubles the half-life."""
    return half_life_days / (1.0 - 0.5 * min(max(importance, 0.0), 1.0))


def activation_at(
    a0: float,
    last_accessed: datetime,
    now: datetime,
    *,
    half_life_days: float,
    importance: float = 0.0,
    pinned: bool = False,
) -> float:
    if pinned:
        return a0
    elapsed = max(0.0, days_between(last_accessed, now))
    return a0 * 0.5 ** (elapsed / effective_half_life(half_life_days, importance))


def boosted(current: float, recall_boost: float) -> float:
    """The new a0 after a recall or a reassertion: current activation plus the boost, capped."""
    return min(1.0, current + recall_boost)


def fact_activation(
    fact: Fact, entry: ActivationEntry | None, now: datetime, *, half_life_days: float
) -> float:
    """A fact's activation at `now` from its activation state `entry` (None: as created)."""
    from ..clock import parse_iso

    a0, last = (
        (entry.activation, entry.last_accessed)
        if entry is not None
        else (fact.activation, fact.created)
    )
    return activation_at(
        a0,
        parse_iso(last),
        now,
        half_life_days=half_life_days,
        importance=fact.importance or 0.0,
        pinned=fact.pinned,
    )
