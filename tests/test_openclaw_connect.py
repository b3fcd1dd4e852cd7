"""Connecting the memory to OpenClaw in one step, and a set-up done by half told apart.

The plugin's findings (openclaw-plugin/setup.js, run by Node 24) are the skill's
(openclaw/state.setup_findings) on every fixture of tests/fixtures/openclaw-setup/, and its
register() logs each as one warning. `scripts/install-openclaw --plugin` is run against the
real openclaw CLI in a temporary HOME and state directory: it sets every setting the plugin
needs, which `openclaw plugins inspect` and the health check then find complete; a second
run changes nothing; the undo commands it prints restore the configuration; an error the
user can cause stops it before anything changes. Node and OpenClaw come from the test cache
(tests/openclaw_install.py).
"""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import json5
import pytest
from test_openclaw_setup import EXPECTED, FIXTURES
from vm_memory_oracle.openclaw.state import PLUGIN_ID, setup_findings

from conftest import BUNDLE
from openclaw_install import installed_environment

PLUGIN = BUNDLE / "openclaw-plugin"


@pytest.fixture(scope="module")
def node_env():
    return installed_environment()


def node(env: dict, script: str, given) -> object:
    """Run an ES module `script` with `given` (JSON) on its standard input; its JSON output."""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        input=json.dumps(given),
        capture_output=True,
        text=True,
        env=env,
        cwd=PLUGIN,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


READ_STDIN = """
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const given = JSON.parse(Buffer.concat(chunks).toString("utf8"));
"""


def test_the_plugin_and_the_skill_find_the_same_on_every_fixture(node_env):
    configs = {
        path.stem: json5.loads(path.read_text()) for path in sorted(FIXTURES.glob("*.json5"))
    }
    assert sorted(configs) == sorted(EXPECTED)
    by_js = node(
        node_env,
        'import { setupFindings } from "./setup.js";' + READ_STDIN + "const found = {};"
        "for (const [name, config] of Object.entries(given))"
        f'  found[name] = setupFindings(config, "{PLUGIN_ID}");'
        "process.stdout.write(JSON.stringify(found));",
        configs,
    )
    assert isinstance(by_js, dict)
    for name, config in configs.items():
        by_python = setup_findings(config)
        assert by_js[name] == [finding.to_json() for finding in by_python], name
        assert [finding.code for finding in by_python] == EXPECTED[name]


@pytest.mark.parametrize("name", ["empty", "plugins-install-only", "complete"])
def test_register_logs_each_finding_as_one_warning(node_env, name):
    """register() with a stand-in of OpenClaw's api: one api.logger.warn for each finding,
    naming the setting; nothing else is warned of."""
    config = json5.loads((FIXTURES / f"{name}.json5").read_text())
    logged = node(
        node_env,
        'import plugin from "./index.js";' + READ_STDIN + "const warned = [];"
        "const api = { config: given, pluginConfig: {},"
        "  logger: { warn: (line) => warned.push(line), info() {}, error() {}, debug() {} },"
        "  registerTool() {}, registerMemoryCapability() {}, on() {} };"
        "plugin.register(api);"
        "process.stdout.write(JSON.stringify(warned));",
        config,
    )
    assert logged == [f"{PLUGIN_ID}: {finding.message}" for finding in setup_findings(config)]
    assert len(logged) == len(EXPECTED[name])


# --- scripts/install-openclaw --plugin, with the real openclaw CLI ----------------------------
INSTALL = BUNDLE / "scripts" / "install-openclaw"
USER_CONFIG = """// the user's own, in JSON5
{
  update: { checkOnStart: false },
  tools: { toolSearch: { mode: "directory" } },
  agents: { defaults: { workspace: "%s" } },
}
"""


