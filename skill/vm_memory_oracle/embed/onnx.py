"""An ONNX sentence-embedding model directory: model.onnx and tokenizer.json.

This is the standard export layout of sentence-embedding models (multilingual-e5-large
among them). The graph takes input_ids and attention_mask (and token_type_ids when it
declares them) and returns token embeddings (batch, tokens, dim) or a pooled (batch, dim)
output; mean or CLS pooling and the query/passage prefixes come from the settings.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import EmbedderUnavailable
from .base import normalised

MAX_TOKENS = 512
_BATCH = 32


if TYPE_CHECKING:
    from .relevance import RelevanceScale


class OnnxEmbedder:
    # An unknown model: keep every neighbour unless the settings say otherwise.
    min_similarity: float = -1.0
    relevance: RelevanceScale | None = None  # no measured scale: the floor alone decides
    # An unknown scale: only shared words merge unless the settings say otherwise.
    merge_similarity: float | None = None

    def __init__(
        self,
        directory: Path,
        *,
        device: str = "cpu",
        pooling: str = "mean",
        query_prefix: str = "query: ",
        passage_prefix: str = "passage: ",
    ):
        model_path = directory / "model.onnx"
        tokenizer_path = directory / "tokenizer.json"
        for path in (model_path, tokenizer_path):
            if not path.is_file():
                raise EmbedderUnavailable(f"{path} not found")
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbedderUnavailable(f"onnxruntime or tokenizers is missing ({exc})") from None
        providers: list = ["CPUExecutionProvider"]
        if device.startswith("cuda"):
            available = onnxruntime.get_available_providers()
            if "CUDAExecutionProvider" not in available:
                raise EmbedderUnavailable(
                    f"embedding_device {device} asked for, but this "
                    "onnxruntime has no CUDA provider"
                )
            index = int(device.split(":")[1]) if ":" in device else 0
            providers = [
                ("CUDAExecutionProvider", {"device_id": index}),
                "CPUExecutionProvider",
            ]
        try:
            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3
            self._session = onnxruntime.InferenceSession(
                str(model_path), options, providers=providers
            )
            self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        except Exception as exc:  # onnxruntime raises its own exception types
            raise EmbedderUnavailable(
                f"cannot load {directory}: {str(exc).splitlines()[0]}"
            ) from None
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding()
        self._inputs = {item.name for item in self._session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= self._inputs:
            raise EmbedderUnavailable(f"{model_path} does not take input_ids and attention_mask")
        self._pooling = pooling
        self._query_prefix = query_prefix
        self._passage_prefix = passage_prefix
        probe = self._run(["dimension probe"])
        self.dimension = int(probe.shape[1])
        digest = hashlib.sha256(model_path.read_bytes()).hexdigest()[:12]
        self.model_id = (
            f"onnx-{directory.name}-{digest}-{pooling}"
            f"-{_short(query_prefix)}-{_short(passage_prefix)}"
        )

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self._passage_prefix + text for text in texts])

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self._query_prefix + text for text in texts])

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return normalised(
            np.vstack(
                [self._run(texts[start : start + _BATCH]) for start in range(0, len(texts), _BATCH)]
            )
        )

    def _run(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([encoding.ids for encoding in encodings], dtype=np.int64)
        mask = np.array([encoding.attention_mask for encoding in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        output = self._session.run(None, feeds)[0]
        if output.ndim == 2:
            return output.astype(np.float32)
        if self._pooling == "cls":
            return output[:, 0, :].astype(np.float32)
        weights = mask[:, :, None].astype(np.float32)
        return (output * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)


def _short(prefix: str) -> str:
    return hashlib.sha256(prefix.encode("utf-8")).hexdigest()[:6]
