"""One memory of a million facts, measured once (outside CI: it takes a quarter of an hour).

Synthetic facts (benchmarks/synthetic.py) with the hashing embedder, through the real
entrypoint: `remember --from` of them all, the first `recall` (which embeds every fact,
builds the vector index, the full-text index and the lexical snapshot), then recall
processes on the built memory (wall time and peak RSS, median of --processes), a first
`consolidate` and a second with nothing new, the nightly `consolidate` after a day of
--turns new turns (a session log it summarizes: what it learns is indexed, decayed, merged
and pruned with the rest), the first recall after them, the in-process p50 of recall in a
warm process (query embedding included: the hashing embedder is cheap), and the disk the
memory takes, part by part. Each command's wall time and peak RSS are reported; the goals
of a million facts: each under 1 GB, the nightly consolidate under 10 minutes. Run:
    .venv/bin/python benchmarks/million.py [--count 1000000] [--workdir /tmp/million]
        [--turns 500]
With --count 100000 it measures the 100,000-fact goals (remember --from under 20 s, a
consolidate with nothing new under 15 s, a recall process under 500 MB).
Figures go to benchmarks/output/million.json (million-<count>.json for another count);
the references keep the last run's.
"""

from __future__ import annotations

import argparse
import calendar
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import results  # noqa: E402
import synthetic  # noqa: E402
from recall_process import BUNDLE, ENTRYPOINT  # noqa: E402

QUERIES = [
    "what does the user prefer",
    "which database migration was decided",
    "用户喜欢什么茶",
    "tell me about the hiking trip",
    "TLS renewal item 4242",
]
WARM = """
import json, statistics, sys, time
sys.path.insert(0, {skill!r})
from vm_memory_oracle.cli import main
import contextlib, io
times = []
for round in range(3):
    for query in {queries!r}:
        started = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(["--data-path", {data!r}, "--json", "--action", "recall",
                         "--query", query, "--no-boost"])
        times.append(time.perf_counter() - started)
        assert code == 0
warm = times[len({queries!r}):]  # the first round loads the snapshots
print(json.dumps({{"p50_ms": statistics.median(warm) * 1000, "rounds": len(warm)}}))
"""


def timed(*args: str) -> tuple[float, int, str]:
    """(seconds, peak RSS in MB, stdout) of one entrypoint run."""
    started = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "RSS_KB %M", str(ENTRYPOINT), *args],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{args} exited {done.returncode}: {done.stderr[-2000:]}")
    rss = int(done.stderr.rsplit("RSS_KB ", 1)[1].split()[0]) // 1024
    return seconds, rss, done.stdout


def disk_mb(path: Path) -> float:
    if path.is_file():
        return round(path.stat().st_size / 2**20, 1)
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20, 1)


