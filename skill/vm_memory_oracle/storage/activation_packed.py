"""activation-metadata.json packed, as the processes that only read it hold it.

A recall reads the activation of every fact once (graph.columns: a0 and last access as
columns) and the records of the few it looks at or boosts. Held as the file's records, a
dictionary of dictionaries by fact id, that took about 350 bytes a fact; packed (a derived
state in state/cache/, made again from the file when it changes), each fact's id, vector
id, a0, last access (in microseconds, and the number of its text among the distinct ones),
access count and whether its a0 was written as an integer take about 80 bytes, the
restatements it has heard are kept for the facts that have any, and a record is made
again, equal to the file's, when it is looked up.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime, timedelta, timezone
from functools import cache, cached_property

import numpy as np

from ..clock import parse_iso
from ..model.activation import HeldRecords
from ..model.fact import number_key
from . import derived, files
from .packed import Numbers, Packing, Texts, id_hash, joined_texts, pack_texts, texts_width
from .writer import Writer

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)


@dataclass
class PackedActivation:
    """The file's records, in the order of their facts' vector ids: the ids (packed texts),
    vector ids (uint64), a0 (float64), last access (int64 microseconds since the epoch, and
    the number of its text in the stamps, uint32), access count (int64), whether a0 is an
    integer in the file (uint8), and the heard lists of the facts that have one."""

    id_text: bytes
    id_ends: bytes
    vids: bytes
    a0: bytes
    last: bytes
    stamp_text: bytes
    stamp_ends: bytes
    stamps: bytes
    counts: bytes
    whole: bytes
    heard: dict[str, list[str]]

    def plain(self) -> list:
        return [getattr(self, field.name) for field in fields(self)]

    @classmethod
    def from_plain(cls, values: list) -> PackedActivation:
        return cls(*values)

    @cached_property
    def records(self) -> ActivationRecords:
        return ActivationRecords(self)


def pack(records: Mapping[str, dict]) -> PackedActivation:
    """The records of activation-metadata.json (by fact id) packed."""
    rows = Rows()
    for fact_id in sorted(records, key=id_hash):  # ties (none among fact ids) in file order
        record = records[fact_id]
        rows.add(
            fact_id,
            record["activation"],
            record["access_count"],
            record["last_accessed"],
            record.get("heard"),
        )
    return rows.packed()


class Rows:
    """A PackedActivation made a record at a time, in the order of its rows: what pack
    makes of parsed records and activation_file of the file's text alike. The times of
    last access are counted once for each distinct text (a batch of facts shares one)."""

    def __init__(self) -> None:
        self.ids, self.vids = Packing(), array("Q")
        self.a0, self.counts, self.whole = array("d"), array("q"), bytearray()
        self.last, self.stamps = array("q"), array("I")
        self.heard: dict[str, list[str]] = {}
        self._stamp_number: dict[str, int] = {}
        self._times: list[int] = []

    def add(
        self,
        fact_id: str,
        activation: float,
        access_count: int,
        last_accessed: str,
        heard: Sequence[str] | None = None,
    ) -> None:
        """The record of `fact_id` as the next row; ValueError, with nothing added, for a
        time of last access that is no date."""
        number = self._stamp_number.get(last_accessed)
        if number is None:
            self._times.append(microseconds(last_accessed))
            number = self._stamp_number[last_accessed] = len(self._stamp_number)
        self.ids.add(fact_id)
        self.vids.append(id_hash(fact_id))
        self.a0.append(activation)
        self.whole.append(isinstance(activation, int))
        self.counts.append(access_count)
        self.stamps.append(number)
        self.last.append(self._times[number])
        if heard is not None:
            self.heard[fact_id] = list(heard)

    def packed(self) -> PackedActivation:
        stamp_text, stamp_ends = pack_texts(self._stamp_number)
        id_text, id_ends = self.ids.packed()
        return PackedActivation(
            id_text=id_text,
            id_ends=id_ends,
            vids=self.vids.tobytes(),
            a0=self.a0.tobytes(),
            last=self.last.tobytes(),
            stamp_text=stamp_text,
            stamp_ends=stamp_ends,
            stamps=self.stamps.tobytes(),
            counts=self.counts.tobytes(),
            whole=bytes(self.whole),
            heard=self.heard,
        )


def microseconds(stamp: str) -> int:
    """Whole microseconds since the epoch, as graph.columns.microseconds counts them."""
    return (parse_iso(stamp) - _EPOCH) // _MICROSECOND


class ActivationRecords(Mapping[str, dict]):
    """The file's records by fact id, each made again when looked up (the caller's to
    change); the ids, vector ids, a0 and last access as arrays for activation columns."""

    def __init__(self, held: PackedActivation):
        self.held = held
        self.ids = Texts(held.id_text, held.id_ends)
        self.vids = np.frombuffer(held.vids, dtype=np.uint64)
        self.a0 = np.frombuffer(held.a0, dtype=np.float64)
        self.last = np.frombuffer(held.last, dtype=np.int64)
        self._stamp_texts = Texts(held.stamp_text, held.stamp_ends)
        self._stamps = memoryview(held.stamps).cast("B").cast("I")
        self._counts = memoryview(held.counts).cast("B").cast("q")
        self._whole = held.whole
        self._heard = held.heard
        self._numbers = Numbers(self.ids, self.vids, None, id_hash)

    def __getitem__(self, fact_id: str) -> dict:
        number = self._numbers.get(fact_id)
        if number is None:
            raise KeyError(fact_id)
        return self.record_at(number, fact_id)

    def number(self, fact_id: object) -> int | None:
        """The row of `fact_id`'s record, None when it has none."""
        return self._numbers.get(fact_id)

    def numbers(self, fact_ids: Sequence[str]) -> np.ndarray:
        """The row of each of `fact_ids` (-1 for one without a record), found together."""
        if not fact_ids:
            return np.zeros(0, dtype=np.int64)
        hashes = np.fromiter(map(id_hash, fact_ids), dtype=np.int64, count=len(fact_ids))
        if np.any(hashes < 0):  # not a fact id: none is held
            return self._numbers.many(fact_ids)
        return self._numbers.many_packed(Texts(*pack_texts(fact_ids)), hashes.astype(np.uint64))

    def record_at(self, number: int, fact_id: str) -> dict:
        """The record of row `number`, whose fact id is `fact_id`."""
        a0 = float(self.a0[number])
        record: dict = {
            "activation": int(a0) if self._whole[number] else a0,
            "last_accessed": self._stamp_texts[self._stamps[number]],
            "access_count": self._counts[number],
        }
        if fact_id in self._heard:
            record["heard"] = list(self._heard[fact_id])
        return record

    def __contains__(self, fact_id: object) -> bool:
        return self._numbers.get(fact_id) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)


