"""Whether a query concerns the memory at all: when it does not, recall finds no fact.

A query about nothing the memory holds ("how do black holes evaporate?") must get nothing
back, not the ten facts nearest to it. It concerns the memory when it names a subject of
the memory, or some fact matches it exactly, holds most of its words (weighted by rarity),
holds one of its phrases, or, for a model whose scale was measured, scores as strongly
related on it (embed/relevance.py). The cheap tests are asked first.
"""

from __future__ import annotations

from .query import Query

# A fact holding at least this share of the query's words, each weighted by its rarity in
# the memory (BM25's idf; a word the memory lacks weighs most), shows the query concerns the
# memory: "allergic" of "what is the user allergic to" does, "black" alone of "how do black
# holes evaporate" does not.
WORD_EVIDENCE = 0.5


def concerns_the_memory(query: Query) -> bool:
    return (
        query.meaning.strong
        or query.coverage.best() >= WORD_EVIDENCE
        or bool(query.named)
        or bool(query.exact)
        or query.corpus.shares_a_phrase(query.text, query.coverage)
    )
