"""Typed access to the files of the data directory, each record validated before it is written.

Callers mutate only inside `with store.locked(purpose):`, and re-read there what they
change, since another process may have written it meanwhile: nothing here caches a
snapshot across the lock.
"""

from __future__ import annotations

import os
from collections import ChainMap
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from ..errors import InvalidInputError
from ..model.fact import Fact
from . import files, locks, snapshot, strict_json
from .files import BadLine, JsonlContents
from .layout import Layout, Refusal
from .validation import problem

JOURNAL_LIMIT = 2000
AUDIT_MAX_IDS = 50


class FactsById(Mapping[str, Fact]):
    """The facts of one snapshot of facts.jsonl by id, each record made a Fact when first
    looked up: a recall looks at a few of 10,000 facts, and a new process should not pay
    for making them all (that costs as much as parsing the file)."""

    def __init__(self, records: list[dict], *, made: list[Fact | None] | None = None):
        self._records = records
        self.made: list[Fact | None] = made if made is not None else [None] * len(records)
        # the last record of an id wins, as in a dict made of the facts in file order
        self._position = {record["id"]: number for number, record in enumerate(records)}
        self._all: list[Fact] | None = None

    def made_of(self, records: list[dict]) -> bool:
        return records is self._records

    def _fact(self, number: int) -> Fact:
        fact = self.made[number]
        if fact is None:
            fact = self.made[number] = Fact.from_record(self._records[number], checked=True)
        return fact

    def all(self) -> list[Fact]:
        """Every fact, in the order of the file (a new list)."""
        if self._all is None:
            self._all = [self._fact(number) for number in range(len(self._records))]
        return list(self._all)

    def __getitem__(self, fact_id: str) -> Fact:
        return self._fact(self._position[fact_id])

    def __contains__(self, fact_id: object) -> bool:
        return fact_id in self._position

    def __iter__(self) -> Iterator[str]:
        return iter(self._position)

    def __len__(self) -> int:
        return len(self._position)


