"""The managed block in each OpenClaw agent workspace's own MEMORY.md, written by step 7
after the data directory's (data_file.py).

OpenClaw loads `<workspace>/MEMORY.md` into the agent's prompt in main sessions, only as a
plain file (it refuses a symbolic link or a hard-linked file) and only up to its bootstrap
limits: `bootstrapMaxChars` for the file, `bootstrapTotalMaxChars` for it and the other
bootstrap files together (AGENTS.md, SOUL.md, ...). So the block is written into that file
itself: the lines a person wrote outside the markers are kept, the file is created when
missing, and every change is a temporary file in the workspace renamed over it. The whole
file stays within the smallest of `memory_md_max_chars`, `bootstrapMaxChars` and what the
other bootstrap files leave of `bootstrapTotalMaxChars`.

Nothing else of OpenClaw's is written. A workspace that is missing, a link, or not the
user's, and a MEMORY.md that is a link (but the one the memory's old advice made, to its
own MEMORY.md, which is replaced by a plain file), a hard link or not the user's, is left
alone with a warning naming it.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import ChangedMeanwhile
from ...graph import KnowledgeGraph
from ...openclaw.ledger import ExcludedCount
from ...openclaw.state import BOOTSTRAP_FILES, OpenClawSetup, SetupFinding, read_setup
from ...storage import files
from .block import chars, reconcile
from .candidates import Shown

ATTEMPTS = 5
FILL_SHARE = 0.9
# Below this many characters left for MEMORY.md the block would hold almost nothing.
MIN_BUDGET = 200


@dataclass
class WorkspaceReport:
    written: int = 0  # files changed
    files: list[dict] = field(default_factory=list)  # {"path", "chars", "budget"}
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class AgentHealth:
    """One OpenClaw agent as health.json shows it: its workspace, its transcript database
    and whether it is there, and its workspace MEMORY.md's size and budget (the budget only
    when the file was read)."""

    id: str
    workspace: str
    database: str
    database_found: bool
    memory_md_chars: int | None = None
    memory_md_budget: int | None = None

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "id": self.id,
            "workspace": self.workspace,
            "database": self.database,
            "database_found": self.database_found,
            "memory_md_chars": self.memory_md_chars,
        }
        if self.memory_md_budget is not None:
            shown["memory_md_budget"] = self.memory_md_budget
        return shown


@dataclass(frozen=True, slots=True)
class OpenClawHealth:
    """health.json's view of the OpenClaw connection (its `openclaw`): the state directory,
    the bootstrap limits, each agent, every problem (one line each, naming the path), and
    what is left of the plugin's set-up (None when the plugin is not in use)."""

    state_dir: str
    bootstrap_max_chars: int
    bootstrap_total_max_chars: int
    agents: tuple[AgentHealth, ...]
    problems: tuple[str, ...]
    plugin_setup: tuple[SetupFinding, ...] | None = None
    # why sessions were left out (the admission settings) -> how many, and their events
    excluded: tuple[tuple[str, ExcludedCount], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "state_dir": self.state_dir,
            "bootstrap_max_chars": self.bootstrap_max_chars,
            "bootstrap_total_max_chars": self.bootstrap_total_max_chars,
            "agents": [agent.to_json() for agent in self.agents],
            "problems": list(self.problems),
            "plugin_setup": None
            if self.plugin_setup is None
            else [finding.to_json() for finding in self.plugin_setup],
            "excluded": {why: count.to_json() for why, count in self.excluded},
        }


def write_workspace_memories(
    graph: KnowledgeGraph,
    candidates: Sequence[Shown],
    setup: OpenClawSetup | None = None,
    *,
    former: dict[str, str] | None = None,
) -> WorkspaceReport:
    settings = graph.settings
    setup = setup or read_setup(settings.openclaw_state_dir or "")
    report = WorkspaceReport(warnings=[f"openclaw: {problem}" for problem in setup.problems])
    if not setup.state_dir.is_dir():
        return report
    for workspace in setup.workspaces():
        problem = workspace_problem(workspace)
        if problem:
            report.warnings.append(f"openclaw: {problem}")
            continue
        path = workspace / "MEMORY.md"
        budget = memory_budget(workspace, settings.memory_md_max_chars, setup)
        if budget < MIN_BUDGET:
            report.warnings.append(
                f"openclaw: {path}: the other bootstrap files of the workspace leave "
                f"{max(budget, 0)} of bootstrapTotalMaxChars ({setup.bootstrap_total_max_chars}) "
                "characters; MEMORY.md not written"
            )
            continue
        outcome = _write_one(graph, path, candidates, budget, former)
        if isinstance(outcome, str):
            report.warnings.append(f"openclaw: {outcome}")
            continue
        changed, text, warnings = outcome
        report.written += changed
        report.files.append({"path": str(path), "chars": chars(text), "budget": budget})
        report.warnings += [f"openclaw: {path}: {warning}" for warning in warnings]
    return report


def workspace_problem(workspace: Path) -> str | None:
    """Why the workspace's MEMORY.md must not be written, or None."""
    try:
        info = os.lstat(workspace)
    except FileNotFoundError:
        return (
            f"{workspace}: OpenClaw workspace not found (OpenClaw makes it on the agent's "
            "first run); its MEMORY.md is written by the first consolidation after that"
        )
    except OSError as exc:
        return f"{workspace}: cannot be read ({exc.strerror}); MEMORY.md not written"
    if stat.S_ISLNK(info.st_mode):
        return f"{workspace}: the workspace is a symbolic link; MEMORY.md not written"
    if not stat.S_ISDIR(info.st_mode):
        return f"{workspace}: not a directory; MEMORY.md not written"
    if info.st_uid != os.getuid():
        return (
            f"{workspace}: owned by uid {info.st_uid}, not by you (uid {os.getuid()}); "
            "MEMORY.md not written"
        )
    return None


