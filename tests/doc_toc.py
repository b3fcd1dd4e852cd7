"""The table of contents of each references/ file, made from its `##` headings.

It sits between `<!-- contents -->` and `<!-- /contents -->` right after the title, one
link a section, anchored as GitHub anchors headings. Headings inside fenced blocks are
not sections. Run as a script to write the tables again after a heading changed:
    .venv/bin/python tests/doc_toc.py [--write]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- contents -->", "<!-- /contents -->"


def references() -> list[Path]:
    return sorted((BUNDLE / "references").glob("*.md"))


def anchor(heading: str, seen: dict[str, int]) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens, a
    repeated one numbered."""
    slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def headings(text: str) -> list[tuple[int, str, str]]:
    """(level, title, anchor) of each heading of `text` outside fenced blocks, in order."""
    seen: dict[str, int] = {}
    found, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        heading = None if fenced else re.match(r"(#{1,6}) (.*)", line)
        if heading is not None:
            title = heading.group(2).strip()
            found.append((len(heading.group(1)), title, anchor(title, seen)))
    return found


def every_anchor(text: str) -> list[str]:
    """The anchors of every heading (all levels) of `text`."""
    return [slug for _, _, slug in headings(text)]


def contents(text: str) -> list[str]:
    """The table of contents `text` should have: a link to each `##` section."""
    return [f"- [{title}](#{slug})" for level, title, slug in headings(text) if level == 2]


def held(text: str) -> list[str] | None:
    """The table of contents `text` holds, or None."""
    lines = text.splitlines()
    if BEGIN not in lines or END not in lines:
        return None
    return [line for line in lines[lines.index(BEGIN) + 1 : lines.index(END)] if line.strip()]


def written(text: str) -> str:
    """`text` with its table of contents made again (placed after the title if it had none)."""
    lines = text.splitlines()
    table = [BEGIN, *contents(text), END]
    if BEGIN in lines and END in lines:
        lines[lines.index(BEGIN) : lines.index(END) + 1] = table
    else:
        title = next(number for number, line in enumerate(lines) if line.startswith("# "))
        lines[title + 1 : title + 1] = ["", *table]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    stale = []
    for path in references():
        text = path.read_text(encoding="utf-8")
        if held(text) != contents(text):
            stale.append(path.name)
            if "--write" in argv:
                path.write_text(written(text), encoding="utf-8")
    print(("written: " if "--write" in argv else "stale: ") + (", ".join(stale) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
