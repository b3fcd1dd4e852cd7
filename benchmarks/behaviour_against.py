"""Whether this tree learns and recalls exactly as another revision does, on the dev sets.

A change to how the package is built (where a module lives, how a turn walks in, what type
a result has) must leave what the memory holds and what it answers as they were. Each
revision is checked out in a git worktree (this tree is used as it is) and, in a process of
its own that imports only that revision's package, makes one memory per dev item through
its own command line: the session logs of a LongMemEval question's haystack (cut to its
answer sessions and --sessions others) or of a LoCoMo conversation, `summarize --all` at
the last turn's time, then `recall --queries` of every question (k=10 and k=5, no boost) at
the question's time. Everything each memory holds (every file but the audit log and the
derived state under state/cache/) and every result set, whole, are compared byte for byte:
    .venv/bin/python benchmarks/behaviour_against.py --base REV [--longmemeval N]
        [--locomo N] [--sessions N] [--embedder bundled|hash]
--longmemeval N takes N questions spread evenly over the question types (default 30, 5 of
each), --locomo N the first N conversations (default 5). It prints, per set, the memories
and result sets compared and how many differ, with the first differences; with --strict it
exits 1 when any does. --without KEYS (comma-separated) leaves those keys out of every JSON
record compared, in the memory's files and in the result sets: what a change adds to each
record (a fact's "provenance", a result's "origin") while the rest must stay as it was.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from revisions import checked_out

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent
LEFT_OUT = ("state/audit.jsonl",)  # names the time each command ran, not what it learned
LEFT_OUT_DIRECTORIES = ("state/cache/",)  # derived, and laid out as each revision lays it


def items(longmemeval: int, locomo: int, sessions: int) -> list[dict]:
    """The dev items: for each, its name, its session logs {name: text}, when it was all
    said, and its questions [{query, now}]."""
    sys.path.insert(0, str(HERE))
    import locomo as locomo_data
    import longmemeval as longmemeval_data

    found: list[dict] = []
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        if longmemeval:
            data = longmemeval_data.load_dataset()
            for question in longmemeval_data.sampled(data["questions"], longmemeval):
                logs = scratch / question["question_id"]
                longmemeval_data.write_haystack(question, data["sessions"], logs, sessions)
                asked = longmemeval_data.parse_date(question["question_date"])
                found.append(
                    _item(
                        f"longmemeval/{question['question_id']}",
                        logs,
                        [{"query": question["question"], "now": _iso(asked)}],
                    )
                )
        for sample in locomo_data.load_dataset()[:locomo]:
            logs = scratch / sample["sample_id"]
            conversation = locomo_data.write_sessions(sample, logs)
            assert conversation.last_time is not None
            later = _iso(conversation.last_time + timedelta(days=1))
            found.append(
                _item(
                    f"locomo/{sample['sample_id']}",
                    logs,
                    [{"query": qa["question"], "now": later} for qa in conversation.questions],
                )
            )
    return found


def _item(name: str, logs: Path, questions: list[dict]) -> dict:
    texts = {path.name: path.read_text(encoding="utf-8") for path in sorted(logs.iterdir())}
    said = max(
        json.loads(line)["ts"] for text in texts.values() for line in text.splitlines() if line
    )
    return {"name": name, "logs": texts, "said": said, "questions": questions}


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def worker(
    tree: Path, items_file: Path, work: Path, embedder: str, without: frozenset[str]
) -> dict:
    """Each item learned and asked by the code of `tree` (this process imports only it):
    {item name: {"files": {relative path: sha256}, "answers": [result set, ...]}}."""
    sys.path.insert(0, str(tree / "skill"))
    import contextlib
    import io

    from vm_memory_oracle.cli import main

    def run(data: Path, now: str, *args: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(["--data-path", str(data), "--now", now, *args])
        assert code == 0, (data, args, code)
        return out.getvalue()

    made = {}
    for number, item in enumerate(json.loads(items_file.read_text(encoding="utf-8"))):
        data = work / f"memory-{number}"
        run(data, item["said"], "--action", "init")
        run(data, item["said"], "--action", "config", "--set", f"embedding_model={embedder}")
        sessions = data / "sessions"
        for name, text in item["logs"].items():
            (sessions / name).write_text(text, encoding="utf-8")
        run(data, item["said"], "--action", "summarize", "--all")
        answers = []
        for question in item["questions"]:
            for k in (10, 5):
                asked = data.parent / f"asked-{number}.jsonl"
                asked.write_text(json.dumps({"query": question["query"], "k": k}) + "\n")
                out = run(
                    data, question["now"], "--json", "--action", "recall", "--no-boost",
                    "--queries", str(asked),
                )  # fmt: skip
                answers.append(_without(out, without))
        made[item["name"]] = {"files": _files(data, without), "answers": answers}
    return made


def _files(data: Path, without: frozenset[str]) -> dict[str, str]:
    found = {}
    for path in sorted(data.rglob("*")):
        name = path.relative_to(data).as_posix()
        if not path.is_file() or name in LEFT_OUT or name.startswith(LEFT_OUT_DIRECTORIES):
            continue
        data_bytes = path.read_bytes()
        if without and path.suffix in (".json", ".jsonl"):
            data_bytes = _without(data_bytes.decode("utf-8"), without).encode("utf-8")
        found[name] = hashlib.sha256(data_bytes).hexdigest()
    return found


def _without(text: str, keys: frozenset[str]) -> str:
    """`text` (JSON, or JSON lines) with `keys` left out of every object in it."""
    if not keys:
        return text

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in keys}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    try:
        return json.dumps(strip(json.loads(text)), ensure_ascii=False)
    except ValueError:
        return "\n".join(
            json.dumps(strip(json.loads(line)), ensure_ascii=False) if line.strip() else line
            for line in text.split("\n")
        )


def measure(tree: Path, items_file: Path, work: Path, embedder: str, without: str) -> dict:
    work.mkdir()
    done = subprocess.run(
        [
            *(sys.executable, __file__, "--worker", str(tree), str(items_file), str(work)),
            *("--embedder", embedder, "--without", without),
        ],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"{tree}: the worker failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def differences(base: dict, this: dict) -> dict[str, dict]:
    """Per set (longmemeval, locomo): memories and result sets compared, and what differs."""
    sets: dict[str, dict] = {}
    for name in base:
        kind = name.split("/", 1)[0]
        tally = sets.setdefault(
            kind, {"memories": 0, "result_sets": 0, "differ": [], "answers_differ": 0}
        )
        tally["memories"] += 1
        before, after = base[name], this[name]
        changed = sorted(
            path
            for path in set(before["files"]) | set(after["files"])
            if before["files"].get(path) != after["files"].get(path)
        )
        tally["differ"] += [f"{name}: {path}" for path in changed]
        tally["result_sets"] += len(before["answers"])
        tally["answers_differ"] += sum(
            1 for old, new in zip(before["answers"], after["answers"]) if old != new
        ) + abs(len(before["answers"]) - len(after["answers"]))
    return sets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="the revision to compare with")
    parser.add_argument("--longmemeval", type=int, default=30)
    parser.add_argument("--locomo", type=int, default=5)
    parser.add_argument(
        "--sessions", type=int, default=4, help="haystack sessions besides the answers'"
    )
    parser.add_argument("--embedder", default="bundled", choices=("bundled", "hash"))
    parser.add_argument("--strict", action="store_true", help="exit 1 when anything differs")
    parser.add_argument("--without", default="", help="JSON keys left out of the comparison")
    parser.add_argument(
        "--worker", nargs=3, metavar=("TREE", "ITEMS", "WORK"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.worker:
        tree, items_file, work = map(Path, args.worker)
        without = frozenset(key for key in args.without.split(",") if key)
        print(json.dumps(worker(tree, items_file, work, args.embedder, without)))
        return 0
    if not args.base:
        parser.error("--base REV is needed")
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        items_file = scratch / "items.json"
        items_file.write_text(
            json.dumps(items(args.longmemeval, args.locomo, args.sessions)), encoding="utf-8"
        )
        with checked_out(args.base, scratch / "base") as base_tree:
            base = measure(
                base_tree, items_file, scratch / "work-base", args.embedder, args.without
            )
            this = measure(
                REPOSITORY, items_file, scratch / "work-this", args.embedder, args.without
            )
    sets = differences(base, this)
    same = True
    left_out = f", without {args.without}" if args.without else ""
    print(f"behaviour of this tree against {args.base} ({args.embedder} embedder{left_out})")
    for kind, tally in sets.items():
        print(
            f"  {kind}: {tally['memories']} memories, {len(tally['differ'])} files differ; "
            f"{tally['result_sets']} result sets, {tally['answers_differ']} differ"
        )
        for line in tally["differ"][:10]:
            print(f"    differs: {line}")
        same = same and not tally["differ"] and not tally["answers_differ"]
    return 0 if same or not args.strict else 1


if __name__ == "__main__":
    sys.exit(main())
