"""Connecting the memory to OpenClaw in one step, and a set-up done by half told apart.

The plugin's findings (openclaw-plugin/setup.js, run by Node 24) are the skill's
(openclaw_state.setup_findings) on every fixture of tests/fixtures/openclaw-setup/, and its
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

import json5
import pytest
from test_openclaw_setup import EXPECTED, FIXTURES
from vm_memory_oracle.openclaw_state import PLUGIN_ID, setup_findings

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
        assert by_js[name] == by_python, name
        assert [finding["code"] for finding in by_python] == EXPECTED[name]


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
    assert logged == [f"{PLUGIN_ID}: {finding['message']}" for finding in setup_findings(config)]
    assert len(logged) == len(EXPECTED[name])
