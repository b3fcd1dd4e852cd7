"""What every fault test asks of a data directory after the fault and the next run, and the
memories the tests start from."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from harness import Forker

BUNDLE = Path(__file__).resolve().parents[2]
EXAMPLES = BUNDLE / "assets" / "examples" / "facts.jsonl"
NOW = "2026-07-20T00:30:00Z"
SESSION_EARLY = [
    {"ts": f"2026-06-01T08:0{n}:00Z", "role": "user", "text": text}
    for n, text in enumerate(
        ["I prefer green tea in the morning.", "My sister Ana lives in Madrid."]
    )
]
SESSION_LATE = [
    {"ts": f"2026-07-19T21:0{n}:00Z", "role": "user", "text": text}
    for n, text in enumerate(
        [
            "Remember that my dentist is Dr. Silva.",
            "I prefer green tea in the morning.",
            "I moved to Lisbon last week.",
            "I need to renew my passport by August.",
            # the example fact in other words: merged
            "I like the editor in dark mode.",
        ]
    )
]
CANARIES = [
    {"query": "food allergies", "expected_contains": "peanuts"},
    {"query": "where does the user live", "expected_contains": "Porto"},
]


def jsonl_text(records) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def build_pending(forker: Forker, root: Path) -> None:
    """A memory with work for every command: facts, one superseded, a recall boost in the
    journal, a forgettable fact, and session logs not summarized yet (one old enough to be
    cleaned once summarized, one restating a fact in other words, for the merge step)."""
    first = "2026-01-01T00:00:00Z"
    forker.ok(root, "--action", "init", now=first)
    forker.ok(root, "--action", "config", "--set", "embedding_model=hash", now=first)
    forker.ok(root, "--action", "remember", "--from", str(EXAMPLES), now=first)
    forker.ok(
        root,
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "visited",
        "--object",
        "Oslo",
        now=first,
    )
    forker.ok(
        root,
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "lives_in",
        "--object",
        "Porto",
        "--category",
        "identity",
        now="2026-07-01T00:00:00Z",
    )
    forker.ok(root, "--action", "recall", "--query", "dark mode", now="2026-07-10T00:00:00Z")
    (root / "sessions" / "2026-06-01-080000.jsonl").write_text(jsonl_text(SESSION_EARLY))
    (root / "sessions" / "2026-07-19-210000.jsonl").write_text(jsonl_text(SESSION_LATE))
    (root / "daily" / "2025-06-01.md").write_text("# 2025-06-01\n")
    (root / "MEMORY.md").write_text(
        "# MEMORY\n\nMine: water the plants.\n\n"
        "<!-- vm-memory-oracle:begin -->\n"
        "<!-- vm-memory-oracle:end -->\n"
    )


def build_populated(forker: Forker, root: Path) -> None:
    """A memory in which every file exists and holds records: build_pending, consolidated
    (archive, daily summary, index, MEMORY.md and its backup), then a forget, canaries and
    a quality probe, a fact remembered since, and a recall whose boost waits in the
    journal; a session log of the day stays in sessions/."""
    build_pending(forker, root)
    forker.ok(root, "--action", "consolidate", now=NOW)
    for obj in ("chess", "the violin"):
        forker.ok(
            root,
            "--action",
            "remember",
            "--subject",
            "user",
            "--predicate",
            "plays",
            "--object",
            obj,
            "--category",
            "preference",
            now="2026-07-20T08:00:00Z",
        )
    forker.ok(
        root,
        "--action",
        "forget",
        "--id",
        fact_id(root, "the violin"),
        "--reason",
        "test",
        now="2026-07-20T09:00:00Z",
    )
    (root / "knowledge-graph" / "canary-facts.json").write_text(json.dumps(CANARIES, indent=2))
    forker.ok(root, "--action", "quality-probe", now="2026-07-20T10:00:00Z")
    forker.ok(root, "--action", "recall", "--query", "green tea", now="2026-07-20T11:00:00Z")
    forker.ok(root, "--action", "health-check", now="2026-07-20T12:00:00Z")


BATCH = [
    {
        "subject": "user",
        "predicate": "owns",
        "object": f"bicycle {n}",
        "text": f"The user owns bicycle number {n}.",
    }
    for n in range(6)
]


def arguments(operation: str, template: Path, batch_file: Path) -> list[str]:
    """The command line of each operation the fault tests interrupt, on build_pending."""
    return {
        "remember": [
            "--action",
            "remember",
            "--subject",
            "user",
            "--predicate",
            "lives_in",
            "--object",
            "Rome",
            "--category",
            "identity",
        ],
        "remember --from": ["--action", "remember", "--from", str(batch_file)],
        "forget": ["--action", "forget", "--id", fact_id(template, "Oslo")],
        # a turn of a session log: its line forgotten in place, the ledger of forgotten turns
        "forget --query": ["--action", "forget", "--query", "dentist", "--yes"],
        "summarize": ["--action", "summarize", "--date", "2026-07-19"],
        "recall": ["--action", "recall", "--query", "dark mode"],
        "consolidate": ["--action", "consolidate"],
        "reindex": ["--action", "reindex"],
    }[operation]


def starting_runs(forker: Forker, folder: Path, operations) -> tuple[Path, dict]:
    """build_pending in `folder`, and for each operation its command line, what an
    uninterrupted run of it did (its Outcome: calls made, bytes written) and the memory
    it left (then health-checked)."""
    template = folder / "template"
    build_pending(forker, template)
    batch_file = folder / "batch.jsonl"
    batch_file.write_text(jsonl_text(BATCH))
    runs = {}
    for operation in operations:
        baseline = copy(template, folder / f"uninterrupted {operation}")
        argv = arguments(operation, template, batch_file)
        done = forker.ok(baseline, *argv, now=NOW)
        forker.ok(baseline, "--action", "health-check", now=NOW)
        runs[operation] = (argv, done, baseline)
    return template, runs


def fact_id(root: Path, obj: str) -> str:
    for record in records(root / "knowledge-graph" / "facts.jsonl"):
        if record["object"] == obj:
            return record["id"]
    raise AssertionError(f"no fact with object {obj!r}")


def records(path: Path) -> list[dict]:
    """The lines of a JSONL file that parse (the checks below say whether any do not)."""
    if not path.exists():
        return []
    found = []
    for line in path.read_bytes().split(b"\n"):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def fact_ids(root: Path) -> set[str]:
    """Every fact id the memory holds: active or archived."""
    return {
        record["id"]
        for name in ("facts.jsonl", "archived-facts.jsonl")
        for record in records(root / "knowledge-graph" / name)
        if "id" in record
    }


def active_ids(root: Path) -> set[str]:
    return {record["id"] for record in records(root / "knowledge-graph" / "facts.jsonl")}


def findings(root: Path, *codes: str) -> list[str]:
    """The messages of the library's check (vm_memory_oracle.check) of the memory at
    `root`, of the codes given."""
    from vm_memory_oracle.check import check

    return [finding.message for finding in check(root) if finding.code in codes]


def invalid(root: Path) -> list[str]:
    """Every line and document of the memory that does not match its schema, as
    "<file>:<line>: <problem>"; a JSONL file must also end with a newline."""
    return findings(root, "invalid_line", "invalid_document")


def temporaries(root: Path) -> list[str]:
    return [message.split(":")[0] for message in findings(root, "temporary_file")]


def health(root: Path) -> dict:
    return json.loads((root / "health.json").read_text())


def index_problems(root: Path) -> list[str]:
    """How the vector index disagrees with its metadata and with the current facts."""
    return findings(root, "index_mismatch")


def derived_problems(root: Path) -> list[str]:
    """entities.jsonl and relations.jsonl against the facts they are derived from."""
    return findings(root, "derived_mismatch")


# Files a consolidation interrupted and run again must leave as an uninterrupted one does.
CONSOLIDATED = (
    "knowledge-graph/facts.jsonl",
    "knowledge-graph/archived-facts.jsonl",
    "knowledge-graph/entities.jsonl",
    "knowledge-graph/relations.jsonl",
    "activation-metadata.json",
    "MEMORY.md",
    "MEMORY.md.bak",
    "state/summarized.json",
    "embeddings/metadata.jsonl",
    "daily/2026-06-01.md",
    "daily/2026-07-19.md",
)
# The repair an interruption can leave for the next run besides its temporary file: an
# index.bin renamed before its metadata.jsonl was.
SPLIT_INDEX = "rebuilt because embeddings/index.bin and embeddings/metadata.jsonl disagree"
HEALTH_MOVING = (
    "consolidation_duration_seconds",
    "disk_usage_bytes",
    "disk_usage_percent",
    "data_path",
    "repairs",
)


def convergence_problems(data: Path, baseline: Path, operation: str) -> list[str]:
    """How `data`, interrupted during `operation` and then run again (and health-checked),
    differs from `baseline`, the same memory after an uninterrupted run."""
    problems = []
    if fact_ids(data) != fact_ids(baseline):
        problems.append(f"facts differ: {sorted(fact_ids(data) ^ fact_ids(baseline))}")
    problems += derived_problems(data)
    report = health(data)
    if operation in ("consolidate", "reindex", "recall"):
        problems += index_problems(data)
        if not report["index"]["consistent"]:
            problems.append(f"health.json: index {report['index']}")
    if operation == "consolidate":
        problems += [f"left behind: {name}" for name in temporaries(data)]
        if (data / "state" / "consolidation.json").exists():
            problems.append("the checkpoint is left")
        ours, theirs = files_of(data), files_of(baseline)
        problems += [
            f"{name} differs from an uninterrupted run's"
            for name in CONSOLIDATED
            if ours.get(name) != theirs.get(name)
        ]
        expected = health(baseline)
        problems += [
            f"health.json {key}: {value!r}, uninterrupted {expected.get(key)!r}"
            for key, value in report.items()
            if key not in HEALTH_MOVING and value != expected.get(key)
        ]
        problems += [
            f"unexpected repair: {repair['repair']}"
            for repair in report["repairs"]
            if not repair["repair"].startswith("removed 1 temporary file")
            and not repair["repair"].endswith(SPLIT_INDEX)
        ]
    if operation in ("summarize", "reindex", "consolidate"):
        problems += [
            f"{name} differs from an uninterrupted run's"
            for name in (
                "knowledge-graph/facts.jsonl",
                "embeddings/metadata.jsonl",
                "daily/2026-07-19.md",
            )
            if _bytes(data / name) != _bytes(baseline / name)
        ]
    return problems


def run_again(
    forker: Forker, data: Path, argv: list[str], operation: str, baseline: Path
) -> list[str]:
    """Run an interrupted command again and then a health check, as the next run after a
    fault would, and say what is wrong: a failure, an invalid or quarantined line, or any
    way the memory differs from `baseline`, the same memory after an uninterrupted run
    (convergence_problems). A forget run again finishes the one interrupted (from its
    journal), or finds its fact forgotten already: either way it succeeds."""
    problems = []
    again = forker.run(data, *argv, now=NOW)
    if again.code != 0:
        problems.append(f"run again exited {again.code}: {again.stderr}")
    checked = forker.run(data, "--action", "health-check", now=NOW)
    if checked.code != 0:
        return problems + [f"health-check exited {checked.code}: {checked.stderr}"]
    problems += invalid(data)
    report = health(data)
    if (report["invalid_lines"], report["quarantined_lines"]) != (0, 0):
        problems.append(
            f"health.json: {report['invalid_lines']} invalid, "
            f"{report['quarantined_lines']} quarantined"
        )
    return problems + convergence_problems(data, baseline, operation)


def _bytes(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


def files_of(root: Path, *, exclude: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Every file of the memory with its bytes, but the derived snapshots of state/cache/."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in root.rglob("*")
        if path.is_file()
        and not path.relative_to(root).as_posix().startswith("state/cache/")
        and path.name not in exclude
    }


def copy(template: Path, target: Path) -> Path:
    shutil.copytree(template, target, symlinks=True)
    return target


# -- fixtures shared by the fault tests (imported into each module) -------------------------
DEFAULT_SEED = 20260720


@pytest.fixture(scope="module")
def forker(tmp_path_factory):
    server = Forker(tmp_path_factory.mktemp("fault-server"))
    yield server
    server.close()


@pytest.fixture(scope="module")
def seed(request) -> int:
    chosen = request.config.getoption("--fault-seed")
    return DEFAULT_SEED if chosen is None else chosen


@pytest.fixture(scope="module")
def long_run(request) -> bool:
    return request.config.getoption("--long")


@pytest.fixture(scope="module")
def tally(request):
    """Counts of what a module injected and checked, written at its end (the figures)."""
    counts: Counter = Counter()
    yield counts
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None and counts:
        with capture.global_and_fixture_disabled():
            reporter.write_line(
                f"\n{request.module.__name__}: "
                + ", ".join(f"{key} {value}" for key, value in sorted(counts.items()))
            )
