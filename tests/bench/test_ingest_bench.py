"""Benchmarks: ingesting 10,000 facts and recalling from them, through the real entrypoint.

Goal: `remember --from` of 10,000 facts under 10 s on the project's
2-core machine. The figure is printed and written to benchmarks/output/, not asserted
(benchmarks/timing_goals.py checks it).
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import pytest

from conftest import cache_random_vectors, run_entrypoint, write_jsonl

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from results import record, timed  # noqa: E402

SUBJECTS = ["user", "team", "billing service", "deployment project", "用户", "Alice", "Bob"]
PREDICATES = ["mentioned", "prefers", "worked on", "asked about", "喜欢", "decided", "visited"]


def ten_thousand_facts() -> list[dict]:
    return [
        {
            "subject": SUBJECTS[i % len(SUBJECTS)],
            "predicate": PREDICATES[i % len(PREDICATES)],
            "object": f"topic number {i} of the week {i // 70}",
            "text": f"{SUBJECTS[i % len(SUBJECTS)]} {PREDICATES[i % len(PREDICATES)]} "
            f"topic number {i} of the week {i // 70}",
            "importance": round((i % 10) / 10, 1),
        }
        for i in range(10_000)
    ]


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    return write_jsonl(tmp_path_factory.mktemp("bench") / "facts.jsonl", ten_thousand_facts())


def test_bench_remember_from_10000_facts(source, tmp_path):
    rounds = itertools.count()

    def fresh_directory():
        return (tmp_path / f"memory-{next(rounds)}",)

    def ingest(data):
        result = run_entrypoint(
            "--data-path", str(data), "--json", "--action", "remember", "--from", str(source)
        )
        assert result.returncode == 0, result.stderr
        return data

    run = timed(ingest, setup=fresh_directory, rounds=3)
    data = run.result
    lines = (data / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    assert len(lines) == 10_000
    record("remember_10000", {"median_s": round(run.median, 3), "goal_s_under": 10})


def test_bench_recall_over_10000_facts(source, tmp_path):
    """Recall once the index is built; the facts' vectors come from the embedding cache
    (random, benchmarks/synthetic.py) so the setup does not spend two minutes embedding."""
    data = tmp_path / "memory"
    assert (
        run_entrypoint(
            "--data-path", str(data), "--action", "remember", "--from", str(source)
        ).returncode
        == 0
    )
    cache_random_vectors(data)
    assert run_entrypoint("--data-path", str(data), "--action", "reindex").returncode == 0

    def recall():
        result = run_entrypoint(
            "--data-path",
            str(data),
            "--json",
            "--action",
            "recall",
            "--query",
            "what did the team decide about topic number 4242",
            "--no-boost",
        )
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    run = timed(recall, rounds=3)
    assert run.result["results"][0]["object"] == "topic number 4242 of the week 60"
    record("recall_10000_process", {"median_s": round(run.median, 3)})
