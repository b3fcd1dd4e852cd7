"""Recall: candidates, fusion, activation filter, boost, archive fallback.

Candidates come from three places: an exact match on id, subject, object, sentence or
"subject predicate"; the semantic index (nearest vectors to the query's embedding); and a
lexical match (BM25 over tokens, English and Chinese). The lists are fused by reciprocal
rank, exact matches first. Superseded facts and facts below search_threshold are left out,
and so is everything when nothing in the memory concerns the query: the query must name a
fact's subject, or some fact must match it exactly, hold most of its words (weighted by
rarity) or one of its phrases, or, for a model whose scale was measured, score as related
on it (embed/relevance.py). Then a lexical hit must share a word, a number or a CJK
character pair with the query (not a lone character of a longer run), and a semantic
neighbour must share one too or score above the model's everyday level, so a query about
nothing in the memory finds nothing.
When fewer than k active facts match the query's words, pruned facts in the archive are
searched too, and a hit is restored to the active set at activation 0.3. What is returned
is boosted unless the caller says not to.
"""

from __future__ import annotations

import hashlib
import math
import re
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from .errors import InvalidInputError, UsageError
from .graph import KnowledgeGraph, LiveFact
from .model.archive import cause_of
from .model.characters import UNSAFE_FOUND, without_unsafe
from .model.fact import Fact, normalise
from .model.text import adjacent_pairs, evidence_terms, tokens
from .semantic.search import Semantic, related_neighbours

ORDERS = ("relevance", "activation")
MAX_QUERY_CHARS = 4000
# Reciprocal-rank fusion: score = sum over lists of weight / (RRF_K + rank). The constants
# are the best measured on the LoCoMo development split (benchmarks/locomo_retrieval.py).
RRF_K = 10
WEIGHTS = {"exact": 1.0, "semantic": 3.0, "lexical": 2.0}
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
LEXICAL_LAYOUT = 2  # of build_lexical_index's snapshot: 2 added the subjects
_BM25_K1 = 1.2
_BM25_B = 0.75


@dataclass
class Hit:
    fact: LiveFact
    score: float
    matched: tuple[str, ...]  # which candidate lists found it: exact, semantic, lexical


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
    corpus = Corpus(view, graph.settings.search_threshold, lexical_index(graph))
    vectors = None
    if semantic is not None and view.records:
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
        concerned = (
            strong
            or max(coverage.values(), default=0.0) >= WORD_EVIDENCE
            or corpus.names_a_subject(item["query"])
            or bool(corpus.exact_matches(item["query"]))
            or corpus.shares_a_phrase(item["query"], coverage)
        )
        hits = rank(item["query"], corpus, neighbours, k, order, coverage) if concerned else []
        supported = sum(1 for hit in hits if "semantic" not in hit.matched or len(hit.matched) > 1)
        if supported < k and boost:
            restored = _restore_from_archive(graph, item["query"], view, k - supported, now)
            if restored:
                kept = hits[: k - len(restored)]
                hits = _ordered(kept + restored, order)
        ranked.append(hits)
    if boost:
        returned = {hit.fact.id: hit.fact.record for hits in ranked for hit in hits}
        new_values = graph.reinforce(list(returned.values()), now) if returned else {}
        for hits in ranked:
            for hit in hits:
                if hit.fact.id in new_values:
                    hit.fact.activation = new_values[hit.fact.id]
    history = _HistoryLookup(graph, view.records)
    return [
        {"query": item["query"], "results": [result_entry(hit, history) for hit in hits]}
        for item, hits in zip(queries, ranked)
    ]


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


def rank(
    query: str,
    corpus: Corpus,
    neighbours: list[tuple[str, float]],
    k: int,
    order: str,
    coverage: dict[str, float] | None = None,
) -> list[Hit]:
    """Fuse the candidate lists by reciprocal rank; exact matches always come first.
    `coverage`: the query's word_coverage, when the caller has it already."""
    scores = corpus.lexical_scores(query, coverage=coverage)
    lexical = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    lists = {
        "exact": sorted(
            corpus.exact_matches(query), key=lambda fact_id: -corpus.view[fact_id].activation
        ),
        "semantic": [fact_id for fact_id, _ in neighbours],
        "lexical": [fact_id for fact_id, _ in lexical],
    }
    fused: dict[str, float] = {}
    matched: dict[str, list[str]] = {}
    for name, fact_ids in lists.items():
        for position, fact_id in enumerate(fact_ids, start=1):
            fused[fact_id] = fused.get(fact_id, 0.0) + WEIGHTS[name] / (RRF_K + position)
            matched.setdefault(fact_id, []).append(name)
    top = sum(WEIGHTS.values()) / (RRF_K + 1) + 1.0
    hits = [
        Hit(
            corpus.view[fact_id],
            (score + (1.0 if "exact" in matched[fact_id] else 0.0)) / top,
            tuple(matched[fact_id]),
        )
        for fact_id, score in fused.items()
    ]
    hits.sort(key=lambda hit: (-hit.score, -hit.fact.activation, hit.fact.id))
    return _ordered(_one_per_turn_first(hits)[:k], order)


