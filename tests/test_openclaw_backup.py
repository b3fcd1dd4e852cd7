"""With the real openclaw CLI: a data directory under OpenClaw's state directory is carried
by `openclaw backup create` as the plugin's manifest declares it (durable files included,
derived ones left out), and `openclaw backup restore` brings back a memory the skill reads."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from openclaw_install import installed_environment

BUNDLE = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.openclaw_agent, pytest.mark.slow]


def test_openclaw_backup_carries_and_restores_a_memory_under_its_state_directory(tmp_path, cli):
    home, state, workspace = tmp_path / "user", tmp_path / "state", tmp_path / "workspace"
    for directory in (home, state, workspace):
        directory.mkdir()
    config = {
        "update": {"checkOnStart": False},
        "agents": {"defaults": {"workspace": str(workspace)}},
    }
    (state / "openclaw.json").write_text(json.dumps(config))
    env = {
        **installed_environment(),
        "HOME": str(home),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_NO_AUTO_UPDATE": "1",
    }

    def run(*args: str, cwd: Path = tmp_path) -> subprocess.CompletedProcess:
        return subprocess.run(
            list(args),
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=1500,
        )

    data = state / "vm-memory-oracle"  # where the manifest's backupResources point
    # The plugin installed as OpenClaw installs any: its manifest is what the backup reads.
    installed = run(
        "openclaw", "plugins", "install", str(BUNDLE / "openclaw-plugin"), "--force",
        "--accept-capabilities",
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    assert cli("--action", "init", data=data).code == 0
    assert cli("--action", "config", "--set", "embedding_model=hash", data=data).code == 0
    assert (
        cli(
            "--action",
            "remember",
            "--subject",
            "user",
            "--predicate",
            "allergic_to",
            "--object",
            "peanuts",
            data=data,
        ).code
        == 0
    )
    assert cli("--action", "reindex", data=data).code == 0
    assert cli("--action", "health-check", data=data).code == 0
    assert (data / "embeddings" / "index.bin").exists() and (data / "health.json").exists()

    backups = tmp_path / "backups"
    backups.mkdir()
    created = run("openclaw", "backup", "create", "--json", cwd=backups)
    assert created.returncode == 0, created.stderr
    archive = next(backups.glob("*.tar.gz"))
    target = tmp_path / "restored"
    restored = run("openclaw", "backup", "restore", str(archive), "--target", str(target), "--json")
    assert restored.returncode == 0, restored.stderr

    carried = [
        path for path in target.rglob("vm-memory-oracle") if (path / "config.yaml").is_file()
    ]
    assert len(carried) == 1, sorted(str(path) for path in target.rglob("*"))[:50]
    memory = carried[0]
    assert (memory / "knowledge-graph" / "facts.jsonl").read_bytes() == (
        data / "knowledge-graph" / "facts.jsonl"
    ).read_bytes()
    # The derived files the manifest calls regenerable are left out, and made again on use.
    assert not (memory / "embeddings" / "index.bin").exists()
    assert not (memory / "health.json").exists()
    assert not (memory / "state" / "cache").exists()
    recalled = cli("--json", "--action", "recall", "--query", "peanuts", data=memory)
    assert recalled.code == 0, recalled.err
    assert [item["object"] for item in recalled.json()["results"]] == ["peanuts"]
    health = cli("--json", "--action", "health-check", "--repair", data=memory)
    assert health.code == 0 and health.json()["status"] == "healthy", health.out
