"""The daily summary: daily/YYYY-MM-DD.md with its four sections, each entry citing its fact."""

from __future__ import annotations

SECTIONS = (("facts", "Facts Learned"), ("decisions", "Decisions Made"),
            ("preferences", "Preferences Noted"), ("actions", "Action Items"))


def render_daily_summary(day: str, session_files: list[str], entries: list[dict]) -> str:
    """Markdown for one day. `entries`: {"section", "text", "id", "source"}, in the order said.

    Nothing in it depends on when it is rendered, so the same logs give the same file.
    """
    lines = [f"# Daily summary {day}", "",
             "Sessions: " + ", ".join(session_files) if session_files else "Sessions: none", ""]
    seen: set[str] = set()
    for section, title in SECTIONS:
        lines += [f"## {title}", ""]
        items = []
        for entry in entries:
            if entry["section"] != section or entry["id"] in seen:
                continue
            seen.add(entry["id"])
            box = "[ ] " if section == "actions" else ""
            items.append(f"- {box}{entry['text']} (`{entry['id']}`, {entry['source']})")
        lines += items or ["- (none)"]
        lines.append("")
    return "\n".join(lines)
