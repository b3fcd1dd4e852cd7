"""The episodes a query finds: the turns themselves, beside the facts learned from them.

Two lists rank the episodes: their BM25 over the query's terms and their vectors' nearness
to the query's vector, fused by reciprocal rank. An episode needs evidence of its own: a
word of the query, or, when the query concerns the memory at all, its vector's calibrated
score (_related_by_meaning). Whether the query concerns the memory is the facts' gate
(recall/gate.py), or else that an episode holds enough of the query's terms: an answer
said only by the assistant, in a turn no fact came from, is still found, and a query that
shares next to nothing with what was said finds no episode. Holding enough means at least
WORD_EVIDENCE of the terms and two of them (one, for a query of one term): a lone common
word ("pair") is no evidence.

The facts and the episodes are then fused (recall/fusion.py, with_episodes) by reciprocal
rank of their places in the facts' list and in each of the episodes' two lists
(LIST_WEIGHT), each turn taken once first (a fact of a turn and the turn's episode say one
thing). The episodes' lists enter as lists of their own: a turn the model alone ranks
first, an answer that shares no word with the question ("28. Kg3 would be my move." to
"what was the move you made after 27. Kg2 Bd5+?"), stands beside the best fact, not behind
every episode that also holds the question's words. The words' list counts half: the
facts' list already weighs the words of what was learned from each turn.

An episode that is hollow for the query (recall/hollow.py: an earlier asking of the same
question, the assistant saying it does not know, a pleasantry) is marked so and does not
count towards the k episodes found: the fusion lists it after everything that is evidence.
For a query whose results go into a prompt unasked (Query.injected), a turn that only asks
is hollow whatever its words, and is left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...episodes import Episode
from ...model.text import tokens
from ..candidates import reciprocal
from ..hollow import hollow
from ..query import Query

NAME = "episodes"
EPISODE_DEPTH = 50  # candidates each list gives, at least
WORD_EVIDENCE = 0.5  # share of the query's terms an episode holds to answer on its own
LIST_WEIGHT = {"semantic": 1.0, "lexical": 0.5}  # each episodes' list, in the fusion


@dataclass
class EpisodeHit:
    episode: Episode
    score: float
    ranks: dict[str, int]  # its place in each of the episodes' lists that found it
    coverage: float  # the share of the query's terms it holds
    answers: bool = False  # holds enough of them to answer on its own (WORD_EVIDENCE, two)
    hollow: bool = False  # no evidence of the answer, though found (recall/hollow.py)

    @property
    def matched(self) -> tuple[str, ...]:
        """ "lexical", "semantic": which of the episodes' lists found it."""
        return tuple(sorted(self.ranks))


def find(query: Query, *, concerned: bool) -> list[EpisodeHit]:
    """The episodes of the query's index (Query.episodes) that answer it, best first, one
    per turn: at most query.k that are evidence, and the hollow ones met before them
    (EpisodeHit.hollow, at most query.k). An episode sharing no word with the query is one
    only when the query concerns the memory and, for a model whose scale was measured, the
    episode's calibrated score reaches the everyday level (embed/relevance.py), as for a
    fact."""
    index, semantic, vector = query.episodes, query.semantic, query.vector
    if index is None or semantic is None or not len(index):
        return []
    depth = max(EPISODE_DEPTH, 5 * query.k)
    terms = query.words
    lexical, _ = index.text.search(query.token_list, depth)
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
        for place, vid in enumerate(vids):
            fused[vid] = fused.get(vid, 0.0) + reciprocal(LIST_WEIGHT[name], place + 1)
            found.setdefault(vid, {})[name] = place
    said = {vid: index.episode(vid) for vid in fused}  # each line read once
    related = _related_by_meaning(query, near, said) if concerned else set()
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
    empty: list[EpisodeHit] = []
    seen: set[str] = set()
    for hit in hits:
        if hit.episode.source not in seen:
            seen.add(hit.episode.source)
            hit.hollow = hollow(hit.episode, query.terms, any_question=query.injected)
            if not hit.hollow:
                first.append(hit)
            elif len(empty) < query.k and not query.injected:
                empty.append(hit)
        if len(first) == query.k:
            break
    return first + empty


def _related_by_meaning(
    query: Query, near: list[tuple[int, float]], said: dict[int, Episode | None]
) -> set[int]:
    """The episodes of `near` (vector id, similarity; `said` holds them, read) related to
    the query by meaning alone:
    all of them without a measured scale, else those whose calibrated score reaches halfway
    from the everyday level to the level no unrelated text of a memory that size reaches
    (a fact sharing a word needs as much to open a query: semantic/search.py). A turn is
    longer than a fact and near to more; the everyday level alone let "Can you check the
    weather for me?" answer "What is the user allergic to?"."""
    semantic, index, vector = query.semantic, query.episodes, query.vector
    if not near:
        return set()
    assert semantic is not None and index is not None and vector is not None  # searched
    if semantic.background is None or semantic.scale is None:
        return {vid for vid, _ in near}
    from ...embed.relevance import script_of

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
