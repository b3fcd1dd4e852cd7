"""What must hold of a data directory, checked, and repaired where that is safe.

`check(data_dir)` reads the memory, changes nothing, and returns a Finding for each broken
invariant:

- every JSONL line and JSON document parses and matches its schema, every JSONL file ends
  with a newline, and no id is held twice (`invalid_line`, `invalid_document`);
- the vector index and its metadata hold exactly the vectors the current facts call for,
  and the full-text index, once built, has its record and its files as written
  (`index_mismatch`); entities.jsonl and relations.jsonl are what the facts make
  (`derived_mismatch`);
- no state is left of what is gone: activation of facts that no longer exist, snapshots of
  files that no longer exist (`orphan_state`), temporaries of an interrupted write
  (`temporary_file`);
- no entry inside is a link, another user's, or writable by others (`refused`), and the
  files and directories the tool keeps are private (`mode`: 0600 and 0700).

`check(data_dir, fix=True)` repairs under the write lock what can be repaired without a
person's judgement: derived state is made again (the index, entities and relations), orphan
state and temporaries are removed, an invalid line is quarantined as the store does, a
corrupt activation file is set aside, modes are set; each repair is an audit line. What
only a person can decide (a refused entry, a damaged canary file or ledger, a session log's
line) is reported, never touched. The findings found are returned, the repaired ones marked.
"""

from __future__ import annotations

import os
import stat
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .clock import format_iso, utc_now
from .episodes import episode_files
from .indexes import TEXT, VECTORS, bring_in_step
from .model.fact import Fact
from .storage import files
from .storage.layout import Layout
from .storage.store import Store
from .storage.validation import problem

if TYPE_CHECKING:
    from .semantic.wanted import KnownVectors

FILE_MODE, DIR_MODE = 0o600, 0o700
_UNIQUE = {"fact": "id", "pending-memory": "id"}
# JSON documents a repair may replace: activation is rebuilt from the facts, health.json is
# written again by every health check.
_REPAIRABLE_DOCUMENTS = ("activation-metadata", "health")


@dataclass(frozen=True)
class Finding:
    code: str  # invalid_line, invalid_document, index_mismatch, derived_mismatch,
    # orphan_state, temporary_file, refused, mode
    path: str  # relative to the data directory ("." for the directory itself)
    message: str  # one line, naming the path
    repairable: bool  # check(fix=True) repairs it
    repaired: bool = False


def check(
    data_dir: Path | str,
    fix: bool = False,
    *,
    settings=None,
    timestamp: str | None = None,
    actor: str = "library",
) -> list[Finding]:
    """The broken invariants of the memory at `data_dir` (see the module's docstring);
    with `fix`, the repairable ones are repaired first and come back marked `repaired`."""
    from .config import Settings

    layout = Layout(Path(data_dir).absolute())
    settings = settings or Settings(data_path=str(layout.root))
    store = Store(
        layout,
        lock_timeout=settings.lock_timeout_seconds,
        timestamp=timestamp or format_iso(utc_now()),
        actor=actor,
        action="health-check --repair" if fix else "health-check",
    )
    found = findings(store, settings)
    if not fix or not any(finding.repairable for finding in found):
        return found
    _repair(store, settings, found)
    store.look_again()  # the repair changed what is there
    remaining = {
        (finding.code, finding.path, finding.message) for finding in findings(store, settings)
    }
    return [
        replace(finding, repaired=(finding.code, finding.path, finding.message) not in remaining)
        if finding.repairable
        else finding
        for finding in found
    ]


# -- finding ---------------------------------------------------------------------------------
def findings(store: Store, settings) -> list[Finding]:
    """The broken invariants of the memory `store` writes, read without changing it (the
    refused entries as the store knows them). The records it reads of every file are not
    held after it (snapshot.only_while)."""
    from .storage import snapshot

    with snapshot.only_while():
        return _findings(store, settings)


def _findings(store: Store, settings) -> list[Finding]:
    layout = store.layout
    found = [
        Finding(
            "refused",
            layout.relative(refusal.path),
            f"{layout.relative(refusal.path)}: {refusal.problem}; {refusal.fix}",
            False,
        )
        for refusal in store.refusals()
    ]
    found += _modes(store)
    found += _temporaries(store)
    read = _Read()
    found += _records(store, read)
    found += _documents(store)
    if read.facts is not None:
        facts: list[Fact] | None = store.facts_of(read.facts)  # valid records only
        read.facts = None
    else:  # every line valid: read at their places (_records)
        at = store.facts_at()
        facts = at.all() if at is not None else None
    if facts is not None:
        found += _derived(store, facts, read)
        found += _index(store, facts, read.vectors)
        found += _text_index(store)
        found += _orphans(store, facts)
    return found


