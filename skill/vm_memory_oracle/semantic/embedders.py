"""Choosing the embedder: the one the settings name, else the bundled model, else hashing,
never silently (the Choice says why it fell back)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..embed.base import Embedder
from ..embed.names import BUNDLED_NAMES, HASH, model_directory, unknown_model_problem
from ..errors import ConfigError, EmbedderUnavailable


@dataclass
class Choice:
    embedder: Embedder
    requested: str
    fallback_reason: str | None = None  # set when the embedder is not the one requested

    @property
    def note(self) -> str | None:
        if self.fallback_reason is None:
            return None
        return (
            f"embedding model {self.requested!r} unavailable ({self.fallback_reason}); "
            f"using {self.embedder.model_id}"
        )


def choose_embedder(
    model: str,
    *,
    data_dir: Path,
    device: str = "cpu",
    pooling: str = "mean",
    query_prefix: str = "query: ",
    passage_prefix: str = "passage: ",
) -> Choice:
    """The embedder `model` names, else the bundled model, else hashing; never silently.

    `model` is "hash", the bundled model's name ("multilingual-e5-small"), a directory with
    model.onnx and tokenizer.json, or a name looked up as <data_dir>/models/<name>; any other
    name is refused (ConfigError) with the list of valid ones.
    """
    problem = unknown_model_problem(model, data_dir)
    if problem is not None:
        raise ConfigError(f"memory_oracle.embedding_model: {problem}", key="embedding_model")
    if model == HASH:
        from ..embed.hashing import HashEmbedder

        return Choice(HashEmbedder(), model)
    reason = None
    if model not in BUNDLED_NAMES:
        directory = model_directory(model, data_dir)
        try:
            from ..embed.onnx import OnnxEmbedder

            return Choice(
                OnnxEmbedder(
                    directory,
                    device=device,
                    pooling=pooling,
                    query_prefix=query_prefix,
                    passage_prefix=passage_prefix,
                ),
                model,
            )
        except EmbedderUnavailable as exc:
            reason = str(exc)
    try:
        from ..embed.bundled import BundledEmbedder

        return Choice(BundledEmbedder(), model, reason)
    except EmbedderUnavailable as exc:
        reason = f"{reason}; {exc}" if reason else str(exc)
    from ..embed.hashing import HashEmbedder

    return Choice(HashEmbedder(), model, reason)


def configured_embedder(graph, settings) -> Choice:
    """The embedder the settings name, or its named fallback (Choice)."""
    return choose_embedder(
        settings.embedding_model,
        data_dir=graph.layout.root,
        device=settings.embedding_device,
        pooling=settings.embedding_pooling,
        query_prefix=settings.embedding_query_prefix,
        passage_prefix=settings.embedding_passage_prefix,
    )
