"""The daily summary: daily/YYYY-MM-DD.md with its four sections, each entry citing its fact."""

from __future__ import annotations

import re

DAILY_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")
SECTIONS = (
    ("facts", "Facts Learned"),
    ("decisions", "Decisions Made"),
    ("preferences", "Preferences Noted"),
    ("actions", "Action Items"),
)


def render_daily_summary(day: str, session_files: list[str], entries: list[dict]) -> str:
    """Markdown for one day. `entries`: {"section", "text", "id", "source"}, in the order said
    (a source names who said it when it was not the owner: "sessions/...:3; untrusted: Alice,
    group on telegram").

        Nothing in it depends on when it is rendered, so the same logs give the same file.
    """
    lines = [
        f"# Daily summary {day}",
        "",
        "Sessions: " + ", ".join(session_files) if session_files else "Sessions: none",
        "",
    ]
    seen: set[str] = set()
    for section, title in SECTIONS:
        lines += [f"## {title}", ""]
        items = []
        for entry in entries:
            if entry["section"] != section or entry["id"] in seen:
                continue
            seen.add(entry["id"])
            checkbox = "[ ] " if section == "actions" else ""
            items.append(f"- {checkbox}{entry['text']} (`{entry['id']}`, {entry['source']})")
        lines += items or ["- (none)"]
        lines.append("")
    return "\n".join(lines)


_ENTRY = re.compile(r"- (\[ \] )?.+ \(`fact-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}`, .+\)")


def summary_problem(text: str, day: str) -> str | None:
    """Why `text` is not a whole daily summary of `day` as render_daily_summary writes it,
    or None.

    It finds a file cut short (a power loss, a full disk) at any byte but one: a cut just
    after a line of the last section reads as a summary with fewer action items.
    """
    lines = text.split("\n")
    if (
        lines[:2] != [f"# Daily summary {day}", ""]
        or len(lines) < 4
        or not lines[2].startswith("Sessions: ")
        or lines[3] != ""
    ):
        return "its heading is not that of a daily summary"
    at = 4
    for _, title in SECTIONS:
        if lines[at : at + 2] != [f"## {title}", ""]:
            return f"section {title!r} is missing (cut short?)"
        at += 2
        end = lines.index("", at) if "" in lines[at:] else len(lines)
        entries = lines[at:end]
        if entries != ["- (none)"] and not (entries and all(map(_ENTRY.fullmatch, entries))):
            return f"section {title!r} is cut short or holds a line summarize did not write"
        at = end + 1
    if at != len(lines):
        return "it goes on after its last section, or does not end with a newline"
    return None