class PackedState(HeldRecords):
    """The records of a packed state with the changes made to them held apart: what a
    command that changes the activation state holds of it (a dictionary of every record
    took about 350 bytes a fact, 500 MB at a million).

    The state is the rows of `records` chosen (all, or those `only` kept, in their order),
    less the rows deleted, with the records set over a row or for a fact of none; the
    changes are a few (a remember's new facts, a recall's boosts), held as records."""

    def __init__(self, records: ActivationRecords, rows: np.ndarray | None = None):
        """`rows`: the rows of `records` in the state, in its order, each once (None: all
        of them, in theirs)."""
        self.records = records
        self._rows = rows
        self._chosen: np.ndarray | None = None
        if rows is not None:
            self._chosen = np.zeros(len(records), dtype=np.bool_)
            self._chosen[rows] = True
        # The records set, each as _held keeps it (a remember of a million new facts sets a
        # million of them, most of them equal: one object for each value).
        self._over: dict[str, Held] = {}  # set over a row of the state
        self._added: dict[str, Held] = {}  # set for a fact of no row of the state
        self._deleted: set[str] = set()  # the facts of rows deleted
        self._same: dict[tuple, Held] = {}

    def _row(self, fact_id: object) -> int | None:
        number = self.records.number(fact_id)
        if number is None or (self._chosen is not None and not self._chosen[number]):
            return None
        return number

    def __getitem__(self, fact_id: str) -> dict:
        if fact_id in self._added:
            return _record(self._added[fact_id])
        if fact_id in self._over:
            return _record(self._over[fact_id])
        number = None if fact_id in self._deleted else self._row(fact_id)
        if number is None:
            raise KeyError(fact_id)
        return self.records.record_at(number, fact_id)

    def __contains__(self, fact_id: object) -> bool:
        if fact_id in self._added or fact_id in self._over:
            return True
        return fact_id not in self._deleted and self._row(fact_id) is not None

    def __setitem__(self, fact_id: str, record: dict) -> None:
        if fact_id not in self._added and self._row(fact_id) is not None:
            self._deleted.discard(fact_id)
            self._over[fact_id] = self._kept(record)
        else:
            self._added[fact_id] = self._kept(record)

    def _kept(self, record: dict) -> Held:
        """`record` as _held holds it, one object for all the records of equal values
        (all the new facts of a remember, at their creation and never accessed)."""
        held = _held(record)
        if type(held) is not tuple or held[3] is not None:
            return held  # a record kept as it is, or one with sources heard
        activation, last_accessed, access_count, _ = held
        try:
            key = (number_key(activation), last_accessed, number_key(access_count))
            return self._same.setdefault(key, held)
        except TypeError:  # a value no record holds (the schema refuses it at the write)
            return held

    def __delitem__(self, fact_id: str) -> None:
        if fact_id in self._added:
            del self._added[fact_id]
        elif fact_id not in self._deleted and self._row(fact_id) is not None:
            self._deleted.add(fact_id)
            self._over.pop(fact_id, None)
        else:
            raise KeyError(fact_id)

    def __len__(self) -> int:
        rows = len(self.records) if self._rows is None else len(self._rows)
        return rows - len(self._deleted) + len(self._added)

    def __iter__(self) -> Iterator[str]:
        ids, deleted = self.records.ids, self._deleted
        for number in self._row_numbers():
            fact_id = ids.text_at(number)
            if fact_id not in deleted:
                yield fact_id
        yield from list(self._added)

    def _row_numbers(self) -> Iterator[int]:
        if self._rows is None:
            yield from range(len(self.records))
            return
        for start in range(0, len(self._rows), GATHERED_AT_ONCE):  # not a million ints at once
            yield from self._rows[start : start + GATHERED_AT_ONCE].tolist()

    def changes(self) -> Mapping[str, dict]:
        """The records set in this state (over a row or not), by fact id: all that a write
        of it checks, the rest having come from a file that passed the schema. Each record
        is made when it is looked up."""
        return _Changes(self._over, self._added)

    def unchanged_from(self, records: ActivationRecords) -> bool:
        """Whether the state is exactly `records`: every row of them, none deleted, none
        added, and none set to other than its own."""
        if records is not self.records or self._added or self._deleted:
            return False
        if self._rows is not None and len(self._rows) != len(records):
            return False
        return all(records[fact_id] == _record(held) for fact_id, held in self._over.items())

    def rows(self, ids: Sequence[str]) -> np.ndarray:
        """The row of the state of each of `ids`, found together: -1 for one of none (a
        record set over a row is the row's, and not that row's record)."""
        numbers = self.records.numbers(ids)
        if self._chosen is not None and len(self._chosen):
            numbers[(numbers >= 0) & ~self._chosen[np.maximum(numbers, 0)]] = -1
        gone = [self.records.number(fact_id) for fact_id in self._deleted]
        if gone:
            numbers[np.isin(numbers, np.array(gone, dtype=np.int64))] = -1
        return numbers

    def select(self, ids: Sequence[str], made: Callable[[int], dict] | None = None) -> PackedState:
        """The state of `ids` alone: the rows of those that have one (found together), in
        the order of `ids`, and the records set of those set; with `made`, those without
        one at made(n) for the n-th id."""
        numbers = self.rows(ids)
        found = numbers[numbers >= 0]
        _, first = np.unique(found, return_index=True)  # a fact asked for twice is held once
        chosen = PackedState(self.records, found[np.sort(first)])
        for fact_id, record in self._over.items():
            if chosen._row(fact_id) is not None:
                chosen._over[fact_id] = record
        for place in np.flatnonzero(numbers < 0).tolist():
            fact_id = ids[place]
            if fact_id in chosen._added:
                continue
            if fact_id in self._added:
                chosen._added[fact_id] = self._added[fact_id]
            elif made is not None:
                chosen._added[fact_id] = chosen._kept(made(place))
        return chosen

    def decay_starts(self) -> Iterator[tuple[str, float, str]]:
        records = self.records
        ids, a0, stamps = records.ids, records.a0, records._stamps
        texts, skipped = records._stamp_texts, self._deleted.union(self._over)
        for number in self._row_numbers():
            fact_id = ids.text_at(number)
            if fact_id not in skipped:
                yield fact_id, float(a0[number]), texts[stamps[number]]
        for fact_id, record in self.changes().items():
            yield fact_id, record["activation"], record["last_accessed"]

    def repacked(self) -> PackedActivation:
        """The state packed: the rows kept, with the records set packed among them, as pack
        gives the state's records (no record made of a row)."""
        records = self.records
        kept = np.ones(len(records), dtype=np.bool_)
        if self._chosen is not None:
            kept &= self._chosen
        for fact_id in self._deleted.union(self._over):
            number = records.number(fact_id)
            if number is not None:
                kept[number] = False
        rows = np.flatnonzero(kept)
        changes = pack(self.changes())
        stamps = np.concatenate(
            [
                np.frombuffer(records.held.stamps, dtype=np.uint32)[rows],
                np.frombuffer(changes.stamps, dtype=np.uint32)
                + np.uint32(len(records._stamp_texts)),
            ]
        )
        stamp_table = joined_texts(
            (records.held.stamp_text, records.held.stamp_ends),
            (changes.stamp_text, changes.stamp_ends),
        )
        ids = joined_texts(
            _gathered(records.held.id_text, records.held.id_ends, rows),
            (changes.id_text, changes.id_ends),
        )
        vids = np.concatenate([records.vids[rows], np.frombuffer(changes.vids, np.uint64)])
        order = np.argsort(vids, kind="stable")
        used, stamps = np.unique(stamps[order], return_inverse=True)  # stamps no row has go

        def column(name: str, dtype: type) -> bytes:
            held: np.ndarray = np.frombuffer(getattr(records.held, name), dtype=dtype)[rows]
            new: np.ndarray = np.frombuffer(getattr(changes, name), dtype=dtype)
            return np.concatenate([held, new])[order].tobytes()

        heard = {
            fact_id: sources
            for fact_id, sources in records._heard.items()
            if kept[records.number(fact_id)]
        }
        heard.update(changes.heard)
        id_text, id_ends = _gathered(*ids, order)
        stamp_text, stamp_ends = _gathered(*stamp_table, used)
        return PackedActivation(
            id_text=id_text,
            id_ends=id_ends,
            vids=vids[order].tobytes(),
            a0=column("a0", np.float64),
            last=column("last", np.int64),
            stamp_text=stamp_text,
            stamp_ends=stamp_ends,
            stamps=stamps.astype(np.uint32).tobytes(),
            counts=column("counts", np.int64),
            whole=column("whole", np.uint8),
            heard=heard,
        )