def _ordered(hits: list[Hit], order: str) -> list[Hit]:
    if order == "activation":
        return sorted(hits, key=lambda hit: (-hit.fact.activation, -hit.score, hit.fact.id))
    return sorted(hits, key=lambda hit: (-hit.score, -hit.fact.activation, hit.fact.id))


def _one_per_turn_first(hits: list[Hit]) -> list[Hit]:
    """The best fact of each conversation turn first, then the others: several fragments
    of one sentence do not crowd out the other memories a query may need. Facts from other
    sources (user-stated, an import file) are each their own."""
    seen: set[str] = set()
    first: list[Hit] = []
    later: list[Hit] = []
    for hit in hits:
        source = hit.fact.record.source
        turn = source if source.startswith("sessions/") else hit.fact.id
        (later if turn in seen else first).append(hit)
        seen.add(turn)
    return first + later


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
    for fact_id, score in archived.lexical_scores(query).items():
        if coverage[fact_id] >= WORD_EVIDENCE:
            scores.setdefault(fact_id, score)
    best = sorted(scores, key=lambda fact_id: (-scores[fact_id], fact_id))[:wanted]
    restored = graph.restore([candidates[fact_id] for fact_id in best], now)
    return [Hit(live, min(scores[live.id], 1.0), ("archive",)) for live in restored]


def build_lexical_index(facts: list[Fact]) -> dict:
    """Exact keys and BM25 postings of facts, as plain data (it is kept as a snapshot).

    A fact's lexical document is its sentence, subject, predicate, object and context (the
    turn it came from, as its vector reads it too). Facts are numbered in `ids`. Numbers are
    stored packed as bytes (a snapshot of 10,000 facts then loads in a few milliseconds):
    a posting is [number, frequency, number, frequency, ...] as uint32; the exact keys are
    a sorted array of 63-bit key hashes with the fact number of each.
    """
    ids: list[str] = []
    exact: list[tuple[int, int]] = []
    postings: dict[str, array] = {}
    lengths = array("I")
    for number, fact in enumerate(facts):
        ids.append(fact.id)
        predicate = fact.predicate.replace("_", " ")
        exact.extend((_key_hash(key), number) for key in exact_keys(fact))
        words = tokens(
            " ".join((fact.sentence, fact.subject, predicate, fact.object, fact.context or ""))
        )
        for term, frequency in Counter(words).items():
            postings.setdefault(term, array("I")).extend((number, frequency))
        lengths.append(len(words))
    exact.sort()
    subjects: dict[str, list[list[str]]] = {}
    for subject in sorted({fact.subject for fact in facts}):
        terms = sorted(evidence_terms(subject))
        if terms:
            subjects.setdefault(terms[0], []).append(terms)
    return {
        "ids": ids,
        "lengths": lengths.tobytes(),
        "subjects": subjects,
        "postings": {term: posting.tobytes() for term, posting in postings.items()},
        "exact_hashes": array("Q", [hashed for hashed, _ in exact]).tobytes(),
        "exact_numbers": array("I", [number for _, number in exact]).tobytes(),
    }


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
    """A stable 63-bit hash (Python's own hash() changes between processes)."""
    return int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest(), "big") >> 1


def lexical_index(graph: KnowledgeGraph) -> dict:
    """The lexical index of the current facts, rebuilt only when facts.jsonl changed."""
    from .storage import snapshot

    path = graph.layout.facts
    cache = graph.layout.lexical_cache
    disk = graph.store.cache_usable(cache)
    held = snapshot.load(cache, _lexical_key(path), disk=disk)
    if held is None:
        held = build_lexical_index([fact for fact in graph.facts() if fact.current])
        snapshot.save(cache, _lexical_key(path), held, disk=disk)
    return held


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


