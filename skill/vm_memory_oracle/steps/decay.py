"""Step 2 of consolidation: decay.

Activation is a pure function of time (model/activation.py), so decay multiplies nothing:
a second pass, or a retried consolidation, gives the same numbers. What this step writes
is the activation state made whole: the journal of recalls folded into
activation-metadata.json, an entry for every active fact, and none for a fact that is no
longer active. It reports where the facts stand now.
"""

from __future__ import annotations

from datetime import datetime

from ..graph import KnowledgeGraph
from .report import StepReport


def decay(graph: KnowledgeGraph, now: datetime) -> StepReport:
    settings = graph.settings
    store = graph.store
    with store.locked("consolidate: decay"):
        facts = graph.facts()
        state = store.read_activation()
        whole = state.for_facts(facts)
        # Counted, not compared as sets of ids: a million ids made twice over were 250 MB.
        kept = len(state.only(fact.id for fact in facts))
        dropped, added = len(state) - kept, len(whole) - kept
        folded = store.fold_activation(whole)
        if folded:
            store.note(
                f"activation state folded: {dropped} stale entries dropped, "
                f"{added} missing entries added"
            )
    values = graph.activation_values([fact for fact in facts if fact.current], whole, now)
    return StepReport(
        "decay",
        counts={
            "facts": len(values),
            "below_search_threshold": sum(v < settings.search_threshold for v in values),
            "below_prune_threshold": sum(v < settings.prune_threshold for v in values),
            "state_dropped": dropped,
            "state_added": added,
            "state_written": int(folded),
        },
        details={"average_activation": round(sum(values) / len(values), 4) if values else None},
    )
