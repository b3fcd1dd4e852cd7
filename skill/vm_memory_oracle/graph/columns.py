"""Activation of many facts at once: the inputs of model/activation.py's formula as numpy
columns, so that recall filters 100,000 facts with array operations instead of a Python
call per fact.

The columns follow an ordering of facts given by the caller (recall's lexical index). The
fact's own inputs (importance, pinned, its creation activation and time) come with that
ordering; the activation state (a0 and last access, which every recall changes) is read
into columns once per version of activation-metadata.json, from its packed copy
(storage/activation_packed.py) with every fact found by its vector id at once, and the
journal of recalls since is applied over them. Times are whole microseconds since the
epoch, so the elapsed time is exact and the value equals the scalar formula's.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import cache

import numpy as np

from ..clock import SECONDS_PER_DAY, parse_iso
from ..model.activation import ActivationEntries
from ..model.fact import Fact
from ..storage.activation_packed import ActivationRecords, PackedState
from ..storage.packed import Numbers

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
    # (facts, half-life, threshold) -> each fact's deadline (see searchable), kept up to
    # date as entries are applied
    _deadlines: dict = field(default_factory=dict, repr=False, compare=False)
    _facts: FactColumns | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(
        cls, position: Mapping[str, int], facts: FactColumns, state: ActivationEntries
    ) -> ActivationColumns:
        columns = cls(position, facts.initial.copy(), facts.created.copy())
        columns.apply(state)
        return columns

    @classmethod
    def of_records(
        cls, position: Numbers, facts: FactColumns, records: ActivationRecords
    ) -> ActivationColumns:
        """The columns of the activation file's packed records (storage/activation_packed),
        each fact found by its vector id together with the others: what `of` gives."""
        columns = cls(position, facts.initial.copy(), facts.created.copy())
        numbers = position.many_packed(records.ids, records.vids)
        found = numbers >= 0
        columns.a0[numbers[found]] = records.a0[found]
        columns.last[numbers[found]] = records.last[found]
        return columns

    def apply(self, entries: ActivationEntries) -> None:
        """Set the state of the facts of `entries`; entries of facts without a number are
        passed over."""
        parsed: dict[str, int] = {}  # many facts share a stamp (one batch, one recall)
        changed: list[int] = []
        starts = list(entries.decay_starts())
        for number, (_, a0, stamp) in zip(self._numbers([start[0] for start in starts]), starts):
            if number < 0:
                continue
            if stamp not in parsed:
                parsed[stamp] = microseconds(stamp)
            self.a0[number] = a0
            self.last[number] = parsed[stamp]
            changed.append(number)
        if changed:
            numbers = np.array(changed, dtype=np.intp)
            for (_, half_life_days, threshold), deadline in self._deadlines.items():
                assert self._facts is not None  # set with the deadlines
                deadline[numbers] = self._deadline(self._facts, half_life_days, threshold, numbers)

    def _numbers(self, fact_ids: list[str]) -> list[int]:
        """The number of each fact, -1 for one without: found together where the numbering
        is packed (the lexical snapshot's), one by one in a dictionary."""
        if isinstance(self.position, Numbers):
            return self.position.many(fact_ids).tolist()
        return [self.position.get(fact_id, -1) for fact_id in fact_ids]

    def activation(
        self,
        facts: FactColumns,
        now: datetime,
        half_life_days: float,
        numbers: np.ndarray | slice = slice(None),
    ) -> np.ndarray:
        """The activation at `now` of every fact (or of those `numbers` gives): a0 * 0.5 **
        (days since last access / effective half-life), a pinned fact's a0 as it stands
        (model/activation.py)."""
        a0 = self.a0[numbers]
        elapsed = np.maximum(0.0, (microseconds(now) - self.last[numbers]) / 1e6 / SECONDS_PER_DAY)
        decayed = a0 * 0.5 ** (elapsed / _half_life(facts, half_life_days, numbers))
        return np.where(facts.pinned[numbers], a0, decayed)

    def searchable(
        self, facts: FactColumns, now: datetime, half_life_days: float, threshold: float
    ) -> np.ndarray:
        """activation(...) >= threshold, for every fact, without computing every activation
        (a power per fact cost 2 ms a recall at 100,000 facts): each fact has a deadline, the
        microsecond its activation falls below the threshold (kept from call to call and
        moved when a recall boosts it), and only a fact within a millisecond of its deadline,
        where rounding could decide, is settled by its activation itself."""
        key = (id(facts), half_life_days, threshold)
        deadline = self._deadlines.get(key)
        if deadline is None:
            deadline = self._deadline(facts, half_life_days, threshold, slice(None))
            self._deadlines = {key: deadline}  # one caller's facts and settings at a time
            self._facts = facts  # held, so that id(facts) names them while the key is kept
        moment = microseconds(now)
        alive = moment <= deadline
        near = np.flatnonzero(np.abs(deadline - moment) <= NEAR_DEADLINE_US)
        if len(near):
            alive[near] = self.activation(facts, now, half_life_days, near) >= threshold
        return alive

    def _deadline(
        self,
        facts: FactColumns,
        half_life_days: float,
        threshold: float,
        numbers: np.ndarray | slice,
    ) -> np.ndarray:
        """The microsecond (as a float) at which each fact's activation falls below
        `threshold`: last access + half-life * log2(a0 / threshold) days; -inf when it is
        below already and +inf when it never falls there (a pinned fact keeps its a0)."""
        a0 = self.a0[numbers]
        if threshold <= 0:
            return np.full(len(a0), np.inf)
        half_life = _half_life(facts, half_life_days, numbers)
        with np.errstate(divide="ignore"):  # log2(0): -inf, a fact that never reaches it
            days = half_life * (np.log2(a0) - np.log2(threshold))  # a0 / threshold overflows
        deadline = self.last[numbers] + days * (SECONDS_PER_DAY * 1e6)
        pinned = facts.pinned[numbers]
        deadline[pinned] = np.inf
        deadline[a0 < threshold] = -np.inf
        return deadline


def _half_life(
    facts: FactColumns, half_life_days: float, numbers: np.ndarray | slice
) -> np.ndarray:
    """Each fact's effective half-life in days: longer the more important it is."""
    return half_life_days / (1.0 - 0.5 * np.clip(facts.importance[numbers], 0.0, 1.0))


@dataclass
class ActivationsAt:
    """The facts' activation at one moment, as recall uses it: which facts reach a
    threshold (all of them), and the values of the few it ranks."""

    columns: ActivationColumns
    facts: FactColumns
    now: datetime
    half_life_days: float

    def searchable(self, threshold: float) -> np.ndarray:
        return self.columns.searchable(self.facts, self.now, self.half_life_days, threshold)

    def __getitem__(self, numbers: np.ndarray) -> np.ndarray:
        return self.columns.activation(self.facts, self.now, self.half_life_days, numbers)


# How near its deadline a fact's activation is computed to say whether it is searchable: far
# more than the rounding of a deadline (under a microsecond at today's dates).
NEAR_DEADLINE_US = 1000.0


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
    facts: Sequence[Fact], state: ActivationEntries, now: datetime, half_life_days: float
) -> list[float]:
    """Each fact's activation at `now` given the activation state, as fact_activation gives
    it one by one (float for float), over arrays."""
    columns = fact_columns(facts)
    held = state.to_json()
    if isinstance(held, PackedState):
        # The rows found together, and only the facts of the few records set over them
        # numbered: no (id, a0, time) of each fact, nor a dictionary of every id.
        ids = [fact.id for fact in facts]
        changes = held.changes()
        position = {fact_id: number for number, fact_id in enumerate(ids) if fact_id in changes}
        activation = ActivationColumns(position, columns.initial.copy(), columns.created.copy())
        rows = held.rows(ids)
        found = rows >= 0
        activation.a0[found] = held.records.a0[rows[found]]
        activation.last[found] = held.records.last[rows[found]]
        activation.apply(ActivationEntries(dict(changes)))
    else:
        position = {fact.id: number for number, fact in enumerate(facts)}
        activation = ActivationColumns.of(position, columns, state)
    return activation.activation(columns, now, half_life_days).tolist()


