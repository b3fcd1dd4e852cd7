"""The candidates holding a value of the kind the query asks for (model/answer_kind.py: an
amount for "how much did ... cost", a time for "when", a place for "where", a person for
"who", a name for "which"), in the order fused so far, of those about what is asked: found
by meaning, or holding the query's words at least MIN_RELATIVE_SCORE as much as the
candidate holding the most of them. So the fact that answers comes before the facts that
only name the topic, whose meaning is often nearer the question's.

Whether a fact of the corpus holds a value of a kind is read once in a recall (ValuesHeld):
the queries of a recall asking the same kind meet many of the same candidates.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...clock import parse_iso
from ...model.answer_kind import HELD, PLACE, asked_kind, asked_words, holds
from ...model.fact import Fact
from ..candidates import Candidates
from ..corpus import MIN_RELATIVE_SCORE, Corpus
from ..query import Query
from .read_once import ReadOnce

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
    about = np.flatnonzero(holding)
    holding[about] = _values_of(query.corpus).held(ordered[about], kind, asked, candidates.fact)
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


class ValuesHeld:
    """holds_value of the facts of a corpus of `size` facts, by fact number, each read the
    first time it is asked of a kind and kept for that kind. A place is read every time: it
    depends on the words of each question; so is a fact outside the corpus's snapshot, whose
    number is the query's own (Candidates.numbered)."""

    def __init__(self, size: int):
        self.size = size
        self._read: dict[str, np.ndarray] = {}  # kind -> by number: 0 unread, 1 holds none, 2 one

    def held(
        self,
        numbers: np.ndarray,
        kind: str,
        asked: frozenset[str],
        fact_of: Callable[[int], Fact | None],
    ) -> np.ndarray:
        """holds_value(fact_of(number), kind, asked) of each of `numbers` (none repeated)."""
        held = np.zeros(len(numbers), dtype=np.bool_)
        inside = (numbers < self.size) if kind != PLACE else np.zeros(len(numbers), np.bool_)
        for place in np.flatnonzero(~inside).tolist():
            held[place] = holds_value(fact_of(int(numbers[place])), kind, asked)
        read = self._read.get(kind)
        if read is None:
            read = self._read[kind] = np.zeros(self.size, dtype=np.int8)
        kept = numbers[inside]
        for number in kept[read[kept] == 0].tolist():
            read[number] = 1 + holds_value(fact_of(number), kind, asked)
        held[inside] = read[kept] == 2
        return held


# What is read of the facts of each corpus this process searches (one per recall: its
# facts do not change while it ranks).
_values_of: ReadOnce[Corpus, ValuesHeld] = ReadOnce(lambda corpus: ValuesHeld(len(corpus.ids)))
