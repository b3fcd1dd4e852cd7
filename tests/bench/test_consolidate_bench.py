"""Benchmarks: the nightly consolidation of 10,000 facts, through the real entrypoint.

Goals, on the project's 2-core machine: consolidating 10,000 facts
with nothing new under 5 s; with 1,000 new facts and the default (bundled) embedder under
60 s. The figures are printed and written to benchmarks/output/, not asserted
(benchmarks/timing_goals.py checks them).

The 10,000 facts get their vectors from the embedding cache (random unit vectors filed
under each fact's content hash, benchmarks/synthetic.py), so the setup does not spend two
minutes embedding; the 1,000 new facts are embedded by the real model.
"""

from __future__ import annotations

import itertools
import json
import shutil
import sys
import time
from pathlib import Path

import pytest

from conftest import run_entrypoint, write_jsonl

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from results import record, timed  # noqa: E402


def _stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@pytest.fixture(scope="module")
def consolidated(tmp_path_factory):
    """10,000 facts learned today, consolidated once (index built, MEMORY.md written)."""
    from vm_memory_oracle.embed.bundled import MODEL_ID

    from synthetic import build_memory

    data = tmp_path_factory.mktemp("bench") / "memory"
    build_memory(data, 10_000, model_id=MODEL_ID, stamp=_stamp())
    result = run_entrypoint("--data-path", str(data), "--json", "--action", "consolidate")
    assert result.returncode == 0, result.stderr
    return data


def consolidate(data: Path) -> dict:
    result = run_entrypoint("--data-path", str(data), "--json", "--action", "consolidate")
    assert result.returncode == 0, result.stderr
    return {step["name"]: step for step in json.loads(result.stdout)["steps"]}


def test_bench_consolidate_10000_facts_with_nothing_new(consolidated):
    run = timed(consolidate, args=(consolidated,), rounds=3)
    steps = run.result
    assert steps["index"]["counts"] == {
        "vectors": 10_000,
        "embedded": 0,
        "from_cache": 0,
        "added": 0,
        "removed": 0,
        "documents": 10_000,
        "episodes": 0,  # facts remembered, no conversation: nothing to index or embed
        "episodes_added": 0,
        "episodes_embedded": 0,
    }
    assert steps["merge"]["counts"]["merged"] == 0
    assert steps["prune"]["counts"]["archived"] == 0
    assert steps["memory_md"]["counts"]["added"] == 0
    record(
        "consolidate_10000_nothing_new",
        {"median_s": round(run.median, 3), "goal_s_under": 5},
    )


def test_bench_consolidate_10000_facts_and_1000_new_with_the_default_embedder(
    consolidated, tmp_path
):
    new_facts = write_jsonl(
        tmp_path / "new.jsonl",
        [
            {
                "subject": "user",
                "predicate": "noted",
                "object": f"fresh detail {n} about the garden",
                "text": f"The user noted fresh detail {n} about the garden",
            }
            for n in range(1000)
        ],
    )
    rounds = itertools.count()

    def with_new_facts():
        data = tmp_path / f"memory-{next(rounds)}"
        shutil.copytree(consolidated, data)
        result = run_entrypoint(
            "--data-path", str(data), "--action", "remember", "--from", str(new_facts)
        )
        assert result.returncode == 0, result.stderr
        return (data,)

    run = timed(consolidate, setup=with_new_facts, rounds=1)
    steps = run.result
    assert steps["index"]["counts"]["embedded"] == 1000
    assert steps["index"]["counts"]["vectors"] == 11_000
    assert steps["merge"]["counts"]["merged"] == 0  # "fresh detail 5" is not "... 7"
    record(
        "consolidate_10000_and_1000_new",
        {"seconds": round(run.median, 3), "goal_s_under": 60},
    )
