"""scripts/init_memory.sh: the workspace, and the five schedules added to the crontab once."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import BUNDLE

SCRIPT = BUNDLE / "scripts" / "init_memory.sh"
STAND_IN = BUNDLE / "tests" / "fixtures" / "crontab-stand-in"
ACTIONS = ("summarize", "consolidate", "health-check", "quality-probe", "backup")


def init_memory(*args: str, table: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    full = {**os.environ, "CRONTAB": str(STAND_IN), "CRONTAB_FILE": str(table), **(env or {})}
    return subprocess.run(
        ["bash", str(SCRIPT), *args], capture_output=True, text=True, env=full, timeout=600
    )


def test_it_lays_out_the_workspace(tmp_path):
    data = tmp_path / "memory"
    result = init_memory(str(data), table=tmp_path / "table")
    assert result.returncode == 0, result.stderr
    for name in (
        "config.yaml",
        "MEMORY.md",
        "knowledge-graph/canary-facts.json",
        "knowledge-graph/facts.jsonl",
        "activation-metadata.json",
    ):
        assert (data / name).is_file(), name
    assert json.loads((data / "knowledge-graph/canary-facts.json").read_text()) == []
    assert not (tmp_path / "table").exists()  # no --install-cron, no crontab
    again = init_memory(str(data), table=tmp_path / "table")
    assert again.returncode == 0 and "Already initialized" in again.stdout


def test_install_cron_twice_leaves_five_schedules_and_the_users_own_lines(tmp_path):
    table = tmp_path / "table"
    own = "MAILTO=ops@example.org\n# backups\n15 2 * * * /usr/local/bin/backup --all\n"
    table.write_text(own)
    data = tmp_path / "my memory"  # a space in the path
    first = init_memory(str(data), "--install-cron", table=table)
    assert first.returncode == 0, first.stderr
    assert "Added 5 schedule(s)" in first.stdout
    second = init_memory("--install-cron", str(data), table=table)
    assert second.returncode == 0, second.stderr
    assert "already has the five" in second.stdout
    lines = table.read_text().splitlines()
    assert lines[:3] == own.splitlines()
    ours = lines[3:]
    assert len(ours) == 5
    # summarize takes what is new every hour (--all: every log with lines not learned yet,
    # whatever its day); consolidate stays nightly.
    for line, action, when in zip(
        ours, ACTIONS, ("15 * * * *", "30 0 * * *", "0 */6 * * *", "0 3 * * 0", "45 1 * * *")
    ):
        extra = {"summarize": " --all", "backup": f" --to '{data}-backups'"}.get(action, "")
        assert line == (
            f"{when} '{BUNDLE}/scripts/vm-memory-oracle' --data-path '{data}' "
            f"--actor cron --action {action}{extra}"
        )
    assert Path(f"{data}-backups").is_dir()


@pytest.mark.slow
def test_the_installed_line_runs_as_cron_would(tmp_path):
    table = tmp_path / "table"
    data = tmp_path / "memory"
    assert init_memory(str(data), "--install-cron", table=table).returncode == 0
    health = [line for line in table.read_text().splitlines() if "health-check" in line][0]
    command = health.split(" ", 5)[5]
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        capture_output=True,
        text=True,
        cwd="/",
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads((data / "health.json").read_text())["status"] == "healthy"
    audit = [json.loads(line) for line in (data / "state/audit.jsonl").read_text().splitlines()]
    assert audit[0]["action"] == "init"


def test_an_empty_crontab_gets_the_five_lines(tmp_path):
    table = tmp_path / "table"
    result = init_memory(str(tmp_path / "memory"), "--install-cron", table=table)
    assert result.returncode == 0, result.stderr
    assert len(table.read_text().splitlines()) == 5


def test_a_failing_crontab_is_not_overwritten(tmp_path):
    broken = tmp_path / "crontab"
    broken.write_text("#!/bin/sh\necho 'crontab: cannot open spool directory' >&2\nexit 1\n")
    broken.chmod(0o755)
    result = init_memory(
        str(tmp_path / "memory"),
        "--install-cron",
        table=tmp_path / "table",
        env={"CRONTAB": str(broken)},
    )
    assert result.returncode == 1
    assert "Error: " in result.stderr and "cannot open spool directory" in result.stderr


def test_bad_arguments_are_refused(tmp_path):
    unknown = init_memory("--frobnicate", table=tmp_path / "table")
    assert unknown.returncode == 2 and "unknown option --frobnicate" in unknown.stderr
    two = init_memory(str(tmp_path / "a"), str(tmp_path / "b"), table=tmp_path / "table")
    assert two.returncode == 2 and "one data directory at most" in two.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def schedules_of(text: str) -> dict[str, str]:
    """action -> schedule (the five time fields) of each cron line in `text`."""
    found = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#") and "--action" in line:
            action = line.split("--action ", 1)[1].split()[0]
            found[action] = " ".join(line.split()[:5])
    return found


def test_the_example_and_the_installed_crontab_schedule_alike_summarize_hourly(tmp_path):
    table = tmp_path / "table"
    assert init_memory(str(tmp_path / "memory"), "--install-cron", table=table).returncode == 0
    example = (BUNDLE / "crontab.example").read_text()
    assert schedules_of(example) == schedules_of(table.read_text())
    assert schedules_of(example)["summarize"] == "15 * * * *"  # every hour
    assert schedules_of(example)["consolidate"] == "30 0 * * *"  # nightly
    for text in (example, table.read_text()):
        (summarize,) = [
            line
            for line in text.splitlines()
            if "--action summarize" in line and not line.startswith("#")
        ]
        assert summarize.endswith("--action summarize --all")


@pytest.mark.slow
def test_the_hourly_summarize_line_learns_a_new_conversation_as_cron_runs_it(tmp_path):
    table = tmp_path / "table"
    data = tmp_path / "memory"
    assert init_memory(str(data), "--install-cron", table=table).returncode == 0
    summarize = [line for line in table.read_text().splitlines() if "summarize" in line][0]
    command = summarize.split(" ", 5)[5]

    def as_cron() -> dict:
        done = subprocess.run(
            ["/bin/sh", "-c", command.replace("--actor cron", "--actor cron --json")],
            capture_output=True,
            text=True,
            cwd="/",
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert as_cron()["added"] == 0  # nothing said yet
    # A conversation of some day other than today's: --all takes it all the same.
    (data / "sessions" / "2026-05-14-090000.jsonl").write_text(
        json.dumps({"ts": "2026-05-14T09:00:00Z", "role": "user",
                    "text": "I am allergic to peanuts and I live in Porto."}) + "\n"
    )  # fmt: skip
    learned = as_cron()
    assert learned["added"] >= 1
    facts = (data / "knowledge-graph" / "facts.jsonl").read_text()
    assert "peanuts" in facts
    assert as_cron()["added"] == 0  # the next hour: nothing new, nothing learned again