def _usable(store: Store, path: Path) -> bool:
    return store.refused(path) is None


def _modes(store: Store) -> list[Finding]:
    """The directories of the layout and the files only the tool writes (not config.yaml,
    MEMORY.md, the canaries or the session logs, which people and the agent write too)
    when others may read them."""
    layout = store.layout
    people = {layout.config, layout.memory_md, layout.canaries}
    kept = [
        *layout.directories(),
        layout.cache_dir,
        layout.reports_dir,
        *(path for path in (*layout.known_files(), *layout.schemas()) if path not in people),
    ]
    found = []
    for path in dict.fromkeys(kept):
        if not _usable(store, path):
            continue
        try:
            status = os.lstat(path)
        except FileNotFoundError:
            continue
        wanted = DIR_MODE if stat.S_ISDIR(status.st_mode) else FILE_MODE
        mode = stat.S_IMODE(status.st_mode)
        if mode & 0o077:
            name = layout.relative(path) if path != layout.root else "."
            found.append(
                Finding(
                    "mode",
                    name,
                    f"{name}: mode {mode:04o}, others may read it; "
                    f"chmod {wanted:o} sets it private",
                    True,
                )
            )
    return found


def _temporaries(store: Store) -> list[Finding]:
    from .steps.clean import leftover_temporaries

    names = [store.layout.relative(path) for path in leftover_temporaries(store)]
    return [
        Finding(
            "temporary_file",
            name,
            f"{name}: left by an interrupted write (or one in progress)",
            True,
        )
        for name in names
    ]


def _jsonl_files(store: Store) -> dict[Path, str]:
    """Each JSONL file there is, with its schema: the layout's, the quarantines, the logs."""
    layout = store.layout
    kinds = {
        path: kind
        for path, kind in layout.schemas().items()
        if path.suffix == ".jsonl" and path.exists()
    }
    for directory in layout.quarantine_directories():
        if _usable(store, directory) and directory.is_dir():
            kinds.update({path: "quarantine" for path in directory.glob("*.quarantine.jsonl")})
    kinds.update({path: "session-turn" for path in store.session_files()})
    kinds.update({path: "episode" for path in episode_files(layout)})
    return {path: kind for path, kind in sorted(kinds.items()) if _usable(store, path)}


class _MetadataRead:
    """What _index needs of metadata.jsonl's valid records, gathered as _records checks
    its lines (parsed and held, with a dict of them by vector id, they were much of the
    2.9 GB the check held at a million facts): each one's vector id and content hash in
    arrays, as semantic/wanted.KnownVectors holds them, and the first one's dimension."""

    def __init__(self) -> None:
        from .semantic.wanted import KnownColumns

        self.columns = KnownColumns()
        self.oversized: set[int] = set()  # ids past int64, which no fact's vector has
        self.dimension: int | None = None

    def add(self, record: dict) -> None:
        if self.dimension is None:
            self.dimension = record["dimension"]
        vid, digest = record["vector_id"], int(record["content_hash"], 16)
        if not self.columns.add(vid, digest, record["model_id"], record["dimension"]):
            self.oversized.add(vid)

    def known(self) -> KnownVectors:
        return self.columns.known()


@dataclass
class _Read:
    """What the checks after _records need of the files it read, kept compact: the
    records of facts.jsonl only when it has a line to set aside (it is otherwise read at
    its places), how many valid records each file holds, the numbers of the lines set
    aside of the derived files, and the vectors metadata.jsonl names."""

    facts: list[dict] | None = None
    records: dict[Path, int] = field(default_factory=dict)
    set_aside: dict[Path, set[int]] = field(default_factory=dict)
    vectors: _MetadataRead | None = None


def _records(store: Store, read: _Read) -> list[Finding]:
    """Every line of every JSONL file against its schema, a line at a time (a session
    log's bad lines once copied to the sessions quarantine are known, not findings);
    `read` gets what the later checks need of them."""
    layout = store.layout
    copied = {
        (entry["file"], entry["line"])
        for entry in store.peek_records(layout.sessions_quarantine, "quarantine")[0]
    }
    found = []
    for path, kind in _jsonl_files(store).items():
        name = layout.relative(path)
        session = kind == "session-turn"
        whole = data_ends_whole(path)
        if path == layout.facts and whole and store.facts_at() is not None:
            continue  # every line a fact, each id once: read at their places, not parsed here
        each = None
        if path == layout.facts:
            read.facts = []
            each = read.facts.append
        elif path == layout.vector_metadata:
            read.vectors = _MetadataRead()
            each = read.vectors.add
        checked = store.check_lines(path, kind, unique_key=_UNIQUE.get(kind), each=each)
        bad = checked.bad
        if not whole and not any(line.reason.endswith("torn last line") for line in bad):
            # a whole record without its newline is kept, and the next append ends it
            found.append(Finding("invalid_line", name, f"{name}: no newline at the end", False))
        for line in sorted(bad, key=lambda line: line.line):
            if session and (name, line.line) in copied:
                continue
            found.append(
                Finding("invalid_line", name, f"{name}:{line.line}: {line.reason}", not session)
            )
        read.records[path] = checked.records
        if path in (layout.entities, layout.relations):
            read.set_aside[path] = {line.line for line in bad}
    return found


