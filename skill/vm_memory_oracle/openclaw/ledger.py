"""state/imports.json, the import ledger: what the OpenClaw imports copied into sessions/,
by source. An entry is one of three kinds, each under a key of its own:
- an older OpenClaw's file (a session transcript or a dated note, imports.py), under its
  absolute path: copied whole, and again when its size or modification time changed;
- an agent's transcript database (OpenClaw 2026.9, imports.py), under `sqlite:<path>`: for
  each session, the last event read and its copy of each day;
- a workspace note (notes.py), under `note:<absolute path>`: its path in the workspace, its
  size and modification time when last read, its copy of each day, and the lines copied.
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


@dataclass
class SessionCopies:
    """One session of a transcript database: the last event read (-1: none) and the copy
    in sessions/ of each day (YYYY-MM-DD) its turns go to."""

    seq: int = -1
    files: dict[str, str] = field(default_factory=dict)
    turn: TurnState = field(default_factory=TurnState)  # where its reading stopped
    excluded: str | None = None  # why it is never learned ("channel telegram"), if it is not

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"seq": self.seq, "files": self.files}
        turn = self.turn.to_json()
        if turn:
            document["turn"] = turn
        if self.excluded:
            document["excluded"] = self.excluded
        return document


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


LedgerEntry = CopiedFile | TranscriptDatabase | WorkspaceNote


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
                    session.get("excluded"),
                )
                for key, session in data["sessions"].items()
            }
        )
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


def write_import_ledger(store: Store, path: Path, ledger: ImportLedger) -> None:
    store.write_validated_json(path, "import-ledger", ledger.to_json())