# facts.jsonl path -> the facts of its snapshot, for this process.
_made_facts: dict[str, FactsById] = {}


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
        # The journal's records (as read_records holds them) and the state they give.
        self._journal_view: tuple[list[dict], dict[str, dict]] | None = None
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
            "change": "; ".join(notes) or "wrote " + ", ".join(touched),
        }
        if ids:
            entry["ids"] = ids[:AUDIT_MAX_IDS]
            if len(ids) > AUDIT_MAX_IDS:
                entry["more_ids"] = len(ids) - AUDIT_MAX_IDS
        if redactions:
            entry["redactions"] = redactions
        if repairs:
            entry["repairs"] = [repair[:1000] for repair in repairs[:AUDIT_MAX_IDS]]
        line = self._checked_line(self.layout.audit_log, "audit-entry", entry)
        files.append_lines(self.layout.audit_log, [line], durable=self._durable)

    # -- JSONL files -----------------------------------------------------------------------
    def read_records(
        self,
        path: Path,
        kind: str,
        *,
        unique_key: str | None = None,
        copy: bool = True,
    ) -> list[dict]:
        """Valid records of `path`; bad lines are quarantined (under the lock) and reported.

        A file unchanged since it was last parsed is served from its snapshot, kept in this
        process and (see _snapshot_on_disk) on disk. Callers that only read may pass
        copy=False and must then not modify the records.
        """
        if not self.usable(path):
            return []
        cache = self._snapshot_path(path)
        key = snapshot.file_key(path)
        disk = self._snapshot_on_disk(path, cache)
        records = snapshot.load(cache, key, disk=disk)
        if records is None:
            contents = self._read(path, kind, unique_key)
            if contents.bad:
                with self.locked(f"quarantine {path.name}"):
                    contents = self._read(path, kind, unique_key)  # what is there now
                    if contents.bad:
                        self._quarantine(path, contents)
                key = snapshot.file_key(path)
            records = contents.records
            snapshot.save(cache, key, records, disk=disk)
        return [dict(record) for record in records] if copy else records

    def peek_records(self, path: Path, kind: str) -> tuple[list[dict], int]:
        """(valid records, number of invalid lines) of `path`, writing nothing: for checks
        that report damage and leave its repair to the next write, so that a check never
        changes what it checks. A refused file reads as empty (the health check lists it)."""
        if self.refused(path) is not None:
            return [], 0
        records = snapshot.load(
            self._snapshot_path(path), snapshot.file_key(path), disk=self.cache_usable(None)
        )
        if records is not None:  # a snapshot is saved only of a file without bad lines
            return records, 0
        contents = files.read_jsonl(path, lambda record: problem(kind, record))
        return contents.records, len(contents.bad)

    def held_valid(self, path: Path) -> bool:
        """Whether a snapshot of `path` as it is now is held: a snapshot is made only of a
        file that passed its schema, so the file still does (a check need not read it)."""
        if self.refused(path) is not None:
            return False
        key = snapshot.file_key(path)
        cache = self._snapshot_path(path)
        return (
            key is not None and snapshot.load(cache, key, disk=self.cache_usable(None)) is not None
        )

    def peek_activation(self) -> tuple[dict[str, dict], bool]:
        """(activation state, whether the file is damaged), writing nothing."""
        path = self.layout.activation
        refused = self.refused(path) is not None  # never read, from a snapshot or otherwise
        held = (
            None
            if refused
            else snapshot.load(
                self._snapshot_path(path), snapshot.file_key(path), disk=self.cache_usable(None)
            )
        )
        damaged = False
        if held is not None:
            state = dict(held)
        elif refused:
            state = {}
        else:
            try:
                document = files.read_json(path)
                damaged = problem("activation-metadata", document) is not None
                state = {} if damaged else dict(document["facts"])
            except FileNotFoundError:
                state = {}
            except (ValueError, UnicodeDecodeError):
                state, damaged = {}, True
        _apply_journal(
            state, self.peek_records(self.layout.activation_journal, "activation-journal")[0]
        )
        return state, damaged

    def append_records(
        self, path: Path, kind: str, records: Iterable[dict], *, lines: list[str] | None = None
    ) -> None:
        """Append `records`; `lines`: their lines, made by the caller (_fact_lines)."""
        records = list(records)
        if lines is None:
            lines = [self._checked_line(path, kind, record) for record in records]
        if not self.usable(path):
            return
        cache = self._snapshot_path(path)
        before = snapshot.load(cache, snapshot.file_key(path), disk=False)
        files.append_lines(path, lines, durable=self._durable)
        if lines:
            self.touched(path)
        if before is not None:  # the file is what the snapshot held, plus these records
            snapshot.save(
                cache,
                snapshot.file_key(path),
                before + [dict(r) for r in records],
                disk=self._snapshot_on_disk(path, cache),
            )

    def rewrite_records(
        self, path: Path, kind: str, records: Iterable[dict], *, lines: list[str] | None = None
    ) -> None:
        """Replace the file with `records`; `lines`: their lines, made by the caller."""
        records = list(records)
        if lines is None:
            lines = [self._checked_line(path, kind, record) for record in records]
        if not self.usable(path):
            return
        files.write_lines_atomic(path, lines)
        self.touched(path)
        cache = self._snapshot_path(path)
        snapshot.save(
            cache,
            snapshot.file_key(path),
            [dict(record) for record in records],
            disk=self.cache_usable(cache),
        )

    # -- facts.jsonl as Fact records ---------------------------------------------------------
    def read_facts(self) -> list[Fact]:
        """The facts of facts.jsonl, read like any records (checked against the schema, bad
        lines quarantined), as Facts. The list is new at each call."""
        return self.facts_by_id().all()

    def facts_by_id(self) -> FactsById:
        """The facts of facts.jsonl by id, each made a Fact when first looked up. A Fact
        cannot change, so the ones made from a snapshot of the file serve every later read
        of it."""
        path = self.layout.facts
        records = self.read_records(path, "fact", unique_key="id", copy=False)
        held = _made_facts.get(str(path))
        if held is None or not held.made_of(records):
            held = _made_facts[str(path)] = FactsById(records)
        return held

    def facts_of(self, records: list[dict]) -> list[Fact]:
        """The Facts of valid records of facts.jsonl as peek_records gave them: those already
        made of the same snapshot when there are some (a consolidation's health check reads
        the file its steps read), else new ones."""
        held = _made_facts.get(str(self.layout.facts))
        if held is not None and held.made_of(records):
            return held.all()
        return [Fact.from_record(record, checked=True) for record in records]

    def rewrite_facts(self, facts: Iterable[Fact]) -> None:
        facts = list(facts)
        records = [fact.to_record() for fact in facts]
        self.rewrite_records(
            self.layout.facts, "fact", records, lines=self._fact_lines(facts, records)
        )
        self._hold_facts([], facts)

    def _fact_lines(self, facts: list[Fact], records: list[dict]) -> list[str]:
        """The lines of these facts' records, each checked against the schema unless its
        Fact is known to pass it (read from the file, or checked by intake)."""
        path = self.layout.facts
        return [
            self._line(path, "fact", record)
            if fact.checked
            else self._checked_line(path, "fact", record)
            for fact, record in zip(facts, records)
        ]

    def append_facts(self, facts: Iterable[Fact]) -> None:
        facts = list(facts)
        path = self.layout.facts
        held = _made_facts.get(str(path))
        before = snapshot.load(self._snapshot_path(path), snapshot.file_key(path), disk=False)
        records = [fact.to_record() for fact in facts]
        self.append_records(path, "fact", records, lines=self._fact_lines(facts, records))
        if held is not None and before is not None and held.made_of(before):
            self._hold_facts(held.made, facts)

    def _hold_facts(self, earlier: list[Fact | None], facts: list[Fact]) -> None:
        """What was just written is what the next read would make: keep it for that read."""
        path = self.layout.facts
        records = snapshot.load(self._snapshot_path(path), snapshot.file_key(path), disk=False)
        if records is not None and len(records) == len(earlier) + len(facts):
            _made_facts[str(path)] = FactsById(records, made=[*earlier, *facts])

    def _snapshot_path(self, path: Path) -> Path:
        return self.layout.snapshot_for(path)

    def _snapshot_on_disk(self, path: Path, cache: Path) -> bool:
        """Whether the snapshot of records of `path` is kept on disk too: not the journal of
        recalls, which changes at every recall (kept in this process only)."""
        return path != self.layout.activation_journal and self.cache_usable(cache)

    def cache_usable(self, cache: Path | None) -> bool:
        """Whether snapshots may be kept on disk (state/cache/ not refused): otherwise they
        are kept in this process only."""
        return self.refused(self.layout.cache_dir if cache is None else cache) is None

    def _read(self, path: Path, kind: str, unique_key: str | None) -> JsonlContents:
        contents = files.read_jsonl(path, lambda record: problem(kind, record))
        if unique_key is None:
            return contents
        kept = JsonlContents(bad=contents.bad)
        seen: set = set()
        for record, raw, number in zip(contents.records, contents.raw_lines, contents.line_numbers):
            if record[unique_key] in seen:
                kept.bad.append(
                    BadLine(number, raw, f"duplicate {unique_key} {record[unique_key]!r}")
                )
                continue
            seen.add(record[unique_key])
            kept.keep(record, raw, number)
        kept.bad.sort(key=lambda bad: bad.line)
        return kept

    def _quarantine(self, path: Path, contents: JsonlContents) -> None:
        # Quarantine first and durably, then drop the lines: a crash in between leaves the
        # line in both places, never in neither.
        target = self.layout.quarantine_for(path)
        name = self.layout.relative(path)
        entries = [
            {
                "file": name,
                "line": bad.line,
                "reason": bad.reason[:2000],
                "raw": bad.raw,
                "quarantined_at": self.timestamp,
            }
            for bad in contents.bad
        ]
        self.append_records(target, "quarantine", entries)
        files.write_lines_atomic(path, contents.raw_lines)
        self.touched(path)
        self.note(f"quarantined {len(contents.bad)} invalid line(s) of {name}", repair=True)
        for bad in contents.bad:
            self.warnings.append(
                f"{name}:{bad.line}: {bad.reason}; moved to {self.layout.relative(target)}"
            )

    def lines_beside(
        self, path: Path, kind: str, records: list[dict], held: list[dict] | None, key: str
    ) -> list[str]:
        """The lines of `records`, each checked against the schema unless it equals the
        record of `held` (the file's valid records as read) with the same `key`: a remember
        at 100,000 facts changes a few of entities.jsonl's 90,000 records, and checking
        them all again took a second and a half."""
        known = {record[key]: record for record in held or ()}
        return [
            self._line(path, kind, record)
            if known.get(record[key]) == record
            else self._checked_line(path, kind, record)
            for record in records
        ]

    def _checked_line(self, path: Path, kind: str, record: dict) -> str:
        fault = problem(kind, record)
        if fault:
            raise InvalidInputError(
                f"refusing to write an invalid {kind} record: {fault}",
                source=self.layout.relative(path),
            )
        return self._line(path, kind, record)

    def _line(self, path: Path, kind: str, record: dict) -> str:
        try:
            return files.dumps_record(record)
        except strict_json.JsonRefused as exc:
            raise InvalidInputError(
                f"refusing to write a {kind} record that {exc}", source=self.layout.relative(path)
            ) from None

    # -- whole files -----------------------------------------------------------------------
    # Every write of the data directory goes through these (or the record writers above):
    # each names a path of the layout, and is recorded for the audit log unless the file is
    # derived (Layout.is_derived) or bookkeeping (Layout.unaudited); a removal always is.
    def write_bytes(
        self, path: Path, data: bytes | memoryview | files.Producer, *, before_replace=None
    ) -> None:
        """Replace `path` atomically with `data` (made durable first), or with what `data`
        writes when it is a files.Producer. `before_replace`: called just before the
        rename; raises files.ChangedMeanwhile to give up."""
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
        since it had `size` and `mtime_ns` (raises files.ChangedMeanwhile)."""
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

    # -- JSON files ------------------------------------------------------------------------
    def read_activation(self) -> dict[str, dict]:
        """Per-fact activation state: activation-metadata.json with the journal of recalls
        since its last full write applied over it. A corrupt file is set aside and reads as
        empty.

        The mapping is the caller's to change; its entries are shared with the snapshot, so
        a caller replaces an entry (state[id] = {...}) and never edits one in place.
        """
        state = self.read_activation_file()
        _apply_journal(state, self.activation_journal())
        return state

    def activation_view(self) -> Mapping[str, dict]:
        """The state read_activation gives, read only and without copying the file's: the
        journal's entries looked up first, then the file's (for a recall, which reads the
        state of a few facts)."""
        return ChainMap(self._journal_state(), self.read_activation_file(copy=False))

    def activation_entries(self, ids: set[str]) -> dict[str, dict]:
        """The state of these facts alone, as read_activation gives it (the caller's to
        change)."""
        journal = self._journal_state()
        held = self.read_activation_file(copy=False)
        return {
            fact_id: journal[fact_id] if fact_id in journal else held[fact_id]
            for fact_id in ids
            if fact_id in journal or fact_id in held
        }

    def _journal_state(self) -> dict[str, dict]:
        """The journal's entries applied in order, by fact id (read only).

        Kept between calls: after an append by this process the journal's records begin with
        the ones already applied (the same objects), so only the new ones are applied, to a
        copy, which leaves a view handed out earlier as it was. A journal rewritten or read
        anew from disk is applied from its start."""
        entries = self.activation_journal()
        held = self._journal_view
        if held is not None and held[0] is entries:
            return held[1]
        applied, journal = held if held is not None else ([], {})
        if applied and (
            len(entries) < len(applied) or entries[len(applied) - 1] is not applied[-1]
        ):
            applied, journal = [], {}
        journal = dict(journal)
        _apply_journal(journal, entries[len(applied) :])
        self._journal_view = (entries, journal)
        return journal

    def journal_room(self) -> int:
        """How many entries the journal of recalls takes before write_activation folds it
        into the activation file."""
        return JOURNAL_LIMIT - len(self.activation_journal())

    def activation_journal(self) -> list[dict]:
        """The journal entries of recalls since the activation file was last written whole;
        each replaces the state of its fact, in order."""
        journal = self.layout.activation_journal
        if not journal.exists():
            return []
        return self.read_records(journal, "activation-journal", copy=False)

    def read_activation_file(self, *, copy: bool = True) -> dict[str, dict]:
        """The state activation-metadata.json holds (the caller's to change, unless
        copy=False), without the journal over it."""
        path = self.layout.activation
        self.usable(path)
        cache = self._snapshot_path(path)
        key = snapshot.file_key(path)
        disk = self.cache_usable(cache)
        held = snapshot.load(cache, key, disk=disk)
        if held is not None:
            return dict(held) if copy else held
        try:
            document = files.read_json(path)
        except FileNotFoundError:
            return {}
        except (ValueError, UnicodeDecodeError) as exc:
            self._set_aside(path, f"unreadable ({exc})")
            return {}
        fault = problem("activation-metadata", document)
        if fault:
            self._set_aside(path, fault)
            return {}
        snapshot.save(cache, key, document["facts"], disk=disk)
        return dict(document["facts"])

    def write_activation(
        self,
        state: dict[str, dict],
        changed: Iterable[str] | None = None,
        *,
        journal_limit: int = JOURNAL_LIMIT,
    ) -> None:
        """Record the activation state.

        With `changed` (a recall's few boosted facts), only their entries are appended to
        state/activation-journal.jsonl, while it holds fewer than `journal_limit` lines: a
        recall then writes a few hundred bytes, not the whole file. Otherwise the whole state
        is written to activation-metadata.json (compact, one line) and the journal, now
        folded in, is emptied. Its entries hold values, not changes, so applying one twice
        is harmless: a crash between the two steps loses nothing.
        """
        journal = self.layout.activation_journal
        if changed is not None:
            entries = [{"id": fact_id, **state[fact_id]} for fact_id in changed]
            if len(self.activation_journal()) + len(entries) < journal_limit:
                self.append_records(journal, "activation-journal", entries)
                return
        # An entry that is the very one read from the file passed the schema then: only
        # the others are checked (all 100,000 took a second at every remember).
        held = self.read_activation_file(copy=False) if self.layout.activation.exists() else {}
        self.write_validated_json(
            self.layout.activation,
            "activation-metadata",
            {"updated": self.timestamp, "facts": state},
            compact=True,
            checked={
                "updated": self.timestamp,
                "facts": {
                    fact_id: entry
                    for fact_id, entry in state.items()
                    if held.get(fact_id) is not entry
                },
            },
        )
        cache = self._snapshot_path(self.layout.activation)
        snapshot.save(
            cache,
            snapshot.file_key(self.layout.activation),
            dict(state),
            disk=self.cache_usable(cache),
        )
        if journal.exists():
            self.rewrite_records(journal, "activation-journal", [])

    def fold_activation(self, state: dict[str, dict]) -> bool:
        """Write `state` as the whole activation file, with the journal folded in, unless the
        file already holds exactly that and the journal is empty. True when it wrote."""
        pending = bool(self.activation_journal())
        if not pending and self.layout.activation.exists() and self.read_activation_file() == state:
            return False
        self.write_activation(state)
        return True

    def write_validated_json(
        self, path: Path, kind: str, document, *, compact: bool = False, checked=None
    ) -> None:
        """Write `document` once it passes the `kind` schema. `checked`: the part of it to
        check, when the rest is known to pass (entries read from the file and kept)."""
        fault = problem(kind, document if checked is None else checked)
        if fault:
            raise InvalidInputError(
                f"refusing to write an invalid {kind} document: {fault}",
                source=self.layout.relative(path),
            )
        if not self.usable(path):
            return
        try:
            files.write_json_atomic(path, document, compact=compact)
        except strict_json.JsonRefused as exc:
            raise InvalidInputError(
                f"refusing to write a {kind} document that {exc}", source=self.layout.relative(path)
            ) from None
        self.touched(path)

    def _set_aside(self, path: Path, reason: str) -> None:
        # Activation state is rebuilt from the facts (their creation activation and time);
        # the bad file is kept for a person to look at, never deleted.
        aside = path.with_name(f"{path.name}.corrupt-{self.timestamp.replace(':', '')}")
        with self.locked(f"set aside {path.name}"):
            if path.exists():
                os.replace(path, aside)
                files.fsync_directory(path.parent)
                self.touched(path)
                self.note(f"set aside {self.layout.relative(path)} ({reason})", repair=True)
        self.warnings.append(
            f"{self.layout.relative(path)}: {reason}; moved to "
            f"{self.layout.relative(aside)}, activation reset from facts"
        )

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


def _apply_journal(state: dict[str, dict], entries: list[dict]) -> None:
    """Each journal entry replaces its fact's state (entries hold values, not changes)."""
    for entry in entries:
        state[entry["id"]] = {key: value for key, value in entry.items() if key != "id"}
