"""The facts one hop in the graph from the best candidates so far (Corpus.linked_facts):
"user works at Acme" lifts "Acme is based in Porto". The weakest list: a hop away is weaker
evidence than a match."""

from __future__ import annotations

import numpy as np

from ..candidates import Candidates
from ..query import Query

NAME = "graph"
WEIGHT = 1.0
LEAD = 0.0
RERANKS = True
# How many of the best candidates the hop starts from.
GRAPH_SEEDS = 3


def rank(query: Query, candidates: Candidates) -> np.ndarray | None:
    seeds = [candidates.fact(number) for number in candidates.best(GRAPH_SEEDS).tolist()]
    linked = query.corpus.linked_facts([fact for fact in seeds if fact is not None])
    return np.array(linked, dtype=np.intp) if linked else None
