"""Supersession: which current fact a new one replaces. One holder per replacement key
(model.fact.replacement_key: a single-valued predicate of a subject, or the opposite
polarity of the same statement), and a preference replaced by its alternative ("prefers
tea with milk" by "prefers tea with lemon")."""

from __future__ import annotations

from ..model.fact import normalise, polarity, replacement_key
from ..model.similarity import one_word_swapped, significant_words

PREFERENCE = ("prefers", 1)  # a choice among values: a new value replaces the old


def current_holders(facts: list[dict], single_valued: frozenset[str]) -> dict[tuple, str]:
    """Replacement key -> id of the fact that currently holds it."""
    holders: dict[tuple, str] = {}
    for fact in facts:
        if "superseded_by" in fact:
            continue
        key = replacement_key(fact, single_valued)
        if key is not None:
            holders[key] = fact["id"]
    return holders


class Supersession:
    """Which current facts a fact replaces: the holder of its replacement key
    (model.fact.replacement_key), and the preferences it is an alternative of."""

    def __init__(self, facts: list[dict], single_valued: frozenset[str]):
        self._single_valued = single_valued
        self._holders = current_holders(facts, single_valued)
        self._preferences = _Preferences(facts)

    def replaced(self, fact: dict, *, take: bool = True) -> list[str]:
        """Ids of the current facts `fact` replaces; with `take`, `fact` is current from now
        on (a later fact of the same batch replaces it in turn)."""
        replaced = self._preferences.rivals(fact, take=take)
        key = replacement_key(fact, self._single_valued)
        if key is not None:
            holder = self._holders.get(key)
            if holder is not None and holder != fact["id"]:
                replaced.append(holder)
            if take:
                self._holders[key] = fact["id"]
        return list(dict.fromkeys(replaced))


class _Preferences:
    """The current preferences of each subject, so that "prefers light mode" replaces
    "prefers dark mode": two values of one choice, sharing words and differing in exactly
    one word each (model.similarity.one_word_swapped). "tea" and "coffee" share none: a
    user can prefer both. Built on first use."""

    def __init__(self, facts: list[dict]):
        self._facts = facts
        # Preferences by subject, filed on the first question (most batches ask none).
        self._by_subject: dict[str, dict[str, tuple[dict, frozenset[str]]]] = {}
        self._filed = False

    def rivals(self, fact: dict, *, take: bool = True) -> list[str]:
        """Ids of the current preferences `fact` replaces; with `take`, `fact` is filed as
        one."""
        if polarity(fact["predicate"]) != PREFERENCE:
            return []
        if not self._filed:
            self._filed = True
            for other in self._facts:
                if other is not fact:
                    self._file(other)
        words = frozenset(significant_words(fact["object"]))
        known = self._by_subject.get(normalise(fact["subject"]), {})
        rivals = [
            fact_id
            for fact_id, (other, other_words) in known.items()
            if "superseded_by" not in other
            and fact_id != fact["id"]
            and one_word_swapped(words, other_words)
        ]
        if take:
            self._file(fact, words)
        return rivals

    def _file(self, fact: dict, words: frozenset[str] | None = None) -> None:
        if "superseded_by" not in fact and polarity(fact["predicate"]) == PREFERENCE:
            known = self._by_subject.setdefault(normalise(fact["subject"]), {})
            if fact["id"] not in known:
                known[fact["id"]] = (
                    fact,
                    words if words is not None else frozenset(significant_words(fact["object"])),
                )
