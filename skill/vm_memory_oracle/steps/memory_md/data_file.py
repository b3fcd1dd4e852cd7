"""Step 7 of consolidation: the data directory's MEMORY.md, reconciled with the knowledge graph.

The block between the markers is recomputed (block.py decides what is in it);
the rest of the file is the user's and is kept as it is. The file is rewritten only when
the block changed, the previous version kept as MEMORY.md.bak; if the user edits the file
while it is being rewritten, it is read again rather than overwritten.
"""

from __future__ import annotations

import math
from datetime import datetime

from ...errors import ChangedMeanwhile
from ...graph import KnowledgeGraph
from ...model.fact import Fact
from ..report import StepReport
from .block import Candidate, Reconciled, chars, fact_line, reconcile

ATTEMPTS = 5
# The block fills MEMORY.md to 90% of memory_md_max_lines (180 of 200): the health check
# warns above that, which then means the user's own lines are crowding the file.
FILL_SHARE = 0.9


def memory_candidates(graph: KnowledgeGraph, now: datetime) -> list[Candidate]:
    facts = graph.facts()
    state = graph.store.read_activation()
    values = graph.activation_values(facts, state, now)
    return [candidate(fact, value) for fact, value in zip(facts, values)]


def candidate(fact: Fact, activation: float) -> Candidate:
    return Candidate(
        id=fact.id,
        text=fact.sentence,
        category=fact.category or "fact",
        importance=fact.importance or 0.0,
        activation=activation,
        pinned=fact.pinned,
        superseded=not fact.current,
        subject=fact.subject,
        salience=salience_of(fact),
        source=fact.source,
        valid_from=_day(fact.valid_from),
        origin=fact.said_by.origin,
    )


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
        fact_line(candidate(archived.fact, 0.0)): archived.fact.id
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


def _reconciled_report(result: Reconciled, candidates: list[Candidate]) -> StepReport:
    """The step's report of the block `result` left: each fact added or removed and why,
    and the counts."""
    changes = [
        {
            "fact": fact_id,
            "change": "added to MEMORY.md",
            "reason": "activation above 0.5" if not _pinned(candidates, fact_id) else "pinned",
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


def _pinned(candidates: list[Candidate], fact_id: str) -> bool:
    return any(candidate.pinned for candidate in candidates if candidate.id == fact_id)


def _untouched(warning: str) -> StepReport:
    return StepReport(
        "memory_md",
        counts={"added": 0, "removed": 0, "kept": 0, "never_promoted": 0, "not_fitting": 0},
        warnings=[warning],
    )
