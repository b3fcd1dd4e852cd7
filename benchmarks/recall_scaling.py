"""Recall's cost as the memory grows, through the command line as a user meets it, in one run.

Three synthetic memories (benchmarks/synthetic.py, the hashing embedder) of --sizes facts
are made with `remember --from` and a first recall that builds every index. Then, taking
turns so that all see the same load on the machine, each memory is asked by a `recall
--queries` process of --queries queries and by a process of one query, --runs times each.
Reported per size: the per-query cost (a --queries process's wall time over its queries),
the marginal cost of a query (that time less the one-query process's, over the queries
after the first), the one-query process, the peak RSS of the --queries process, and a
`reindex` per fact; and, as ratios, what the goals name:
  per-query cost at the largest at most 3x the smallest's, at the middle at most 1.5x, and
  the same of the marginal cost;
  peak RSS of a --queries recall at the largest at most 500 MB;
  an index rebuild (`reindex`, vectors from the cache) per fact at the largest at most
  1.5x that at the middle.
Figures are reported, never asserted. Run:
    .venv/bin/python benchmarks/recall_scaling.py [--sizes 1000,10000,100000]
        [--queries 200] [--runs 3] [--workdir DIR]
Figures go to benchmarks/output/recall_scaling.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from million import timed  # noqa: E402

import results  # noqa: E402
import synthetic  # noqa: E402

QUERY_GOAL = {"largest": 3.0, "middle": 1.5}  # per-query cost, times the smallest memory's
RSS_GOAL_MB = 500
REBUILD_GOAL = 1.5  # index rebuild per fact, the largest memory against the middle one


def build(directory: Path, count: int) -> Path:
    """A memory of `count` synthetic facts with every index built; returns its data path."""
    directory.mkdir(parents=True, exist_ok=True)
    source = directory / "facts.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for line in synthetic.fact_lines(count):
            handle.write(json.dumps(line) + "\n")
    data = directory / "memory"
    base = ("--data-path", str(data))
    timed(*base, "--action", "init")
    for setting in ("embedding_model=hash", f"max_facts={2 * count}"):
        timed(*base, "--action", "config", "--set", setting)
    timed(*base, "--action", "remember", "--from", str(source))
    timed(*base, "--action", "recall", "--query", synthetic.QUERIES[0])  # builds the indexes
    return data


def query_files(directory: Path, count: int) -> tuple[Path, Path]:
    many, one = directory / "queries.jsonl", directory / "one-query.jsonl"
    asked = [synthetic.QUERIES[i % len(synthetic.QUERIES)] + f" {i}" for i in range(count)]
    many.write_text("".join(json.dumps({"query": query}) + "\n" for query in asked))
    one.write_text(json.dumps({"query": asked[0]}) + "\n")
    return many, one


def measure(sizes: list[int], queries: int, runs: int, workdir: Path) -> dict:
    workdir.mkdir(parents=True, exist_ok=True)
    many, one = query_files(workdir, queries)
    memories = {size: build(workdir / f"facts-{size}", size) for size in sizes}
    seen: dict[int, dict[str, list]] = {
        size: {"many": [], "one": [], "rss": [], "rebuild": []} for size in sizes
    }
    for attempt in range(runs):
        order = sizes if attempt % 2 == 0 else sizes[::-1]
        for size in order:
            base = ("--data-path", str(memories[size]), "--json", "--action", "recall")
            seconds, rss, _ = timed(*base, "--queries", str(many))
            seen[size]["many"].append(seconds)
            seen[size]["rss"].append(rss)
            seen[size]["one"].append(timed(*base, "--queries", str(one))[0])
            reindex = ("--data-path", str(memories[size]), "--json", "--action", "reindex")
            seen[size]["rebuild"].append(timed(*reindex)[0])
    figures: dict = {"queries": queries, "runs": runs, "sizes": {}}
    for size in sizes:
        whole = statistics.median(seen[size]["many"])
        alone = statistics.median(seen[size]["one"])
        figures["sizes"][str(size)] = {
            "per_query_ms": round(1000 * whole / queries, 2),
            "marginal_query_ms": round(1000 * (whole - alone) / max(1, queries - 1), 2),
            "one_query_process_s": round(alone, 3),
            "queries_process_s": round(whole, 3),
            "peak_rss_mb": max(seen[size]["rss"]),
            "rebuild_us_per_fact": round(1e6 * statistics.median(seen[size]["rebuild"]) / size, 1),
        }
    for measure in ("per_query", "marginal_query"):
        smallest = figures["sizes"][str(sizes[0])][f"{measure}_ms"]
        figures[f"{measure}_ratio"] = {  # None: no cost measured at the smallest (tiny runs)
            str(size): round(figures["sizes"][str(size)][f"{measure}_ms"] / smallest, 2)
            if smallest > 0
            else None
            for size in sizes[1:]
        }
    if len(sizes) >= 2:
        middle, largest = (figures["sizes"][str(size)] for size in sizes[-2:])
        figures["rebuild_ratio"] = round(
            largest["rebuild_us_per_fact"] / middle["rebuild_us_per_fact"], 2
        )
    return figures


def render(figures: dict, sizes: list[int]) -> str:
    lines = [f"recall through the command line, {figures['queries']} queries a process, "]
    lines[0] += f"median of {figures['runs']} runs"
    for size in sizes:
        row = figures["sizes"][str(size)]
        lines.append(
            f"  {size:>9,} facts: {row['per_query_ms']:.2f} ms a query "
            f"(marginal {row['marginal_query_ms']:.2f} ms), one-query process "
            f"{row['one_query_process_s']:.2f} s, peak RSS {row['peak_rss_mb']} MB"
        )
    if len(sizes) >= 2:
        goals = dict(zip(sizes[1:][::-1], ("largest", "middle")))
        for measure, name in (("per_query", "per-query"), ("marginal_query", "marginal")):
            for size in sizes[1:]:
                goal = QUERY_GOAL.get(goals.get(size, ""))
                ratio = figures[f"{measure}_ratio"][str(size)]
                lines.append(
                    f"  {name} cost at {size:,} / at {sizes[0]:,}: "
                    + ("not measured" if ratio is None else f"{ratio:.2f}")
                    + (f" (goal at most {goal})" if goal else "")
                )
    largest = figures["sizes"][str(sizes[-1])]["peak_rss_mb"]
    lines.append(f"  peak RSS at {sizes[-1]:,}: {largest} MB (goal at most {RSS_GOAL_MB})")
    if "rebuild_ratio" in figures:
        per_fact = ", ".join(
            f"{figures['sizes'][str(size)]['rebuild_us_per_fact']} us at {size:,}" for size in sizes
        )
        lines.append(
            f"  index rebuild (reindex) per fact: {per_fact}; at {sizes[-1]:,} / at "
            f"{sizes[-2]:,}: {figures['rebuild_ratio']:.2f} (goal at most {REBUILD_GOAL})"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="kept; else a temporary directory")
    args = parser.parse_args(argv)
    sizes = sorted(int(size) for size in args.sizes.split(","))
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="recall-scaling-"))
    try:
        figures = measure(sizes, args.queries, args.runs, workdir)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print(render(figures, sizes))
    print(results.record("recall_scaling", figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