def data_ends_whole(path: Path) -> bool:
    """Whether the file is empty or ends with a newline (a torn last line does not)."""
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() == 0:
            return True
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def _documents(store: Store) -> list[Finding]:
    layout = store.layout
    found = []
    for path, kind in layout.schemas().items():
        if path.suffix != ".json" or not _usable(store, path):
            continue
        if path == layout.activation and store.activation_passes():
            continue  # read whole, a million facts' state took 500 MB to check again
        name = layout.relative(path)
        try:
            document = files.read_json(path)
        except FileNotFoundError:
            continue
        except (ValueError, UnicodeDecodeError) as exc:
            fault: str | None = f"not valid JSON ({exc})"
        else:
            fault = problem(kind, document)
        if fault:
            found.append(
                Finding("invalid_document", name, f"{name}: {fault}", kind in _REPAIRABLE_DOCUMENTS)
            )
    return found


def _derived(store: Store, facts: list[Fact], read: _Read) -> list[Finding]:
    from .graph import entity_records, relation_records

    layout = store.layout
    found = []
    for path, kind, derived in (
        (layout.entities, "entity", entity_records(facts)),
        (layout.relations, "relation", relation_records(facts)),
    ):
        if _usable(store, path) and not _made_of(store, path, kind, derived, read):
            name = layout.relative(path)
            found.append(
                Finding(
                    "derived_mismatch",
                    name,
                    f"{name} is not what the facts make "
                    f"({read.records.get(path, 0)} records, the facts make "
                    f"{len(derived)})",
                    True,
                )
            )
    return found


def _made_of(store: Store, path: Path, kind: str, derived: Sequence, read: _Read) -> bool:
    """Whether the valid records of `path` are the records `derived` (Entity or Relation)
    makes, in order: each valid line compared with the line the writer would write of the
    next record (jsonl.line), a line at a time, neither side's records held; a line written
    otherwise (a hand edit) is parsed and compared as a record."""
    from .storage import jsonl, strict_json

    set_aside = read.set_aside.get(path, set())
    made = iter(derived)
    for number, raw in files.each_line(path):
        text = raw.rstrip(b"\n")
        if not text.strip() or number in set_aside:
            continue  # not a record (the line check reports it)
        record = next(made, None)
        if record is None:
            return False  # the file holds more records
        wanted = record.to_json()
        line = jsonl.line(store.layout, path, kind, wanted).encode("utf-8")
        if text != line and strict_json.loads(text.decode("utf-8")) != wanted:
            return False
    return next(made, None) is None


def _index(store: Store, facts: list[Fact], named: _MetadataRead | None) -> list[Finding]:
    from .errors import IndexCorrupt
    from .semantic.segments import FactVectors
    from .semantic.wanted import changes, wanted_vectors

    layout = store.layout
    if not layout.index_built.exists() or not all(
        _usable(store, path) for path in (layout.index_file, layout.vector_metadata)
    ):
        return []  # never built (the first recall builds it), or refused (reported so)
    named = named or _MetadataRead()
    known = named.known()
    wanted = wanted_vectors(facts, layout.facts)
    # as the index step brings it in step: a wanted vector is missing unless its id is
    # known with its content hash (semantic/wanted.changes)
    missing = len(changes(known, wanted)[1])
    known_ids = np.unique(known.vids)
    stale = len(np.setdiff1d(known_ids, wanted.vids)) + len(named.oversized)
    problems = []
    if missing or stale:
        problems.append(
            f"{layout.relative(layout.vector_metadata)} holds "
            f"{len(known_ids) + len(named.oversized)} vectors, the facts call for "
            f"{len(wanted)} ({missing} missing or changed, {stale} stale)"
        )
    if named.dimension is not None:
        try:
            # mapped: the ids are read, not every vector (2 GB at a million at 512 dimensions)
            index = FactVectors.open(layout, named.dimension)
            ids = np.unique(index.ids())
        except (IndexCorrupt, FileNotFoundError) as exc:
            problems.append(f"{layout.relative(layout.index_file)} cannot be read ({exc})")
        else:
            if named.oversized or not np.array_equal(ids, known_ids):
                problems.append(
                    f"{layout.relative(layout.index_file)} and "
                    f"{layout.relative(layout.vector_metadata)} hold different ids"
                )
    elif layout.index_file.exists() and len(wanted):
        problems.append(f"{layout.relative(layout.vector_metadata)} is empty")
    name = layout.relative(layout.index_file)
    return [Finding("index_mismatch", name, message, True) for message in problems]