# A record set in a PackedState as it is held: a tuple of its values (activation, last
# access, access count, and the sources heard or None) when its keys are a record's (72
# bytes; a dictionary of its three keys is 184), else the record itself.
Held = tuple | dict
_VALUES = ("activation", "last_accessed", "access_count")


def _held(record: dict) -> Held:
    if len(record) == 3 or (len(record) == 4 and record.get("heard") is not None):
        try:
            return (*(record[key] for key in _VALUES), record.get("heard"))
        except KeyError:  # other keys: kept as they are (the schema refuses them)
            return record
    return record


def _record(held: Held) -> dict:
    """The record `held` holds, made again."""
    if type(held) is dict:
        return held
    activation, last_accessed, access_count, heard = held
    record = {
        "activation": activation,
        "last_accessed": last_accessed,
        "access_count": access_count,
    }
    if heard is not None:
        record["heard"] = heard
    return record


class _Changes(Mapping[str, dict]):
    """The records set over the rows and for facts of none (no fact is in both), by fact
    id, each made when it is looked up."""

    def __init__(self, over: dict[str, Held], added: dict[str, Held]):
        self._over, self._added = over, added

    def __getitem__(self, fact_id: str) -> dict:
        held = self._over.get(fact_id)
        if held is None:
            held = self._added[fact_id]
        return _record(held)

    def __contains__(self, fact_id: object) -> bool:
        return fact_id in self._over or fact_id in self._added

    def __iter__(self) -> Iterator[str]:
        yield from self._over
        yield from self._added

    def __len__(self) -> int:
        return len(self._over) + len(self._added)


