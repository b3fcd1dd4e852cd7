"""The archive fallback: when fewer than k active facts hold the query's words, pruned
facts of the archive that do are restored to the active set at activation 0.3 and returned.

Facts the user asked to forget, and facts replaced by newer statements, stay archived.
"""

from __future__ import annotations

from datetime import datetime

from ..graph import KnowledgeGraph, LiveFact
from ..lexical.snapshot import build_lexical_index
from ..model.archive import cause_of
from ..model.fact import Fact
from .corpus import Corpus
from .fusion import Hit
from .gate import WORD_EVIDENCE
from .query import Query


def restore_from_archive(
    graph: KnowledgeGraph, asked: Query, wanted: int, now: datetime
) -> list[Hit]:
    """Up to `wanted` pruned facts, not active now, that match the query `asked` exactly or
    hold at least WORD_EVIDENCE of its words, best first, restored; none when no pruned
    fact does."""
    active = asked.corpus.view
    candidates = {
        record["id"]: record
        for record in graph.archived_facts()
        if cause_of(record).code == "pruned" and record["id"] not in active
    }
    if not candidates:
        return []
    archive_view = _ArchiveView(candidates)
    archived = Corpus(archive_view, 0.0, build_lexical_index(list(archive_view.records.values())))
    query = Query(asked.text, archived)
    scores = dict.fromkeys(query.exact, 2.0)
    coverage = query.coverage
    for fact_id in coverage:
        if coverage[fact_id] >= WORD_EVIDENCE:
            scores.setdefault(fact_id, coverage[fact_id])
    best = sorted(scores, key=lambda fact_id: (-scores[fact_id], fact_id))[:wanted]
    restored = graph.restore([candidates[fact_id] for fact_id in best], now)
    return [Hit(live, min(scores[live.id], 1.0), ("archive",)) for live in restored]


class _ArchiveView:
    """Archived facts seen as a corpus: all of them searchable, none with activation."""

    def __init__(self, archived: dict[str, dict]):
        self.records = {fact_id: Fact.from_archived(record) for fact_id, record in archived.items()}
        self._archived_at = {fact_id: record["archived_at"] for fact_id, record in archived.items()}

    def __contains__(self, fact_id: str) -> bool:
        return fact_id in self.records

    def __getitem__(self, fact_id: str) -> LiveFact:
        return LiveFact(self.records[fact_id], 0.0, self._archived_at[fact_id], 0)

    def searchable(self, fact_id: str, threshold: float) -> bool:
        return fact_id in self.records
