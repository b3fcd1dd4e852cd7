"""The archive searched: pruned facts found by their words and meaning when the active facts
do not answer.

The archive tier (archive_tier.py) holds the pruned facts' lexical snapshot and vectors; a
Corpus over it, with a vector index of its vectors, is searched by every source as the
active facts are (exact, words, meaning, names, time, graph), behind the same gate. A fact
found is marked "archive"; dormant.ranked_together ranks it with the dormant ones.
Those recall returns are restored to the active set at activation 0.3 when it boosts
(`restore`), each in facts.jsonl before it leaves the archive; `--no-boost` finds them
without restoring. Facts the user asked to forget, and facts replaced by newer statements,
are never in the tier, so never found here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Set
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from ..graph import KnowledgeGraph, LiveFact
from ..lexical.snapshot import tables_of
from ..model.fact import Fact
from ..storage.facts_places import FactsAt
from .corpus import Corpus
from .dormant import ARCHIVE, searched_tier
from .fusion import Hit
from .query import Query

if TYPE_CHECKING:
    from ..archive_tier import ArchiveTier
    from ..semantic.index import SemanticIndex


def archived_hits(query: Query, tier: ArchiveTier) -> list[Hit]:
    """The pruned facts of `tier`, not active now, that answer `query` (a Query over the
    active facts), best first in their tier, marked ARCHIVE; none when there is none or the
    query concerns none of them."""
    searched = _searched(query.corpus, tier)
    if searched is None:
        return []
    corpus, index = searched
    semantic = None
    if query.semantic is not None and query.vector is not None and index is not None:
        semantic = replace(query.semantic, index=index)
    return searched_tier(query, corpus, semantic, ARCHIVE)


def _searched(active: Corpus, tier: ArchiveTier) -> tuple[Corpus, SemanticIndex | None] | None:
    """The archive's corpus as the queries of one recall over `active` search it (made
    once for them all: which of its facts are active again is found once), with its vector
    index; None when none of its facts can be found."""
    held = active.archive
    if held is not None and held[0] is tier:
        return held[1]
    view = active.view.records
    # The facts remembered again since they were archived: active, so not searched here.
    if isinstance(view, FactsAt):  # by their vector ids, reading only the facts that match
        tables = tables_of(tier.snapshot)
        again = view.held(tables.ids, np.frombuffer(tier.snapshot.vids, dtype=np.uint64))
    else:
        again = tier.position.keys() & view.keys()
    searched: tuple[Corpus, SemanticIndex | None] | None = None
    if len(again) < len(tier):
        corpus = Corpus(_ArchiveView(tier, again), 0.0, tier.snapshot, ranked_by_coverage=True)
        if again:
            corpus.mask[[tier.position[fact_id] for fact_id in again]] = False
        searched = corpus, tier.vector_index if tier.vectors is not None else None
    active.archive = (tier, searched)
    return searched


def restore_found(
    graph: KnowledgeGraph, hits: list[Hit], tier: ArchiveTier, now: datetime
) -> list[Hit]:
    """`hits` with the archived facts among them (found in `tier`) restored to the active
    set at activation 0.3 (KnowledgeGraph.restore), each hit showing its fact as restored;
    one another process restored or archived again meanwhile is left as found."""
    found = {hit.fact.id: hit for hit in hits if ARCHIVE in hit.matched}
    if not found:
        return hits
    for live in graph.restore([tier.archived(fact_id) for fact_id in found], now):
        found[live.id].fact = live
    return hits


class _ArchiveView:
    """Archived facts seen as a corpus: all of them searchable but those active again
    (`again`), none with activation. A record is read, and made a Fact, only when recall
    looks at it (an archive may hold 100,000)."""

    def __init__(self, tier: ArchiveTier, again: Set[str]):
        self.records = _Facts(tier, again)

    def __contains__(self, fact_id: str) -> bool:
        return fact_id in self.records

    def __getitem__(self, fact_id: str) -> LiveFact:
        archived_at = self.records.tier.record(fact_id)["archived_at"]
        return LiveFact(self.records[fact_id], 0.0, archived_at, 0)

    def searchable(self, fact_id: str, threshold: float) -> bool:
        return fact_id in self.records


class _Facts(Mapping):
    """The tier's facts by id, but those active again, each read as a Fact on first use."""

    def __init__(self, tier: ArchiveTier, again: Set[str]):
        self.tier = tier
        self.again = again

    def __getitem__(self, fact_id: str) -> Fact:
        if fact_id not in self:
            raise KeyError(fact_id)
        return self.tier.fact(fact_id)

    def __contains__(self, fact_id: object) -> bool:
        return fact_id in self.tier and fact_id not in self.again

    def __iter__(self) -> Iterator[str]:
        return (fact_id for fact_id in self.tier.ids if fact_id not in self.again)

    def __len__(self) -> int:
        return len(self.tier) - len(self.again)
