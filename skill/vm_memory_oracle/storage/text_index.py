"""The full-text index: a tantivy index in a directory of its own, ranking by BM25.

A document is a fact's lexical terms (model.text.tokens of its sentence, subject, predicate,
object and the turn it came from) joined by spaces, read back by a whitespace tokenizer, so
tantivy sees exactly the project's terms, English words and CJK characters and pairs alike.
Each document carries the fact's vector id (a fast field: hits are mapped to facts without
reading stored documents) and the same id as a raw text key, which deletion is by (tantivy
deletes nothing by a term of an integer field).

tantivy is the only writer of its directory, one writer at a time: writes are made under the
data directory's lock, by a writer opened on the index as it is on disk now (a writer on an
older view would commit over what another process wrote), and each write ends by waiting for
its merges and removing the files no commit uses any more. Readers open the index without a
lock. The whitespace tokenizer is not kept in the index, so every open registers it again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..errors import TextIndexCorrupt
from .files import make_directory

TOKENIZER = "terms"
BODY = "body"
KEY = "key"
VECTOR_ID = "vid"
WRITER_HEAP = 64_000_000


def _failure(exc: BaseException) -> bool:
    """Whether `exc` is the index failing (tantivy raises ValueError, and PanicException,
    a BaseException, on a damaged file), not the process being stopped."""
    return not isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit, MemoryError))


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def _schema(tantivy):
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field(VECTOR_ID, fast=True)
    builder.add_text_field(KEY, tokenizer_name="raw", index_option="basic")
    builder.add_text_field(BODY, tokenizer_name=TOKENIZER, index_option="freq")
    return builder.build()


def _register(tantivy, index) -> None:
    index.register_tokenizer(
        TOKENIZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
    )


def key_of(vector_id: int) -> str:
    return format(vector_id, "x")


class TextIndex:
    """An open full-text index: in a directory, or in memory (path None) for a memory whose
    index directory may not be written."""

    def __init__(self, index, schema, path: Path | None):
        self._index = index
        self._schema = schema
        self.path = path
        self._searcher = index.searcher()

    @classmethod
    def create(cls, path: Path | None) -> TextIndex:
        with _private_files():
            return cls._create(path)

    @classmethod
    def _create(cls, path: Path | None) -> TextIndex:
        """A new empty index; in `path` (made if missing, emptied of an old index first by
        the caller) or in memory."""
        import tantivy

        schema = _schema(tantivy)
        try:
            if path is None:
                index = tantivy.Index(schema)
            else:
                make_directory(path)
                index = tantivy.Index(schema, path=str(path), reuse=False)
        except BaseException as exc:
            if not _failure(exc):
                raise
            raise TextIndexCorrupt(_one_line(exc)) from None
        _register(tantivy, index)
        return cls(index, schema, path)

    @classmethod
    def open(cls, path: Path) -> TextIndex:
        import tantivy

        if not (path / "meta.json").is_file():
            raise TextIndexCorrupt("meta.json is missing")
        try:
            meta = json.loads((path / "meta.json").read_bytes())
            if {field.get("name") for field in meta.get("schema", [])} != {BODY, KEY, VECTOR_ID}:
                raise TextIndexCorrupt("its fields are not this version's")
            index = tantivy.Index.open(str(path))
            _register(tantivy, index)
            return cls(index, index.schema, path)
        except TextIndexCorrupt:
            raise
        except BaseException as exc:
            if not _failure(exc):
                raise
            raise TextIndexCorrupt(_one_line(exc)) from None

    def __len__(self) -> int:
        return int(self._searcher.num_docs)

    def search(self, terms: Iterable[str], limit: int) -> tuple[np.ndarray, np.ndarray]:
        """(vector ids, BM25 scores) of the `limit` best documents holding any of `terms`,
        best first."""
        import tantivy

        clauses = [
            (tantivy.Occur.Should, tantivy.Query.term_query(self._schema, BODY, term, "freq"))
            for term in sorted(set(terms))
        ]
        if not clauses or limit <= 0:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.float64)
        try:
            hits = self._searcher.search(tantivy.Query.boolean_query(clauses), limit).hits
            ids = self._searcher.fast_field_values(VECTOR_ID, [address for _, address in hits])
        except BaseException as exc:
            if not _failure(exc):
                raise
            raise TextIndexCorrupt(_one_line(exc)) from None
        return (
            np.array(ids, dtype=np.uint64),
            np.array([score for score, _ in hits], dtype=np.float64),
        )

    def write(self, removed: Iterable[int], added: Iterable[tuple[int, str]]) -> None:
        """Delete the documents of the `removed` vector ids and add (vector id, body) ones,
        in one commit."""
        with _private_files():
            self._write(removed, added)

    def _write(self, removed: Iterable[int], added: Iterable[tuple[int, str]]) -> None:
        import tantivy

        try:
            if self.path is not None:  # the index as it is on disk now
                self._index = tantivy.Index.open(str(self.path))
                _register(tantivy, self._index)
            writer = self._index.writer(heap_size=WRITER_HEAP, num_threads=1)
            for vector_id in removed:
                writer.delete_documents_by_term(KEY, key_of(vector_id))
            for vector_id, body in added:
                document = tantivy.Document()
                document.add_unsigned(VECTOR_ID, vector_id)
                document.add_text(KEY, key_of(vector_id))
                document.add_text(BODY, body)
                writer.add_document(document)
            writer.commit()
            writer.wait_merging_threads()
            if self.path is not None:
                writer = self._index.writer(heap_size=WRITER_HEAP, num_threads=1)
                writer.garbage_collect_files()
                writer.wait_merging_threads()
            del writer
            self._index.reload()
            self._searcher = self._index.searcher()
        except BaseException as exc:
            if not _failure(exc):
                raise
            raise TextIndexCorrupt(_one_line(exc)) from None

    def files(self) -> dict[str, list[int]]:
        """Each file of the index directory and its [size, mtime in ns]: what was written, so
        a truncated or replaced file is told before tantivy reads it."""
        if self.path is None:
            return {}
        return file_stamps(self.path)


@contextmanager
def _private_files() -> Iterator[None]:
    """tantivy creates its files as the umask allows: for the block, the umask lets only
    the owner read and write them (0600), as every file the store writes."""
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)


def file_stamps(path: Path) -> dict[str, list[int]]:
    stamps = {}
    for entry in os.scandir(path):
        if entry.is_file(follow_symlinks=False) and not entry.name.startswith(".tantivy-"):
            stat = entry.stat(follow_symlinks=False)
            stamps[entry.name] = [stat.st_size, stat.st_mtime_ns]
    return stamps


def remove_index(path: Path) -> None:
    """Remove an index directory's files (tantivy's own and lock files), and the directory."""
    if not os.path.lexists(path):
        return
    if path.is_symlink() or not path.is_dir():
        os.unlink(path)
        return
    for entry in os.scandir(path):
        if entry.is_dir(follow_symlinks=False):
            raise TextIndexCorrupt(f"holds a directory {entry.name!r}")
        os.unlink(entry.path)
    os.rmdir(path)
