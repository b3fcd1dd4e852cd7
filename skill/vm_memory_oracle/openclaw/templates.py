"""The words OpenClaw itself writes into a new workspace's USER.md: its templates' lines,
shipped beside this module (user_templates.json, with the OpenClaw version they were taken
from). They are OpenClaw's instructions to the agent, never the owner's words, so the notes
learner (notes.py) copies no note line that is one of them, nor a placeholder ("Prefer ...",
a label with no value) such as a template leaves for the owner to fill in.

OpenClaw writes a template's body without its front matter; the dev gateway's profile
(USER.dev.md) is seeded the same way. tests/test_workspace_notes.py holds the shipped lines to
the installed package's templates.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..model.note_lines import front_matter_lines

TEMPLATES = Path(__file__).with_name("user_templates.json")

_HEADING = re.compile(r"^#{1,6}\s+")
_BULLET = re.compile(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")
_COMMENT_MARK = re.compile(r"<!--|-->")
# A placeholder: an ellipsis, after at most one word or label ("Prefer ...", "Name: ..."),
# or a label of up to three words with no value ("Name:", "Preferred address:").
_PLACEHOLDER = re.compile(r"^(?:[\w'’-]+:?\s*)?(?:\.\.\.|…)$|^[\w'’-]+(?:\s[\w'’-]+){0,2}:$")


@dataclass(frozen=True)
class UserTemplates:
    """OpenClaw's USER.md templates as shipped: the version they came from and each
    template's lines (by its path in the openclaw package), as template_lines gives them."""

    openclaw: str
    lines: dict[str, tuple[str, ...]]

    @classmethod
    def from_json(cls, record: dict) -> UserTemplates:
        return cls(
            str(record["openclaw"]),
            {name: tuple(lines) for name, lines in record["templates"].items()},
        )


def template_lines(markdown: str) -> list[str]:
    """The lines of text of a template, as they are shipped: front matter, blank lines,
    rules and fences left out; a heading's or list item's marker and an HTML comment's
    delimiters taken off (the words inside a fence or a comment are kept: an owner may
    copy them out of it); spaces collapsed."""
    lines = markdown.splitlines()
    kept = []
    for raw in lines[front_matter_lines(lines) :]:
        line = _COMMENT_MARK.sub("", raw).strip()
        if line.startswith(("```", "~~~")) or line == "---":
            continue
        line = " ".join(_BULLET.sub("", _HEADING.sub("", line)).split())
        if line:
            kept.append(line)
    return kept


def is_template_line(text: str) -> bool:
    """Whether a note's line (as note_lines reads it) is OpenClaw's template text or a
    placeholder left to fill in."""
    key = _key(text)
    return key in _template_keys() or _PLACEHOLDER.match(key) is not None


@cache
def shipped_templates() -> UserTemplates:
    return UserTemplates.from_json(json.loads(TEMPLATES.read_text(encoding="utf-8")))


@cache
def _template_keys() -> frozenset[str]:
    return frozenset(_key(line) for lines in shipped_templates().lines.values() for line in lines)


def _key(text: str) -> str:
    """A line as it is compared: emphasis and code marks off, spaces collapsed, any case."""
    return " ".join(text.replace("*", "").replace("`", "").split()).casefold()
