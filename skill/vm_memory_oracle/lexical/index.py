"""The full-text index kept in step with the facts, beside the vector index.

Every current fact has one document in state/cache/text-index/ (storage/text_index.py: its
lexical terms, ranked by BM25). state/cache/text-index.npz says what the index holds: each
document's vector id and content hash, the facts file it was brought in step with (its
stat and the hash of its bytes) and the index's own files (size and mtime). A command finds
the index in step when the facts file is the one recorded (same stat, or else the same
bytes) and the index's files are as written; otherwise, under the data directory's lock,
only the documents of facts added, changed or gone are written. Without index and record
it is built (a first build); it is built again, a repair noted in the audit log and so in
health.json, when one of them is missing, a file of it was truncated or replaced, tantivy
cannot open it, or it holds another number of documents than recorded.

A write first empties the record, so a write cut short leaves an index with an empty one,
which the next command builds again (not a repair: the command cut short said so).
"""

from __future__ import annotations

import io
import json
import os
import sys
import zipfile
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from ..errors import TextIndexCorrupt
from ..graph import KnowledgeGraph
from ..model.fact import Fact, stable_hash, vector_id
from ..model.text import tokens
from ..storage import derived, files, snapshot
from ..storage.store import Store
from ..storage.text_index import TextIndex, file_stamps

FIRST_BUILD = "no full-text index yet"
FORCED = "a rebuild was asked for"
# The record was made by other code (an upgrade): built again, which is no repair.
OTHER_CODE = "the full-text index was made by another version"
# The record is emptied before a write and written after it: an empty one is a write cut
# short (the command that was cut said so), not damage.
INTERRUPTED = "its last write was cut short"


@dataclass
class TextIndexReport:
    documents: int = 0
    added: int = 0
    removed: int = 0
    rebuilt: str | None = None  # why the index was built from scratch, if it was
    problem: str | None = None  # why there is no full-text index for this command
    warnings: list[str] = field(default_factory=list)  # for the command's output

    @property
    def repaired(self) -> bool:
        """True when an index that should have been usable had to be built again."""
        return self.rebuilt not in (None, FIRST_BUILD, FORCED, INTERRUPTED, OTHER_CODE)


def document_text(fact: Fact) -> str:
    """What a fact is found by in words: its sentence, subject, predicate, object and the
    turn it came from (as its vector reads it too)."""
    predicate = fact.predicate.replace("_", " ")
    return " ".join((fact.sentence, fact.subject, predicate, fact.object, fact.context or ""))


def document_body(fact: Fact) -> str:
    """The fact's lexical terms (model.text.tokens) as the index reads them."""
    return " ".join(tokens(document_text(fact)))


def document_digest(fact: Fact) -> int:
    """A 63-bit hash of the texts a fact's document is made from."""
    data = "\x1f".join(
        (fact.sentence, fact.subject, fact.predicate, fact.object, fact.context or "")
    ).encode("utf-8")
    return stable_hash(data)


@dataclass
class _Record:
    """What text-index.npz says the index holds: each document's vector id and content
    hash as arrays (a recall that finds the index in step reads no more of them)."""

    vids: np.ndarray  # uint64
    digests: np.ndarray  # uint64, in the same order
    facts_key: list | None
    facts_hash: str
    files: dict[str, list[int]]


@cache
def _text_layout() -> int:
    """What the documents and the record are made by (storage/derived.layout_of): the
    record's shape, this module and the tokens the documents hold."""
    from ..model import text

    return derived.layout_of(_Record, (sys.modules[__name__], text))


def _record_layout(store: Store) -> int | None:
    """The layout the record on disk names, or None when it names none or is unreadable."""
    try:
        with np.load(store.layout.text_index_state, allow_pickle=False) as held:
            layout = json.loads(held["head"].tobytes().decode("utf-8")).get("layout")
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
        return None
    return layout if isinstance(layout, int) else None


def _read_record(store: Store) -> _Record | None:
    path = store.layout.text_index_state
    if not store.usable(path):
        return None
    try:
        with np.load(path, allow_pickle=False) as held:
            head = json.loads(held["head"].tobytes().decode("utf-8"))
            vids, digests = held["vids"], held["digests"]
        if head.get("layout") != _text_layout() or len(vids) != len(digests):
            return None
        return _Record(
            vids,
            digests,
            head["facts_key"],
            head["facts_hash"],
            head["files"],
        )
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
        return None


def _record_bytes(record: _Record) -> bytes:
    head = {
        "layout": _text_layout(),
        "facts_key": record.facts_key,
        "facts_hash": record.facts_hash,
        "files": record.files,
    }
    out = io.BytesIO()
    np.savez(
        out,
        head=np.frombuffer(json.dumps(head).encode("utf-8"), dtype=np.uint8),
        vids=record.vids.astype(np.uint64),
        digests=record.digests.astype(np.uint64),
    )
    return out.getvalue()


