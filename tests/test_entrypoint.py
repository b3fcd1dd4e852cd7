"""The shell entrypoint and the README's set-up commands, run for real."""

from __future__ import annotations

import json
import re
import subprocess

from conftest import BUNDLE, ENTRYPOINT, run_entrypoint

README = BUNDLE / "README.md"


def setup_commands() -> list[str]:
    """The commands of the README's set-up section, in order."""
    text = README.read_text()
    section = text.split("## Set up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(?:sh|bash|shell)?\n(.*?)```", section, re.S)
    return [line.strip() for block in blocks for line in block.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def test_the_readme_has_exactly_two_set_up_commands_and_ci_runs_the_second():
    commands = setup_commands()
    assert len(commands) == 2, commands
    assert commands[1] == "scripts/test"
    ci = (BUNDLE / ".ci" / "run").read_text()
    assert re.search(r"^\s*(exec\s+)?(bash\s+)?scripts/test\b", ci, re.M), ci


def test_the_readme_main_command_works_as_written(tmp_path):
    # Run from a directory that looks like the bundle root, so ./memory-demo lands in tmp.
    workdir = tmp_path / "bundle"
    workdir.mkdir()
    for name in ("scripts", "assets"):
        (workdir / name).symlink_to(BUNDLE / name)
    first = setup_commands()[0]
    result = subprocess.run(["bash", "-c", first], cwd=workdir, capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stderr
    data = workdir / "memory-demo"
    facts = (data / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    example = (BUNDLE / "assets/examples/facts.jsonl").read_text().splitlines()
    assert len(facts) == len(example)
    recall = run_entrypoint("--data-path", str(data), "--json", "--action", "recall",
                            "--query", "peanuts", cwd=workdir)
    assert recall.returncode == 0, recall.stderr
    assert json.loads(recall.stdout)["results"][0]["object"] == "peanuts"


def test_the_entrypoint_works_from_any_directory_and_through_a_symlink(tmp_path):
    link = tmp_path / "bin" / "memory"
    link.parent.mkdir()
    link.symlink_to(ENTRYPOINT)
    elsewhere = tmp_path / "somewhere"
    elsewhere.mkdir()
    data = tmp_path / "memory"
    result = run_entrypoint("--data-path", str(data), "--json", "--action", "init",
                            cwd=elsewhere, entrypoint=link)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["data_path"] == str(data)
    version = run_entrypoint("--version", cwd=elsewhere)
    assert version.returncode == 0 and version.stdout.startswith("vm-memory-oracle ")
    # Installed already: a later run does not install again and prints nothing extra.
    assert version.stderr == ""


def test_the_entrypoint_maps_errors_to_exit_codes(tmp_path):
    result = run_entrypoint("--data-path", str(tmp_path / "none"), "--action", "recall",
                            "--query", "x")
    assert result.returncode == 5
    assert result.stderr.startswith("Error: ")
    assert run_entrypoint("--action", "nope").returncode == 2
