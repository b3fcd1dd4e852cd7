"""The candidates holding a value of the kind the query asks for (model/answer_kind.py: an
amount for "how much did ... cost", a time for "when", a place for "where", a person for
"who", a name for "which"), in the order fused so far, of those about what is asked: found
by meaning, or holding the query's words at least MIN_RELATIVE_SCORE as much as the
candidate holding the most of them. So the fact that answers comes before the facts that
only name the topic, whose meaning is often nearer the question's."""

from __future__ import annotations

import numpy as np

from ...clock import parse_iso
from ...model.answer_kind import HELD, asked_kind, asked_words, holds
from ...model.fact import Fact
from ..candidates import Candidates
from ..corpus import MIN_RELATIVE_SCORE
from ..query import Query

NAME = "answer"
WEIGHT = 2.0
LEAD = 0.0
RERANKS = True


def rank(query: Query, candidates: Candidates) -> np.ndarray | None:
    """None when the query asks for no kind of value, or for one no fact holds (a person, a
    name: answer_kind.HELD), or when no candidate, or every one, holds one: the list would
    then change no order. So the candidates are read only when one could hold a value."""
    kind = asked_kind(query.text)
    if kind not in HELD:
        return None
    ordered = candidates.ordered()
    asked = asked_words(query.text)
    # Only a candidate about the question can count, so only those are read for a value.
    holding = _about_the_question(query, ordered, candidates.found_by("semantic"))
    for place in np.flatnonzero(holding).tolist():
        holding[place] = holds_value(candidates.fact(int(ordered[place])), kind, asked)
    return ordered[holding] if 0 < holding.sum() < len(holding) else None


def holds_value(fact: Fact | None, kind: str, asked: frozenset[str]) -> bool:
    """Whether `fact` holds a value of `kind` other than the `asked` words (None: a fact no
    longer active holds none)."""
    if fact is None:
        return False
    return holds(fact.sentence, kind, parse_iso(fact.valid_from or fact.created).date(), asked)


def _about_the_question(query: Query, numbers: np.ndarray, by_meaning: np.ndarray) -> np.ndarray:
    """Whether each candidate (by number) is about what is asked: found by meaning, or
    holding the query's words at least MIN_RELATIVE_SCORE as much as the best."""
    shares = query.coverage.shares_of(numbers)  # 0 for a fact outside the snapshot
    best = shares.max() if len(shares) else 0.0
    return by_meaning[numbers] | ((shares > 0) & (shares >= MIN_RELATIVE_SCORE * best))
