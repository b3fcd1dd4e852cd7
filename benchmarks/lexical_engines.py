"""Lexical retrieval engines compared: the project's (tantivy through recall's Corpus), bm25s,
tantivy alone and SQLite FTS5 (unicode61 over the project's tokens; trigram over raw text).
A former hand-written BM25 over Python postings was measured by this benchmark against the
others and gave way to tantivy: same LoCoMo recall, a hundred times slower queries at 100,000
facts, and no update in place.

Every engine indexes the same documents (a fact's sentence, subject, predicate, object and
context, as lexical.document_text joins them) and, except FTS5 trigram, the same terms
(vm_memory_oracle.model.text.tokens: words, numbers, CJK characters and pairs, joined by
spaces where an engine wants text). Measured per engine, each size in a forked process of its
own: build time (median of --repeats), query latency p50/p95 over synthetic.QUERIES (English
and Chinese, top 10, after a warm-up), the cost of adding 100 facts and deleting 100 until the
next query sees it (an engine that cannot update in place is rebuilt), size on disk and peak
RSS growth; then evidence recall@10 on the LoCoMo development split with each engine alone
(scored as benchmarks/locomo_retrieval.py scores it). Run:
    .venv/bin/python benchmarks/lexical_engines.py [--sizes 10000,100000]
        [--workdir /tmp/lexical-bench-work] [--json]
"""

from __future__ import annotations

import argparse
import heapq
import json
import marshal
import multiprocessing
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "skill"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vm_memory_oracle import lexical  # noqa: E402
from vm_memory_oracle.lexical.snapshot import (  # noqa: E402
    LexicalSnapshot,
    build_lexical_index,
)
from vm_memory_oracle.model.fact import Fact, new_fact, normalise, vector_id  # noqa: E402
from vm_memory_oracle.model.text import tokens  # noqa: E402
from vm_memory_oracle.recall.corpus import Corpus  # noqa: E402
from vm_memory_oracle.recall.query import Query  # noqa: E402

import results  # noqa: E402
import synthetic  # noqa: E402

K = 10
# The BM25 parameters recall ranks with: tantivy's, fixed in its scorer (no setting).
BM25_K1 = 1.2
BM25_B = 0.75
STAMP = "2026-05-15T00:00:00Z"
BATCH = 100  # facts added and facts deleted by one incremental update
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")


def document_text(record: dict) -> str:
    """A fact's lexical document, as recall indexes it."""
    return lexical.document_text(Fact.from_record(record))


def document_terms(record: dict) -> list[str]:
    return tokens(document_text(record))


def query_terms(query: str) -> list[str]:
    """The query's distinct terms, in order (Corpus.lexical_ranking counts each once)."""
    return list(dict.fromkeys(tokens(query)))


def top(scored, k: int) -> list[tuple[str, float]]:
    """The k best (fact id, score) pairs, ties broken by id as recall breaks them."""
    return heapq.nsmallest(k, scored, key=lambda item: (-item[1], item[0]))


def directory_bytes(path: Path) -> int:
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


# --- engines ----------------------------------------------------------------------------


class _AllSearchable:
    """A view for recall's Corpus in which every fact is searchable: lexical scoring only."""

    def __init__(self, records: dict[str, dict]):
        self.records = records

    def searchable(self, fact_id: str, threshold: float) -> bool:
        return True


