"""The episodes a query finds, and their place among the facts recall found.

Two lists rank the episodes: their BM25 over the query's terms and their vectors' nearness
to the query's vector, fused by reciprocal rank. An episode needs evidence of its own: a
word of the query, or, when the query concerns the memory at all, its vector's calibrated
score (_related_by_meaning). Whether the query concerns the memory is the facts' gate
(recall/gate.py), or else that an episode holds enough of the query's terms: an answer
said only by the assistant, in a turn no fact came from, is still found, and a query that
shares next to nothing with what was said finds no episode. Holding enough means at least
WORD_EVIDENCE of the terms and two of them (one, for a query of one term): a lone common
word ("pair") is no evidence.

The facts and the episodes are then fused (recall/fusion.py) by reciprocal rank of their
places in the facts' list and in each of the episodes' two lists (LIST_WEIGHT), each turn
taken once first (a fact of a turn and the turn's episode say one thing). The episodes'
lists enter as lists of their own: a turn the model alone ranks first, an answer that
shares no word with the question ("28. Kg3 would be my move." to "what was the move you
made after 27. Kg2 Bd5+?"), stands beside the best fact, not behind every episode that
also holds the question's words. The words' list counts half: the facts' list already
weighs the words of what was learned from each turn. An episode's text is cut to a window
around the query's words, so that k results stay within RESULT_CHARS characters: a
passage, never a whole article.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..model.text import tokens
from . import Episode
from .index import EpisodeIndex

EPISODE_DEPTH = 50  # candidates each list gives, at least
RRF_K = 10
WORD_EVIDENCE = 0.5  # share of the query's terms an episode holds to answer on its own
LIST_WEIGHT = {"semantic": 1.0, "lexical": 0.5}  # each episodes' list, in the fusion
RESULT_CHARS = 2000  # of k=10 results at most
EPISODE_MIN_CHARS = 120  # a window shorter than this says too little: fewer episodes
EPISODE_MAX_CHARS = 600
_WORD = re.compile(r"\S+")


@dataclass
class EpisodeHit:
    episode: Episode
    score: float
    ranks: dict[str, int]  # its place in each of the episodes' lists that found it
    coverage: float  # the share of the query's terms it holds
    answers: bool = False  # holds enough of them to answer on its own (WORD_EVIDENCE, two)

    @property
    def matched(self) -> tuple[str, ...]:
        """ "lexical", "semantic": which of the episodes' lists found it."""
        return tuple(sorted(self.ranks))


def query_terms(query: str) -> frozenset[str]:
    return frozenset(tokens(query, pairs=False))


def find_episodes(
    semantic, index: EpisodeIndex, query: str, vector, k: int, *, concerned: bool
) -> list[EpisodeHit]:
    """The episodes of `index` that answer `query`, best first, one per turn, at most k
    (`semantic`: search.Semantic, how to tell a related neighbour). An episode sharing no
    word with the query is one only when the query concerns the memory and, for a model
    whose scale was measured, the episode's calibrated score reaches the everyday level
    (embed/relevance.py), as for a fact."""
    if not len(index):
        return []
    depth = max(EPISODE_DEPTH, 5 * k)
    terms = query_terms(query)
    lexical, _ = index.text.search(tokens(query), depth)
    near: list[tuple[int, float]] = []
    if vector is not None and len(index.vectors):
        floor = semantic.min_similarity
        near = [
            (vid, similarity + semantic.similarity_shift)
            for vid, similarity in index.vectors.search(vector, depth)
            if similarity + semantic.similarity_shift >= floor
        ]
    fused: dict[int, float] = {}
    found: dict[int, dict[str, int]] = {}
    ranked = (("lexical", [int(vid) for vid in lexical]), ("semantic", [vid for vid, _ in near]))
    for name, vids in ranked:
        for rank, vid in enumerate(vids):
            fused[vid] = fused.get(vid, 0.0) + LIST_WEIGHT[name] / (RRF_K + rank + 1)
            found.setdefault(vid, {})[name] = rank
    said = {vid: index.episode(vid) for vid in fused}  # each line read once
    related = _related_by_meaning(semantic, index, vector, near, said) if concerned else set()
    hits = []
    for vid in sorted(fused, key=lambda vid: (-fused[vid], vid)):
        episode = said[vid]
        if episode is None:
            continue
        held = terms & frozenset(tokens(episode.text, pairs=False))
        if not held and vid not in related:
            continue
        coverage = len(held) / len(terms) if terms else 0.0
        own = coverage >= WORD_EVIDENCE and len(held) >= min(2, len(terms))
        hits.append(EpisodeHit(episode, fused[vid], found[vid], coverage, own))
    if not concerned and not any(hit.answers for hit in hits):
        return []
    first: list[EpisodeHit] = []
    seen: set[str] = set()
    for hit in hits:
        if hit.episode.source not in seen:
            seen.add(hit.episode.source)
            first.append(hit)
        if len(first) == k:
            break
    return first


def _related_by_meaning(
    semantic, index: EpisodeIndex, vector, near, said: dict[int, Episode | None]
) -> set[int]:
    """The episodes of `near` (vector id, similarity; `said` holds them, read) related to
    the query by meaning alone:
    all of them without a measured scale, else those whose calibrated score reaches halfway
    from the everyday level to the level no unrelated text of a memory that size reaches
    (a fact sharing a word needs as much to open a query: semantic/search.py). A turn is
    longer than a fact and near to more; the everyday level alone let "Can you check the
    weather for me?" answer "What is the user allergic to?"."""
    if not near:
        return set()
    if semantic.background is None or semantic.scale is None:
        return {vid for vid, _ in near}
    from ..embed.relevance import script_of

    vids = np.array([vid for vid, _ in near], dtype=np.int64)
    episodes = [said[vid] for vid, _ in near]
    scores = semantic.background.scores(
        vector,
        index.vectors.vectors(vids),
        [script_of(episode.text) if episode else "" for episode in episodes],
        np.array([similarity for _, similarity in near]),
    )
    bar = semantic.scale.halfway(len(index.vectors))
    return {int(vid) for vid, score in zip(vids, scores) if score >= bar}


def clipped(text: str, query: str, limit: int) -> str:
    """`text`, or when longer than `limit` the window of it of at most `limit` characters
    that holds the most of the query's words (the earliest such), marked with "…" where
    it was cut."""
    if len(text) <= limit:
        return text
    terms = query_terms(query)
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


def episode_entry(hit: EpisodeHit, text: str) -> dict:
    episode = hit.episode
    return {
        "id": episode.id,
        "kind": "episode",
        "text": text,
        "speaker": episode.speaker,
        "said_at": episode.ts,
        "score": round(hit.score, 4),
        "source": episode.source,
        "matched": [f"episode-{name}" for name in hit.matched],
    }
