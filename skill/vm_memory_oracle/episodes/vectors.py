"""The episodes' vectors, in segments: FAISS indexes of at most SEGMENT vectors each, the
files of state/cache/episode-vectors/ (derived, numbered from 1): the last one flat (exact),
each full one IVF.

A segment that is full is never written again, and is read mapped from its file: a recall
holds none of them, and bringing the index in step after a turn rewrites the last segment
alone (at most SEGMENT vectors), not every vector of every episode. A build of hundreds of
thousands of episodes (an import, a rebuild) holds one segment at a time: each is written
when it fills, then read mapped.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import IndexCorrupt
from ..semantic.vectors import FLAT, IVF, VectorIndex

SEGMENT = 16_384


class EpisodeVectors:
    """The segments as one exact index of the episodes' vectors: searched segment by
    segment, their hits merged by score. The segment being filled is held as one array of
    SEGMENT rows, made an index once, when it is full or saved (an index added to a chunk
    at a time would grow its storage by doubling, holding up to three times a segment)."""

    def __init__(self, directory: Path, dimension: int):
        self.directory = directory
        self.dimension = dimension
        self._segments: list[VectorIndex] = []
        self._ids: np.ndarray | None = None  # the segment being filled: its ids,
        self._rows: np.ndarray | None = None  # its vectors,
        self._filled = 0  # and how many it holds

    @classmethod
    def open(cls, directory: Path, dimension: int) -> EpisodeVectors:
        """The segments on disk, mapped; IndexCorrupt names a file that cannot be read (a
        gap in the numbers is one: a segment lost)."""
        vectors = cls(directory, dimension)
        names = segment_names(directory)
        for number, name in enumerate(names, start=1):
            if name != _name(number):
                raise IndexCorrupt(f"{directory.name}/{_name(number)}: missing")
            vectors._segments.append(VectorIndex.load(directory / name, dimension, mapped=True))
        return vectors

    def __len__(self) -> int:
        return sum(len(segment) for segment in self._segments) + self._filled

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(id, inner product) of the `k` nearest vectors of all segments, best first."""
        self._seal(None)
        hits = [hit for segment in self._segments for hit in segment.search(query, k)]
        return sorted(hits, key=lambda hit: -hit[1])[:k]

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """The vectors of `ids`, each from the segment that holds it."""
        self._seal(None)
        rows = np.zeros((len(ids), self.dimension), dtype=np.float32)
        for number, vector_id in enumerate(ids):
            for segment in self._segments:
                try:
                    rows[number] = segment.vectors(np.array([vector_id]))[0]
                    break
                except RuntimeError:  # FAISS: not an id of this segment
                    continue
            else:
                raise KeyError(int(vector_id))
        return rows

    def add(self, ids: np.ndarray, vectors: np.ndarray, store=None) -> None:
        """Add vectors to the segment being filled (the last one on disk taken up again
        when it is not full); with `store`, each segment that fills is written through it
        and read mapped from then on."""
        start = 0
        while start < len(ids):
            if self._rows is None:
                self._take_up()
            assert self._rows is not None and self._ids is not None
            take = min(SEGMENT - self._filled, len(ids) - start)
            self._rows[self._filled : self._filled + take] = vectors[start : start + take]
            self._ids[self._filled : self._filled + take] = ids[start : start + take]
            self._filled += take
            start += take
            if self._filled == SEGMENT and store is not None:
                self._seal(store)

    def save(self, store) -> None:
        """Write the segment being filled (`store` None: made an index in memory alone)."""
        self._seal(store)

    def _take_up(self) -> None:
        self._rows = np.empty((SEGMENT, self.dimension), dtype=np.float32)
        self._ids = np.empty(SEGMENT, dtype=np.int64)
        self._filled = 0
        if self._segments and len(self._segments[-1]) < SEGMENT:
            last = self._segments.pop()
            ids = last.ids()
            self._ids[: len(ids)] = ids
            self._rows[: len(ids)] = last.vectors(ids)
            self._filled = len(ids)

    def _seal(self, store) -> None:
        """The segment being filled made an index, written with `store` and read mapped."""
        if self._rows is None or self._ids is None:
            return
        # A full segment is never changed again: an IVF index, whose search reads the groups
        # nearest to the query (calibrated to agree with exact search, semantic/vectors.py),
        # so that a recall of half a million turns does not read every vector of them.
        segment = VectorIndex(self.dimension, kind=IVF if self._filled == SEGMENT else FLAT)
        segment.add(self._ids[: self._filled], self._rows[: self._filled])
        self._rows = self._ids = None
        self._filled = 0
        if store is not None:
            path = self.directory / _name(len(self._segments) + 1)
            store.make_directory(self.directory)
            store.write_bytes(path, segment.write_to)
            if path.exists():  # written (a store that may not write leaves it in memory)
                segment = VectorIndex.load(path, self.dimension, mapped=True)
        self._segments.append(segment)


def segment_names(directory: Path) -> list[str]:
    """The segment files of `directory`, in order (none when it does not exist)."""
    try:
        names = [path.name for path in directory.iterdir() if path.suffix == ".bin"]
    except FileNotFoundError:
        return []
    return sorted(name for name in names if name[:-4].isdigit())


def remove_segments(store, directory: Path) -> None:
    """Remove every segment file (a build from the start)."""
    for name in segment_names(directory):
        store.delete(directory / name)


def _name(number: int) -> str:
    return f"{number:06d}.bin"
