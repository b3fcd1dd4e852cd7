"""The consolidation report: what each step counted and every change with its reason.

Written to state/reports/<start time>.md at the end of a run and printed by the command
(the same text; a dry run prints it with every line prefixed "[DRY RUN]" and writes
nothing). It is made from the steps' own reports only, so a dry run on a copy and the
real run list the same changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# The counts every report shows, whatever the steps did: (name, step, count of that step).
# "archived" adds up every step that moves facts to the archive.
SUMMARY = (
    ("summarized session files", "summarize", "session_files"),
    ("facts extracted", "summarize", "facts_extracted"),
    ("decayed", "decay", "facts"),
    ("indexed", "index", "added"),
    ("merged", "merge", "merged"),
    ("stale", "stale", "stale"),
    ("partially stale (kept, flagged)", "stale", "partially_stale"),
    ("superseded", "prune", "superseded"),
    ("pruned", "prune", "pruned"),
    ("added to MEMORY.md", "memory_md", "added"),
    ("removed from MEMORY.md", "memory_md", "removed"),
    ("redactions", "summarize", "redactions"),
    ("proposals expired", "clean", "proposals_expired"),
)
ARCHIVED_BY = (("merge", "merged"), ("stale", "stale"), ("prune", "archived"))
TARGETS = ("fact", "file", "proposal")
CHANGES_HEAD = "| Step | Change | Fact or file | Said by | Reason |"
_HEADING = re.compile(r"^# (?:Would consolidate|Consolidated) (\S+)")
_CELL_EDGE = re.compile(r"(?<!\\)\|")  # a cell's edge: a bar the table did not escape
_KNOWN = ("counts", "changes", "warnings", "done_before")


@dataclass
class StepReport:
    """What one step of a consolidation did: its counts, each change with its reason
    ({"change", "reason"} and the fact, file or proposal it touched), its warnings, what
    is particular to the step (the health step's status and warnings), and whether an
    interrupted run had done it already."""

    name: str
    counts: dict[str, int] = field(default_factory=dict)
    changes: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    details: dict = field(default_factory=dict)
    done_before: bool = False

    @classmethod
    def from_dict(cls, name: str, data: dict, *, done_before: bool = False) -> StepReport:
        """A step's report as the checkpoint holds it (its JSON form, as_dict)."""
        return cls(
            name,
            dict(data.get("counts", {})),
            list(data.get("changes", [])),
            list(data.get("warnings", [])),
            {key: value for key, value in data.items() if key not in _KNOWN},
            done_before or bool(data.get("done_before")),
        )

    def as_dict(self, *, named: bool = True) -> dict:
        """The report as JSON: the command's --json output (`named`) and the checkpoint."""
        data: dict[str, Any] = {"name": self.name} if named else {}
        data.update(counts=self.counts, changes=self.changes, warnings=self.warnings)
        data.update(self.details)
        if self.done_before:
            data["done_before"] = True
        return data


def summary_counts(steps: list[StepReport]) -> dict[str, int]:
    """The report's counts, by name (a step that did not run counts 0)."""
    counts = {step.name: step.counts for step in steps}
    summary = {name: int(counts.get(step, {}).get(key, 0)) for name, step, key in SUMMARY}
    summary["archived"] = sum(int(counts.get(step, {}).get(key, 0)) for step, key in ARCHIVED_BY)
    return summary


@dataclass(frozen=True, slots=True)
class Change:
    """One row of the report's changes: the step, what it did, to which fact, file or
    proposal, and why."""

    step: str
    change: str
    target: str
    reason: str
    origin: str = ""  # who said the fact it touched (model/provenance.py); "" for a file

    def to_json(self) -> dict[str, str]:
        row = {
            "step": self.step,
            "change": self.change,
            "target": self.target,
            "reason": self.reason,
        }
        if self.origin:
            row["origin"] = self.origin
        return row


def changes(steps: list[StepReport]) -> list[Change]:
    """Every change of every step, in step order."""
    return [
        Change(
            step.name,
            change["change"],
            next((change[key] for key in TARGETS if key in change), ""),
            change["reason"],
            change.get("origin", ""),
        )
        for step in steps
        for change in step.changes
    ]


def render(report, *, max_changes: int | None = None, more: str = "") -> list[str]:
    """The report as markdown lines. `max_changes` cuts the table (printing), and `more`
    says where the rest is."""
    verb = "Would consolidate" if report.dry_run else "Consolidated"
    resumed = f" (resumed at step {report.resumed_from})" if report.resumed_from else ""
    lines = [
        f"# {verb} {report.started_at}{resumed}",
        "",
        f"Health: {report.status}; {report.duration_seconds:.2f} s.",
        "",
        "| Count | |",
        "|---|---:|",
    ]
    summary = summary_counts(report.steps)
    lines += [
        f"| {name} | {summary[name]} |" for name in ("archived", *(name for name, _, _ in SUMMARY))
    ]
    rows = changes(report.steps)
    lines += ["", f"## Changes ({len(rows)})", ""]
    if rows:
        lines += [
            CHANGES_HEAD,
            "|---|---|---|---|---|",
        ]
        shown = rows if max_changes is None else rows[:max_changes]
        lines += [
            f"| {row.step} | {row.change} | {_cell(row.target)} | {row.origin} "
            f"| {_cell(row.reason)} |"
            for row in shown
        ]
        if len(shown) < len(rows):
            lines.append(f"| ... | {len(rows) - len(shown)} more | {more} | | |")
    else:
        lines.append("None.")
    lines += ["", "## Steps", ""]
    for number, step in enumerate(report.steps, start=1):
        counts = ", ".join(f"{key.replace('_', ' ')} {value}" for key, value in step.counts.items())
        done = " (done before the interruption)" if step.done_before else ""
        lines.append(f"{number}. {step.name}: {counts or 'nothing to do'}{done}")
    warnings = [
        *report.warnings,
        *(
            f"health: {warning}"
            for step in report.steps
            for warning in step.details.get("health_warnings", [])
        ),
    ]
    if warnings:
        lines += ["", "## Warnings", ""]
        lines += [f"- {warning}" for warning in warnings]
    return lines


def _cell(text: str) -> str:
    """Text safe inside a markdown table cell."""
    return str(text).replace("|", "\\|")


def written_changes(text: str) -> tuple[str | None, list[Change]]:
    """The start time and the changes of a report as `render` wrote it, read back from its
    table (the page of the memory shows them); a row that is not five cells is skipped,
    and so is the row that says how many more were cut."""
    lines = text.splitlines()
    heading = _HEADING.match(lines[0]) if lines else None
    rows: list[Change] = []
    try:
        start = lines.index(CHANGES_HEAD) + 2  # past the head and its rule
    except ValueError:
        return (heading.group(1) if heading else None), rows
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip().replace("\\|", "|") for cell in _CELL_EDGE.split(line)[1:-1]]
        if len(cells) != 5 or cells[0] == "...":
            continue
        step, change, target, origin, reason = cells
        rows.append(Change(step, change, target, reason, origin))
    return (heading.group(1) if heading else None), rows
