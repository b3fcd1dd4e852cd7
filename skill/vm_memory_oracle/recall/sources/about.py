"""The candidates about the subjects the query asks about (Query.about: "What does Maria
play?"), in the order fused so far: those whose subject or object is that name
(Corpus.is_about), each with evidence of its own beyond the name."""

from __future__ import annotations

import numpy as np

from ..candidates import Candidates
from ..corpus import MIN_RELATIVE_SCORE
from ..query import Query

NAME = "about"
WEIGHT = 2.0
LEAD = 0.0
RERANKS = True


def rank(query: Query, candidates: Candidates) -> np.ndarray | None:
    """None when no candidate, or every one, is about the names: the list would then
    change no order."""
    if not query.about:
        return None
    ordered = candidates.ordered()
    about_them = query.corpus.is_about(ordered, query.about, candidates.fact)
    if about_them.any():  # else no fact is about the name: its evidence need not be read
        about_them &= _with_own_evidence(query, ordered, candidates.found_by("semantic"))
    return ordered[about_them] if 0 < about_them.sum() < len(about_them) else None


def _with_own_evidence(query: Query, numbers: np.ndarray, by_meaning: np.ndarray) -> np.ndarray:
    """Whether each candidate (by number) has evidence of its own beyond the names the
    query asks about: found by meaning (`by_meaning`, by fact number), or holding the
    query's other words at least MIN_RELATIVE_SCORE as much as the fact holding the most of
    them. Without it, a name would lift its facts over one holding what the query is about
    ("what did the team decide about topic 4242": the team's facts on other topics over
    "the user mentioned topic 4242")."""
    corpus = query.corpus
    names = {term for name in query.about for term in name}
    rest = corpus.word_coverage([term for term in query.terms if term not in names])
    shares = rest.shares_of(numbers)  # 0 for a fact outside the snapshot
    best = shares.max() if len(shares) else 0.0
    return by_meaning[numbers] | ((shares > 0) & (shares >= MIN_RELATIVE_SCORE * best))
