"""Step 6 of consolidation: prune.

A fact leaves the active set, archived first and then removed from facts.jsonl and the
index, when
- a newer statement superseded it ("superseded by <id>": it stays findable as history);
- its activation fell below prune_threshold ("pruned: ...");
- the active facts number more than max_facts: the lowest activation goes first
  ("pruned: over max_facts ...").
Pinned facts are never pruned. Pruned facts come back when a recall finds them in the
archive (recall/archive.py); superseded ones do not. First, a fact superseded by a fact
that is nowhere (its line lost to damage) is made current again ("reinstated").
"""

from __future__ import annotations

from datetime import datetime

from ..graph import KnowledgeGraph
from ..model.archive import ArchiveCause
from .report import StepReport


def facts_to_prune(graph: KnowledgeGraph, now: datetime) -> dict[str, ArchiveCause]:
    """Fact id -> why it leaves the active set, as things stand at `now`."""
    settings = graph.settings
    facts = graph.facts()
    state = graph.store.read_activation()
    chosen: dict[str, ArchiveCause] = {}
    survivors: list[tuple[float, str]] = []
    values = graph.activation_values(facts, state, now)
    for fact, value in zip(facts, values):
        if fact.superseded_by is not None:
            chosen[fact.id] = ArchiveCause("superseded", fact.superseded_by)
            continue
        if fact.pinned:
            continue
        if value < settings.prune_threshold:
            chosen[fact.id] = ArchiveCause(
                "pruned",
                f"activation {value:.4f} below prune_threshold {settings.prune_threshold:g}",
            )
        else:
            survivors.append((value, fact.id))
    pinned = sum(1 for fact in facts if fact.pinned and fact.current)
    excess = pinned + len(survivors) - settings.max_facts
    if excess > 0:
        survivors.sort()
        for value, fact_id in survivors[:excess]:
            chosen[fact_id] = ArchiveCause(
                "pruned", f"over max_facts {settings.max_facts} (activation {value:.4f})"
            )
    return chosen


def prune(graph: KnowledgeGraph, now: datetime, *, bring_indexes_in_step=None) -> StepReport:
    """Archive what is due; `bring_indexes_in_step()` then takes the archived facts out of
    the vector and full-text indexes (no embedding) and returns their warnings."""
    with graph.store.locked("consolidate: prune"):
        reinstated = graph.reinstate_orphans()
        chosen = facts_to_prune(graph, now)
        graph.archive(chosen, now)
    warnings = bring_indexes_in_step() if bring_indexes_in_step is not None else []
    causes = [cause.code for cause in chosen.values()]
    return StepReport(
        "prune",
        counts={
            "archived": len(chosen),
            "superseded": causes.count("superseded"),
            "pruned": causes.count("pruned"),
            "reinstated": len(reinstated),
        },
        changes=[
            {"fact": fact_id, "change": "reinstated", "reason": reason}
            for fact_id, reason in sorted(reinstated.items())
        ]
        + [
            {"fact": fact_id, "change": "archived", "reason": cause.prose}
            for fact_id, cause in sorted(chosen.items())
        ],
        warnings=warnings,
    )
