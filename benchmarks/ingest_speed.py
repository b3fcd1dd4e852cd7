"""Ingest at the speed of the model: a LongMemEval haystack's summarize and index, beside one
pass of the bundled model over the texts they embedded, in one run.

1. A haystack (benchmarks/longmemeval.py: each session a dated session log) goes through
   summarize and the index step, each timed, every text the model embeds recorded.
2. The consolidation that follows (the nightly job: merge, health check, ...) and a recall
   are run too, recording what they embed: no text may be embedded twice across them.
3. The texts embedded are embedded once more, all in one call, by a fresh model: the floor,
   one pass of the model over what must be embedded. The goal: summarize + index at most
   GOAL times that.
4. A day of --day-turns turns (the haystack's first, then the next haystacks', as one day's
   session log) is ingested by a nightly consolidation in a memory of its own, timed (the
   goal: within a minute for 600 turns).

Figures are reported, never asserted. Run:
    .venv/bin/python benchmarks/ingest_speed.py [--question 0977f2af] [--sessions N]
        [--day-turns 600] [--json]
Figures go to benchmarks/output/ingest_speed.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "skill"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vm_memory_oracle.clock import format_iso  # noqa: E402
from vm_memory_oracle.config import Settings  # noqa: E402
from vm_memory_oracle.embed.bundled import BundledEmbedder  # noqa: E402
from vm_memory_oracle.memory import Memory  # noqa: E402
from vm_memory_oracle.recall import Asked  # noqa: E402
from vm_memory_oracle.storage.layout import Layout  # noqa: E402

import results  # noqa: E402
from longmemeval import load_dataset, parse_date, write_haystack  # noqa: E402

GOAL = 2.0  # summarize + index, times one pass of the model over what they embedded
DAY_GOAL_S = 60.0  # a nightly consolidation of a day of DAY_TURNS turns
DAY_TURNS = 600
DEFAULT_QUESTION = "0977f2af"


class Recorder:
    """Every text the bundled model embeds as a passage, by the phase that asked."""

    def __init__(self):
        self.phase = "before"
        self.texts: dict[str, list[str]] = {}
        self._real = BundledEmbedder.embed_passages

    @contextmanager
    def recording(self):
        real = self._real

        def embed_passages(embedder, texts):
            self.texts.setdefault(self.phase, []).extend(texts)
            return real(embedder, texts)

        BundledEmbedder.embed_passages = embed_passages  # type: ignore[method-assign]
        try:
            yield self
        finally:
            BundledEmbedder.embed_passages = real  # type: ignore[method-assign]

    def twice(self) -> int:
        """How many texts were embedded more than once, over every phase."""
        counts = Counter(text for texts in self.texts.values() for text in texts)
        return sum(1 for count in counts.values() if count > 1)


def ingest(question: dict, sessions: dict, root: Path, others: int | None) -> dict:
    layout = Layout(root / "haystack")
    settings = Settings(lock_timeout_seconds=60)
    Memory.open(layout.root, settings).init()
    haystack = write_haystack(question, sessions, layout.sessions_dir, others)
    now = parse_date(question["question_date"])
    memory = Memory.open(layout.root, settings, now=now)
    recorder = Recorder()
    with recorder.recording():
        recorder.phase = "summarize"
        started = time.perf_counter()
        memory.summarize(all_pending=True)
        summarized = time.perf_counter()
        recorder.phase = "index"
        memory.indexes()
        indexed = time.perf_counter()
        recorder.phase = "consolidate"
        Memory.open(layout.root, Settings(), now=now + timedelta(hours=1)).consolidate()
        recorder.phase = "recall"
        Memory.open(layout.root, settings, now=now).recall([Asked(question["question"], 10)])
    embedded = recorder.texts.get("summarize", []) + recorder.texts.get("index", [])
    floor_started = time.perf_counter()
    BundledEmbedder().embed_passages(embedded)  # one pass over what ingest embedded
    floor = time.perf_counter() - floor_started
    ingest_s = indexed - started
    return {
        "question": question["question_id"],
        "turns": len(haystack.turns),
        "summarize_s": round(summarized - started, 2),
        "index_s": round(indexed - summarized, 2),
        "ingest_s": round(ingest_s, 2),
        "embedded_texts": len(embedded),
        "embedded_chars": sum(map(len, embedded)),
        "floor_s": round(floor, 2),
        "ratio": round(ingest_s / floor, 2) if floor else None,
        "embedded_by_phase": {phase: len(texts) for phase, texts in recorder.texts.items()},
        "embedded_twice": recorder.twice(),
    }


def one_day(question: dict, questions: list[dict], sessions: dict, root: Path, turns: int) -> dict:
    """A nightly consolidation of one day's session log of `turns` turns: the haystack's, then
    those of the next questions' haystacks when it has fewer."""
    layout = Layout(root / "day")
    Memory.open(layout.root, Settings()).init()
    order = [question] + [other for other in questions if other is not question]
    taken = dict.fromkeys(session for asked in order for session in asked["haystack_session_ids"])
    said: list[dict] = []
    for session in taken:
        said += sessions[session][: turns - len(said)]
        if len(said) == turns:
            break
    start = parse_date(question["question_date"]).replace(hour=8, minute=0)
    lines = [
        json.dumps(
            {
                "ts": format_iso(start + timedelta(seconds=20 * index)),
                "role": turn["role"],
                "text": turn["content"],
            },
            ensure_ascii=False,
        )
        for index, turn in enumerate(said)
    ]
    log = layout.sessions_dir / f"{start:%Y-%m-%d-%H%M%S}.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    night = start.replace(hour=23, minute=30)
    memory = Memory.open(layout.root, Settings(), now=night)
    started = time.perf_counter()
    report = memory.consolidate()
    seconds = time.perf_counter() - started
    return {"turns": len(said), "consolidate_s": round(seconds, 2), "status": report.status}


