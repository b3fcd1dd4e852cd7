"""A recall query, read once: its text, and what recall needs to know of it.

What the text says on its own (its normalised form, its evidence terms, its lexical tokens,
the periods it names) and what it says of this memory (the facts it matches exactly, the
share of its words each fact holds, the subjects it names and asks about, the facts near it
by meaning) are each worked out the first time a part of recall asks, and then kept: the
gate and every source read the same Query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import TYPE_CHECKING

from ..errors import InvalidInputError
from ..model.characters import UNSAFE_FOUND, without_unsafe
from ..model.fact import normalise
from ..model.periods import Period, named_periods
from ..model.text import OF_THEMSELF, TO_THE_OTHER, evidence_terms, tokens
from ..semantic.search import related_neighbours
from .corpus import Corpus, Coverage

if TYPE_CHECKING:
    import numpy as np

    from ..episodes.index import EpisodeIndex
    from ..semantic.search import Semantic

MAX_QUERY_CHARS = 4000
MAX_K = 1000  # results a query may ask for
# A name as the owner of what the query asks about ("Melanie's friend", 张伟的朋友): the
# question is about the friend, whose facts need not be Melanie's.
_POSSESSIVE = re.compile(r"[\w-]+['’]s\b|[\u4e00-\u9fff]{1,4}的")


@dataclass(frozen=True)
class Asked:
    """A query as a caller asks it: its text, how many results it wants (None: the
    settings' recall_k), and whether what is found goes into a prompt without being asked
    for (`injected`: a turn that only asks something is then left out, whatever its words,
    recall/hollow.py)."""

    text: str
    k: int | None = None
    injected: bool = False


def check_query(query: str) -> None:
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query must not be empty", key="query")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInputError(
            f"query is {len(query)} characters, at most {MAX_QUERY_CHARS}", key="query"
        )
    if without_unsafe(query) != query:
        raise InvalidInputError(f"query {UNSAFE_FOUND}: {query[:80]!r}", key="query")


@dataclass
class Meaning:
    """The facts near the query by meaning and related to it (semantic.search's
    related_neighbours), best first, and whether one is related on the model's scale
    whatever its words (strong evidence that the query concerns the memory)."""

    neighbours: list[tuple[str, float]]
    strong: bool


class Query:
    """One query of a recall over `corpus`: `k` results wanted, periods read from `today`,
    and, with a model, the query's `vector`, the `semantic` index it is searched in (and
    what that index found `nearest` to it, when all the queries were searched at once) and
    the `episodes`' indexes. Every source of recall reads the same Query."""

    def __init__(
        self,
        text: str,
        corpus: Corpus,
        *,
        k: int = 10,
        today: date | None = None,
        vector: np.ndarray | None = None,
        semantic: Semantic | None = None,
        nearest: list[tuple[int, float]] | None = None,
        episodes: EpisodeIndex | None = None,
        injected: bool = False,
    ):
        self.text = text
        self.injected = injected
        self.corpus = corpus
        self.k = k
        self.today = today
        self.vector = vector
        self.semantic = semantic
        self.nearest = nearest  # the vector index's nearest, when searched with the others
        self.episodes = episodes

    @cached_property
    def normalised(self) -> str:
        return normalise(self.text)

    @cached_property
    def terms(self) -> set[str]:
        """Its evidence terms (model.text.evidence_terms)."""
        return evidence_terms(self.text)

    @cached_property
    def token_list(self) -> list[str]:
        """Its lexical tokens, as the full-text indexes read them, in order (repeats kept)."""
        return tokens(self.text)

    @cached_property
    def tokens(self) -> set[str]:
        """Its lexical tokens, each once."""
        return set(self.token_list)

    @cached_property
    def words(self) -> frozenset[str]:
        """Its words as an episode is matched by them: its tokens, each CJK character once
        (no overlapping pairs)."""
        return frozenset(tokens(self.text, pairs=False))

    @cached_property
    def periods(self) -> list[Period]:
        """The times it names ("in May 2023", "last year", 去年), relative ones from today."""
        return named_periods(self.text, self.today) if self.today is not None else []

    @cached_property
    def coverage(self) -> Coverage:
        """The share of its evidence terms each searchable fact holds (Corpus.word_coverage)."""
        return self.corpus.word_coverage(self.terms)

    @cached_property
    def exact(self) -> list[str]:
        """The facts it matches exactly (Corpus.exact_matches)."""
        return self.corpus.exact_matches(self.normalised)

    @cached_property
    def named(self) -> set[tuple[str, ...]]:
        """The subjects of the memory it names (Corpus.named_subjects)."""
        return self.corpus.named_subjects(self.text, self.terms)

    @cached_property
    def about(self) -> set[tuple[str, ...]]:
        """The subjects it asks about, of those it names: not one named only as the owner
        of what is asked ("Maria's friend", 张伟的朋友)."""
        if not self.named or not _POSSESSIVE.search(self.text):
            return self.named
        return self.corpus.named_subjects(_POSSESSIVE.sub(" ", self.text))

    @cached_property
    def of_the_person(self) -> bool:
        """It asks of the asker's own life and doings ("what did I pay for Max's collar?"),
        not of what the one answering said ("what did you suggest?", "in our last chat")."""
        return bool(OF_THEMSELF.search(self.text)) and not TO_THE_OTHER.search(self.text)

    @cached_property
    def meaning(self) -> Meaning:
        """The facts near it by meaning; none without a model."""
        if self.semantic is None or self.vector is None:
            return Meaning([], False)
        neighbours, strong = related_neighbours(
            self.semantic, self.vector, self.corpus, self.k, self.coverage, self.nearest
        )
        return Meaning(neighbours, strong)
