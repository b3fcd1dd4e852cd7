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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields
from datetime import datetime, timedelta, timezone
from functools import cache, cached_property

import numpy as np

from ..clock import parse_iso
from . import derived
from .packed import Numbers, Texts, id_hash, pack_texts
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
    ids = sorted(records, key=id_hash)  # ties (none among fact ids) in the file's order
    stamp_number: dict[str, int] = {}
    a0, counts = array("d"), array("q")
    last, stamps, whole = array("q"), array("I"), bytearray()
    heard: dict[str, list[str]] = {}
    microseconds: list[int] = []
    for fact_id in ids:
        record = records[fact_id]
        stamp = record["last_accessed"]
        number = stamp_number.get(stamp)
        if number is None:
            number = stamp_number[stamp] = len(stamp_number)
            microseconds.append(_microseconds(stamp))
        value = record["activation"]
        a0.append(value)
        whole.append(isinstance(value, int))
        last.append(microseconds[number])
        stamps.append(number)
        counts.append(record["access_count"])
        if "heard" in record:
            heard[fact_id] = list(record["heard"])
    id_text, id_ends = pack_texts(ids)
    stamp_text, stamp_ends = pack_texts(stamp_number)
    return PackedActivation(
        id_text=id_text,
        id_ends=id_ends,
        vids=array("Q", [id_hash(fact_id) for fact_id in ids]).tobytes(),
        a0=a0.tobytes(),
        last=last.tobytes(),
        stamp_text=stamp_text,
        stamp_ends=stamp_ends,
        stamps=stamps.tobytes(),
        counts=counts.tobytes(),
        whole=bytes(whole),
        heard=heard,
    )


def _microseconds(stamp: str) -> int:
    """Whole microseconds since the epoch, as graph.columns.microseconds counts them."""
    return (parse_iso(stamp) - _EPOCH) // _MICROSECOND


class ActivationRecords(Mapping[str, dict]):
    """The file's records by fact id, each made again when looked up (the caller's to
    change); the ids, vector ids, a0 and last access as arrays for activation columns."""

    def __init__(self, held: PackedActivation):
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


def packed_activation(store: Writer, read: Callable[[], Mapping[str, dict]]) -> PackedActivation:
    """The packed state of activation-metadata.json as it is now: kept (state/cache/)
    while the file is unchanged, else made of the file's records (by fact id) that `read`
    gives, and kept."""
    layout = store.layout
    cache_path = layout.activation_packed_cache
    kept: derived.Derived[PackedActivation] = derived.Derived(
        cache_path,
        layout=_layout(),
        sources=(layout.activation,),
        required=0,
        disk=store.cache_usable(cache_path),
        streamed=True,
        encode=PackedActivation.plain,
        decode=PackedActivation.from_plain,
    )
    return derived.brought_in_step(kept, lambda key: pack(read()))


@cache
def _layout() -> int:
    return derived.layout_of(PackedActivation, (sys.modules[__name__],))
