"""The vector index: FAISS over L2-normalised vectors, addressed by stable int64 ids.

It knows vectors and ids, nothing of facts or files beyond the one it is saved to, so it can
be tested and replaced alone.
Inner-product flat search (exact) by default; an HNSW graph once the index holds
`hnsw_min_vectors` vectors or more. Both sit in an IndexIDMap2, so a vector keeps its id and
can be read back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

HNSW_NEIGHBOURS = 32
HNSW_EF_SEARCH = 128


class IndexCorrupt(Exception):
    """The index file cannot be read or does not hold what it should."""


class VectorIndex:
    def __init__(self, dimension: int, *, hnsw: bool = False, _index=None, _owner=None):
        import faiss

        # A downcast proxy does not own its C++ index: keep the proxy that does alive.
        self._owner = _owner
        self.dimension = dimension
        if _index is None:
            inner = (
                faiss.IndexHNSWFlat(dimension, HNSW_NEIGHBOURS, faiss.METRIC_INNER_PRODUCT)
                if hnsw
                else faiss.IndexFlatIP(dimension)
            )
            _index = faiss.IndexIDMap2(inner)
        self._index = _index
        self.hnsw = hnsw
        if hnsw:
            inner_index: Any = faiss.downcast_index(self._index.index)  # IndexHNSWFlat
            inner_index.hnsw.efSearch = HNSW_EF_SEARCH

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def ids(self) -> np.ndarray:
        import faiss

        return faiss.vector_to_array(self._index.id_map).astype(np.int64)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] != self.dimension:
            raise ValueError(
                f"vectors of dimension {vectors.shape[-1]} given to an index of "
                f"dimension {self.dimension}"
            )
        if len(ids):
            self._index.add_with_ids(vectors, np.ascontiguousarray(ids, dtype=np.int64))

    def remove(self, ids: np.ndarray) -> None:
        """Remove vectors by id (an HNSW graph cannot drop nodes: it is rebuilt without them)."""
        if not len(ids):
            return
        if not self.hnsw:
            self._index.remove_ids(np.ascontiguousarray(ids, dtype=np.int64))
            return
        keep = np.setdiff1d(self.ids(), np.asarray(ids, dtype=np.int64))
        vectors = self.vectors(keep)
        rebuilt = VectorIndex(self.dimension, hnsw=True)
        rebuilt.add(keep, vectors)
        self._index, self._owner = rebuilt._index, rebuilt

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        if not len(ids):
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.vstack([self._index.reconstruct(int(vector_id)) for vector_id in ids])

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(id, inner product) of the `k` nearest vectors, best first."""
        if not len(self) or k <= 0:
            return []
        query = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        scores, ids = self._index.search(query, min(k, len(self)))
        return [
            (int(vector_id), float(score))
            for vector_id, score in zip(ids[0], scores[0])
            if vector_id != -1
        ]

    def to_bytes(self) -> memoryview:
        """The index serialized (not copied again), for the store to write atomically like
        every other file (FAISS's own writer reports a full disk as a RuntimeError and
        leaves its file half-written)."""
        import faiss

        return faiss.serialize_index(self._index).data

    @classmethod
    def load(cls, path: Path, dimension: int) -> VectorIndex:
        import faiss

        try:
            index = faiss.read_index(str(path))
        except (RuntimeError, OSError) as exc:
            raise IndexCorrupt(f"{path.name}: {str(exc).splitlines()[0][:160]}") from None
        if index.d != dimension:
            raise IndexCorrupt(f"{path.name}: dimension {index.d}, expected {dimension}")
        try:
            mapped: Any = faiss.downcast_index(index)  # IndexIDMap2, checked below
            inner = faiss.downcast_index(mapped.index)
        except (RuntimeError, AttributeError) as exc:
            raise IndexCorrupt(f"{path.name}: not an id-mapped index ({exc})") from None
        if not isinstance(mapped, faiss.IndexIDMap2):
            raise IndexCorrupt(f"{path.name}: not an id-mapped index")
        return cls(
            dimension, hnsw=isinstance(inner, faiss.IndexHNSWFlat), _index=mapped, _owner=index
        )