@dataclass
class _Applied:
    """Activation columns and how many journal entries they hold."""

    columns: ActivationColumns
    applied: int


def state_columns(store, position: Mapping[str, int], facts: FactColumns) -> ActivationColumns:
    """The activation state of the facts `position` numbers, as columns, from `store`.

    Kept in memory (storage/derived.Derived) for this numbering, the activation file as it
    is and the journal: the file is read into columns once per version of it; recalls since
    only append to the journal, and what they appended is applied."""
    from ..storage import derived

    layout = store.layout
    memo: derived.Derived[_Applied] = derived.Derived(
        layout.root / "activation columns",  # a name only: kept in memory, never written
        layout=_layout(),
        sources=(layout.activation, layout.activation_journal),
        made_with=(id(position),),  # the numbering is held by the columns: its id is its own
        required=0,
        disk=False,
    )

    def make(key: tuple | None) -> _Applied:
        journal, length = store.activation_journal_since()
        if isinstance(position, Numbers):  # the lexical snapshot's numbering, packed
            columns = ActivationColumns.of_records(position, facts, store.activation_records())
        else:
            columns = ActivationColumns.of(position, facts, store.read_activation_file())
        columns.apply(journal)
        return _Applied(columns, length)

    def extend(old_key: tuple, earlier: _Applied, key: tuple | None) -> _Applied | None:
        """The columns with the journal's new entries, while the activation file and the
        journal's inode are those they were made of and the journal only grew."""
        journal, length = store.activation_journal_since(earlier.applied)
        if key is None or old_key[:3] != key[:3] or _inode(old_key[3]) != _inode(key[3]):
            return None
        if earlier.applied > length:
            return None
        earlier.columns.apply(journal)
        return _Applied(earlier.columns, length)

    return derived.brought_in_step(memo, make, extend).columns


def _inode(file_key: tuple | None) -> int | None:
    return None if file_key is None else file_key[0]


@cache
def _layout() -> int:
    from ..storage import derived

    return derived.layout_of(_Applied, (sys.modules[__name__],))
