"""Recall (DESIGN section 6): candidates, ranking, activation filter, boost.

Candidates come from an exact match on subject, object, sentence or id, and from a lexical
match (BM25 over tokens, English and Chinese). Superseded facts and facts below
search_threshold are left out; what is returned is boosted unless the caller says not to.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from .errors import InvalidInputError, UsageError
from .graph import KnowledgeGraph, LiveFact
from .model.fact import fact_sentence, normalise
from .model.text import tokens

ORDERS = ("relevance", "activation")
MAX_QUERY_CHARS = 4000
EXACT_SCORE = 1.0
# A lexical hit scoring under this share of the query's best hit matched only on words that
# nearly every fact has ("user", "topic"); it is noise, not an answer.
MIN_RELATIVE_SCORE = 0.2
_BM25_K1 = 1.2
_BM25_B = 0.75


@dataclass
class Hit:
    fact: LiveFact
    score: float


def recall(graph: KnowledgeGraph, query: str, now: datetime, *, k: int | None = None,
           boost: bool = True, order: str = "relevance") -> dict:
    """The result set of one query: {"query", "results": [...]}, boosted unless boost=False."""
    return recall_many(graph, [{"query": query, "k": k}], now, boost=boost, order=order)[0]


def recall_many(graph: KnowledgeGraph, queries: list[dict], now: datetime, *,
                boost: bool = True, order: str = "relevance") -> list[dict]:
    """Result sets for several queries, ranked on one snapshot, boosted in one locked write."""
    if order not in ORDERS:
        raise UsageError(f"--order must be one of {', '.join(ORDERS)}, got {order!r}")
    for item in queries:
        _check_query(item["query"])
    facts = graph.live_facts(now)
    searchable = [fact for fact in facts
                  if fact.current and fact.activation >= graph.settings.search_threshold]
    corpus = Corpus(searchable)
    by_id = {fact.id: fact for fact in facts}
    ranked = [rank(item["query"], corpus, item.get("k") or graph.settings.recall_k, order)
              for item in queries]
    if boost:
        returned = {hit.fact.id: hit.fact.record for hits in ranked for hit in hits}
        new_values = graph.reinforce(list(returned.values()), now) if returned else {}
        for hits in ranked:
            for hit in hits:
                if hit.fact.id in new_values:
                    hit.fact.activation = new_values[hit.fact.id]
    return [{"query": item["query"], "results": [result_entry(hit, by_id) for hit in hits]}
            for item, hits in zip(queries, ranked)]


def _check_query(query: str) -> None:
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query must not be empty", key="query")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInputError(f"query is {len(query)} characters, at most {MAX_QUERY_CHARS}",
                                key="query")


def rank(query: str, corpus: "Corpus", k: int, order: str) -> list[Hit]:
    scores = dict.fromkeys(corpus.exact_matches(query), EXACT_SCORE)
    for fact_id, score in corpus.lexical_scores(query).items():
        scores.setdefault(fact_id, score)
    hits = [Hit(corpus.by_id[fact_id], score) for fact_id, score in scores.items()]
    if order == "activation":
        hits.sort(key=lambda hit: (-hit.fact.activation, -hit.score, hit.fact.id))
    else:
        hits.sort(key=lambda hit: (-hit.score, -hit.fact.activation, hit.fact.id))
    return hits[:k]


class Corpus:
    """The searchable facts, indexed once per call for exact and lexical (BM25) matching."""

    def __init__(self, facts: list[LiveFact]):
        self.by_id = {fact.id: fact for fact in facts}
        self.exact: dict[str, list[str]] = {}
        self.postings: dict[str, dict[str, int]] = {}
        self.lengths: dict[str, int] = {}
        for fact in facts:
            record = fact.record
            sentence = fact_sentence(record)
            predicate = record["predicate"].replace("_", " ")
            for key in {record["id"], normalise(record["subject"]), normalise(record["object"]),
                        normalise(sentence), normalise(f"{record['subject']} {predicate}")}:
                self.exact.setdefault(key, []).append(fact.id)
            words = tokens(" ".join((sentence, record["subject"], predicate, record["object"])))
            for term, frequency in Counter(words).items():
                self.postings.setdefault(term, {})[fact.id] = frequency
            self.lengths[fact.id] = len(words)
        self.average_length = (sum(self.lengths.values()) / len(self.lengths)) if facts else 0.0

    def exact_matches(self, query: str) -> list[str]:
        """Ids of facts whose id, subject, object, sentence or "subject predicate" is the query."""
        return self.exact.get(normalise(query), [])

    def lexical_scores(self, query: str,
                       min_relative: float = MIN_RELATIVE_SCORE) -> dict[str, float]:
        """Fact id -> score in (0, 1) for facts sharing tokens with the query.

        Facts scoring under `min_relative` times the best score are left out.
        """
        total = len(self.lengths)
        raw: dict[str, float] = {}
        for term in set(tokens(query)):
            posting = self.postings.get(term)
            if not posting:
                continue
            idf = math.log(1 + (total - len(posting) + 0.5) / (len(posting) + 0.5))
            for fact_id, frequency in posting.items():
                norm = 1 - _BM25_B + _BM25_B * self.lengths[fact_id] / self.average_length
                raw[fact_id] = raw.get(fact_id, 0.0) + (
                    idf * frequency * (_BM25_K1 + 1) / (frequency + _BM25_K1 * norm))
        floor = min_relative * max(raw.values(), default=0.0)
        # Squash into (0, 1), below the exact-match score, keeping the order.
        return {fact_id: 0.99 * score / (score + 2.0) for fact_id, score in raw.items()
                if score >= floor}


def result_entry(hit: Hit, by_id: dict[str, LiveFact]) -> dict:
    record = hit.fact.record
    entry = {"id": record["id"], "text": fact_sentence(record), "subject": record["subject"],
             "predicate": record["predicate"], "object": record["object"],
             "activation": round(hit.fact.activation, 4), "score": round(hit.score, 4),
             "source": record["source"]}
    history = supersession_history(record, by_id)
    if history:
        entry["history"] = history
    return entry


def supersession_history(record: dict, by_id: dict[str, LiveFact]) -> list[dict]:
    """The statements this fact replaced, newest first (as long as they are still active)."""
    history = []
    seen = {record["id"]}
    previous = record.get("supersedes")
    while previous and previous not in seen and previous in by_id:
        seen.add(previous)
        older = by_id[previous].record
        history.append({"id": older["id"], "text": fact_sentence(older), "object": older["object"],
                        "created": older["created"], "superseded_at": older.get("superseded_at")})
        previous = older.get("supersedes")
    return history
