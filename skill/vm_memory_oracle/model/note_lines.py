"""A note's lines as turns: how a line of an OpenClaw note (memory/*.md, USER.md) is read.

A note is Markdown the agent or the user wrote: YAML front matter, headings, rules, HTML
comments, fenced code and OpenClaw's own generated blocks say nothing; each other line of text
is something said, by the user unless it opens with "assistant:", at the time it opens with
("HH:MM"), else a second after the line before it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

_NOTE_TIME = re.compile(r"^(?:\*\*)?(\d{1,2}):(\d{2})(?:\*\*)?\s*[-–:]?\s*")
_NOTE_ROLE = re.compile(r"^(user|assistant)\s*:\s*", re.IGNORECASE)
_BLOCK_MARKER = re.compile(r"^<!--\s*([\w:.-]+?):(start|end)\s*-->$")
_BULLET = re.compile(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")
_FENCE = ("```", "~~~")
# A line of YAML front matter: a key, a list item, an indented continuation, or a comment.
_YAML_LINE = re.compile(r"^(?:[\w.-]+\s*:|-(?:\s|$)|\s|#)")


@dataclass(frozen=True)
class NoteLine:
    """A line of text of a note, as a turn: the line it is on, when it was said (its day,
    or the time it names), who said it (a leading "user:" or "assistant:", else the user)."""

    line: int
    ts: datetime
    role: str
    text: str


def note_lines(text: str, day: datetime) -> list[NoteLine]:
    """The lines of a note that say something, in file order (`day`: the note's day, at
    midnight UTC). Front matter, headings, rules, HTML comments, fenced code and OpenClaw's
    generated blocks (`<!-- name:start -->` ... `<!-- name:end -->`) say nothing; a leading
    bullet, "HH:MM" or role is taken off the text. A line without its own time comes a
    second after the line before it."""
    said: list[NoteLine] = []
    in_comment = False  # an HTML comment opened on a line before and not yet closed
    in_code = False  # a fenced block (```): an example or a command, not something said
    managed_block = None  # the name of an open <!-- name:start --> ... <!-- name:end --> block
    moment = day
    lines = text.splitlines()
    front = front_matter_lines(lines)
    for number, raw in enumerate(lines, start=1):
        if number <= front:
            continue
        line = raw.strip()
        if in_code:
            in_code = not line.startswith(_FENCE)
            continue
        marker = None if in_comment else _BLOCK_MARKER.match(line)
        if marker:
            managed_block = marker.group(1) if marker.group(2) == "start" else None
            continue
        if managed_block is not None:
            continue
        line, in_comment = without_comments(line, in_comment)
        line = line.strip()
        if line.startswith(_FENCE):
            in_code = True
            continue
        if not line or line.startswith("#") or line.startswith("- **Session") or line == "---":
            continue
        line = _BULLET.sub("", line)
        moment = moment + timedelta(seconds=1) if said else day
        clock = _NOTE_TIME.match(line)
        if clock and int(clock.group(1)) < 24 and int(clock.group(2)) < 60:
            moment = day + timedelta(hours=int(clock.group(1)), minutes=int(clock.group(2)))
            line = line[clock.end() :]
        role = "user"
        speaker = _NOTE_ROLE.match(line)
        if speaker:
            role = speaker.group(1).lower()
            line = line[speaker.end() :].strip()
            if len(line) >= 2 and line[0] == line[-1] == '"':
                try:
                    line = json.loads(line)
                except ValueError:
                    pass
        if line.strip():
            said.append(NoteLine(number, moment, role, line.strip()))
    return said


def front_matter_lines(lines: list[str]) -> int:
    """How many of a note's first lines are YAML front matter (a `---` line, lines of YAML,
    a closing `---` or `...`), else 0: a note that opens with a rule and goes on in prose
    has none."""
    if not lines or lines[0].lstrip("\ufeff").strip() != "---":
        return 0
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return index + 1
        if line.strip() and not _YAML_LINE.match(line):
            return 0
    return 0


def without_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    """`line` with its HTML comments taken out (`in_comment`: one is open from a line before),
    and whether a comment is still open at its end."""
    kept = []
    rest = line
    while rest:
        if in_comment:
            end = rest.find("-->")
            if end < 0:
                break
            rest, in_comment = rest[end + 3 :], False
        else:
            start = rest.find("<!--")
            if start < 0:
                kept.append(rest)
                break
            kept.append(rest[:start])
            rest, in_comment = rest[start + 4 :], True
    return "".join(kept), in_comment
