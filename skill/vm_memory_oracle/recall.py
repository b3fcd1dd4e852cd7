"""Recall: candidates, fusion, activation filter, boost, archive fallback.

Candidates come from three places: an exact match on id, subject, object, sentence or
"subject predicate"; the semantic index (nearest vectors to the query's embedding); and a
lexical match (BM25 over tokens, English and Chinese, by the full-text index of lexical/).
The lists are fused by reciprocal rank, exact matches first; when the query names a time
("in May 2023", "last year", 去年), the candidates of that time make one more list
(timely.py); when it names a subject of the memory ("What does Maria play?"), the
candidates whose subject or object that is make another (Corpus.about); and the facts one
hop in the graph from the best candidates another (Corpus.linked_facts). Superseded facts
and facts below search_threshold are left out, and so is everything when nothing in the
memory concerns the query: the query must name a fact's subject, or some fact must match it
exactly, hold most of its words (weighted by rarity) or one of its phrases, or, for a model
whose scale was measured, score as related on it (embed/relevance.py). Then a lexical hit
must share a word, a number or a CJK character pair with the query (not a lone character of
a longer run), and a semantic neighbour must share one too or score above the model's
everyday level, so a query about nothing in the memory finds nothing.
When fewer than k active facts match the query's words, pruned facts in the archive are
searched too, and a hit is restored to the active set at activation 0.3. What is returned
is boosted unless the caller says not to.
"""

from __future__ import annotations

import math
import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

import numpy as np

from .episodes.search import (
    EPISODE_MIN_CHARS,
    clipped,
    episode_chars,
    episode_entry,
    find_episodes,
    fused,
)
from .errors import InvalidInputError, UsageError
from .graph import KnowledgeGraph, LiveFact
from .graph.columns import ActivationsAt, FactColumns, fact_columns
from .lexical import document_text
from .model.archive import cause_of
from .model.characters import UNSAFE_FOUND, without_unsafe
from .model.fact import NAME_PREDICATES, Fact, normalise, stable_hash, vector_id
from .model.periods import Period, named_periods
from .model.text import FIRST_PERSON, adjacent_pairs, evidence_terms, tokens
from .semantic.search import Semantic, related_neighbours
from .storage import files
from .timely import FactTimes, of_the_time

ORDERS = ("relevance", "activation")
MAX_QUERY_CHARS = 4000
# Reciprocal-rank fusion: score = sum over lists of weight / (RRF_K + rank). The constants
# are the best measured on the LoCoMo development split (benchmarks/locomo_retrieval.py).
RRF_K = 10
WEIGHTS = {
    "exact": 1.0,
    "semantic": 3.0,
    "lexical": 2.0,
    "time": 2.0,
    "about": 2.0,
    "graph": 1.0,
}
# Graph expansion: the facts that share an entity (as subject or object) with one of the
# GRAPH_SEEDS best candidates are one more list, of the smallest weight (a hop away is
# weaker evidence than a match). An entity with more than GRAPH_HUB facts (the user, a
# speaker) links everything and is not followed.
GRAPH_SEEDS = 3
GRAPH_HUB = 20
# A lexical hit scoring under this share of the query's best hit matched only on words that
# nearly every fact has ("user", "topic"); it is noise, not an answer.
MIN_RELATIVE_SCORE = 0.2
# A fact holding at least this share of the query's words, each weighted by its rarity in
# the memory (BM25's idf; a word the memory lacks weighs most), shows the query concerns the
# memory: "allergic" of "what is the user allergic to" does, "black" alone of "how do black
# holes evaporate" does not.
WORD_EVIDENCE = 0.5
# How many facts (those holding the most of the query's words) are read for a phrase.
PHRASE_CANDIDATES = 200
# The one subject every memory shares across its two languages: the user is 用户.
SUBJECT_ALIASES = {"user": ("用户",), "用户": ("user",)}
# A capitalised word of three letters or more that does not begin the query.
_NAME_INSIDE = re.compile(r"(?<=\S\s)[A-Z][a-z]{2,}\b")
# An object longer than this is not read as a name (about: a said sentence is not one).
NAME_CHARS = 60
# A name as the owner of what the query asks about ("Melanie's friend", 张伟的朋友): the
# question is about the friend, whose facts need not be Melanie's.
_POSSESSIVE = re.compile(r"[\w-]+['’]s\b|[\u4e00-\u9fff]{1,4}的")
# Of build_lexical_index's snapshot: 2 added the subjects, 3 the activation inputs and the
# order of the ids, 4 the vector ids (the full-text index's) and postings without counts, 5
# the names each fact's subject and object are, 6 those names as strings, 7 the aliases.
LEXICAL_LAYOUT = 7
# In subject_name and object_name: an end that names nothing (an object too long to be a
# name, or a text with no evidence term).
NO_NAME = 0xFFFFFFFF
# How many documents the full-text index is asked for at first, per lexical hit wanted
# (those of facts not searchable now are dropped, and more asked for when too few remain).
LEXICAL_DEPTH = 10
LEXICAL_MIN_CANDIDATES = 100


@dataclass
class Hit:
    fact: LiveFact
    score: float
    matched: tuple[str, ...]  # which lists found it: exact, semantic, lexical, time, graph


def recall(
    graph: KnowledgeGraph,
    query: str,
    now: datetime,
    *,
    k: int | None = None,
    boost: bool = True,
    order: str = "relevance",
    semantic: Semantic | None = None,
) -> dict:
    """The result set of one query: {"query", "results": [...]}, boosted unless boost=False."""
    return recall_many(
        graph, [{"query": query, "k": k}], now, boost=boost, order=order, semantic=semantic
    )[0]