def render(figures: dict) -> str:
    ingest_row, day = figures["haystack"], figures["day"]
    return "\n".join(
        [
            f"haystack {ingest_row['question']}: {ingest_row['turns']} turns",
            f"  summarize {ingest_row['summarize_s']:.1f} s + index {ingest_row['index_s']:.1f} s"
            f" = {ingest_row['ingest_s']:.1f} s; the model once over the "
            f"{ingest_row['embedded_texts']} texts they embedded ({ingest_row['embedded_chars']:,}"
            f" characters): {ingest_row['floor_s']:.1f} s; ratio {ingest_row['ratio']}"
            f" (goal at most {GOAL})",
            f"  texts embedded by phase {ingest_row['embedded_by_phase']}; "
            f"embedded more than once: {ingest_row['embedded_twice']} (goal 0)",
            f"a day of {day['turns']} turns, consolidated overnight: {day['consolidate_s']:.1f} s"
            f" (goal within {DAY_GOAL_S:.0f} s for {DAY_TURNS} turns)",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--question", default=DEFAULT_QUESTION, help="a question id or prefix")
    parser.add_argument("--sessions", type=int, help="non-answer sessions kept (else all)")
    parser.add_argument("--day-turns", type=int, default=DAY_TURNS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    data = load_dataset()
    question = next(
        (q for q in data["questions"] if q["question_id"].startswith(args.question)), None
    )
    if question is None:
        parser.error(f"--question {args.question}: no such question in the dataset")
    with tempfile.TemporaryDirectory() as scratch:
        figures = {
            "haystack": ingest(question, data["sessions"], Path(scratch), args.sessions),
            "day": one_day(
                question, data["questions"], data["sessions"], Path(scratch), args.day_turns
            ),
        }
    print(json.dumps(figures) if args.json else render(figures))
    print(results.record("ingest_speed", figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
