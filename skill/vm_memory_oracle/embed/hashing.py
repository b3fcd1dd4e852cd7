"""A hashing embedder: word and character n-grams hashed into a fixed number of dimensions.

It needs no model and always works, so it is the last fallback and keeps unit tests fast.
It matches shared words and spellings, not meanings, and does not cross languages.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..model.fact import normalise
from .base import normalised

DIMENSION = 512
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


if TYPE_CHECKING:
    from .relevance import RelevanceScale


class HashEmbedder:
    min_similarity: float = 0.1  # texts sharing no word or spelling score about 0
    relevance: RelevanceScale | None = None  # no measured scale: the floor alone decides
    # It measures shared words, which the word check already does.
    merge_similarity: float | None = None

    def __init__(self, dimension: int = DIMENSION):
        self.dimension = dimension
        self.model_id = f"hash-ngram-v1-{dimension}"

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        matrix = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                code = zlib.crc32(feature.encode("utf-8"))
                sign = 1.0 if code & 1 else -1.0
                matrix[row, (code >> 1) % self.dimension] += sign * weight
        return normalised(matrix)


def _features(text: str):
    normal = normalise(text)
    for word in _WORD.findall(normal):
        if _CJK.search(word):
            chars = _CJK.findall(word)
            for char in chars:
                yield "c:" + char, 1.0
            for first, second in zip(chars, chars[1:]):
                yield "b:" + first + second, 1.5
            continue
        yield "w:" + word, 2.0
        padded = f"<{word}>"
        for start in range(len(padded) - 2):
            yield "g:" + padded[start : start + 3], 0.5