def recall_many(
    graph: KnowledgeGraph,
    queries: list[dict],
    now: datetime,
    *,
    boost: bool = True,
    order: str = "relevance",
    semantic: Semantic | None = None,
) -> list[dict]:
    """Result sets for several queries, ranked on one snapshot, boosted in one locked write."""
    if order not in ORDERS:
        raise UsageError(f"--order must be one of {', '.join(ORDERS)}, got {order!r}")
    for item in queries:
        check_query(item["query"])
    view = graph.live_view(now)
    index = lexical_index(graph)
    tables = _tables(index)
    activation = graph.activations(tables.position, tables.facts, now)
    text = _text_index(graph) if view.records else None
    corpus = Corpus(view, graph.settings.search_threshold, index, activation, text)
    vectors = None
    said = semantic is not None and semantic.episodes is not None and len(semantic.episodes) > 0
    if semantic is not None and (view.records or said):
        vectors = semantic.embedder.embed_queries([item["query"] for item in queries])
    ranked = []
    for position, item in enumerate(queries):
        k = item.get("k") or graph.settings.recall_k
        coverage = corpus.word_coverage(item["query"])
        neighbours, strong = (
            related_neighbours(semantic, vectors[position], corpus, k, coverage)
            if semantic is not None and vectors is not None
            else ([], False)
        )
        named = corpus.named_subjects(item["query"])
        concerned = (
            strong
            or coverage.best() >= WORD_EVIDENCE
            or bool(named)
            or bool(corpus.exact_matches(item["query"]))
            or corpus.shares_a_phrase(item["query"], coverage)
        )
        hits = (
            rank(
                item["query"],
                corpus,
                neighbours,
                k,
                order,
                coverage,
                periods=named_periods(item["query"], now.date()),
                about=asked_about(corpus, item["query"], named),
            )
            if concerned
            else []
        )
        # Hits with word evidence (not found by meaning or through the graph alone).
        supported = sum(1 for hit in hits if {"exact", "lexical"} & set(hit.matched))
        if supported < k and boost:
            restored = _restore_from_archive(graph, item["query"], view, k - supported, now)
            if restored:
                kept = hits[: k - len(restored)]
                hits = _ordered(kept + restored, order)
        if said:
            assert semantic is not None and semantic.episodes is not None
            found = find_episodes(
                semantic,
                item["query"],
                vectors[position] if vectors is not None else None,
                k,
                concerned=concerned,
            )
            ranked.append(fused(hits, found, k, _turn_of) if found else hits)
        else:
            ranked.append(hits)
    if boost:
        returned = {
            hit.fact.id: hit.fact.record for hits in ranked for hit in hits if isinstance(hit, Hit)
        }
        new_values = graph.reinforce(list(returned.values()), now) if returned else {}
        for hits in ranked:
            for hit in hits:
                if isinstance(hit, Hit) and hit.fact.id in new_values:
                    hit.fact.activation = new_values[hit.fact.id]
    history = _HistoryLookup(graph, view.records)
    return [
        {"query": item["query"], "results": _entries(item["query"], hits, history)}
        for item, hits in zip(queries, ranked)
    ]


def _entries(query: str, hits: list, history) -> list[dict]:
    """The result entries of facts (Hit) and episodes (EpisodeHit), each episode's text cut
    to its share of the characters the facts leave."""
    facts = {id(hit): result_entry(hit, history) for hit in hits if isinstance(hit, Hit)}
    # A turn whose statement a returned fact replaced is not shown beside it ("I live in
    # Lisbon" beside "user lives in Porto"): the fact's history says what it replaced.
    replaced = {
        older.source
        for hit in hits
        if isinstance(hit, Hit) and hit.fact.record.supersedes
        for older in _replaced(hit.fact.record, history)
    }
    hits = [hit for hit in hits if isinstance(hit, Hit) or hit.episode.source not in replaced]
    said = len(hits) - len(facts)
    fact_chars = sum(len(entry["text"]) for entry in facts.values())
    share = episode_chars(fact_chars, said)
    while said and share < EPISODE_MIN_CHARS:  # the facts leave too little: fewer episodes
        last = max(place for place, hit in enumerate(hits) if not isinstance(hit, Hit))
        hits = hits[:last] + hits[last + 1 :]
        said -= 1
        share = episode_chars(fact_chars, said)
    return [
        facts[id(hit)]
        if isinstance(hit, Hit)
        else episode_entry(hit, clipped(hit.episode.text, query, share))
        for hit in hits
    ]


def _replaced(fact: Fact, history) -> list[Fact]:
    """The statements `fact` replaced, newest first (`history.get(id)` finds them)."""
    older, seen, previous = [], {fact.id}, fact.supersedes
    while previous and previous not in seen:
        seen.add(previous)
        found = history.get(previous)
        if found is None:
            break
        older.append(found)
        previous = found.supersedes
    return older


def _turn_of(hit: Hit) -> str:
    """The turn a fact came from, or the fact itself when it came from elsewhere."""
    source = hit.fact.record.source
    return source if source.startswith("sessions/") else hit.fact.id


