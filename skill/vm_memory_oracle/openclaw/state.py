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

When the configuration installs this bundle's plugin (openclaw-plugin/), `plugin_setup`
lists what is left of a set-up done by half: each setting that keeps OpenClaw from asking
this memory (`setup_findings`; openclaw-plugin/setup.js holds the same rules for the plugin
itself, and the two agree on every fixture of tests/fixtures/openclaw-setup/).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
PLUGIN_ID = "vm-memory-oracle"


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


@dataclass(frozen=True, slots=True)
class OpenClawConfig:
    """openclaw.json as read: the JSON5 object itself (OpenClaw's, read as it is; empty,
    meaning OpenClaw's defaults, when missing or unreadable) and the problems that made it
    read as empty (one line each, naming the file)."""

    document: Mapping[str, Any]
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AgentEntry:
    """What the configuration says of one agent: its own workspace, if it names one, and
    whether it is the default agent."""

    workspace: object = None  # as written; used when a non-blank string
    default: bool = False


@dataclass(frozen=True, slots=True)
class SetupFinding:
    """A setting that keeps OpenClaw from asking the plugin for its memory: the setting,
    the value to set it to, and the message (openclaw-plugin/setup.js's findings)."""

    code: str
    setting: str
    value: Any
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "setting": self.setting,
            "value": self.value,
            "message": self.message,
        }


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
    config = _read_config(state / CONFIG_NAME, setup.problems)
    agents = _mapping(config.get("agents"))
    defaults = _mapping(agents.get("defaults"))
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
        workspace = _workspace(
            agent_id, entries.get(agent_id, AgentEntry()), defaults, default_id, state
        )
        setup.agents.append(Agent(agent_id, workspace, agents_dir / agent_id / DATABASE))
    return setup


def _read_config(path: Path, problems: list[str]) -> Mapping[str, Any]:
    """openclaw.json's object; {} (OpenClaw's defaults) when missing or unreadable, with
    why added to `problems`."""
    import json5

    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        problems.append(f"{path}: cannot be read ({exc.strerror}); using OpenClaw's defaults")
        return {}
    if len(data) > MAX_CONFIG_BYTES:
        problems.append(f"{path}: larger than {MAX_CONFIG_BYTES} bytes; using OpenClaw's defaults")
        return {}
    try:
        document = json5.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        problems.append(f"{path}: not UTF-8 (byte {exc.start}); using OpenClaw's defaults")
        return {}
    except ValueError as exc:
        reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        problems.append(f"{path}: not JSON5 ({reason}); using OpenClaw's defaults")
        return {}
    if not isinstance(document, dict):
        problems.append(f"{path}: not a JSON5 object; using OpenClaw's defaults")
        return {}
    return document


def _entries(agents: Mapping[str, Any]) -> dict[str, AgentEntry]:
    """agent id -> its settings, from `agents.entries` (id -> settings) or the older
    `agents.list` ([{id, ...}])."""
    found: dict[str, AgentEntry] = {}
    entries = agents.get("entries")
    if isinstance(entries, dict):
        for key, entry in entries.items():
            if isinstance(entry, dict) and _valid_id(key):
                found[_normal_id(key)] = _agent_entry(entry)
        return found
    listed = agents.get("list")
    if isinstance(listed, list):
        for entry in listed:
            if isinstance(entry, dict) and _valid_id(entry.get("id")):
                found.setdefault(_normal_id(entry["id"]), _agent_entry(entry))
    return found


def _agent_entry(entry: Mapping[str, Any]) -> AgentEntry:
    return AgentEntry(entry.get("workspace"), entry.get("default") is True)


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


def _default_agent(entries: dict[str, AgentEntry]) -> str | None:
    for agent_id, entry in entries.items():
        if entry.default:
            return agent_id
    return None


def _workspace(
    agent_id: str, entry: AgentEntry, defaults: Mapping[str, Any], default_id: str, state: Path
) -> Path:
    own = entry.workspace
    if isinstance(own, str) and own.strip():
        return _user_path(own)
    shared = defaults.get("workspace")
    shared = _user_path(shared) if isinstance(shared, str) and shared.strip() else None
    if agent_id == default_id:
        return shared or state / "workspace"
    return shared / agent_id if shared else state / f"workspace-{agent_id}"


def _user_path(value: str) -> Path:
    return Path(os.path.expanduser(value.strip())).absolute()


# -- the plugin's set-up -----------------------------------------------------------------------
_ABSENT: Any = object()  # a key not in the configuration (JSON null is a value)

_SETUP_REASONS = {
    "memory_slot": "another memory plugin holds the memory slot and answers memory_search",
    "memory_core": "OpenClaw's memory-core stays on, and its own memory_search answers "
    "instead of this memory",
    "conversation_access": "OpenClaw withholds the conversation from the plugin's hooks, so "
    "auto-recall adds nothing and turns are learned only at compaction, at a session's end "
    "and by the nightly summarize, not as each ends",
    "tool_search": "tool search is on, so memory_search is offered only to a model that "
    "searches its tools",
}


