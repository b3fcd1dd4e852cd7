"""The command line surface: init, config, help, exit codes, data path resolution."""

from __future__ import annotations

import json
import stat
import time

import pytest
from vm_memory_oracle.cli import ACTIONS, main

from conftest import BUNDLE, data_files, python_child


def test_init_creates_the_layout_private_to_the_user(cli, data_dir):
    result = cli("--json", "--action", "init")
    assert result.code == 0, result.err
    for folder in ("knowledge-graph", "embeddings", "daily", "sessions", "state"):
        assert stat.S_IMODE((data_dir / folder).stat().st_mode) == 0o700
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    for name in (
        "config.yaml",
        "MEMORY.md",
        "activation-metadata.json",
        "knowledge-graph/canary-facts.json",
        "knowledge-graph/facts.jsonl",
        "knowledge-graph/archived-facts.jsonl",
        "knowledge-graph/entities.jsonl",
        "knowledge-graph/relations.jsonl",
    ):
        assert (data_dir / name).is_file(), name
        assert stat.S_IMODE((data_dir / name).stat().st_mode) == 0o600, name
    assert (data_dir / "config.yaml").read_bytes() == (
        BUNDLE / "assets/templates/config.yaml"
    ).read_bytes()
    assert "<!-- vm-memory-oracle:begin -->" in (data_dir / "MEMORY.md").read_text()
    assert json.loads((data_dir / "knowledge-graph/canary-facts.json").read_text()) == []


def test_init_twice_changes_nothing(cli, data_dir):
    cli("--action", "init")
    (data_dir / "MEMORY.md").write_text("# my own notes\n")
    snapshot = data_files(data_dir)
    result = cli("--json", "--action", "init")
    assert result.code == 0 and result.json()["created"] == []
    assert data_files(data_dir) == snapshot


def test_help_exists_for_every_action(capsys):
    for action in ACTIONS:
        with pytest.raises(SystemExit) as exit_info:
            from vm_memory_oracle.cli import parse_arguments

            parse_arguments(["--action", action, "--help"])
        assert exit_info.value.code == 0
        out = capsys.readouterr().out
        assert "--data-path" in out
        if action not in ("init", "reindex", "quality-probe", "serve"):  # no options of their own
            assert f"{action} options" in out
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(action in out for action in ACTIONS) and "exit codes" in out


def test_usage_errors_exit_2(cli, capsys):
    assert cli("--action", "teleport").code == 2
    assert main([]) == 2
    assert "--action is required" in capsys.readouterr().err
    assert cli("--action", "recall", "--query", "x", "--subject", "y").code == 2
    result = cli("--action", "init", now="yesterday")
    assert result.code == 2 and "--now is not an ISO-8601 date-time: 'yesterday'" in result.err


LIKES = ("--subject", "user", "--predicate", "likes", "--object")