def _evident(
    corpus: Corpus,
    query: str,
    about: set[tuple[str, ...]],
    numbers: np.ndarray,
    by_meaning: np.ndarray,
) -> np.ndarray:
    """Whether each candidate (by number) has evidence of its own beyond the names the query
    asks about (`about`): found by meaning (`by_meaning`, by fact number), or holding the
    query's other words at least MIN_RELATIVE_SCORE as much as the fact holding the most of
    them. Without it, a name would lift its facts over one holding what the query is about
    ("what did the team decide about topic 4242": the team's facts on other topics over
    "the user mentioned topic 4242")."""
    rest = corpus.word_shares(query, without=frozenset(term for name in about for term in name))
    indexed = numbers < len(corpus.ids)
    shares = np.zeros(len(numbers), dtype=np.float64)
    shares[indexed] = rest[numbers[indexed]]
    best = shares.max() if len(shares) else 0.0
    return by_meaning[numbers] | ((shares > 0) & (shares >= MIN_RELATIVE_SCORE * best))


def asked_about(corpus: Corpus, query: str, named: set[tuple[str, ...]]) -> set[tuple[str, ...]]:
    """The subjects a query asks about, of those it names (`named`): not one named only as
    the owner of what is asked ("Maria's friend", 张伟的朋友)."""
    if not named or not _POSSESSIVE.search(query):
        return named
    return corpus.named_subjects(_POSSESSIVE.sub(" ", query))


def _text_index(graph: KnowledgeGraph):
    """The full-text index in step with the facts, or None, with a warning either way when
    it was not as it should be: recall never runs on half of its retrieval unsaid."""
    from .lexical import update_text_index

    text, report = update_text_index(graph)
    if report.problem is not None:
        graph.store.warnings.append(
            f"lexical recall is off: {report.problem}; recall used exact and semantic matches only"
        )
    elif report.repaired:
        graph.store.warnings.append(
            f"full-text index rebuilt: {report.rebuilt} ({report.documents} documents)"
        )
    return text


class _HistoryLookup:
    """Earlier statements by id: active ones, then (read only if needed) archived ones,
    since consolidation archives a superseded fact but it stays the newer one's history."""

    def __init__(self, graph: KnowledgeGraph, records: Mapping[str, Fact]):
        self._graph = graph
        self._records = records
        self._archived: dict[str, Fact] | None = None

    def get(self, fact_id: str) -> Fact | None:
        fact = self._records.get(fact_id)
        if fact is not None:
            return fact
        if self._archived is None:
            self._archived = {
                record["id"]: Fact.from_archived(record)
                for record in self._graph.archived_facts()
                if cause_of(record).code == "superseded"
            }
        return self._archived.get(fact_id)


def check_query(query: str) -> None:
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query must not be empty", key="query")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInputError(
            f"query is {len(query)} characters, at most {MAX_QUERY_CHARS}", key="query"
        )
    if without_unsafe(query) != query:
        raise InvalidInputError(f"query {UNSAFE_FOUND}: {query[:80]!r}", key="query")


LISTS = ("exact", "semantic", "lexical", "time", "about", "graph")


def rank(
    query: str,
    corpus: Corpus,
    neighbours: list[tuple[str, float]],
    k: int,
    order: str,
    coverage: Coverage | None = None,
    periods: Sequence[Period] = (),
    about: set[tuple[str, ...]] | None = None,
) -> list[Hit]:
    """Fuse the candidate lists by reciprocal rank; exact matches always come first.
    `coverage`: the query's word_coverage, when the caller has it already. `periods`: the
    times the query names; the candidates of those times (of_the_time), in the order the
    other lists give them, are one more list. `about`: the subjects the query asks about
    (asked_about); the candidates about them (Corpus.about), in the same order, are another.
    The facts one hop in the graph from the GRAPH_SEEDS best candidates then are another
    (Corpus.linked_facts).

    Scores are added up over arrays indexed by fact number (a fact missing from the lexical
    index, changed since it was built, gets a slot after them), and a Hit is made only for
    the facts read in rank order until k turns are found."""
    tables = corpus.tables
    lexical, _ = corpus.lexical_ranking(
        query, coverage=coverage, depth=max(LEXICAL_MIN_CANDIDATES, LEXICAL_DEPTH * k)
    )
    exact = sorted(
        corpus.exact_matches(query), key=lambda fact_id: -corpus.view[fact_id].activation
    )
    extra: dict[str, int] = {}

    def numbered(fact_ids: list[str]) -> np.ndarray:
        numbers = []
        for fact_id in fact_ids:
            number = tables.position.get(fact_id)
            if number is None:
                number = extra.setdefault(fact_id, len(tables.ids) + len(extra))
            numbers.append(number)
        return np.array(numbers, dtype=np.intp)

    lists = (numbered(exact), numbered([fact_id for fact_id, _ in neighbours]), lexical)
    size = len(tables.ids) + len(extra)
    fused = np.zeros(size, dtype=np.float64)
    found = np.zeros((len(LISTS), size), dtype=np.bool_)

    def fuse(row: int, numbers: np.ndarray) -> None:
        fused[numbers] += WEIGHTS[LISTS[row]] / (RRF_K + np.arange(1, len(numbers) + 1))
        found[row, numbers] = True

    for row, numbers in enumerate(lists):
        fuse(row, numbers)
    candidates = np.flatnonzero(found.any(axis=0))
    names = {number: fact_id for fact_id, number in extra.items()}

    def fact_id_of(number: int) -> str:
        return tables.ids[number] if number < len(tables.ids) else names[number]

    def by_score() -> np.ndarray:
        """The candidates in the order of what is fused so far."""
        return candidates[np.argsort(-fused[candidates], kind="stable")]

    used = list(LISTS[: len(lists)])
    records = corpus.view.records
    if periods:
        ordered = by_score()
        indexed = ordered < len(tables.ids)
        timely = np.zeros(len(ordered), dtype=np.bool_)
        timely[indexed] = tables.times.of_the_time(
            ordered[indexed], lambda number: records.get(tables.ids[number]), periods
        )
        for place in np.flatnonzero(~indexed).tolist():
            fact = records.get(names[int(ordered[place])])
            timely[place] = fact is not None and of_the_time(fact, periods)
        fuse(LISTS.index("time"), ordered[timely])
        used.append("time")
    if about:
        ordered = by_score()
        theirs = corpus.about(ordered, about, lambda number: records.get(names[number]))
        if theirs.any():  # else no fact is about the name: its evidence need not be read
            theirs &= _evident(corpus, query, about, ordered, found[LISTS.index("semantic")])
        if 0 < theirs.sum() < len(theirs):
            fuse(LISTS.index("about"), ordered[theirs])
            used.append("about")
    best = by_score()[:GRAPH_SEEDS].tolist()
    seeds = [records.get(fact_id_of(number)) for number in best]
    linked = corpus.linked_facts([fact for fact in seeds if fact is not None])
    if linked:
        fuse(LISTS.index("graph"), np.array(linked, dtype=np.intp))
        used.append("graph")
        candidates = np.flatnonzero(found.any(axis=0))
    top = sum(WEIGHTS[name] for name in used) / (RRF_K + 1) + 1.0
    scores = (fused[candidates] + found[0, candidates]) / top

    if corpus.activation is not None and not extra:
        activation = corpus.activation[candidates]
        ordered = candidates[np.lexsort((tables.id_order[candidates], -activation, -scores))]
    else:  # a few facts, some outside the index: their activation and ids one by one
        keyed = [
            (-score, -corpus.view[fact_id_of(number)].activation, fact_id_of(number), number)
            for number, score in zip(candidates.tolist(), scores.tolist())
            if fact_id_of(number) in corpus.view
        ]
        ordered = np.array([item[3] for item in sorted(keyed)], dtype=np.intp)
    score_of = dict(zip(candidates.tolist(), scores.tolist()))
    hits = (
        Hit(
            corpus.view[fact_id_of(number)],
            score_of[number],
            tuple(name for row, name in enumerate(LISTS) if found[row, number]),
        )
        for number in ordered.tolist()
        if fact_id_of(number) in corpus.view
    )
    return _ordered(_one_per_turn_first(hits, k), order)


