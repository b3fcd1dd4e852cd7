"""The plugin's set-up done by half, as the skill sees it: each fixture of OpenClaw's
configuration (tests/fixtures/openclaw-setup/) gives the findings it should, and the health
check reports them, naming the setting, when OpenClaw's configuration installs the plugin.
The plugin's own findings (openclaw-plugin/setup.js) are held to the same fixtures in
tests/test_openclaw_connect.py, which needs Node."""

from __future__ import annotations

import json
from pathlib import Path

import json5
import pytest
from vm_memory_oracle.openclaw.state import PLUGIN_ID, plugin_setup, setup_findings

from conftest import BUNDLE

FIXTURES = BUNDLE / "tests" / "fixtures" / "openclaw-setup"
SLOT, CORE, ACCESS, SEARCH = "memory_slot", "memory_core", "conversation_access", "tool_search"
ALL = [SLOT, CORE, ACCESS, SEARCH]
# What each fixture leaves undone, in the order the findings come.
EXPECTED = {
    "complete": [],
    "plugins-install-only": [CORE, ACCESS, SEARCH],
    "empty": ALL,
    "another-memory-in-the-slot": [SLOT],
    "memory-slot-off": [SLOT],
    "slot-with-spaces": [],
    "memory-core-denied": [],
    "memory-core-enabled": [CORE],
    "access-as-a-string": [ACCESS],
    "access-under-config": [ACCESS],
    "tool-search-true": [SEARCH],
    "tool-search-null": [],
    "tool-search-directory-mode": [SEARCH],
    "tool-search-disabled-object": [],
    "tool-search-enabled-object": [SEARCH],
    "tool-search-empty-object": [],
    "tool-search-string": [],
    "tool-search-unset": [SEARCH],
    "wrong-shapes": ALL,
}
SETTINGS = {
    SLOT: ("plugins.slots.memory", PLUGIN_ID),
    CORE: ("plugins.entries.memory-core.enabled", False),
    ACCESS: (f"plugins.entries.{PLUGIN_ID}.hooks.allowConversationAccess", True),
    SEARCH: ("tools.toolSearch", False),
}


def fixture_config(name: str) -> dict:
    return json5.loads((FIXTURES / f"{name}.json5").read_text())


def test_every_fixture_has_its_expected_findings():
    assert sorted(path.stem for path in FIXTURES.glob("*.json5")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_fixture_gives_the_findings_it_should_naming_setting_and_value(name):
    found = setup_findings(fixture_config(name))
    assert [finding.code for finding in found] == EXPECTED[name]
    for finding in found:
        setting, value = SETTINGS[finding.code]
        assert (finding.setting, finding.value) == (setting, value)
        assert finding.message.startswith(f"{setting} is ")
        assert f"set it to {json.dumps(value)}" in finding.message


def test_a_finding_shows_the_value_there_and_the_command_that_sets_the_right_one():
    found = {f.code: f.message for f in setup_findings(fixture_config("empty"))}
    assert found[SLOT].startswith("plugins.slots.memory is unset: ")
    assert found[SLOT].endswith(
        'set it to "vm-memory-oracle" (openclaw config set plugins.slots.memory vm-memory-oracle)'
    )
    other = setup_findings(fixture_config("another-memory-in-the-slot"))[0].message
    assert other.startswith('plugins.slots.memory is "memory-lancedb": ')
    search = setup_findings(fixture_config("tool-search-directory-mode"))[0].message
    assert search.startswith('tools.toolSearch is {"mode":"directory"}: ')
    assert search.endswith("(openclaw config set tools.toolSearch false)")


# --- the health check ------------------------------------------------------------------------


@pytest.fixture
def state(tmp_path) -> Path:
    path = tmp_path / "openclaw-state"
    (path / "workspace").mkdir(parents=True)  # the default agent's, as OpenClaw makes it
    return path


@pytest.fixture
def connected(cli, state):
    assert cli("--action", "init").code == 0
    assert cli("--action", "config", "--set", "embedding_model=hash").code == 0
    assert cli("--action", "config", "--set", f"openclaw_state_dir={state}").code == 0
    return cli


def configure(state: Path, name: str) -> None:
    (state / "openclaw.json").write_text((FIXTURES / f"{name}.json5").read_text())


def health(cli) -> tuple[dict, list[str]]:
    as_json = cli("--json", "--action", "health-check")
    assert as_json.code == 0, as_json.err
    text = cli("--action", "health-check")
    assert text.code == 0, text.err
    return as_json.json(), text.out.splitlines()


@pytest.mark.parametrize("name", ["plugins-install-only", "empty", "tool-search-true"])
def test_health_check_reports_each_half_set_up_finding_naming_the_setting(
    connected, state, data_dir, name
):
    configure(state, name)
    if name == "empty":  # installed, and the configuration does not name it yet
        (state / "extensions" / PLUGIN_ID).mkdir(parents=True)
    document, lines = health(connected)
    setup = document["openclaw"]["plugin_setup"]
    assert [finding["code"] for finding in setup] == EXPECTED[name]
    reported = [f for f in document["findings"] if f["code"] == "openclaw_setup"]
    assert len(reported) == len(EXPECTED[name])
    assert document["status"] == "degraded"
    for code, finding in zip(EXPECTED[name], reported):
        setting, value = SETTINGS[code]
        assert finding["severity"] == "warning"
        assert finding["message"].startswith(f"OpenClaw's plugin is half set up: {setting} is ")
        assert f"set it to {json.dumps(value)}" in finding["message"]
        assert any(line == f"  warning: {finding['message']}" for line in lines), lines
    written = json.loads((data_dir / "health.json").read_text())
    assert written["openclaw"]["plugin_setup"] == setup


def test_a_complete_set_up_is_healthy(connected, state):
    configure(state, "complete")
    document, lines = health(connected)
    assert document["openclaw"]["plugin_setup"] == []
    assert not [f for f in document["findings"] if f["code"] == "openclaw_setup"]
    assert document["status"] == "healthy", document["findings"]
    assert lines[0].startswith("healthy: ")


@pytest.mark.parametrize(
    "config",
    [
        {},  # the plugin is not installed: OpenClaw's own memory is the user's choice
        {"plugins": {"entries": {PLUGIN_ID: {"enabled": False}}}},
        {"plugins": {"enabled": False, "slots": {"memory": PLUGIN_ID}}},
        {"plugins": {"deny": [PLUGIN_ID], "entries": {PLUGIN_ID: {}}}},
    ],
    ids=["not-installed", "disabled", "plugins-off", "denied"],
)
def test_no_finding_when_the_plugin_is_not_in_use(connected, state, config):
    (state / "openclaw.json").write_text(json.dumps(config))
    document, _ = health(connected)
    assert document["openclaw"]["plugin_setup"] is None
    assert not [f for f in document["findings"] if f["code"] == "openclaw_setup"]
    assert plugin_setup(state) is None


def test_an_unreadable_config_is_reported_once_and_not_as_set_up_findings(connected, state):
    (state / "openclaw.json").write_text("{ plugins: ")
    (state / "extensions" / PLUGIN_ID).mkdir(parents=True)
    document, _ = health(connected)
    assert document["openclaw"]["plugin_setup"] is None  # nothing to tell from it
    assert [f["code"] for f in document["findings"]] == ["openclaw"]
    assert "openclaw.json: not JSON5" in document["openclaw"]["problems"][0]
