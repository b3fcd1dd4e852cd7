"""Where each episode's line is, by its vector id: the episodes file and the byte offset,
packed as arrays (20 bytes an episode, where a dictionary of tuples took about 200), so
that the episode index's record of half a million turns is a few MB, held and kept."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


class Places:
    """vector id -> (episodes file name, byte offset), read only."""

    def __init__(self, names: list[str], ids: np.ndarray, files: np.ndarray, offsets: np.ndarray):
        self.names = names  # the episodes files, by number
        self.ids = ids  # int64, sorted
        self.files = files  # int32: the number of each id's file
        self.offsets = offsets  # int64

    @classmethod
    def empty(cls) -> Places:
        return cls([], np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int64))

    def __len__(self) -> int:
        return len(self.ids)

    def _at(self, vector_id: int) -> int | None:
        at = int(np.searchsorted(self.ids, vector_id))
        return at if at < len(self.ids) and self.ids[at] == vector_id else None

    def __contains__(self, vector_id: object) -> bool:
        return isinstance(vector_id, (int, np.integer)) and self._at(int(vector_id)) is not None

    def get(self, vector_id: int) -> tuple[str, int] | None:
        at = self._at(vector_id)
        if at is None:
            return None
        return self.names[int(self.files[at])], int(self.offsets[at])

    def plain(self) -> tuple:
        """For the record (marshal): plain data."""
        return (
            list(self.names),
            self.ids.tobytes(),
            self.files.tobytes(),
            self.offsets.tobytes(),
        )

    @classmethod
    def from_plain(cls, plain: tuple) -> Places:
        names, ids, files, offsets = plain
        return cls(
            list(names),
            np.frombuffer(ids, dtype=np.int64),
            np.frombuffer(files, dtype=np.int32),
            np.frombuffer(offsets, dtype=np.int64),
        )


class Growing:
    """The places of a base and of the episodes an update finds, a chunk at a time."""

    def __init__(self, base: Places):
        self.base = base
        self._names = {name: number for number, name in enumerate(base.names)}
        self._added = np.zeros(0, dtype=np.int64)  # sorted: the ids added so far
        self._parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def new(self, found: Iterable[tuple[int, str, int]]) -> list[bool]:
        """Of each (vector id, file name, offset), whether it is new: in neither the base
        nor an earlier chunk, nor earlier in this one; the new ones are added."""
        found = list(found)
        ids = np.array([vector_id for vector_id, _, _ in found], dtype=np.int64)
        known = np.isin(ids, self.base.ids) | np.isin(ids, self._added)
        _, first = np.unique(ids, return_index=True)
        once = np.zeros(len(ids), dtype=bool)
        once[first] = True
        fresh = ~known & once
        if fresh.any():
            numbers = [self._names.setdefault(name, len(self._names)) for _, name, _ in found]
            chosen = np.flatnonzero(fresh)
            self._parts.append(
                (
                    ids[chosen],
                    np.array(numbers, dtype=np.int32)[chosen],
                    np.array([offset for _, _, offset in found], dtype=np.int64)[chosen],
                )
            )
            self._added = np.union1d(self._added, ids[chosen])
        return fresh.tolist()

    def places(self) -> Places:
        base = self.base
        ids = np.concatenate([base.ids, *(part[0] for part in self._parts)])
        files = np.concatenate([base.files, *(part[1] for part in self._parts)])
        offsets = np.concatenate([base.offsets, *(part[2] for part in self._parts)])
        order = np.argsort(ids, kind="stable")
        names = sorted(self._names, key=self._names.__getitem__)
        return Places(names, ids[order], files[order], offsets[order])