def _ordered(hits: list[Hit], order: str) -> list[Hit]:
    if order == "activation":
        return sorted(hits, key=lambda hit: (-hit.fact.activation, -hit.score, hit.fact.id))
    return sorted(hits, key=lambda hit: (-hit.score, -hit.fact.activation, hit.fact.id))


def _one_per_turn_first(hits: Iterable[Hit], k: int) -> list[Hit]:
    """The first k of `hits` (best first) taking the best fact of each conversation turn
    first, then the others: several fragments of one sentence do not crowd out the other
    memories a query may need. Facts from other sources (user-stated, an import file) are
    each their own. Reads `hits` only until k turns are found."""
    seen: set[str] = set()
    first: list[Hit] = []
    later: list[Hit] = []
    for hit in hits:
        turn = _turn_of(hit)
        (later if turn in seen else first).append(hit)
        seen.add(turn)
        if len(first) == k:
            break
    return (first + later)[:k]


def _restore_from_archive(
    graph: KnowledgeGraph, query: str, view, wanted: int, now: datetime
) -> list[Hit]:
    """Pruned facts of the archive that match the query's words, restored at activation 0.3.

    Facts the user asked to forget, and facts replaced by newer statements, stay archived.
    """
    candidates = {
        record["id"]: record
        for record in graph.archived_facts()
        if cause_of(record).code == "pruned" and record["id"] not in view
    }
    if not candidates:
        return []
    archive_view = _ArchiveView(candidates)
    archived = Corpus(archive_view, 0.0, build_lexical_index(list(archive_view.records.values())))
    scores = dict.fromkeys(archived.exact_matches(query), 2.0)
    coverage = archived.word_coverage(query)
    for fact_id in coverage:
        if coverage[fact_id] >= WORD_EVIDENCE:
            scores.setdefault(fact_id, coverage[fact_id])
    best = sorted(scores, key=lambda fact_id: (-scores[fact_id], fact_id))[:wanted]
    restored = graph.restore([candidates[fact_id] for fact_id in best], now)
    return [Hit(live, min(scores[live.id], 1.0), ("archive",)) for live in restored]


