"""A large ChatGPT export brought in: the time and peak memory of `import`, and that the
memory does not grow with the export.

1. An export of --size-mb megabytes is generated into --workdir: conversations of 4 to 40
   messages, shaped as ChatGPT writes them (a mapping of nodes with their metadata, a
   branch edited away now and then, a tool's message, hidden context), the person stating
   facts among small talk, spread over two years.
2. `import --dry-run` reads it through in a child process (the real command line), timed,
   its peak resident memory taken from the kernel (wait4); the same for an export of one
   conversation, the floor: what the process holds whatever the export.
3. With --learn, `import` learns it into a fresh memory (the `hash` embedder), timed, with
   its peak memory, the facts learned and the commits made; then a `reindex` of the memory
   it made (its indexes made again from the files: the learn's last step alone), and a
   recall of it, each with its peak memory.

The goal: reading the export bounded by its largest conversation, not by its size (the dry
run of --size-mb within GOAL_RSS_MB of the floor); the learn's peak bounded too, not by the
history's size: its batches hold a batch and the facts learned, the build of the indexes at
its end a chunk of episodes and a segment of their vectors (as the reindex shows). Figures
are reported, never asserted. Run:
    nice -n 19 .venv/bin/python benchmarks/import_scale.py --size-mb 500 [--learn]
        [--workdir /tmp/import-scale] [--keep]
Figures go to benchmarks/output/import_scale-<size>mb.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import record  # noqa: E402

NOW = "2026-06-20T09:00:00Z"
START = 1_700_000_000  # 2023-11-14: the two years the conversations are spread over
GOAL_RSS_MB = 100
CITIES = ("Lisbon", "Porto", "Berlin", "Osaka", "Quito", "Tallinn", "Dakar", "Perth")
JOBS = ("nurse", "carpenter", "pilot", "chemist", "teacher", "baker", "welder", "editor")
PEOPLE = ("Maya", "Tomas", "Ines", "Ravi", "Lena", "Kofi", "Yuki", "Omar")
RELATIONS = ("sister", "brother", "cousin", "friend", "neighbour", "colleague")
CHATTER = (
    "Can you explain how a heat pump works in winter?",
    "What is a good way to learn irregular verbs?",
    "Summarize the plot of a novel about a lighthouse keeper.",
    "How long should I rest bread dough before baking?",
)


def statement(rng: random.Random) -> str:
    """Something the person says of themselves or theirs, now and then."""
    person, relation = rng.choice(PEOPLE), rng.choice(RELATIONS)
    return rng.choice(
        (
            f"My {relation} {person} lives in {rng.choice(CITIES)}.",
            f"My {relation} {person} works as a {rng.choice(JOBS)}.",
            f"I live in {rng.choice(CITIES)} and I work as a {rng.choice(JOBS)}.",
            f"I'm allergic to {rng.choice(('peanuts', 'shellfish', 'pollen', 'cats'))}.",
        )
    )


def node(ident: str, parent: str | None, children: list[str], message: dict | None) -> dict:
    return {"id": ident, "message": message, "parent": parent, "children": children}


def message(ident: str, role: str, when: float, parts: list, *, hidden: bool = False) -> dict:
    return {
        "id": ident,
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": when,
        "update_time": None,
        "content": {"content_type": "text", "parts": parts},
        "status": "finished_successfully",
        "end_turn": role == "assistant",
        "weight": 1.0,
        "metadata": {
            "is_visually_hidden_from_conversation": hidden,
            "model_slug": "gpt-4o",
            "request_id": f"{ident}-request",
            "timestamp_": "absolute",
            "citations": [],
            "content_references": [],
        },
        "recipient": "all",
        "channel": None,
    }


def conversation(rng: random.Random, number: int) -> dict:
    """One conversation as ChatGPT's export writes it."""
    when = START + rng.random() * 2 * 365 * 86400
    ident = f"6{number:07x}-0000-4000-8000-{number:012x}"
    mapping = {"root": node("root", None, ["system"], None)}
    mapping["system"] = node(
        "system", "root", [], message("system", "system", when, [""], hidden=True)
    )
    last = "system"
    for turn in range(rng.randint(2, 20)):
        when += rng.randint(20, 600)
        words = statement(rng) if rng.random() < 0.3 else rng.choice(CHATTER)
        asked = f"{ident}-u{turn}"
        mapping[last]["children"].append(asked)
        mapping[asked] = node(asked, last, [], message(asked, "user", when, [words]))
        if rng.random() < 0.05:  # an edit: the first version stays as a branch
            edited = f"{asked}-edited"
            mapping[last]["children"].append(edited)
            mapping[edited] = node(edited, last, [], message(edited, "user", when, ["Never mind."]))
        last = asked
        if rng.random() < 0.1:
            tool = f"{ident}-t{turn}"
            mapping[last]["children"].append(tool)
            mapping[tool] = node(tool, last, [], message(tool, "tool", when + 1, ["Results: ..."]))
            last = tool
        answer = f"{ident}-a{turn}"
        reply = " ".join(rng.choice(CHATTER) for _ in range(rng.randint(2, 8)))
        mapping[last]["children"].append(answer)
        mapping[answer] = node(answer, last, [], message(answer, "assistant", when + 5, [reply]))
        last = answer
    return {
        "title": f"Conversation {number}",
        "create_time": START,
        "update_time": when,
        "mapping": mapping,
        "moderation_results": [],
        "current_node": last,
        "plugin_ids": None,
        "conversation_id": ident,
        "conversation_template_id": None,
        "gizmo_id": None,
        "is_archived": False,
        "safe_urls": [],
        "default_model_slug": "gpt-4o",
        "id": ident,
    }


