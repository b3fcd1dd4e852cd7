"""Stress: eight worker processes remember, recall, forget and summarize while a ninth
consolidates back to back, for 15 s (60 s with --long, N s with --stress-seconds N).

Then, once every process has stopped and one more consolidation has run:
1. every fact acknowledged by remember, and every statement acknowledged by summarize, is
   in facts.jsonl or archived-facts.jsonl exactly once (a forgotten one in the archive only);
2. every JSON and JSONL file of the data directory is valid against its schema, and nothing
   was quarantined, set aside or left half-written;
3. the vector index holds exactly the vectors the facts call for, and health-check agrees.

The figures (operations per second, lock waits, latencies) are printed and, when the
environment variable STRESS_REPORT names a file, written there as JSON. They are reported,
never asserted: the machine decides them, not the code.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import hash_embedder

WORKERS = 8
WORKER = Path(__file__).with_name("worker.py")
# Generous: a lock timeout is allowed (and counted), but should not happen on a sound run.
LOCK_TIMEOUT_SECONDS = 120
LOCK_TIMEOUT_EXIT = 4
# How long the processes may take to import everything before the clock starts, and to
# finish their last operation after the deadline, before the test calls it a hang.
READY_TIMEOUT_SECONDS = 120
FINISH_GRACE_SECONDS = 90
POLL_SECONDS = 0.02

# The schema of every JSON and JSONL file of the data directory (storage/layout.py).
SCHEMA_OF = {
    "knowledge-graph/facts.jsonl": "fact",
    "knowledge-graph/archived-facts.jsonl": "archived-fact",
    "knowledge-graph/entities.jsonl": "entity",
    "knowledge-graph/relations.jsonl": "relation",
    "knowledge-graph/canary-facts.json": "canary-facts",
    "embeddings/metadata.jsonl": "vector-metadata",
    "activation-metadata.json": "activation-metadata",
    "health.json": "health",
    "state/activation-journal.jsonl": "activation-journal",
    "state/audit.jsonl": "audit-entry",
    "state/probe-log.jsonl": "probe-result",
    "state/consolidation.json": "consolidation-checkpoint",
    "state/summarized.json": "summarize-ledger",
    "state/imports.json": "import-ledger",
}
SESSION_LOG = re.compile(r"^sessions/\d{4}-\d{2}-\d{2}-\d{6}\.jsonl$")
EPISODES_FILE = re.compile(r"^episodes/\d{4}-\d{2}-\d{2}\.jsonl$")
# What an interrupted atomic write or a repair leaves behind (steps/clean.py, storage/).
LEFT_BEHIND = re.compile(r"^\..+\.tmp$|\.quarantine\.jsonl$|\.corrupt-")


@dataclass
class StressProcess:
    name: str
    popen: subprocess.Popen
    results: Path
    ready: Path
    stderr: Path

    def error_output(self) -> str:
        return self.stderr.read_text(encoding="utf-8", errors="replace")[-3000:]


@pytest.mark.slow
def test_nine_processes_lose_no_write_tear_no_file_and_leave_the_index_in_step(
    cli, data_dir, tmp_path, stress_seconds, capsys
):
    hash_embedder(cli)
    assert (
        cli("--action", "config", "--set", f"lock_timeout_seconds={LOCK_TIMEOUT_SECONDS}").code == 0
    )
    run_dir = tmp_path / "run"
    run_dir.mkdir()

    began = time.monotonic()
    processes = start_processes(data_dir, run_dir)
    try:
        start_seconds, run_seconds = run_until_deadline(
            processes, run_dir / "start", stress_seconds, data_dir / "state"
        )
    finally:
        for process in processes:
            if process.popen.poll() is None:
                process.popen.kill()
                process.popen.wait()
    results = {process.name: read_results(process.results) for process in processes}
    left_behind = files_left_behind(data_dir)

    checked = time.monotonic()
    final = cli("--json", "--action", "consolidate", now=None)
    assert final.code == 0, final.err
    health = cli("--json", "--action", "health-check", now=None)
    assert health.code == 0, health.err
    health = health.json()

    failures = failed_operations(results)
    facts = fact_check(data_dir, results)
    validated, invalid = validate_files(data_dir)
    index_problems = index_check(data_dir) + recall_check(data_dir, results)
    derived_problems = derived_check(data_dir)

    report = stress_report(results, stress_seconds, run_seconds, facts, validated, health)
    report["start_seconds"] = round(start_seconds, 3)
    report["recalls_of_own_facts"] = sum(
        1 for entry in operations(results) if entry["op"] == "recall" and entry.get("expected")
    )
    report["check_seconds"] = round(time.monotonic() - checked, 3)
    report["test_seconds"] = round(time.monotonic() - began, 3)
    report["problems"] = (
        [
            f"{entry['process']}: {entry['op']} exited {entry['code']}: "
            f"{entry.get('error', '').strip()[-300:]}"
            for entry in failures
        ]
        + facts["problems"]
        + [f"left behind: {name}" for name in left_behind]
        + invalid
        + index_problems
        + derived_problems
    )
    print_report(report, capsys)
    if os.environ.get("STRESS_REPORT"):
        Path(os.environ["STRESS_REPORT"]).write_text(
            json.dumps(report, indent=2) + "\n", encoding="utf-8"
        )

    assert failures == []
    assert facts["problems"] == []
    assert report["facts_lost"] == 0
    assert left_behind == []
    assert invalid == []
    assert index_problems == []
    assert derived_problems == []
    assert health["index"]["consistent"], health["index"]
    assert health["status"] != "unhealthy", health["warnings"]
    assert report["consolidations_completed"] >= 1


# -- running the processes ------------------------------------------------------------------
def start_processes(data: Path, run_dir: Path) -> list[StressProcess]:
    processes = []
    for number in range(WORKERS + 1):
        role = "consolidator" if number == WORKERS else "worker"
        name = "consolidator" if role == "consolidator" else f"worker{number}"
        results, ready, stderr = (
            run_dir / f"{name}.jsonl",
            run_dir / f"{name}.ready",
            run_dir / f"{name}.err",
        )
        with open(stderr, "wb") as err:
            popen = subprocess.Popen(
                [
                    sys.executable,
                    str(WORKER),
                    str(data),
                    role,
                    str(number),
                    str(results),
                    str(ready),
                    str(run_dir / "start"),
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        processes.append(StressProcess(name, popen, results, ready, stderr))
    return processes


def run_until_deadline(
    processes: list[StressProcess], start: Path, seconds: float, state: Path
) -> tuple[float, float]:
    """Start every process at once once all are ready; wait until all have stopped.
    Returns (seconds until all were ready, seconds from the start to the last one stopping)."""
    began = time.monotonic()
    limit = began + READY_TIMEOUT_SECONDS
    while not all(process.ready.exists() for process in processes):
        for process in processes:
            if process.popen.poll() is not None:
                pytest.fail(
                    f"{process.name} exited with {process.popen.returncode} before "
                    f"starting:\n{process.error_output()}"
                )
        if time.monotonic() > limit:
            pytest.fail(f"the processes were not ready within {READY_TIMEOUT_SECONDS} s")
        time.sleep(POLL_SECONDS)
    started = time.monotonic()
    deadline = time.time() + seconds
    temporary = start.with_name(start.name + ".tmp")
    temporary.write_text(
        json.dumps({"deadline": deadline, "day": time.strftime("%Y-%m-%d", time.gmtime())}),
        encoding="utf-8",
    )
    os.replace(temporary, start)  # whole or absent: a process never reads half of it
    for process in processes:
        remaining = deadline + FINISH_GRACE_SECONDS - time.time()
        try:
            process.popen.wait(timeout=max(remaining, 0.1))
        except subprocess.TimeoutExpired:
            pytest.fail(
                f"{process.name} still running {FINISH_GRACE_SECONDS} s after the "
                f"deadline (a deadlock or a hang); lock holders: {holders(state)}"
            )
        assert process.popen.returncode == 0, f"{process.name}:\n{process.error_output()}"
    return started - began, time.monotonic() - started


def holders(state: Path) -> dict[str, str]:
    return {
        path.name: path.read_text(encoding="utf-8", errors="replace").strip()
        for path in state.glob("*.holder")
    }


def read_results(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def operations(results: dict[str, list[dict]]) -> list[dict]:
    return [entry for entries in results.values() for entry in entries if entry["op"] != "locks"]


def failed_operations(results: dict[str, list[dict]]) -> list[dict]:
    """Operations that failed other than by a lock timeout (which is counted, not failed)."""
    return [
        {"process": name, **entry}
        for name, entries in results.items()
        for entry in entries
        if entry["op"] != "locks" and entry["code"] not in (0, LOCK_TIMEOUT_EXIT)
    ]


# -- checks ---------------------------------------------------------------------------------
def jsonl_records(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def fact_check(data: Path, results: dict[str, list[dict]]) -> dict:
    """Each acknowledged write, found exactly once in facts.jsonl and archived-facts.jsonl."""
    active = jsonl_records(data / "knowledge-graph" / "facts.jsonl")
    archived = jsonl_records(data / "knowledge-graph" / "archived-facts.jsonl")
    in_facts = Counter(fact["id"] for fact in active)
    in_archive = Counter(fact["id"] for fact in archived)
    why = {fact["id"]: fact["archive_reason"] for fact in archived}
    cited = Counter(fact["source"] for fact in active + archived)
    acknowledged = [entry for entry in operations(results) if entry["code"] == 0]
    remembered = [entry for entry in acknowledged if entry["op"] == "remember"]
    forgotten = {entry["id"] for entry in acknowledged if entry["op"] == "forget"}
    said = [
        source
        for entry in acknowledged
        if entry["op"] == "summarize"
        for source in entry["sources"]
    ]
    problems: list[str] = []
    lost = 0
    for entry in remembered:
        fact_id = entry["id"]
        found = in_facts[fact_id] + in_archive[fact_id]
        if found == 0:
            lost += 1
            problems.append(f"{fact_id} (remembered) is in neither file")
        elif found > 1:
            problems.append(f"{fact_id} (remembered) is there {found} times")
        elif fact_id in forgotten and (
            in_facts[fact_id] or not why[fact_id].startswith("forgotten")
        ):
            problems.append(f"{fact_id} was forgotten but is active or archived otherwise")
        if entry["added"] != 1:
            problems.append(f"{fact_id}: remember of a new fact reported added {entry['added']}")
        if entry["predicate"] == "lives_in":
            previous = entry["expected_superseded"]
            expected = [{"old": previous, "new": fact_id}] if previous else []
            if entry["superseded"] != expected:
                problems.append(f"{fact_id} superseded {entry['superseded']}, not {expected}")
        elif entry["superseded"]:
            problems.append(f"{fact_id} superseded {entry['superseded']}, not nothing")
    for source in said:
        if cited[source] == 0:
            lost += 1
            problems.append(f"the statement of {source} (summarized) is in neither file")
        elif cited[source] > 1:
            problems.append(f"the statement of {source} is there {cited[source]} times")
    return {
        "remembered": len(remembered),
        "summarized": len(said),
        "forgotten": len(forgotten),
        "superseding": sum(1 for entry in remembered if entry["superseded"]),
        "superseded": sum(
            1 for fact in archived if fact["archive_reason"].startswith("superseded")
        ),
        "lost": lost,
        "problems": problems,
        "active": len(active),
        "archived": len(archived),
    }


def files_left_behind(data: Path) -> list[str]:
    """Temporary files of a write cut short, quarantined lines, files set aside as corrupt."""
    return sorted(
        path.relative_to(data).as_posix()
        for path in data.rglob("*")
        if LEFT_BEHIND.search(path.name)
    )


def validate_files(data: Path) -> tuple[list[str], list[str]]:
    """(files validated, problems): every JSON/JSONL file against its schema, line by line."""
    from vm_memory_oracle.storage.validation import problem

    validated, problems = [], []
    for path in sorted(data.rglob("*")):
        relative = path.relative_to(data).as_posix()
        if (
            not path.is_file()
            or relative.startswith("state/cache/")
            or not path.name.endswith((".json", ".jsonl"))
        ):
            continue
        kind = (
            SCHEMA_OF.get(relative)
            or ("session-turn" if SESSION_LOG.match(relative) else None)
            or ("episode" if EPISODES_FILE.match(relative) else None)
        )
        if kind is None:
            problems.append(f"{relative}: no schema known for this file")
            continue
        raw = path.read_bytes()
        if relative.endswith(".json"):
            documents = [(1, raw)]
        else:
            if raw and not raw.endswith(b"\n"):
                problems.append(f"{relative}: the last line has no newline (a torn write)")
            lines = raw.split(b"\n")
            if lines[-1] == b"":  # what follows the last newline, or an empty file
                lines.pop()
            documents = list(enumerate(lines, start=1))
        for number, line in documents:
            try:
                record = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                problems.append(f"{relative}:{number}: not JSON ({exc})")
                continue
            fault = problem(kind, record)
            if fault:
                problems.append(f"{relative}:{number}: {fault}")
        validated.append(relative)
    return validated, problems + library_check(
        data, "invalid_line", "invalid_document", "temporary_file", "mode", "refused"
    )


def library_check(data: Path, *codes: str) -> list[str]:
    """The messages of the library's check of the memory (vm_memory_oracle.check)."""
    from vm_memory_oracle.check import check

    return [finding.message for finding in check(data) if finding.code in codes]