def build_lexical_index(facts: list[Fact]) -> dict:
    """Exact keys and term postings of facts, as plain data (it is kept as a snapshot).

    A fact's lexical document is lexical.document_text (its sentence, subject, predicate,
    object and the turn it came from); the postings say which facts hold a term (the word
    coverage of a query is counted over them; BM25 ranking is the full-text index's). Facts
    are numbered in `ids`, and `vids` holds each one's vector id. Numbers are stored packed
    as bytes (a snapshot of 10,000 facts then loads in a few milliseconds): a posting is
    the sorted fact numbers as uint32; the exact keys are
    a sorted array of 63-bit key hashes with the fact number of each; `id_order` is each
    fact's place when ids are sorted (ties in a ranking are broken by id). The facts' own
    activation inputs (importance, pinned, creation activation and time) come along, as
    columns in the same order (graph.columns).
    """
    ids: list[str] = []
    exact: list[tuple[int, int]] = []
    postings: dict[str, array] = {}
    vids = array("Q")
    names: dict[str, int] = {}
    read: dict[str, int] = {}
    subject_name, object_name = array("I"), array("I")
    for number, fact in enumerate(facts):
        ids.append(fact.id)
        vids.append(vector_id(fact.id))
        subject_name.append(_name_number(fact.subject, names, read))
        object_name.append(_name_number(fact.object, names, read))
        exact.extend((_key_hash(key), number) for key in exact_keys(fact))
        for term in set(tokens(document_text(fact))):
            postings.setdefault(term, array("I")).append(number)
    exact.sort()
    columns = fact_columns(facts)
    return {
        "ids": ids,
        "vids": vids.tobytes(),
        "id_order": _id_order(ids),
        "importance": columns.importance.tobytes(),
        "initial": columns.initial.tobytes(),
        "created": columns.created.tobytes(),
        "pinned": columns.pinned.tobytes(),
        "subjects": _subjects(facts),
        "aliases": _aliases(facts),
        "names": list(names),
        "subject_name": subject_name.tobytes(),
        "object_name": object_name.tobytes(),
        "postings": {term: posting.tobytes() for term, posting in postings.items()},
        "exact_hashes": array("Q", [hashed for hashed, _ in exact]).tobytes(),
        "exact_numbers": array("I", [number for _, number in exact]).tobytes(),
    }


def extend_lexical_index(index: dict, facts: list[Fact]) -> dict:
    """The lexical index of `facts`, made from `index`, the index of the ones before them
    (facts appended to the file since): what build_lexical_index(facts) gives, with only
    the new facts' documents read."""
    held = len(index["ids"])
    part = build_lexical_index(facts[held:])

    def shifted(packed: bytes) -> bytes:
        return (np.frombuffer(packed, dtype=np.uint32) + np.uint32(held)).tobytes()

    postings = dict(index["postings"])
    for term, packed in part["postings"].items():
        postings[term] = postings.get(term, b"") + shifted(packed)
    hashes = np.frombuffer(index["exact_hashes"] + part["exact_hashes"], dtype=np.uint64)
    numbers = np.frombuffer(
        index["exact_numbers"] + shifted(part["exact_numbers"]), dtype=np.uint32
    )
    order = np.lexsort((numbers, hashes))
    ids = index["ids"] + part["ids"]
    names = list(index["names"])
    number_of = {name: number for number, name in enumerate(names)}
    renumbered = np.full(len(part["names"]) + 1, NO_NAME, dtype=np.uint32)  # last: NO_NAME
    for number, name in enumerate(part["names"]):
        if name not in number_of:
            number_of[name] = len(names)
            names.append(name)
        renumbered[number] = number_of[name]

    def renamed(packed: bytes) -> bytes:
        own = np.frombuffer(packed, dtype=np.uint32)
        return renumbered[np.minimum(own, len(part["names"]))].tobytes()

    return {
        "ids": ids,
        "vids": index["vids"] + part["vids"],
        "id_order": _id_order(ids),
        **{
            column: index[column] + part[column]
            for column in ("importance", "initial", "created", "pinned")
        },
        "subjects": _subjects(facts),
        "aliases": _aliases(facts),
        "names": names,
        "subject_name": index["subject_name"] + renamed(part["subject_name"]),
        "object_name": index["object_name"] + renamed(part["object_name"]),
        "postings": postings,
        "exact_hashes": hashes[order].tobytes(),
        "exact_numbers": numbers[order].tobytes(),
    }


def _subjects(facts: list[Fact]) -> dict[str, list[list[str]]]:
    """Each subject's evidence terms, by its first term, subjects in sorted order."""
    subjects: dict[str, list[list[str]]] = {}
    for subject in sorted({fact.subject for fact in facts}):
        terms = sorted(evidence_terms(subject))
        if terms:
            subjects.setdefault(terms[0], []).append(terms)
    return subjects


def _aliases(facts: list[Fact]) -> list[list[list[str]]]:
    """[a name's evidence terms, the subject's] for each name a subject is known by (a fact
    "user | name | Priya Raman"): a query naming any of them is about that subject."""
    aliases = set()
    for fact in facts:
        if fact.predicate in NAME_PREDICATES and fact.current:
            name = sorted(evidence_terms(fact.object))
            subject = sorted(evidence_terms(fact.subject))
            if name and subject and len(fact.object) <= NAME_CHARS:
                aliases.add((tuple(name), tuple(subject)))
    return [[list(name), list(subject)] for name, subject in sorted(aliases)]


def _name_number(text: str, names: dict[str, int], read: dict[str, int]) -> int:
    """The number in `names` (name_key -> number, grown as met) of the name a subject or
    object is, NO_NAME for one too long to be a name; `read`: the texts met."""
    number = read.get(text)
    if number is None:
        name = _name_of(text)
        number = read[text] = names.setdefault(name, len(names)) if name else NO_NAME
    return number


def _name_of(text: str) -> str:
    """The name a subject or object is, as a name_key; "" for a text too long to be a name
    (a said sentence)."""
    return name_key(sorted(evidence_terms(text))) if len(text) <= NAME_CHARS else ""


def name_key(terms: Iterable[str]) -> str:
    """A name's sorted evidence terms as one string (a term holds no space). The snapshot
    keeps names so: a recall process reads a list of strings faster than one of lists."""
    return " ".join(terms)


def _id_order(ids: list[str]) -> bytes:
    """Each fact's place when the ids are sorted."""
    id_order = array("I", bytes(4 * len(ids)))
    for place, number in enumerate(sorted(range(len(ids)), key=ids.__getitem__)):
        id_order[number] = place
    return id_order.tobytes()


