"""Codex CLI's session rollouts: ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl.

A rollout is one session, one JSON object a line. Its first line is the session's meta:
`{"timestamp", "type": "session_meta", "payload": {"id", "timestamp", "cwd", ...}}`; then
`response_item` lines, whose payload is a message (`{"type": "message", "role": user |
assistant | developer, "content": [{"type": input_text | output_text, "text"}]}`), a
tool call or its output (function_call, function_call_output, custom_tool_call_output,
local_shell_call, ...) or reasoning; and event_msg and turn_context lines, which repeat
or frame them. Older rollouts have the session's meta bare on the first line (`{"id",
"timestamp", "instructions", "git"}`), `{"record_type": "state"}` lines between, and the
payloads bare on their lines, without a time: their turns are dated by the meta's.

The person's words are the user messages but for the context Codex adds to each session
(`<environment_context>`, `<user_instructions>`); the assistant's, its messages. A tool's
output makes what the assistant says after it, until the person speaks again, marked as
said after a tool. A directory given is read for every rollout-*.jsonl under it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

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

NAME = "codex"
EXPECTED = "a Codex session rollout (JSON lines starting with the session's meta)"
PATTERN = "rollout-*.jsonl"
# The types of a Codex line: a file of them given as another format is refused.
ENVELOPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
_TOOL_OUTPUTS = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call", "web_search_call"}
)
_CONTEXT = ("<environment_context>", "<user_instructions>")
_TEXT_BLOCKS = ("input_text", "output_text", "text")


def check(path: Path) -> dict[str, Any]:
    """The session's meta, from the rollout's first JSON line; a file whose first line is
    no such meta is refused."""
    record = first_line(path, EXPECTED).record
    if record.get("type") in ENVELOPES and isinstance(record.get("payload"), dict):
        return record["payload"] if record["type"] == "session_meta" else {}
    if "type" not in record and "id" in record and "timestamp" in record:
        return record  # an older rollout's bare meta
    kind = record.get("type")
    found = (
        "its lines are Claude Code's"
        if kind in (USER, ASSISTANT, "summary")
        else "its first line is not a session's meta"
    )
    raise refused(path, EXPECTED, found)


def conversation(path: Path, reading: Reading) -> Iterator[Conversation]:
    """The session of the rollout at `path` (checked first)."""
    meta = check(path)
    ident = meta.get("id")
    found = Conversation(f"{NAME}:{ident if isinstance(ident, str) and ident else path.stem}", None)
    when: datetime | None = moment(meta.get("timestamp"))
    after_tool = False
    for line in json_lines(path, reading):
        record = line.record
        when = moment(record.get("timestamp")) or when
        kind = record.get("type")
        if kind in ENVELOPES:
            payload = record.get("payload") if kind == "response_item" else None
        else:
            payload = record  # an older rollout's bare item (or its state line)
        if not isinstance(payload, dict):
            continue
        item = payload.get("type")
        if item in _TOOL_OUTPUTS:
            after_tool = True
            continue
        role = payload.get("role")
        if item != "message" or role not in (USER, ASSISTANT) or when is None:
            continue
        text = block_text(payload.get("content"), _TEXT_BLOCKS)
        if not text or (role == USER and text.startswith(_CONTEXT)):
            continue
        if role == USER:
            after_tool = False
        found.turns.append(SaidTurn(when, role, text, after_tool and role == ASSISTANT))
    yield found
