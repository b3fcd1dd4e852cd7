"""One recall, from the queries to the result entries.

Each query is checked and read once (query.py) over a corpus of the facts searchable now
(corpus.py). When it concerns the memory (gate.py), every source ranks facts for it
(sources/) and fusion makes one ranking of their lists (fusion.py); when fewer than k of
those hold its words, the archive is searched too (archive.py); the episodes the query finds
are fused with the facts. What is returned is boosted, in one locked write for all the
queries, unless the caller says not to, and shaped into records (entries.py, results.py).
The queries are checked here, before anything is read or written: the library's edge.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..graph import KnowledgeGraph
from ..indexes import Indexes, bring_in_step
from ..model.provenance import Provenance
from ..semantic.search import nearest_of_each
from .archive import archived_hits, restore_found
from .corpus import Corpus
from .dormant import DORMANT, answered, dormant_hits, ranked_together, vectors_of
from .entries import HistoryLookup, found
from .fusion import ORDERS, Hit, in_order, one_per_turn_first, rank, with_episodes
from .gate import concerns_the_memory
from .query import MAX_K, Asked, Query, check_query
from .results import Recalled, ResultSet
from .sources import SOURCES, episodes
from .sources.episodes import EpisodeHit

if TYPE_CHECKING:
    import numpy as np

    from ..episodes.index import EpisodeIndex


def recall_many(
    graph: KnowledgeGraph,
    queries: Sequence[Asked],
    now: datetime,
    *,
    boost: bool = True,
    order: str = "relevance",
    indexes: Indexes | None = None,
    shown: Callable[[Provenance | None], bool] | None = None,
) -> Recalled:
    """Result sets for several queries, ranked on one snapshot, boosted in one locked write.
    `indexes`: the memory's derived indexes in step, else they are brought in step here
    (indexes.bring_in_step) and their warnings are the recall's first. `shown`: whether a
    memory said as a provenance says may be returned (who may hear it,
    openclaw/visibility.py): the others are left out before k are taken, so neither shown
    nor boosted."""
    if order not in ORDERS:
        raise UsageError(f"--order must be one of {', '.join(ORDERS)}, got {order!r}")
    for asked in queries:
        check_query(asked.text)
        if asked.k is not None and not 1 <= asked.k <= MAX_K:
            raise UsageError(f"k must be from 1 to {MAX_K}, got {asked.k}")
    warnings: list[str] = []
    if indexes is None:
        indexes = bring_in_step(graph)
        warnings += indexes.warnings
    view = graph.live_view(now)
    index = indexes.lexical
    activation = indexes.activations(now)
    text = indexes.text if view.records else None
    corpus = Corpus(view, graph.settings.search_threshold, index, activation, text)
    semantic, said = indexes.semantic, indexes.episodes
    if semantic is None or said is None or not len(said):
        said = None  # no episode to find
    wanted = [asked.k or graph.settings.recall_k for asked in queries]
    vectors = None
    if semantic is not None:  # the archive may answer a memory with no active fact
        vectors = semantic.embedder.embed_queries([asked.text for asked in queries])
    history = HistoryLookup(graph, view.records)
    ranking = _Ranking(indexes, corpus, vectors, said, now, order)
    # What the process holds before the queries (the code, the memory's tables) is kept out
    # of the collector's sight while they are ranked: a full collection among them traversed
    # all of it again (25 ms at 10,000 facts, once in 200 queries).
    gc.freeze()
    try:
        if shown is None:
            read, ranked = ranking.ranked(queries, wanted, restore=boost)
        else:
            read, ranked = _visible(ranking, queries, wanted, shown, history)
            if boost:  # an archived fact is restored only when it is returned
                for hits in ranked:
                    restore_found(
                        graph, [h for h in hits if isinstance(h, Hit)], indexes.archive, now
                    )
    finally:
        gc.unfreeze()
    if boost:
        warning = _reinforce(graph, ranked, now)
        warnings.extend([warning] if warning else [])
    choice = indexes.choice
    sets = tuple(
        ResultSet(
            asked.text,
            found(words, hits, history),
            choice.embedder.model_id if choice is not None else None,
            choice.note if choice is not None else None,
        )
        for asked, words, hits in zip(queries, read, ranked)
    )
    return Recalled(sets, tuple(warnings))


class _Ranking:
    """The rankings of queries on one snapshot, for any k (the vectors are embedded once)."""

    def __init__(
        self,
        indexes: Indexes,
        corpus: Corpus,
        vectors: np.ndarray | None,
        said: EpisodeIndex | None,
        now: datetime,
        order: str,
    ):
        self.indexes, self.corpus, self.vectors = indexes, corpus, vectors
        self.said, self.now, self.order = said, now, order

    def ranked(
        self, queries: Sequence[Asked], ks: Sequence[int], *, restore: bool
    ) -> tuple[list[frozenset[str]], list[Sequence[Hit | EpisodeHit]]]:
        """Each query read and ranked, at most ks[i] hits for queries[i], with its words
        (Query.words, what the results are shown with); `restore`: the archived facts
        returned are made active again (archive.restore_found). A Query is let go once
        ranked: what it worked out grows with the memory (the share of its words each fact
        holds), and a recall may have many queries."""
        semantic, vectors = self.indexes.semantic, self.vectors
        nearest = None
        if semantic is not None and vectors is not None and self.corpus.view.records:
            nearest = nearest_of_each(semantic, vectors, list(ks))
        read: list[frozenset[str]] = []
        ranked: list[Sequence[Hit | EpisodeHit]] = []
        for position, asked in enumerate(queries):
            query = Query(
                asked.text,
                self.corpus,
                k=ks[position],
                today=self.now.date(),
                vector=vectors[position] if vectors is not None else None,
                semantic=semantic,
                nearest=nearest[position] if nearest is not None else None,
                episodes=self.said,
                injected=asked.injected,
            )
            read.append(query.words)
            concerned = concerns_the_memory(query)
            hits = _facts_found(
                self.indexes, query, concerned, self.now, restore=restore, order=self.order
            )
            concerned = concerned or bool(hits)  # a dormant or archived fact answered it
            found = _with_episodes(query, hits, concerned) if self.said is not None else hits
            ranked.append(found)
        return read, ranked


def _visible(
    ranking: _Ranking,
    queries: Sequence[Asked],
    wanted: Sequence[int],
    shown: Callable[[Provenance | None], bool],
    history: HistoryLookup,
) -> tuple[list[frozenset[str]], list[Sequence[Hit | EpisodeHit]]]:
    """The first wanted[i] hits of each query that `shown` allows: the hidden ones are left
    out of a longer ranking, made longer again (up to MAX_K) while a query has fewer than it
    wants and its ranking was cut short rather than run out."""
    ks = [min(MAX_K, 4 * k) for k in wanted]
    while True:
        read, ranked = ranking.ranked(queries, ks, restore=False)
        visible = [[hit for hit in hits if shown(history.provenance_of(hit))] for hits in ranked]
        short = [
            position
            for position, hits in enumerate(ranked)
            if len(visible[position]) < wanted[position]
            and len(hits) >= ks[position]
            and ks[position] < MAX_K
        ]
        if not short:
            return read, [hits[:k] for hits, k in zip(visible, wanted)]
        for position in short:
            ks[position] = min(MAX_K, 4 * ks[position])


def _facts_found(
    indexes: Indexes,
    query: Query,
    concerned: bool,
    now: datetime,
    *,
    restore: bool,
    order: str,
) -> list[Hit]:
    """The facts ranked for `query`, none when it does not concern the memory. When the
    active facts do not answer (dormant.answered), the dormant facts under the threshold
    (dormant.py) and the pruned facts of the archive (archive.py) are ranked with them by
    relevance, and those returned are made active again when `restore`: an archived one
    restored here, a dormant one by _reinforce."""
    hits = rank(query, SOURCES, order) if concerned else []
    if answered(hits, query.k):
        return hits
    tier = indexes.archive
    found = dormant_hits(query) + archived_hits(query, tier)
    if not found:
        return hits
    archive_index = tier.vector_index if tier.vectors is not None else None
    vectors = vectors_of(query, hits + found, archive_index)
    hits = one_per_turn_first(ranked_together(query, hits, found, vectors, now), query.k)
    hits = in_order(hits, order)
    return restore_found(indexes.graph, hits, tier, now) if restore else hits


def _with_episodes(query: Query, hits: list[Hit], concerned: bool) -> Sequence[Hit | EpisodeHit]:
    """The facts fused with the episodes the query finds."""
    found = episodes.find(query, concerned=concerned)
    if not found:
        return hits
    return with_episodes(hits, found, query.k, of_the_person=query.of_the_person)


def _reinforce(
    graph: KnowledgeGraph, ranked: list[Sequence[Hit | EpisodeHit]], now: datetime
) -> str | None:
    """Boost every fact returned, once, in one locked write, a dormant one from activation
    0.3 (dormant.py); the hits show the new values. Returns why nothing was boosted, if so."""
    returned = {
        hit.fact.id: hit.fact.record for hits in ranked for hit in hits if isinstance(hit, Hit)
    }
    if not returned:
        return None
    woken = {
        hit.fact.id
        for hits in ranked
        for hit in hits
        if isinstance(hit, Hit) and DORMANT in hit.matched
    }
    boost = graph.reinforce(list(returned.values()), now, woken=woken)
    for hits in ranked:
        for hit in hits:
            if isinstance(hit, Hit) and hit.fact.id in boost.activations:
                hit.fact.activation = boost.activations[hit.fact.id]
    return boost.warning
