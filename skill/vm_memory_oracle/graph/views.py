"""Live views: each fact as recall and query see it, with its activation at one moment."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from ..model.activation import ActivationEntry, fact_activation
from ..model.fact import Fact


@dataclass
class LiveFact:
    """A fact as recall and query see it: the fact plus its activation now."""

    record: Fact
    activation: float
    last_accessed: str
    access_count: int

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def current(self) -> bool:
        return self.record.current

    def as_dict(self) -> dict:
        return {
            **self.record.to_record(),
            "text": self.record.sentence,
            "activation": round(self.activation, 6),
            "last_accessed": self.last_accessed,
            "access_count": self.access_count,
        }


class LiveView:
    """The active facts at one moment, each fact's activation computed on first use."""

    def __init__(
        self,
        records: Mapping[str, Fact],
        state: Mapping[str, ActivationEntry],
        now: datetime,
        *,
        half_life_days: float,
    ):
        self.records = records
        self._half_life_days = half_life_days
        self._state = state
        self._now = now
        self._live: dict[str, LiveFact] = {}

    def __contains__(self, fact_id: str) -> bool:
        return fact_id in self.records

    def __getitem__(self, fact_id: str) -> LiveFact:
        live = self._live.get(fact_id)
        if live is None:
            live = live_fact(
                self.records[fact_id], self._state, self._now, half_life_days=self._half_life_days
            )
            self._live[fact_id] = live
        return live

    def searchable(self, fact_id: str, threshold: float) -> bool:
        record = self.records.get(fact_id)
        return record is not None and record.current and self[fact_id].activation >= threshold


def live_fact(
    fact: Fact, state: Mapping[str, ActivationEntry], now: datetime, *, half_life_days: float
) -> LiveFact:
    """The fact with its activation at `now`, from its entry in the activation state (or,
    without one, its creation values)."""
    entry = state.get(fact.id) or ActivationEntry.initial(fact)
    value = fact_activation(fact, entry, now, half_life_days=half_life_days)
    return LiveFact(fact, value, entry.last_accessed, entry.access_count)
