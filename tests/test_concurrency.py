"""Several writers at once (agent sessions and cron): nothing lost, nothing corrupted."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import BUNDLE, ENTRYPOINT, activation_state

REMEMBERER = """
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from vm_memory_oracle.cli import main
data, worker, count = sys.argv[2], sys.argv[3], int(sys.argv[4])
for i in range(count):
    code = main(["--data-path", data, "--action", "remember", "--subject", f"worker {worker}",
                 "--predicate", "counted", "--object", f"item {i}"])
    assert code == 0, code
"""

RECALLER = """
import sys
sys.path.insert(0, sys.argv[1])
from vm_memory_oracle.cli import main
data, count = sys.argv[2], int(sys.argv[3])
for i in range(count):
    assert main(["--data-path", data, "--json", "--action", "recall", "--query", "Berlin"]) == 0
"""


def start(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, str(BUNDLE / "skill"), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(processes) -> None:
    for process in processes:
        _, err = process.communicate(timeout=600)
        assert process.returncode == 0, err


@pytest.mark.slow
def test_four_processes_remembering_250_facts_each_leave_exactly_1000_lines(data_dir):
    finish([start(REMEMBERER, str(data_dir), str(worker), "250") for worker in range(4)])

    lines = (data_dir / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    assert len(lines) == 1000
    facts = [json.loads(line) for line in lines]
    assert len({fact["id"] for fact in facts}) == 1000
    assert {fact["subject"] for fact in facts} == {f"worker {n}" for n in range(4)}
    assert set(activation_state(data_dir)) == {fact["id"] for fact in facts}
    relations = [
        json.loads(line)
        for line in (data_dir / "knowledge-graph" / "relations.jsonl").read_text().splitlines()
    ]
    assert relations == [{"predicate": "counted", "count": 1000}]
    assert not (data_dir / "knowledge-graph" / "facts.quarantine.jsonl").exists()


@pytest.mark.slow
def test_concurrent_recalls_lose_no_boost(cli, data_dir):
    cli(
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "lives_in",
        "--object",
        "Berlin",
        now=None,
    )
    # What is under test is the boost; the hashing embedder keeps 120 process starts short.
    cli("--action", "config", "--set", "embedding_model=hash")
    finish([start(RECALLER, str(data_dir), "40") for _ in range(3)])
    [entry] = activation_state(data_dir).values()
    assert entry.access_count == 120


@pytest.mark.slow
def test_entrypoint_processes_writing_at_once(data_dir):
    """The real shell entrypoint, several at once, as cron and agent sessions would run it."""
    processes = [
        subprocess.Popen(
            [
                str(ENTRYPOINT),
                "--data-path",
                str(data_dir),
                "--action",
                "remember",
                "--subject",
                f"session {n}",
                "--predicate",
                "said",
                "--object",
                "hello",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(6)
    ]
    finish(processes)
    lines = (data_dir / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["subject"] for line in lines) == [
        f"session {n}" for n in range(6)
    ]


def test_a_writer_finishes_a_layout_another_writer_is_still_making(cli, data_dir):
    # Another writer has made the data directory and knowledge-graph/ so far, not yet
    # state/, which holds the lock: a remember must not take the layout as made.
    (data_dir / "knowledge-graph").mkdir(mode=0o700, parents=True)
    data_dir.chmod(0o700)
    result = cli(
        "--action", "remember", "--subject", "user", "--predicate", "lives_in", "--object", "Porto"
    )
    assert result.code == 0, result.err
    assert (data_dir / "state").is_dir()
    assert len((data_dir / "knowledge-graph" / "facts.jsonl").read_text().splitlines()) == 1
