"""The knowledge graph: the store of facts (facts), the live views of them with their
activation (views), the supersession rules (supersession), and the indexes derived from
them (derived)."""

from .derived import entity_names, entity_records, relation_records
from .facts import KnowledgeGraph, RememberReport
from .supersession import PREFERENCE, Supersession, current_holders
from .views import LiveFact, LiveView, live_fact

__all__ = [
    "KnowledgeGraph",
    "LiveFact",
    "LiveView",
    "PREFERENCE",
    "RememberReport",
    "Supersession",
    "current_holders",
    "entity_names",
    "entity_records",
    "live_fact",
    "relation_records",
]
