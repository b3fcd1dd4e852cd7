"""state/imports.json, the import ledger: what the OpenClaw imports copied into sessions/,
by source. An entry is one of three kinds, each under a key of its own:
- an older OpenClaw's file (a session transcript or a dated note, imports.py), under its
  absolute path: copied whole, and again when its size or modification time changed;
- an agent's transcript database (OpenClaw 2026.9, imports.py), under `sqlite:<path>`: for
  each session, the last event read and its copy of each day, and how many of its events
  were read past unread because the admission settings left it out, by why (kept when the
  settings change: what the health check reports);
- a workspace note (notes.py), under `note:<absolute path>`: its path in the workspace, its
  size and modification time when last read, its copy of each day, and the lines copied;
- a conversation of another assistant's history (imports/history.py), under
  `<format>:<conversation id>` (chatgpt, claude-code, codex): how many of its turns were
  read, and its copy of each day.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..storage.store import Store
from .provenance import TurnState

TRANSCRIPTS = "openclaw-transcripts"
NOTES = "workspace-note"  # a workspace note's entry (notes.py)
NOTE_KEY = "note:"  # ... keyed note:<absolute path>
HISTORY = "history"  # a conversation of another assistant's history (imports/history.py)


@dataclass
class CopiedFile:
    """A file of an older OpenClaw, as it was when copied, and its copies."""

    size: int
    mtime_ns: int
    files: list[str]

    def copies(self) -> list[str]:
        return list(self.files)

    def to_json(self) -> dict[str, Any]:
        return {"size": self.size, "mtime_ns": self.mtime_ns, "files": self.files}


@dataclass(frozen=True)
class ExcludedCount:
    """What the admission settings left out for one reason: how many sessions, and how
    many of their events were read past without being read."""

    sessions: int
    events: int

    def to_json(self) -> dict[str, int]:
        return {"sessions": self.sessions, "events": self.events}


@dataclass
class SessionCopies:
    """One session of a transcript database: the last event read (-1: none) and the copy
    in sessions/ of each day (YYYY-MM-DD) its turns go to."""

    seq: int = -1
    files: dict[str, str] = field(default_factory=dict)
    turn: TurnState = field(default_factory=TurnState)  # where its reading stopped
    # why it was left out ("channel telegram") -> its events read past unread, in all
    excluded: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"seq": self.seq, "files": self.files}
        turn = self.turn.to_json()
        if turn:
            document["turn"] = turn
        if self.excluded:
            document["excluded"] = self.excluded
        return document

    def read_past(self, reason: str, events: int) -> None:
        self.excluded[reason] = self.excluded.get(reason, 0) + events


@dataclass
class TranscriptDatabase:
    """An agent's transcript database: its sessions, by id."""

    sessions: dict[str, SessionCopies] = field(default_factory=dict)

    def copies(self) -> list[str]:
        return [name for session in self.sessions.values() for name in session.files.values()]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": TRANSCRIPTS,
            "sessions": {key: session.to_json() for key, session in self.sessions.items()},
        }


@dataclass
class WorkspaceNote:
    """A workspace note: its path in the workspace, its size and modification time when
    last read, the copy of each day its lines go to, and the lines copied (each a hash of
    its role and redacted text)."""

    path: str
    size: int
    mtime_ns: int
    files: dict[str, str]
    copied: list[str]

    def copies(self) -> list[str]:
        return list(self.files.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": NOTES,
            "path": self.path,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "files": self.files,
            "copied": self.copied,
        }


@dataclass
class HistoryConversation:
    """A conversation of another assistant's history: how many of its turns were read
    (those after are new), and the copy in sessions/ of each day (YYYY-MM-DD) its turns go
    to."""

    turns: int = 0
    files: dict[str, str] = field(default_factory=dict)

    def copies(self) -> list[str]:
        return list(self.files.values())

    def to_json(self) -> dict[str, Any]:
        return {"kind": HISTORY, "turns": self.turns, "files": self.files}


LedgerEntry = CopiedFile | TranscriptDatabase | WorkspaceNote | HistoryConversation


