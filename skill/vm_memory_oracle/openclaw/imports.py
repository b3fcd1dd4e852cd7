"""Copies of OpenClaw's own records in sessions/, in the session log format.

OpenClaw 2026.9 (`openclaw_state_dir`): every agent's transcript database
(transcripts.py), read incrementally by (agent, session, seq). The new turns of a
session are appended to its copy of that day, each line naming where it came from
(`"origin": "openclaw:<agent>/<session>#<seq>"`), so a fact learned from it cites both the
copy's line and the OpenClaw session. A session the admission settings leave out
(`exclude_channels`, `exclude_chat_types`, `exclude_hook_sources`) is read past without
reading its events: its seq moves on, and its ledger entry counts what was left unread.

Older versions, each read only when its directory is configured:
- session transcripts (<state>/agents/<agentId>/sessions/*.jsonl, and their archived
  `*.jsonl.<reason>.<time>` copies): a `session` header line, then entries; the
  `message` entries with role user or assistant become turns (their text parts only;
  thinking, tool calls and tool results are left out);
- daily notes (<workspace>/memory/YYYY-MM-DD*.md): each line of text becomes a turn of
  that day, a leading "HH:MM" setting its time, "user:"/"assistant:" its role.

A source is copied again only when its size or modification time changed. The copies are
split by day (UTC) and named after their first turn, so provenance points inside the data
directory and cleaning old sessions never touches OpenClaw's files.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ..clock import format_iso
from ..errors import DataDirError
from ..extract.redact import redact
from ..forgetting.marks import Forgotten, read_forgotten
from ..imports.said import block_text
from ..model.note_lines import note_lines
from ..model.provenance import INTERACTIVE, OWNER, SYSTEM, Provenance
from ..storage import files, strict_json
from ..storage.sessions import MAX_TURN_CHARS
from ..storage.store import Store
from .ledger import (
    NOTE_KEY,
    CopiedFile,
    ExcludedCount,
    ImportLedger,
    SessionCopies,
    TranscriptDatabase,
    read_import_ledger,
    write_import_ledger,
)
from .provenance import Admission, TurnState
from .state import Agent, read_setup
from .transcripts import TranscriptRead, read_new_turns

_NOTE_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-[\w.-]+)?\.md$")
_TRANSCRIPT_NAME = re.compile(r"\.jsonl(?:\.[\w:.-]+)?$")


@dataclass(frozen=True, slots=True)
class _CopiedTurn:
    """A turn of an older OpenClaw file, as its copy in sessions/ holds it."""

    ts: str
    role: str
    text: str


@dataclass
class ImportReport:
    sources: int = 0
    files_written: list[str] = field(default_factory=list)
    redactions: int = 0
    skipped: list[str] = field(default_factory=list)  # "path: reason"
    cut: list[str] = field(default_factory=list)  # "origin: how long; what was kept"
    events: int = 0  # OpenClaw transcript events read
    turns: int = 0  # of them, conversation turns copied
    # why sessions were left out (the admission settings) -> how many, and their events
    excluded: dict[str, ExcludedCount] = field(default_factory=dict)


def import_openclaw(
    store: Store, *, sessions_dir: str | None, memory_dir: str | None
) -> ImportReport:
    """Bring new or changed OpenClaw transcripts and notes into sessions/ (under the lock)."""
    report = ImportReport()
    sources: list[tuple[Path, str]] = []
    if sessions_dir:
        sources += [
            (path, "transcript")
            for path in _listing(Path(sessions_dir).expanduser(), report)
            if _TRANSCRIPT_NAME.search(path.name) and not path.name.endswith(".zst")
        ]
    if memory_dir:
        sources += [
            (path, "notes")
            for path in _listing(Path(memory_dir).expanduser(), report)
            if _NOTE_NAME.match(path.name)
        ]
    if not sources or not store.usable(store.layout.sessions_dir):
        return report
    layout = store.layout
    ledger_path = layout.import_ledger
    with store.locked("import openclaw"):
        ledger = read_import_ledger(store, ledger_path)
        owned = ledger.copies()
        changed = False
        for path, kind in sources:
            key = str(path.resolve())
            if kind == "notes" and NOTE_KEY + key in ledger.sources:
                continue  # the plugin learns it as a workspace note (notes.py)
            stat = path.stat()
            known = ledger.sources.get(key)
            known = known if isinstance(known, CopiedFile) else None
            if known and (known.size, known.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
                continue
            report.sources += 1
            turns = _transcript_turns(path) if kind == "transcript" else _note_turns(path)
            written = _write_copies(
                store, turns, previous=known.files if known else [], owned=owned, report=report
            )
            owned.update(written)
            ledger.sources[key] = CopiedFile(stat.st_size, stat.st_mtime_ns, written)
            changed = True
        if changed:
            store.note(
                f"copied {report.sources} OpenClaw file(s) into sessions/",
                redactions=report.redactions,
            )
            write_import_ledger(store, ledger_path, ledger)
    return report


def import_openclaw_state(
    store: Store,
    state_dir: str,
    *,
    agents: Collection[str] | None = None,
    admission: Admission | None = None,
    busy_timeout: float = 5.0,
) -> ImportReport:
    """Bring every agent's new transcript turns into sessions/ (with `agents`, those
    agents' only: a turn that just ended), but for the sessions `admission` leaves out. The
    databases are read without the store's lock (OpenClaw may keep one busy); the copies are
    written under it, leaving out what another run imported meanwhile."""
    read = read_openclaw_state(
        store, state_dir, agents=agents, admission=admission, busy_timeout=busy_timeout
    )
    return copy_read_turns(store, read)


@dataclass
class StateRead:
    """The new turns of OpenClaw's agents, read from their databases without the store's
    lock, to be copied under it (copy_read_turns): (agent id, ledger key, read) for each
    agent with any, and what an import reports so far."""

    reads: list[tuple[str, str, TranscriptRead]]
    report: ImportReport


def read_openclaw_state(
    store: Store,
    state_dir: str,
    *,
    agents: Collection[str] | None = None,
    admission: Admission | None = None,
    busy_timeout: float = 5.0,
) -> StateRead:
    """Every agent's transcript turns after those the import ledger has seen (with
    `agents`, those agents' only), read without the store's lock; a session `admission`
    leaves out is read past, never read."""
    report = ImportReport()
    if not store.usable(store.layout.sessions_dir):
        return StateRead([], report)
    setup = read_setup(state_dir)
    report.skipped += setup.problems
    chosen = [agent for agent in setup.agents if agents is None or agent.id in agents]
    ledger = read_import_ledger(store, store.layout.import_ledger)
    return StateRead(
        _read_agents(chosen, ledger, report, admission or Admission(), busy_timeout), report
    )


def copy_read_turns(store: Store, read: StateRead) -> ImportReport:
    """The turns `read` found copied into sessions/ under the store's lock, leaving out
    what another run imported since they were read."""
    report = read.report
    if not read.reads:
        return report
    ledger_path = store.layout.import_ledger
    with store.locked("import openclaw"):
        ledger = read_import_ledger(store, ledger_path)
        owned = ledger.copies()
        forgotten = read_forgotten(store)
        for agent_id, key, transcript in read.reads:
            sessions = ledger.database(key).sessions
            _copy_new_turns(store, agent_id, transcript, sessions, owned, report, forgotten)
        store.note(
            f"imported {report.turns} OpenClaw turn(s) of {report.events} event(s) into sessions/"
            + "".join(
                f"; left out, as the settings ask: {count.sessions} session(s) of {reason} "
                f"({count.events} event(s) unread)"
                for reason, count in sorted(report.excluded.items())
            ),
            redactions=report.redactions,
        )
        write_import_ledger(store, ledger_path, ledger)
    return report


def agent_copies(store: Store, state_dir: str, agent: str) -> list[str]:
    """The names of the copies in sessions/ of OpenClaw agent `agent`'s conversations, as
    the import ledger lists them."""
    ledger = read_import_ledger(store, store.layout.import_ledger)
    found = [each for each in read_setup(state_dir).agents if each.id == agent]
    if not found:
        return []
    entry = ledger.sources.get(_database_key(found[0].database, ledger))
    return entry.copies() if isinstance(entry, TranscriptDatabase) else []


def _read_agents(
    agents: list[Agent],
    ledger: ImportLedger,
    report: ImportReport,
    admission: Admission,
    busy_timeout: float,
) -> list[tuple[str, str, TranscriptRead]]:
    """Each agent's turns after those the ledger has seen, as (agent id, ledger key, read),
    for the agents with any; a database that cannot be read is reported and skipped."""
    reads: list[tuple[str, str, TranscriptRead]] = []
    for agent in agents:
        database = agent.database
        if not database.exists() and not database.is_symlink():
            continue  # the agent has not talked yet
        if database.is_symlink() or not database.is_file():
            report.skipped.append(f"{database}: not a regular file; skipped")
            continue
        key = _database_key(database, ledger)
        entry = ledger.sources.get(key)
        known = entry.sessions if isinstance(entry, TranscriptDatabase) else {}
        seen = {session: copies.seq for session, copies in known.items()}
        states = {session: copies.turn for session, copies in known.items()}
        read = read_new_turns(
            database, seen, states=states, admission=admission, busy_timeout=busy_timeout
        )
        if read.problem:
            report.skipped.append(read.problem)
            continue
        if read.misplaced:
            report.skipped.append(
                f"{database}: {len(read.misplaced)} message(s) with marks of the wrong type "
                f"read as untrusted ({read.misplaced[0]})"
            )
        if read.undecodable:
            report.skipped.append(
                f"{database}: {read.undecodable} event(s) could not be decoded; skipped"
            )
        report.events += read.events
        if read.last_seq:
            reads.append((agent.id, key, read))
    return reads


def _database_key(database: Path, ledger: ImportLedger) -> str:
    """The ledger's key for an agent's database: the key an earlier run wrote for the same
    file, however its state directory was spelled then (`~`, a symlink, a trailing slash:
    the nightly run and the plugin may each spell it their way), else `sqlite:<path>`.
    One file has one key, so its turns are copied once."""
    key = f"sqlite:{database}"
    if key in ledger.sources:
        return key
    try:
        real = database.resolve()
    except OSError:
        return key
    for known in ledger.sources:
        if known.startswith("sqlite:") and _resolved(known.removeprefix("sqlite:")) == real:
            return known
    return key


def _resolved(path: str) -> Path | None:
    try:
        return Path(path).expanduser().resolve()
    except OSError:
        return None


def _copy_new_turns(
    store: Store,
    agent_id: str,
    read: TranscriptRead,
    sessions: dict[str, SessionCopies],
    owned: set[str],
    report: ImportReport,
    forgotten: Forgotten,
) -> None:
    """Append one agent's turns that the ledger's `sessions` has not seen to their copies
    (one per session and day), each with its provenance, then move each session's seen seq
    on to what was read. Scaffolding (a heartbeat, a cron run, a sub-agent's own session) is
    not copied: it is no one's words, and never memory; nor is a turn forgotten (a row read
    again, or another's repeating a forgotten turn's words)."""
    fresh = [
        turn
        for turn in read.turns
        if (turn.session_id not in sessions or turn.seq > sessions[turn.session_id].seq)
        and turn.provenance.origin != SYSTEM
        and not forgotten.covers_row(
            f"openclaw:{agent_id}/{turn.session_id}#{turn.seq}",
            turn.ts,
            turn.role,
            turn.text,
            turn.provenance.origin == OWNER,
        )
    ]
    groups: dict[tuple[str, str], list] = {}
    for turn in fresh:
        groups.setdefault((turn.session_id, turn.ts[:10]), []).append(turn)
    for (session_id, day), turns in sorted(groups.items()):
        known = sessions.setdefault(session_id, SessionCopies())
        lines = []
        for turn in turns:
            origin = f"openclaw:{agent_id}/{session_id}#{turn.seq}"
            speaker = None
            if turn.role == "user" and turn.provenance.origin != OWNER:
                # another person in a group: their words, not the owner's
                if turn.provenance.sender and turn.provenance.session == INTERACTIVE:
                    speaker = turn.provenance.sender
            lines.append(
                copied_line(origin, turn.ts, turn.role, turn.text, turn.provenance, report, speaker)
            )
        name = append_day_copy(store, known.files, day, turns[0].ts, lines, owned)
        report.turns += len(turns)
        if f"sessions/{name}" not in report.files_written:
            report.files_written.append(f"sessions/{name}")
    for session_id, seq in read.last_seq.items():
        known = sessions.setdefault(session_id, SessionCopies())
        if seq > known.seq:
            exclusion = read.excluded.get(session_id)
            if exclusion is not None:
                # Read past for good: turning the setting off later must not bring back
                # what was said while the owner wanted it left out.
                events = exclusion.events_after(known.seq)
                known.read_past(exclusion.reason, events)
                count = report.excluded.get(exclusion.reason, ExcludedCount(0, 0))
                report.excluded[exclusion.reason] = ExcludedCount(
                    count.sessions + 1, count.events + events
                )
            known.seq = seq
            known.turn = read.states.get(session_id, TurnState())


def copied_line(
    origin: str,
    ts: str,
    role: str,
    text: str,
    provenance: Provenance,
    report: ImportReport,
    speaker: str | None = None,
) -> str:
    """The line of a copy in sessions/ of a turn said elsewhere: its secrets redacted, cut
    to MAX_TURN_CHARS (a pasted file: its opening, as a log holds it), naming where it was
    said (`origin`) and who said it."""
    cleaned = redact(text)
    report.redactions += cleaned.count
    text = cleaned.text
    if len(text) > MAX_TURN_CHARS:
        report.cut.append(f"{origin}: {len(text):,} characters, the first {MAX_TURN_CHARS:,} kept")
        text = text[:MAX_TURN_CHARS]
    record = {
        "ts": ts,
        "role": role,
        "text": text,
        "origin": origin,
        "provenance": provenance.to_json(),
    }
    if speaker:
        record["speaker"] = speaker
    return files.dumps_record(record)


def append_day_copy(
    store: Store,
    day_files: dict[str, str],
    day: str,
    first_ts: str,
    lines: list[str],
    owned: set[str],
) -> str:
    """Add `lines` to the session's copy of `day` (`day_files`: day -> copy), starting a new
    copy, named after `first_ts`, when it has none usable; the copy's name."""
    sessions_dir = store.layout.sessions_dir
    name = day_files.get(day)
    if name:
        path = sessions_dir / name
        if store.refused(path) is None and path.is_file():
            store.append_lines(path, lines)
            return name
    first = datetime.fromisoformat(first_ts.replace("Z", "+00:00"))
    name = _free_name(store, first, [], owned, lines[0])
    store.write_lines(sessions_dir / name, lines)
    day_files[day] = name
    owned.add(name)
    return name


