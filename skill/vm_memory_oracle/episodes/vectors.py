"""The episodes' vectors, in segments: flat FAISS indexes of at most SEGMENT vectors each,
the files of state/cache/episode-vectors/ (derived, numbered from 1).

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
from ..semantic.vectors import VectorIndex

SEGMENT = 32_768


class EpisodeVectors:
    """The segments as one exact index of the episodes' vectors: searched segment by
    segment, their hits merged by score."""

    def __init__(self, directory: Path, dimension: int):
        self.directory = directory
        self.dimension = dimension
        self._segments: list[VectorIndex] = []
        self._changed = False  # the last segment holds vectors its file does not

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
        return sum(len(segment) for segment in self._segments)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(id, inner product) of the `k` nearest vectors of all segments, best first."""
        hits = [hit for segment in self._segments for hit in segment.search(query, k)]
        return sorted(hits, key=lambda hit: -hit[1])[:k]

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """The vectors of `ids`, each from the segment that holds it."""
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
        """Add vectors, filling the last segment then new ones; with `store`, each segment
        that fills is written through it and read mapped from then on."""
        start = 0
        while start < len(ids):
            last = self._open_last()
            take = SEGMENT - len(last)
            last.add(ids[start : start + take], vectors[start : start + take])
            self._changed = True
            start += take
            if len(last) >= SEGMENT and store is not None:
                self._write_last(store)

    def save(self, store) -> None:
        """Write the last segment if it changed."""
        if self._changed:
            self._write_last(store)

    def _open_last(self) -> VectorIndex:
        """The segment to add to: the last unless full, read into memory if mapped."""
        if not self._segments or len(self._segments[-1]) >= SEGMENT:
            self._segments.append(VectorIndex(self.dimension))
        elif self._segments[-1].mapped:
            path = self.directory / _name(len(self._segments))
            self._segments[-1] = VectorIndex.load(path, self.dimension)
        return self._segments[-1]

    def _write_last(self, store) -> None:
        path = self.directory / _name(len(self._segments))
        store.make_directory(self.directory)
        store.write_bytes(path, self._segments[-1].write_to)
        if path.exists():  # written (a store that may not write leaves it in memory)
            self._segments[-1] = VectorIndex.load(path, self.dimension, mapped=True)
        self._changed = False


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