def exact_keys(fact: Fact) -> set[str]:
    """What a query must equal to match a fact exactly: its id, subject, object, sentence or
    "subject predicate", normalised."""
    predicate = fact.predicate.replace("_", " ")
    return {
        fact.id,
        normalise(fact.subject),
        normalise(fact.object),
        normalise(fact.sentence),
        normalise(f"{fact.subject} {predicate}"),
    }


def _key_hash(key: str) -> int:
    return stable_hash(key.encode("utf-8"))


def lexical_index(graph: KnowledgeGraph) -> dict:
    """The lexical index of the current facts, made again only when facts.jsonl changed,
    and then only for the facts appended since when nothing else changed (a remember)."""
    from .storage import snapshot

    path = graph.layout.facts
    cache = graph.layout.lexical_cache
    disk = graph.store.cache_usable(cache)
    key = _lexical_key(path)
    held = snapshot.load(cache, key, disk=disk)
    if held is None:
        facts = graph.facts()
        current = [fact for fact in facts if fact.current]
        earlier = _appended_to(snapshot.load_any(cache, disk=disk), key, path, len(facts))
        held = (
            build_lexical_index(current)
            if earlier is None
            else extend_lexical_index(earlier, current)
        )
        if _lexical_key(path) == key:  # else facts came meanwhile: made again next time
            held["source"] = _source(path, key, len(facts))
            snapshot.save(cache, key, held, disk=disk)
    return held


def _source(path, key: tuple | None, records: int) -> dict | None:
    """What the facts file was when an index was made of its `records` facts: its size and
    the hash of those bytes, for the next index to tell whether facts were only appended."""
    if key is None:
        return None
    size = key[2]
    digest = files.file_digest(path, size)
    return None if digest is None else {"records": records, "size": size, "digest": digest}


def _appended_to(held, key: tuple | None, path, records: int) -> dict | None:
    """The index `held` (load_any's) when the facts file is that index's file with facts
    appended and nothing else changed: the same file (inode), its first bytes those the
    index was made of, more facts after them. Else None (the index is made whole)."""
    if held is None or key is None:
        return None
    old_key, index = held
    source = index.get("source") if isinstance(index, dict) else None
    if old_key[0] != LEXICAL_LAYOUT or source is None or old_key[1] != key[1]:
        return None
    if not source["size"] < key[2] or not source["records"] <= records:
        return None
    if files.file_digest(path, source["size"]) != source["digest"]:
        return None
    return index


def _lexical_key(path) -> tuple | None:
    """The snapshot's key: the facts file as it is, and the index's layout (a snapshot of
    another layout, from an older version, is built again)."""
    from .storage import snapshot

    key = snapshot.file_key(path)
    return None if key is None else (LEXICAL_LAYOUT, *key)


class _ArchiveView:
    """Archived facts seen as a corpus: all of them searchable, none with activation."""

    def __init__(self, archived: dict[str, dict]):
        self.records = {fact_id: Fact.from_archived(record) for fact_id, record in archived.items()}
        self._archived_at = {fact_id: record["archived_at"] for fact_id, record in archived.items()}

    def __contains__(self, fact_id: str) -> bool:
        return fact_id in self.records

    def __getitem__(self, fact_id: str) -> LiveFact:
        return LiveFact(self.records[fact_id], 0.0, self._archived_at[fact_id], 0)

    def searchable(self, fact_id: str, threshold: float) -> bool:
        return fact_id in self.records


class _Tables:
    """A lexical index snapshot as numpy arrays, made once per snapshot in a process: fact
    numbers by id and by vector id, each fact id's place in sorted order (ties are broken by
    id), postings decoded on first use, and the facts' own activation inputs."""

    def __init__(self, index: dict):
        self.ids: list[str] = index["ids"]
        self.position = {fact_id: number for number, fact_id in enumerate(self.ids)}
        self.id_order = np.frombuffer(index["id_order"], dtype=np.uint32)
        vids = np.frombuffer(index["vids"], dtype=np.uint64)
        self._vid_order = np.argsort(vids, kind="stable")
        self._sorted_vids = vids[self._vid_order]
        self.packed: dict[str, bytes] = index["postings"]
        # Made once per snapshot: five keys a fact, 4 MB to copy at 100,000 facts.
        self.exact_hashes = array("Q", index["exact_hashes"])
        self.exact_numbers = array("I", index["exact_numbers"])
        self._decoded: dict[str, np.ndarray] = {}
        self.names: list[str] = index["names"]
        self.subject_name = np.frombuffer(index["subject_name"], dtype=np.uint32)
        self.object_name = np.frombuffer(index["object_name"], dtype=np.uint32)
        self.facts = FactColumns(
            np.frombuffer(index["importance"], dtype=np.float64),
            np.frombuffer(index["pinned"], dtype=np.bool_),
            np.frombuffer(index["created"], dtype=np.int64),
            np.frombuffer(index["initial"], dtype=np.float64),
        )

    @cached_property
    def name_number(self) -> dict[str, int]:
        """The number of each name (name_key) in subject_name and object_name, made when a
        query first names a subject."""
        return {name: number for number, name in enumerate(self.names)}

    @cached_property
    def times(self) -> FactTimes:
        """When each fact was stated and what times it names, learned as recalls need it."""
        return FactTimes(len(self.ids))

    def posting(self, term: str) -> np.ndarray:
        """The numbers of the facts holding `term`."""
        held = self._decoded.get(term)
        if held is None:
            packed = np.frombuffer(self.packed.get(term, b""), dtype=np.uint32)
            held = self._decoded[term] = packed.astype(np.intp)
        return held

    def numbers_of(self, vids: np.ndarray) -> np.ndarray:
        """The fact number of each vector id, -1 for one this snapshot does not hold."""
        if not len(self._sorted_vids):
            return np.full(len(vids), -1, dtype=np.intp)
        places = np.minimum(np.searchsorted(self._sorted_vids, vids), len(self._sorted_vids) - 1)
        found = self._sorted_vids[places] == vids
        return np.where(found, self._vid_order[places], -1).astype(np.intp)


