"""The embedding cache: each text's vector by the hash of its text, per model, kept beside
the index (embeddings/cache-<model>.npz). Derived state: a lost or damaged cache costs only
the embedding again.

Vectors added since the file was last written whole go to a small file beside it
(cache-<model>.recent.npz) while they are few: a remember at 100,000 facts then writes a few
vectors, not 150 MB. When they grow past a tenth of the cache, the whole file is written
again with them and the recent file is removed.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ..embed.base import Embedder


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# The recent file holds at most this share of the cache's vectors (or RECENT_MIN of them).
RECENT_SHARE = 10
RECENT_MIN = 256


class EmbeddingCache:
    """Vectors by content hash for one model, kept beside the index (derived, rebuildable).

    The whole file's digests are read at once, its vectors only when one of them is asked
    for: after a remember, the index embeds a few new texts and needs none of the 100,000
    vectors (200 MB) the file holds. The file stays open until then, so the vectors read
    are those of the digests read even if another process replaced the file meanwhile.
    """

    def __init__(
        self,
        path: Path,
        dimension: int,
        vectors: dict[str, np.ndarray],
        problem: str | None = None,
        *,
        recent_path: Path | None = None,
    ):
        self.path = path
        self.dimension = dimension
        self._added = vectors  # the recent file's vectors and those added since
        self.problem = problem  # why a cache file that exists could not be read
        self.recent_path = recent_path  # None: every save writes the whole file
        self._rows: dict[str, int] = {}  # digest -> its row in the whole file
        self._whole: frozenset[str] = frozenset()  # the digests the whole file holds
        self._opened = None  # the whole file (numpy's NpzFile), until its vectors are read
        self._matrix: np.ndarray | None = None

    @classmethod
    def load(cls, path: Path, dimension: int, recent_path: Path | None = None) -> EmbeddingCache:
        cache = cls(path, dimension, {}, None, recent_path=recent_path)
        cache._open_whole()
        if recent_path is not None:
            recent, recent_problem = _read(recent_path, dimension)
            cache._added = recent
            cache.problem = cache.problem or recent_problem
        return cache

    def _open_whole(self) -> None:
        try:
            opened = np.load(self.path, allow_pickle=False)
        except FileNotFoundError:
            return  # no cache yet, or deleted: everything is embedded again
        except _DAMAGE as exc:
            self.problem = _problem(exc)
            return
        try:
            hashes = opened["hashes"]
            shape, _, _ = _member_shape(opened, "vectors")
        except (*_DAMAGE, KeyError) as exc:
            opened.close()
            self.problem = _problem(exc)
            return
        if len(shape) != 2 or shape[1] != self.dimension or shape[0] != len(hashes):
            opened.close()
            return  # another model's cache under this name: embedded again
        self._rows = {str(digest): row for row, digest in enumerate(hashes)}
        self._whole = frozenset(self._rows)
        self._opened = opened

    def _whole_matrix(self) -> np.ndarray:
        if self._matrix is None:
            opened, self._opened = self._opened, None
            try:
                matrix = opened["vectors"] if opened is not None else None
            except _DAMAGE as exc:
                self.problem, matrix = _problem(exc), None
            finally:
                if opened is not None:
                    opened.close()
            if matrix is None:  # damaged past its header: its vectors are embedded again
                self._rows = {}
                matrix = np.zeros((0, self.dimension), dtype=np.float32)
            self._matrix = matrix
        return self._matrix

    @classmethod
    def of(cls, graph, embedder: Embedder) -> EmbeddingCache:
        """The data directory's cache of `embedder`'s vectors (empty when it is refused)."""
        path = graph.layout.embedding_cache(embedder.model_id)
        if not graph.store.usable(path):
            return cls(path, embedder.dimension, {}, None)
        recent = graph.layout.recent_embeddings(embedder.model_id)
        return cls.load(path, embedder.dimension, recent if graph.store.usable(recent) else None)

    def __contains__(self, digest: str) -> bool:
        return digest in self._added or digest in self._rows

    def vector(self, digest: str) -> np.ndarray:
        held = self._added.get(digest)
        if held is not None:
            return held
        row = self._rows[digest]
        matrix = self._whole_matrix()
        if digest not in self._rows:  # the file's vectors turned out unreadable
            raise KeyError(digest)
        return matrix[row]

    def missing(self, wanted: dict) -> list[str]:
        """The texts of `wanted` (see _wanted) that have no cached vector, each once (a
        vector the whole file lists counts as cached before it is read: see unreadable)."""
        texts = dict.fromkeys(text for _, _, parts in wanted.values() for text in parts)
        return [text for text in texts if content_hash(text) not in self]

    def unreadable(self, texts: Iterable[str]) -> list[str]:
        """The texts (each once) whose vector cannot be read: none is cached, or the whole
        file that lists it turns out damaged when its vectors are read, which happens here
        when one of them is there (the caller is about to use them)."""
        texts = list(dict.fromkeys(texts))
        digests = [content_hash(text) for text in texts]
        if any(digest not in self._added and digest in self._rows for digest in digests):
            self._whole_matrix()  # clears the rows when the vectors are unreadable
        return [text for text, digest in zip(texts, digests) if digest not in self]

    def combined(self, texts: tuple[str, ...]) -> np.ndarray:
        """The mean of the texts' vectors: its inner product with a query is the mean of the
        texts' cosine similarities to it."""
        return np.mean([self.vector(content_hash(text)) for text in texts], axis=0).astype(
            np.float32
        )

    def combined_rows(self, groups: list[tuple[str, ...]]) -> np.ndarray:
        """combined() of each group of one or two texts (indexed_texts), as the rows of one
        matrix, equal to it float for float."""
        if not groups:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vector, digest = self.vector, content_hash
        rows = np.vstack([vector(digest(group[0])) for group in groups]).astype(np.float32)
        pairs = [number for number, group in enumerate(groups) if len(group) == 2]
        if pairs:
            second = np.vstack([vector(digest(groups[number][1])) for number in pairs])
            rows[pairs] = (rows[pairs] + second.astype(np.float32)) / np.float32(2)
        for number, group in enumerate(groups):
            if len(group) > 2:
                rows[number] = self.combined(group)
        return rows

    def add(self, texts: list[str], vectors: np.ndarray) -> None:
        for text, vector in zip(texts, vectors):
            self._added[content_hash(text)] = vector

    def keep(self, digests: set[str]) -> None:
        self._added = {digest: v for digest, v in self._added.items() if digest in digests}
        self._rows = {digest: row for digest, row in self._rows.items() if digest in digests}

    def save(self, store) -> None:
        """Write the cache (through `store`, the data directory's): the vectors the whole
        file lacks to the recent file while they are few, else the whole file."""
        store.make_directory(self.path.parent)
        recent = sorted(digest for digest in self._added if digest not in self._whole)
        if (
            self.recent_path is not None
            and self._whole
            and self.problem is None
            and len(recent) <= max(RECENT_MIN, len(self._whole) // RECENT_SHARE)
        ):
            store.write_bytes(self.recent_path, self._npz(recent))
            return
        if self._rows:
            self._whole_matrix()  # before the whole file is replaced
        digests = sorted(self._rows.keys() | self._added.keys())
        store.write_bytes(self.path, self._npz(digests))
        self._whole = frozenset(digests)
        if self.recent_path is not None and self.recent_path.exists():
            store.delete(self.recent_path)

    def note_mended(self, store) -> None:
        """Tell the audit log (a repair, so health.json lists it) that a cache file which
        could not be read was written again, its vectors embedded anew; nothing when it
        was read whole."""
        if self.problem is None:
            return
        store.touched(self.path)
        store.note(
            f"{store.layout.relative(self.path)} could not be read ({self.problem}); its "
            f"vectors were embedded again",
            repair=True,
        )

    def _npz(self, digests: list[str]) -> memoryview:
        hashes = np.array(digests, dtype="U16")
        matrix = (
            np.vstack([self.vector(digest) for digest in digests]).astype(np.float32)
            if digests
            else np.zeros((0, self.dimension), dtype=np.float32)
        )
        buffer = io.BytesIO()
        np.savez(buffer, hashes=hashes, vectors=matrix)
        return buffer.getbuffer()  # not getvalue(): a copy of 150 MB at 100,000 facts


# How a damaged cache file fails to read (a truncated .npz is no zip at all).
_DAMAGE = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error)


def _problem(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:120]}"


def _member_shape(opened, name: str) -> tuple:
    """(shape, fortran order, dtype) of an .npz member, read from its header alone."""
    from numpy.lib import format as npy

    with opened.zip.open(f"{name}.npy") as member:
        major, _ = npy.read_magic(member)
        if major == 1:
            return npy.read_array_header_1_0(member)
        return npy.read_array_header_2_0(member)


def _read(path: Path, dimension: int) -> tuple[dict[str, np.ndarray], str | None]:
    """The vectors of one (small) cache file by digest, and why a file that exists could
    not be read."""
    vectors: dict[str, np.ndarray] = {}
    problem = None
    try:
        with np.load(path, allow_pickle=False) as data:
            hashes, matrix = data["hashes"], data["vectors"]
            if matrix.ndim == 2 and matrix.shape[1] == dimension and len(hashes) == len(matrix):
                vectors = {str(digest): row for digest, row in zip(hashes, matrix)}
    except FileNotFoundError:
        pass  # no cache yet, or deleted: everything is embedded again
    except (*_DAMAGE, KeyError) as exc:
        problem = _problem(exc)
    return vectors, problem