def test_memory_oracle_now_is_the_default_of_now(cli, data_dir, monkeypatch):
    monkeypatch.setenv("MEMORY_ORACLE_NOW", "2026-05-20T09:00:00Z")
    assert cli("--action", "init", now=None).code == 0
    assert cli("--action", "remember", *LIKES, "tea", now=None).code == 0
    created = json.loads((data_dir / "knowledge-graph/facts.jsonl").read_text())["created"]
    assert created == "2026-05-20T09:00:00Z"
    # --now wins over the variable.
    cli("--action", "remember", *LIKES, "coffee", now="2026-05-21T00:00:00Z")
    lines = (data_dir / "knowledge-graph/facts.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["created"] == "2026-05-21T00:00:00Z"
    monkeypatch.setenv("MEMORY_ORACLE_NOW", "soon")
    before = sorted(path.stat().st_mtime_ns for path in data_dir.rglob("*") if path.is_file())
    result = cli("--action", "remember", *LIKES, "juice", now=None)
    assert result.code == 2
    assert "$MEMORY_ORACLE_NOW is not an ISO-8601 date-time: 'soon'" in result.err
    after = sorted(path.stat().st_mtime_ns for path in data_dir.rglob("*") if path.is_file())
    assert before == after


def test_data_path_precedence(tmp_path, monkeypatch, capsys):
    flag, env, configured = tmp_path / "flag", tmp_path / "env", tmp_path / "configured"
    config = tmp_path / "oracle.yaml"
    config.write_text(f"memory_oracle:\n  data_path: {configured}\n")

    def data_path(*extra):
        assert main(["--json", *extra, "--action", "config"]) == 0
        return json.loads(capsys.readouterr().out)["data_path"]

    assert data_path("--config", str(config)) == str(configured)
    monkeypatch.setenv("MEMORY_ORACLE_CONFIG", str(config))
    assert data_path() == str(configured)
    monkeypatch.setenv("MEMORY_ORACLE_DATA_PATH", str(env))
    assert data_path() == str(env)
    assert data_path("--data-path", str(flag)) == str(flag)
    monkeypatch.delenv("MEMORY_ORACLE_DATA_PATH")
    monkeypatch.delenv("MEMORY_ORACLE_CONFIG")
    assert data_path() == "/data/memory"


def test_the_data_directory_config_is_used_but_cannot_move_it(cli, data_dir):
    cli("--action", "init")
    (data_dir / "config.yaml").write_text(
        "memory_oracle:\n  recall_k: 3\n  data_path: /elsewhere\n"
    )
    payload = cli("--json", "--action", "config").json()
    assert payload["settings"]["recall_k"] == 3
    assert payload["data_path"] == payload["settings"]["data_path"] == str(data_dir)
    assert f'data_path: "{data_dir}"' in cli("--action", "config").out


@pytest.mark.parametrize(
    "body, message",
    [
        ("memory_oracle:\n  half_life: 30\n", "unknown key memory_oracle.half_life"),
        (
            "memory_oracle:\n  recall_boost: 1.5\n",
            "memory_oracle.recall_boost must be in [0, 1], got 1.5",
        ),
        ("memory_oracle:\n  max_facts: many\n", "memory_oracle.max_facts must be a whole number"),
        (
            "memory_oracle:\n  half_life_days: 0\n",
            "memory_oracle.half_life_days must be in (0, 3650]",
        ),
        (
            "memory_oracle:\n  search_threshold: true\n",
            "memory_oracle.search_threshold must be a number",
        ),
        (
            "memory_oracle:\n  prune_threshold: 0.3\n",
            "prune_threshold (0.3) must not exceed search_threshold",
        ),
        (
            "memory_oracle:\n  canary_check_interval: hourly\n",
            "must be one of daily, weekly, monthly",
        ),
        ("memory_oracle: [1, 2]\n", "memory_oracle: must be a mapping"),
        ("memory_oracle:\n  recall_k: [\n", "invalid YAML"),
    ],
)
def test_bad_config_is_refused_naming_the_key(cli, data_dir, body, message):
    cli("--action", "init")
    (data_dir / "config.yaml").write_text(body)
    before = data_files(data_dir)
    result = cli("--action", "remember", "--subject", "a", "--predicate", "b", "--object", "c")
    assert result.code == 3
    assert result.err.startswith(f"Error: {data_dir / 'config.yaml'}")
    assert message in result.err
    assert data_files(data_dir) == before


def test_config_set_keeps_comments_and_refuses_bad_values(cli, data_dir):
    cli("--action", "init")
    config = data_dir / "config.yaml"
    result = cli("--json", "--action", "config", "--set", "half_life_days=45")
    assert result.code == 0, result.err
    assert result.json()["settings"]["half_life_days"] == 45
    text = config.read_text()
    assert "half_life_days: 45" in text
    assert "# Activation halves every half_life_days without recall" in text
    assert (
        text.replace("half_life_days: 45", "half_life_days: 30")
        == (BUNDLE / "assets/templates/config.yaml").read_text()
    )
    result = cli("--action", "config", "--set", "recall_boost=2")
    assert result.code == 3 and "recall_boost must be in [0, 1]" in result.err
    assert "recall_boost: 0.3" in config.read_text()
    assert cli("--action", "config", "--set", "nonsense").code == 2


def test_a_planted_symlink_exits_5_and_changes_nothing(cli, data_dir, tmp_path):
    cli("--action", "init")
    outside = tmp_path / "outside.jsonl"
    outside.write_text("")
    facts = data_dir / "knowledge-graph" / "facts.jsonl"
    facts.unlink()
    facts.symlink_to(outside)
    result = cli("--action", "remember", "--subject", "a", "--predicate", "b", "--object", "c")
    assert result.code == 5
    assert result.err == (
        f"Error: {facts}: is a symlink; refusing to follow links inside the "
        f"data directory; remove it (rm {facts}) and put the real file or "
        "directory there\n"
    )
    assert outside.read_text() == ""


def test_a_data_directory_that_cannot_be_created_exits_5(cli, tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    result = cli(
        "--action",
        "remember",
        "--subject",
        "a",
        "--predicate",
        "b",
        "--object",
        "c",
        data=blocker / "memory",
    )
    assert result.code == 5
    assert result.err.startswith(f"Error: {blocker / 'memory'}: cannot create: ")
    assert blocker.read_text() == ""


HOLDER = """
import sys, time
sys.path.insert(0, sys.argv[2])
from vm_memory_oracle.storage.locks import exclusive
from pathlib import Path
with exclusive(Path(sys.argv[1]), 5, "test holder"):
    print("held", flush=True)
    time.sleep(30)
"""


@pytest.mark.slow
def test_a_lock_held_too_long_exits_4_naming_the_holder(cli, data_dir):
    cli("--action", "init")
    (data_dir / "config.yaml").write_text("memory_oracle:\n  lock_timeout_seconds: 0.5\n")
    before = (data_dir / "knowledge-graph" / "facts.jsonl").read_bytes()
    holder = python_child(HOLDER, str(data_dir / "state" / "memory.lock"), str(BUNDLE / "skill"))
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        result = cli("--action", "remember", "--subject", "a", "--predicate", "b", "--object", "c")
        waited = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()
    assert result.code == 4
    assert f"could not lock {data_dir / 'state' / 'memory.lock'} within 0.5s" in result.err
    assert f"held by pid {holder.pid} (test holder)" in result.err
    assert waited >= 0.5
    assert (data_dir / "knowledge-graph" / "facts.jsonl").read_bytes() == before


def test_the_holder_name_is_cleared_when_the_lock_is_released(cli, data_dir):
    assert (
        cli("--action", "remember", "--subject", "a", "--predicate", "b", "--object", "c").code == 0
    )
    assert (data_dir / "state" / "memory.lock.holder").read_text() == ""


def test_a_former_key_set_in_a_file_of_an_earlier_version_takes_effect(cli, data_dir):
    assert cli("--action", "init").code == 0
    config = data_dir / "config.yaml"
    text = config.read_text().replace("approximate_min_facts: 20000", "hnsw_min_facts: 50000")
    config.write_text(text)
    shown = cli("--json", "--action", "config").json()["settings"]
    assert shown["approximate_min_facts"] == 50000  # the former name is read
    result = cli("--json", "--action", "config", "--set", "hnsw_min_facts=7")
    assert result.code == 0, result.err
    assert result.json()["settings"]["approximate_min_facts"] == 7
    assert cli("--json", "--action", "config").json()["settings"]["approximate_min_facts"] == 7