# Tables of the lexical index snapshots seen by this process (the snapshot dict is held with
# its tables, so its id cannot be reused while the entry lives).
_tables_held: dict[int, tuple[dict, _Tables]] = {}


def _tables(index: dict) -> _Tables:
    held = _tables_held.get(id(index))
    if held is None or held[0] is not index:
        if len(_tables_held) >= 4:
            _tables_held.clear()
        held = _tables_held[id(index)] = (index, _Tables(index))
    return held[1]


class Coverage(Mapping):
    """Searchable fact id -> the share of the query's evidence terms it holds (see
    Corpus.word_coverage), over arrays: recall asks for the best share, for membership and
    for the facts holding the most, never for the whole mapping."""

    def __init__(self, tables: _Tables, shares: np.ndarray):
        self._tables = tables
        self.shares = shares  # by fact number; 0 where not held or not searchable

    @cached_property
    def numbers(self) -> np.ndarray:
        """The numbers of the facts holding a share."""
        return np.flatnonzero(self.shares)

    def best(self) -> float:
        return float(self.shares.max()) if len(self.shares) else 0.0

    def top(self, count: int) -> list[str]:
        """The ids of the `count` facts holding the largest shares (ties by id)."""
        numbers = self.numbers
        order = np.lexsort((self._tables.id_order[numbers], -self.shares[numbers]))[:count]
        return [self._tables.ids[number] for number in numbers[order]]

    def __getitem__(self, fact_id: str) -> float:
        number = self._tables.position.get(fact_id)
        if number is None or not self.shares[number]:
            raise KeyError(fact_id)
        return float(self.shares[number])

    def __contains__(self, fact_id: object) -> bool:
        number = self._tables.position.get(fact_id) if isinstance(fact_id, str) else None
        return number is not None and bool(self.shares[number])

    def __iter__(self) -> Iterator[str]:
        return (self._tables.ids[number] for number in self.numbers)

    def __len__(self) -> int:
        return len(self.numbers)


