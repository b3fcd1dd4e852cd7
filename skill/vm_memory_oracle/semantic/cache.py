"""The embedding cache: each text's vector by the hash of its text, per model, kept beside
the index (embeddings/cache-<model>.npz). Derived state: a lost or damaged cache costs only
the embedding again."""

from __future__ import annotations

import hashlib
import io
import zipfile
import zlib
from pathlib import Path

import numpy as np

from ..embed.base import Embedder


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class EmbeddingCache:
    """Vectors by content hash for one model, kept beside the index (derived, rebuildable)."""

    def __init__(
        self, path: Path, dimension: int, vectors: dict[str, np.ndarray], problem: str | None = None
    ):
        self.path = path
        self.dimension = dimension
        self._vectors = vectors
        self.problem = problem  # why a cache file that exists could not be read

    @classmethod
    def load(cls, path: Path, dimension: int) -> EmbeddingCache:
        vectors: dict[str, np.ndarray] = {}
        problem = None
        try:
            with np.load(path, allow_pickle=False) as data:
                hashes, matrix = data["hashes"], data["vectors"]
                if matrix.ndim == 2 and matrix.shape[1] == dimension and len(hashes) == len(matrix):
                    vectors = {str(digest): row for digest, row in zip(hashes, matrix)}
        except FileNotFoundError:
            pass  # no cache yet, or deleted: everything is embedded again
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
            # A damaged cache (a truncated .npz is no zip at all) costs only the embedding.
            problem = f"{type(exc).__name__}: {str(exc)[:120]}"
        return cls(path, dimension, vectors, problem)

    @classmethod
    def of(cls, graph, embedder: Embedder) -> EmbeddingCache:
        """The data directory's cache of `embedder`'s vectors (empty when it is refused)."""
        path = graph.layout.embedding_cache(embedder.model_id)
        if not graph.store.usable(path):
            return cls(path, embedder.dimension, {}, None)
        return cls.load(path, embedder.dimension)

    def __contains__(self, digest: str) -> bool:
        return digest in self._vectors

    def vector(self, digest: str) -> np.ndarray:
        return self._vectors[digest]

    def missing(self, wanted: dict) -> list[str]:
        """The texts of `wanted` (see _wanted) that have no cached vector, each once."""
        texts = dict.fromkeys(text for _, _, parts in wanted.values() for text in parts)
        return [text for text in texts if content_hash(text) not in self._vectors]

    def combined(self, texts: tuple[str, ...]) -> np.ndarray:
        """The mean of the texts' vectors: its inner product with a query is the mean of the
        texts' cosine similarities to it."""
        return np.mean([self._vectors[content_hash(text)] for text in texts], axis=0).astype(
            np.float32
        )

    def combined_rows(self, groups: list[tuple[str, ...]]) -> np.ndarray:
        """combined() of each group of one or two texts (indexed_texts), as the rows of one
        matrix, equal to it float for float."""
        if not groups:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors, digest = self._vectors, content_hash
        rows = np.vstack([vectors[digest(group[0])] for group in groups]).astype(np.float32)
        pairs = [number for number, group in enumerate(groups) if len(group) == 2]
        if pairs:
            second = np.vstack([vectors[digest(groups[number][1])] for number in pairs])
            rows[pairs] = (rows[pairs] + second.astype(np.float32)) / np.float32(2)
        for number, group in enumerate(groups):
            if len(group) > 2:
                rows[number] = self.combined(group)
        return rows

    def add(self, texts: list[str], vectors: np.ndarray) -> None:
        for text, vector in zip(texts, vectors):
            self._vectors[content_hash(text)] = vector

    def keep(self, digests: set[str]) -> None:
        self._vectors = {
            digest: vector for digest, vector in self._vectors.items() if digest in digests
        }

    def save(self, store) -> None:
        """Write the cache (through `store`, the data directory's)."""
        store.make_directory(self.path.parent)
        hashes = np.array(sorted(self._vectors), dtype="U16")
        matrix = (
            np.vstack([self._vectors[digest] for digest in hashes]).astype(np.float32)
            if len(hashes)
            else np.zeros((0, self.dimension), dtype=np.float32)
        )
        buffer = io.BytesIO()
        np.savez(buffer, hashes=hashes, vectors=matrix)
        store.write_bytes(self.path, buffer.getvalue())