@dataclass
class ImportLedger:
    """Every source copied, by key."""

    sources: dict[str, LedgerEntry] = field(default_factory=dict)

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> ImportLedger:
        return cls({key: _entry(data) for key, data in document["sources"].items()})

    def to_json(self) -> dict[str, Any]:
        return {"sources": {key: entry.to_json() for key, entry in self.sources.items()}}

    def copies(self) -> set[str]:
        """The names of every copy in sessions/ an entry owns."""
        return {name for entry in self.sources.values() for name in entry.copies()}

    def excluded(self) -> dict[str, ExcludedCount]:
        """What the admission settings have left out of every transcript database, by why."""
        counts: dict[str, ExcludedCount] = {}
        for entry in self.sources.values():
            if not isinstance(entry, TranscriptDatabase):
                continue
            for session in entry.sessions.values():
                for reason, events in session.excluded.items():
                    count = counts.get(reason, ExcludedCount(0, 0))
                    counts[reason] = ExcludedCount(count.sessions + 1, count.events + events)
        return dict(sorted(counts.items()))

    def conversation(self, key: str) -> HistoryConversation:
        """The entry of the imported conversation `key`, a new one when it has none."""
        entry = self.sources.get(key)
        if not isinstance(entry, HistoryConversation):
            entry = self.sources[key] = HistoryConversation()
        return entry

    def turns_read(self, key: str) -> int:
        """How many turns of the imported conversation `key` were read (0: none)."""
        entry = self.sources.get(key)
        return entry.turns if isinstance(entry, HistoryConversation) else 0

    def database(self, key: str) -> TranscriptDatabase:
        """The entry of the transcript database `key`, a new one when it has none."""
        entry = self.sources.get(key)
        if not isinstance(entry, TranscriptDatabase):
            entry = self.sources[key] = TranscriptDatabase()
        return entry


def _entry(data: dict[str, Any]) -> LedgerEntry:
    if data.get("kind") == TRANSCRIPTS:
        return TranscriptDatabase(
            {
                key: SessionCopies(
                    session["seq"],
                    session["files"],
                    TurnState.of(session.get("turn")),
                    _excluded(session.get("excluded")),
                )
                for key, session in data["sessions"].items()
            }
        )
    if data.get("kind") == HISTORY:
        return HistoryConversation(data["turns"], data["files"])
    if data.get("kind") == NOTES:
        return WorkspaceNote(
            data["path"], data["size"], data["mtime_ns"], data["files"], data["copied"]
        )
    return CopiedFile(data["size"], data["mtime_ns"], data["files"])


def read_import_ledger(store: Store, path: Path) -> ImportLedger:
    """The ledger at `path` (checked against its schema), an empty one when there is none."""
    if not path.exists():
        return ImportLedger()
    return ImportLedger.from_json(store.read_json_file(path, "import-ledger"))


def readable_import_ledger(store: Store) -> ImportLedger | None:
    """The data directory's ledger for those who only report from it (recall, the health
    check): None when the store refused it or it cannot be read (the health check says
    why), so a broken ledger never stops an answer."""
    from ..errors import OracleError

    path = store.layout.import_ledger
    if store.refused(path) is not None:
        return None
    try:
        return read_import_ledger(store, path)
    except OracleError:
        return None


def transcript_copies(store: Store) -> frozenset[str]:
    """The names of the session logs in sessions/ that copy OpenClaw's transcripts; none
    when the ledger cannot be read. Kept in memory while the ledger file is unchanged: a
    recall process asks on every search that finds an episode without an origin."""
    from ..storage import derived

    memo: derived.Derived[frozenset[str]] = derived.Derived(
        store.layout.import_ledger.with_name("transcript copies"),  # a name only, in memory
        layout=1,
        sources=(store.layout.import_ledger,),
        required=0,
        disk=False,
    )

    def make(key: tuple | None) -> frozenset[str]:
        ledger = readable_import_ledger(store)
        if ledger is None:
            return frozenset()
        return frozenset(
            name
            for entry in ledger.sources.values()
            if isinstance(entry, TranscriptDatabase)
            for name in entry.copies()
        )

    return derived.brought_in_step(memo, make)


def write_import_ledger(store: Store, path: Path, ledger: ImportLedger) -> None:
    store.write_validated_json(path, "import-ledger", ledger.to_json())


def _excluded(recorded: str | dict[str, int] | None) -> dict[str, int]:
    """A session's `excluded`: the reason alone, as the first ledgers with admission wrote
    it (its events uncounted), or reason -> events."""
    if isinstance(recorded, str):
        return {recorded: 0}
    return dict(recorded or {})
