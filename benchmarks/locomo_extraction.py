"""How much of LoCoMo's evidence survives extraction: the sources of the extracted facts.

For each question of categories 1-4, the share of its evidence turns that at least one
extracted fact cites as its source, averaged over questions (LoCoMo's recall_acc, applied to
extraction); also the share of distinct evidence turns covered. Run:
    .venv/bin/python benchmarks/locomo_extraction.py [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "skill"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vm_memory_oracle.config import Settings  # noqa: E402
from vm_memory_oracle.memory import Memory  # noqa: E402
from vm_memory_oracle.storage.layout import Layout  # noqa: E402

from locomo import load_dataset, write_sessions  # noqa: E402


@dataclass
class Coverage:
    conversations: int
    turns: int
    questions: int
    facts: int
    question_coverage: float  # mean over questions of the covered share of their evidence
    turn_coverage: float  # covered distinct evidence turns / all distinct evidence turns
    seconds: float


def measure(workdir: Path, settings: Settings | None = None) -> Coverage:
    # Which facts are kept does not depend on the embedder (salience only orders and
    # weighs them): the hashing one spares embedding every statement for nothing.
    settings = replace(settings or Settings(embedding_model="hash"), lock_timeout_seconds=30)
    started = time.perf_counter()
    per_question, covered_turns, all_turns = [], set(), set()
    total_turns = total_facts = 0
    samples = load_dataset()
    for sample in samples:
        layout = Layout(workdir / sample["sample_id"])
        Memory.open(layout.root, settings).init()
        conversation = write_sessions(sample, layout.sessions_dir)
        total_turns += len(conversation.turn_sources)
        now = conversation.last_time + timedelta(hours=1)
        memory = Memory.open(layout.root, settings, now=now)
        memory.summarize(all_pending=True)
        graph = memory.graph()
        facts = graph.facts()
        total_facts += len(facts)
        sources = {fact.source for fact in facts}
        sources |= {archived.fact.source for archived in graph.archived_facts()}
        for qa in conversation.questions:
            hits = [dia for dia in qa["evidence"] if conversation.turn_sources[dia] in sources]
            per_question.append(len(hits) / len(qa["evidence"]))
            for dia in qa["evidence"]:
                key = (sample["sample_id"], dia)
                all_turns.add(key)
                if dia in hits:
                    covered_turns.add(key)
    return Coverage(
        len(samples),
        total_turns,
        len(per_question),
        total_facts,
        round(sum(per_question) / len(per_question), 4),
        round(len(covered_turns) / len(all_turns), 4),
        round(time.perf_counter() - started, 2),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as workdir:
        result = measure(Path(workdir))
    if args.json:
        print(json.dumps(result.__dict__))
    else:
        print(
            f"LoCoMo dev: {result.conversations} conversations, {result.turns} turns, "
            f"{result.questions} questions (categories 1-4), {result.facts} active facts"
        )
        print(
            f"evidence covered by extracted facts: {result.question_coverage:.1%} per question, "
            f"{result.turn_coverage:.1%} of distinct evidence turns ({result.seconds:.1f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
