"""Session logs: sessions/YYYY-MM-DD-HHMMSS.jsonl, one turn a line.

Session files are input and provenance: facts point at their lines by number, so a bad
line is never removed from them (that would renumber the rest). It is copied to
state/sessions.quarantine.jsonl once and skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import files
from .files import JsonlContents
from .layout import Layout
from .validation import problem

SESSION_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})-(\d{6})\.jsonl$")
MAX_TURN_CHARS = 100_000  # a turn's text at most (schemas/session-turn.schema.json)


def session_files(layout: Layout, day: str | None = None) -> list[Path]:
    """Session logs in name order (which is time order), optionally of one day, links
    included: Store.session_files leaves out the refused ones, saying so."""
    if not layout.sessions_dir.is_dir():
        return []
    found = []
    for path in layout.sessions_dir.iterdir():
        match = SESSION_NAME.match(path.name)
        if (
            match
            and (path.is_file() or path.is_symlink())
            and (day is None or match.group(1) == day)
        ):
            found.append(path)
    return sorted(found)


def session_day(path: Path) -> str:
    """The day of a session log listed by session_files (its name matches SESSION_NAME)."""
    match = SESSION_NAME.match(path.name)
    assert match is not None, path
    return match.group(1)


def read_session(path: Path) -> tuple[bytes, JsonlContents]:
    """The bytes of the log as read, and the turns they hold. The agent appends without
    taking a lock, so how far a log was read is measured on these bytes, never on a second
    read. A missing log reads as empty."""
    try:
        data = files.read_bytes(path)
    except FileNotFoundError:
        data = b""
    return data, files.parse_jsonl(data, lambda record: problem("session-turn", record))
