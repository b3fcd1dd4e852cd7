"""The facts whose id, subject, object, sentence or "subject predicate" is the query: they
come first (LEAD), the most active first."""

from __future__ import annotations

import numpy as np

from ..candidates import Candidates
from ..query import Query

NAME = "exact"
WEIGHT = 1.0
LEAD = 1.0
RERANKS = False


def rank(query: Query, candidates: Candidates) -> np.ndarray:
    view = query.corpus.view
    return candidates.numbered(sorted(query.exact, key=lambda fact_id: -view[fact_id].activation))
