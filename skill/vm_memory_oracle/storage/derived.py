"""State derived from the memory's files, kept while what it was made from is unchanged.

Derived is the one way a state made from the memory's files is kept (the lexical snapshot
recall reads, the activation columns, the map of the vector index brought in step, the
full-text index opened, the merge step's memo, the Facts made of facts.jsonl and what each
wants of the vector index): its key is what it was made from (its
sources' keys, and what else it was made with) and its layout, a digest of the shape of
the record kept and of the code that makes it, so that no change of either is read as the
old state and no version number is bumped by hand. brought_in_step uses a state held for
the sources as they are, else extends an earlier one to them (facts appended since), else
makes it again, and keeps it when the sources did not change while it was made.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, TypeVar

from . import snapshot

T = TypeVar("T")


def layout_of(record: type | None, makers: Sequence[ModuleType]) -> int:
    """A digest of a derived state's shape (the fields of `record`, a dataclass, with their
    types) and of the source code of the modules that make it (`makers`)."""
    digest = hashlib.blake2b(digest_size=8)
    if record is not None:
        shape = [(field.name, str(field.type)) for field in dataclasses.fields(record)]
        digest.update(repr(shape).encode("utf-8"))
    for module in makers:
        digest.update(_code_digest(module.__name__, module.__file__ or ""))
    return int.from_bytes(digest.digest(), "big") >> 1


@cache
def _code_digest(name: str, path: str) -> bytes:
    try:
        return hashlib.blake2b(Path(path).read_bytes(), digest_size=16).digest()
    except OSError:  # no source to read: the module's name alone
        return name.encode("utf-8")


@dataclasses.dataclass
class Derived(Generic[T]):
    """One derived state: kept at `cache` (memory only where `disk` is False), made with
    `layout` (layout_of) from `sources` and from `made_with` (settings, a model's name).
    The first `required` sources must exist (the file it is made of: without it there is
    nothing to keep). On disk it is `encode(value)`, plain data, read back by `decode`."""

    cache: Path
    _: dataclasses.KW_ONLY
    layout: int
    sources: Sequence[Path]
    made_with: tuple = ()
    required: int = 1
    disk: bool = True
    streamed: bool = False  # a packed payload, read and written as it goes (snapshot)
    encode: Callable[[T], Any] = lambda value: value
    decode: Callable[[Any], T] = lambda plain: plain

    def key(self) -> tuple | None:
        """What the state would be made from now; None when a required source is missing."""
        keys = [snapshot.file_key(path) for path in self.sources]
        if None in keys[: self.required]:
            return None
        return (self.layout, *self.made_with, *keys)

    def held(self, key: tuple | None) -> T | None:
        """The state kept for `key`, or None."""
        if key is None:
            return None
        mine = snapshot.decoded(self.cache)
        if mine is not None and mine[0] == key:
            return mine[1]  # type: ignore[return-value]
        plain = snapshot.load(self.cache, key, disk=self.disk, streamed=self.streamed)
        return None if plain is None else self._decoded(key, plain)

    def saved(self, key: tuple | None) -> bool:
        """Whether the state kept is the one for `key`, told without reading it where its
        key can be read alone (snapshot.key_of)."""
        if key is None:
            return False
        mine = snapshot.decoded(self.cache)
        if mine is not None:
            return mine[0] == key
        kept = snapshot.key_of(self.cache, disk=self.disk, streamed=self.streamed)
        if kept is not None:
            return kept == key
        return self.held(key) is not None

    def earlier(self, worth: Callable[[tuple], bool] | None = None) -> tuple[tuple, T] | None:
        """(key, state) of the state kept whatever its sources were, if made with this
        layout: one that may be brought up to date instead of made again. `worth(its key)`:
        whether it may be, asked before it is read where its key can be read alone."""
        mine = snapshot.decoded(self.cache)
        if mine is not None and mine[0][0] == self.layout:
            return mine  # type: ignore[return-value]
        if worth is not None:
            kept = snapshot.key_of(self.cache, disk=self.disk, streamed=self.streamed)
            if kept is not None and (not kept or kept[0] != self.layout or not worth(kept)):
                return None
        held = snapshot.load_any(self.cache, disk=self.disk, streamed=self.streamed)
        if held is None or not held[0] or held[0][0] != self.layout:
            return None
        return held[0], self._decoded(held[0], held[1])

    def written(self) -> tuple[tuple, T] | None:
        """(key, state) as the file holds it now, if made with this layout, whatever this
        process holds: read under the lock, it is what another process may have written
        since this one read it."""
        if not self.disk:  # kept in this process alone
            return self.earlier()
        held = snapshot.stored(self.cache, streamed=self.streamed)
        if held is None or not held[0] or held[0][0] != self.layout:
            return None
        return held[0], self._decoded(held[0], held[1])

    def other_layout(self) -> bool:
        """Whether a state is kept that was made with another layout (other code, or
        another shape of record): made again, which mends nothing."""
        held = snapshot.load_any(self.cache, disk=self.disk, streamed=self.streamed)
        return held is not None and bool(held[0]) and held[0][0] != self.layout

    def keep(self, key: tuple | None, value: T) -> None:
        """Keep `value`, made for `key`, if the sources are still as they were then."""
        if key is None or self.key() != key:
            return  # the sources changed meanwhile: it is made again next time
        snapshot.hold_decoded(self.cache, key, value)
        snapshot.save(self.cache, key, self.encode(value), disk=self.disk, streamed=self.streamed)

    def _decoded(self, key: tuple, plain: object) -> T:
        value = self.decode(plain)
        snapshot.hold_decoded(self.cache, key, value)
        return value


def brought_in_step(
    derived: Derived[T],
    make: Callable[[tuple | None], T],
    extend: Callable[[tuple, T, tuple | None], T | None] | None = None,
    extendable: Callable[[tuple, tuple | None], bool] | None = None,
) -> T:
    """The state for the sources as they are: held, else `extend(earlier key, earlier
    state, key)` of an earlier one (None: it cannot be), else `make(key)`; kept if the
    sources did not change meanwhile. `extendable(earlier key, key)`: whether an earlier
    state may be extended, told before it is read (Derived.earlier)."""
    key = derived.key()
    value = derived.held(key)
    if value is not None:
        return value
    worth = None if extendable is None else (lambda kept: extendable(kept, key))
    earlier = derived.earlier(worth) if extend is not None else None
    if earlier is not None and extend is not None:
        value = extend(earlier[0], earlier[1], key)
    if value is None:
        # The state of other sources is not held while the new one is made (the lexical
        # snapshot of a million facts, 240 MB, was held beside the one made again).
        earlier = None
        snapshot.let_go(derived.cache)
        value = make(key)
    derived.keep(key, value)
    return value


K = TypeVar("K")


def changes(
    known: Mapping[K, Any], wanted: Mapping[K, Any], of: Callable[[Any], Any] = lambda want: want
) -> tuple[list[K], list[K]]:
    """What an index brings in step removes and adds: (gone, new), the entries of `known`
    that `wanted` lacks or holds otherwise, and those of `wanted` that `known` lacks or holds
    otherwise; `of(wanted value)` is what `known` holds of it."""
    gone = [key for key, held in known.items() if key not in wanted or of(wanted[key]) != held]
    new = [key for key, want in wanted.items() if known.get(key) != of(want)]
    return gone, new


def column_changes(known_ids, known_values, wanted_ids, wanted_values):
    """changes() of columns (numpy arrays of 64-bit numbers): `known_ids[n]` holds
    `known_values[n]`, and `wanted_ids[n]` should hold `wanted_values[n]`. Returns (the
    places in known of what is gone or held otherwise, the places in wanted of what known
    lacks or holds otherwise), each in its own order: no dictionary of a million entries."""
    import numpy as np

    held, want = _pairs(known_ids, known_values), _pairs(wanted_ids, wanted_values)
    return np.flatnonzero(~_among(held, want)), np.flatnonzero(~_among(want, held))


def _among(pairs, others):
    """Whether each of `pairs` is among `others` (as np.isin tells it), found in a sorted
    copy of them: np.isin of a million pairs in a million held 150 MB at once, this 85."""
    import numpy as np

    ordered = np.sort(others)
    places = np.searchsorted(ordered, pairs)
    found = places < len(ordered)
    found[found] = ordered[places[found]] == pairs[found]
    return found


def _pairs(ids, values):
    """(id, value) of each entry as one 16-byte value, which np.isin compares whole."""
    import numpy as np

    pairs = np.empty(len(ids), dtype=[("id", "<u8"), ("value", "<u8")])
    pairs["id"], pairs["value"] = ids, values
    return pairs.view("V16")


def last_of_each(ids):
    """The places of `ids` (a numpy array) that are the last of their value, in order: of
    entries of one key, a dictionary keeps the value set last."""
    import numpy as np

    if len(np.unique(ids)) == len(ids):
        return np.arange(len(ids))
    _, first = np.unique(ids[::-1], return_index=True)
    return np.sort(len(ids) - 1 - first)