def _text_index(store: Store) -> list[Finding]:
    """The full-text index, once built, with its record and its files as written."""
    from .lexical import text_index_state

    problem = text_index_state(store).problem
    if problem is None or store.refused(store.layout.text_index_dir) is not None:
        return []  # in step or pending (the next recall brings it), or refused (reported)
    name = store.layout.relative(store.layout.text_index_dir)
    return [Finding("index_mismatch", name, problem, True)]


def _among(ids: list[str], fact_id: str) -> bool:
    """Whether `fact_id` is one of `ids` (sorted)."""
    place = bisect_left(ids, fact_id)
    return place < len(ids) and ids[place] == fact_id


def _orphans(store: Store, facts: list[Fact]) -> list[Finding]:
    """Activation state of facts that are gone, and snapshots of JSONL files that are gone."""
    layout = store.layout
    found = []
    state, damaged = store.peek_activation()
    # the facts' ids sorted, each state id looked for by bisection: a set of a million ids
    # took 32 MB, at the peak of a consolidation
    ids = sorted(fact.id for fact in facts)
    orphans = sorted(fact_id for fact_id in state if not _among(ids, fact_id))
    if orphans and not damaged:
        found.append(
            Finding(
                "orphan_state",
                layout.relative(layout.activation),
                f"{layout.relative(layout.activation)}: activation of "
                f"{len(orphans)} fact(s) no longer held ({orphans[0]}, ...)",
                True,
            )
        )
    if _usable(store, layout.cache_dir) and layout.cache_dir.is_dir():
        for path in sorted(layout.cache_dir.glob("*.jsonl.marshal")):
            source = layout.root / path.name[: -len(".marshal")].replace("__", "/")
            if not os.path.lexists(source):
                name = layout.relative(path)
                found.append(
                    Finding(
                        "orphan_state",
                        name,
                        f"{name}: a snapshot of {layout.relative(source)}, which is gone",
                        True,
                    )
                )
    return found


# -- repairing -------------------------------------------------------------------------------
def _repair(store: Store, settings, found: list[Finding]) -> None:
    from .graph import KnowledgeGraph
    from .steps.clean import quarantine_invalid_lines, remove_leftover_temporaries

    layout = store.layout
    codes = {finding.code for finding in found if finding.repairable}
    if "temporary_file" in codes:
        remove_leftover_temporaries(store)
    with store.locked("health-check --repair"):
        for finding in found:
            if finding.code == "mode" and finding.repairable:
                path = layout.root / finding.path
                wanted = DIR_MODE if path.is_dir() else FILE_MODE
                os.chmod(path, wanted)
                store.touched(path)
                store.note(f"set {finding.path} to mode {wanted:04o}", repair=True)
            elif finding.code == "invalid_document" and finding.repairable:
                path = layout.root / finding.path
                if path == layout.activation:
                    store.read_activation()  # sets it aside; state restarts from the facts
                else:
                    store.delete(path)
                    store.note(
                        f"removed the invalid {finding.path} (the next health check "
                        "writes it again)",
                        repair=True,
                    )
            elif finding.code == "orphan_state" and finding.path != layout.relative(
                layout.activation
            ):
                store.delete(layout.root / finding.path)
                store.note(f"removed {finding.path}", repair=True)
        if "invalid_line" in codes:
            quarantine_invalid_lines(store)  # as every reader does: quarantined, reported
        graph = KnowledgeGraph(store, settings)
        facts = graph.facts()
        if "derived_mismatch" in codes:
            graph._write_indexes(facts)
            store.note("entities.jsonl and relations.jsonl made again from the facts", repair=True)
        if "orphan_state" in codes:
            state = store.read_activation()
            kept = state.only(fact.id for fact in facts)
            if len(kept) != len(state):
                store.write_activation(kept)
                store.note(
                    f"dropped the activation of {len(state) - len(kept)} fact(s) no longer held",
                    repair=True,
                )
    mismatched = {finding.path for finding in found if finding.code == "index_mismatch"}
    rebuild = {
        name
        for name, path in ((VECTORS, layout.index_file), (TEXT, layout.text_index_dir))
        if layout.relative(path) in mismatched
    }
    if rebuild:
        bring_in_step(KnowledgeGraph(store, settings), rebuild=rebuild, vectors=VECTORS in rebuild)
