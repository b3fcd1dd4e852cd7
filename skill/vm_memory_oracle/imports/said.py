"""What the three readers of other assistants' histories give: conversations of turns, each
turn dated by its own time, and whether a tool's output came before it in its exchange.

A turn is the person's (role user) or the assistant's (role assistant). What the assistant
says after a tool ran in the same exchange (a command's output, a page fetched, a file
read) may repeat that output: it is marked `after_tool`, and kept as untrusted, as the
OpenClaw transcripts' are (openclaw/provenance.py). A new message of the person's begins a
new exchange.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import ImportFormatError, InvalidInputError
from ..storage import strict_json

USER, ASSISTANT = "user", "assistant"


@dataclass(frozen=True, slots=True)
class SaidTurn:
    """One message of the person's or the assistant's, as its history dates it."""

    ts: datetime  # UTC, to the second
    role: str  # USER or ASSISTANT
    text: str
    after_tool: bool = False  # the assistant's, after a tool's output in the same exchange


@dataclass
class Conversation:
    """One conversation of a history: its key in the import ledger (`<format>:<id>`), its
    title when it has one, and its turns in the order said."""

    key: str
    title: str | None
    turns: list[SaidTurn] = field(default_factory=list)


@dataclass
class Reading:
    """What reading a history met on the way: the lines skipped (each naming its file and
    line), and how far it is, for a progress bar (bytes of the files read, of their
    total)."""

    warnings: list[str] = field(default_factory=list)
    done: int = 0
    total: int = 0


def moment(value: Any) -> datetime | None:
    """An ISO-8601 time (a zone-less one is UTC) or seconds since the epoch, as a UTC time
    to the second; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            return datetime.fromtimestamp(value, timezone.utc).replace(microsecond=0)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        return parsed.astimezone(timezone.utc).replace(microsecond=0)
    return None


@dataclass(frozen=True, slots=True)
class Line:
    """A line of a JSON-lines history that holds a JSON object: its number, and the object."""

    number: int
    record: dict[str, Any]


def json_lines(path: Path, reading: Reading) -> Iterator[Line]:
    """The JSON objects of a JSON-lines file, one line at a time (never the file whole); a
    line that is not one is skipped with a warning naming the file and the line."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            reading.done += len(raw)
            if not raw.strip():
                continue
            try:
                record = strict_json.loads(raw.decode("utf-8"))
            except (strict_json.JsonRefused, UnicodeDecodeError) as exc:
                reading.warnings.append(
                    f"{path}:{number}: not a JSON object ({_why(exc)}); skipped"
                )
                continue
            if not isinstance(record, dict):
                reading.warnings.append(f"{path}:{number}: not a JSON object; skipped")
                continue
            yield Line(number, record)


def first_line(path: Path, expected: str) -> Line:
    """The first line of `path` that holds a JSON object: what tells its format. A file
    with none (a binary file, a JSON document that is not JSON lines, an empty file) is
    refused as not `expected`."""
    for line in json_lines(path, Reading()):
        return line
    raise ImportFormatError(f"not {expected}: no line of it is a JSON object", source=str(path))


def refused(path: Path, expected: str, found: str) -> ImportFormatError:
    return ImportFormatError(f"not {expected}: {found}", source=str(path))


def files_of(path: Path, pattern: str) -> list[Path]:
    """The history files `path` names: itself when it is a file, else those under it whose
    name matches `pattern`, in order."""
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(found for found in path.rglob(pattern) if found.is_file())
    raise InvalidInputError("no such file or directory", source=str(path))


def block_text(content: Any, types: tuple[str, ...] = ("text",)) -> str:
    """The text of a message's content: a string, or the `text` of its blocks of one of
    `types` (a tool call, an image, thinking left out), one a line."""
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, list):
        return ""
    parts = [
        block.get("text")
        for block in content
        if isinstance(block, dict) and block.get("type") in types
    ]
    return "\n".join(part.strip() for part in parts if isinstance(part, str) and part.strip())


def _why(exc: Exception) -> str:
    return "not UTF-8" if isinstance(exc, UnicodeDecodeError) else str(exc).split("\n")[0][:120]
