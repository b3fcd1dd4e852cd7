"""The embedding cache: each text's vector by the hash of its text, per model, kept beside
the index (embeddings/cache-<model>.npz). Derived state: a lost or damaged cache costs only
the embedding again.

Its vectors lie in files that are read where they lie, never held whole: the whole file,
parts written beside it (cache-<model>.part-<n>.npz) and a small recent file
(cache-<model>.recent.npz). A remember at 100,000 facts writes its few vectors to the
recent file, not 150 MB; an import or a first build that embeds hundreds of thousands of
texts saves them while it goes, as parts, so that it holds a part's vectors at a time, not
all of them. When the recent file would grow past a tenth of the cache (or
RECENT_MAX), its vectors become a part; when the parts pass PART_MAX, everything is
written again as one whole file, a block at a time.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import struct
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ..embed.base import Embedder
from ..storage import files
from ..storage.packed import numbers_in


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# The recent file holds at most this share of the cache's vectors (or RECENT_MIN of them),
# and never more than RECENT_MAX: past that, its vectors are written as a part.
RECENT_SHARE = 10
RECENT_MIN = 256
RECENT_MAX = 4096
# Parts beside the whole file before all of them are written again as one.
PART_MAX = 16
# Vectors read or written at a time when the whole file is written again.
BLOCK = 16_384
_HEX = re.compile(r"[0-9a-f]{16}")
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # a zip member's local header


@dataclass
class _Filed:
    """One cache file (the whole file or a part): its digests as sorted 64-bit keys, and
    where its vectors lie, read by row when asked for (never the whole matrix). The file
    stays open from when its digests were read, so the vectors read are those of the
    digests read even if another process replaced the file meanwhile."""

    path: Path
    handle: BinaryIO
    keys: np.ndarray  # uint64, sorted
    rows: np.ndarray  # int64: the file's row of each key
    kept: np.ndarray  # bool: False for a key `keep` left out
    member: zipfile.ZipInfo  # the vectors' member
    start: int  # byte offset of the member's data (its .npy header first)
    data: int  # byte offset of the vectors themselves
    count: int
    checked: bool = False  # the member's CRC was compared with the zip's


class EmbeddingCache:
    """Vectors by content hash for one model, kept beside the index (derived, rebuildable).

    Each file's digests are read at once, its vectors only when one of them is asked for,
    a row at a time from where it lies: after a remember, the index embeds a few new texts
    and needs none of the 100,000 vectors (200 MB) the files hold. A file is checked against
    its zip CRC before its first vector is used; one that turns out damaged counts as
    holding nothing, and its texts are embedded again.
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
        self._filed: list[_Filed] = []  # the whole file first, then the parts
        self._recent_read: frozenset[str] = frozenset()  # the digests the recent file holds

    @classmethod
    def load(cls, path: Path, dimension: int, recent_path: Path | None = None) -> EmbeddingCache:
        cache = cls(path, dimension, {}, None, recent_path=recent_path)
        for filed in (path, *part_paths(path)):
            cache._open(filed)
        if recent_path is not None:
            recent, recent_problem = _read(recent_path, dimension)
            cache._added = recent
            cache._recent_read = frozenset(recent)
            cache.problem = cache.problem or recent_problem
        return cache

    def _open(self, path: Path) -> None:
        """Read the digests of one file and where its vectors lie; a file of another
        model's dimension is left out (embedded again), a damaged one noted."""
        try:
            handle = open(path, "rb")  # noqa: SIM115  # held open: see _Filed
        except FileNotFoundError:
            return  # no cache yet, or deleted: everything is embedded again
        except OSError as exc:
            self.problem = self.problem or _problem(exc)
            return
        try:
            with np.load(handle, allow_pickle=False) as opened:
                hashes = opened["hashes"]
                member = opened.zip.getinfo("vectors.npy")
            shape, fortran, dtype, start, data = _member_layout(handle, member)
        except (*_DAMAGE, KeyError) as exc:
            handle.close()
            self.problem = self.problem or _problem(exc)
            return
        keys = _keys(hashes)
        if len(shape) != 2 or shape[1] != self.dimension or shape[0] != len(hashes):
            handle.close()
            return  # another model's cache under this name: embedded again
        if fortran or dtype != np.dtype("<f4") or data < 0 or keys is None:
            handle.close()
            self.problem = self.problem or f"{path.name}: not a cache file as this code writes"
            return
        order = np.argsort(keys, kind="stable")
        kept = np.ones(len(keys), dtype=bool)
        filed = _Filed(path, handle, keys[order], order, kept, member, start, data, len(keys))
        self._filed.append(filed)

    @classmethod
    def of(cls, graph, embedder: Embedder) -> EmbeddingCache:
        """The data directory's cache of `embedder`'s vectors (empty when it is refused)."""
        path = graph.layout.embedding_cache(embedder.model_id)
        if not graph.store.usable(path):
            return cls(path, embedder.dimension, {}, None)
        recent = graph.layout.recent_embeddings(embedder.model_id)
        return cls.load(path, embedder.dimension, recent if graph.store.usable(recent) else None)

    def _place(self, digest: str) -> tuple[_Filed, int] | None:
        """(file, row) of a digest the files hold, or None."""
        if not self._filed or not _HEX.fullmatch(digest):
            return None
        key = np.uint64(int(digest, 16))
        for filed in self._filed:
            at = int(np.searchsorted(filed.keys, key))
            if at < len(filed.keys) and filed.keys[at] == key and filed.kept[at]:
                return filed, int(filed.rows[at])
        return None

    def holds(self, keys: np.ndarray, *, check: bool = False) -> np.ndarray:
        """Whether a vector of each digest key (digest_keys) is cached, for many at once;
        `check`: the files holding any of them are first checked against their CRC (a
        damaged one holds nothing), as unreadable checks them."""
        keys = np.asarray(keys, dtype=np.uint64)
        found = np.zeros(len(keys), dtype=bool)
        for filed in list(self._filed):
            at = numbers_in(filed.keys, keys)
            here = at >= 0
            here[here] = filed.kept[at[here]]
            if check and here.any() and not self._checked(filed):
                continue
            found |= here
        if self._added:
            found |= np.isin(keys, digest_keys(self._added))
        return found

    def __contains__(self, digest: str) -> bool:
        return digest in self._added or self._place(digest) is not None

    def vector(self, digest: str) -> np.ndarray:
        held = self._added.get(digest)
        if held is not None:
            return held
        return self.vectors([digest])[0]

    def vectors(self, digests: list[str]) -> np.ndarray:
        """The vectors of `digests` (each cached: see unreadable) as the rows of one
        matrix, read from where they lie, file by file; KeyError for one not cached."""
        matrix = np.zeros((len(digests), self.dimension), dtype=np.float32)
        wanted: dict[int, list[tuple[int, int]]] = {}
        for number, digest in enumerate(digests):
            held = self._added.get(digest)
            if held is not None:
                matrix[number] = held
                continue
            place = self._place(digest)
            if place is None:
                raise KeyError(digest)
            wanted.setdefault(id(place[0]), []).append((number, place[1]))
        for filed in list(self._filed):
            asked = wanted.get(id(filed))
            if not asked:
                continue
            if not self._checked(filed):
                raise KeyError(digests[asked[0][0]])  # damaged: no longer counted as cached
            numbers, rows = (np.array(column, dtype=np.int64) for column in zip(*asked))
            matrix[numbers] = _rows_of(filed, self.dimension, rows)
        return matrix

    def _checked(self, filed: _Filed) -> bool:
        """Whether the file's vectors match its zip CRC (compared once, reading the file a
        block at a time); a file that does not is left out and the problem noted."""
        if filed.checked:
            return True
        try:
            crc, at, end = 0, filed.start, filed.start + filed.member.file_size
            while at < end:
                block = os.pread(filed.handle.fileno(), min(end - at, 1 << 20), at)
                if not block:
                    raise EOFError(f"{filed.path.name} ends inside its vectors")
                crc = zlib.crc32(block, crc)
                at += len(block)
            if crc != filed.member.CRC:
                raise zipfile.BadZipFile(f"Bad CRC-32 for file {filed.member.filename!r}")
        except _DAMAGE as exc:
            self.problem = _problem(exc)
            self._filed.remove(filed)
            filed.handle.close()
            return False
        filed.checked = True
        return True

    def missing(self, wanted: dict) -> list[str]:
        """The texts of `wanted` (see _wanted) that have no cached vector, each once (a
        vector a file lists counts as cached before it is read: see unreadable)."""
        texts = dict.fromkeys(text for _, _, parts in wanted.values() for text in parts)
        return [text for text in texts if content_hash(text) not in self]

    def unreadable(self, texts: Iterable[str]) -> list[str]:
        """The texts (each once) whose vector cannot be read: none is cached, or the file
        that lists it turns out damaged when its vectors are checked, which happens here
        when one of them is there (the caller is about to use them)."""
        texts = list(dict.fromkeys(texts))
        digests = [content_hash(text) for text in texts]
        for digest in digests:
            if digest not in self._added and (place := self._place(digest)) is not None:
                self._checked(place[0])
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
        digest = content_hash
        rows = self.vectors([digest(group[0]) for group in groups])
        pairs = [number for number, group in enumerate(groups) if len(group) == 2]
        if pairs:
            second = self.vectors([digest(groups[number][1]) for number in pairs])
            rows[pairs] = (rows[pairs] + second) / np.float32(2)
        for number, group in enumerate(groups):
            if len(group) > 2:
                rows[number] = self.combined(group)
        return rows

    @property
    def held(self) -> int:
        """How many vectors this process holds that no file but the recent one has."""
        return len(self._added) - len(self._recent_read & self._added.keys())

    def add(self, texts: list[str], vectors: np.ndarray) -> None:
        for text, vector in zip(texts, vectors):
            self._added[content_hash(text)] = vector

    def keep(self, digests: Iterable[str], keys: np.ndarray | None = None) -> None:
        """Leave out every vector but those of `digests` and of `keys` (digest_keys of
        more of them): dropped from the files when they are next written whole."""
        kept = digest_keys(digests)
        if keys is not None:
            kept = np.concatenate([kept, keys.astype(np.uint64)])
        kept = np.unique(kept)
        added = [digest for digest in self._added if _HEX.fullmatch(digest)]
        chosen = np.isin(digest_keys(added), kept)
        self._added = {digest: self._added[digest] for digest, ok in zip(added, chosen) if ok}
        for filed in self._filed:
            filed.kept &= np.isin(filed.keys, kept)

    def _new(self) -> list[str]:
        """The digests added that no file but the recent one holds."""
        return sorted(d for d in self._added if self._place(d) is None)

    def save(self, store) -> None:
        """Write the cache (through `store`, the data directory's, under its lock): the
        vectors no file holds to the recent file while they are few, else as a part, else
        (too many parts, a damaged file, or no whole file yet) everything written whole."""
        if not store.usable(self.path):
            return
        store.make_directory(self.path.parent)
        new = self._new()
        whole = bool(self._filed) and self._filed[0].path == self.path
        if self.recent_path is not None and whole and self.problem is None:
            share = max(RECENT_MIN, sum(f.count for f in self._filed) // RECENT_SHARE)
            if len(new) <= min(share, RECENT_MAX):
                store.write_bytes(self.recent_path, _npz(new, self.vectors(new)))
                return
            if len(self._filed) <= PART_MAX:
                self._write_part(store, new)
                return
        self._write_whole(store)

    def _write_part(self, store, digests: list[str]) -> None:
        """`digests`' vectors written as the next part; the recent file (whose vectors
        they include) removed."""
        taken = [_part_number(self.path, path) for path in part_paths(self.path)]
        path = self.path.with_name(f"{self.path.stem}.part-{max(taken, default=0) + 1}.npz")
        store.write_bytes(path, _npz(digests, self.vectors(digests)))
        if self.recent_path is not None and self.recent_path.exists():
            store.delete(self.recent_path)
        self._added, self._recent_read = {}, frozenset()
        self._open(path)

    def _write_whole(self, store) -> None:
        """Every vector kept, written as one whole file a block at a time (read from where
        each lies), the parts and the recent file removed after it."""
        for filed in list(self._filed):
            self._checked(filed)  # a damaged file's vectors are left out, embedded again
        # Every digest once, sorted (as their 16 hex digits sort), as 64-bit keys: a
        # million as strings in a set took 200 MB.
        keys = np.unique(
            np.concatenate(
                [digest_keys(self._added), *(filed.keys[filed.kept] for filed in self._filed)]
            )
        )

        def blocks():
            for start in range(0, len(keys), BLOCK):
                yield self.vectors([f"{key:016x}" for key in keys[start : start + BLOCK].tolist()])

        hashes = {"hashes": _hex_digests(keys)}
        shape = (len(keys), self.dimension)
        write = files.npz_producer(hashes, "vectors", shape, blocks)
        store.write_bytes(self.path, write)
        for path in part_paths(self.path):
            store.delete(path)
        if self.recent_path is not None and self.recent_path.exists():
            store.delete(self.recent_path)
        for filed in self._filed:
            filed.handle.close()
        self._added, self._filed, self._recent_read = {}, [], frozenset()
        self._open(self.path)

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


def part_paths(path: Path) -> list[Path]:
    """The parts written beside the whole cache file `path`, oldest first."""
    found = [
        (_part_number(path, part), part) for part in path.parent.glob(f"{path.stem}.part-*.npz")
    ]
    return [part for number, part in sorted(found) if number > 0]


def _part_number(path: Path, part: Path) -> int:
    """The number of a part of the cache file `path` (0: not a part's name)."""
    number = part.name[len(path.stem) + len(".part-") : -len(".npz")]
    return int(number) if number.isdigit() else 0


def cache_files(layout, model_id: str) -> list[Path]:
    """Every file of a model's embedding cache: the whole, its parts, the recent one."""
    whole = layout.embedding_cache(model_id)
    return [whole, *part_paths(whole), layout.recent_embeddings(model_id)]


def _npz(digests: list[str], matrix: np.ndarray) -> memoryview:
    hashes = np.array(digests, dtype="U16")
    buffer = io.BytesIO()
    np.savez(buffer, hashes=hashes, vectors=np.asarray(matrix, dtype=np.float32))
    return buffer.getbuffer()  # not getvalue(): a copy of the whole


def digest_keys(digests: Iterable[str]) -> np.ndarray:
    """Content hashes (content_hash) as 64-bit keys: 8 bytes each where a str takes 65.
    What is not such a hash has no key and is left out."""
    keys = _keys(np.array([d for d in digests if _HEX.fullmatch(d)], dtype="U16"))
    assert keys is not None  # only digests of sixteen hex digits are given to it
    return keys


def _hex_digests(keys: np.ndarray) -> np.ndarray:
    """64-bit keys as the digests they are (16 lowercase hex digits each), as a "U16" array,
    made a column of digits at a time, not a string each."""
    keys = np.asarray(keys, dtype=np.uint64)
    digits = np.empty((len(keys), 16), dtype=np.uint8)
    for column in range(16):
        shift = np.uint64(4 * (15 - column))
        digits[:, column] = (keys >> shift) & np.uint64(15)
    hexadecimal = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    return hexadecimal[digits].view("S16").reshape(len(keys)).astype("U16")


def _keys(hashes: np.ndarray) -> np.ndarray | None:
    """Sixteen-hex-digit digests as 64-bit keys (None if one is not such a digest)."""
    if not len(hashes):
        return np.zeros(0, dtype=np.uint64)
    raw = np.frombuffer(np.asarray(hashes).astype("S16").tobytes(), dtype=np.uint8)
    raw = raw.reshape(-1, 16)
    nibbles = np.full(256, 255, dtype=np.uint8)
    nibbles[np.frombuffer(b"0123456789", np.uint8)] = np.arange(10)
    nibbles[np.frombuffer(b"abcdef", np.uint8)] = np.arange(10, 16)
    values = nibbles[raw]
    if (values == 255).any():
        return None
    keys = np.zeros(len(raw), dtype=np.uint64)
    for column in range(16):
        keys = (keys << np.uint64(4)) | values[:, column].astype(np.uint64)
    return keys


def _member_layout(handle: BinaryIO, member: zipfile.ZipInfo) -> tuple:
    """(shape, fortran order, dtype, byte offset of the member's data, byte offset of its
    array's data) of a stored .npz member, from its headers; the last is -1 for a
    compressed member."""
    from numpy.lib import format as npy

    handle.seek(member.header_offset)
    fields = _LOCAL_HEADER.unpack(handle.read(_LOCAL_HEADER.size))
    if fields[0] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"{member.filename}: no local header")
    start = handle.seek(fields[10] + fields[11], os.SEEK_CUR)  # past its name and extra field
    major, _ = npy.read_magic(handle)
    if major == 1:
        shape, fortran, dtype = npy.read_array_header_1_0(handle)
    else:
        shape, fortran, dtype = npy.read_array_header_2_0(handle)
    data = handle.tell() if member.compress_type == zipfile.ZIP_STORED else -1
    return shape, fortran, dtype, start, data


def _rows_of(filed: _Filed, dimension: int, rows: np.ndarray) -> np.ndarray:
    """The file's vectors at `rows`, each run of consecutive rows read at once (pread, not
    a mapping: the pages of a file of half a million vectors that a block's rows lie on
    would count as the process's while it is mapped)."""
    size = dimension * 4
    chosen = np.empty((len(rows), dimension), dtype=np.float32)
    order = np.argsort(rows, kind="stable")
    ordered = rows[order]
    starts = [0, *(np.flatnonzero(np.diff(ordered) != 1) + 1).tolist(), len(rows)]
    fd = filed.handle.fileno()
    for first, end in zip(starts, starts[1:]):
        wanted = (end - first) * size
        data = os.pread(fd, wanted, filed.data + int(ordered[first]) * size)
        if len(data) != wanted:
            raise EOFError(f"{filed.path.name} ends inside its vectors")
        chosen[order[first:end]] = np.frombuffer(data, dtype="<f4").reshape(-1, dimension)
    return chosen


# How a damaged cache file fails to read (a truncated .npz is no zip at all).
_DAMAGE = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error)


def _problem(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:120]}"


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