def _emptied(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return False


def _facts_hash(path: Path) -> str:
    return files.file_digest(path) or ""  # "": no facts file


def _facts_key(path: Path) -> list | None:
    key = snapshot.file_key(path)
    return None if key is None else list(key)


def _matches_facts(graph: KnowledgeGraph, record: _Record) -> bool:
    """Whether the index was brought in step with the facts file as it is now: the same
    file (stat), or else the same bytes."""
    path = graph.layout.facts
    if record.facts_key is not None and record.facts_key == _facts_key(path):
        return True
    return record.facts_hash == _facts_hash(path)


def _files_problem(directory: Path, record: _Record) -> str | None:
    """Why the index's files are not the ones written, or None."""
    if not (directory / "meta.json").is_file():
        return "is missing"
    found = file_stamps(directory)
    for name, stamp in sorted(record.files.items()):
        if name not in found:
            return f"lost its file {name}"
        if found[name] != stamp:
            return f"has its file {name} changed since it was written ({found[name][0]} bytes)"
    return None


def _examine(store: Store) -> tuple[TextIndex | None, _Record | None, str | None]:
    """The index on disk and its record, or why it cannot be used as it is: FIRST_BUILD
    (neither exists), INTERRUPTED (an emptied record), else the damage found."""
    layout = store.layout
    directory = layout.text_index_dir
    name = layout.relative(directory)
    record = _read_record(store)
    if record is None:
        if not os.path.lexists(directory) and not os.path.lexists(layout.text_index_state):
            return None, None, FIRST_BUILD
        if _emptied(layout.text_index_state):
            return None, None, INTERRUPTED
        if _record_layout(store) not in (None, _text_layout()):
            return None, None, OTHER_CODE
        return None, None, f"{layout.relative(layout.text_index_state)} is missing or unreadable"
    problem = _files_problem(directory, record)
    if problem is not None:
        return None, record, f"{name} {problem}"
    try:
        index = TextIndex.open(directory)
    except TextIndexCorrupt as exc:
        return None, record, f"{name} could not be read ({exc})"
    if len(index) != len(record.vids):
        return (
            None,
            record,
            f"{name} holds {len(index)} documents where {len(record.vids)} were written",
        )
    return index, record, None


def _in_step(graph: KnowledgeGraph) -> TextIndex | None:
    """The index as it is, when it is in step with the facts (read without the lock). The
    index opened is kept for the process while its record file is unchanged
    (storage/derived.Derived, in memory): a long-lived process (the agent's, a benchmark)
    opens it once per version, and checks only that its files are still the ones written."""
    directory = graph.layout.text_index_dir
    if not graph.store.usable(directory):
        return None
    opened: derived.Derived[tuple[_Record, TextIndex]] = derived.Derived(
        directory / "opened",  # a name only: kept in memory, never written
        layout=_text_layout(),
        sources=(graph.layout.text_index_state,),
        disk=False,
    )
    key = opened.key()
    held = opened.held(key)
    if held is not None:
        record, index = held
        if _files_problem(directory, record):
            return None
    else:
        found, examined, _ = _examine(graph.store)
        if found is None or examined is None:
            return None
        record, index = examined, found
        opened.keep(key, (record, index))
    return index if _matches_facts(graph, record) else None


def _load(graph: KnowledgeGraph, force: bool) -> tuple[TextIndex, _Record | None, str | None]:
    """The index on disk with its record, or an empty one and the reason to build it."""
    store = graph.store
    directory = graph.layout.text_index_dir
    if force:
        reason: str | None = FORCED
    elif not store.usable(directory):
        reason = f"{graph.layout.relative(directory)} is refused"
    else:
        index, record, reason = _examine(store)
        if index is not None:
            return index, record, None
    return store.new_text_index(directory), None, reason


def update_text_index(
    graph: KnowledgeGraph, *, force: bool = False
) -> tuple[TextIndex | None, TextIndexReport]:
    """Bring the full-text index in step with the facts, writing only what changed.

    Returns the index (None when tantivy cannot be used: report.problem says why) and what
    was done. A memory whose lock or index directory is refused gets an index built in
    memory for this command, with a warning.
    """
    report = TextIndexReport()
    try:
        import tantivy  # noqa: F401
    except ImportError as exc:
        report.problem = f"the tantivy package cannot be imported ({exc})"
        return None, report
    if not force:
        ready = _in_step(graph)
        if ready is not None:
            report.documents = len(ready)
            return ready, report
    lock = graph.store.refused(graph.layout.write_lock)
    try:
        if lock is not None:  # a memory that cannot be locked is read, never written
            report.warnings.append(
                f"{graph.layout.relative(lock.path)}: {lock.problem}; the full-text index "
                f"was built for this command only ({lock.fix})"
            )
            index = TextIndex.create(None)
            wanted = _Wanted.of(graph.store.facts_passing())
            index.write([], wanted.documents(np.arange(len(wanted))))
            report.added = report.documents = len(index)
            report.rebuilt = f"{graph.layout.relative(lock.path)} is refused"
            return index, report
        with graph.store.locked("index"):
            return _bring_in_step(graph, force, report)
    except TextIndexCorrupt as exc:
        report.problem = f"the full-text index could not be written ({exc})"
        return None, report


@dataclass(frozen=True)
class _Wanted:
    """The documents the current facts want, as columns: each one's vector id and content
    hash, and the number among the facts of its Fact (of two with one vector id, the
    later); the facts may be read as a pass goes (store.facts_passing), so none is held
    here."""

    facts: Sequence[Fact]
    numbers: np.ndarray  # int64
    vids: np.ndarray  # uint64
    digests: np.ndarray  # uint64

    @classmethod
    def of(cls, facts: Sequence[Fact]) -> _Wanted:
        numbers, vids, digests = array("q"), array("Q"), array("Q")
        for number, fact in enumerate(facts):
            if fact.current:
                numbers.append(number)
                vids.append(vector_id(fact.id))
                digests.append(document_digest(fact))
        vid_column = np.frombuffer(vids, dtype=np.uint64)
        last = derived.last_of_each(vid_column)
        return cls(
            facts,
            np.frombuffer(numbers, dtype=np.int64)[last],
            vid_column[last],
            np.frombuffer(digests, dtype=np.uint64)[last],
        )

    def __len__(self) -> int:
        return len(self.numbers)

    def documents(self, places: np.ndarray) -> Iterator[tuple[int, str]]:
        """(vector id, body) of the documents at `places`, made as the index takes them."""
        for place in places.tolist():
            yield int(self.vids[place]), document_body(self.facts[int(self.numbers[place])])


def _bring_in_step(
    graph: KnowledgeGraph, force: bool, report: TextIndexReport
) -> tuple[TextIndex, TextIndexReport]:
    layout, store = graph.layout, graph.store
    facts_key = _facts_key(layout.facts)  # before reading: a later change is seen next time
    facts_hash = _facts_hash(layout.facts)
    wanted = _Wanted.of(graph.store.facts_passing())
    index, record, reason = _load(graph, force)
    nothing = np.zeros(0, dtype=np.uint64)
    known_vids = record.vids if record is not None else nothing
    gone, added = derived.column_changes(
        known_vids, record.digests if record is not None else nothing, wanted.vids, wanted.digests
    )
    removed = np.unique(known_vids[gone]).tolist()  # a vector id once, as in a dictionary
    report.rebuilt = reason
    report.added, report.removed = len(added), len(removed)
    if index.path is None:  # refused directory: nothing is kept
        store.write_text_index(index, [], wanted.documents(added))
        report.documents = len(index)
        return index, report
    if (
        removed
        or len(added)
        or reason is not None
        or record is None
        or (record.facts_hash != facts_hash or record.facts_key != facts_key)
    ):
        store.write_bytes(layout.text_index_state, b"")  # unreadable until the write is done
        store.write_text_index(index, removed, wanted.documents(added))
        store.write_bytes(
            layout.text_index_state,
            _record_bytes(
                _Record(wanted.vids, wanted.digests, facts_key, facts_hash, index.files())
            ),
        )
    report.documents = len(index)
    return index, report


@dataclass(frozen=True, slots=True)
class TextIndexState:
    """How the full-text index stands (health.json's `text_index`): the documents recorded,
    and the problem when it was built once and is now missing or damaged, or cannot be
    used."""

    documents: int
    problem: str | None

    def to_json(self) -> dict[str, object]:
        return {"documents": self.documents, "problem": self.problem}


def text_index_state(store: Store) -> TextIndexState:
    """How the full-text index stands, for health.json and the check."""
    layout = store.layout
    try:
        import tantivy  # noqa: F401
    except ImportError as exc:
        return TextIndexState(0, f"the tantivy package cannot be imported ({exc})")
    directory = layout.text_index_dir
    if store.refused(directory) is not None:
        return TextIndexState(0, f"{layout.relative(directory)} is refused")
    _, record, reason = _examine(store)
    return TextIndexState(
        len(record.vids) if record is not None else 0,
        None if reason in (FIRST_BUILD, INTERRUPTED) else reason,
    )
