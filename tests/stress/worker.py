"""One process of the stress test, run as a script:

    python worker.py DATA ROLE NUMBER RESULTS READY START

ROLE `worker` remembers facts of its own, makes new statements of a single-valued
predicate about its own subject (so that supersession happens), recalls with boost,
forgets some of its own facts, and says things in its own session log, then summarizes it.
ROLE `consolidator` runs `--action consolidate` back to back. Both call the CLI in-process
(`cli.main`), so the start-up cost is paid once. A process touches READY once it has
imported everything, waits for START to appear (the test writes the deadline into it, so
every process starts and stops together) and works until the deadline.

Every acknowledged operation (exit code 0, the fact id read from the --json output) is
appended to RESULTS only after the acknowledgement, one JSON line each, with its latency.
At the end, a last line holds every wait for a lock this process made, and how long it
then held the lock.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import string
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "skill"))

# Weights of the worker's operations.
OPERATIONS = {"remember": 35, "supersede": 10, "recall": 30, "forget": 10, "summarize": 15}
START_POLL_SECONDS = 0.01


def time_locks(locks: list) -> None:
    """Wrap the project's lock (storage.locks.exclusive), in this process only, so that every
    hold of a lock is timed: (lock file name, purpose, seconds waited, seconds held or None
    when the wait timed out)."""
    from vm_memory_oracle.storage import locks as lock_module

    exclusive = lock_module.exclusive

    @contextlib.contextmanager
    def timed_exclusive(lock_path, timeout, purpose):
        started = time.perf_counter()
        acquired = None
        try:
            with exclusive(lock_path, timeout, purpose):
                acquired = time.perf_counter()
                try:
                    yield
                finally:
                    locks.append(
                        (
                            Path(lock_path).name,
                            purpose,
                            acquired - started,
                            time.perf_counter() - acquired,
                        )
                    )
        except lock_module.LockTimeoutError:
            if acquired is None:  # this wait timed out, not one nested in the block
                locks.append((Path(lock_path).name, purpose, time.perf_counter() - started, None))
            raise

    lock_module.exclusive = timed_exclusive


class Oracle:
    """The CLI, called in-process with this process's data path and actor."""

    def __init__(self, data: Path, actor: str):
        from vm_memory_oracle.cli import main

        self._main = main
        self._global = ["--data-path", str(data), "--actor", actor, "--json"]

    def run(self, *args: str) -> tuple[int, dict | None, str, float]:
        """(exit code, the --json payload, stderr, seconds)."""
        out, err = io.StringIO(), io.StringIO()
        started = time.perf_counter()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = self._main([*self._global, *args])
        seconds = time.perf_counter() - started
        payload = json.loads(out.getvalue()) if code == 0 and out.getvalue().strip() else None
        return code, payload, err.getvalue(), seconds


class Results:
    """The process's results file: one JSON line per acknowledged operation."""

    def __init__(self, path: Path):
        self._handle = open(path, "a", encoding="utf-8")

    def record(self, **entry) -> None:
        self._handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


class SessionLog:
    """The worker's own session log, appended to as an agent appends its turns: one whole
    line in one write, taking no lock of the memory's."""

    def __init__(self, data: Path, number: int, day: str):
        self.name = f"{day}-{number:02d}0000.jsonl"
        self.path = data / "sessions" / self.name
        self.day = day
        self.lines = 0

    def say(self, text: str) -> str:
        """Append one user turn; returns the source a fact learned from it cites."""
        turn = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "role": "user",
            "text": text,
        }
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(turn, ensure_ascii=False) + "\n")
        self.lines += 1
        return f"sessions/{self.name}:{self.lines}"


