"""The dormant tier: the facts fading took out of everyday recall, found when the active
ones do not answer.

Activation halves while a fact is not recalled, and a fact under search_threshold leaves
the active set recall searches first. It stays in facts.jsonl and in every index, and a
question months later may need it: fading changes rank, not findability. When the active
facts do not answer a query (fewer than k of them hold its words), the current facts under
the threshold are searched as the active ones are, by every source (exact, words, meaning,
names, time, graph) and behind the same gate (gate.py: a query about nothing the memory
holds still gets nothing), as are the archive's pruned facts (archive.py). The faded facts
found are then placed among the active ones by one measure (ranked_together: meaning,
the time the query names and the kind of value it asks for, as recall ranks the active
ones), lowered by their age: a fact said a year ago or more keeps 1 - AGE_SHARE of it,
one said today all.

A dormant fact that recall returns is the memory's again: recall (when it boosts) sets its
activation to RESTORED_ACTIVATION (0.3) from now, as a fact restored from the archive is,
noting it in the audit log, and the recall boost adds to that. `--no-boost` finds it without
restoring. MEMORY.md is written from the active facts only, so it keeps forgetting them.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from ..clock import parse_iso
from ..lexical.index import document_text
from ..model.answer_kind import HELD, asked_kind, asked_words
from ..model.fact import vector_id
from ..model.text import evidence_terms
from ..semantic.index import SemanticIndex
from ..semantic.search import Semantic
from .candidates import reciprocal
from .corpus import Corpus
from .fusion import Hit, rank
from .gate import concerns_the_memory
from .query import Query
from .sources import SOURCES, answer, exact, lexical, semantic, time
from .sources.answer import holds_value
from .sources.time import of_the_time

ARCHIVE = "archive"  # in an archived fact's `matched` (archive.py)

DORMANT = "dormant"  # in a dormant fact's `matched`, beside the sources that found it
# How many neighbours by meaning the dormant pass reads: the nearest hundred are mostly
# active facts when the active set is large, and the dormant ones lie among those further.
DORMANT_DEPTH = 1000
# The share of its relevance a dormant fact said a year ago or more gives up, in proportion
# to its age before that: its age is a lower weight than how well it answers.
AGE_SHARE = 0.2
DAYS_FOR_FULL_AGE = 365.0


def ranked_together(
    query: Query,
    active: list[Hit],
    found: list[Hit],
    vectors: dict[str, np.ndarray],
    now: datetime,
) -> list[Hit]:
    """The active facts' hits (`active`, in recall's order) and the dormant and archived
    facts `found` (each tier ranked on its own) as one list. A tier's scores come from
    places in its own lists, so two tiers' would interleave by place, not relevance; so all
    of them are measured alike (_measure): by meaning, each fact's vector (`vectors` by fact
    id) against the query's, with the re-ranking lists recall fuses for the active facts (the
    time the query names, the kind of value it asks for), an exact match leading. A faded
    fact's measure is lowered by its age (age_weight). The faded facts are ordered by it,
    and placed among the active ones (whose order stays recall's) where it falls, an active
    fact first on a tie; each hit's score is the measure, never above the one before."""
    if not found:
        return active
    every = active + found
    measure = _measure(query, every, vectors)
    for place in range(len(active), len(every)):
        measure[place] *= age_weight(every[place].fact.record.created, now)
    faded = sorted(
        range(len(active), len(every)), key=lambda place: (-measure[place], every[place].fact.id)
    )
    merged: list[int] = []
    first, second = 0, 0
    while first < len(active) or second < len(faded):
        take_active = second == len(faded) or (
            first < len(active) and measure[first] >= measure[faded[second]]
        )
        if take_active:
            merged.append(first)
            first += 1
        else:
            merged.append(faded[second])
            second += 1
    ranked = []
    ceiling = 1.0
    for place in merged:
        hit = every[place]
        hit.score = ceiling = min(ceiling, float(measure[place]))
        ranked.append(hit)
    return ranked


def _measure(query: Query, hits: list[Hit], vectors: dict[str, np.ndarray]) -> np.ndarray:
    """Each hit's relevance by one measure, in (0, 1]: its place by meaning (the similarity
    of its vector to the query's) fused by reciprocal rank, an exact match leading; by the
    share of the query's evidence terms its lexical text holds only without a model. Words
    were a second list at first, and a word as common as "lately" then lifted a fact above
    the one that answered: each tier chose its facts by their words already."""
    fused = np.zeros(len(hits))
    weights = 0.0
    if query.vector is not None and vectors:
        similarity = np.array(
            [
                float(vectors[hit.fact.id] @ query.vector) if hit.fact.id in vectors else -1.0
                for hit in hits
            ]
        )
        fused += np.where(similarity > -1.0, reciprocal(semantic.WEIGHT, _places(similarity)), 0)
        weights += semantic.WEIGHT
    terms = query.terms
    if terms and not weights:
        shares = np.array(
            [
                len(terms & evidence_terms(document_text(hit.fact.record))) / len(terms)
                for hit in hits
            ]
        )
        fused += np.where(shares > 0, reciprocal(lexical.WEIGHT, _places(shares)), 0.0)
        weights += lexical.WEIGHT
    reranked, more = _reranked(query, hits, fused)
    fused += reranked
    weights += more
    lead = np.array([exact.LEAD if "exact" in hit.matched else 0.0 for hit in hits])
    top = (reciprocal(weights, 1) if weights else 0.0) + (exact.LEAD if lead.any() else 0.0)
    return (fused + lead) / top if top else np.ones(len(hits))


def _reranked(query: Query, hits: list[Hit], fused: np.ndarray) -> tuple[np.ndarray, float]:
    """What the re-ranking lists recall fuses for the active facts add to each hit, and
    their weights: the hits of the time the query names (sources/time.py) and those holding
    the kind of value it asks for (sources/answer.py), each list in the order measured so
    far, and counted only when it holds some of the hits but not all (else it changes no
    order). So a faded fact that answers is placed as an active one that answers is."""
    lists = []
    if query.periods:
        lists.append((time.WEIGHT, [of_the_time(hit.fact.record, query.periods) for hit in hits]))
    kind = asked_kind(query.text)
    if kind in HELD:  # no fact holds a value of another kind
        asked = asked_words(query.text)
        lists.append((answer.WEIGHT, [holds_value(hit.fact.record, kind, asked) for hit in hits]))
    added = np.zeros(len(hits))
    weights = 0.0
    order = np.argsort(-fused, kind="stable")
    for weight, held in lists:
        chosen = order[np.array(held, dtype=np.bool_)[order]]
        if 0 < len(chosen) < len(hits):
            added[chosen] += reciprocal(weight, np.arange(1, len(chosen) + 1))
            weights += weight
    return added, weights


def _places(values: np.ndarray) -> np.ndarray:
    """Each value's place, from 1, best (largest) first; ties in their order."""
    places = np.empty(len(values))
    places[np.argsort(-values, kind="stable")] = np.arange(1, len(values) + 1)
    return places


def answered(hits: list[Hit], k: int) -> bool:
    """Whether the active facts answer: at least `k` of their `hits` hold the query's words
    (matched exactly or by the full-text index), not only its meaning or a graph hop."""
    return sum(1 for hit in hits if {"exact", "lexical"} & set(hit.matched)) >= k


def dormant_hits(query: Query) -> list[Hit]:
    """The dormant facts that answer `query` (a Query over the active facts), best first in
    their tier, marked DORMANT; none when there is none or the query concerns none of
    them."""
    corpus = query.corpus.below_threshold
    if not corpus.mask.any() and not corpus.unindexed_searchable:
        return []
    nearest = None
    if query.semantic is not None and query.vector is not None:
        nearest = query.semantic.index.index.search(query.vector, DORMANT_DEPTH)
    return searched_tier(query, corpus, query.semantic, DORMANT, nearest)


def searched_tier(
    query: Query,
    corpus: Corpus,
    semantic: Semantic | None,
    mark: str,
    nearest: list[tuple[int, float]] | None = None,
) -> list[Hit]:
    """The facts of a faded tier (`corpus`, searched by meaning in `semantic`'s index) that
    answer `query`, ranked by every source, best first in the tier, each marked `mark`;
    none when the query concerns none of them (gate.py)."""
    asked = Query(
        query.text,
        corpus,
        k=query.k,
        today=query.today,
        vector=query.vector if semantic is not None else None,
        semantic=semantic,
        nearest=nearest,
    )
    if not concerns_the_memory(asked):
        return []
    hits = rank(asked, SOURCES, "relevance")
    for hit in hits:
        hit.matched = (*hit.matched, mark)
    return hits


def vectors_of(
    query: Query, found: list[Hit], archive: SemanticIndex | None
) -> dict[str, np.ndarray]:
    """The vector of each fact of `found` by id: an active or dormant one's from the facts'
    vector index, an archived one's from `archive` (the archive tier's); none without a
    model, nor for a fact changed since its index was made."""
    if query.semantic is None or query.vector is None:
        return {}
    vectors: dict[str, np.ndarray] = {}
    for hit in found:
        index = archive if ARCHIVE in hit.matched else query.semantic.index
        fact_id = hit.fact.id
        if index is None or vector_id(fact_id) not in index.fact_of_vector:
            continue
        held = index.index.vectors(np.array([vector_id(fact_id)], dtype=np.int64))
        vectors[fact_id] = held[0]
    return vectors


def age_weight(said: str, now: datetime) -> float:
    """What share of its relevance a fact said at `said` (ISO time) keeps at `now`."""
    days = max(0.0, (now - parse_iso(said)).total_seconds() / 86400.0)
    return 1.0 - AGE_SHARE * min(1.0, days / DAYS_FOR_FULL_AGE)
