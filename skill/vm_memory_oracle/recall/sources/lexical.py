"""The facts the full-text index ranks best by BM25 for the query's words, among those
holding one of its evidence terms (Corpus.lexical_ranking)."""

from __future__ import annotations

import numpy as np

from ..candidates import Candidates
from ..corpus import LEXICAL_MIN_CANDIDATES
from ..query import Query

NAME = "lexical"
WEIGHT = 2.0
LEAD = 0.0
RERANKS = False
# How many documents the full-text index is asked for at first, per result wanted.
DEPTH = 10


def rank(query: Query, candidates: Candidates) -> np.ndarray:
    numbers, _ = query.corpus.lexical_ranking(
        query.tokens, query.coverage, depth=max(LEXICAL_MIN_CANDIDATES, DEPTH * query.k)
    )
    return numbers