def index_check(data: Path) -> list[str]:
    """The index holds one vector per current fact, as the reindex step wants them."""
    return library_check(data, "index_mismatch")


def recall_check(data: Path, results: dict[str, list[dict]]) -> list[str]:
    """Each recall of a worker's own fact, acknowledged, not forgotten and active still at
    the end (so active when recalled), found it by its words: the full-text index was in step
    with facts.jsonl whatever the other processes wrote. And no recall took a concurrent
    write for damage (a rebuilt index is said in its warnings)."""
    active = {fact["id"] for fact in jsonl_records(data / "knowledge-graph" / "facts.jsonl")}
    problems = []
    for entry in operations(results):
        if entry["op"] != "recall" or entry["code"] != 0:
            continue
        rebuilt = [warning for warning in entry.get("warnings", ()) if "rebuilt" in warning]
        if rebuilt:
            problems.append(f"a recall rebuilt an index: {rebuilt}")
        expected = entry.get("expected")
        if expected in active and "lexical" not in (entry["matched"] or ()):
            problems.append(
                f"a recall of {expected} found it by {entry['matched']}, not by its words"
            )
    return problems


def derived_check(data: Path) -> list[str]:
    """entities.jsonl, relations.jsonl, the daily summaries and the activation state as the
    facts make them."""
    from conftest import activation_state

    graph = data / "knowledge-graph"
    facts = jsonl_records(graph / "facts.jsonl")
    problems = library_check(data, "derived_mismatch", "orphan_state")
    learned = [
        fact
        for fact in facts + jsonl_records(graph / "archived-facts.jsonl")
        if fact["source"].startswith("sessions/")
    ]
    for day in sorted({fact["source"][len("sessions/") :][:10] for fact in learned}):
        summary = (data / "daily" / f"{day}.md").read_text(encoding="utf-8")
        missing = [
            fact["id"]
            for fact in learned
            if fact["source"].startswith(f"sessions/{day}-") and f"`{fact['id']}`" not in summary
        ]
        if missing:
            problems.append(
                f"daily/{day}.md lacks {len(missing)} of the facts learned from "
                f"that day's logs: {missing[:3]}"
            )
    state = set(activation_state(data))
    ids = {fact["id"] for fact in facts}
    if state != ids:
        problems.append(
            f"activation state: {len(ids - state)} facts without an entry, "
            f"{len(state - ids)} entries without a fact"
        )
    return problems


