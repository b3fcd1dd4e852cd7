"""The query side of semantic recall: the embedder with an index and how to tell a related
neighbour (semantic_of), and the nearest facts to a query's vector that are related to it,
on the model's calibrated scale when it has one (embed/relevance.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .index import SemanticIndex

if TYPE_CHECKING:
    from ..embed.base import Embedder
    from ..embed.relevance import Background, RelevanceScale
    from ..graph import KnowledgeGraph

# How many neighbours the semantic index is asked for, per result wanted.
SEMANTIC_DEPTH = 10
SEMANTIC_MIN_CANDIDATES = 100
# The nearest few facts are candidates below the everyday level: recall ranks facts only for
# a query that concerns the memory (recall/gate.py), and the model's own best guesses then
# belong among them. A fact that says the same thing in other words ("trouble with my
# phone's battery": "user is organising their new portable power bank") is often near the
# top by similarity yet below the level the calibration sets for a fact alone. They still
# score two standard deviations above the query's nearness to ordinary unrelated passages
# (embed/relevance.py): in a memory of a few facts the nearest may be about anything.
NEAREST_RELATED = 3
NEAREST_LEVEL = 2.0


@dataclass
class Semantic:
    """An embedder, the index built with it (semantic/index.py), and how to tell a
    related neighbour: the raw similarity below which none is (a floor), and, for a model
    whose scale was measured, its background and scale (embed/relevance.py).

    `similarity_shift` is added to every similarity the index returns; it is 0 in use, and
    moved by the tests and benchmarks that measure how far the decision is from flipping.
    """

    embedder: Embedder
    index: SemanticIndex
    min_similarity: float = 0.0
    background: Background | None = None
    scale: RelevanceScale | None = None
    similarity_shift: float = 0.0


def search_depth(k: int) -> int:
    """How many neighbours a query wanting `k` results is given."""
    return max(SEMANTIC_MIN_CANDIDATES, SEMANTIC_DEPTH * k)


def nearest_of_each(semantic: Semantic, vectors, ks: Sequence[int]) -> list[list]:
    """The index's nearest (vector id, similarity) to each of `vectors`, as many as
    search_depth of each query's k, searched in one call."""
    nearest = semantic.index.index.search_many(vectors, max(map(search_depth, ks)))
    return [found[: search_depth(k)] for found, k in zip(nearest, ks)]


def related_neighbours(
    semantic: Semantic,
    vector,
    corpus,
    k: int,
    coverage: Mapping[str, float],
    nearest: list[tuple[int, float]] | None = None,
) -> tuple[list[tuple[str, float]], bool]:
    """(fact id, similarity) of the nearest facts `corpus` (recall/corpus.py) can search that
    are related to the query, best first, and whether one of them is related on the model's
    scale whatever its words.

    Without a measured scale, every neighbour above the floor is related. With one, a
    neighbour is when it shares a word with the query (`coverage` holds those), its
    calibrated score reaches the model's everyday level, or it is among the NEAREST_RELATED
    nearest and reaches NEAREST_LEVEL; it is strongly related when the score reaches the
    level that no unrelated fact of a memory that size reaches, or when it both shares a
    word and reaches halfway from the everyday level to that one: two pieces of evidence,
    each short of its own bar.

    `nearest` is the index's answer for the vector when the caller searched already
    (nearest_of_each).
    """
    if nearest is None:
        nearest = semantic.index.index.search(vector, search_depth(k))
    found = []
    for vector_id, similarity in nearest:
        similarity += semantic.similarity_shift
        if similarity < semantic.min_similarity:
            break  # best first: the rest are further still
        fact_id = semantic.index.fact_of_vector.get(vector_id)
        if fact_id is not None and corpus.searchable(fact_id):
            found.append((vector_id, fact_id, similarity))
    if semantic.background is None or semantic.scale is None or not found:
        return [(fact_id, similarity) for _, fact_id, similarity in found], bool(found)
    from ..embed.relevance import script_of

    index = semantic.index.index
    scores = semantic.background.scores(
        vector,
        index.vectors(np.array([vector_id for vector_id, _, _ in found])),
        [script_of(corpus.view[fact_id].record.sentence) for _, fact_id, _ in found],
        np.array([similarity for _, _, similarity in found]),
    )
    everyday = semantic.scale.everyday
    threshold = semantic.scale.threshold(len(index))
    # Related whatever its words, or both sharing a word and related halfway from the
    # everyday level to that one ("which database does billing use": "billing service
    # runs on PostgreSQL 16"; not "the redshift of dark distant quasars": "dark mode").
    halfway = semantic.scale.halfway(len(index))
    strong = bool(scores.max() >= threshold) or any(
        fact_id in coverage and score >= halfway for (_, fact_id, _), score in zip(found, scores)
    )
    related = [
        (fact_id, similarity)
        for place, ((_, fact_id, similarity), score) in enumerate(zip(found, scores))
        if fact_id in coverage
        or score >= everyday
        or (place < NEAREST_RELATED and score >= NEAREST_LEVEL)
    ]
    return related, strong


def semantic_of(graph: KnowledgeGraph, embedder: Embedder, index: SemanticIndex) -> Semantic:
    """`embedder` and the `index` built with it, with the similarity floor the settings or
    the model give, and, for a model whose scale was measured, its background and scale."""
    floor = graph.settings.semantic_min_similarity
    if floor is None:
        floor = embedder.min_similarity
    scale = getattr(embedder, "relevance", None)
    background = _background(graph, embedder) if scale is not None else None
    return Semantic(embedder, index, floor, background, scale)


def _background(graph: KnowledgeGraph, embedder: Embedder):
    """The embedder's view of the background passages (embed/relevance.py): shipped with
    the package for the bundled model, else computed once and cached beside the index."""
    from ..embed.relevance import load_background

    cache = graph.layout.background_cache(embedder.model_id)
    background, computed = load_background(embedder, cache)
    if computed:
        graph.store.make_directory(cache.parent)
        graph.store.write_bytes(cache, background.to_bytes())
    return background
