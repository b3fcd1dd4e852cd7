"""Recall latency at 1k, 10k and (with --long) 100k facts, index build time, and the recall
process time.

Facts are synthetic and their vectors random (benchmarks/synthetic.py): building the index
measures FAISS and the pipeline, not hours of embedding. Queries are embedded by the
bundled model. In-process figures are p50/p95 over repeated recalls in a warm process,
with the query embedding excluded (vectors computed beforehand) and included.

Goal: the whole `scripts/vm-memory-oracle --action recall` process at 10k facts takes at
most 2.0 times `python -c "import numpy, faiss"` in the same run. Every figure is reported
(and written to benchmarks/output/), never asserted: benchmarks/timing_goals.py checks the
goals with retries. Only correctness is asserted here (results found, counts).
"""

from __future__ import annotations

import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from vm_memory_oracle.clock import format_iso  # noqa: E402
from vm_memory_oracle.embed.bundled import MODEL_ID  # noqa: E402
from vm_memory_oracle.recall import Asked  # noqa: E402

import recall_process  # noqa: E402
from results import record  # noqa: E402
from synthetic import QUERIES, build_memory  # noqa: E402

ROUNDS = 40
ROUNDS_100K = 20  # a recall at 100k facts takes ~0.2 s: fewer rounds keep the suite short


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def pytest_generate_tests(metafunc):
    """1,000 and 10,000 facts in every run; 100,000 (a minute of building) with --long."""
    if "count" in metafunc.fixturenames:
        long_run = metafunc.config.getoption("--long")
        metafunc.parametrize("count", [1_000, 10_000, *([100_000] if long_run else [])])


def test_bench_recall_latency_and_index_build(tmp_path, count, capsys):
    now = datetime.now(timezone.utc).replace(microsecond=0)
    memory = build_memory(tmp_path / "memory", count, model_id=MODEL_ID, stamp=format_iso(now))
    started = time.perf_counter()
    indexes = memory.indexes()
    build_seconds = time.perf_counter() - started
    semantic, report, choice = indexes.semantic, indexes.report.vectors, indexes.choice
    assert report.vectors == count and report.embedded == 0 and choice.note is None

    rounds = ROUNDS if count <= 10_000 else ROUNDS_100K
    queries = [QUERIES[i % len(QUERIES)] + f" {i}" for i in range(rounds)]
    vectors = {
        query: vector for query, vector in zip(queries, semantic.embedder.embed_queries(queries))
    }
    embed_queries = semantic.embedder.embed_queries

    def timed(include_embedding: bool, boost: bool = True) -> list[float]:
        semantic.embedder.embed_queries = (
            embed_queries
            if include_embedding
            else lambda texts: np.vstack([vectors[t] for t in texts])
        )
        took = []
        for query in queries:
            begun = time.perf_counter()
            # As a request does: the indexes found in step, then the recall.
            result = memory.recall([Asked(query, 10)], boost=boost)
            took.append(time.perf_counter() - begun)
            assert result[0].hits
        semantic.embedder.embed_queries = embed_queries
        return took

    timed(True)  # warm: snapshots and the index loaded once, as in a long-lived process
    excluded, included = timed(False), timed(True)
    unboosted = timed(False, boost=False)  # the boost is a durable write: two fsyncs
    info = {
        "facts": count,
        "index_build_s": round(build_seconds, 3),
        "kind": semantic.index.index.kind,
        "p50_ms_without_query_embedding": round(1000 * statistics.median(excluded), 2),
        "p95_ms_without_query_embedding": round(1000 * percentile(excluded, 0.95), 2),
        "p50_ms_with_query_embedding": round(1000 * statistics.median(included), 2),
        "p95_ms_with_query_embedding": round(1000 * percentile(included, 0.95), 2),
        "p50_ms_without_query_embedding_or_boost": round(1000 * statistics.median(unboosted), 2),
    }
    record(f"recall_latency_{count}", info)
    with capsys.disabled():
        print(
            f"\n{count} facts: index build {info['index_build_s']} s"
            f" ({info['kind']}); recall p50/p95 "
            f"{info['p50_ms_without_query_embedding']}/{info['p95_ms_without_query_embedding']} ms "
            f"without query embedding, {info['p50_ms_with_query_embedding']}/"
            f"{info['p95_ms_with_query_embedding']} ms with it; p50 "
            f"{info['p50_ms_without_query_embedding_or_boost']} ms without embedding or boost"
        )


def test_bench_recall_process_against_importing_numpy_and_faiss(tmp_path, capsys, request):
    """Reported, not asserted: a timing depends on what else the machine does
    (benchmarks/timing_goals.py checks the goal, with retries, for a person to read). The
    suite takes 7 rounds of each process, --long the 21 the goal's own check takes."""
    rounds = 21 if request.config.getoption("--long") else 7
    now = datetime.now(timezone.utc).replace(microsecond=0)
    data = tmp_path / "memory"
    build_memory(data, 10_000, model_id=MODEL_ID, stamp=format_iso(now))
    figures = recall_process.measure(data, rounds)
    assert figures.rounds == rounds and figures.recall_median_s > 0
    path = record(
        "recall_process",
        {
            "facts": 10_000,
            "rounds": figures.rounds,
            "recall_median_s": round(figures.recall_median_s, 3),
            "import_numpy_faiss_median_s": round(figures.import_median_s, 3),
            "ratio": round(figures.ratio, 2),
            "goal_ratio_at_most": 2.0,
        },
    )
    with capsys.disabled():
        print(
            f"\nrecall process at 10k facts: median {figures.recall_median_s:.3f} s; "
            f"python -c 'import numpy, faiss': median {figures.import_median_s:.3f} s; "
            f"ratio {figures.ratio:.2f} (goal at most 2.0; {path})"
        )