def setup_findings(config: Mapping[str, Any], plugin_id: str = PLUGIN_ID) -> list[SetupFinding]:
    """What keeps OpenClaw, configured by `config` (openclaw.json's object), from asking
    the plugin `plugin_id` for its memory: one finding for each setting to change, its
    `value` the one to set, in a fixed order (the memory slot,
    memory-core, conversation access, tool search). openclaw-plugin/setup.js's
    setupFindings is the same function."""
    plugins = _mapping(config.get("plugins"))
    entries = _mapping(plugins.get("entries"))
    found: list[SetupFinding] = []

    def finding(code: str, setting: str, current: Any, value: Any) -> None:
        found.append(
            SetupFinding(
                code,
                setting,
                value,
                f"{setting} is {_shown(current)}: {_SETUP_REASONS[code]}; "
                f"set it to {_json(value)} (openclaw config set {setting} {_typed(value)})",
            )
        )

    slot = _mapping(plugins.get("slots")).get("memory", _ABSENT)
    if not (isinstance(slot, str) and slot.strip() == plugin_id):
        finding("memory_slot", "plugins.slots.memory", slot, plugin_id)
    core = _mapping(entries.get("memory-core")).get("enabled", _ABSENT)
    if core is not False and "memory-core" not in _denied(plugins):
        finding("memory_core", "plugins.entries.memory-core.enabled", core, False)
    hooks = _mapping(_mapping(entries.get(plugin_id)).get("hooks"))
    access = hooks.get("allowConversationAccess", _ABSENT)
    if access is not True:
        setting = f"plugins.entries.{plugin_id}.hooks.allowConversationAccess"
        finding("conversation_access", setting, access, True)
    search = _mapping(config.get("tools")).get("toolSearch", _ABSENT)
    if tool_search_on(search):
        finding("tool_search", "tools.toolSearch", search, False)
    return found


def tool_search_on(value: Any) -> bool:
    """Whether `tools.toolSearch` (`_ABSENT` when unset) leaves OpenClaw's tool search on,
    as OpenClaw 2026.9 reads it: on when unset or true; an object is on unless its
    `enabled` is false, or it holds nothing but `enabled`; off for anything else."""
    if value is _ABSENT or value is True:
        return True
    if isinstance(value, dict):
        enabled = value.get("enabled")
        if isinstance(enabled, bool):
            return enabled
        return any(key != "enabled" for key in value)
    return False


def plugin_setup(state_dir: str | Path, plugin_id: str = PLUGIN_ID) -> list[SetupFinding] | None:
    """setup_findings of `<state dir>/openclaw.json` when it installs the plugin (its
    `plugins.entries` or memory slot names it, or it is installed in `<state dir>/extensions/`)
    and does not turn it off; None when the plugin is not in use there, or the state
    directory or its configuration cannot be read (read_setup reports why)."""
    state = Path(state_dir).expanduser()
    if not state.is_dir():
        return None
    read = read_config(state / CONFIG_NAME)
    if read.problems:
        return None
    config = read.document
    plugins = _mapping(config.get("plugins"))
    entries = _mapping(plugins.get("entries"))
    slot = _mapping(plugins.get("slots")).get("memory")
    named = (
        isinstance(entries.get(plugin_id), dict)
        or (isinstance(slot, str) and slot.strip() == plugin_id)
        or (state / "extensions" / plugin_id).is_dir()
    )
    off = (
        plugins.get("enabled") is False
        or _mapping(entries.get(plugin_id)).get("enabled") is False
        or plugin_id in _denied(plugins)
    )
    if not named or off:
        return None
    return setup_findings(config, plugin_id)


def read_config(path: str | Path) -> OpenClawConfig:
    """openclaw.json at `path` (empty when missing), and the problems that made it read as
    empty."""
    problems: list[str] = []
    document = _read_config(Path(path), problems)
    return OpenClawConfig(document, tuple(problems))


def _mapping(value: Any) -> Mapping[str, Any]:
    """`value` when it is a JSON object, else an empty one: OpenClaw's defaults."""
    return value if isinstance(value, dict) else {}


def _denied(plugins: Mapping[str, Any]) -> set[str]:
    deny = plugins.get("deny")
    if not isinstance(deny, list):
        return set()
    return {item.strip().lower() for item in deny if isinstance(item, str)}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _typed(value: Any) -> str:
    """`value` as `openclaw config set` takes it on a command line: a plugin id bare (read
    as a string), true and false as they are (read as JSON5)."""
    return value if isinstance(value, str) else _json(value)


def _shown(value: Any) -> str:
    return "unset" if value is _ABSENT else _json(value)
