"""Another revision of the repository checked out beside this tree, for the scripts that
measure this tree against it (recall_against.py, behaviour_against.py)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


@contextmanager
def checked_out(revision: str, where: Path) -> Iterator[Path]:
    """`revision` checked out at `where` (a git worktree, detached), removed after."""
    git = ["git", "-C", str(REPOSITORY), "worktree"]
    subprocess.run([*git, "add", "--detach", str(where), revision], check=True, capture_output=True)
    try:
        yield where
    finally:
        subprocess.run([*git, "remove", "--force", str(where)], check=False, capture_output=True)