class Project:
    """What recall runs: the full-text index (storage.text_index, tantivy) ranks, through
    Corpus.lexical_ranking of recall (min_relative 0: a plain top 10) over the lexical
    snapshot (build_lexical_index), which maps its hits to facts. An update writes the index in
    place and builds the snapshot again (as recall does when facts.jsonl changes)."""

    name = "project"

    def __init__(self, workdir: Path, min_relative: float = 0.0):
        self.workdir = workdir
        self.min_relative = min_relative

    def _corpus(self) -> None:
        self.snapshot_index = build_lexical_index(
            [Fact.from_record(r) for r in self.records.values()]
        )
        self.corpus = Corpus(
            _AllSearchable(self.records), 0.0, self.snapshot_index, text=self.index
        )

    def build(self, records: list[dict]) -> None:
        from vm_memory_oracle.storage.text_index import TextIndex

        self.records = {record["id"]: record for record in records}
        self.index = TextIndex.create(self.workdir / "text-index")
        self.index.write([], [(vector_id(r["id"]), " ".join(document_terms(r))) for r in records])
        self._corpus()

    def search(self, query: str, k: int = K) -> list[tuple[str, float]]:
        asked = Query(query, self.corpus, k=k)
        numbers, scores = self.corpus.lexical_ranking(
            asked.tokens, asked.coverage, self.min_relative, depth=k
        )
        ids = self.corpus.ids
        return top(((ids[number], float(score)) for number, score in zip(numbers, scores)), k)

    def update(self, added: list[dict], removed: list[dict]) -> None:
        for record in removed:
            del self.records[record["id"]]
        self.records.update((record["id"], record) for record in added)
        self.index.write(
            [vector_id(r["id"]) for r in removed],
            [(vector_id(r["id"]), " ".join(document_terms(r))) for r in added],
        )
        self._corpus()

    def disk_bytes(self) -> int:
        """The index directory and the snapshot recall keeps under state/cache/."""
        self.snapshot = self.workdir / "lexical.marshal"
        self.snapshot.write_bytes(marshal.dumps(self.snapshot_index.plain()))
        return self.snapshot.stat().st_size + directory_bytes(self.workdir / "text-index")

    def reopen(self) -> None:
        """Open the index and load the snapshot as a new recall process does."""
        from vm_memory_oracle.storage.text_index import TextIndex

        self.index = TextIndex.open(self.workdir / "text-index")
        self.snapshot_index = LexicalSnapshot.from_plain(marshal.loads(self.snapshot.read_bytes()))
        self.corpus = Corpus(
            _AllSearchable(self.records), 0.0, self.snapshot_index, text=self.index
        )

    def close(self) -> None:
        pass


class Bm25s:
    """bm25s (numpy CSC backend) over pre-tokenized documents; method "lucene" with
    tantivy's k1/b, which ranks as recall's BM25 does. No add or delete: rebuilt from the
    cached term lists of the kept facts (only the new facts are tokenized)."""

    name = "bm25s"

    def __init__(self, workdir: Path):
        self.workdir = workdir

    def build(self, records: list[dict]) -> None:
        self.terms = {record["id"]: document_terms(record) for record in records}
        self._index()

    def _index(self) -> None:
        import bm25s

        self.ids = list(self.terms)
        self.model = bm25s.BM25(
            k1=BM25_K1, b=BM25_B, method="lucene", backend="numpy", csc_backend="numpy"
        )
        self.model.index(list(self.terms.values()), show_progress=False)

    def search(self, query: str, k: int = K) -> list[tuple[str, float]]:
        vocabulary = self.model.vocab_dict
        wanted = [vocabulary[term] for term in query_terms(query) if term in vocabulary]
        if not wanted:
            return []  # get_scores([]) raises: the pitfall of an all-unknown query
        scores = self.model.get_scores_from_ids(wanted)
        if len(scores) > k:
            best = np.argpartition(-scores, k)[:k]
        else:
            best = np.arange(len(scores))
        return top(((self.ids[i], float(scores[i])) for i in best if scores[i] > 0), k)

    def update(self, added: list[dict], removed: list[dict]) -> None:
        for record in removed:
            del self.terms[record["id"]]
        self.terms.update((record["id"], document_terms(record)) for record in added)
        self._index()

    def disk_bytes(self) -> int:
        """bm25s.BM25.save (the CSC arrays as .npy, the vocabulary as JSON)."""
        target = self.workdir / "bm25s"
        shutil.rmtree(target, ignore_errors=True)
        self.model.save(str(target))
        return directory_bytes(target)

    def reopen(self) -> None:
        import bm25s

        self.model = bm25s.BM25.load(str(self.workdir / "bm25s"))

    def close(self) -> None:
        pass