def _listing(directory: Path, report: ImportReport) -> list[Path]:
    if not directory.is_dir():
        report.skipped.append(f"{directory}: not a directory")
        return []
    return sorted(path for path in directory.iterdir() if path.is_file())


def _transcript_turns(path: Path) -> list[_CopiedTurn]:
    turns = []
    with open(path, "rb") as handle:
        for raw in handle:
            try:
                entry = strict_json.loads(raw.decode("utf-8"))
            except (strict_json.JsonRefused, UnicodeDecodeError):
                continue
            if not isinstance(entry, dict) or entry.get("type") != "message":
                continue
            message = entry.get("message")
            if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
                continue
            text = block_text(message.get("content"))
            moment = _moment(entry.get("timestamp"), message.get("timestamp"))
            if text and moment is not None:
                turns.append(_CopiedTurn(format_iso(moment), message["role"], text))
    return turns


def _moment(iso_value, epoch_ms) -> datetime | None:
    if isinstance(iso_value, str):
        try:
            parsed = datetime.fromisoformat(iso_value.replace("Z", "+00:00"))
            return (
                (parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc))
                .astimezone(timezone.utc)
                .replace(microsecond=0)
            )
        except ValueError:
            pass
    if isinstance(epoch_ms, (int, float)) and not isinstance(epoch_ms, bool):
        return datetime.fromtimestamp(epoch_ms / 1000, timezone.utc).replace(microsecond=0)
    return None