class Corpus:
    """Exact and lexical (BM25) matching over the facts that are searchable now: current
    and at or above the activation threshold (computed only for facts that match)."""

    def __init__(self, view, threshold: float, index: dict):
        self.view = view
        self.threshold = threshold
        self.ids = index["ids"]
        self.subjects = index["subjects"]
        self.postings = index["postings"]
        self.lengths = array("I", index["lengths"])
        self.exact_hashes = array("Q", index["exact_hashes"])
        self.exact_numbers = array("I", index["exact_numbers"])
        self.average_length = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0

    def searchable(self, fact_id: str) -> bool:
        return self.view.searchable(fact_id, self.threshold)

    def exact_matches(self, query: str) -> list[str]:
        """Ids of facts whose id, subject, object, sentence or "subject predicate" is the query."""
        wanted = normalise(query)
        hashed = _key_hash(wanted)
        matches = []
        position = bisect_left(self.exact_hashes, hashed)
        while position < len(self.exact_hashes) and self.exact_hashes[position] == hashed:
            fact_id = self.ids[self.exact_numbers[position]]
            position += 1
            # A hash can collide: the fact's own keys decide.
            if self.searchable(fact_id) and wanted in exact_keys(self.view.records[fact_id]):
                matches.append(fact_id)
        return matches

    def names_a_subject(self, query: str) -> bool:
        """Whether the query names what some fact is about ("Caroline", "the user", "用户",
        "deployment project"): every evidence term of a fact's subject is in the query, or
        a capitalised word inside the query begins a one-word subject ("Mel" for Melanie:
        people shorten names)."""
        terms = evidence_terms(query)
        terms |= {alias for term in terms for alias in SUBJECT_ALIASES.get(term, ())}
        if any(set(subject) <= terms for term in terms for subject in self.subjects.get(term, ())):
            return True
        short = [word.lower() for word in _NAME_INSIDE.findall(query)]
        return any(
            len(subject) == 1 and subject[0].startswith(word)
            for word in short
            for subjects in self.subjects.values()
            for subject in subjects
        )

    def shares_a_phrase(self, query: str, coverage: dict[str, float]) -> bool:
        """Whether a fact holds two of the query's evidence terms one after the other, as
        the query has them: a phrase ("database migration", 北京出差). Looked for in the
        PHRASE_CANDIDATES facts holding the largest share of the query's terms."""
        wanted = adjacent_pairs(query)
        if not wanted:
            return False
        best = sorted(coverage, key=lambda fact_id: (-coverage[fact_id], fact_id))
        for fact_id in best[:PHRASE_CANDIDATES]:
            fact = self.view.records[fact_id]
            if wanted & adjacent_pairs(f"{fact.sentence}\n{fact.context or ''}"):
                return True
        return False

    def word_coverage(self, query: str) -> dict[str, float]:
        """Searchable fact id -> the share of the query's evidence terms (see
        model.text.evidence_terms: words, numbers, CJK character pairs) the fact holds, each
        term weighted by its idf here; only facts holding one or more are listed."""
        terms = evidence_terms(query)
        total = len(self.lengths)
        holders = {}
        for term in terms:
            packed = self.postings.get(term)
            holders[term] = array("I", packed)[::2] if packed else array("I")
        weights = {
            term: math.log(1 + (total - len(numbers) + 0.5) / (len(numbers) + 0.5))
            for term, numbers in holders.items()
        }
        whole = sum(weights.values())
        shares: dict[str, float] = {}
        for term, numbers in holders.items():
            for number in numbers:
                fact_id = self.ids[number]
                shares[fact_id] = shares.get(fact_id, 0.0) + weights[term] / whole
        return {fact_id: share for fact_id, share in shares.items() if self.searchable(fact_id)}

    def lexical_scores(
        self,
        query: str,
        min_relative: float = MIN_RELATIVE_SCORE,
        *,
        coverage: dict[str, float] | None = None,
    ) -> dict[str, float]:
        """Fact id -> score in (0, 1) for facts sharing tokens with the query.

        Only facts sharing an evidence term count (a lone CJK character of a longer run
        adds to a score, but does not make a hit); facts scoring under `min_relative`
        times the best score are left out. `coverage` is word_coverage(query), when the
        caller computed it already (it is the costly part at 100,000 facts).
        """
        total = len(self.lengths)
        sharing = coverage if coverage is not None else self.word_coverage(query)
        raw: dict[str, float] = {}
        for term in set(tokens(query)):
            packed = self.postings.get(term)
            if not packed:
                continue
            posting = array("I", packed)
            count = len(posting) // 2
            idf = math.log(1 + (total - count + 0.5) / (count + 0.5))
            for position in range(0, len(posting), 2):
                number, frequency = posting[position], posting[position + 1]
                fact_id = self.ids[number]
                if fact_id not in sharing:
                    continue  # no evidence term; or superseded, or faded below search_threshold
                norm = 1 - _BM25_B + _BM25_B * self.lengths[number] / self.average_length
                raw[fact_id] = raw.get(fact_id, 0.0) + (
                    idf * frequency * (_BM25_K1 + 1) / (frequency + _BM25_K1 * norm)
                )
        floor = min_relative * max(raw.values(), default=0.0)
        # Squash into (0, 1), keeping the order.
        return {fact_id: score / (score + 2.0) for fact_id, score in raw.items() if score >= floor}


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
    history = []
    seen = {fact.id}
    previous = fact.supersedes
    while previous and previous not in seen and facts.get(previous) is not None:
        seen.add(previous)
        older = facts.get(previous)
        history.append(
            {
                "id": older.id,
                "text": older.sentence,
                "object": older.object,
                "created": older.created,
                "superseded_at": older.superseded_at,
            }
        )
        previous = older.supersedes
    return history
