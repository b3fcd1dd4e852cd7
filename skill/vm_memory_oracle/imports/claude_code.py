"""Claude Code's session transcripts: ~/.claude/projects/<project>/<session>.jsonl.

Each line is one JSON object with its `type`: `user` and `assistant` lines hold a
`message` ({role, content}: a string, or blocks of type text, thinking, tool_use,
tool_result, image), with their `timestamp`, `sessionId`, `uuid`, `cwd`; other types
(summary, system, file-history-snapshot, ...) are not messages. A file is one session; a
directory given is read for every *.jsonl under it (projects/*/*.jsonl).

The person's words are a user line's text that is none of these:
- a tool's result (a user line holding tool_result blocks): what a command printed or a
  file held; the assistant's text after it, until the person speaks again, is marked as
  said after a tool;
- a meta line (`isMeta`: a caveat the client adds), a sub-agent's line (`isSidechain`),
  the summary of a compacted session (`isCompactSummary`), a line of another user type
  than `external`, and the echo of a slash command (`<command-name>...`,
  `<local-command-stdout>...`).
The assistant's are its text blocks (its thinking and tool calls are left out); one reply
written over several lines (one block a line, the same message id) is one turn.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .codex import ENVELOPES
from .said import (
    ASSISTANT,
    USER,
    Conversation,
    Reading,
    SaidTurn,
    block_text,
    first_line,
    json_lines,
    moment,
    refused,
)

NAME = "claude-code"
EXPECTED = "a Claude Code session transcript (JSON lines with a type and a message)"
PATTERN = "*.jsonl"
_COMMAND_ECHO = ("<command-name>", "<command-message>", "<local-command-", "<command-args>")


def check(path: Path) -> None:
    """Refuse a file that is not a Claude Code transcript, by its first JSON line."""
    line = first_line(path, EXPECTED)
    kind = line.record.get("type")
    if not isinstance(kind, str) or kind in ENVELOPES or "payload" in line.record:
        found = "its lines are Codex's" if kind in ENVELOPES else "its first line has no type"
        raise refused(path, EXPECTED, found)


def conversation(path: Path, reading: Reading) -> Iterator[Conversation]:
    """The session of the transcript at `path` (checked first)."""
    check(path)
    found = Conversation(f"{NAME}:{path.stem}", None)
    after_tool = False
    reply: str | None = None  # the message id of the assistant's turn under way
    for line in json_lines(path, reading):
        record = line.record
        kind, message = record.get("type"), record.get("message")
        if kind not in (USER, ASSISTANT) or not isinstance(message, dict):
            continue
        if record.get("isSidechain") is True or record.get("isMeta") is True:
            continue
        when = moment(record.get("timestamp"))
        content = message.get("content")
        if kind == USER:
            reply = None
            if _holds(content, "tool_result"):
                after_tool = True
                continue
            text = block_text(content)
            if when is None or not text or not _persons(record, text):
                continue
            after_tool = False
            found.turns.append(SaidTurn(when, USER, text))
            continue
        text = block_text(content)
        if when is None or not text:
            continue
        ident = message.get("id")
        if reply is not None and ident == reply and found.turns:
            last = found.turns[-1]
            found.turns[-1] = SaidTurn(last.ts, last.role, f"{last.text}\n{text}", last.after_tool)
            continue
        reply = ident if isinstance(ident, str) else None
        found.turns.append(SaidTurn(when, ASSISTANT, text, after_tool))
    yield found


def _persons(record: dict[str, Any], text: str) -> bool:
    """Whether a user line's text is the person's words (see the module's notes)."""
    if record.get("isCompactSummary") is True:
        return False
    user_type = record.get("userType")
    if user_type is not None and user_type != "external":
        return False
    return not text.startswith(_COMMAND_ECHO)


def _holds(content: Any, block_type: str) -> bool:
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == block_type for block in content
    )
