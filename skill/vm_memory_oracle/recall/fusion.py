"""Fusion: the sources' lists made one ranking of facts, and the facts made one with the
episodes.

Reciprocal rank: a fact's score is the sum over the lists that hold it of the list's weight
/ (RRF_K + its place), plus the list's lead (an exact match's is 1.0, so exact matches come
first), divided by what a fact first in every list used would score, so scores lie in
(0, 1]. Ties are broken by activation, then by id. The best fact of each conversation turn
is taken before a second fact of any turn, so fragments of one sentence do not crowd out
the other memories a query may need. Scores are added up over arrays indexed by fact number
(a fact changed since the lexical snapshot was made gets a slot after them), and a Hit is
made only for the facts read in rank order until k turns are found.

The facts, best first, and the episodes (sources/episodes.py) are then fused the same way:
a fact by its place in the facts' list, an episode by its places in the episodes' two lists.
Every list's place is scored by the one reciprocal rank (candidates.reciprocal). An episode
that is hollow for the query (recall/hollow.py: no evidence of the answer, though it holds
the query's words) comes after every fact and every other episode, with score 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..graph import LiveFact
from .candidates import Candidates, reciprocal
from .query import Query
from .sources import Source
from .sources.episodes import LIST_WEIGHT, EpisodeHit

ORDERS = ("relevance", "activation")
# How many of a query's candidates are sorted at first, times the k hits it wants
# (by_score): the others are sorted only when the hits read reach them.
SORTED_FIRST = 4
FACT_WEIGHT = 1.0  # of the facts' list, fused with the episodes
EPISODE_WEIGHT = 1.0  # of a turn no fact was learned from: the episode is all there is
COVERED_WEIGHT = 0.5  # of a turn facts were learned from: they speak for it first
# Of an assistant's turn, against the person's own, when the query asks of the person's own
# life and doings: the person said what they did, bought or chose; the assistant's answers
# restate it (a running total of the costs, "Congratulations on your degree!") and, being
# longer, share more of the query's words and meaning. A query to the assistant ("what did
# you suggest?") weighs both alike.
OTHER_VOICE = 0.5


@dataclass
class Hit:
    fact: LiveFact
    score: float
    matched: tuple[str, ...]  # the sources that found it: exact, semantic, lexical, ...


def rank(query: Query, sources: Sequence[Source], order: str) -> list[Hit]:
    """The k best facts for `query` (query.k), each source's list fused in turn:
    independent searches first, then the sources that re-rank what is fused so far."""
    fused = Candidates(query.corpus, [source.NAME for source in sources])
    used = []
    for source in sorted(sources, key=lambda source: source.RERANKS):
        numbers = source.rank(query, fused)
        if numbers is not None:
            fused.add(source.NAME, source.WEIGHT, numbers)
            used.append(source)
    top = reciprocal(sum(source.WEIGHT for source in used), 1)
    candidates = fused.candidates
    scores = fused.scores[candidates]
    for source in used:
        if source.LEAD:
            scores = scores + source.LEAD * fused.found_by(source.NAME)[candidates]
            top += source.LEAD
    scores = scores / top
    view = query.corpus.view
    hits = (
        Hit(
            view[fused.fact_id(number)],
            score,
            tuple(name for name, row in fused.rows.items() if fused.found[row, number]),
        )
        for number, score in by_score(fused, candidates, scores, SORTED_FIRST * query.k)
        if fused.fact_id(number) in view
    )
    return in_order(one_per_turn_first(hits, query.k), order)


def by_score(
    fused: Candidates, candidates: np.ndarray, scores: np.ndarray, first: int
) -> Iterator[tuple[int, float]]:
    """(number, score) of the candidates, best first: by score, then activation, then id.
    The `first` best by score (with those tied with the last of them) are sorted before
    the first is given, the others only when they are reached: they all score less, and
    the hits are read only until k turns are found, most often among the first k."""
    corpus = fused.corpus
    if corpus.activation is not None and not fused.outside:
        head = np.ones(len(scores), dtype=np.bool_)
        if len(scores) > first > 0:
            head = scores >= np.partition(scores, len(scores) - first)[len(scores) - first]
        for part in (head, ~head) if not head.all() else (head,):
            numbers, scored = candidates[part], scores[part]
            activation = corpus.activation[numbers]
            order = np.lexsort((fused.tables.id_order[numbers], -activation, -scored))
            yield from zip(numbers[order].tolist(), scored[order].tolist())
        return
    # A few facts, some outside the snapshot: their activation and ids one by one.
    keyed = [
        (-score, -corpus.view[fact_id].activation, fact_id, number)
        for number, score in zip(candidates.tolist(), scores.tolist())
        if (fact_id := fused.fact_id(number)) in corpus.view
    ]
    yield from ((number, -score) for score, _, _, number in sorted(keyed))


def in_order(hits: list[Hit], order: str) -> list[Hit]:
    if order == "activation":
        return sorted(hits, key=lambda hit: (-hit.fact.activation, -hit.score, hit.fact.id))
    return sorted(hits, key=lambda hit: (-hit.score, -hit.fact.activation, hit.fact.id))


def turn_of(hit: Hit) -> str:
    """The turn a fact came from, or the fact itself when it came from elsewhere."""
    source = hit.fact.record.source
    return source if source.startswith("sessions/") else hit.fact.id


def one_per_turn_first(hits: Iterable[Hit], k: int) -> list[Hit]:
    """The first k of `hits` (best first) taking the best fact of each conversation turn
    first, then the others. Facts from other sources (user-stated, an import file) are each
    their own. Reads `hits` only until k turns are found."""
    seen: set[str] = set()
    first: list[Hit] = []
    later: list[Hit] = []
    for hit in hits:
        turn = turn_of(hit)
        (later if turn in seen else first).append(hit)
        seen.add(turn)
        if len(first) == k:
            break
    return (first + later)[:k]


def with_episodes(
    facts: list[Hit],
    episodes: list[EpisodeHit],
    k: int,
    turn_of: Callable[[Hit], str] = turn_of,
    *,
    of_the_person: bool = False,
) -> list[Hit | EpisodeHit]:
    """Facts (best first) and episode hits in one list of at most k, by reciprocal rank: a
    fact by its place in the facts' list, an episode by its places in the episodes' lists
    (LIST_WEIGHT each, its own weight over them); each turn (`turn_of(fact hit)`, an
    episode's source) taken once before any is taken again, and the hollow episodes
    (EpisodeHit.hollow) after all the rest, in their order, with score 0. `of_the_person`: the query
    asks of the person's own life (Query.of_the_person), so the assistant's turns weigh
    OTHER_VOICE of the person's own."""
    scored: list[tuple[float, int, int, Hit | EpisodeHit, str]] = [
        (reciprocal(FACT_WEIGHT, rank + 1), 0, rank, hit, turn_of(hit))
        for rank, hit in enumerate(facts)
    ] + [
        (_episode_weight(hit, of_the_person) * _listed(hit), 1, rank, hit, hit.episode.source)
        for rank, hit in enumerate(episodes)
    ]
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    top = reciprocal(max(FACT_WEIGHT, EPISODE_WEIGHT), 1)
    first: list[Hit | EpisodeHit] = []
    later: list[Hit | EpisodeHit] = []
    empty: list[Hit | EpisodeHit] = []  # hollow: no evidence, however well they match
    seen: set[str] = set()
    for score, _, _, hit, turn in scored:
        if isinstance(hit, EpisodeHit) and hit.hollow:
            hit.score = 0.0  # what it holds of the query is no evidence of the answer
            empty.append(hit)
            continue
        hit.score = score / top  # the fused score, on one scale for facts and episodes
        (later if turn in seen else first).append(hit)
        seen.add(turn)
    return (first + later + empty)[:k]


def _listed(hit: EpisodeHit) -> float:
    """An episode's reciprocal ranks in the episodes' lists that found it, weighed."""
    return sum(reciprocal(LIST_WEIGHT[name], rank + 1) for name, rank in hit.ranks.items())


def _episode_weight(hit: EpisodeHit, of_the_person: bool) -> float:
    weight = COVERED_WEIGHT if hit.episode.facts else EPISODE_WEIGHT
    if of_the_person and hit.episode.speaker == "assistant":
        weight *= OTHER_VOICE
    return weight
