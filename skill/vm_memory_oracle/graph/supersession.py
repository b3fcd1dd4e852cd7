"""Supersession: which current fact a new one replaces. One holder per replacement key
(model.fact.replacement_key: a single-valued predicate of a subject, or the opposite
polarity of the same statement), and a preference replaced by its alternative ("prefers
tea with milk" by "prefers tea with lemon")."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from ..model.fact import Fact, normalise, polarity, replacement_key
from ..model.similarity import one_word_swapped, significant_words

PREFERENCE = ("prefers", 1)  # a choice among values: a new value replaces the old


def current_holders(facts: Iterable[Fact], single_valued: frozenset[str]) -> dict[tuple, str]:
    """Replacement key -> id of the fact that currently holds it."""
    holders: dict[tuple, str] = {}
    for fact in facts:
        if not fact.current:
            continue
        key = replacement_key(fact, single_valued)
        if key is not None:
            holders[key] = fact.id
    return holders


class Supersession:
    """Which current facts a fact replaces: the holder of its replacement key
    (model.fact.replacement_key), and the preferences it is an alternative of.

    `facts` may be a live collection (the values of a dict the caller keeps up to date):
    the preferences are read from it on first use. A fact taken as replaced (`take`)
    stops being current here, whatever copy of it `facts` holds."""

    def __init__(self, facts: Collection[Fact], single_valued: frozenset[str]):
        self._single_valued = single_valued
        self._holders = current_holders(facts, single_valued)
        self._preferences = _Preferences(facts)

    def replaced(self, fact: Fact, *, take: bool = True) -> list[str]:
        """Ids of the current facts `fact` replaces; with `take`, `fact` is current from now
        on (a later fact of the same batch replaces it in turn)."""
        replaced = self._preferences.rivals(fact, take=take)
        key = replacement_key(fact, self._single_valued)
        if key is not None:
            holder = self._holders.get(key)
            if holder is not None and holder != fact.id:
                replaced.append(holder)
            if take:
                self._holders[key] = fact.id
        return list(dict.fromkeys(replaced))


class _Preferences:
    """The current preferences of each subject, so that "prefers light mode" replaces
    "prefers dark mode": two values of one choice, sharing words and differing in exactly
    one word each (model.similarity.one_word_swapped). "tea" and "coffee" share none: a
    user can prefer both. Built on first use."""

    def __init__(self, facts: Collection[Fact]):
        self._facts = facts
        # subject -> id of each current preference -> its significant words, filed on the
        # first question (most batches ask none)
        self._by_subject: dict[str, dict[str, frozenset[str]]] = {}
        self._filed = False

    def rivals(self, fact: Fact, *, take: bool = True) -> list[str]:
        """Ids of the current preferences `fact` replaces; with `take`, `fact` is filed as
        one and they are not current any more."""
        if polarity(fact.predicate) != PREFERENCE:
            return []
        if not self._filed:
            self._filed = True
            for other in self._facts:
                if other.id != fact.id:
                    self._file(other)
        words = frozenset(significant_words(fact.object))
        known = self._by_subject.get(normalise(fact.subject), {})
        rivals = [
            fact_id
            for fact_id, other_words in known.items()
            if fact_id != fact.id and one_word_swapped(words, other_words)
        ]
        if take:
            for fact_id in rivals:
                del known[fact_id]
            self._file(fact, words)
        return rivals

    def _file(self, fact: Fact, words: frozenset[str] | None = None) -> None:
        if fact.current and polarity(fact.predicate) == PREFERENCE:
            known = self._by_subject.setdefault(normalise(fact.subject), {})
            if fact.id not in known:
                known[fact.id] = (
                    words if words is not None else frozenset(significant_words(fact.object))
                )