@dataclass
class Machine:
    env: dict
    state: Path
    workspace: Path
    data: Path

    def run(self, *args: str, timeout: float = 1500) -> subprocess.CompletedProcess:
        return subprocess.run(
            list(args),
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def run_at_once(self, *commands: tuple[str, ...]) -> list[subprocess.CompletedProcess]:
        """Each of `commands` run, all at once: each call of the openclaw CLI starts Node and
        loads OpenClaw, and what only reads need not wait on another."""
        with ThreadPoolExecutor(len(commands)) as pool:
            return list(pool.map(lambda command: self.run(*command), commands))

    def install(self, *args: str) -> subprocess.CompletedProcess:
        return self.run(str(INSTALL), "--plugin", "--data-path", str(self.data), *args)

    def config(self) -> dict:
        return json5.loads((self.state / "openclaw.json").read_text())


@pytest.fixture
def machine(node_env, tmp_path):
    home, state, workspace = tmp_path / "user", tmp_path / "state", tmp_path / "workspace"
    for directory in (home, state, workspace):
        directory.mkdir()
    (state / "openclaw.json").write_text(USER_CONFIG % workspace)
    env = {
        **node_env,
        "HOME": str(home),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_NO_AUTO_UPDATE": "1",
    }
    return Machine(env, state, workspace, tmp_path / "memory")


def without_empty(value):
    """A configuration as OpenClaw reads it: an empty object is the same as none, and `meta`
    is OpenClaw's own record of its writes."""
    if not isinstance(value, dict):
        return value
    kept = {key: without_empty(item) for key, item in value.items() if key != "meta"}
    return {key: item for key, item in kept.items() if item != {}}


def at(config: dict, path: str):
    for key in path.split("."):
        config = config[key]
    return config


def test_one_command_connects_the_plugin_says_what_it_changed_and_how_to_undo_it(machine):
    before = machine.config()
    first = machine.install()
    assert first.returncode == 0, first.stdout + first.stderr[-3000:]
    out = first.stdout
    entry = f"plugins.entries.{PLUGIN_ID}"
    for line in (
        f"  {entry}.enabled: unset -> true",
        f'  plugins.slots.memory: unset -> "{PLUGIN_ID}"',
        "  plugins.entries.memory-core.enabled: unset -> false",
        f"  {entry}.hooks.allowConversationAccess: unset -> true",
        '  tools.toolSearch: {"mode": "directory"} -> false',
        f'  {entry}.config.dataPath: unset -> "{machine.data}"',
        f"  data directory: created {machine.data}",
        f'  openclaw_state_dir ({machine.data}/config.yaml): null -> "{machine.state}"',
    ):
        assert line in out.splitlines(), out
    config = machine.config()
    assert at(config, "plugins.slots.memory") == PLUGIN_ID
    assert at(config, "plugins.entries.memory-core.enabled") is False
    assert at(config, f"{entry}.hooks.allowConversationAccess") is True
    assert at(config, "tools.toolSearch") is False
    assert at(config, f"{entry}.config.dataPath") == str(machine.data)
    assert setup_findings(config) == []

    # OpenClaw loads it as its memory, and neither it nor the health check finds anything undone.
    skill = machine.workspace / "skills" / PLUGIN_ID
    entrypoint = str(skill / "scripts" / "vm-memory-oracle")
    inspected, health = machine.run_at_once(
        ("openclaw", "plugins", "inspect", PLUGIN_ID, "--runtime", "--json"),
        (entrypoint, "--data-path", str(machine.data), "--json", "--action", "health-check"),
    )
    assert inspected.returncode == 0, inspected.stderr[-3000:]
    plugin = json.loads(inspected.stdout)["plugin"]
    assert plugin["status"] == "loaded" and plugin["memorySlotSelected"] is True
    assert plugin["toolNames"] == ["memory_search", "memory_get", "memory_forget"]
    assert health.returncode == 0, health.stderr
    assert json.loads(health.stdout)["openclaw"]["plugin_setup"] == []

    # A second run changes nothing, and says so.
    written = (machine.state / "openclaw.json").read_bytes()
    second = machine.install()
    assert second.returncode == 0, second.stderr[-3000:]
    assert second.stdout.startswith("Nothing to change: "), second.stdout
    assert (machine.state / "openclaw.json").read_bytes() == written

    # Half undone by hand: inspect (as text) and the health check name the setting; a run
    # puts it right, and its undo puts it back.
    turned = machine.run("openclaw", "config", "set", "plugins.entries.memory-core.enabled", "true")
    assert turned.returncode == 0, turned.stderr
    (finding,) = setup_findings(machine.config())
    shown, health = machine.run_at_once(
        ("openclaw", "plugins", "inspect", PLUGIN_ID, "--runtime"),
        (entrypoint, "--data-path", str(machine.data), "--action", "health-check"),
    )
    assert shown.returncode == 0, shown.stderr[-3000:]
    assert f"{PLUGIN_ID}: {finding.message}" in shown.stderr, shown.stderr[-3000:]
    assert f"  warning: OpenClaw's plugin is half set up: {finding.message}" in health.stdout
    fixed = machine.install()
    assert fixed.returncode == 0, fixed.stderr[-3000:]
    assert "  plugins.entries.memory-core.enabled: true -> false" in fixed.stdout
    restore = '{"plugins": {"entries": {"memory-core": {"enabled": true}}}}'
    assert f"  printf '%s\\n' '{restore}' | openclaw config patch --stdin" in fixed.stdout
    assert setup_findings(machine.config()) == []

    # The first run's undo commands, run as printed, give the configuration back.
    undo = out.split("To undo:\n", 1)[1].splitlines()
    undo = [line.strip() for line in undo if line.startswith("  ")]
    assert undo[0] == f"openclaw plugins uninstall {PLUGIN_ID} --force"
    for command in undo:
        done = machine.run("bash", "-c", command)
        assert done.returncode == 0, f"{command}: {done.stdout}{done.stderr[-2000:]}"
    assert without_empty(machine.config()) == without_empty(before)
    assert not skill.exists()


def test_errors_a_user_can_cause_are_named_and_change_nothing(machine, tmp_path):
    config = machine.state / "openclaw.json"
    config.write_text("{ plugins: { slots: [] } }")
    bad = machine.install()
    assert bad.returncode == 3, bad.stdout + bad.stderr
    (line,) = bad.stderr.splitlines()
    assert line.startswith(f"Error: {config}: plugins.slots: ") and "nothing was changed" in line
    assert config.read_text() == "{ plugins: { slots: [] } }"
    assert not (machine.workspace / "skills").exists()

    config.write_text(USER_CONFIG % machine.workspace)
    machine.data.write_text("a file")
    bad = machine.install()
    assert bad.returncode == 4, bad.stdout + bad.stderr
    assert bad.stderr == (
        f"Error: {machine.data}: not a directory (--data-path); nothing was changed\n"
    )
    assert config.read_text() == USER_CONFIG % machine.workspace

    alone = machine.run(str(INSTALL), "--data-path", str(tmp_path / "elsewhere"))
    assert alone.returncode == 2 and "--data-path is for the plugin" in alone.stderr
    assert not (machine.workspace / "skills").exists()
