"""A ChatGPT data export's conversations.json, read one conversation at a time.

The file is one JSON array of conversations, each with its `title`, `create_time` (seconds
since the epoch), `current_node` and `mapping`: the tree of its messages, node id ->
{id, parent, children, message}. A message has its `author.role` (user, assistant,
system, tool), `create_time`, `content` ({content_type, parts}) and `metadata`. The
conversation as last seen is the path from `current_node` up to the root; its other
branches are edits and regenerations the person left. On that path:

- the person's and the assistant's messages of text (`text`, `multimodal_text`: their
  string parts; an image's part is left out) are turns;
- system messages, those hidden from the conversation (`is_visually_hidden_from_conversation`:
  custom instructions, context), other content (code run, a page browsed, thoughts) and
  empty ones are not;
- a tool's message (a search, code run, a page read) is not a turn, and what the assistant
  says after it, until the person speaks again, is marked as said after a tool.

The array is parsed incrementally (json.JSONDecoder.raw_decode over chunks of the file), so
an export of any size is read within the memory of its largest conversation.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .said import ASSISTANT, USER, Conversation, Reading, SaidTurn, moment, refused

NAME = "chatgpt"
EXPECTED = (
    "a ChatGPT export's conversations.json (a JSON array of conversations, each with a mapping)"
)
CHUNK = 1 << 20
TEXT_CONTENT = ("text", "multimodal_text")
# How near the end of what is read a parse may fail and still be a conversation cut by the
# chunk's end (a literal such as `true` cut short fails a few characters before it).
_CUT_MARGIN = 16


def history_file(path: Path) -> Path:
    """The export's conversations.json: `path` itself, or the file of that name in the
    unpacked export's directory `path`."""
    return path / "conversations.json" if path.is_dir() else path


def conversations(path: Path, reading: Reading) -> Iterator[Conversation]:
    """The conversations of the export at `path`, in the file's order. A file that is not
    an export's conversations.json is refused (ImportFormatError) at the first sign."""
    for number, document in enumerate(_array_items(path, reading), start=1):
        if not isinstance(document, dict) or not isinstance(document.get("mapping"), dict):
            raise refused(path, EXPECTED, f"its item {number} is not a conversation with a mapping")
        yield _conversation(document, number)


def _conversation(document: dict[str, Any], number: int) -> Conversation:
    ident = document.get("conversation_id") or document.get("id")
    key = f"{NAME}:{ident}" if isinstance(ident, str) and ident else f"{NAME}:#{number}"
    title = document.get("title")
    found = Conversation(key, title if isinstance(title, str) else None)
    when = moment(document.get("create_time"))
    after_tool = False
    for message in _current_path(document["mapping"], document.get("current_node")):
        author = message.get("author")
        role = author.get("role") if isinstance(author, dict) else None
        when = moment(message.get("create_time")) or when
        if role == "tool":
            after_tool = True
            continue
        if role not in (USER, ASSISTANT) or when is None or _hidden(message):
            continue
        text = _text(message.get("content"))
        if not text:
            continue
        if role == USER:
            after_tool = False
        found.turns.append(SaidTurn(when, role, text, after_tool and role == ASSISTANT))
    return found


