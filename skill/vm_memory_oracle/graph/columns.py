"""Activation of many facts at once: the inputs of model/activation.py's formula as numpy
columns, so that recall filters 100,000 facts with array operations instead of a Python
call per fact.

The columns follow an ordering of facts given by the caller (recall's lexical index). The
fact's own inputs (importance, pinned, its creation activation and time) come with that
ordering; the activation state (a0 and last access, which every recall changes) is read
into columns once per version of activation-metadata.json, and the journal of recalls
since is applied over them. Times are whole microseconds since the epoch, so the elapsed
time is exact and the value equals the scalar formula's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import numpy as np

from ..clock import SECONDS_PER_DAY, parse_iso
from ..model.fact import Fact

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)


def microseconds(stamp: str | datetime) -> int:
    """Whole microseconds since the epoch of an ISO-8601 stamp (or a datetime)."""
    moment = parse_iso(stamp) if isinstance(stamp, str) else stamp
    return (moment - _EPOCH) // _MICROSECOND


@dataclass
class FactColumns:
    """What activation needs of each fact itself, in the caller's order."""

    importance: np.ndarray  # float64, clipped to [0, 1] by the formula
    pinned: np.ndarray  # bool
    created: np.ndarray  # int64 microseconds: last access of a fact never recalled
    initial: np.ndarray  # float64: activation when created


@dataclass
class ActivationColumns:
    """a0 and last access of each fact, at the number `position` gives its id."""

    position: Mapping[str, int]
    a0: np.ndarray  # float64
    last: np.ndarray  # int64 microseconds

    @classmethod
    def of(
        cls, position: Mapping[str, int], facts: FactColumns, state: Mapping[str, dict]
    ) -> ActivationColumns:
        columns = cls(position, facts.initial.copy(), facts.created.copy())
        columns.apply(state)
        return columns

    def apply(self, entries: Mapping[str, dict]) -> None:
        """Set the state of the facts of `entries` (fact id -> activation state entry);
        entries of facts without a number are passed over."""
        parsed: dict[str, int] = {}  # many facts share a stamp (one batch, one recall)
        for fact_id, entry in entries.items():
            number = self.position.get(fact_id)
            if number is None:
                continue
            stamp = entry["last_accessed"]
            if stamp not in parsed:
                parsed[stamp] = microseconds(stamp)
            self.a0[number] = entry["activation"]
            self.last[number] = parsed[stamp]

    def activation(self, facts: FactColumns, now: datetime, half_life_days: float) -> np.ndarray:
        """Every fact's activation at `now`: a0 * 0.5 ** (days since last access /
        effective half-life), a pinned fact's a0 as it stands (model/activation.py)."""
        elapsed = np.maximum(0.0, (microseconds(now) - self.last) / 1e6 / SECONDS_PER_DAY)
        half_life = half_life_days / (1.0 - 0.5 * np.clip(facts.importance, 0.0, 1.0))
        decayed = self.a0 * 0.5 ** (elapsed / half_life)
        return np.where(facts.pinned, self.a0, decayed)


def fact_columns(facts: Sequence[Fact]) -> FactColumns:
    """The activation inputs of `facts` themselves, in their order."""
    stamps: dict[str, int] = {}  # a batch of facts shares its creation time
    for fact in facts:
        if fact.created not in stamps:
            stamps[fact.created] = microseconds(fact.created)
    return FactColumns(
        np.array([fact.importance or 0.0 for fact in facts], dtype=np.float64),
        np.array([fact.pinned for fact in facts], dtype=np.bool_),
        np.array([stamps[fact.created] for fact in facts], dtype=np.int64),
        np.array([fact.activation for fact in facts], dtype=np.float64),
    )


def activation_values(
    facts: Sequence[Fact], state: Mapping[str, dict], now: datetime, half_life_days: float
) -> list[float]:
    """Each fact's activation at `now` given the activation state, as fact_activation gives
    it one by one (float for float), over arrays."""
    position = {fact.id: number for number, fact in enumerate(facts)}
    columns = fact_columns(facts)
    wanted = {fact_id: entry for fact_id, entry in state.items() if fact_id in position}
    values = ActivationColumns.of(position, columns, wanted).activation(
        columns, now, half_life_days
    )
    return values.tolist()


# data directory -> (the numbering, the activation file's key, the journal's inode, journal
# entries applied, the columns): the file is read into columns once per version of it;
# recalls since only append to the journal, and what they appended is applied.
_held: dict[str, tuple[Mapping[str, int], tuple | None, int | None, int, ActivationColumns]] = {}


def state_columns(store, position: Mapping[str, int], facts: FactColumns) -> ActivationColumns:
    """The activation state of the facts `position` numbers, as columns, from `store`."""
    from ..storage import snapshot

    layout = store.layout
    journal = store.activation_journal()
    file_key = snapshot.file_key(layout.activation)
    journal_key = snapshot.file_key(layout.activation_journal)
    inode = journal_key[0] if journal_key else None
    held = _held.get(str(layout.root))
    if (
        held is None
        or held[0] is not position
        or held[1] != file_key
        or held[2] != inode
        or held[3] > len(journal)
    ):
        columns = ActivationColumns.of(position, facts, store.read_activation_file())
        applied = 0
    else:
        columns, applied = held[4], held[3]
    columns.apply({entry["id"]: entry for entry in journal[applied:]})
    _held[str(layout.root)] = (position, file_key, inode, len(journal), columns)
    return columns
