"""What a recall shows of each hit: a fact with its supersession history, an episode cut to
its share of the characters the facts leave: to a window around the query's words, so that
k results stay within RESULT_CHARS characters (a passage, never a whole article)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..graph import KnowledgeGraph
from ..model.archive import ArchiveById
from ..model.fact import UNKNOWN_ORIGIN, Fact
from ..model.provenance import Provenance
from ..model.text import tokens
from .fusion import Hit
from .results import Earlier, Found, FoundEpisode, FoundFact
from .sources.episodes import EpisodeHit

RESULT_CHARS = 2000  # of k=10 results at most
EPISODE_MIN_CHARS = 120  # a window shorter than this says too little: fewer episodes
EPISODE_MAX_CHARS = 600
_WORD = re.compile(r"\S+")


def found(
    words: frozenset[str], hits: Sequence[Hit | EpisodeHit], history: HistoryLookup
) -> tuple[Found, ...]:
    """The records of facts (Hit) and episodes (EpisodeHit) found, each episode's text cut
    to its share of the characters the facts leave, around the query's `words`."""
    facts = {id(hit): found_fact(hit, history) for hit in hits if isinstance(hit, Hit)}
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
    fact_chars = sum(len(entry.text) for entry in facts.values())
    share = episode_chars(fact_chars, said)
    while said and share < EPISODE_MIN_CHARS:  # the facts leave too little: fewer episodes
        last = max(place for place, hit in enumerate(hits) if not isinstance(hit, Hit))
        hits = hits[:last] + hits[last + 1 :]
        said -= 1
        share = episode_chars(fact_chars, said)
    return tuple(
        facts[id(hit)]
        if isinstance(hit, Hit)
        else found_episode(hit, clipped(hit.episode.text, words, share), history)
        for hit in hits
    )


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
        self._archived: ArchiveById | None = None
        self._copies: frozenset[str] | None = None

    def provenance_of(self, hit: Hit | EpisodeHit) -> Provenance | None:
        """Who said a hit's fact or turn, as its result says (found_fact, found_episode)."""
        if isinstance(hit, Hit):
            return hit.fact.record.said_by
        return episode_provenance(hit, self)

    def copied_from_openclaw(self, source: str) -> bool:
        """Whether the session log a turn's `source` cites is a copy of OpenClaw's
        transcripts (state/imports.json says which are), read once."""
        from ..openclaw.ledger import transcript_copies

        if self._copies is None:
            self._copies = transcript_copies(self._graph.store)
        return source.rsplit(":", 1)[0].removeprefix("sessions/") in self._copies

    def get(self, fact_id: str) -> Fact | None:
        fact = self._records.get(fact_id)
        if fact is not None:
            return fact
        if self._archived is None:
            self._archived = self._graph.archived_by_id("superseded")
        archived = self._archived.get(fact_id)
        return None if archived is None else archived.fact


def found_fact(hit: Hit, history) -> FoundFact:
    fact = hit.fact.record
    return FoundFact(
        fact.id,
        fact.sentence,
        fact.subject,
        fact.predicate,
        fact.object,
        round(hit.fact.activation, 4),
        round(hit.score, 4),
        fact.source,
        tuple(hit.matched),
        supersession_history(fact, history) if fact.supersedes else (),
        fact.said_by,
    )


def supersession_history(fact: Fact, facts) -> tuple[Earlier, ...]:
    """The statements this fact replaced, newest first; `facts.get(id)` finds them."""
    return tuple(
        Earlier(older.id, older.sentence, older.object, older.created, older.superseded_at)
        for older in earlier_statements(fact, facts)
    )


def clipped(text: str, terms: frozenset[str], limit: int) -> str:
    """`text`, or when longer than `limit` the window of it of at most `limit` characters
    that holds the most of the query's words (`terms`: Query.words; the earliest such),
    marked with "…" where it was cut."""
    if len(text) <= limit:
        return text
    words = list(_WORD.finditer(text))
    held = [0]
    for word in words:
        held.append(held[-1] + bool(terms & frozenset(tokens(word.group(), pairs=False))))
    room = limit - 2  # for the marks
    best, best_start, end = -1, 0, 0
    for start in range(len(words)):
        end = max(end, start)
        while end < len(words) and words[end].end() - words[start].start() <= room:
            end += 1
        if held[end] - held[start] > best:
            best, best_start = held[end] - held[start], start
    # The window starts a quarter of the room before its first word of the query: what
    # answers a question mostly follows its words ("... is Dr. Lander").
    first = next(
        (place for place in range(best_start, len(words)) if held[place + 1] > held[place]),
        best_start,
    )
    lead = words[first].start() - room // 4
    start = next((place for place in range(len(words)) if words[place].start() >= lead), first)
    stop = start
    while stop < len(words) and words[stop].end() - words[start].start() <= room:
        stop += 1
    begin = words[start].start()
    end_char = words[stop - 1].end() if stop > start else begin + room
    window = text[begin:end_char]
    stop = end_char
    return ("…" if begin > 0 else "") + window + ("…" if stop < len(text) else "")


def episode_chars(fact_chars: int, episodes: int) -> int:
    """How many characters each of `episodes` episode results may show beside facts whose
    texts take `fact_chars`, so that all stay within RESULT_CHARS (the caller drops episodes
    while that is under EPISODE_MIN_CHARS)."""
    if not episodes:
        return EPISODE_MAX_CHARS
    return min(EPISODE_MAX_CHARS, (RESULT_CHARS - fact_chars) // episodes)


def episode_provenance(hit: EpisodeHit, history: HistoryLookup) -> Provenance | None:
    """Who said an episode's turn: as its record says; a turn copied from OpenClaw before
    copies kept who said it is of unknown origin (it may be a heartbeat or a page the model
    repeated); None for a turn of a log that records no origin (the owner's)."""
    episode = hit.episode
    if episode.provenance is None and history.copied_from_openclaw(episode.source):
        return UNKNOWN_ORIGIN
    return episode.provenance


def found_episode(hit: EpisodeHit, text: str, history: HistoryLookup) -> FoundEpisode:
    """An episode as a result, with who said it (episode_provenance)."""
    episode = hit.episode
    provenance = episode_provenance(hit, history)
    return FoundEpisode(
        episode.id,
        text,
        episode.speaker,
        episode.ts,
        round(hit.score, 4),
        episode.source,
        tuple(f"episode-{name}" for name in hit.matched),
        provenance,
    )
