"""New conversation turns from an OpenClaw 2026.9 agent's transcript database.

Each agent's transcript is the table `transcript_events(session_id, seq, event_json,
created_at, event_zstd, event_utf8_bytes, navigation_json)` of
`<state dir>/agents/<agent>/agent/openclaw-agent.sqlite`: one JSON event a row, numbered by
`seq` within its session; an event of about 1 KB or more may be stored zstd-compressed in
`event_zstd`, with `event_json` empty. The database is opened read-only (OpenClaw may be
writing to it: it runs in WAL mode, and a busy database is waited for, then left for the
next run), and only events after the last `seq` read of each session are read.

A turn is a `message` event of role `user` or `assistant`: the user's words (a string, or
its text parts) and the assistant's text parts. Tool calls, tool results, thinking, and
what OpenClaw injects itself (a user-role message opening with its internal-context
marker, the date stamp and runtime line it puts around the user's words) stay out. Each
turn is placed (openclaw/provenance.py) from its session's row of `session_windows`, its
message's marks and the tool results before it in its turn; where a session's reading
stopped (`states`) is handed back, for the next read to go on from.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..imports.said import block_text
from ..model.provenance import Provenance
from .provenance import Admission, Classifier, SessionInfo, TurnState, read_sessions

TABLE = "transcript_events"
COLUMNS = ("session_id", "seq", "event_json", "event_zstd", "event_utf8_bytes", "created_at")
INTERNAL_BEGIN = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"
INTERNAL_END = "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"
MAX_EVENT_BYTES = 4 * 1024 * 1024  # OpenClaw's own limit on an event
_INTERNAL_BLOCK = re.compile(
    re.escape(INTERNAL_BEGIN) + r".*?(?:" + re.escape(INTERNAL_END) + r"|\Z)", re.DOTALL
)
# "[Wed 2026-11-25 10:34 UTC] " before the user's words, as the model is shown them.
_DATE_STAMP = re.compile(
    r"^\[[A-Z][a-z]{2} \d{4}-\d{2}-\d{2} \d{1,2}:\d{2}(?::\d{2})?"
    r"(?: [A-Za-z0-9+:-]{1,10})?\] "
)
# The memory's own auto-recall block (openclaw-plugin/index.js), wherever the host put it in
# the user's message: what the memory said, never the owner's words.
_MEMORY_BLOCK = re.compile(r"<relevant-memories>.*?(?:</relevant-memories>|\Z)\s*", re.DOTALL)
# "Runtime: agent=main | session=... | ..." after the first user message of a session.
_RUNTIME_LINE = re.compile(r"\n+Runtime: agent=[^\n]*\Z")


@dataclass(frozen=True)
class TranscriptTurn:
    session_id: str
    seq: int
    ts: str  # ISO 8601, UTC, whole seconds
    role: str  # user or assistant
    text: str
    provenance: Provenance


@dataclass
class TranscriptRead:
    turns: list[TranscriptTurn] = field(default_factory=list)
    last_seq: dict[str, int] = field(default_factory=dict)  # session -> last seq read
    events: int = 0  # events read (turns or not)
    undecodable: int = 0  # events that could not be decoded, skipped
    problem: str | None = None  # why the database was not read; one line, naming it
    states: dict[str, TurnState] = field(default_factory=dict)  # session -> where it stopped
    misplaced: list[str] = field(default_factory=list)  # marks of the wrong type, per message
    excluded: dict[str, Exclusion] = field(default_factory=dict)  # session -> left out


@dataclass(frozen=True)
class Exclusion:
    """A session the admission settings leave out, as one read found it: why ("channel
    telegram"), and the seq of each of its rows after those seen; their events are never
    read. The seqs, not a count: a run that took the lock first may have read past some."""

    reason: str
    seqs: tuple[int, ...]

    def events_after(self, seq: int) -> int:
        return len(self.seqs) - bisect_right(self.seqs, seq)


def read_new_turns(
    database: Path,
    seen: dict[str, int],
    *,
    states: dict[str, TurnState] | None = None,
    admission: Admission | None = None,
    busy_timeout: float = 5.0,
    attempts: int = 3,
) -> TranscriptRead:
    """The turns of `database` after `seen` (session -> last seq read), each session's
    placed on from `states` (where its last reading stopped). A session `admission` leaves
    out is not read: only the seqs of its rows are, and it is read past up to its last."""
    last_error = None
    for attempt in range(attempts):
        try:
            return _read(database, seen, states or {}, admission or Admission(), busy_timeout)
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                return TranscriptRead(problem=f"{database}: cannot be read ({exc}); skipped")
            last_error = exc
            time.sleep(min(1.0, busy_timeout) * (attempt + 1))
        except sqlite3.DatabaseError as exc:
            return TranscriptRead(
                problem=f"{database}: not a readable SQLite database ({exc}); skipped"
            )
    return TranscriptRead(
        problem=f"{database}: busy ({last_error}) after {attempts} tries; "
        "its new turns will be read on the next run"
    )


def check_database(database: Path, *, busy_timeout: float = 1.0) -> str | None:
    """Why the transcripts of `database` cannot be imported, or None (for the health check:
    nothing but its layout is read)."""
    try:
        connection = _connect(database, busy_timeout)
        try:
            return _layout_problem(connection, database)
        finally:
            connection.close()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return None  # OpenClaw is writing: readable, later
        return f"{database}: cannot be read ({exc})"
    except sqlite3.DatabaseError as exc:
        return f"{database}: not a readable SQLite database ({exc})"


def session_ids_of_key(state_dir: Path, key: str) -> set[str]:
    """The ids of the sessions whose key is `key`, in the transcript database of each agent
    of the OpenClaw set-up at `state_dir` (a database that cannot be read adds none)."""
    from .state import read_setup

    found: set[str] = set()
    for agent in read_setup(state_dir).agents:
        if not agent.database.is_file():
            continue
        try:
            connection = _connect(agent.database, 1.0)
            try:
                sessions = read_sessions(connection)
            finally:
                connection.close()
        except sqlite3.Error:
            continue
        found |= {session_id for session_id, info in sessions.items() if info.key == key}
    return found


def _connect(database: Path, busy_timeout: float) -> sqlite3.Connection:
    uri = f"{database.absolute().as_uri()}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=busy_timeout)


def _layout_problem(connection: sqlite3.Connection, database: Path) -> str | None:
    names = {
        row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    if TABLE not in names:
        return (
            f"{database}: no {TABLE} table (not the OpenClaw 2026.9 transcript layout); "
            "nothing imported from it"
        )
    columns = {row[1] for row in connection.execute(f"PRAGMA table_info({TABLE})")}
    missing = [column for column in COLUMNS if column not in columns]
    if missing:
        return (
            f"{database}: table {TABLE} has no column {', '.join(missing)} (an OpenClaw "
            "version this memory does not know); nothing imported from it"
        )
    return None


def _read(
    database: Path,
    seen: dict[str, int],
    states: dict[str, TurnState],
    admission: Admission,
    busy_timeout: float,
) -> TranscriptRead:
    result = TranscriptRead()
    connection = _connect(database, busy_timeout)
    try:
        result.problem = _layout_problem(connection, database)
        if result.problem:
            return result
        known = read_sessions(connection)
        sessions = connection.execute(
            f"SELECT session_id, MAX(seq) FROM {TABLE} GROUP BY session_id"
        ).fetchall()
        for session_id, newest in sessions:
            if not isinstance(session_id, str) or not isinstance(newest, int):
                continue
            after = seen.get(session_id, -1)
            if newest <= after:
                continue
            info = known.get(session_id, SessionInfo())
            refusal = admission.refusal(info)
            if refusal is not None:  # never read: the owner left it out
                seqs = connection.execute(
                    f"SELECT seq FROM {TABLE} WHERE session_id = ? AND seq > ? ORDER BY seq",
                    (session_id, after),
                )
                result.excluded[session_id] = Exclusion(
                    refusal, tuple(seq for (seq,) in seqs if isinstance(seq, int))
                )
                result.last_seq[session_id] = newest
                continue
            rows = connection.execute(
                f"SELECT seq, event_json, event_zstd, event_utf8_bytes, created_at FROM {TABLE} "
                "WHERE session_id = ? AND seq > ? ORDER BY seq",
                (session_id, after),
            )
            placing = Classifier(info, states.get(session_id, TurnState()))
            for seq, event_json, event_zstd, size, created_at in rows:
                result.events += 1
                result.last_seq[session_id] = seq
                event = _event(event_json, event_zstd, size)
                if event is None:
                    result.undecodable += 1
                    continue
                turn = _turn(session_id, seq, event, created_at, placing)
                if turn is not None:
                    result.turns.append(turn)
            result.states[session_id] = placing.state
            result.misplaced += placing.problems
    finally:
        connection.close()
    return result


@dataclass(frozen=True)
class _Event:
    """What a turn is made from in one event of a transcript: its type, its message (when
    the event holds one) and its timestamp, as OpenClaw wrote them."""

    kind: object
    message: Mapping[str, Any] | None
    timestamp: object


def _event(event_json, event_zstd, size) -> _Event | None:
    """The event of a row, or None when it cannot be decoded as a JSON object."""
    if isinstance(event_json, str) and event_json:
        text = event_json
    elif isinstance(event_zstd, bytes) and event_zstd:
        import zstandard

        limit = size if isinstance(size, int) and 0 < size <= MAX_EVENT_BYTES else MAX_EVENT_BYTES
        try:
            text = (
                zstandard.ZstdDecompressor()
                .decompress(event_zstd, max_output_size=limit)
                .decode("utf-8")
            )
        except (zstandard.ZstdError, UnicodeDecodeError):
            return None
    else:
        return None
    try:
        event = json.loads(text)
    except ValueError:
        return None
    if not isinstance(event, dict):
        return None
    message = event.get("message")
    return _Event(
        event.get("type"), message if isinstance(message, dict) else None, event.get("timestamp")
    )


def _turn(
    session_id: str, seq: int, event: _Event, created_at, placing: Classifier
) -> TranscriptTurn | None:
    message = event.message
    if event.kind != "message" or message is None:
        return None
    role = message.get("role")
    if role == "toolResult":
        placing.tool_result(message)
    if role not in ("user", "assistant"):
        return None  # toolResult, system and the like
    if role == "user":
        provenance = placing.user(message)  # a turn begins, said or not
        text = user_words(message.get("content"))
    else:
        provenance = placing.assistant(message)
        text = block_text(message.get("content"))
    if not text:
        return None
    moment = _iso(event.timestamp) or _epoch(message.get("timestamp")) or _epoch(created_at)
    if moment is None:
        return None
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return TranscriptTurn(session_id, seq, stamp, role, text, provenance)


def user_words(content) -> str:
    """What the user said, without what OpenClaw wrapped around it or injected."""
    text = content if isinstance(content, str) else block_text(content)
    if not isinstance(text, str) or text.lstrip().startswith(INTERNAL_BEGIN):
        return ""
    text = _MEMORY_BLOCK.sub("", _INTERNAL_BLOCK.sub("", text))
    text = _RUNTIME_LINE.sub("", _DATE_STAMP.sub("", text.strip()))
    return text.strip()


def _iso(value) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).replace(microsecond=0)


def _epoch(value) -> datetime | None:
    """A moment from epoch milliseconds (or seconds, for values too small to be ms)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    seconds = value / 1000 if value > 10_000_000_000 else value
    try:
        return datetime.fromtimestamp(seconds, timezone.utc).replace(microsecond=0)
    except (OverflowError, OSError, ValueError):
        return None
