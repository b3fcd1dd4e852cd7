"""The vector index: FAISS over L2-normalised vectors, addressed by stable int64 ids.

It knows vectors and ids, nothing of facts or files beyond the one it is saved to, so it can
be tested and replaced alone.

Two kinds, chosen by size (semantic/index.py): an exact inner-product flat index, whose
search time grows with every vector; and, for large memories, an inverted-file index (IVF):
the vectors are grouped around centroids learnt from them, and a query scans only the
groups nearest to it. The IVF index is built in a few seconds where an HNSW graph took
minutes, adds and removes vectors in place, and is calibrated when built: the number of
groups scanned (nprobe) grows until its top 10 agree with exact search on at least
TARGET_RECALL of sample queries drawn from the index's own vectors.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import IndexCorrupt
from ..heap import MappedFile

FLAT, IVF = "flat", "ivf"
WRITE_CHUNK = 1 << 20
TARGET_RECALL = 0.99  # the goal is 0.98: the margin covers vectors added after the build
CALIBRATION_QUERIES = 200
CALIBRATION_K = 10
# Recall fuses the index's 100 nearest (semantic/search.py, SEMANTIC_MIN_CANDIDATES), so
# the calibration checks those too. With the bundled model the top 10 alone let it stop
# at nprobe 64 of 141 lists over 20,000 texts of the LongMemEval dev haystacks, where the
# dev questions' top 10 agreed with exact search on 95.6% of hits; with the 100 it goes on
# to 128, and they agree on 99.9% (benchmarks/ivf_agreement.py).
CALIBRATION_DEPTH = 100
CALIBRATION_BLOCK = 8_192
# Centroids: about the square root of the vector count, trained on at most this many
# vectors per centroid (FAISS warns below 39; k-means time grows with the sample).
TRAINING_PER_CENTROID = 40
MIN_CENTROIDS = 16
SHARED_SEARCH = 8  # queries searched at once from which every thread takes a share
# The pages of a mapped IVF index that a search may leave in the process before they are
# let go (heap.MappedFile): queries are searched a few at a time, so that the pages they
# read (the lists they scan) never add up to more than this. Pages let go are read again
# by the next queries (from the page cache): an index smaller than this (100,000 facts:
# 200 MB) keeps them, as letting them go every 128 MB cost its queries 0.2 ms each.
PAGES_HELD = 256 << 20
ADD_BLOCK = 8_192  # vectors added at a time by add_rows
# A flat index's search (_flat_nearest): candidates read beyond the k asked for, and how far
# a matrix product's score of two unit vectors may be from the one FAISS computes alone
# (each sums 512 products of float32 in its own order: well under 512 x 2^-24 apart).
TIE_MARGIN = 32
PRODUCT_ERROR = 1e-4


class VectorIndex:
    def __init__(self, dimension: int, *, kind: str = FLAT, _index=None, _owner=None):
        import faiss

        if kind not in (FLAT, IVF):
            raise ValueError(f"unknown index kind {kind!r}")
        # A downcast proxy does not own its C++ index: keep the proxy that does alive.
        self._owner = _owner
        self.dimension = dimension
        self.kind = kind
        # Of the IVF calibration: the share of exact top-10 hits found (None: not measured).
        self.measured_recall: float | None = None
        if _index is None and kind == FLAT:
            _index = faiss.IndexIDMap2(faiss.IndexFlatIP(dimension))
        # An IVF index is made by the first add, which trains it on the vectors it adds.
        self._index: Any = _index
        self.mapped = False  # read from its file as searched (load): never changed
        self.path: Path | None = None  # the file it was read from (load)
        self._pages: MappedFile | None = None  # a large mapped IVF index's file (load)
        self.pages_held = PAGES_HELD  # of its file's pages, at most (_queries_per_release)

    @property
    def approximate(self) -> bool:
        return self.kind == IVF

    @property
    def nprobe(self) -> int | None:
        return int(self._index.nprobe) if self.kind == IVF and self._index is not None else None

    def __len__(self) -> int:
        return 0 if self._index is None else int(self._index.ntotal)

    def ids(self) -> np.ndarray:
        import faiss

        if self._index is None:
            return np.zeros(0, dtype=np.int64)
        if self.kind == FLAT:
            return faiss.vector_to_array(self._index.id_map).astype(np.int64)
        lists = self._index.invlists
        parts = [
            faiss.rev_swig_ptr(lists.get_ids(number), size).copy()
            for number in range(self._index.nlist)
            if (size := lists.list_size(number))
        ]
        if self._pages is not None:
            # A list's ids lie after its vectors: reading them maps pages of every list
            # (167 MB of the segments of a million vectors), let go as a search's are.
            self._pages.release()
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] != self.dimension:
            raise ValueError(
                f"vectors of dimension {vectors.shape[-1]} given to an index of "
                f"dimension {self.dimension}"
            )

        def rows(numbers: np.ndarray) -> np.ndarray:
            # all of them in order (the one block): the array itself, not a copy of it
            count = len(vectors)
            whole = len(numbers) == count and np.array_equal(numbers, np.arange(count))
            return vectors if whole else vectors[numbers]

        self.add_rows(ids, rows, block=max(1, len(ids)))

    def add_rows(
        self, ids: np.ndarray, rows: Callable[[np.ndarray], np.ndarray], *, block: int = ADD_BLOCK
    ) -> None:
        """add() of len(ids) vectors, given by `rows(numbers)` (rows 0 to len(ids) - 1 by
        number), `block` at a time: a build of a million vectors holds a block of them
        besides the index, not a second copy of all. An IVF index made so is trained and
        calibrated on the same vectors as add() of them all, so it is the same index."""
        count = len(ids)
        if not count:
            return
        self._changeable()
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        made = self._index is None
        if made:
            self._index = _trained_ivf(rows, count, self.dimension)
        for start in range(0, count, block):
            numbers = np.arange(start, min(count, start + block))
            vectors = np.ascontiguousarray(rows(numbers), dtype=np.float32)
            self._index.add_with_ids(vectors, ids[start : start + block])
        if made:
            self.measured_recall = _calibrate(self._index, rows, count)

    def remove(self, ids: np.ndarray) -> None:
        """Remove vectors by id, in place (both kinds can)."""
        import faiss

        if not len(ids) or self._index is None:
            return
        self._changeable()
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        # An IVF index's id table removes only by a plain list of ids.
        self._index.remove_ids(faiss.IDSelectorArray(len(ids), faiss.swig_ptr(ids)))

    def _changeable(self) -> None:
        if self.mapped:
            raise RuntimeError("a vector index mapped from its file is read only")

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        if not len(ids) or self._index is None:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.vstack([self._index.reconstruct(int(vector_id)) for vector_id in ids])

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(id, inner product) of the `k` nearest vectors, best first."""
        return self.search_many(query.reshape(1, -1), k)[0]

    def search_many(self, queries: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """search() of each row of `queries`, in one call, so that many queries can be
        shared out between the threads (below)."""
        if not len(self) or k <= 0:
            return [[] for _ in range(len(queries))]
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        step = self._queries_per_release()
        if step is None:
            return self._searched(queries, k)
        found = []
        for start in range(0, len(queries), step):
            found.extend(self._searched(queries[start : start + step], k))
            self._pages.release()  # type: ignore[union-attr]  # (set with step)
        return found

    def _queries_per_release(self) -> int | None:
        """How many queries are searched between two releases of the index's pages; None:
        all at once, none released (an index in memory, or a file smaller than
        PAGES_HELD). A query reads about nprobe lists of the nlist, each an equal share
        of the file."""
        if self._pages is None or self._pages.size <= self.pages_held:
            return None
        read = self._pages.size * self._index.nprobe / self._index.nlist
        return max(1, int(self.pages_held // max(1.0, read)))

    def _searched(self, queries: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        import faiss

        # One query is one thread's work: OpenMP's other threads only wait for it, and on
        # a busy machine that wait costs more than the search (10,000 vectors: 5.2 ms with
        # two threads, 1.6 ms with one, measured on a loaded 2-core machine). Many queries
        # are shared out between the threads of an IVF index: 200 at 10,000 vectors took
        # 115 ms on one thread and 52-59 ms on two, on an idle 2-core machine. A flat
        # index's many queries keep to one thread (_flat_nearest): a matrix product, then
        # a query at a time.
        threads = faiss.omp_get_max_threads()
        shared = len(queries) >= SHARED_SEARCH and self.kind == IVF
        faiss.omp_set_num_threads(threads if shared else 1)
        try:
            if self.kind == FLAT:
                scores, ids = _flat_nearest(self._index, queries, min(k, len(self)))
            else:
                scores, ids = self._index.search(queries, min(k, len(self)))
        finally:
            faiss.omp_set_num_threads(threads)
        return [
            [
                (vector_id, score)
                for vector_id, score in zip(row_ids.tolist(), row_scores.tolist())
                if vector_id != -1
            ]
            for row_ids, row_scores in zip(ids, scores)
        ]

    def to_bytes(self) -> memoryview:
        """The index serialized (not copied again), for the store to write atomically like
        every other file (FAISS's own writer reports a full disk as a RuntimeError and
        leaves its file half-written). An empty IVF index is saved as an empty flat one."""
        import faiss

        return faiss.serialize_index(self._saved()).data

    def write_to(self, write) -> None:
        """Write the index serialized (as to_bytes gives it) through `write`, a megabyte at
        a time, never holding a second copy of it (a files.Producer: the store writes it
        to a temporary file and renames it, as every other file)."""
        import faiss

        pending = bytearray()

        def take(piece: bytes) -> int:
            if len(piece) >= WRITE_CHUNK:
                if pending:
                    write(bytes(pending))
                    pending.clear()
                write(piece)
            else:
                pending.extend(piece)
                if len(pending) >= WRITE_CHUNK:
                    write(bytes(pending))
                    pending.clear()
            return len(piece)

        # (the callback writer class is absent from faiss's stubs)
        writer = faiss.PyCallbackIOWriter(take, WRITE_CHUNK)  # type: ignore[attr-defined]
        faiss.write_index(self._saved(), writer)
        del writer  # flushes what FAISS itself still holds
        if pending:
            write(bytes(pending))

    def _saved(self):
        """The FAISS index as it is saved: an empty IVF index as an empty flat one."""
        import faiss

        if self._index is None:
            return faiss.IndexIDMap2(faiss.IndexFlatIP(self.dimension))
        return self._index

    @classmethod
    def load(cls, path: Path, dimension: int, *, mapped: bool = False) -> VectorIndex:
        """The index saved at `path`. A `mapped` one reads its vectors from the file as the
        search needs them (FAISS maps it into memory), not all of them first: a recall of a
        large memory starts in a fraction of the time and holds only what it read, and a
        large IVF one lets those pages go every few queries (search_many). It is read only:
        FAISS aborts the process on a change to a mapped index, so add and remove refuse
        one."""
        import faiss

        try:
            pages = MappedFile(path) if mapped else None  # (before it is mapped: see there)
            index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP_IFC if mapped else 0)
        except (RuntimeError, OSError) as exc:
            raise IndexCorrupt(f"{path.name}: {str(exc).splitlines()[0][:160]}") from None
        if index.d != dimension:
            raise IndexCorrupt(f"{path.name}: dimension {index.d}, expected {dimension}")
        try:
            typed: Any = faiss.downcast_index(index)
        except (RuntimeError, AttributeError) as exc:
            raise IndexCorrupt(f"{path.name}: an index of an unknown kind ({exc})") from None
        if isinstance(typed, faiss.IndexIVFFlat):
            if typed.direct_map.type != _hashtable():
                raise IndexCorrupt(f"{path.name}: an IVF index without its id table")
            loaded = cls(dimension, kind=IVF, _index=typed, _owner=index)
        elif isinstance(typed, faiss.IndexIDMap2) and isinstance(
            faiss.downcast_index(typed.index), faiss.IndexFlatIP
        ):
            loaded = cls(dimension, kind=FLAT, _index=typed, _owner=index)
        else:
            raise IndexCorrupt(f"{path.name}: not an id-mapped flat index nor an IVF index")
        loaded.mapped = mapped
        loaded.path = path
        if loaded.kind == IVF:
            loaded._pages = pages
        return loaded


def _flat_nearest(index, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(scores, ids) of the `k` vectors of a flat index (an IndexIDMap2 of an IndexFlatIP)
    with the largest inner product with each query: exact, best first, and of vectors of
    equal score the one added later first (the order FAISS gives them), down to the k-th:
    a query finds the same asked alone or among many. (FAISS alone keeps whichever of the
    vectors tied with the k-th its selection happens to keep.)

    FAISS's own search scores one vector after another. Many queries (SHARED_SEARCH or
    more) are first scored at once by a matrix product, several times faster, for the k +
    TIE_MARGIN best; those candidates are then scored again one by one, as FAISS scores
    them alone, bit for bit. A query for which a vector outside its candidates could still
    reach its k-th score (the product's scores differ from those by less than
    PRODUCT_ERROR) is searched alone; so is one whose candidates end in a tie with the
    k-th, until every vector of that score is among them. The caller runs it on one
    OpenMP thread."""
    import faiss

    flat: Any = faiss.downcast_index(index.index)
    total, dimension = flat.ntotal, flat.d
    wanted = min(total, k + TIE_MARGIN)
    if len(queries) >= SHARED_SEARCH:
        # The matrix product, for any count of queries, on one thread (the caller's,
        # VectorIndex._searched): its threads wait for each other by spinning, and on a busy
        # machine took six times the processor time (200 queries of 10,000 vectors: 0.89 ms
        # a query on two, 0.14 on one). So do the one-query searches of the unsure ones
        # below (10,000 vectors: 12 ms on two, 0.5 on one).
        threshold = faiss.cvar.distance_compute_blas_threshold
        faiss.cvar.distance_compute_blas_threshold = 1
        try:
            near, places = flat.search(queries, wanted)
        finally:
            faiss.cvar.distance_compute_blas_threshold = threshold
        places = np.ascontiguousarray(places, dtype=np.int64)
        scores = np.empty(places.shape, dtype=np.float32)
        faiss.fvec_inner_products_by_idx(  # type: ignore[attr-defined]  # absent from its stubs
            faiss.swig_ptr(scores),
            faiss.swig_ptr(queries),
            flat.get_xb(),
            faiss.swig_ptr(places),
            dimension,
            len(queries),
            wanted,
        )
        unsure = near[:, -1] + PRODUCT_ERROR >= np.sort(scores, axis=1)[:, -k]
    else:
        scores, places = flat.search(queries, wanted)
        unsure = scores[:, -1] >= scores[:, k - 1]
    order = np.lexsort((-places, -scores), axis=-1)[:, :k]
    best, chosen = np.take_along_axis(scores, order, 1), np.take_along_axis(places, order, 1)
    for number in np.flatnonzero(unsure).tolist() if wanted < total else ():
        row_scores, row_places = _all_tied(flat, queries[number : number + 1], k, wanted)
        row = np.lexsort((-row_places, -row_scores))[:k]
        best[number], chosen[number] = row_scores[row], row_places[row]
    added = faiss.rev_swig_ptr(index.id_map.data(), total)  # place -> id
    return best, added[chosen]


def _all_tied(flat, query: np.ndarray, k: int, wanted: int) -> tuple[np.ndarray, np.ndarray]:
    """(scores, places) of the nearest vectors to one query, scored as FAISS scores them
    alone, as many as it takes for every vector of the k-th score to be among them."""
    total = flat.ntotal
    while True:
        wanted = min(total, wanted * 2)
        scores, places = flat.search(query, wanted)
        if wanted == total or scores[0, -1] < scores[0, k - 1]:
            return scores[0], places[0]


def _hashtable() -> int:
    """FAISS's id table kind that lets an IVF index find and remove a vector by its id."""
    import faiss

    return faiss.DirectMap.Hashtable  # type: ignore[attr-defined]  # absent from faiss's stubs


def centroid_count(vectors: int) -> int:
    """About the square root of the vector count; never more centroids than vectors."""
    return max(1, min(vectors, max(MIN_CENTROIDS, int(math.sqrt(vectors)))))


def _trained_ivf(rows: Callable[[np.ndarray], np.ndarray], total: int, dimension: int):
    """An empty IVF index with its centroids learnt from a sample of the `total` vectors
    `rows(numbers)` gives."""
    import faiss

    count = centroid_count(total)
    quantizer = faiss.IndexFlatIP(dimension)
    index = faiss.IndexIVFFlat(quantizer, dimension, count, faiss.METRIC_INNER_PRODUCT)
    index.cp.min_points_per_centroid = 1  # small samples train too, without a warning
    sample = min(total, TRAINING_PER_CENTROID * count)
    chosen = np.random.default_rng(0).choice(total, sample, replace=False)
    index.train(np.ascontiguousarray(rows(np.sort(chosen)), dtype=np.float32))
    # Vectors are found again by id (recall reads them back, removal finds them).
    index.set_direct_map_type(_hashtable())
    return index


def _calibrate(index, rows: Callable[[np.ndarray], np.ndarray], total: int) -> float:
    """Raise the index's nprobe until, on sample queries (the normalised midpoint of two
    indexed vectors: a query between facts, neither of them itself), both its top
    CALIBRATION_K and its top CALIBRATION_DEPTH agree with exact search on TARGET_RECALL of
    the hits; returns the top CALIBRATION_K's agreement at that nprobe. A hit counts when
    its exact score reaches the exact last one's, so ties are not misses."""
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, total, size=(CALIBRATION_QUERIES, 2))
    queries = rows(pairs[:, 0]) + rows(pairs[:, 1])
    norms = np.linalg.norm(queries, axis=1, keepdims=True)
    queries = np.ascontiguousarray(queries / np.where(norms == 0, 1, norms), dtype=np.float32)
    depths = sorted({min(CALIBRATION_K, total), min(CALIBRATION_DEPTH, total)})
    deepest = depths[-1]
    best = np.full((len(queries), deepest), -np.inf, dtype=np.float32)
    for start in range(0, total, CALIBRATION_BLOCK):  # bounded memory at 1M vectors
        block = queries @ rows(np.arange(start, min(total, start + CALIBRATION_BLOCK))).T
        best = np.partition(np.hstack([best, block]), -deepest, axis=1)[:, -deepest:]
    best = -np.sort(-best, axis=1)  # best first: column k - 1 is the exact k-th best
    index.nprobe = max(1, index.nlist // 64)
    while True:
        scores, _ = index.search(queries, deepest)
        agreement = [float(np.mean(scores[:, :k] >= best[:, k - 1 : k] - 1e-5)) for k in depths]
        if min(agreement) >= TARGET_RECALL or index.nprobe >= index.nlist:
            return agreement[0]
        index.nprobe = min(index.nlist, index.nprobe * 2)
