"""Typed access to the files of the data directory, each record validated before it is written.

Callers mutate only inside `with store.locked(purpose):`, and re-read there what they
change, since another process may have written it meanwhile: nothing here caches a
snapshot across the lock.

The Store is the one writer: it decides which entries may be used, holds the lock, keeps
the audit log and makes every write. Its readers have rooms of their own, which it
delegates to: jsonl.py (JSONL records, bad lines quarantined), facts_file.py (facts.jsonl
as Facts) and activation_state.py (the activation state and its journal of recalls).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..errors import InvalidInputError
from ..model.activation import ActivationEntries, ActivationEntry
from ..model.fact import Fact
from . import facts_file, facts_places, files, jsonl, locks, snapshot, strict_json
from .activation_packed import ActivationRecords
from .activation_state import JOURNAL_LIMIT, ActivationState
from .facts_file import FactsById
from .facts_places import FactsAt
from .layout import Layout, Refusal
from .validation import problem

AUDIT_MAX_IDS = 50
# The audit-entry schema's most characters of a change: a block that said more (a learn of
# a hundred days, each with its summary written) keeps what fits and counts the rest.
AUDIT_MAX_CHANGE = 4000


class Store:
    def __init__(
        self,
        layout: Layout,
        *,
        lock_timeout: float,
        timestamp: str,
        actor: str = "library",
        action: str | None = None,
        refusals: Iterable[Refusal] | None = None,
    ):
        """`timestamp` stamps quarantine and audit records; `lock_timeout` bounds every lock
        wait; `actor` (cli, cron, ...) and `action` (the command) name who changed what in
        the audit log; `refusals`: what Layout.check just returned, if it was called."""
        self.layout = layout
        self.lock_timeout = lock_timeout
        self.timestamp = timestamp
        self.actor = actor
        self.action = action
        self.warnings: list[str] = []
        self._held = False
        self._refusals: dict[Path, Refusal] | None = (
            None if refusals is None else {refusal.path: refusal for refusal in refusals}
        )
        self._warned: set[Path] = set()
        self._activation = ActivationState(self)
        self._durable = True  # whether appends are fsynced (see locked)
        self._clear_block()

    # -- refused entries -------------------------------------------------------------------
    def refusals(self) -> list[Refusal]:
        """The entries of the data directory that are not followed, read or written (links,
        entries of other users or writable by them), as Layout.check found them once."""
        if self._refusals is None:
            found = self.layout.check() if os.path.lexists(self.layout.root) else []
            self._refusals = {refusal.path: refusal for refusal in found}
        return list(self._refusals.values())

    def look_again(self) -> None:
        """Forget the refused entries found, so that the next question checks again."""
        self._refusals = None
        self._warned.clear()

    def refused(self, path: Path) -> Refusal | None:
        """The refusal that covers `path`: its own, or a directory's above it."""
        self.refusals()
        refusals = self._refusals
        if not refusals:  # the usual memory: nothing refused, nothing to look up
            return None
        path = Path(path)
        for candidate in (path, *path.parents):
            if candidate in refusals:
                return refusals[candidate]
            if candidate == self.layout.root:
                break
        return None

    def usable(self, path: Path) -> bool:
        """Whether `path` may be read and written. A refused core file (Layout.core_files)
        stops the command here, before it changes anything (DataDirError, exit 5); any other
        refused file is skipped: False, and a warning naming it and its fix."""
        refusal = self.refused(path)
        if refusal is None:
            return True
        if self.layout.is_core(Path(path)):
            raise refusal.error()
        if refusal.path not in self._warned:
            self._warned.add(refusal.path)
            self.warnings.append(
                f"{self.layout.relative(refusal.path)}: {refusal.problem}; skipped ({refusal.fix})"
            )
        return False

    def require(self, paths: Iterable[Path]) -> None:
        """Stop now (DataDirError) if any of `paths` is refused: for a command about to
        change several files, so that it changes none when one of them cannot be used."""
        for path in paths:
            refusal = self.refused(path)
            if refusal is not None:
                raise refusal.error()

    def session_files(self, day: str | None = None) -> list[Path]:
        """The session logs (storage.sessions.session_files) that may be read: a refused
        log, or a refused sessions/ directory, is skipped with a warning."""
        from .sessions import session_files

        if not self.usable(self.layout.sessions_dir):
            return []
        return [path for path in session_files(self.layout, day) if self.usable(path)]

    # -- locking ---------------------------------------------------------------------------
    @contextmanager
    def locked(
        self, purpose: str, *, needs: Iterable[Path] | None = None, durable: bool = True
    ) -> Iterator[None]:
        """Hold the data directory's write lock. Whatever the block wrote is recorded in
        the audit log (state/audit.jsonl) before the lock is released.

        `needs`: the files the block may write, which must not be refused (see `require`);
        by default every core file but the pending proposals (checked where they are read).
        `durable=False`: the block's appends, its audit line included, are not fsynced
        (recall's boost: see reinforce); whole-file rewrites always are.
        """
        if self._held:  # flock is per open file: a nested acquire would wait on itself
            yield
            return
        self.require(
            [
                self.layout.write_lock,
                self.layout.audit_log,
                *(
                    self.layout.core_files() - {self.layout.pending_memories}
                    if needs is None
                    else needs
                ),
            ]
        )
        with locks.exclusive(self.layout.write_lock, self.lock_timeout, purpose):
            self._held, self._durable = True, durable
            try:
                yield
            except BaseException:
                # What the block wrote before it failed is still recorded, if the disk
                # lets us; if it does not, the block's own error is the one to report.
                try:
                    self._write_audit(purpose)
                except OSError:
                    pass
                raise
            else:
                self._write_audit(purpose)
            finally:
                self._held, self._durable = False, True

    # -- audit -----------------------------------------------------------------------------
    def touched(self, path: Path) -> None:
        """Record that `path` was written in the current locked block (for the audit log)."""
        name = self.layout.relative(path)
        if name not in self.layout.unaudited():
            self._touched[name] = None

    def note(
        self, change: str, ids: Iterable[str] = (), *, redactions: int = 0, repair: bool = False
    ) -> None:
        """Say what the current locked block changed, in words, for its audit line.

        `repair`: the change mends damage (a torn line quarantined, a file set aside, an
        index rebuilt, temporaries removed); the audit line lists it under `repairs`, which
        the health check reports.
        """
        self._notes.append(change)
        self._noted_ids.update(dict.fromkeys(ids))
        self._redactions += redactions
        if repair:
            self._repairs.append(change)

    def _clear_block(self) -> None:
        """Forget what the locked block wrote and said: its audit line is written, or due none."""
        self._touched: dict[str, None] = {}
        self._notes: list[str] = []
        self._noted_ids: dict[str, None] = {}
        self._redactions = 0
        self._repairs: list[str] = []

    def _write_audit(self, purpose: str) -> None:
        touched, notes, ids = sorted(self._touched), self._notes, list(self._noted_ids)
        redactions, repairs = self._redactions, self._repairs
        self._clear_block()
        if not touched:
            return
        entry: dict[str, object] = {
            "at": self.timestamp,
            "actor": self.actor,
            "action": self.action or purpose,
            "step": purpose,
            "files": touched,
            "change": _change(notes) or "wrote " + ", ".join(touched)[: AUDIT_MAX_CHANGE - 6],
        }
        if ids:
            entry["ids"] = ids[:AUDIT_MAX_IDS]
            if len(ids) > AUDIT_MAX_IDS:
                entry["more_ids"] = len(ids) - AUDIT_MAX_IDS
        if redactions:
            entry["redactions"] = redactions
        if repairs:
            entry["repairs"] = [repair[:1000] for repair in repairs[:AUDIT_MAX_IDS]]
        line = jsonl.checked_line(self.layout, self.layout.audit_log, "audit-entry", entry)
        files.append_lines(self.layout.audit_log, [line], durable=self._durable)

    # -- JSONL files (read in jsonl.py) ----------------------------------------------------
    def read_records(
        self,
        path: Path,
        kind: str,
        *,
        unique_key: str | None = None,
        copy: bool = True,
    ) -> list[dict]:
        """Valid records of `path`, bad lines quarantined and reported (jsonl.read_records)."""
        return jsonl.read_records(self, path, kind, unique_key=unique_key, copy=copy)

    def peek_records(self, path: Path, kind: str) -> tuple[list[dict], int]:
        """(valid records, number of invalid lines) of `path`, writing nothing
        (jsonl.peek_records)."""
        return jsonl.peek_records(self, path, kind)

    def check_lines(
        self,
        path: Path,
        kind: str,
        *,
        unique_key: str | None = None,
        each: Callable[[dict], None] | None = None,
    ) -> jsonl.LinesChecked:
        """Every line of `path` checked as read_records checks it, writing nothing and
        holding no record after its line (jsonl.check_lines)."""
        return jsonl.check_lines(path, kind, unique_key=unique_key, each=each)

    def append_records(
        self,
        path: Path,
        kind: str,
        records: Iterable[dict],
        *,
        lines: Iterable[str] | None = None,
        copy: bool = True,
        kept: bool = True,
    ) -> None:
        """Append `records`; `lines`: their lines, made by the caller (facts_file._fact_lines).
        The snapshot of the file keeps copies of the records, or, `copy=False`, the records
        themselves, which the caller made for this write and no longer changes (copied, they
        were 25 MB more at 100,000 facts); `kept=False`: no snapshot of the records is kept
        (the caller reads the file otherwise), and `records` may be empty beside `lines`."""
        records = list(records)
        if lines is None:
            lines = [jsonl.checked_line(self.layout, path, kind, record) for record in records]
        if not self.usable(path):
            return
        cache = self.layout.snapshot_for(path)
        before = snapshot.load(cache, snapshot.file_key(path), disk=False) if kept else None
        if files.append_lines(path, lines, durable=self._durable):
            self.touched(path)
        if not kept:
            snapshot.discard(cache)
        elif before is not None:  # the file is what the snapshot held, plus these records
            snapshot.save(
                cache,
                snapshot.file_key(path),
                before + ([dict(r) for r in records] if copy else records),
                disk=jsonl.snapshot_on_disk(self, path, cache),
            )

    def rewrite_records(
        self,
        path: Path,
        kind: str,
        records: Iterable[dict],
        *,
        lines: Iterable[str] | None = None,
        kept: bool = True,
    ) -> None:
        """Replace the file with `records`; `lines`: their lines, made by the caller; `kept`
        as for append_records."""
        records = list(records)
        if lines is None:
            lines = [jsonl.checked_line(self.layout, path, kind, record) for record in records]
        if not self.usable(path):
            return
        files.write_lines_atomic(path, lines)
        self.touched(path)
        cache = self.layout.snapshot_for(path)
        if not kept:
            snapshot.discard(cache)
            return
        snapshot.save(
            cache,
            snapshot.file_key(path),
            [dict(record) for record in records],
            disk=self.cache_usable(cache),
        )

    def lines_in_step(
        self, path: Path, kind: str, records: Callable[[], Iterable[dict]]
    ) -> Iterator[str] | None:
        """The lines of the records `records()` gives to write `path` with, made as they are
        written; None when it holds them already (jsonl.lines_in_step)."""
        return jsonl.lines_in_step(self.layout, path, kind, records)

    def cache_usable(self, cache: Path | None) -> bool:
        """Whether snapshots may be kept on disk (state/cache/ not refused): otherwise they
        are kept in this process only."""
        return self.refused(self.layout.cache_dir if cache is None else cache) is None

    # -- facts.jsonl as Fact records (facts_file.py) -----------------------------------------
    def read_facts(self) -> list[Fact]:
        """The facts of facts.jsonl, read like any records (checked against the schema, bad
        lines quarantined), as Facts. The list is new at each call."""
        return self.facts_by_id().all()

    def facts_passing(self) -> Sequence[Fact]:
        """The facts of facts.jsonl in file order, for passes over all of them: a large
        file's read as each pass goes, not held (FactsAt.passing); read_facts' where the
        file cannot be read at its places."""
        at = self.facts_at()
        return at.passing() if at is not None else self.read_facts()

    def facts_by_id(self) -> FactsById | FactsAt:
        """The facts of facts.jsonl by id, each made a Fact when first looked up
        (facts_file.facts_by_id)."""
        return facts_file.facts_by_id(self)

    def facts_at(self) -> FactsAt | None:
        """facts.jsonl read at the places of its records, None when a line of it is to be
        set aside (facts_places.facts_at), or when the file is refused (reads as empty, as
        peek_records reads it: the health check lists it)."""
        if self.refused(self.layout.facts) is not None:
            return None
        return facts_places.facts_at(self)

    def peek_facts(self) -> tuple[list[Fact], int]:
        """(the facts of facts.jsonl's valid records, the number of invalid lines), writing
        nothing to the file: read at their places when every line is valid, else as
        peek_records reads it."""
        at = self.facts_at()
        if at is not None:
            return at.all(), 0
        records, bad = self.peek_records(self.layout.facts, "fact")
        return self.facts_of(records), bad

    def facts_of(self, records: list[dict]) -> list[Fact]:
        """The Facts of valid records of facts.jsonl as peek_records gave them
        (facts_file.facts_of)."""
        return facts_file.facts_of(self, records)

    def rewrite_facts(self, facts: Iterable[Fact]) -> None:
        facts_file.rewrite_facts(self, facts)

    def append_facts(self, facts: Iterable[Fact]) -> None:
        facts_file.append_facts(self, facts)

    # -- whole files -----------------------------------------------------------------------
    # Every write of the data directory goes through these (or the record writers above):
    # each names a path of the layout, and is recorded for the audit log unless the file is
    # derived (Layout.is_derived) or bookkeeping (Layout.unaudited); a removal always is.
    def write_bytes(
        self, path: Path, data: bytes | memoryview | files.Producer, *, before_replace=None
    ) -> None:
        """Replace `path` atomically with `data` (made durable first), or with what `data`
        writes when it is a files.Producer. `before_replace`: called just before the
        rename; raises ChangedMeanwhile to give up."""
        if not self._writable(path):
            return
        files.write_atomic(path, data, before_replace=before_replace)
        self._wrote(path)

    def write_text(self, path: Path, text: str) -> None:
        self.write_bytes(path, text.encode("utf-8"))

    def write_lines(self, path: Path, lines: Iterable[str]) -> None:
        """Replace `path` atomically with these lines (already serialized records)."""
        if not self._writable(path):
            return
        files.write_lines_atomic(path, lines)
        self._wrote(path)

    def append_lines(self, path: Path, lines: Iterable[str]) -> None:
        """Append these lines (already serialized records) to `path`, durably."""
        if not self._writable(path):
            return
        files.append_lines(path, lines)
        self._wrote(path)

    def create_file(self, path: Path, data: bytes) -> bool:
        """Create `path` holding `data` unless it exists; True when it was created."""
        if not self._writable(path):
            return False
        created = files.create_file(path, data)
        if created:
            self._wrote(path)
        return created

    def replace_if_unchanged(self, path: Path, data: bytes, *, size: int, mtime_ns: int) -> bytes:
        """files.replace_if_unchanged, recorded: `path` replaced by `data` unless it changed
        since it had `size` and `mtime_ns` (raises ChangedMeanwhile)."""
        if not self._writable(path):
            return b""
        carried = files.replace_if_unchanged(path, data, size=size, mtime_ns=mtime_ns)
        self._wrote(path)
        return carried

    def delete(self, path: Path) -> bool:
        """Remove `path` durably; False when it was already gone."""
        if not self._writable(path):
            return False
        try:
            os.unlink(path)
        except FileNotFoundError:
            return False
        files.fsync_directory(path.parent)
        self.touched(path)
        return True

    def make_directory(self, path: Path) -> None:
        if self._writable(path):
            files.make_directory(path)

    # -- the full-text index ---------------------------------------------------------------
    def new_text_index(self, path: Path):
        """An empty full-text index (storage.text_index) in `path`, any old one removed
        first; in memory when `path` may not be written."""
        from .text_index import TextIndex, remove_index

        if not self._writable(path):
            return TextIndex.create(None)
        remove_index(path)
        files.fsync_directory(path.parent)
        return TextIndex.create(path)

    def write_text_index(self, index, removed, added) -> None:
        """Delete and add documents of a full-text index (TextIndex.write) in one commit."""
        if index.path is not None and not self._writable(index.path):
            return
        index.write(removed, added)

    def _wrote(self, path: Path) -> None:
        if not self.layout.is_derived(path):
            self.touched(path)

    def _writable(self, path: Path) -> bool:
        """Whether `path` may be written (see `usable`); a path outside the data directory
        is a bug of the caller's."""
        if not Path(path).is_relative_to(self.layout.root):
            raise ValueError(f"{path} is outside the data directory {self.layout.root}")
        return self.usable(path)

    # -- the activation state (activation_state.py) ----------------------------------------
    def read_activation(self) -> ActivationEntries:
        """Per-fact activation state, the journal of recalls applied over the file; the
        caller's to change (ActivationState.read)."""
        return self._activation.read()

    def activation_view(self) -> ActivationEntries:
        """The state read_activation gives, without copying the file's
        (ActivationState.view)."""
        return self._activation.view()

    def activation_entries(self, ids: set[str]) -> ActivationEntries:
        """The state of these facts alone, as read_activation gives it
        (ActivationState.entries)."""
        return self._activation.entries(ids)

    def journal_room(self) -> int:
        """How many entries the journal of recalls takes before write_activation folds it
        into the activation file (ActivationState.journal_room)."""
        return self._activation.journal_room()

    def activation_journal_since(self, start: int = 0) -> tuple[ActivationEntries, int]:
        """The state the journal of recalls gives from its `start`-th record on, and how many
        records it holds (ActivationState.journal_since)."""
        return self._activation.journal_since(start)

    def activation_records(self) -> ActivationRecords:
        """The records activation-metadata.json holds, packed, each made when looked up
        (ActivationState.records)."""
        return self._activation.records()

    def read_activation_file(self) -> ActivationEntries:
        """The state activation-metadata.json holds, without the journal over it
        (ActivationState.read_file)."""
        return self._activation.read_file()

    def write_activation(
        self,
        state: Mapping[str, ActivationEntry],
        changed: Iterable[str] | None = None,
        *,
        journal_limit: int = JOURNAL_LIMIT,
    ) -> None:
        """Record the activation state: with `changed`, their entries appended to the journal
        while it has room, else the whole file written (ActivationState.write)."""
        self._activation.write(state, changed, journal_limit=journal_limit)

    def fold_activation(self, state: ActivationEntries) -> bool:
        """Write `state` as the whole activation file, the journal folded in, unless nothing
        would change; True when it wrote (ActivationState.fold)."""
        return self._activation.fold(state)

    def activation_passes(self) -> bool:
        """Whether activation-metadata.json is known to pass its schema without reading it
        whole (ActivationState.passes)."""
        return self._activation.passes()

    def peek_activation(self) -> tuple[ActivationEntries, bool]:
        """(activation state, whether the file is damaged), writing nothing
        (ActivationState.peek)."""
        return self._activation.peek()

    # -- JSON files ------------------------------------------------------------------------
    def write_validated_json(
        self, path: Path, kind: str, document, *, compact: bool = False, checked=None
    ) -> bool:
        """Write `document` once it passes the `kind` schema. `checked`: the part of it to
        check, when the rest is known to pass (entries read from the file and kept). False
        when the file is refused and skipped (Store.usable), so nothing was written."""
        fault = problem(kind, document if checked is None else checked)
        if fault:
            raise InvalidInputError(
                f"refusing to write an invalid {kind} document: {fault}",
                source=self.layout.relative(path),
            )
        if not self.usable(path):
            return False
        try:
            files.write_json_atomic(path, document, compact=compact)
        except strict_json.JsonRefused as exc:
            raise InvalidInputError(
                f"refusing to write a {kind} document that {exc}", source=self.layout.relative(path)
            ) from None
        self.touched(path)
        return True

    def read_json_file(self, path: Path, kind: str):
        """A JSON document that must be valid; raises InvalidInputError naming the file."""
        name = self.layout.relative(path)
        if not self.usable(path):
            raise FileNotFoundError(path)  # a refused file that may be skipped reads as absent
        try:
            document = files.read_json(path)
        except UnicodeDecodeError:
            raise InvalidInputError("not UTF-8 text", source=name) from None
        except ValueError as exc:  # strict_json.JsonRefused: says what is wrong
            raise InvalidInputError(str(exc), source=name) from None
        fault = problem(kind, document)
        if fault:
            raise InvalidInputError(fault, source=name)
        return document


def _change(notes: list[str]) -> str:
    """The notes of a block, one after another, as many as fit the audit line, the others
    counted ("; and 12 more change(s)")."""
    whole = "; ".join(notes)
    if len(whole) <= AUDIT_MAX_CHANGE:
        return whole
    length = 0
    for number, note in enumerate(notes):
        rest = f"; and {len(notes) - number} more change(s)"
        if length + len(note) + len(rest) > AUDIT_MAX_CHANGE:
            if number == 0:  # one note longer than the line: its opening
                rest = f" ...; and {len(notes) - 1} more change(s)" if len(notes) > 1 else " ..."
                return note[: AUDIT_MAX_CHANGE - len(rest)] + rest
            return "; ".join(notes[:number]) + rest
        length += len(note) + 2
    return whole[:AUDIT_MAX_CHANGE]
