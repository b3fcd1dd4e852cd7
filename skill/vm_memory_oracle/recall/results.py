"""The result entries of a recall: a fact with its supersession history, an episode cut to
its share of the characters the facts leave."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..episodes.search import EPISODE_MIN_CHARS, EpisodeHit, clipped, episode_chars, episode_entry
from ..graph import KnowledgeGraph
from ..model.archive import cause_of
from ..model.fact import Fact
from .fusion import Hit


def entries(query: str, hits: Sequence[Hit | EpisodeHit], history: HistoryLookup) -> list[dict]:
    """The result entries of facts (Hit) and episodes (EpisodeHit), each episode's text cut
    to its share of the characters the facts leave."""
    facts = {id(hit): result_entry(hit, history) for hit in hits if isinstance(hit, Hit)}
    # A turn whose statement a returned fact replaced is not shown beside it ("I live in
    # Lisbon" beside "user lives in Porto"): the fact's history says what it replaced.
    replaced = {
        older.source
        for hit in hits
        if isinstance(hit, Hit) and hit.fact.record.supersedes
        for older in earlier_statements(hit.fact.record, history)
    }
    hits = [hit for hit in hits if isinstance(hit, Hit) or hit.episode.source not in replaced]
    said = len(hits) - len(facts)
    fact_chars = sum(len(entry["text"]) for entry in facts.values())
    share = episode_chars(fact_chars, said)
    while said and share < EPISODE_MIN_CHARS:  # the facts leave too little: fewer episodes
        last = max(place for place, hit in enumerate(hits) if not isinstance(hit, Hit))
        hits = hits[:last] + hits[last + 1 :]
        said -= 1
        share = episode_chars(fact_chars, said)
    return [
        facts[id(hit)]
        if isinstance(hit, Hit)
        else episode_entry(hit, clipped(hit.episode.text, query, share))
        for hit in hits
    ]


def earlier_statements(fact: Fact, history) -> list[Fact]:
    """The statements `fact` replaced, newest first (`history.get(id)` finds them)."""
    older, seen, previous = [], {fact.id}, fact.supersedes
    while previous and previous not in seen:
        seen.add(previous)
        found = history.get(previous)
        if found is None:
            break
        older.append(found)
        previous = found.supersedes
    return older


class HistoryLookup:
    """Earlier statements by id: active ones, then (read only if needed) archived ones,
    since consolidation archives a superseded fact but it stays the newer one's history."""

    def __init__(self, graph: KnowledgeGraph, records: Mapping[str, Fact]):
        self._graph = graph
        self._records = records
        self._archived: dict[str, Fact] | None = None

    def get(self, fact_id: str) -> Fact | None:
        fact = self._records.get(fact_id)
        if fact is not None:
            return fact
        if self._archived is None:
            self._archived = {
                record["id"]: Fact.from_archived(record)
                for record in self._graph.archived_facts()
                if cause_of(record).code == "superseded"
            }
        return self._archived.get(fact_id)


def result_entry(hit: Hit, history) -> dict:
    fact = hit.fact.record
    entry = {
        "id": fact.id,
        "text": fact.sentence,
        "subject": fact.subject,
        "predicate": fact.predicate,
        "object": fact.object,
        "activation": round(hit.fact.activation, 4),
        "score": round(hit.score, 4),
        "source": fact.source,
        "matched": list(hit.matched),
    }
    if fact.supersedes:
        earlier = supersession_history(fact, history)
        if earlier:
            entry["history"] = earlier
    return entry


def supersession_history(fact: Fact, facts) -> list[dict]:
    """The statements this fact replaced, newest first; `facts.get(id)` finds them."""
    return [
        {
            "id": older.id,
            "text": older.sentence,
            "object": older.object,
            "created": older.created,
            "superseded_at": older.superseded_at,
        }
        for older in earlier_statements(fact, facts)
    ]
