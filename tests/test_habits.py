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