def _note_turns(path: Path) -> list[_CopiedTurn]:
    named = _NOTE_NAME.match(path.name)  # listed because it matched
    assert named is not None, path
    day = datetime.fromisoformat(named.group(1)).replace(tzinfo=timezone.utc)
    text = path.read_text(encoding="utf-8", errors="replace")
    turns = [
        _CopiedTurn(format_iso(said.ts), said.role, said.text) for said in note_lines(text, day)
    ]
    return sorted(turns, key=lambda turn: turn.ts)


def _write_copies(
    store: Store,
    turns: list[_CopiedTurn],
    *,
    previous: list[str],
    owned: set[str],
    report: ImportReport,
) -> list[str]:
    """One sessions/ file per day of `turns`, named after its first turn; secrets redacted."""
    layout = store.layout
    by_day: dict[str, list[_CopiedTurn]] = {}
    for turn in turns:
        by_day.setdefault(turn.ts[:10], []).append(turn)
    written: list[str] = []
    for _day, day_turns in sorted(by_day.items()):
        first = datetime.fromisoformat(day_turns[0].ts.replace("Z", "+00:00"))
        lines = []
        for turn in day_turns:
            cleaned = redact(turn.text)
            report.redactions += cleaned.count
            record = {"ts": turn.ts, "role": turn.role, "text": cleaned.text}
            lines.append(files.dumps_record(record))
        name = _free_name(store, first, previous, owned | set(written), lines[0])
        store.write_lines(layout.sessions_dir / name, lines)
        written.append(name)
        report.files_written.append(f"sessions/{name}")
    return written


def _free_name(
    store: Store, first: datetime, previous: list[str], taken: set[str], first_line: str
) -> str:
    """The copy's name: its first turn's time, moved on a second while another file has it
    (or a refused entry: a planted link is never written through).

    A file that starts with the same turn is an earlier copy of the same source (the ledger
    may have been lost): it is reused, not copied again under another name.
    """
    layout = store.layout
    moment = first
    while True:
        name = moment.strftime("%Y-%m-%d-%H%M%S") + ".jsonl"
        path = layout.sessions_dir / name
        usable = store.refused(path) is None and not path.is_symlink()
        if usable and (name in previous or (name not in taken and not path.exists())):
            return name
        if usable and name not in taken and _first_line(path) == first_line:
            return name
        moment += timedelta(seconds=1)
        if moment.date() != first.date():
            raise DataDirError(
                layout.sessions_dir, f"no free session file name left on {first.date()}"
            )


def _first_line(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.readline().rstrip("\n")
    except OSError:
        return None
