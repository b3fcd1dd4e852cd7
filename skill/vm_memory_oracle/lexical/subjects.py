"""The subjects of facts, and the names a subject is known by, as the lexical snapshot
(lexical/snapshot.py) holds them: gathered a fact at a time, so that a build goes through
its facts once and holds none."""

from __future__ import annotations

from ..model.fact import NAME_PREDICATES, Fact
from ..model.text import evidence_terms

# An object longer than this is not read as a name (a said sentence is not one).
NAME_CHARS = 60


class Subjects:
    """The subjects of facts, and the names a subject is known by, gathered a fact at a
    time."""

    def __init__(self) -> None:
        self._subjects: set[str] = set()
        self._aliases: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()

    def add(self, fact: Fact) -> None:
        self._subjects.add(fact.subject)
        if fact.predicate in NAME_PREDICATES and fact.current:
            name = sorted(evidence_terms(fact.object))
            subject = sorted(evidence_terms(fact.subject))
            if name and subject and len(fact.object) <= NAME_CHARS:
                self._aliases.add((tuple(name), tuple(subject)))

    def by_term(self) -> dict[str, list[list[str]]]:
        """Each subject's evidence terms, by its first term, subjects in sorted order."""
        subjects: dict[str, list[list[str]]] = {}
        for subject in sorted(self._subjects):
            terms = sorted(evidence_terms(subject))
            if terms:
                subjects.setdefault(terms[0], []).append(terms)
        return subjects

    def aliases(self) -> list[list[list[str]]]:
        """[a name's evidence terms, the subject's] for each name a subject is known by (a
        fact "user | name | Priya Raman"): a query naming any of them is about that
        subject."""
        return [[list(name), list(subject)] for name, subject in sorted(self._aliases)]
