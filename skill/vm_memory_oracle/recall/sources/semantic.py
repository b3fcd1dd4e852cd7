"""The facts nearest to the query's vector and related to it (Query.meaning)."""

from __future__ import annotations

import numpy as np

from ..candidates import Candidates
from ..query import Query

NAME = "semantic"
WEIGHT = 3.0
LEAD = 0.0
RERANKS = False


def rank(query: Query, candidates: Candidates) -> np.ndarray:
    return candidates.numbered(fact_id for fact_id, _ in query.meaning.neighbours)
