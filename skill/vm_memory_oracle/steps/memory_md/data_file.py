"""Step 7 of consolidation: the data directory's MEMORY.md, reconciled with the knowledge graph.

The block between the markers is recomputed (block.py decides what is in it);
the rest of the file is the user's and is kept as it is. The file is rewritten only when
the block changed, the previous version kept as MEMORY.md.bak; if the user edits the file
while it is being rewritten, it is read again rather than overwritten.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

from ...errors import ChangedMeanwhile
from ...graph import KnowledgeGraph
from ...model.fact import Fact
from ..report import StepReport
from .block import Reconciled, chars, fact_line, reconcile
from .candidates import Shown, weight_of

ATTEMPTS = 5
# The block fills MEMORY.md to 90% of memory_md_max_lines (180 of 200): the health check
# warns above that, which then means the user's own lines are crowding the file.
FILL_SHARE = 0.9


def memory_candidates(graph: KnowledgeGraph, now: datetime) -> list[FactCandidate]:
    facts = graph.facts()
    state = graph.store.read_activation()
    values = graph.activation_values(facts, state, now)
    return [FactCandidate(fact, value) for fact, value in zip(facts, values)]


class FactCandidate:
    """A fact as reconcile sees it (candidates.Shown), read from the Fact when asked: the
    graph holds the Facts anyway, and a Candidate of each, with its own sentence, held
    300 MB more at a million facts."""

    __slots__ = ("fact", "activation")

    def __init__(self, fact: Fact, activation: float):
        self.fact, self.activation = fact, activation

    @property
    def id(self) -> str:
        return self.fact.id

    @property
    def text(self) -> str:
        return self.fact.sentence

    @property
    def category(self) -> str:
        return self.fact.category or "fact"

    @property
    def importance(self) -> float:
        return self.fact.importance or 0.0

    @property
    def pinned(self) -> bool:
        return self.fact.pinned

    @property
    def superseded(self) -> bool:
        return not self.fact.current

    @property
    def subject(self) -> str:
        return self.fact.subject

    @property
    def salience(self) -> float | None:
        return salience_of(self.fact)

    @property
    def source(self) -> str:
        return self.fact.source

    @property
    def valid_from(self) -> str | None:
        return _day(self.fact.valid_from)

    @property
    def origin(self) -> str:
        return self.fact.said_by.origin

    @property
    def weight(self) -> float:
        return weight_of(self.importance, self.salience, self.activation)


def salience_of(fact: Fact) -> float | None:
    """The salience summarize gave the fact; a fact someone stated on purpose (remember,
    a reviewed proposal) counts as fully salient; a fact learned from a log before
    salience was scored has none (its importance stands in)."""
    if fact.salience is not None:
        return fact.salience
    return None if fact.source.startswith("sessions/") else 1.0


def _day(valid_from: str | None) -> str | None:
    return valid_from if valid_from and len(valid_from) == 10 else None


def former_lines(graph: KnowledgeGraph) -> dict[str, str]:
    """The line each archived fact had in MEMORY.md (line -> fact id)."""
    return {
        fact_line(FactCandidate(archived.fact, 0.0)): archived.fact.id
        for archived in graph.archived_facts()
    }


def reconcile_memory_file(graph: KnowledgeGraph, now: datetime) -> StepReport:
    layout, store = graph.layout, graph.store
    path = layout.memory_md
    if not store.usable(path) or not store.usable(layout.memory_md_backup):
        return _untouched(f"{layout.relative(path)} left as it is: it or its backup is refused")
    with store.locked("consolidate: MEMORY.md"):
        candidates = memory_candidates(graph, now)
        former = former_lines(graph)
        for _ in range(ATTEMPTS):
            try:
                before = path.stat()
                raw = path.read_bytes()
            except FileNotFoundError:
                before, raw = None, None
            try:
                current = raw.decode("utf-8") if raw is not None else None
            except UnicodeDecodeError as exc:
                return _untouched(
                    f"{layout.relative(path)} is not UTF-8 (byte {exc.start}); left as it is"
                )
            max_lines = graph.settings.memory_md_max_lines
            result = reconcile(
                current,
                candidates,
                max_lines=max_lines,
                fill_lines=math.floor(FILL_SHARE * max_lines),
                max_chars=graph.settings.memory_md_max_chars,
                former=former,
            )
            if not result.changed:
                break
            data = result.text.encode("utf-8")
            if raw is not None:
                store.write_bytes(layout.memory_md_backup, raw)
            try:
                if before is None:
                    if not store.create_file(path, data):
                        continue  # created meanwhile: read it
                else:
                    store.replace_if_unchanged(
                        path, data, size=before.st_size, mtime_ns=before.st_mtime_ns
                    )
            except ChangedMeanwhile:
                continue
            store.note(
                f"MEMORY.md: {len(result.added)} added, {len(result.removed)} removed",
                [*result.added, *(fact_id for fact_id, _ in result.removed)],
            )
            break
        else:
            return _untouched(
                f"{layout.relative(path)} kept changing while it was being "
                f"reconciled ({ATTEMPTS} tries); left as it is"
            )
    report = _reconciled_report(result, candidates)
    if graph.settings.openclaw_state_dir:
        from .workspaces import write_workspace_memories

        written = write_workspace_memories(graph, candidates, former=former)
        report.counts["openclaw_workspaces"] = written.written
        report.warnings += written.warnings
    return report


def _reconciled_report(result: Reconciled, candidates: Sequence[Shown]) -> StepReport:
    """The step's report of the block `result` left: each fact added or removed and why,
    and the counts."""
    added = set(result.added)
    pinned = {c.id for c in candidates if c.id in added and c.pinned}
    changes = [
        {
            "fact": fact_id,
            "change": "added to MEMORY.md",
            "reason": "pinned" if fact_id in pinned else "activation above 0.5",
        }
        for fact_id in result.added
    ]
    changes += [
        {"fact": fact_id, "change": "removed from MEMORY.md", "reason": reason}
        for fact_id, reason in result.removed
    ]
    return StepReport(
        "memory_md",
        counts={
            "added": len(result.added),
            "removed": len(result.removed),
            "kept": len(result.kept),
            "never_promoted": len(result.skipped),
            "not_fitting": result.left_out,
            "lines": len(result.text.splitlines()),
            "chars": chars(result.text),
        },
        changes=changes,
        warnings=list(result.warnings),
    )


def _untouched(warning: str) -> StepReport:
    return StepReport(
        "memory_md",
        counts={"added": 0, "removed": 0, "kept": 0, "never_promoted": 0, "not_fitting": 0},
        warnings=[warning],
    )
