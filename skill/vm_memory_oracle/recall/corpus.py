"""What recall searches: the facts searchable now, matched exactly, by word and by name.

A Corpus is the current facts (a live view and the lexical snapshot's tables) with the
activation threshold applied: a fact is searchable when it is current and at or above
search_threshold. It answers the questions every source asks of the facts (which match a
text exactly, which hold a query's words and how much, which are about a name, which lie a
hop away in the graph, how BM25 ranks them), each over arrays indexed by fact number. A
fact changed since the snapshot was made is read one by one from the view.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cached_property

import numpy as np

from ..graph.columns import ActivationsAt
from ..lexical.snapshot import (
    LexicalSnapshot,
    exact_keys,
    key_hash,
    name_key,
    name_of,
    tables_of,
)
from ..lexical.tables import Tables
from ..model.fact import Fact, normalise
from ..model.text import FIRST_PERSON, adjacent_pairs, evidence_terms
from ..storage.facts_places import FactsAt, is_current
from ..storage.packed import numbers_in

# A lexical hit scoring under this share of the query's best hit matched only on words that
# nearly every fact has ("user", "topic"); it is noise, not an answer.
MIN_RELATIVE_SCORE = 0.2
# A fact of a corpus ranked by word coverage (the archive's) holding less than this share
# of the query's evidence terms, weighted by rarity, is no lexical hit.
MIN_WORD_SHARE = 0.3
# A query's word coverage is summed over the facts its terms' postings name when they
# hold fewer numbers than the facts over this, else in an array of every fact.
SPARSE_POSTINGS = 40
# How many facts (those holding the most of the query's words) are read for a phrase.
PHRASE_CANDIDATES = 200
# The one subject every memory shares across its two languages: the user is 用户.
SUBJECT_ALIASES = {"user": ("用户",), "用户": ("user",)}
# A capitalised word of three letters or more that does not begin the query.
_NAME_INSIDE = re.compile(r"(?<=\S\s)[A-Z][a-z]{2,}\b")
# How many documents the full-text index is asked for at first by default (those of facts
# not searchable now are dropped, and more asked for when too few remain).
LEXICAL_MIN_CANDIDATES = 100
# Graph: an entity with more than this many facts (the user, a speaker) links everything
# and is not followed.
GRAPH_HUB = 20


class Coverage(Mapping):
    """Searchable fact id -> the share of the query's evidence terms it holds (see
    Corpus.word_coverage), over arrays: recall asks for the best share, for membership and
    for the facts holding the most, never for the whole mapping. Only the facts holding a
    share are kept (a recall keeps every query's coverage until it returns: one share per
    fact of the memory, for each query, would grow with the memory)."""

    def __init__(self, tables: Tables, numbers: np.ndarray, shares: np.ndarray):
        self._tables = tables
        self.numbers = numbers  # the facts holding a share, by number, ascending
        self.shares_held = shares  # their shares, in that order

    def shares_of(self, numbers: np.ndarray) -> np.ndarray:
        """The share each fact (by number) holds; 0 for one holding none, or not
        searchable, or outside the snapshot."""
        if not len(self.numbers):
            return np.zeros(len(numbers), dtype=np.float64)
        places = numbers_in(self.numbers, numbers)
        return np.where(places >= 0, self.shares_held[places], 0.0)

    def best(self) -> float:
        return float(self.shares_held.max()) if len(self.shares_held) else 0.0

    def top(self, count: int) -> list[str]:
        """The ids of the `count` facts holding the largest shares (ties by id)."""
        numbers = self.numbers
        order = np.lexsort((self._tables.id_order[numbers], -self.shares_held))[:count]
        return [self._tables.ids[number] for number in numbers[order]]

    def _share(self, fact_id: object) -> float:
        number = self._tables.position.get(fact_id) if isinstance(fact_id, str) else None
        if number is None:
            return 0.0
        return float(self.shares_of(np.array([number], dtype=np.intp))[0])

    def __getitem__(self, fact_id: str) -> float:
        share = self._share(fact_id)
        if not share:
            raise KeyError(fact_id)
        return share

    def __contains__(self, fact_id: object) -> bool:
        return bool(self._share(fact_id))

    def __iter__(self) -> Iterator[str]:
        return (self._tables.ids[number] for number in self.numbers)

    def __len__(self) -> int:
        return len(self.numbers)


class Corpus:
    """Exact and lexical (BM25) matching over the facts that are searchable now: current
    and at or above the activation threshold. `index` is the lexical snapshot
    (lexical/snapshot.py). `activation` gives the indexed facts' activation now, in the
    snapshot's order (KnowledgeGraph.activations); without it, every fact of the snapshot
    is searchable (the archive, or a threshold of 0). `text`: the full-text index
    (storage.text_index) that ranks lexical hits; without it there are none, only word
    coverage."""

    def __init__(
        self,
        view,
        threshold: float,
        index: LexicalSnapshot,
        activation: ActivationsAt | None = None,
        text=None,
        *,
        dormant: bool = False,
        ranked_by_coverage: bool = False,
    ):
        self.view = view
        self.text = text
        self.threshold = threshold
        self.index = index
        self.tables = tables_of(index)
        self.ids = self.tables.ids
        self.activation = activation
        self.dormant = dormant  # the facts under the threshold, not those at or above it
        # Without a full-text index, word coverage ranks the lexical hits (the archive's).
        self.ranked_by_coverage = ranked_by_coverage
        reach = (
            activation.searchable(threshold)
            if activation is not None
            else np.ones(len(self.ids), dtype=np.bool_)
        )
        self.mask = ~reach if dormant else reach
        # The archive tier's corpus, as this recall's queries search it (recall/archive.py):
        # (the tier, its corpus and vector index), made by the first query that needs it.
        self.archive: tuple | None = None

    def _coverage_ranking(self, coverage: Coverage, depth: int) -> tuple[np.ndarray, np.ndarray]:
        """lexical_ranking without a full-text index: the facts holding at least
        MIN_WORD_SHARE of the query's evidence terms (weighted by rarity), most first."""
        numbers, shares = coverage.numbers, coverage.shares_held
        kept = shares >= MIN_WORD_SHARE
        numbers, shares = numbers[kept], shares[kept]
        order = np.lexsort((self.tables.id_order[numbers], -shares))[:depth]
        return numbers[order], shares[order]

    @cached_property
    def below_threshold(self) -> Corpus:
        """The same facts' dormant tier: the current facts fading took under the threshold,
        searched as these are (recall/dormant.py); made once, for every query of a recall."""
        below = Corpus(
            self.view, self.threshold, self.index, self.activation, self.text, dormant=True
        )
        below.unindexed = self.unindexed
        return below

    @cached_property
    def unindexed(self) -> list[str]:
        """The ids of the view's current facts the snapshot does not hold (changed since it
        was made), in the view's order: found once, not per query. A fact no longer current
        is searchable in no tier, and is left out."""
        records = self.view.records
        if isinstance(records, FactsAt):  # by the vector ids, reading none of the others
            return records.current_outside(self.tables.sorted_vids)
        position = self.tables.position
        return [
            fact_id for fact_id in records if fact_id not in position and records[fact_id].current
        ]

    @cached_property
    def unindexed_searchable(self) -> bool:
        """Whether one of the facts the snapshot does not hold is searchable here: such a
        fact is read one by one, outside the mask."""
        return any(self.searchable(fact_id) for fact_id in self.unindexed)

    def searchable(self, fact_id: str) -> bool:
        number = self.tables.position.get(fact_id)
        current = None if number is None else is_current(self.view.records, fact_id)
        if number is None or current is None:  # changed since indexed
            reaches = self.view.searchable(fact_id, self.threshold)
            if not self.dormant:
                return reaches
            return not reaches and self.view.searchable(fact_id, 0.0)
        return bool(self.mask[number]) and current

    def places_keyed(self, key: str) -> range:
        """The places in the exact_numbers table of the indexed facts with an exact key
        (exact_keys) hashing like `key`, a normalised text: counted without reading them. A
        hash can collide, so the caller checks the fact's own keys."""
        hashed = key_hash(key)
        hashes = self.tables.exact_hashes
        first = bisect_left(hashes, hashed)
        return range(first, bisect_right(hashes, hashed, lo=first))

    def exact_matches(self, normalised: str) -> list[str]:
        """Ids of the facts whose id, subject, object, sentence or "subject predicate" is
        the query (`normalised`: model.fact.normalise of it)."""
        matches = []
        for place in self.places_keyed(normalised):
            fact_id = self.ids[self.tables.exact_numbers[place]]
            if self.searchable(fact_id) and normalised in exact_keys(self.view.records[fact_id]):
                matches.append(fact_id)
        return matches

    def linked_facts(self, seeds: list[Fact]) -> list[int]:
        """Numbers of the searchable indexed facts one hop from `seeds` in the graph, in the
        seeds' order: those about or naming a seed's object or entity ("user works at Acme"
        leads to "Acme is based in Porto" and "Maria works at Acme"), and those naming a
        seed's subject as their object ("Acme is based in Porto" leads to "user works at
        Acme"). A seed's siblings by subject are not linked (the user's facts are not one
        another's evidence), nor is an entity with more than GRAPH_HUB facts."""
        seen = {fact.id for fact in seeds}
        linked: list[int] = []
        for fact in seeds:
            ends = [(fact.object, False), *((entity, False) for entity in fact.entities)]
            for entity, as_object_only in [*ends, (fact.subject, True)]:
                key = normalise(entity)
                places = self.places_keyed(key) if key else range(0)
                if len(places) > GRAPH_HUB:
                    continue
                for place in places:
                    number = self.tables.exact_numbers[place]
                    fact_id = self.ids[number]
                    other = self.view.records.get(fact_id)
                    if fact_id in seen or other is None or not self.searchable(fact_id):
                        continue
                    # A key can be a sentence, and a hash can collide: the roles decide.
                    if normalise(other.object) == key or (
                        not as_object_only and normalise(other.subject) == key
                    ):
                        seen.add(fact_id)
                        linked.append(number)
        return linked

    def named_subjects(self, text: str, terms: Iterable[str] | None = None) -> set[tuple[str, ...]]:
        """The subjects of the memory a text names ("Caroline", "the user", "用户",
        "deployment project"), as their sorted evidence terms: those whose every term is in
        the text, and the one-word subjects a capitalised word inside the text begins
        ("Mel" for Melanie: people shorten names). `terms`: the text's evidence terms, when
        the caller has them."""
        held = set(evidence_terms(text) if terms is None else terms)
        if FIRST_PERSON.search(text):  # "what car do I drive": the user asks of themself
            held |= {"user"}
        held |= {alias for term in held for alias in SUBJECT_ALIASES.get(term, ())}
        subjects = self.tables.subjects
        named = {
            tuple(subject)
            for term in held
            for subject in subjects.get(term, ())
            if set(subject) <= held
        }
        named |= {tuple(subject) for name, subject in self.tables.aliases if set(name) <= held}
        short = [word.lower() for word in _NAME_INSIDE.findall(text)]
        if short:
            named |= {
                tuple(subject)
                for held in subjects.values()
                for subject in held
                if len(subject) == 1 and any(subject[0].startswith(word) for word in short)
            }
        return named

    def is_about(
        self,
        numbers: np.ndarray,
        named: set[tuple[str, ...]],
        unindexed: Callable[[int], Fact | None],
    ) -> np.ndarray:
        """Whether each fact (by number) is about one of the `named` subjects: its subject
        or its object is that name. A number past the snapshot is a fact changed since it
        was made, read by `unindexed`."""
        tables = self.tables
        last = len(tables.names)  # where NO_NAME is clipped to
        keys = [name_key(name) for name in named]
        wanted = np.zeros(last + 1, dtype=np.bool_)
        wanted[[tables.name_number[key] for key in keys if key in tables.name_number]] = True
        indexed = numbers < len(self.ids)
        about_them = np.zeros(len(numbers), dtype=np.bool_)
        held = numbers[indexed]
        about_them[indexed] = (
            wanted[np.minimum(tables.subject_name[held], last)]
            | wanted[np.minimum(tables.object_name[held], last)]
        )
        for place in np.flatnonzero(~indexed).tolist():
            fact = unindexed(int(numbers[place]))
            about_them[place] = fact is not None and any(
                name_of(end) in keys for end in (fact.subject, fact.object)
            )
        return about_them

    def shares_a_phrase(self, text: str, coverage: Mapping[str, float]) -> bool:
        """Whether a fact holds two of the text's evidence terms one after the other, as
        the text has them: a phrase ("database migration", 北京出差). Looked for in the
        PHRASE_CANDIDATES facts holding the largest share of the text's terms (`coverage`,
        its word_coverage)."""
        wanted = adjacent_pairs(text)
        if not wanted:
            return False
        if isinstance(coverage, Coverage):
            best = coverage.top(PHRASE_CANDIDATES)
        else:
            best = sorted(coverage, key=lambda fact_id: (-coverage[fact_id], fact_id))
        for fact_id in best[:PHRASE_CANDIDATES]:
            fact = self.view.records.get(fact_id)
            if fact is not None and wanted & adjacent_pairs(
                f"{fact.sentence}\n{fact.context or ''}"
            ):
                return True
        return False

    def word_coverage(self, terms: Iterable[str]) -> Coverage:
        """Searchable fact id -> the share of the evidence `terms` (see
        model.text.evidence_terms: words, numbers, CJK character pairs) the fact holds, each
        term weighted by its idf here; only facts holding one or more are listed."""
        total = len(self.ids)
        holders = {term: self.tables.posting(term) for term in terms}
        weights = {
            term: math.log(1 + (total - len(numbers) + 0.5) / (len(numbers) + 0.5))
            for term, numbers in holders.items()
        }
        whole = sum(weights.values())
        if not any(len(numbers) for numbers in holders.values()):
            return Coverage(self.tables, np.zeros(0, dtype=np.intp), np.zeros(0))
        # Each term's weight summed by fact, in the order of the terms (a fact is once in a
        # posting), in one pass; only the facts holding one are kept.
        held = np.concatenate([numbers for numbers in holders.values()])
        added = np.concatenate(
            [np.full(len(numbers), weights[term] / whole) for term, numbers in holders.items()]
        )
        if len(held) * SPARSE_POSTINGS < total:
            # Few postings: summed over the facts holding them, not an array of every fact
            # (sorting a thousand numbers costs a fifth of scanning 100,000 shares).
            numbers = np.unique(held)
            shares = np.bincount(np.searchsorted(numbers, held), weights=added)
            kept = self.mask[numbers]
            return Coverage(self.tables, numbers[kept], shares[kept])
        shares = np.bincount(held, weights=added, minlength=total)
        # Held and searchable, told over masks of every fact: the numbers of the shares
        # held, found among floats, took five times as long at 10,000 facts.
        numbers = np.flatnonzero((shares != 0) & self.mask)
        return Coverage(self.tables, numbers, shares[numbers])

    def lexical_ranking(
        self,
        terms: set[str],
        coverage: Coverage,
        min_relative: float = MIN_RELATIVE_SCORE,
        *,
        depth: int = LEXICAL_MIN_CANDIDATES,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(fact numbers, scores in (0, 1)) of the facts the full-text index ranks best by
        BM25 for the query's `terms` (its model.text.tokens), best first (ties by id), at
        least `depth` of them when so many match. Only facts sharing an evidence term count
        (`coverage`, the query's word_coverage: a lone CJK character of a longer run adds to
        a score, but does not make a hit), and only searchable ones; facts scoring under
        `min_relative` times the best score are left out."""
        empty = np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float64)
        if self.text is None and self.ranked_by_coverage and terms:
            return self._coverage_ranking(coverage, depth)
        if self.text is None or not terms:
            return empty
        # A hit holds an evidence term, and is current and searchable: it has a share.
        wanted = min(depth, len(coverage.numbers))
        limit = 4 * wanted
        while True:
            vids, raw = self.text.search(terms, limit)
            numbers = self.tables.numbers_of(vids)
            keep = numbers >= 0
            keep[keep] = coverage.shares_of(numbers[keep]) > 0
            if keep.sum() >= wanted or len(vids) < limit:
                break
            limit *= 4
        numbers, raw = numbers[keep], raw[keep]
        if not len(numbers):
            return empty
        kept = raw >= min_relative * raw.max()
        numbers, raw = numbers[kept], raw[kept]
        squashed = raw / (raw + 2.0)  # into (0, 1), keeping the order
        order = np.lexsort((self.tables.id_order[numbers], -squashed))
        return numbers[order], squashed[order]
