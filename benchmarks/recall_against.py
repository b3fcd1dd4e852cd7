"""Recall latency at 10,000 facts of this tree against another revision's, in one run.

Each revision is checked out in a git worktree and measured in a process of its own, the
two taking turns (--tries times each), on a synthetic memory each builds with its own code
(benchmarks/synthetic.py) in its first try and reads again in the later ones, so that many
tries, which the noise of a shared machine needs, cost little more than one. A measurement
is the p50 of ROUNDS in-process recalls after a warm-up, without the query embedding and
without the boost, of the synthetic queries as they are and with a time named ("... last
month"), each with the check that the indexes are in step, as a request makes it. Figures
are reported, never asserted:
    .venv/bin/python benchmarks/recall_against.py --base REV [--tries 3] [--count 10000]
The goal it reports on: at most 1.2 times the base revision's p50.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from revisions import checked_out

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent
ROUNDS = 60
BUILT = ".built"  # marks a memory the worker made, kept for the later tries
GOAL = 1.2


def worker(tree: Path, data: Path, count: int, rounds: int = ROUNDS) -> dict:
    """Measure the code of `tree` (run in a process whose path starts there)."""
    sys.path[:0] = [str(tree / "skill"), str(tree / "benchmarks")]
    from datetime import datetime, timezone

    import numpy as np
    from vm_memory_oracle.clock import format_iso
    from vm_memory_oracle.config import Settings
    from vm_memory_oracle.embed.bundled import MODEL_ID

    from synthetic import QUERIES, build_memory

    in_step, recall = _library()

    now = datetime.now(timezone.utc).replace(microsecond=0)
    built = data / BUILT
    if built.exists():  # made by this tree's code in an earlier try: the same memory
        from vm_memory_oracle.graph import KnowledgeGraph
        from vm_memory_oracle.storage.layout import Layout
        from vm_memory_oracle.storage.store import Store

        store = Store(Layout(data), lock_timeout=60, timestamp=format_iso(now))
        graph = KnowledgeGraph(store, Settings())
    else:
        made = build_memory(data, count, model_id=MODEL_ID, stamp=format_iso(now))
        # A revision with the front door gives the memory, one before it the graph.
        graph = made.graph() if callable(getattr(made, "graph", None)) else made
        built.touch()
    semantic = in_step(graph).semantic
    kinds = {"plain": "", "time_named": " last month"}
    queries = {
        name: [QUERIES[i % len(QUERIES)] + f" {i}{suffix}" for i in range(rounds)]
        for name, suffix in kinds.items()
    }
    every = [query for listed in queries.values() for query in listed]
    vectors = dict(zip(every, semantic.embedder.embed_queries(every)))
    semantic.embedder.embed_queries = lambda texts: np.vstack([vectors[t] for t in texts])
    figures = {}
    for name in kinds:
        took: list[float] = []
        for _ in range(2):  # the first round warms snapshots and caches
            took = []
            for query in queries[name]:
                begun = time.perf_counter()
                results = recall(graph, query, now)
                took.append(time.perf_counter() - begun)
                assert results, query
        figures[name] = 1000 * statistics.median(took)
    return figures


def _library():
    """(bring the indexes in step, recall one query's results) of the tree imported, each
    as a request of the recall process does it: the indexes found in step, then the
    recall."""
    from vm_memory_oracle.indexes import bring_in_step
    from vm_memory_oracle.recall import Asked, recall_many

    def recall(graph, query, now):
        asked = [Asked(query, 10)]
        found = recall_many(graph, asked, now, indexes=bring_in_step(graph), boost=False)
        return found[0].hits

    return bring_in_step, recall


def measure(tree: Path, data: Path, count: int, rounds: int) -> dict:
    """One try of `tree` in a process of its own, on its memory in `data` (built by the
    first try, then read as a recall process of a later day would read it)."""
    data.mkdir(exist_ok=True)
    done = subprocess.run(
        [
            *(sys.executable, __file__, "--worker", str(tree), str(data)),
            *("--count", str(count), "--rounds", str(rounds)),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="the revision to measure against")
    parser.add_argument("--tries", type=int, default=3)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument(
        "--rounds", type=int, default=ROUNDS, help="recalls of each kind of query in a try"
    )
    parser.add_argument("--worker", nargs=2, metavar=("TREE", "DATA"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        tree, data = Path(args.worker[0]), Path(args.worker[1])
        print(json.dumps(worker(tree, data, args.count, args.rounds)))
        return 0
    if not args.base:
        parser.error("--base REV is needed")
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        with checked_out(args.base, scratch / "base") as base_tree:
            runs: dict[str, list[dict]] = {"base": [], "this": []}
            for attempt in range(args.tries):
                order = [("base", base_tree), ("this", REPOSITORY)]
                for name, tree in order if attempt % 2 == 0 else order[::-1]:
                    runs[name].append(
                        measure(tree, scratch / f"memory-{name}", args.count, args.rounds)
                    )
    print(f"recall p50 at {args.count} facts, without query embedding or boost, {args.tries} runs")
    for kind in ("plain", "time_named"):
        base = statistics.median(run[kind] for run in runs["base"])
        this = statistics.median(run[kind] for run in runs["this"])
        print(
            f"  {kind:<10} base {args.base}: {base:.2f} ms; this tree: {this:.2f} ms; "
            f"ratio {this / base:.2f} (goal at most {GOAL})"
            + "\n    runs: base "
            + ", ".join(f"{run[kind]:.2f}" for run in runs["base"])
            + "; this "
            + ", ".join(f"{run[kind]:.2f}" for run in runs["this"])
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