def work(
    oracle: Oracle, results: Results, number: int, data: Path, deadline: float, day: str
) -> None:
    rng = random.Random(number)
    subject = f"stress worker {number}"
    log = SessionLog(data, number, day)
    kept: list[str] = []  # acknowledged facts of this worker, not forgotten
    items: dict[int, str] = {}  # the counter of each acknowledged "noted" fact -> its id
    holder: str | None = None  # the current lives_in fact of this worker's subject
    unsummarized: list[str] = []  # sources of statements said since the last summarize
    counter = 0
    names, weights = list(OPERATIONS), list(OPERATIONS.values())
    while time.time() < deadline:
        counter += 1
        operation = rng.choices(names, weights)[0]
        if operation == "forget" and not kept:
            operation = "remember"
        if operation == "remember":
            args = [
                "--action",
                "remember",
                "--subject",
                subject,
                "--predicate",
                "noted",
                "--object",
                f"item {number}-{counter}",
                "--text",
                f"Stress worker {number} noted item {number}-{counter}.",
            ]
        elif operation == "supersede":
            args = [
                "--action",
                "remember",
                "--subject",
                subject,
                "--predicate",
                "lives_in",
                "--object",
                f"city {number}-{counter}",
                "--category",
                "identity",
            ]
        elif operation == "recall":
            held = [item for item, fact_id in items.items() if fact_id in kept]
            wanted = rng.choice(held) if held else rng.randint(1, counter)
            expected = items.get(wanted) if held else None
            args = ["--action", "recall", "--query", f"item {number}-{wanted}", "--k", "5"]
        elif operation == "forget":
            fact_id = kept[rng.randrange(len(kept))]
            args = ["--action", "forget", "--id", fact_id, "--reason", "stress test"]
        else:
            for _ in range(rng.randint(1, 3)):
                tag = f"w{number}n{counter}x{log.lines + 1}"
                if rng.random() < 0.15:
                    # A secret to redact: summarize rewrites the log while others append.
                    key = "".join(rng.choices(string.ascii_letters + string.digits, k=24))
                    log.say(f"My api key for {tag} is sk-proj-{key} by the way.")
                elif rng.random() < 0.5:
                    unsummarized.append(log.say(f"I prefer the stress tool {tag} for testing."))
                else:
                    unsummarized.append(log.say(f"I decided to use tool {tag} for builds."))
            args = ["--action", "summarize", "--date", day]
        kind = "remember" if operation == "supersede" else operation
        try:
            code, payload, err, seconds = oracle.run(*args)
        except Exception:
            results.record(op=kind, code="exception", error=traceback.format_exc())
            continue
        if code != 0:
            results.record(op=kind, code=code, ms=round(seconds * 1000, 3), error=err[-2000:])
            continue
        entry = {"op": kind, "code": 0, "ms": round(seconds * 1000, 3)}
        if payload.get("warnings"):
            entry["warnings"] = payload["warnings"]
        if kind == "remember":
            [fact_id] = payload["ids"]
            entry.update(
                id=fact_id,
                added=payload["added"],
                superseded=payload["superseded"],
                predicate="lives_in" if operation == "supersede" else "noted",
            )
            if operation == "supersede":
                entry["expected_superseded"] = holder
                holder = fact_id
            else:
                kept.append(fact_id)
                items[counter] = fact_id
        elif kind == "recall":
            entry["hits"] = len(payload["results"])
            if expected is not None:  # a fact of ours, acknowledged and not forgotten
                entry["expected"] = expected
                entry["matched"] = next(
                    (hit["matched"] for hit in payload["results"] if hit["id"] == expected), None
                )
        elif kind == "forget":
            entry["id"] = payload["forgotten"]
            kept.remove(entry["id"])
        else:
            entry.update(sources=unsummarized, added=payload["added"])
            unsummarized = []
        results.record(**entry)


def consolidate(oracle: Oracle, results: Results, deadline: float) -> None:
    while time.time() < deadline:
        try:
            code, payload, err, seconds = oracle.run("--action", "consolidate")
        except Exception:
            results.record(op="consolidate", code="exception", error=traceback.format_exc())
            continue
        entry = {"op": "consolidate", "code": code, "ms": round(seconds * 1000, 3)}
        if code == 0:
            prune = next(step for step in payload["steps"] if step["name"] == "prune")
            entry.update(status=payload["status"], archived=prune["counts"]["archived"])
            if payload["warnings"]:
                entry["warnings"] = payload["warnings"]
        else:
            entry["error"] = err[-2000:]
        results.record(**entry)


def wait_for_start(start: Path) -> dict:
    while not start.exists():
        time.sleep(START_POLL_SECONDS)
    return json.loads(start.read_text(encoding="utf-8"))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("role", choices=["worker", "consolidator"])
    parser.add_argument("number", type=int)
    parser.add_argument("results", type=Path)
    parser.add_argument("ready", type=Path)
    parser.add_argument("start", type=Path)
    args = parser.parse_args(argv)

    locks: list[tuple[str, str, float, float | None]] = []
    time_locks(locks)
    # Everything an operation would import on first use, imported before the clock starts.
    import faiss  # noqa: F401
    import vm_memory_oracle.consolidate  # noqa: F401
    import vm_memory_oracle.recall  # noqa: F401
    import vm_memory_oracle.semantic.index  # noqa: F401
    import vm_memory_oracle.steps.summarize  # noqa: F401

    actor = "consolidator" if args.role == "consolidator" else f"worker{args.number}"
    oracle = Oracle(args.data, actor)
    results = Results(args.results)
    args.ready.touch()
    start = wait_for_start(args.start)
    try:
        if args.role == "consolidator":
            consolidate(oracle, results, start["deadline"])
        else:
            work(oracle, results, args.number, args.data, start["deadline"], start["day"])
    finally:
        results.record(op="locks", locks=locks)
        results.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
