"""memory_search through the OpenClaw plugin, against recall as a new process, in one run.

A synthetic memory of --facts facts (synthetic.py: real facts, vectors made without the
model; queries embedded by the real model) is searched --queries times through the plugin's
own tool code, run by Node as OpenClaw's host runs it (plugin_driver.mjs): each search a
round trip from the tool to the plugin's long-lived recall process (`--action serve`) and
back. Beside it, in the same run, the skill's way: `scripts/vm-memory-oracle --action recall`
as a process, --rounds times. Goal: a search round trip at 10,000 facts of at most 50 ms p50.

    .venv/bin/python benchmarks/plugin_search.py [--facts 10000] [--queries 200] [--rounds 9]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vm_memory_oracle.embed.bundled import MODEL_ID  # noqa: E402

from results import TEST_CACHE, machine, record  # noqa: E402
from synthetic import QUERIES, build_memory  # noqa: E402

BUNDLE = Path(__file__).resolve().parents[1]
DRIVER = BUNDLE / "benchmarks" / "plugin_driver.mjs"
ENTRYPOINT = BUNDLE / "scripts" / "vm-memory-oracle"
NOW = "2026-05-15T12:00:00Z"
GOAL_P50_MS = 50.0


def node() -> str:
    """Node 24: on PATH, else the one the OpenClaw tests install."""
    for candidate in (
        shutil.which("node"),
        TEST_CACHE / "node24" / "node_modules" / ".bin" / "node",
    ):
        if candidate and Path(candidate).exists():
            version = subprocess.run([str(candidate), "--version"], capture_output=True, text=True)
            if version.stdout.startswith("v24."):
                return str(candidate)
    raise SystemExit("Error: Node 24 not found (on PATH, or installed by the OpenClaw tests)")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def through_plugin(data: Path, searches: int) -> dict:
    config = {"dataPath": str(data), "bundlePath": str(BUNDLE)}
    queries = [QUERIES[number % len(QUERIES)] for number in range(searches)]
    steps = [
        {"timed": [{"tool": "memory_search", "params": {"query": QUERIES[0]}}]},  # starts it
        {"timed": [{"tool": "memory_search", "params": {"query": query}} for query in queries]},
    ]
    done = subprocess.run(
        [node(), str(DRIVER), json.dumps(config), json.dumps(steps)],
        capture_output=True,
        text=True,
        env={**os.environ, "MEMORY_ORACLE_NOW": NOW},
        timeout=3600,
    )
    if done.returncode != 0:
        raise SystemExit(f"Error: the plugin driver failed: {done.stderr.strip()[-2000:]}")
    first, timed = (json.loads(line) for line in done.stdout.splitlines())
    if min(timed["hits"]) < 0:
        raise SystemExit("Error: a search through the plugin failed")
    return {
        "searches": searches,
        "first_search_s": round(first["ms"][0] / 1000, 2),
        "p50_ms": round(statistics.median(timed["ms"]), 1),
        "p90_ms": round(percentile(timed["ms"], 0.9), 1),
        "mean_ms": round(statistics.fmean(timed["ms"]), 1),
        "hits_mean": round(statistics.fmean(timed["hits"]), 2),
    }


def as_processes(data: Path, rounds: int) -> dict:
    seconds = []
    for number in range(rounds):
        begun = time.perf_counter()
        subprocess.run(
            [str(ENTRYPOINT), "--data-path", str(data), "--now", NOW, "--action", "recall"]
            + ["--query", QUERIES[number % len(QUERIES)]],
            capture_output=True,
            check=True,
        )
        seconds.append(time.perf_counter() - begun)
    return {"rounds": rounds, "median_ms": round(statistics.median(seconds) * 1000, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200, help="searches through the plugin")
    parser.add_argument("--rounds", type=int, default=9, help="recall processes beside them")
    parser.add_argument("--workdir", type=Path, help="where the memory is made (kept)")
    parser.add_argument("--json", action="store_true", help="print the JSON, not the table")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="plugin-search-"))
    data = workdir / f"memory-{args.facts}"
    if not (data / "knowledge-graph" / "facts.jsonl").is_file():
        shutil.rmtree(data, ignore_errors=True)
        build_memory(data, args.facts, model_id=MODEL_ID, stamp=NOW)
    plugin = through_plugin(data, args.queries)
    process = as_processes(data, args.rounds)
    figures = {
        "facts": args.facts,
        "plugin": plugin,
        "recall_process": process,
        "process_over_plugin": round(process["median_ms"] / plugin["p50_ms"], 1),
        "goal_p50_ms": GOAL_P50_MS,
        "machine": machine(),
    }
    path = record(f"plugin_search-{args.facts}", figures)
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"{args.facts} facts: memory_search through the plugin p50 {plugin['p50_ms']} ms, "
            f"p90 {plugin['p90_ms']} ms ({plugin['searches']} searches, "
            f"{plugin['hits_mean']} hits each; first {plugin['first_search_s']} s); "
            f"recall as a process {process['median_ms']} ms "
            f"({figures['process_over_plugin']}x); goal p50 <= {GOAL_P50_MS} ms ({path})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