class Tantivy:
    """tantivy: the project's terms joined by spaces in a text field read by a whitespace
    tokenizer (registered on the Index: it is not persisted, so every open must register it
    again), term frequencies without positions; fact numbers in a fast u64 field (hits are
    mapped to facts without reading stored documents); fact ids in a "raw" text field, which
    deletion is by term on (delete_documents_by_term("num", 5) on the u64 field silently
    deletes nothing). One writer thread (the other engines use one core)."""

    name = "tantivy"

    def __init__(self, workdir: Path):
        self.path = workdir / "tantivy"

    def build(self, records: list[dict]) -> None:
        import tantivy

        self.tantivy = tantivy
        builder = tantivy.SchemaBuilder()
        builder.add_unsigned_field("num", fast=True)
        builder.add_text_field("fid", tokenizer_name="raw", index_option="basic")
        builder.add_text_field("body", tokenizer_name="ws", index_option="freq")
        self.schema = builder.build()
        self.path.mkdir(parents=True, exist_ok=True)
        self.index = tantivy.Index(self.schema, path=str(self.path), reuse=False)
        analyzer = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
        self.index.register_tokenizer("ws", analyzer)
        self.writer = self.index.writer(heap_size=128_000_000, num_threads=1)
        self.ids: dict[int, str] = {}
        self._add(records)
        self._commit()

    def _add(self, records: list[dict]) -> None:
        for record in records:
            number = len(self.ids)
            self.ids[number] = record["id"]
            document = self.tantivy.Document()
            document.add_unsigned("num", number)
            document.add_text("fid", record["id"])
            document.add_text("body", " ".join(document_terms(record)))
            self.writer.add_document(document)

    def _commit(self) -> None:
        self.writer.commit()
        self.index.reload()
        self.searcher = self.index.searcher()

    def search(self, query: str, k: int = K) -> list[tuple[str, float]]:
        tantivy = self.tantivy
        clauses = [
            (tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "body", term, "freq"))
            for term in query_terms(query)
        ]
        if not clauses:
            return []
        hits = self.searcher.search(tantivy.Query.boolean_query(clauses), k).hits
        numbers = self.searcher.fast_field_values("num", [address for _, address in hits])
        return top(((self.ids[n], score) for (score, _), n in zip(hits, numbers)), k)

    def update(self, added: list[dict], removed: list[dict]) -> None:
        for record in removed:
            self.writer.delete_documents_by_term("fid", record["id"])
        self._add(added)
        self._commit()

    def disk_bytes(self) -> int:
        return directory_bytes(self.path)

    def reopen(self) -> None:
        """Open the index directory again (a new process would), register the tokenizer."""
        tantivy = self.tantivy
        self.index = tantivy.Index.open(str(self.path))
        analyzer = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
        self.index.register_tokenizer("ws", analyzer)
        self.searcher = self.index.searcher()

    def close(self) -> None:
        self.writer.wait_merging_threads()