def memory_budget(workspace: Path, max_chars: int, setup: OpenClawSetup) -> int:
    """The characters MEMORY.md may take in `workspace`."""
    others = 0
    for name in BOOTSTRAP_FILES:
        try:
            others += chars((workspace / name).read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue  # absent: OpenClaw loads nothing of it
    return min(max_chars, setup.bootstrap_max_chars, setup.bootstrap_total_max_chars - others)


def _write_one(
    graph: KnowledgeGraph,
    path: Path,
    candidates: Sequence[Shown],
    budget: int,
    former: dict[str, str] | None = None,
):
    """(changed, the file's text, warnings) or, when it was left alone, why."""
    settings = graph.settings
    max_lines = settings.memory_md_max_lines
    for _ in range(ATTEMPTS):
        state = _file_state(path, graph.layout.memory_md)
        if isinstance(state, str):
            return state
        raw, before, replace_link = state
        try:
            current = raw.decode("utf-8") if raw is not None else None
        except UnicodeDecodeError as exc:
            return f"{path}: not UTF-8 (byte {exc.start}); left as it is"
        result = reconcile(
            current,
            candidates,
            max_lines=max_lines,
            fill_lines=math.floor(FILL_SHARE * max_lines),
            max_chars=budget,
            name=str(path),
            former=former,
        )
        if not result.changed and not replace_link:
            return False, result.text, list(result.warnings)
        data = result.text.encode("utf-8")
        try:
            if before is None or replace_link:
                files.write_atomic(path, data, before_replace=_still(path, before))
            else:
                files.replace_if_unchanged(
                    path, data, size=before.st_size, mtime_ns=before.st_mtime_ns
                )
        except ChangedMeanwhile:
            continue
        graph.store.note(
            f"{path}: the managed block written ({len(result.added)} added, "
            f"{len(result.removed)} removed)"
            + (
                "; the symbolic link to this memory's MEMORY.md replaced by a plain file"
                if replace_link
                else ""
            )
        )
        return True, result.text, list(result.warnings)
    return f"{path}: kept changing while it was being written ({ATTEMPTS} tries); left as it is"


def _file_state(path: Path, own_memory: Path):
    """(bytes or None when missing, the lstat it was read with, whether it is the link to
    this memory's own MEMORY.md that is to be replaced) or why it must be left alone."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None, None, False
    if stat.S_ISLNK(info.st_mode):
        if os.path.realpath(path) == os.path.realpath(own_memory):
            return own_memory.read_bytes() if own_memory.exists() else None, info, True
        return (
            f"{path}: a symbolic link, which OpenClaw refuses to load; replace it with a "
            "plain file (or remove it: the next consolidation writes one)"
        )
    if not stat.S_ISREG(info.st_mode):
        return f"{path}: not a regular file; left as it is"
    if info.st_nlink > 1:
        return (
            f"{path}: has {info.st_nlink} hard links, which OpenClaw refuses to load; "
            "make it a plain file of its own"
        )
    if info.st_uid != os.getuid():
        return f"{path}: owned by uid {info.st_uid}, not by you; left as it is"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        return f"{path}: cannot be read ({exc.strerror}); left as it is"
    try:
        raw = b""
        while chunk := os.read(fd, 1 << 20):
            raw += chunk
    finally:
        os.close(fd)
    return raw, info, False


def _still(path: Path, before):
    """A check, just before the rename, that `path` is as it was read (`before`: its lstat,
    or None when it was missing)."""

    def check() -> None:
        try:
            now = os.lstat(path)
        except FileNotFoundError:
            if before is None:
                return
            raise ChangedMeanwhile(str(path)) from None
        if before is None or (now.st_ino, now.st_mtime_ns) != (before.st_ino, before.st_mtime_ns):
            raise ChangedMeanwhile(str(path))

    return check


def openclaw_health(settings, own_memory: Path) -> OpenClawHealth:
    """health.json's view of the OpenClaw connection: each agent, whether its transcript
    database can be read, its workspace MEMORY.md's size against its budget, and every
    problem (one line each, naming the path)."""
    from ...openclaw.transcripts import check_database

    setup = read_setup(settings.openclaw_state_dir or "")
    problems = list(setup.problems)
    agents = []
    for agent in setup.agents:
        database_found = agent.database.is_file()
        memory_md_chars = memory_md_budget = None
        if database_found:
            problem = check_database(agent.database)
            if problem:
                problems.append(problem)
        workspace = workspace_problem(agent.workspace) if setup.state_dir.is_dir() else None
        if workspace:
            problems.append(workspace)
        else:
            path = agent.workspace / "MEMORY.md"
            state = _file_state(path, own_memory) if setup.state_dir.is_dir() else None
            if isinstance(state, str):
                problems.append(state)
            elif state is not None and state[0] is not None and not state[2]:
                memory_md_chars = chars(state[0].decode("utf-8", "replace"))
                budget = memory_budget(agent.workspace, settings.memory_md_max_chars, setup)
                if memory_md_chars > setup.bootstrap_max_chars:
                    problems.append(
                        f"{path}: {memory_md_chars} characters, over "
                        f"OpenClaw's bootstrapMaxChars ({setup.bootstrap_max_chars}): "
                        "the agent sees it cut"
                    )
                memory_md_budget = budget
        agents.append(
            AgentHealth(
                agent.id,
                str(agent.workspace),
                str(agent.database),
                database_found,
                memory_md_chars,
                memory_md_budget,
            )
        )
    return OpenClawHealth(
        str(setup.state_dir),
        setup.bootstrap_max_chars,
        setup.bootstrap_total_max_chars,
        tuple(agents),
        tuple(dict.fromkeys(problems)),
    )