def _current_path(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The messages from the root to `current_node` (else to the last leaf of the first
    branches, for an export that names none), in the order said."""
    if not isinstance(current, str) or current not in mapping:
        current = _last_leaf(mapping)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(current, str) and current in mapping and current not in seen:
        seen.add(current)
        node = mapping[current]
        if not isinstance(node, dict):
            break
        message = node.get("message")
        if isinstance(message, dict):
            path.append(message)
        current = node.get("parent")
    path.reverse()
    return path


def _last_leaf(mapping: dict[str, Any]) -> str | None:
    roots = [
        key
        for key, node in mapping.items()
        if isinstance(node, dict) and node.get("parent") not in mapping
    ]
    current = roots[0] if roots else None
    seen: set[str] = set()
    while current is not None and current not in seen:
        seen.add(current)
        children = mapping[current].get("children") if isinstance(mapping[current], dict) else None
        nxt = children[-1] if isinstance(children, list) and children else None
        if not isinstance(nxt, str) or nxt not in mapping:
            return current
        current = nxt
    return current


def _hidden(message: dict[str, Any]) -> bool:
    metadata = message.get("metadata")
    return (
        isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation") is True
    )


def _text(content: Any) -> str:
    if not isinstance(content, dict) or content.get("content_type") not in TEXT_CONTENT:
        return ""
    parts = content.get("parts")
    if not isinstance(parts, list):
        return ""
    return "\n".join(part.strip() for part in parts if isinstance(part, str) and part.strip())


def _array_items(path: Path, reading: Reading) -> Iterator[Any]:
    """The items of the JSON array the file at `path` holds, each parsed as soon as it has
    been read whole; the file is read a chunk at a time."""
    with open(path, "rb") as handle:
        chunks = _Chunks(path, handle, reading)
        if not chunks.skip_space() or chunks.buffer[chunks.at] != "[":
            at_end = chunks.at >= len(chunks.buffer)
            raise refused(
                path, EXPECTED, "it is empty" if at_end else _found(chunks.buffer[chunks.at])
            )
        chunks.at += 1
        first = True
        while True:
            if not chunks.skip_space():
                raise refused(path, EXPECTED, "it ends before its array is closed")
            if chunks.buffer[chunks.at] == "]":
                return
            if not first:
                if chunks.buffer[chunks.at] != ",":
                    raise refused(
                        path, EXPECTED, f"its items are not separated by commas{chunks.where()}"
                    )
                chunks.at += 1
                if not chunks.skip_space():
                    raise refused(path, EXPECTED, "it ends before its array is closed")
            first = False
            yield chunks.item()


class _Chunks:
    """The text of a file read a chunk at a time, from `at` on (what is before it is
    dropped when the next chunk comes)."""

    def __init__(self, path: Path, handle, reading: Reading):
        self.path, self.handle, self.reading = path, handle, reading
        self.decoder = json.JSONDecoder(parse_constant=_no_constant)
        self.utf8 = codecs.getincrementaldecoder("utf-8")()
        self.buffer, self.at, self.ended = "", 0, False
        self.offset = 0  # characters dropped before the buffer

    def more(self) -> bool:
        """One more chunk read; False at the end of the file."""
        if self.ended:
            return False
        raw = self.handle.read(CHUNK)
        self.reading.done += len(raw)
        try:
            text = self.utf8.decode(raw, final=not raw)
        except UnicodeDecodeError:
            raise refused(self.path, EXPECTED, "it is not UTF-8 text") from None
        self.offset += self.at
        self.buffer = self.buffer[self.at :] + text
        self.at = 0
        self.ended = not raw
        return True

    def skip_space(self) -> bool:
        """Past whitespace to the next character; False at the end of the file."""
        while True:
            while self.at < len(self.buffer) and self.buffer[self.at] in " \t\r\n\ufeff":
                self.at += 1
            if self.at < len(self.buffer):
                return True
            if not self.more():
                return False

    def item(self) -> Any:
        """The JSON value that starts at `at`, read on until it is whole. A parse that
        fails near the end of what is read may be a value cut by the chunk's end: the text
        read is doubled before it is tried again, so a large value is parsed a few times,
        not once a chunk."""
        tried_at = 0
        while True:
            if len(self.buffer) - self.at >= 2 * tried_at or self.ended:
                tried_at = len(self.buffer) - self.at
                try:
                    value, end = self.decoder.raw_decode(self.buffer, self.at)
                except json.JSONDecodeError as exc:
                    cut = exc.pos >= len(self.buffer) - _CUT_MARGIN or exc.msg.startswith(
                        "Unterminated string"
                    )
                    if self.ended and cut:
                        raise refused(
                            self.path, EXPECTED, "it ends inside a conversation"
                        ) from None
                    if not cut:
                        found = f"{exc.msg}{self.where(exc.pos)}"
                        raise refused(self.path, EXPECTED, found) from None
                except (ValueError, RecursionError) as exc:
                    raise refused(self.path, EXPECTED, f"{exc}{self.where()}") from None
                else:
                    self.at = end
                    return value
            self.more()

    def where(self, at: int | None = None) -> str:
        return f" (at character {self.offset + (self.at if at is None else at) + 1:,})"


def _found(character: str) -> str:
    if character == "{":
        return "it starts with a JSON object, not an array of conversations"
    return f"it does not start with a JSON array (it starts with {character!r})"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
