"""What searching the dormant tier costs, beside an ordinary recall, in one run.

A synthetic memory (benchmarks/synthetic.py: generated facts, vectors filed in the embedding
cache as the bundled model's, queries embedded by the real model) of --facts active facts
and as many more pruned into the archive, the archived ones on topics no active fact has.
An ordinary recall asks of a topic the active facts answer; a dormant recall asks of one
only the archive holds, so recall searches the facts under the threshold and the archive
by words and meaning (recall/dormant.py, recall/archive.py). Both are timed taking turns,
--rounds times each query:
- in one process holding the indexes, as the plugin's recall process does (recall_many with
  the indexes brought in step once), the first dormant recall (which reads the archive
  tier) timed apart;
- as a `recall --no-boost` command, the process a cron job or an agent's exec runs.
The goal: a dormant recall at most 2x an ordinary one at 10,000 facts with 10,000 archived.

    .venv/bin/python benchmarks/dormant_cost.py [--facts 10000] [--rounds 20] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from million import timed  # noqa: E402
from vm_memory_oracle.clock import parse_iso  # noqa: E402
from vm_memory_oracle.config import Settings  # noqa: E402
from vm_memory_oracle.embed.bundled import BundledEmbedder  # noqa: E402
from vm_memory_oracle.memory import Memory  # noqa: E402
from vm_memory_oracle.recall import Asked, recall_many  # noqa: E402
from vm_memory_oracle.storage import snapshot  # noqa: E402

import synthetic  # noqa: E402
from results import record  # noqa: E402

GOAL = 2.0
STAMP = "2026-05-15T00:00:00Z"
NOW = "2026-05-16T00:00:00Z"
ARCHIVED_TOPICS = ("violin lessons", "peanut allergy", "北京出差")
ORDINARY = ["tell me about the hiking trip", "which database migration was decided"]
DORMANT = ["what about the violin lessons", "北京出差的安排"]


def build(directory: Path, facts: int) -> Memory:
    """The memory: `facts` active ones and `facts` more archived as pruned, the archived
    ones on ARCHIVED_TOPICS only, every vector in the embedding cache."""
    model = BundledEmbedder()
    made = synthetic.build_memory(
        directory, 2 * facts, model_id=model.model_id, dimension=model.dimension
    )
    store = made.store()
    every = made.graph().facts()
    archived = [fact for fact in every if fact.object.rsplit(" item ", 1)[0] in ARCHIVED_TOPICS]
    on_topic = {fact.id for fact in archived}  # a set: 200,000 facts against 27,000
    others = [fact for fact in every if fact.id not in on_topic]
    archived = (archived + others[: max(0, facts - len(archived))])[:facts]
    gone = {fact.id for fact in archived}
    kept = [fact for fact in every if fact.id not in gone]
    layout = made.layout()
    with store.locked("benchmark"):
        lines = []
        for fact in archived:
            line = fact.to_record()
            line.update(
                archived_at=NOW,
                archive_reason="pruned: activation 0.04 below prune_threshold 0.05",
                final_activation=0.04,
            )
            lines.append(json.dumps(line, ensure_ascii=False) + "\n")
        layout.archive.write_text("".join(lines), encoding="utf-8")
        layout.facts.write_text(
            "".join(json.dumps(fact.to_record(), ensure_ascii=False) + "\n" for fact in kept),
            encoding="utf-8",
        )
    snapshot.forget_memory()
    memory = Memory.open(directory, Settings(lock_timeout_seconds=60), now=parse_iso(NOW))
    memory.indexes()
    return memory


def in_process(memory: Memory, rounds: int) -> dict:
    """Seconds per recall in one process holding the indexes: ordinary and dormant, taking
    turns; the first dormant recall (reading the archive tier) apart."""
    snapshot.forget_memory()
    indexes = memory.indexes()
    graph, now = indexes.graph, memory.now

    def once(query: str) -> tuple[float, list]:
        begun = time.perf_counter()
        found = recall_many(graph, [Asked(query)], now, boost=False, indexes=indexes)
        return time.perf_counter() - begun, list(found.sets[0].hits)

    once(ORDINARY[0])  # the query model and the active indexes, read
    first, hits = once(DORMANT[0])
    assert any("archive" in hit.matched for hit in hits), "the archive answered nothing"
    ordinary, dormant = [], []
    for number in range(rounds):
        ordinary.append(once(ORDINARY[number % len(ORDINARY)])[0])
        dormant.append(once(DORMANT[number % len(DORMANT)])[0])
    return {
        "ordinary_ms": round(1000 * statistics.median(ordinary), 2),
        "dormant_ms": round(1000 * statistics.median(dormant), 2),
        "first_dormant_ms": round(1000 * first, 1),
        "ratio": round(statistics.median(dormant) / statistics.median(ordinary), 2),
    }


def by_command(directory: Path, rounds: int) -> dict:
    """Seconds per `recall --no-boost` command, ordinary and dormant, taking turns."""
    ordinary, dormant = [], []
    for number in range(rounds):
        for query, times in (
            (ORDINARY[number % len(ORDINARY)], ordinary),
            (DORMANT[number % len(DORMANT)], dormant),
        ):
            seconds, _, _ = timed(
                "--data-path", str(directory), "--now", NOW,
                "--action", "recall", "--query", query, "--no-boost",
            )  # fmt: skip
            times.append(seconds)
    return {
        "ordinary_s": round(statistics.median(ordinary), 3),
        "dormant_s": round(statistics.median(dormant), 3),
        "ratio": round(statistics.median(dormant) / statistics.median(ordinary), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10_000, help="active, and as many archived")
    parser.add_argument("--rounds", type=int, default=20, help="recalls of each kind")
    parser.add_argument("--commands", type=int, default=5, help="recall commands of each kind")
    parser.add_argument("--workdir", type=Path, help="where the memory is made (kept)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        directory = (args.workdir or Path(scratch)) / f"memory-{args.facts}"
        memory = build(directory, args.facts)
        figures = {
            "facts": args.facts,
            "archived": len(memory.graph().archived_facts()),
            "in_process": in_process(memory, args.rounds),
            "by_command": by_command(directory, args.commands),
            "goal_ratio": GOAL,
        }
    figures["met"] = figures["in_process"]["ratio"] <= GOAL
    path = record("dormant_cost", figures)
    process, command = figures["in_process"], figures["by_command"]
    print(f"{args.facts} active facts, {figures['archived']} archived ({path})")
    print(f"| recall | ordinary | dormant | ratio (goal at most {GOAL:g}x) |")
    print("|---|---|---|---|")
    print(
        f"| in a process holding the indexes | {process['ordinary_ms']} ms | "
        f"{process['dormant_ms']} ms | {process['ratio']}x |"
    )
    print(
        f"| a recall command | {command['ordinary_s']} s | {command['dormant_s']} s | "
        f"{command['ratio']}x |"
    )
    first = process["first_dormant_ms"]
    print(f"first dormant recall in the process (reads the archive tier): {first} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