# How many texts _gathered copies in one step: each step indexes every byte of them, with
# three arrays of 8 bytes a byte (65,536 fact ids at a time took 64 MB).
GATHERED_AT_ONCE = 8192


def _gathered(text: bytes, ends: bytes, numbers: np.ndarray) -> tuple[bytes, bytes]:
    """The packed texts (pack_texts) numbered `numbers`, in that order."""
    stops = np.frombuffer(ends, dtype=np.uint32).astype(np.int64)
    starts = np.concatenate([np.zeros(1, dtype=np.int64), stops[:-1]])
    lengths = (stops - starts)[numbers]
    source = np.frombuffer(text, dtype=np.uint8)
    pieces = []
    for start in range(0, len(numbers), GATHERED_AT_ONCE):
        part = slice(start, start + GATHERED_AT_ONCE)
        sizes = lengths[part]
        offsets = np.cumsum(sizes) - sizes
        places = np.repeat(starts[numbers[part]] - offsets, sizes) + np.arange(sizes.sum())
        pieces.append(source[places].tobytes())
    return b"".join(pieces), np.cumsum(lengths, dtype=np.int64).astype(np.uint32).tobytes()


class FileRecords(files.ObjectInBlocks):
    """The "facts" of activation-metadata.json as a whole write of a state makes them: the
    state packed (`make`) once its changes passed the schema, its records made a block at
    a time in the order of their ids."""

    def __init__(self, make: Callable[[], PackedActivation]):
        self._make = make

    @cached_property
    def packed(self) -> PackedActivation:
        return self._make()

    def blocks(self, size: int) -> Iterator[dict]:
        records = self.packed.records
        order = _in_order(records.ids)
        ids = records.ids
        for start in range(0, len(order), size):
            block = {}
            for number in order[start : start + size].tolist():
                fact_id = ids.text_at(number)
                block[fact_id] = records.record_at(number, fact_id)
            yield block