# -- the report -----------------------------------------------------------------------------
def percentile(values: list[float], share: float) -> float | None:
    """Nearest-rank percentile."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def spread_ms(seconds: list[float]) -> dict:
    milliseconds = [value * 1000 for value in seconds]
    return {
        "count": len(milliseconds),
        **{
            name: round(percentile(milliseconds, share), 3) if milliseconds else None
            for name, share in (("p50", 0.50), ("p95", 0.95))
        },
        "max": round(max(milliseconds), 3) if milliseconds else None,
    }


def stress_report(
    results: dict[str, list[dict]],
    seconds: float,
    run_seconds: float,
    facts: dict,
    validated: list[str],
    health: dict,
) -> dict:
    done = operations(results)
    by_kind = Counter(entry["op"] for entry in done)
    timeouts = Counter(entry["op"] for entry in done if entry["code"] == LOCK_TIMEOUT_EXIT)
    holds = [
        hold
        for entries in results.values()
        for entry in entries
        if entry["op"] == "locks"
        for hold in entry["locks"]
    ]
    write_lock = [
        (purpose, wait, held) for name, purpose, wait, held in holds if name == "memory.lock"
    ]
    by_purpose: dict[str, list[float]] = {}
    for purpose, _, held in write_lock:
        if held is not None:
            by_purpose.setdefault(purpose.split(":")[0], []).append(held)
    longest = sorted(by_purpose.items(), key=lambda item: -max(item[1]))[:6]
    latencies = {
        kind: spread_ms(
            [entry["ms"] / 1000 for entry in done if entry["op"] == kind and entry["code"] == 0]
        )
        for kind in sorted(by_kind)
    }
    return {
        "duration_seconds": seconds,
        "run_seconds": round(run_seconds, 3),
        "processes": {"workers": WORKERS, "consolidators": 1, "total": WORKERS + 1},
        "operations": sum(by_kind.values()),
        "operations_per_second": round(sum(by_kind.values()) / run_seconds, 2),
        "operations_by_kind": dict(sorted(by_kind.items())),
        "operations_per_second_by_kind": {
            kind: round(count / run_seconds, 2) for kind, count in sorted(by_kind.items())
        },
        "lock_timeouts": sum(timeouts.values()),
        "lock_timeouts_by_kind": dict(sorted(timeouts.items())),
        "lock_wait_ms": spread_ms([wait for _, wait, _ in write_lock]),
        "lock_hold_ms": spread_ms([held for _, _, held in write_lock if held is not None]),
        "lock_hold_ms_by_purpose": {purpose: spread_ms(held) for purpose, held in longest},
        "consolidation_lock_wait_ms": spread_ms(
            [wait for name, _, wait, _ in holds if name == "consolidate.lock"]
        ),
        "latency_ms": latencies,
        "consolidations_completed": sum(
            1 for entry in done if entry["op"] == "consolidate" and entry["code"] == 0
        ),
        "facts_acknowledged": facts["remembered"] + facts["summarized"],
        "facts_acknowledged_by_remember": facts["remembered"],
        "statements_acknowledged_by_summarize": facts["summarized"],
        "facts_superseding": facts["superseding"],
        "facts_forgotten": facts["forgotten"],
        "facts_lost": facts["lost"],
        "facts_active": facts["active"],
        "facts_archived": facts["archived"],
        "facts_archived_as_superseded": facts["superseded"],
        "warnings": dict(
            Counter(
                f"{entry['op']}: {warning}"
                for entry in done
                for warning in entry.get("warnings", ())
            )
        ),
        "files_validated": len(validated),
        "health_status": health["status"],
    }


def print_report(report: dict, capsys) -> None:
    rates = ", ".join(
        f"{kind} {rate}" for kind, rate in report["operations_per_second_by_kind"].items()
    )
    wait, hold = report["lock_wait_ms"], report["lock_hold_ms"]
    lines = [
        f"stress: {report['processes']['total']} processes for {report['duration_seconds']:g} s "
        f"(started in {report['start_seconds']:.1f} s, ran {report['run_seconds']:.1f} s, "
        f"checked in {report['check_seconds']:.1f} s; {report['test_seconds']:.1f} s in all)",
        f"  {report['operations']} operations, {report['operations_per_second']}/s: {rates}",
        f"  by kind: {report['operations_by_kind']}",
        f"  lock timeouts: {report['lock_timeouts']} {report['lock_timeouts_by_kind']}",
        f"  write-lock wait ms: p50 {wait['p50']} p95 {wait['p95']} max {wait['max']} "
        f"({wait['count']} waits)",
        f"  write-lock hold ms: p50 {hold['p50']} p95 {hold['p95']} max {hold['max']}; "
        "longest: "
        + ", ".join(
            f"{purpose} {spread['max']}"
            for purpose, spread in report["lock_hold_ms_by_purpose"].items()
        ),
        f"  consolidations completed: {report['consolidations_completed']}",
        f"  facts acknowledged: {report['facts_acknowledged']} "
        f"({report['facts_acknowledged_by_remember']} remembered, "
        f"{report['statements_acknowledged_by_summarize']} summarized), "
        f"{report['facts_superseding']} superseding an older one, "
        f"{report['facts_forgotten']} forgotten, lost: {report['facts_lost']}",
        f"  files validated: {report['files_validated']}; health {report['health_status']}",
    ]
    lines += [f"  problem: {problem[:300]}" for problem in report["problems"][:20]]
    lines += [
        f"  warning x{count}: {warning[:200]}"
        for warning, count in sorted(report["warnings"].items(), key=lambda item: -item[1])[:10]
    ]
    lines += [
        f"  latency ms {kind}: p50 {spread['p50']} p95 {spread['p95']} max {spread['max']}"
        for kind, spread in report["latency_ms"].items()
    ]
    with capsys.disabled():
        print("\n" + "\n".join(lines))