class Fts5:
    """SQLite FTS5, contentless (content=''), default detail=full (bm25() needs term
    frequencies); ranked by bm25() (k1 1.2, b 0.75 built in). SQLite 3.40 has no
    contentless_delete (3.43), so a fact is deleted with the 'delete' command and its
    original text, which is rebuilt from the record."""

    name = "fts5-unicode61"
    tokenizer = "unicode61 remove_diacritics 0"

    def __init__(self, workdir: Path):
        self.path = workdir / f"{self.name}.sqlite"

    def body(self, record: dict) -> str:
        """The project's terms joined by spaces; unicode61 splits them back (a CJK pair has
        no separator inside, so it stays one token)."""
        return " ".join(document_terms(record))

    def match(self, query: str) -> str:
        """The query's terms OR-ed, each a quoted string ("" escapes a quote): a bare term
        such as NEAR, AND, NOT or one holding '-', ':' or '*' is FTS5 syntax."""
        return " OR ".join('"' + term.replace('"', '""') + '"' for term in query_terms(query))

    def build(self, records: list[dict]) -> None:
        self.path.unlink(missing_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self.db.execute(
            f"CREATE VIRTUAL TABLE docs USING fts5(body, content='', tokenize='{self.tokenizer}')"
        )
        self.ids: dict[int, str] = {}
        self.rowids: dict[str, int] = {}
        self.db.execute("BEGIN")
        self._add(records)
        self.db.execute("COMMIT")
        self.db.execute("INSERT INTO docs(docs) VALUES ('optimize')")

    def _add(self, records: list[dict]) -> None:
        rows = []
        for record in records:
            rowid = len(self.ids) + 1
            self.ids[rowid] = record["id"]
            self.rowids[record["id"]] = rowid
            rows.append((rowid, self.body(record)))
        self.db.executemany("INSERT INTO docs(rowid, body) VALUES (?, ?)", rows)

    def search(self, query: str, k: int = K) -> list[tuple[str, float]]:
        match = self.match(query)
        if not match:
            return []
        rows = self.db.execute(
            "SELECT rowid, bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?",
            (match, k),
        ).fetchall()
        return top(((self.ids[rowid], -score) for rowid, score in rows), k)

    def update(self, added: list[dict], removed: list[dict]) -> None:
        self.db.execute("BEGIN")
        self.db.executemany(
            "INSERT INTO docs(docs, rowid, body) VALUES ('delete', ?, ?)",
            [(self.rowids.pop(record["id"]), self.body(record)) for record in removed],
        )
        self._add(added)
        self.db.execute("COMMIT")

    def disk_bytes(self) -> int:
        return self.path.stat().st_size

    def reopen(self) -> None:
        self.db.close()
        self.db = sqlite3.connect(self.path, isolation_level=None)

    def close(self) -> None:
        self.db.close()


class Fts5Trigram(Fts5):
    """FTS5 trigram over the raw document text: no project tokens. Query: the project's terms
    of three characters or more (shorter ones cannot match a trigram index) and each three
    characters of the query's CJK runs (a two-character word such as 北京 alone cannot be
    looked for); substring matching, so "tea" also finds "team"."""

    name = "fts5-trigram"
    tokenizer = "trigram"

    def body(self, record: dict) -> str:
        return document_text(record)

    def match(self, query: str) -> str:
        terms = [term for term in query_terms(query) if len(term) >= 3]
        for run in _CJK_RUN.findall(normalise(query)):
            terms.extend(run[i : i + 3] for i in range(len(run) - 2))
        terms = list(dict.fromkeys(terms))
        return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


ENGINES: dict[str, Callable] = {
    engine.name: engine for engine in (Project, Bm25s, Tantivy, Fts5, Fts5Trigram)
}


# --- one engine at one size, in a forked process -----------------------------------------

_RECORDS: list[dict] = []  # every synthetic fact, made before forking


def synthetic_records(count: int) -> list[dict]:
    return [
        new_fact(line, created=STAMP, default_source="synthetic").to_record()
        for line in synthetic.fact_lines(count)
    ]


def _memory_kib() -> tuple[int, int]:
    """(VmRSS, VmHWM) of this process, KiB."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        fields[name] = value
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(name: str, size: int, queries: int, repeats: int, updates: int) -> dict:
    """Build (repeats, median), query latency, incremental updates, disk and RSS."""
    records = _RECORDS[:size]
    figures: dict = {"engine": name, "facts": size}
    with tempfile.TemporaryDirectory(prefix="lexical-") as scratch:
        builds = []
        engine = None
        for repeat in range(repeats):
            if engine is not None:
                engine.close()
                shutil.rmtree(scratch)
                Path(scratch).mkdir()
            engine = ENGINES[name](Path(scratch))
            rss_before, _ = _memory_kib()
            started = time.perf_counter()
            engine.build(records)
            builds.append(time.perf_counter() - started)
            rss_after, peak = _memory_kib()
            if repeat == 0:
                figures["rss_growth_mib"] = round((rss_after - rss_before) / 1024, 1)
                figures["peak_rss_growth_mib"] = round((peak - rss_before) / 1024, 1)
        figures["build_s"] = round(statistics.median(builds), 3)
        figures["build_s_all"] = [round(value, 3) for value in builds]
        figures["disk_bytes"] = engine.disk_bytes()
        texts = synthetic.QUERIES
        for _ in range(3):
            for query in texts:
                engine.search(query)
        latencies = []
        for position in range(queries):
            query = texts[position % len(texts)]
            started = time.perf_counter()
            engine.search(query)
            latencies.append((time.perf_counter() - started) * 1000)
        figures["query_ms_p50"] = round(percentile(latencies, 0.5), 3)
        figures["query_ms_p95"] = round(percentile(latencies, 0.95), 3)
        opened, first = [], []
        for _ in range(5):
            started = time.perf_counter()
            engine.reopen()
            opened.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            engine.search(texts[1])
            first.append((time.perf_counter() - started) * 1000)
        figures["open_ms"] = round(statistics.median(opened), 3)
        figures["first_query_after_open_ms"] = round(statistics.median(first), 3)
        per_query = {}
        for query in texts:
            times = []
            for _ in range(5):
                started = time.perf_counter()
                found = engine.search(query)
                times.append((time.perf_counter() - started) * 1000)
            per_query[query] = {"ms": round(statistics.median(times), 3), "hits": len(found)}
        figures["per_query"] = per_query
        # Incremental: add BATCH new facts and delete BATCH old ones, then query.
        pool = _RECORDS[size:]
        update_times, first_query, visible = [], [], True
        for round_number in range(updates):
            added = pool[round_number * BATCH : (round_number + 1) * BATCH]
            removed = records[round_number * BATCH : (round_number + 1) * BATCH]
            if len(added) < BATCH:
                raise SystemExit(f"too few spare synthetic facts for update {round_number}")
            started = time.perf_counter()
            engine.update(added, removed)
            update_times.append(time.perf_counter() - started)
            probe = document_text(added[-1])
            started = time.perf_counter()
            found = [fact_id for fact_id, _ in engine.search(probe)]
            first_query.append((time.perf_counter() - started) * 1000)
            gone = {fact_id for fact_id, _ in engine.search(document_text(removed[-1]))}
            visible &= added[-1]["id"] in found and removed[-1]["id"] not in gone
        figures["update_s"] = round(statistics.median(update_times), 3)
        figures["update_s_all"] = [round(value, 3) for value in update_times]
        figures["first_query_after_update_ms"] = round(statistics.median(first_query), 3)
        figures["update_visible"] = visible
        figures["disk_bytes_after_updates"] = engine.disk_bytes()
        engine.close()
    return figures


def _child(connection, function, args) -> None:
    try:
        connection.send(("ok", function(*args)))
    except Exception:  # the parent reports it
        connection.send(("error", traceback.format_exc()))
    finally:
        connection.close()


def in_child(function, *args):
    """function(*args) in a forked process (its memory and its libraries' threads its own)."""
    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(sending, function, args))
    process.start()
    sending.close()
    status, value = receiving.recv()
    process.join()
    if status != "ok":
        raise RuntimeError(value)
    return value


# What each engine adds to a recall process's imports (current: nothing, it is recall's own).
IMPORTS = {
    "bm25s": "bm25s",
    "tantivy": "tantivy",
    "fts5-unicode61": "sqlite3",
    "fts5-trigram": "sqlite3",
}


def import_ms(module: str, runs: int = 5) -> float:
    """Median time to import `module` in a fresh interpreter that has imported numpy
    already (recall imports numpy and faiss anyway)."""
    import subprocess

    code = (
        f"import sys, time; sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r}"
        " + '/skill'); import numpy; started = time.perf_counter(); import "
        f"{module}; print(time.perf_counter() - started)"
    )
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return round(statistics.median(times) * 1000, 1)


def tokenizing_seconds(size: int) -> float:
    started = time.perf_counter()
    for record in _RECORDS[:size]:
        document_terms(record)
    return round(time.perf_counter() - started, 3)


# --- LoCoMo -----------------------------------------------------------------------------


def locomo_quality(workdir: Path, names: list[str], samples: tuple[str, ...] | None = None) -> dict:
    """Evidence recall@10 of each engine alone on each LoCoMo dev conversation (or on
    those `samples` names)."""
    from locomo_retrieval import CATEGORIES, KEPT_EMBEDDINGS, LEXICAL, evaluate, prepare

    prepared = prepare(workdir, samples=samples, kept=KEPT_EMBEDDINGS)
    variants = [(name, ENGINES[name], {}) for name in names]
    if "current" in names:
        variants.append(("project (min_relative 0.2)", Project, {"min_relative": 0.2}))
    table: dict = {}
    reference: dict[tuple[str, int], set[str]] = {}  # current's top 10 of each question
    for label, factory, options in variants:
        overlaps: list[float] = []
        per_question: list[tuple[int, float]] = []
        per_conversation, seconds = {}, {"build": 0.0, "queries": 0.0}
        for graph, conversation, _ in prepared:
            records = [fact.to_record() for fact in graph.facts() if fact.current]
            with tempfile.TemporaryDirectory(prefix="lexical-locomo-") as scratch:
                engine = factory(Path(scratch), **options)
                started = time.perf_counter()
                engine.build(records)
                seconds["build"] += time.perf_counter() - started
                by_id = {record["id"]: record for record in records}
                dia_of_source = {source: dia for dia, source in conversation.turn_sources.items()}
                own = []
                started = time.perf_counter()
                answers = [engine.search(qa["question"], K) for qa in conversation.questions]
                seconds["queries"] += time.perf_counter() - started
                for number, hits in enumerate(answers):
                    mine = {fact_id for fact_id, _ in hits}
                    key = (conversation.sample_id, number)
                    if label == "current":
                        reference[key] = mine
                    if key in reference:
                        theirs = reference[key]
                        union = max(len(mine), len(theirs))
                        overlaps.append(len(mine & theirs) / union if union else 1.0)
                for qa, hits in zip(conversation.questions, answers):
                    found = {dia_of_source.get(by_id[fact_id]["source"]) for fact_id, _ in hits}
                    own.append(
                        (qa["category"], len(found & set(qa["evidence"])) / len(qa["evidence"]))
                    )
                engine.close()
            per_question += own
            per_conversation[conversation.sample_id] = {
                "facts": len(records),
                "questions": len(own),
                "recall": round(sum(value for _, value in own) / len(own), 4) if own else 0.0,
            }
        per_category = {}
        for category, category_name in CATEGORIES.items():
            values = [value for cat, value in per_question if cat == category]
            if values:
                per_category[f"{category} {category_name}"] = round(sum(values) / len(values), 4)
        table[label] = {
            "questions": len(per_question),
            "recall": round(sum(value for _, value in per_question) / len(per_question), 4),
            "per_conversation": per_conversation,
            "per_category": per_category,
            "top10_overlap_with_current": (
                round(sum(overlaps) / len(overlaps), 4) if overlaps else None
            ),
            "seconds_build": round(seconds["build"], 2),
            "seconds_queries": round(seconds["queries"], 2),
        }
    # For reference: the whole recall pipeline with lexical matching only (gating, exact
    # matches, fusion, one fact per turn first), as locomo_retrieval.py reports it.
    pipeline = evaluate(prepared, LEXICAL, k=K)
    table["recall pipeline, lexical-only (reference)"] = {
        "questions": pipeline.questions,
        "recall": pipeline.recall,
        "per_conversation": {
            sample: {"recall": value} for sample, value in pipeline.per_conversation.items()
        },
        "per_category": pipeline.per_category,
    }
    return table


# --- report -----------------------------------------------------------------------------


def render(figures: dict) -> str:
    lines = []
    sizes = figures["sizes"]
    for size in sizes:
        rows = [row for row in figures["speed"] if row["facts"] == size]
        lines.append(
            f"\n{size:,} synthetic facts (project tokenization alone: "
            f"{figures['tokenizing_s'][str(size)]:.2f} s)"
        )
        lines.append(
            f"{'engine':<16}{'build s':>9}{'p50 ms':>9}{'p95 ms':>9}{'update s':>10}"
            f"{'1st q ms':>10}{'seen':>6}{'disk MiB':>10}{'RSS MiB':>9}{'peak MiB':>10}"
            f"{'open ms':>9}{'cold q ms':>10}"
        )
        for row in rows:
            lines.append(
                f"{row['engine']:<16}{row['build_s']:>9.3f}{row['query_ms_p50']:>9.3f}"
                f"{row['query_ms_p95']:>9.3f}{row['update_s']:>10.3f}"
                f"{row['first_query_after_update_ms']:>10.3f}"
                f"{'yes' if row['update_visible'] else 'NO':>6}"
                f"{row['disk_bytes'] / 2**20:>10.1f}{row['rss_growth_mib']:>9.1f}"
                f"{row['peak_rss_growth_mib']:>10.1f}"
                f"{row['open_ms']:>9.2f}{row['first_query_after_open_ms']:>10.2f}"
            )
    lines.append(
        "\nbuild s: median of the builds, tokenizing included; update s: add 100 facts and "
        "delete 100, visible to the next query (a rebuild for current and bm25s); 1st q ms: "
        "the query after it (a fact's whole text, so many terms); seen: the added fact found "
        "and the deleted one gone; disk: persisted index (current: its marshal snapshot); "
        "RSS / peak: growth over the build; open ms: reopen the persisted index; cold q ms: "
        "the query after it."
    )
    lines.append(
        "import ms (after numpy): "
        + ", ".join(f"{name} {value:.1f}" for name, value in figures["import_ms"].items())
    )
    quality = figures.get("locomo")
    if quality:
        samples = sorted(next(iter(quality.values()))["per_conversation"])
        lines.append("\nLoCoMo dev, evidence recall@10, lexical retrieval alone")
        lines.append(f"{'engine':<42}" + "".join(f"{s:>9}" for s in samples) + f"{'overall':>9}")
        for label, row in quality.items():
            cells = "".join(f"{row['per_conversation'][s]['recall']:>9.3f}" for s in samples)
            lines.append(f"{label:<42}{cells}{row['recall']:>9.3f}")
        lines.append("mean top-10 overlap with current (same facts returned):")
        lines.append(
            "  "
            + ", ".join(
                f"{label} {row['top10_overlap_with_current']:.3f}"
                for label, row in quality.items()
                if label != "current" and row.get("top10_overlap_with_current") is not None
            )
        )
        lines.append("per category:")
        for label, row in quality.items():
            cells = ", ".join(f"{name} {value:.3f}" for name, value in row["per_category"].items())
            lines.append(f"  {label}: {cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--workdir", type=Path, help="LoCoMo data directories, kept for reruns")
    parser.add_argument("--queries", type=int, default=200, help="timed queries a size")
    parser.add_argument("--repeats", type=int, default=3, help="builds a size (median)")
    parser.add_argument("--updates", type=int, default=3, help="incremental updates (median)")
    parser.add_argument("--skip-locomo", action="store_true")
    parser.add_argument(
        "--locomo-samples", help="the LoCoMo conversations to score (default: all five)"
    )
    parser.add_argument("--json", action="store_true", help="print the JSON, not the table")
    args = parser.parse_args(argv)
    sizes = [int(value) for value in args.sizes.split(",")]
    names = args.engines.split(",")
    unknown = [name for name in names if name not in ENGINES]
    if unknown:
        parser.error(f"unknown engines {unknown}; known: {', '.join(ENGINES)}")
    _RECORDS[:] = synthetic_records(max(sizes) + BATCH * args.updates)
    figures: dict = {
        "sizes": sizes,
        "k": K,
        "queries": synthetic.QUERIES,
        "timed_queries": args.queries,
        "versions": versions(),
        "tokenizing_s": {str(size): tokenizing_seconds(size) for size in sizes},
        "import_ms": {name: import_ms(IMPORTS[name]) for name in names if name in IMPORTS},
        "speed": [],
    }
    for size in sizes:
        for name in names:
            row = in_child(measure, name, size, args.queries, args.repeats, args.updates)
            figures["speed"].append(row)
            if not args.json:
                print(
                    f"{name} @ {size}: build {row['build_s']} s, p50 {row['query_ms_p50']} ms, "
                    f"p95 {row['query_ms_p95']} ms, update {row['update_s']} s",
                    flush=True,
                )
    if not args.skip_locomo:
        with tempfile.TemporaryDirectory() as scratch:
            samples = tuple(args.locomo_samples.split(",")) if args.locomo_samples else None
            figures["locomo"] = locomo_quality(args.workdir or Path(scratch), names, samples)
    path = results.record("lexical_engines", figures)
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    else:
        print(render(figures))
        print(f"\nwritten to {path}")
    return 0


def versions() -> dict:
    import bm25s
    import tantivy

    return {
        "bm25s": bm25s.__version__,
        "tantivy": getattr(tantivy, "__version__", "0.27"),
        "sqlite": sqlite3.sqlite_version,
        "numpy": np.__version__,
    }


if __name__ == "__main__":
    sys.exit(main())