def _in_order(ids: Texts) -> np.ndarray:
    """The numbers of `ids` in the order of the ids (fact ids, all of one length and in
    the order of their vector ids, are already: checked, not assumed)."""
    width = texts_width(ids)
    if width is None:
        return np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)
    if not width:
        return np.arange(len(ids), dtype=np.int64)
    # UTF-8 bytes sort as their text's code points do.
    texts = np.frombuffer(ids.blob, dtype=f"S{width}")
    if bool(np.all(texts[:-1] <= texts[1:])):
        return np.arange(len(ids), dtype=np.int64)
    return np.argsort(texts, kind="stable")


def packed_activation(store: Writer, make: Callable[[], PackedActivation]) -> PackedActivation:
    """The packed state of activation-metadata.json as it is now: kept (state/cache/)
    while the file is unchanged, else made of the file (`make`), and kept."""
    return derived.brought_in_step(_kept(store), lambda key: make())


def held_activation(store: Writer) -> PackedActivation | None:
    """The packed state kept for activation-metadata.json as it is now, or None (made of
    nothing: for a reader that writes nothing)."""
    kept = _kept(store)
    return kept.held(kept.key())


def keep_written(store: Writer, packed: PackedActivation) -> None:
    """Keep `packed` as the packed state of activation-metadata.json, just written of it:
    the next reader need not parse the file."""
    kept = _kept(store)
    kept.keep(kept.key(), packed)


def _kept(store: Writer) -> derived.Derived[PackedActivation]:
    layout = store.layout
    cache_path = layout.activation_packed_cache
    return derived.Derived(
        cache_path,
        layout=_layout(),
        sources=(layout.activation,),
        required=0,
        disk=store.cache_usable(cache_path),
        streamed=True,
        encode=PackedActivation.plain,
        decode=PackedActivation.from_plain,
    )


@cache
def _layout() -> int:
    return derived.layout_of(PackedActivation, (sys.modules[__name__],))
