"""The embedder interface, the names of the built-in embedders, and what they share (vectors
normalised to unit length); semantic/embedders.py chooses one by the `embedding_model`
setting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from .relevance import RelevanceScale

from .names import BUNDLED_NAMES, HASH

__all__ = ["BUNDLED_NAMES", "HASH", "Embedder", "normalised"]


class Embedder(Protocol):
    model_id: str  # names the model and everything that changes its vectors
    dimension: int
    # Below this cosine similarity a neighbour is not related to the query at all (a floor;
    # each model has its own scale).
    min_similarity: float
    # For a model whose scale was measured: the calibrated score a neighbour sharing no
    # word with the query needs to count as related (embed/relevance.py); None: only the
    # floor decides.
    relevance: RelevanceScale | None
    # At or above this cosine similarity two sentences about one subject are one statement
    # (consolidation's merge step); None: this model's scale was not measured, and only
    # shared words decide.
    merge_similarity: float | None

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


def normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)
