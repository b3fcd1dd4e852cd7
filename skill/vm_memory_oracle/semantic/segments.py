"""The facts' vector index in segments: FAISS indexes of at most SEGMENT_MAX vectors each,
embeddings/index.bin the first and embeddings/index-<n>.bin the n-th (n from 2).

A change (vectors removed, vectors added) reads and writes only the segments it touches,
one at a time: the vectors it removes are found by each segment's ids (read from the mapped
file), and what it adds fills the last segment, then new ones. A consolidation of a million
facts that adds a day's facts reads and writes the last segment (at most 268 MB at 512
dimensions), not the 2 GB of every vector, and a first build holds one segment at a time.
Each segment is flat (exact) or IVF by its own count, as the one index was by the memory's
(wanted_kind): a memory of at most SEGMENT_MAX facts has one segment, the index it had.

A recall searches every segment, read mapped from its file, and merges their hits by score;
of equal scores the later segment's first, as a flat index puts the vector added later first.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import IndexCorrupt
from .vectors import FLAT, IVF, PAGES_HELD, VectorIndex

SEGMENT_MAX = 131_072


def wanted_kind(count: int, approximate_min_facts: int) -> str:
    """Exact search for a segment of fewer than `approximate_min_facts` vectors, else IVF."""
    return IVF if count >= approximate_min_facts else FLAT


class FactVectors:
    """The segments, searched as one index (what recall and the check read of it)."""

    def __init__(self, dimension: int, segments: list[VectorIndex] | None = None):
        self.dimension = dimension
        self.segments: list[VectorIndex] = segments or []
        self.measured_recall: float | None = None  # of the IVF segments built by a change

    @classmethod
    def open(cls, layout, dimension: int) -> FactVectors:
        """Every segment, mapped from its file; IndexCorrupt names one that cannot be read,
        or the first missing before the last (a segment lost). The pages a search leaves
        in the process (vectors.PAGES_HELD) are shared out between the segments by size."""
        paths = layout.index_segments()
        for number, path in enumerate(paths, start=1):
            if path != layout.index_segment(number):
                raise IndexCorrupt(f"{layout.index_segment(number).name}: missing")
        vectors = cls(dimension, [VectorIndex.load(path, dimension, mapped=True) for path in paths])
        vectors._share_pages()
        return vectors

    def _share_pages(self) -> None:
        """Each mapped segment's share of vectors.PAGES_HELD, by the size of its file."""
        sizes = [
            segment.path.stat().st_size if segment.mapped and segment.path is not None else 0
            for segment in self.segments
        ]
        for segment, size in zip(self.segments, sizes):
            segment.pages_held = max(1, PAGES_HELD * size // max(1, sum(sizes)))

    def __len__(self) -> int:
        return sum(len(segment) for segment in self.segments)

    @property
    def kind(self) -> str:
        return IVF if any(segment.kind == IVF for segment in self.segments) else FLAT

    @property
    def approximate(self) -> bool:
        return self.kind == IVF

    @property
    def nprobe(self) -> int | None:
        probes = [segment.nprobe for segment in self.segments if segment.nprobe is not None]
        return max(probes) if probes else None

    @property
    def mapped(self) -> bool:
        return bool(self.segments) and all(segment.mapped for segment in self.segments)

    def ids(self) -> np.ndarray:
        parts = [segment.ids() for segment in self.segments]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """The vectors of `ids`, each from the segment that holds it (KeyError: none does)."""
        if len(self.segments) == 1:
            return self.segments[0].vectors(ids)
        rows = np.zeros((len(ids), self.dimension), dtype=np.float32)
        for number, vector_id in enumerate(np.asarray(ids, dtype=np.int64).tolist()):
            for segment in reversed(self.segments):
                try:
                    rows[number] = segment.vectors(np.array([vector_id], dtype=np.int64))[0]
                    break
                except RuntimeError:  # FAISS: not an id of this segment
                    continue
            else:
                raise KeyError(vector_id)
        return rows

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        return self.search_many(query.reshape(1, -1), k)[0]

    def search_many(self, queries: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """Each segment's `k` nearest to each query, merged: the `k` best, of equal scores
        the later segment's first, and within a segment in its own order."""
        if len(self.segments) == 1:
            return self.segments[0].search_many(queries, k)
        found: list[list[tuple[float, int, int, int]]] = [[] for _ in range(len(queries))]
        for number, segment in enumerate(self.segments):
            for row, hits in enumerate(segment.search_many(queries, k)):
                found[row].extend(
                    (-score, -number, rank, vector_id)
                    for rank, (vector_id, score) in enumerate(hits)
                )
        return [
            [(vector_id, -negated) for negated, _, _, vector_id in sorted(hits)[:k]]
            for hits in found
        ]

    def change(
        self,
        removed: np.ndarray,
        added: np.ndarray,
        rows_of: Callable[[np.ndarray], np.ndarray],
        *,
        approximate_min_facts: int,
        write: Callable[[int, VectorIndex], VectorIndex] | None,
        order: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        """Remove the vectors of ids `removed` and add those of `added` (`rows_of(ids)`: their
        vectors), one segment at a time: each segment holding a removed id, and the last one
        when it has room for the added, is read whole from its file, changed and written; the
        added that are left fill new segments. A segment whose count now calls for the other
        kind is made again of its vectors (`rows_of`), in the order `order(ids)` gives them
        (the facts' order: a memory of one segment gets the index a build from the start
        gives; None: as the segment holds them). `write(number, segment)` saves the
        `number`-th segment and returns it as the recall reads it (mapped from its file); None:
        the segments are held in memory (a memory that cannot be written)."""
        removed = np.asarray(removed, dtype=np.int64)
        added = np.asarray(added, dtype=np.int64)

        def replace(number: int, segment: VectorIndex) -> None:
            self._replace(number, segment, rows_of, approximate_min_facts, write, order)

        last = len(self.segments) - 1
        for number, segment in enumerate(self.segments):
            held = segment.ids()
            gone = removed[np.isin(removed, held)] if len(removed) else removed
            room = SEGMENT_MAX - len(segment) + len(gone) if number == last else 0
            joining, added = added[: max(0, room)], added[max(0, room) :]
            if not len(gone) and not len(joining):
                continue
            whole = _whole(segment)
            whole.remove(gone)
            if len(joining):
                whole.add_rows(joining, _by_number(rows_of, joining))
            replace(number, whole)
        for start in range(0, len(added), SEGMENT_MAX):
            ids = added[start : start + SEGMENT_MAX]
            segment = VectorIndex(self.dimension, kind=wanted_kind(len(ids), approximate_min_facts))
            segment.add_rows(ids, _by_number(rows_of, ids))
            replace(len(self.segments), segment)
        if not self.segments:  # no vector: an empty first segment, so that the index exists
            replace(0, VectorIndex(self.dimension))
        self._share_pages()

    def _replace(self, number, segment, rows_of, approximate_min_facts, write, order) -> None:
        kind = wanted_kind(len(segment), approximate_min_facts)
        if segment.kind != kind:
            ids = segment.ids() if order is None else order(segment.ids())
            segment = VectorIndex(self.dimension, kind=kind)
            segment.add_rows(ids, _by_number(rows_of, ids))
        if segment.measured_recall is not None:
            self.measured_recall = min(self.measured_recall or 1.0, segment.measured_recall)
        if write is not None:
            segment = write(number + 1, segment)
        if number < len(self.segments):
            self.segments[number] = segment
        else:
            self.segments.append(segment)


def _whole(segment: VectorIndex) -> VectorIndex:
    """The segment in memory, to be changed: read whole from its file when it is mapped."""
    if not segment.mapped or segment.path is None:
        return segment
    return VectorIndex.load(segment.path, segment.dimension)


def _by_number(
    rows_of: Callable[[np.ndarray], np.ndarray], ids: np.ndarray
) -> Callable[[np.ndarray], np.ndarray]:
    """VectorIndex.add_rows' rows by number (0 to len(ids) - 1) of the vectors of `ids`."""
    return lambda numbers: rows_of(ids[numbers])
