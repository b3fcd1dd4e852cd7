"""What the memory needs to know of an OpenClaw installation, read from its state directory.

OpenClaw (2026.9) keeps its configuration in `<state dir>/openclaw.json` (JSON5), every
agent's transcript in `<state dir>/agents/<agent id>/agent/openclaw-agent.sqlite`, and loads
each agent's workspace `MEMORY.md` into the agent's prompt (main sessions only, as a plain
file, within `agents.defaults.bootstrapMaxChars` per file and `bootstrapTotalMaxChars` for
all bootstrap files). The agents are those the configuration lists (`agents.entries`, or
the older `agents.list`) and those with a transcript database; "main" when there are none.

Workspaces are resolved as OpenClaw does: an agent's own `workspace`; else, for the default
agent, `agents.defaults.workspace` or `<state dir>/workspace`; else, for another agent,
`<agents.defaults.workspace>/<id>` or `<state dir>/workspace-<id>`. `~` is the user's home.
Nothing here writes; a problem with a file is reported, never raised, so that the rest of
the memory goes on.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

CONFIG_NAME = "openclaw.json"
DATABASE = Path("agent") / "openclaw-agent.sqlite"
DEFAULT_AGENT = "main"
# OpenClaw 2026.9's defaults (agents.defaults.bootstrapMaxChars, bootstrapTotalMaxChars).
BOOTSTRAP_MAX_CHARS = 20_000
BOOTSTRAP_TOTAL_MAX_CHARS = 60_000
# The other files OpenClaw loads with MEMORY.md; they share the total.
BOOTSTRAP_FILES = (
    "AGENTS.md",
    "SOUL.md",
    "TOOLS.md",
    "IDENTITY.md",
    "USER.md",
    "HEARTBEAT.md",
    "BOOTSTRAP.md",
)
MAX_CONFIG_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Agent:
    id: str
    workspace: Path
    database: Path  # may not exist yet: the agent has not talked


@dataclass
class OpenClawSetup:
    state_dir: Path
    agents: list[Agent] = field(default_factory=list)
    bootstrap_max_chars: int = BOOTSTRAP_MAX_CHARS
    bootstrap_total_max_chars: int = BOOTSTRAP_TOTAL_MAX_CHARS
    problems: list[str] = field(default_factory=list)  # one line each, naming the path

    def workspaces(self) -> list[Path]:
        """Each agent's workspace, once, in agent order."""
        return list(dict.fromkeys(agent.workspace for agent in self.agents))


def read_setup(state_dir: str | Path) -> OpenClawSetup:
    """The agents, workspaces and bootstrap limits of the OpenClaw state directory."""
    state = Path(state_dir).expanduser()
    setup = OpenClawSetup(state)
    if not state.is_dir():
        setup.problems.append(
            f"{state}: OpenClaw state directory not found "
            "(openclaw_state_dir); nothing imported from OpenClaw"
        )
        return setup
    config = _read_config(state / CONFIG_NAME, setup)
    agents: dict = config["agents"] if isinstance(config.get("agents"), dict) else {}
    defaults: dict = agents["defaults"] if isinstance(agents.get("defaults"), dict) else {}
    entries = _entries(agents)
    for key, default in (
        ("bootstrapMaxChars", BOOTSTRAP_MAX_CHARS),
        ("bootstrapTotalMaxChars", BOOTSTRAP_TOTAL_MAX_CHARS),
    ):
        value = defaults.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            setup.problems.append(
                f"{state / CONFIG_NAME}: agents.defaults.{key} is not a "
                f"positive whole number ({value!r}); using {default}"
            )
            value = default
        if key == "bootstrapMaxChars":
            setup.bootstrap_max_chars = value
        else:
            setup.bootstrap_total_max_chars = value
    ids = list(entries)
    agents_dir = state / "agents"
    if agents_dir.is_dir():
        ids += sorted(
            path.name
            for path in agents_dir.iterdir()
            if (path / DATABASE).exists() and path.name not in entries
        )
    if not ids:
        ids = [DEFAULT_AGENT]
    default_id = _default_agent(entries) or (DEFAULT_AGENT if DEFAULT_AGENT in ids else ids[0])
    for agent_id in dict.fromkeys(ids):
        workspace = _workspace(agent_id, entries.get(agent_id, {}), defaults, default_id, state)
        setup.agents.append(Agent(agent_id, workspace, agents_dir / agent_id / DATABASE))
    return setup


def _read_config(path: Path, setup: OpenClawSetup) -> dict:
    """openclaw.json as a mapping; {} (OpenClaw's defaults) when missing or unreadable."""
    import json5

    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        setup.problems.append(f"{path}: cannot be read ({exc.strerror}); using OpenClaw's defaults")
        return {}
    if len(data) > MAX_CONFIG_BYTES:
        setup.problems.append(
            f"{path}: larger than {MAX_CONFIG_BYTES} bytes; using OpenClaw's defaults"
        )
        return {}
    try:
        document = json5.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        setup.problems.append(f"{path}: not UTF-8 (byte {exc.start}); using OpenClaw's defaults")
        return {}
    except ValueError as exc:
        reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        setup.problems.append(f"{path}: not JSON5 ({reason}); using OpenClaw's defaults")
        return {}
    if not isinstance(document, dict):
        setup.problems.append(f"{path}: not a JSON5 object; using OpenClaw's defaults")
        return {}
    return document


def _entries(agents: dict) -> dict[str, dict]:
    """agent id -> its settings, from `agents.entries` (id -> settings) or the older
    `agents.list` ([{id, ...}])."""
    found: dict[str, dict] = {}
    entries = agents.get("entries")
    if isinstance(entries, dict):
        for key, entry in entries.items():
            if isinstance(entry, dict) and _valid_id(key):
                found[_normal_id(key)] = entry
        return found
    listed = agents.get("list")
    if isinstance(listed, list):
        for entry in listed:
            if isinstance(entry, dict) and _valid_id(entry.get("id")):
                found.setdefault(_normal_id(entry["id"]), entry)
    return found


def _valid_id(value) -> bool:
    return (
        isinstance(value, str)
        and bool(value.strip())
        and "/" not in value
        and value.strip() not in (".", "..")
        and "\0" not in value
    )


def _normal_id(value: str) -> str:
    return value.strip().lower()


def _default_agent(entries: dict[str, dict]) -> str | None:
    for agent_id, entry in entries.items():
        if entry.get("default") is True:
            return agent_id
    return None


def _workspace(agent_id: str, entry: dict, defaults: dict, default_id: str, state: Path) -> Path:
    own = entry.get("workspace")
    if isinstance(own, str) and own.strip():
        return _user_path(own)
    shared = defaults.get("workspace")
    shared = _user_path(shared) if isinstance(shared, str) and shared.strip() else None
    if agent_id == default_id:
        return shared or state / "workspace"
    return shared / agent_id if shared else state / f"workspace-{agent_id}"


def _user_path(value: str) -> Path:
    return Path(os.path.expanduser(value.strip())).absolute()
