"""An OpenClaw workspace's notes, copied into sessions/ as they change.

OpenClaw's agent keeps notes in its workspace: `memory/*.md` (the dated `memory/YYYY-MM-DD.md`
and `memory/YYYY-MM-DD-<slug>.md` among them) and `USER.md`. Each line of text of a note
becomes a turn of the note's copy in sessions/, learned from there as every other log's turns
are (steps/summarize.summarize_notes), so that what the notes say is found by a search and
cited as the note's own path and line.

A line of OpenClaw's own USER.md templates (what it writes into a new workspace: its
instructions to the agent, templates.py) or a placeholder left to fill in ("Prefer ...") is
never copied, so never learned; the owner's lines beside them are.

A note is read again only when its size or modification time changed. The copy is append-only,
like a transcript's: a line once copied stays, and an edit adds only the lines not copied
before, so nothing is learned twice and a note saved again unchanged reinforces nothing. Each
copied line names where it came from, `"origin": "note:memory/2026-11-28.md#L5"` (the note's
path in its workspace and the line it was on). A dated note's lines are turns of its day, in
one copy; an undated note's new lines are turns of the moment they were copied, in its copy of
that day. state/imports.json holds, per note, its size and modification time as read and
which lines (a hash of each, as redacted) were copied, under the key `note:<absolute path>`.
A dated note the older import (`openclaw_memory_dir`, imports.py) copied already is
taken over: the lines it copied are not copied again, and that import leaves the note alone.

A note that is a link, not a regular file, unreadable, not UTF-8 or larger than
MAX_NOTE_BYTES is skipped with a warning naming it; the other notes are copied.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from ..clock import format_iso
from ..errors import OracleError
from ..extract.redact import redact
from ..model.note_lines import NoteLine, note_lines
from ..storage import files
from ..storage.sessions import MAX_TURN_CHARS
from ..storage.store import Store
from .imports import ImportReport, append_day_copy
from .ledger import (
    NOTE_KEY,
    CopiedFile,
    ImportLedger,
    LedgerEntry,
    WorkspaceNote,
    read_import_ledger,
    write_import_ledger,
)
from .templates import is_template_line

MAX_NOTE_BYTES = 2 * 1024 * 1024  # a note larger than this is skipped (no one writes one)
USER_NOTE = "USER.md"
NOTES_DIR = "memory"

# The notes of a workspace, by their path in it: what get reads and a copy's origin names.
NOTE_PATH = re.compile(r"^(?:USER\.md|memory/[^/\\\x00-\x1f\x7f]{1,251}\.md)$")
# The origin of a copied note line: "note:<path>#L<line>".
NOTE_ORIGIN = re.compile(r"note:(USER\.md|memory/[^/\\\x00-\x1f\x7f]{1,251}\.md)#L(\d{1,9})")
DATED = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-[\w.-]+)?\.md$")


@dataclass(frozen=True)
class _Read:
    """A note as read without the lock: its path in the workspace, ledger key, size and
    modification time, and its lines (text redacted) with the hash each is copied under."""

    relative: str
    key: str
    size: int
    mtime_ns: int
    dated: bool
    lines: tuple[tuple[NoteLine, str], ...]
    template_lines: int  # lines left out as OpenClaw's template text


def import_workspace_notes(store: Store, workspace: str | Path, now: datetime) -> ImportReport:
    """Copy the new lines of the workspace's changed notes into sessions/ (under the lock).
    The notes are read without it; the ledger is read again under it, so that what another
    run copied meanwhile is left out."""
    report = ImportReport()
    root = Path(workspace).expanduser()
    if not root.is_dir():
        report.skipped.append(f"{root}: the workspace is not a directory")
        return report
    if not store.usable(store.layout.sessions_dir):
        return report
    ledger_path = store.layout.import_ledger
    before = read_import_ledger(store, ledger_path)
    reads = [read for path in note_files(root) if (read := _read_note(root, path, before, report))]
    if not reads:
        return report
    with store.locked("import workspace notes"):
        ledger = read_import_ledger(store, ledger_path)
        owned = ledger.copies()
        for read in reads:
            _copy_new_lines(store, read, ledger, owned, now, report)
        left_out = sum(read.template_lines for read in reads)
        store.note(
            f"copied {report.turns} line(s) of {report.sources} workspace note(s) into sessions/"
            + (f" ({left_out} line(s) of OpenClaw's templates left out)" if left_out else ""),
            redactions=report.redactions,
        )
        write_import_ledger(store, ledger_path, ledger)
    return report


def note_files(workspace: Path) -> list[Path]:
    """The workspace's notes: USER.md and memory/*.md, links and other entries included
    (they are skipped with a warning when read)."""
    found = []
    user = workspace / USER_NOTE
    if user.exists() or user.is_symlink():
        found.append(user)
    directory = workspace / NOTES_DIR
    if directory.is_dir():
        found += sorted(
            path
            for path in directory.iterdir()
            if path.name.endswith(".md") and NOTE_PATH.match(f"{NOTES_DIR}/{path.name}")
        )
    return found


def _read_note(root: Path, path: Path, ledger: ImportLedger, report: ImportReport) -> _Read | None:
    """The note at `path` if it changed since the ledger's entry, else None; a note that
    cannot be read is reported and skipped."""
    relative = path.relative_to(root).as_posix()
    where = f"{root}/{relative}"
    try:
        found = os.lstat(path)
        if stat.S_ISLNK(found.st_mode):
            report.skipped.append(f"{where}: a symbolic link, not a note; skipped")
            return None
        if not stat.S_ISREG(found.st_mode):
            report.skipped.append(f"{where}: not a regular file; skipped")
            return None
        if found.st_size > MAX_NOTE_BYTES:
            report.skipped.append(
                f"{where}: {found.st_size:,} bytes, more than a note may hold "
                f"({MAX_NOTE_BYTES:,}); skipped"
            )
            return None
        key = NOTE_KEY + str(path.resolve())
        known = ledger.sources.get(key)
        if isinstance(known, WorkspaceNote) and (known.size, known.mtime_ns) == (
            found.st_size,
            found.st_mtime_ns,
        ):
            return None
        with open(path, "rb") as handle:
            data = handle.read(MAX_NOTE_BYTES + 1)
    except OSError as exc:
        report.skipped.append(f"{where}: cannot be read ({exc.strerror or exc}); skipped")
        return None
    if len(data) > MAX_NOTE_BYTES:
        report.skipped.append(f"{where}: larger than a note ({MAX_NOTE_BYTES:,} bytes); skipped")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        report.skipped.append(f"{where}: not UTF-8 text (byte {exc.start}); skipped")
        return None
    dated = DATED.match(path.name) if relative.startswith(f"{NOTES_DIR}/") else None
    day = _day_of(dated.group(1)) if dated else None
    lines = []
    template_lines = 0
    for said in note_lines(text, day or datetime(1970, 1, 1, tzinfo=timezone.utc)):
        if is_template_line(said.text):
            template_lines += 1  # OpenClaw's words to the agent, never the owner's
            continue
        redacted = redact(said.text)
        report.redactions += redacted.count
        kept = redacted.text[:MAX_TURN_CHARS]
        said = NoteLine(said.line, said.ts, said.role, kept)
        lines.append((said, _digest(f"{said.role}\n{kept}")))
    return _Read(
        relative,
        key,
        found.st_size,
        found.st_mtime_ns,
        day is not None,
        tuple(lines),
        template_lines,
    )


def _day_of(named: str) -> datetime | None:
    try:
        return datetime.fromisoformat(named).replace(tzinfo=timezone.utc)
    except ValueError:  # a name like 2026-13-45.md: a note, but of no day
        return None


def _copy_new_lines(
    store: Store,
    read: _Read,
    ledger: ImportLedger,
    owned: set[str],
    now: datetime,
    report: ImportReport,
) -> None:
    """Append the lines of `read` that its ledger entry has not copied to the note's copy
    (a dated note's of its day, else that of today), and note the note as read."""
    entry = ledger.sources.get(read.key)
    if not isinstance(entry, WorkspaceNote):
        legacy = ledger.sources.get(read.key.removeprefix(NOTE_KEY))
        copied_before = sorted(_copied_before(store, legacy))
        entry = ledger.sources[read.key] = WorkspaceNote(read.relative, 0, 0, {}, copied_before)
    copied = set(entry.copied)
    fresh = []
    for said, digest in read.lines:
        if digest not in copied:
            copied.add(digest)
            fresh.append(said)
            entry.copied.append(digest)
    entry.path, entry.size, entry.mtime_ns = read.relative, read.size, read.mtime_ns
    report.sources += 1
    if not fresh:
        return
    if not read.dated:  # an undated note's lines are said when they are first seen
        fresh = [NoteLine(said.line, now, said.role, said.text) for said in fresh]
    day = fresh[0].ts.date().isoformat()
    lines = [
        files.dumps_record(
            {
                "ts": format_iso(said.ts),
                "role": said.role,
                "text": said.text,
                "origin": f"{NOTE_KEY}{read.relative}#L{said.line}",
            }
        )
        for said in fresh
    ]
    name = append_day_copy(store, entry.files, day, format_iso(fresh[0].ts), lines, owned)
    report.turns += len(fresh)
    if f"sessions/{name}" not in report.files_written:
        report.files_written.append(f"sessions/{name}")


def _copied_before(store: Store, legacy: LedgerEntry | None) -> set[str]:
    """The lines of a note that the older import of dated notes (`openclaw_memory_dir`)
    copied already, as their hashes: they were learned, and are not copied again."""
    hashes: set[str] = set()
    for name in legacy.files if isinstance(legacy, CopiedFile) else []:
        for _number, raw in _lines_of(store.layout.sessions_dir / name, 1 << 30):
            try:
                record = json.loads(raw)
                said = f"{record['role']}\n{record['text']}"
            except (ValueError, KeyError, TypeError):
                continue
            hashes.add(_digest(said))
    return hashes


def _digest(said: str) -> str:
    return hashlib.sha256(said.encode()).hexdigest()[:16]


def is_note_path(path: str) -> bool:
    """Whether `path` names a note of a workspace (USER.md, memory/<name>.md)."""
    pure = PurePosixPath(path)
    return (
        not pure.is_absolute()
        and ".." not in pure.parts
        and "\\" not in path
        and NOTE_PATH.match(path) is not None
    )


def note_cited(origin: object) -> tuple[str, int] | None:
    """(note path, line) a copied line's origin names, or None for another origin."""
    found = NOTE_ORIGIN.fullmatch(origin) if isinstance(origin, str) else None
    return (found.group(1), int(found.group(2))) if found else None


def note_citations(
    store: Store, cited: Iterable[tuple[str, int]]
) -> dict[tuple[str, int], tuple[str, int]]:
    """For each (session log, line) of `cited` that is a copied note line, the note's path
    and line; each copy read once. A ledger that cannot be read cites none (the hits then
    cite their copies: a search is never stopped by it)."""
    try:
        ledger = read_import_ledger(store, store.layout.import_ledger)
    except (OracleError, OSError):
        return {}
    copies = {
        f"sessions/{name}"
        for entry in ledger.sources.values()
        if isinstance(entry, WorkspaceNote)
        for name in entry.files.values()
    }
    wanted: dict[str, set[int]] = {}
    for log, line in cited:
        if log in copies:
            wanted.setdefault(log, set()).add(line)
    found: dict[tuple[str, int], tuple[str, int]] = {}
    for log, lines in wanted.items():
        for number, raw in _lines_of(store.layout.root / log, max(lines)):
            if number in lines:
                try:
                    origin = json.loads(raw).get("origin")
                except (ValueError, AttributeError):
                    continue
                note = note_cited(origin)
                if note is not None:
                    found[(log, number)] = note
    return found


def _lines_of(path: Path, last: int) -> Iterator[tuple[int, bytes]]:
    try:
        with open(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                yield number, raw
                if number >= last:
                    return
    except OSError:
        return
