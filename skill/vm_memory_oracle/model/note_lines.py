"""A note's lines as turns: how a line of an OpenClaw note (memory/*.md, USER.md) is read.

A note is Markdown the agent or the user wrote: headings, rules, comments, fenced code and
OpenClaw's own generated blocks say nothing; each other line of text is something said, by
the user unless it opens with "assistant:", at the time it opens with ("HH:MM"), else a second
after the line before it.
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
    midnight UTC). Headings, rules, comments, fenced code and OpenClaw's generated blocks
    (`<!-- name:start -->` ... `<!-- name:end -->`) say nothing; a leading bullet, "HH:MM"
    or role is taken off the text. A line without its own time comes a second after the
    line before it."""
    said: list[NoteLine] = []
    in_comment = False
    in_code = False  # a fenced block (```): an example or a command, not something said
    managed_block = None  # the name of an open <!-- name:start --> ... <!-- name:end --> block
    moment = day
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("```") or line.startswith("~~~"):
            in_code = not in_code
            continue
        if in_code:
            continue
        marker = _BLOCK_MARKER.match(line)
        if marker:
            managed_block = marker.group(1) if marker.group(2) == "start" else None
            continue
        if managed_block is not None:
            continue
        if line.startswith("<!--"):
            in_comment = "-->" not in line
            continue
        if in_comment:
            in_comment = "-->" not in line
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
