"""The documentation is run: every command of the walk-through of README.md and then
references/cli.md, in order, and every command SKILL.md shows the agent, each with its
documented flags, must succeed.

Set-up and installation commands run elsewhere (test_entrypoint, test_init_memory,
test_openclaw), and so do blocks marked "# not run:"; scratch paths under /tmp are moved
into the test's own directory. What the console blocks print is checked by
test_doc_outputs.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess

import pytest
from doc_examples import bundle_like, fenced_blocks, parse_block

from conftest import BUNDLE

# Commands run by other tests, or that act outside a test's reach (the user's OpenClaw
# workspace, /data/memory).
ELSEWHERE = (
    "scripts/demo",
    "scripts/test",
    "openclaw ",
    "~/.openclaw",
    "init_memory.sh",
    "install-openclaw",
    "AGENTS.md",
)
ACTIONS_SHOWN = re.compile(r"--action ([a-z-]+)")
WALK_THROUGH = ("README.md", "references/cli.md")
NOT_RUN = "# not run:"


def fenced_with_language(path) -> list[tuple[str, str]]:
    """(language, text) of each fenced block of `path`, in order."""
    return [(language, "\n".join(body)) for _, language, body in fenced_blocks(path)]


def fenced(path, languages=("sh", "bash", "shell")) -> list[str]:
    """The text of each fenced block of `path` in one of `languages` ("" for unlabelled)."""
    return [text for language, text in fenced_with_language(path) if language in languages]


def console_commands(block: str) -> list[str]:
    """The commands of a ```console block (doc_examples.parse_block reads it)."""
    return [command.text for command in parse_block("", 0, block.splitlines()).commands]


def walk_through_commands(document: str) -> list[str]:
    """The commands of `document` in order: each ```sh block whole, and each command of a
    ```console block, leaving out blocks marked "# not run:" and those run elsewhere."""
    commands = []
    for language, block in fenced_with_language(BUNDLE / document):
        if block.startswith(NOT_RUN) or any(marker in block for marker in ELSEWHERE):
            continue
        if language in ("sh", "bash", "shell"):
            commands.append(block)
        elif language == "console":
            commands.extend(console_commands(block))
    return commands


def readme_commands() -> list[str]:
    """The walk-through: the commands of README.md, then those of references/cli.md."""
    return [command for document in WALK_THROUGH for command in walk_through_commands(document)]


def skill_commands() -> list[str]:
    commands = []
    for block in fenced(BUNDLE / "SKILL.md", languages=("", "sh", "bash", "shell")):
        for line in block.splitlines():
            if (
                "{baseDir}/scripts/vm-memory-oracle --action " in line
                and "--action ACTION" not in line
            ):
                commands.append(line.strip())
    return commands


def run_shell(command: str, cwd, env) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_every_action_is_shown_in_both_documents():
    from vm_memory_oracle.cli import ACTIONS

    cli = {
        action
        for block in walk_through_commands("references/cli.md")
        for action in ACTIONS_SHOWN.findall(block)
    }
    skill = {action for line in skill_commands() for action in ACTIONS_SHOWN.findall(line)}
    assert set(ACTIONS) <= cli, set(ACTIONS) - cli
    assert set(ACTIONS) <= skill, set(ACTIONS) - skill


@pytest.mark.slow
def test_the_readme_walk_through_runs_command_by_command(tmp_path):
    workdir = bundle_like(tmp_path)
    env = {**os.environ, "HOME": str(tmp_path)}
    for block in readme_commands():
        command = block.replace("/tmp/", f"{tmp_path}/scratch-")
        result = run_shell(command, workdir, env)
        assert result.returncode == 0, f"{block}\n{result.stderr}"
    memory = workdir / "memory-example"
    assert (memory / "health.json").is_file() and (memory / "MEMORY.md.bak").is_file()
    assert (tmp_path / "scratch-sumdemo" / "daily" / "2026-05-15.md").is_file()


@pytest.mark.slow
def test_every_command_skill_md_shows_the_agent_runs(tmp_path):
    data = tmp_path / "memory"
    env = {**os.environ, "HOME": str(tmp_path), "MEMORY_ORACLE_DATA_PATH": str(data)}
    seed = run_shell(
        f"{shlex.quote(str(BUNDLE / 'scripts' / 'vm-memory-oracle'))} --action remember "
        f"--from {shlex.quote(str(BUNDLE / 'assets/examples/facts.jsonl'))}",
        tmp_path,
        env,
    )
    assert seed.returncode == 0, seed.stderr
    commands = skill_commands()
    assert len(commands) >= 10
    for line in commands:
        result = run_shell(line.replace("{baseDir}", shlex.quote(str(BUNDLE))), tmp_path, env)
        assert result.returncode == 0, f"{line}\n{result.stderr}"


@pytest.mark.parametrize("document", ["README.md", "SKILL.md", "references/cli.md"])
def test_documented_flags_exist(document):
    """Every --flag written after an action in the documents is an option of that action."""
    from vm_memory_oracle.cli import build_parser

    text = (BUNDLE / document).read_text(encoding="utf-8")
    for match in re.finditer(
        r"--action ([a-z-]+)((?: +--?[a-z][a-z-]*(?:[ =](?:\"[^\"]*\"|'[^']*'|[^\s`-][^\s`]*))?)*)",
        text,
    ):
        action, rest = match.group(1), match.group(2)
        parser = build_parser(action)
        known = {option for item in parser._actions for option in item.option_strings}
        for flag in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", rest):
            assert flag in known, f"{document}: --action {action} has no option {flag}"


def test_no_document_or_source_holds_a_merge_conflict_marker():
    marker = re.compile(r"^(<{7} |={7}$|>{7} )", re.MULTILINE)
    tracked = subprocess.run(["git", "ls-files"], cwd=BUNDLE, capture_output=True, text=True)
    names = (
        tracked.stdout.split()
        if tracked.returncode == 0
        else [
            str(path.relative_to(BUNDLE))
            for path in BUNDLE.rglob("*")
            if path.is_file() and ".venv" not in path.parts
        ]
    )
    found = [
        name
        for name in names
        if name.endswith((".md", ".py", ".json", ".yaml", ".sh"))
        and marker.search((BUNDLE / name).read_text(encoding="utf-8", errors="replace"))
    ]
    assert found == []