def generate(path: Path, size_bytes: int, seed: int = 54) -> int:
    """An export of about `size_bytes` at `path`, written a conversation at a time; how
    many conversations."""
    rng = random.Random(seed)
    written = number = 0
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("[")
        while written < size_bytes or number == 0:
            text = ("," if number else "") + json.dumps(conversation(rng, number))
            handle.write(text)
            written += len(text)
            number += 1
        handle.write("]")
    return number


def measured(*args: str) -> dict:
    """The command line run with `args` in a child process: its seconds, peak resident
    memory in MB (the kernel's count, from wait4) and what it printed with --json."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "vm_memory_oracle", "--json", "--now", NOW, *args],
            stdout=out,
            stderr=err,
            env={**os.environ, "PYTHONPATH": str(BUNDLE / "skill")},
        )
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {err.read().decode()[-2000:]}")
        printed = out.read()
    return {
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),  # Linux counts it in KiB
        "report": json.loads(printed),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=500.0)
    parser.add_argument("--learn", action="store_true", help="also learn it, not just count")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the export and the memory")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="import-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    export, floor = workdir / "conversations.json", workdir / "one-conversation.json"
    try:
        started = time.perf_counter()
        conversations = generate(export, int(args.size_mb * 1_000_000))
        generated = time.perf_counter() - started
        generate(floor, 1)
        memory = workdir / "memory"
        dry = ("--action", "import", "--format", "chatgpt", "--dry-run")
        smallest = measured("--data-path", str(memory), *dry, "--from", str(floor))
        counted = measured("--data-path", str(memory), *dry, "--from", str(export))
        figures = {
            "size_mb": round(export.stat().st_size / 1_000_000, 1),
            "conversations": conversations,
            "generated_seconds": round(generated, 1),
            "turns": counted["report"]["turns"],
            "days": counted["report"]["days"],
            "floor_peak_rss_mb": smallest["peak_rss_mb"],
            "dry_run": {key: counted[key] for key in ("seconds", "peak_rss_mb")},
            "goal_rss_over_floor_mb": GOAL_RSS_MB,
        }
        over = counted["peak_rss_mb"] - smallest["peak_rss_mb"]
        figures["dry_run"]["within_goal"] = over <= GOAL_RSS_MB
        print(
            f"export {figures['size_mb']} MB: {conversations} conversations, "
            f"{figures['turns']} turns of {figures['days']} days"
        )
        print(
            f"dry run: {counted['seconds']} s, peak RSS {counted['peak_rss_mb']} MB "
            f"(one conversation: {smallest['peak_rss_mb']} MB)"
        )
        if args.learn:
            measured("--data-path", str(memory), "--action", "init")
            measured(
                "--data-path", str(memory), "--action", "config", "--set", "embedding_model=hash"
            )
            learned = measured(
                "--data-path",
                str(memory),
                "--action",
                "import",
                "--format",
                "chatgpt",
                "--from",
                str(export),
            )
            report = learned["report"]
            # The build alone: every index made again from the files, as the learn's last
            # step made them (the vectors from the embedding cache it filled).
            rebuilt = measured("--data-path", str(memory), "--action", "reindex")
            asked = measured(
                "--data-path", str(memory), "--action", "recall", "--query", "where does Maya live"
            )
            figures["learn"] = {
                "seconds": learned["seconds"],
                "peak_rss_mb": learned["peak_rss_mb"],
                "turns": report["copied"],
                "commits": report["commits"],
                "facts_added": report["added"],
                "episodes": report["episodes"],
                "reindex": {key: rebuilt[key] for key in ("seconds", "peak_rss_mb")},
                "recall_peak_rss_mb": asked["peak_rss_mb"],
            }
            print(
                f"learn: {learned['seconds']} s, peak RSS {learned['peak_rss_mb']} MB, "
                f"{report['copied']} turns in {report['commits']} commits, "
                f"{report['added']} facts added; a reindex of the memory it made (the build "
                f"alone): {rebuilt['seconds']} s, peak RSS {rebuilt['peak_rss_mb']} MB; a recall "
                f"of it: peak RSS {asked['peak_rss_mb']} MB"
            )
        path = record(f"import_scale-{args.size_mb:g}mb", figures)
        print(f"figures: {path}")
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
