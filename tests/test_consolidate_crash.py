"""A consolidation killed with SIGKILL at 20 points, then run again, ends as if never killed.

The child process counts the calls that change files (os.write, os.fsync, os.replace,
os.unlink) and kills itself just before the Nth; the points are spread evenly over an
uninterrupted run, so they fall in every step: between a temporary file's write and its
rename, between the archive's append and the rewrite of facts.jsonl, between a summary's
facts and its ledger, and so on.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_jsonl

NOW = "2026-07-20T00:30:00Z"
KILLS = 20
CHILD = r"""
import os, signal, sys
kill_at = int(sys.argv[2])
count = 0

def counted(function):
    def call(*args, **kwargs):
        global count
        count += 1
        if count == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return function(*args, **kwargs)
    return call

for name in ("write", "fsync", "replace", "unlink"):
    setattr(os, name, counted(getattr(os, name)))
from vm_memory_oracle.cli import main
code = main(["--data-path", sys.argv[1], "--now", sys.argv[3], "--action", "consolidate"])
sys.stdout.write(f"\nwrites {count}\n")
sys.exit(code)
"""
# Files compared byte for byte with the uninterrupted run.
COMPARED = (
    "knowledge-graph/facts.jsonl",
    "knowledge-graph/archived-facts.jsonl",
    "knowledge-graph/entities.jsonl",
    "knowledge-graph/relations.jsonl",
    "activation-metadata.json",
    "MEMORY.md",
    "MEMORY.md.bak",
    "state/summarized.json",
    "embeddings/metadata.jsonl",
)
# Measurements of the run itself, not of the memory.
HEALTH_MOVING = (
    "consolidation_duration_seconds",
    "disk_usage_bytes",
    "disk_usage_percent",
    "data_path",
)


def run_child(data: Path, kill_at: int = 0) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(data), str(kill_at), NOW],
        capture_output=True,
        text=True,
        timeout=300,
    )


def build_memory(root: Path, cli) -> None:
    def run(*args, now):
        result = cli(*args, now=now, data=root)
        assert result.code == 0, result.err

    run("--action", "init", now="2026-01-01T00:00:00Z")
    run("--action", "config", "--set", "embedding_model=hash", now="2026-01-01T00:00:00Z")
    run("--action", "remember", "--from", "assets/examples/facts.jsonl", now="2026-01-01T00:00:00Z")
    run(
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "visited",
        "--object",
        "Oslo",
        now="2026-01-01T00:00:00Z",
    )
    run(
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "lives_in",
        "--object",
        "Porto",
        now="2026-07-01T00:00:00Z",
    )
    run("--action", "recall", "--query", "dark mode", now="2026-07-10T00:00:00Z")
    refs = root.parent / "refs"  # beside every copy of the memory, so all see the same files
    refs.mkdir(exist_ok=True)
    (refs / "plan.md").write_text("plan")
    run("--action", "config", "--set", f'path_check_roots=["{refs}"]', now="2026-07-10T00:00:00Z")
    for predicate, obj in (
        ("drafted_in", f"{refs}/draft.md"),
        ("documented_in", f"{refs}/plan.md and {refs}/old.md"),
    ):
        run(
            "--action",
            "remember",
            "--subject",
            "launch",
            "--predicate",
            predicate,
            "--object",
            obj,
            now="2026-07-10T00:00:00Z",
        )
    sessions = root / "sessions"
    write_jsonl(
        sessions / "2026-06-01-080000.jsonl",
        [
            {
                "ts": "2026-06-01T08:00:00Z",
                "role": "user",
                "text": "I prefer green tea in the morning.",
            },
            {
                "ts": "2026-06-01T08:05:00Z",
                "role": "user",
                "text": "My sister Ana lives in Madrid.",
            },
        ],
    )
    write_jsonl(
        sessions / "2026-07-19-210000.jsonl",
        [
            {
                "ts": "2026-07-19T21:00:00Z",
                "role": "user",
                "text": "Remember that my dentist is Dr. Silva.",
            },
            {
                "ts": "2026-07-19T21:02:00Z",
                "role": "user",
                "text": "I prefer green tea in the morning.",
            },
            {"ts": "2026-07-19T21:04:00Z", "role": "user", "text": "I moved to Lisbon last week."},
            {
                "ts": "2026-07-19T21:06:00Z",
                "role": "user",
                "text": "I like the editor in dark mode.",
            },
        ],
    )
    (root / "daily" / "2025-06-01.md").write_text("# 2025-06-01\n")
    (root / "MEMORY.md").write_text(
        "# MEMORY\n\nMine: water the plants.\n\n"
        "<!-- vm-memory-oracle:begin -->\n<!-- vm-memory-oracle:end -->\n"
    )


def outcome(root: Path) -> dict:
    from vm_memory_oracle.semantic.vectors import VectorIndex

    state = {
        name: (root / name).read_bytes() if (root / name).exists() else None for name in COMPARED
    }
    for folder in ("daily", "sessions"):
        state[folder] = {path.name: path.read_bytes() for path in (root / folder).iterdir()}
    health = json.loads((root / "health.json").read_text())
    state["health"] = {key: value for key, value in health.items() if key not in HEALTH_MOVING}
    metadata = [
        json.loads(line) for line in (root / "embeddings/metadata.jsonl").read_text().splitlines()
    ]
    index = VectorIndex.load(root / "embeddings" / "index.bin", metadata[0]["dimension"])
    state["index ids"] = sorted(index.ids().tolist())
    state["checkpoint left"] = (root / "state" / "consolidation.json").exists()
    journal = root / "state" / "activation-journal.jsonl"
    state["journal"] = journal.read_text() if journal.exists() else ""
    return state


def every_line_valid(root: Path) -> None:
    from vm_memory_oracle.storage.layout import Layout
    from vm_memory_oracle.storage.store import Store

    layout = Layout(root)
    store = Store(layout, lock_timeout=5, timestamp=NOW)
    for path, kind in (
        (layout.facts, "fact"),
        (layout.archive, "archived-fact"),
        (layout.entities, "entity"),
        (layout.relations, "relation"),
        (layout.vector_metadata, "vector-metadata"),
        (layout.audit_log, "audit-entry"),
        (layout.activation_journal, "activation-journal"),
    ):
        _, bad = store.peek_records(path, kind)
        assert bad == 0, f"{path} has {bad} invalid line(s)"
    _, damaged = store.peek_activation()
    assert not damaged
    if layout.checkpoint.exists():
        store.read_json_file(layout.checkpoint, "consolidation-checkpoint")


def fact_ids(root: Path) -> set[str]:
    ids = set()
    for name in ("facts.jsonl", "archived-facts.jsonl"):
        path = root / "knowledge-graph" / name
        ids |= {json.loads(line)["id"] for line in path.read_text().splitlines() if line.strip()}
    return ids


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    """The starting memory, and the outcome of consolidating it without interruption."""
    from vm_memory_oracle.cli import main

    from conftest import Result

    root = tmp_path_factory.mktemp("crash") / "start"

    def cli(*args, now, data):
        import contextlib
        import io

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--data-path", str(data), "--now", now, *args])
        return Result(code, out.getvalue(), err.getvalue())

    build_memory(root, cli)
    baseline = root.with_name("uninterrupted")
    shutil.copytree(root, baseline)
    result = run_child(baseline)
    assert result.returncode == 0, result.stderr
    writes = int(result.stdout.rsplit("writes", 1)[1])
    return root, outcome(baseline), writes, fact_ids(baseline)


def test_the_uninterrupted_run_does_every_step(memory):
    root, expected, writes, ids = memory
    assert writes > 60  # enough points to spread 20 kills over
    assert "water the plants" in expected["MEMORY.md"].decode()
    assert "2026-06-01-080000.jsonl" not in expected["sessions"]  # cleaned after summarizing
    assert "2025-06-01.md" not in expected["daily"]
    archive = expected["knowledge-graph/archived-facts.jsonl"].decode()
    assert "superseded by" in archive and "pruned: activation" in archive
    assert "stale: every path it names is gone" in archive
    assert "merged into fact-" in archive  # the dark mode preference, said again
    assert [entry["gone"] for entry in expected["health"]["stale_references"]] == [
        [str(root.parent / "refs" / "old.md")]
    ]
    assert fact_ids(root) <= ids


@pytest.mark.parametrize("kill", range(KILLS))
def test_a_consolidation_killed_then_run_again_ends_as_if_never_killed(memory, tmp_path, kill):
    root, expected, writes, ids = memory
    point = 1 + round(kill * (writes - 1) / (KILLS - 1))
    data = tmp_path / "memory"
    shutil.copytree(root, data)
    killed = run_child(data, kill_at=point)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    every_line_valid(data)
    assert fact_ids(root) <= fact_ids(data)  # no fact lost at the moment of the kill
    interrupted = (data / "state" / "consolidation.json").exists()
    resumed = run_child(data)
    assert resumed.returncode == 0, resumed.stderr
    assert (
        "resuming the consolidation started at 2026-07-20T00:30:00Z" in resumed.stderr
    ) is interrupted
    every_line_valid(data)
    actual = outcome(data)
    # What the resumed run mended is reported (temporary files the kill left, an index
    # saved without its metadata, rebuilt from the embedding cache), and is the only way
    # its health report may differ.
    repairs = actual["health"].pop("repairs")
    assert all(
        repair["repair"].startswith("removed 1 temporary file(s)")
        or repair["repair"].endswith(
            "rebuilt because embeddings/index.bin and embeddings/metadata.jsonl disagree"
        )
        for repair in repairs
    ), repairs
    actual["health"]["repairs"] = expected["health"]["repairs"]
    assert {
        key: value
        for key, value in actual["health"].items()
        if value != expected["health"].get(key)
    } == {}
    assert actual == expected
    assert fact_ids(data) == ids
