"""The house rules, held by the suite so that CI keeps them: ruff (lint and format) and mypy
find nothing, no line of code is longer than 100 characters, and no comment or name cites a
document that is not in the repository."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BUNDLE = Path(__file__).resolve().parents[1]
CODE = ("skill", "tests", "benchmarks", "scripts")
GENERATED = BUNDLE / "skill" / "vm_memory_oracle" / "storage" / "validators"
# Names of documents outside the repository (design notes, seeds, issue numbers): the code
# says the reason itself instead.
OUTSIDE = re.compile(
    r"DESIGN\.md|STYLE\.md|shared/seeds|\bthe seed'?s?\b|\bseeds?_(?:own|pure)"
    r"|\b(?:issue|task) #?\d+\b",
    re.IGNORECASE,
)


def _python_files() -> list[Path]:
    return [
        path
        for top in CODE
        for path in sorted((BUNDLE / top).rglob("*.py"))
        if GENERATED not in path.parents and ".venv" not in path.parts
    ]


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=BUNDLE, capture_output=True, text=True, timeout=600
    )


def test_ruff_lint_finds_nothing():
    result = _run("ruff", "check", "--no-cache", *CODE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_would_change_nothing():
    result = _run("ruff", "format", "--check", "--no-cache", *CODE)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_finds_nothing(tmp_path):
    result = _run("mypy", "--cache-dir", str(tmp_path / "mypy-cache"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_no_line_of_code_is_longer_than_100_characters():
    long = [
        f"{path.relative_to(BUNDLE)}:{number}: {len(line)} characters"
        for path in _python_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if len(line) > 100
    ]
    assert long == []


def test_nothing_cites_a_document_outside_the_repository():
    texts = [*_python_files(), *(BUNDLE / "references").glob("*.md")]
    texts += [BUNDLE / "README.md", BUNDLE / "SKILL.md", *sorted((BUNDLE / "scripts").iterdir())]
    cited = [
        f"{path.relative_to(BUNDLE)}:{number}: {match.group()}"
        for path in texts
        if path.is_file()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for match in OUTSIDE.finditer(line)
        if path.name != "test_habits.py"
    ]
    assert cited == []


PACKAGE = BUNDLE / "skill" / "vm_memory_oracle"
# What assembles the library: the store, the knowledge graph, the layout of a data
# directory, the context-free steps a command would otherwise call itself.
ASSEMBLING = re.compile(
    r"\b(?:Store|KnowledgeGraph|Layout)\(|\bfrom \.\.?(?:storage\.store|graph) import"
    r"|\brecall_many\(|\bsummarize\(graph|\brun_health_check\("
)


def test_the_command_line_and_the_recall_process_go_through_the_front_door():
    """cli/ parses and prints, serve.py reads requests and writes answers: what they do to a
    memory they ask of memory.Memory, which alone makes the store and the graph."""
    doors = [*sorted((PACKAGE / "cli").glob("*.py")), PACKAGE / "serve.py"]
    found = [
        f"{path.relative_to(BUNDLE)}:{number}: {line.strip()}"
        for path in doors
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ASSEMBLING.search(line)
    ]
    assert found == []
    front = (PACKAGE / "memory.py").read_text(encoding="utf-8")
    assert "Store(" in front and "KnowledgeGraph(" in front


def test_no_module_of_the_package_is_over_600_lines():
    """A module that long holds more than one thing; the generated validators excepted."""
    long = [
        f"{path.relative_to(BUNDLE)}: {count} lines"
        for path in sorted(PACKAGE.rglob("*.py"))
        if GENERATED not in path.parents
        and (count := len(path.read_text(encoding="utf-8").splitlines())) > 600
    ]
    assert long == []
