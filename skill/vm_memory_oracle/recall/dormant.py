"""The dormant tier: the facts fading took out of everyday recall, found when the active
ones do not answer.

Activation halves while a fact is not recalled, and a fact under search_threshold leaves
the active set recall searches first. It stays in facts.jsonl and in every index, and a
question months later may need it: fading changes rank, not findability. When the active
facts do not answer a query (fewer than k of them hold its words), the current facts under
the threshold are searched as the active ones are, by every source (exact, words, meaning,
names, time, graph) and behind the same gate (gate.py: a query about nothing the memory
holds still gets nothing). Each dormant fact found is ranked by its relevance, lowered by
its age: a fact said a year ago or more keeps 1 - AGE_SHARE of its score, one said today
all of it. The active and dormant facts are then one list, best first.

A dormant fact that recall returns is the memory's again: recall (when it boosts) sets its
activation to RESTORED_ACTIVATION (0.3) from now, as a fact restored from the archive is,
noting it in the audit log, and the recall boost adds to that. `--no-boost` finds it without
restoring. MEMORY.md is written from the active facts only, so it keeps forgetting them.
"""

from __future__ import annotations

from datetime import datetime

from ..clock import parse_iso
from .fusion import Hit, rank
from .gate import concerns_the_memory
from .query import Query
from .sources import SOURCES

DORMANT = "dormant"  # in a dormant fact's `matched`, beside the sources that found it
# How many neighbours by meaning the dormant pass reads: the nearest hundred are mostly
# active facts when the active set is large, and the dormant ones lie among those further.
DORMANT_DEPTH = 1000
# The share of its relevance a dormant fact said a year ago or more gives up, in proportion
# to its age before that: its age is a lower weight than how well it answers.
AGE_SHARE = 0.2
DAYS_FOR_FULL_AGE = 365.0


def answered(hits: list[Hit], k: int) -> bool:
    """Whether the active facts answer: at least `k` of their `hits` hold the query's words
    (matched exactly or by the full-text index), not only its meaning or a graph hop."""
    return sum(1 for hit in hits if {"exact", "lexical"} & set(hit.matched)) >= k


def dormant_hits(query: Query, now: datetime) -> list[Hit]:
    """The dormant facts that answer `query` (a Query over the active facts), best first,
    each scored by relevance and age, marked DORMANT; none when there is none or the query
    concerns none of them."""
    corpus = query.corpus.below_threshold()
    if not corpus.mask.any() and not _changed_below(corpus):
        return []
    nearest = None
    if query.semantic is not None and query.vector is not None:
        nearest = query.semantic.index.index.search(query.vector, DORMANT_DEPTH)
    asked = Query(
        query.text,
        corpus,
        k=query.k,
        today=query.today,
        vector=query.vector,
        semantic=query.semantic,
        nearest=nearest,
    )
    if not concerns_the_memory(asked):
        return []
    hits = rank(asked, SOURCES, "relevance")
    for hit in hits:
        hit.score *= age_weight(hit.fact.record.created, now)
        hit.matched = (*hit.matched, DORMANT)
    return hits


def age_weight(said: str, now: datetime) -> float:
    """What share of its relevance a fact said at `said` (ISO time) keeps at `now`."""
    days = max(0.0, (now - parse_iso(said)).total_seconds() / 86400.0)
    return 1.0 - AGE_SHARE * min(1.0, days / DAYS_FOR_FULL_AGE)


def _changed_below(corpus) -> bool:
    """Whether a fact changed since the lexical snapshot was made lies under the threshold
    (such facts are read one by one, outside the snapshot's mask)."""
    indexed = corpus.tables.position
    return any(
        corpus.searchable(fact_id) for fact_id in corpus.view.records if fact_id not in indexed
    )