class Corpus:
    """Exact and lexical (BM25) matching over the facts that are searchable now: current
    and at or above the activation threshold. `activation` gives the indexed facts'
    activation now, in the index's order (KnowledgeGraph.activations); without it, every
    fact of the index is searchable (the archive, or a threshold of 0). `text`: the
    full-text index (storage.text_index) that ranks lexical hits; without it there are
    none, only word coverage."""

    def __init__(
        self,
        view,
        threshold: float,
        index: dict,
        activation: ActivationsAt | None = None,
        text=None,
    ):
        self.view = view
        self.text = text
        self.threshold = threshold
        self.tables = _tables(index)
        self.ids = self.tables.ids
        self.subjects = index["subjects"]
        self.aliases = index["aliases"]
        self.exact_hashes = self.tables.exact_hashes
        self.exact_numbers = self.tables.exact_numbers
        self.activation = activation
        self.mask = (
            activation.searchable(threshold)
            if activation is not None
            else np.ones(len(self.ids), dtype=np.bool_)
        )

    def searchable(self, fact_id: str) -> bool:
        number = self.tables.position.get(fact_id)
        if number is None or fact_id not in self.view.records:
            return self.view.searchable(fact_id, self.threshold)  # changed since indexed
        return bool(self.mask[number]) and self.view.records[fact_id].current

    def keyed(self, key: str) -> range:
        """The places in exact_numbers of the indexed facts with an exact key (exact_keys)
        hashing like `key`, a normalised text: counted without reading them. A hash can
        collide, so the caller checks the fact's own keys."""
        hashed = _key_hash(key)
        first = bisect_left(self.exact_hashes, hashed)
        return range(first, bisect_right(self.exact_hashes, hashed, lo=first))

    def exact_matches(self, query: str) -> list[str]:
        """Ids of facts whose id, subject, object, sentence or "subject predicate" is the query."""
        wanted = normalise(query)
        matches = []
        for place in self.keyed(wanted):
            fact_id = self.ids[self.exact_numbers[place]]
            if self.searchable(fact_id) and wanted in exact_keys(self.view.records[fact_id]):
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
                places = self.keyed(key) if key else range(0)
                if len(places) > GRAPH_HUB:
                    continue
                for place in places:
                    number = self.exact_numbers[place]
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

    def named_subjects(self, query: str) -> set[tuple[str, ...]]:
        """The subjects of the memory the query names ("Caroline", "the user", "用户",
        "deployment project"), as their sorted evidence terms: those whose every term is in
        the query, and the one-word subjects a capitalised word inside the query begins
        ("Mel" for Melanie: people shorten names)."""
        terms = evidence_terms(query)
        if FIRST_PERSON.search(query):  # "what car do I drive": the user asks of themself
            terms |= {"user"}
        terms |= {alias for term in terms for alias in SUBJECT_ALIASES.get(term, ())}
        named = {
            tuple(subject)
            for term in terms
            for subject in self.subjects.get(term, ())
            if set(subject) <= terms
        }
        named |= {tuple(subject) for name, subject in self.aliases if set(name) <= terms}
        short = [word.lower() for word in _NAME_INSIDE.findall(query)]
        if short:
            named |= {
                tuple(subject)
                for subjects in self.subjects.values()
                for subject in subjects
                if len(subject) == 1 and any(subject[0].startswith(word) for word in short)
            }
        return named

    def about(
        self,
        numbers: np.ndarray,
        named: set[tuple[str, ...]],
        unindexed: Callable[[int], Fact | None],
    ) -> np.ndarray:
        """Whether each fact (by number) is about one of the `named` subjects: its subject
        or its object is that name. A number past the index is a fact changed since it was
        built, read by `unindexed`."""
        tables = self.tables
        last = len(tables.names)  # where NO_NAME is clipped to
        keys = [name_key(name) for name in named]
        wanted = np.zeros(last + 1, dtype=np.bool_)
        wanted[[tables.name_number[key] for key in keys if key in tables.name_number]] = True
        indexed = numbers < len(self.ids)
        theirs = np.zeros(len(numbers), dtype=np.bool_)
        held = numbers[indexed]
        theirs[indexed] = (
            wanted[np.minimum(tables.subject_name[held], last)]
            | wanted[np.minimum(tables.object_name[held], last)]
        )
        for place in np.flatnonzero(~indexed).tolist():
            fact = unindexed(int(numbers[place]))
            theirs[place] = fact is not None and any(
                _name_of(end) in keys for end in (fact.subject, fact.object)
            )
        return theirs

    def shares_a_phrase(self, query: str, coverage: Mapping[str, float]) -> bool:
        """Whether a fact holds two of the query's evidence terms one after the other, as
        the query has them: a phrase ("database migration", 北京出差). Looked for in the
        PHRASE_CANDIDATES facts holding the largest share of the query's terms."""
        wanted = adjacent_pairs(query)
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

    def word_coverage(self, query: str) -> Coverage:
        """Searchable fact id -> the share of the query's evidence terms (see
        model.text.evidence_terms: words, numbers, CJK character pairs) the fact holds, each
        term weighted by its idf here; only facts holding one or more are listed."""
        return Coverage(self.tables, self.word_shares(query))

    def word_shares(self, query: str, without: frozenset[str] = frozenset()) -> np.ndarray:
        """word_coverage's shares, by fact number (0 for a fact holding none of the terms, or
        not searchable). `without`: terms not counted (a name the query asks about)."""
        total = len(self.ids)
        holders = {
            term: self.tables.posting(term) for term in evidence_terms(query) if term not in without
        }
        weights = {
            term: math.log(1 + (total - len(numbers) + 0.5) / (len(numbers) + 0.5))
            for term, numbers in holders.items()
        }
        whole = sum(weights.values())
        shares = np.zeros(total, dtype=np.float64)
        for term, numbers in holders.items():
            shares[numbers] += weights[term] / whole  # a fact is once in a posting
        shares[~self.mask] = 0.0
        return shares

    def lexical_ranking(
        self,
        query: str,
        min_relative: float = MIN_RELATIVE_SCORE,
        *,
        coverage: Coverage | None = None,
        depth: int = LEXICAL_MIN_CANDIDATES,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(fact numbers, scores in (0, 1)) of the facts the full-text index ranks best by
        BM25 for the query's tokens, best first (ties by id), at least `depth` of them when
        so many match. Only facts sharing an evidence term count (a lone CJK character of a
        longer run adds to a score, but does not make a hit), and only searchable ones;
        facts scoring under `min_relative` times the best score are left out. `coverage`
        is word_coverage(query), when the caller computed it already."""
        empty = np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float64)
        terms = set(tokens(query))
        if self.text is None or not terms:
            return empty
        sharing = coverage if coverage is not None else self.word_coverage(query)
        held = sharing.shares > 0  # an evidence term, current and searchable
        wanted = min(depth, int(held.sum()))
        limit = 4 * wanted
        while True:
            vids, raw = self.text.search(terms, limit)
            numbers = self.tables.numbers_of(vids)
            keep = numbers >= 0
            keep[keep] = held[numbers[keep]]
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

    def lexical_scores(
        self,
        query: str,
        min_relative: float = MIN_RELATIVE_SCORE,
        *,
        coverage: Coverage | None = None,
        depth: int = LEXICAL_MIN_CANDIDATES,
    ) -> dict[str, float]:
        """Fact id -> score in (0, 1), as lexical_ranking finds them."""
        numbers, scores = self.lexical_ranking(query, min_relative, coverage=coverage, depth=depth)
        return {self.ids[number]: float(score) for number, score in zip(numbers, scores)}


def result_entry(hit: Hit, history) -> dict:
    fact = hit.fact.record
    entry = {
        "id": fact.id,
        "text": fact.sentence,
        "subject": fact.subject,
        "predicate": fact.predicate,
        "object": fact.object,
        "activation": round(hit.fact.activation, 4),
        "score": round(hit.score, 4),
        "source": fact.source,
        "matched": list(hit.matched),
    }
    if fact.supersedes:
        earlier = supersession_history(fact, history)
        if earlier:
            entry["history"] = earlier
    return entry


def supersession_history(fact: Fact, facts) -> list[dict]:
    """The statements this fact replaced, newest first; `facts.get(id)` finds them."""
    return [
        {
            "id": older.id,
            "text": older.sentence,
            "object": older.object,
            "created": older.created,
            "superseded_at": older.superseded_at,
        }
        for older in _replaced(fact, facts)
    ]
