"""The shell entrypoint and the README's set-up commands, run for real."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from conftest import BUNDLE, ENTRYPOINT, run_entrypoint

README = BUNDLE / "README.md"


def setup_commands() -> list[str]:
    """The commands of the README's set-up section, in order."""
    text = README.read_text()
    section = text.split("## Set up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    commands, language = [], None  # language: None outside a fenced block
    for line in section.splitlines():
        if line.startswith("```"):
            language = None if language is not None else (line[3:].strip() or "sh")
        elif (
            language in ("sh", "bash", "shell")
            and line.strip()
            and not line.strip().startswith("#")
        ):
            commands.append(line.strip())
    return commands


def test_the_readme_has_exactly_two_set_up_commands_and_ci_runs_the_second():
    commands = setup_commands()
    assert len(commands) == 2, commands
    assert commands[1] == "scripts/test"
    ci = (BUNDLE / ".ci" / "run").read_text()
    assert re.search(r"^\s*(exec\s+)?(bash\s+)?scripts/test\b", ci, re.M), ci


@pytest.mark.slow
def test_the_readme_main_command_goes_from_nothing_to_a_consolidated_memory_and_an_answer(tmp_path):
    # Run from a directory that looks like the bundle root, so ./memory-demo lands in tmp.
    workdir = tmp_path / "bundle"
    workdir.mkdir()
    for name in ("scripts", "assets"):
        (workdir / name).symlink_to(BUNDLE / name)
    first = setup_commands()[0]
    result = subprocess.run(
        ["bash", "-c", first], cwd=workdir, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stderr
    data = workdir / "memory-demo"
    # consolidated: the example log summarized (then cleaned, being old), MEMORY.md written,
    # the health check done
    assert "Consolidated" in result.stdout
    assert json.loads((data / "health.json").read_text())["status"] == "healthy"
    memory = (data / "MEMORY.md").read_text()
    assert "## The user\n" in memory and "peanuts" in memory
    facts = (data / "knowledge-graph" / "facts.jsonl").read_text()
    assert "sessions/2026-05-15-090000.jsonl:" in facts and "Acme Robotics" in facts
    assert "sk-proj" not in facts + memory  # the log's planted secrets were redacted
    # and the answer
    answer = result.stdout.split("--action recall", 1)[1].splitlines()[1]
    assert "allergic to peanuts" in answer
    # again: nothing changes but the health check's time
    # (and the new run's report, state/reports/<time>.md)
    before = {
        path: path.read_bytes()
        for path in data.rglob("*")
        if path.is_file()
        and "cache" not in path.parts
        and path.name != "health.json"
        and "reports" not in path.parts
    }
    again = subprocess.run(
        ["bash", "-c", first], cwd=workdir, capture_output=True, text=True, timeout=900
    )
    assert again.returncode == 0, again.stderr
    after = {
        path: path.read_bytes()
        for path in data.rglob("*")
        if path.is_file()
        and "cache" not in path.parts
        and path.name != "health.json"
        and "reports" not in path.parts
    }
    changed = {str(path.relative_to(data)) for path in after if after[path] != before.get(path)}
    assert changed == set()


def test_the_entrypoint_works_from_any_directory_and_through_a_symlink(tmp_path):
    link = tmp_path / "bin" / "memory"
    link.parent.mkdir()
    link.symlink_to(ENTRYPOINT)
    elsewhere = tmp_path / "somewhere"
    elsewhere.mkdir()
    data = tmp_path / "memory"
    result = run_entrypoint(
        "--data-path", str(data), "--json", "--action", "init", cwd=elsewhere, entrypoint=link
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["data_path"] == str(data)
    version = run_entrypoint("--version", cwd=elsewhere)
    assert version.returncode == 0 and version.stdout.startswith("vm-memory-oracle ")
    # Installed already: a later run does not install again and prints nothing extra.
    assert version.stderr == ""


def test_the_entrypoint_maps_errors_to_exit_codes(tmp_path):
    result = run_entrypoint(
        "--data-path", str(tmp_path / "none"), "--action", "recall", "--query", "x"
    )
    assert result.returncode == 5
    assert result.stderr.startswith("Error: ")
    assert run_entrypoint("--action", "nope").returncode == 2


def test_a_reader_that_stops_reading_leaves_no_traceback(tmp_path):
    """`... | head -1`: the action is done; the closed pipe is not an error of the tool."""
    data = tmp_path / "memory"
    facts = "".join(
        json.dumps({"subject": "user", "predicate": "visited", "object": f"city {n}"}) + "\n"
        for n in range(300)
    )
    env = {**os.environ, "MEMORY_ORACLE_DATA_PATH": str(data)}
    remember = subprocess.run(
        [str(ENTRYPOINT), "--action", "remember", "--from", "-"],
        input=facts,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert remember.returncode == 0, remember.stderr
    process = subprocess.Popen(
        [str(ENTRYPOINT), "--action", "query", "--jq", ".[] | .object"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # before the tool has written anything
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=600) == 0
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