# A day's conversation: what the user says (each turn a statement the summarizer can learn
# from) and the assistant's answer.
SAID = (
    "I started taking violin lessons with {name}, my teacher number {n}.",
    "My colleague {name} moved to the Porto office in week {n}.",
    "I prefer oolong tea in the afternoon, at least {n} cups.",
    "We decided to migrate database shard {n} to the new cluster.",
    "{name} reviewed the quarterly report draft {n} yesterday.",
)
NAMES = ("Anna", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana")


def day_of_turns(data: Path, day: time.struct_time, count: int) -> Path:
    """A session log of `count` turns said on `day`, the user's and the assistant's taking
    turns, a few seconds apart from 08:00."""
    stamp = time.strftime("%Y-%m-%d", day)
    path = data / "sessions" / f"{stamp}-080000.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for number in range(count):
        seconds = 8 * 3600 + 20 * number
        moment = f"{stamp}T{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}Z"
        if number % 2 == 0:
            said = SAID[(number // 2) % len(SAID)].format(
                name=NAMES[(number // 2) % len(NAMES)], n=number // 2
            )
            lines.append({"ts": moment, "role": "user", "text": said})
        else:
            lines.append({"ts": moment, "role": "assistant", "text": "Noted, thank you."})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/million"))
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--turns", type=int, default=500, help="the day's turns consolidated")
    args = parser.parse_args(argv)
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    data = args.workdir / "memory"
    source = args.workdir / "facts.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for line in synthetic.fact_lines(args.count):
            handle.write(json.dumps(line) + "\n")
    base = ("--data-path", str(data))
    timed(*base, "--action", "init")
    for setting in ("embedding_model=hash", f"max_facts={2 * args.count}"):
        timed(*base, "--action", "config", "--set", setting)
    figures: dict = {"facts": args.count}
    seconds, rss, _ = timed(*base, "--json", "--action", "remember", "--from", str(source))
    figures["remember_from"] = {"seconds": round(seconds, 1), "rss_mb": rss}
    print(f"remember --from: {seconds:.1f} s, {rss} MB", flush=True)
    seconds, rss, _ = timed(*base, "--json", "--action", "recall", "--query", QUERIES[0])
    figures["first_recall"] = {"seconds": round(seconds, 1), "rss_mb": rss}
    print(f"first recall (builds every index): {seconds:.1f} s, {rss} MB", flush=True)
    runs = [
        timed(*base, "--json", "--action", "recall", "--query", QUERIES[i % len(QUERIES)])
        for i in range(args.processes)
    ]
    figures["recall_process"] = {
        "median_seconds": round(statistics.median(run[0] for run in runs), 2),
        "max_rss_mb": max(run[1] for run in runs),
        "processes": len(runs),
    }
    print(f"recall process: {figures['recall_process']}", flush=True)
    today = time.gmtime()
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", today)
    for name in ("consolidate", "consolidate_again"):  # the second has nothing new to do
        seconds, rss, _ = timed(*base, "--json", "--now", now, "--action", "consolidate")
        figures[name] = {"seconds": round(seconds, 1), "rss_mb": rss}
        print(f"{name}: {seconds:.1f} s, {rss} MB", flush=True)
    # The next night: the day's turns are summarized, and the memory consolidated with them.
    day_of_turns(data, today, args.turns)
    night = time.strftime("%Y-%m-%dT02:00:00Z", time.gmtime(calendar.timegm(today) + 86400))
    seconds, rss, _ = timed(*base, "--json", "--now", night, "--action", "consolidate")
    figures["consolidate_after_a_day"] = {
        "seconds": round(seconds, 1),
        "rss_mb": rss,
        "turns": args.turns,
    }
    print(f"consolidate after a day of {args.turns} turns: {seconds:.1f} s, {rss} MB", flush=True)
    seconds, rss, _ = timed(*base, "--json", "--action", "recall", "--query", QUERIES[1])
    figures["recall_after_consolidate"] = {"seconds": round(seconds, 1), "rss_mb": rss}
    print(f"recall after consolidate: {seconds:.1f} s, {rss} MB", flush=True)
    warm = subprocess.run(
        [
            str(BUNDLE / ".venv" / "bin" / "python"),
            "-c",
            WARM.format(skill=str(BUNDLE / "skill"), queries=QUERIES, data=str(data)),
        ],
        capture_output=True,
        text=True,
    )
    if warm.returncode != 0:
        raise SystemExit(warm.stderr[-2000:])
    figures["in_process"] = json.loads(warm.stdout.strip().splitlines()[-1])
    print(f"in-process: {figures['in_process']}", flush=True)
    figures["disk_mb"] = {
        "total": disk_mb(data),
        "facts.jsonl": disk_mb(data / "knowledge-graph" / "facts.jsonl"),
        "embeddings/": disk_mb(data / "embeddings"),
        "state/cache/text-index/": disk_mb(data / "state" / "cache" / "text-index"),
        "state/cache/ (snapshots)": round(
            disk_mb(data / "state" / "cache") - disk_mb(data / "state" / "cache" / "text-index"),
            1,
        ),
    }
    print(f"disk: {figures['disk_mb']}", flush=True)
    name = "million" if args.count == 1_000_000 else f"million-{args.count}"
    print(results.record(name, figures))


if __name__ == "__main__":
    main()
