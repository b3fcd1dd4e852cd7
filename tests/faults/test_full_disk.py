"""A real full disk: the memory on a small tmpfs, filled by remembering until the disk
refuses a write.

The scenario (full_disk_scenario.py) runs inside a private mount namespace
(`unshare -rm`), where a tmpfs can be mounted without touching the machine's mounts; it is
skipped, saying why, where that is not allowed. It runs the real entrypoint
(scripts/vm-memory-oracle) for every command.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checks import BUNDLE, EXAMPLES, forker, jsonl_text  # noqa: F401

SCENARIO = Path(__file__).with_name("full_disk_scenario.py")
ENTRYPOINT = BUNDLE / "scripts" / "vm-memory-oracle"
TMPFS_SIZE = "1m"
ROOM = 24 * 1024  # bytes left free before remembering starts
BATCH_SIZE = 20


def namespace_problem(scratch: Path) -> str | None:
    """Why a tmpfs cannot be mounted in a private namespace here, or None."""
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    target = scratch / "probe"
    target.mkdir()
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$0"', str(target)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:
        return f"cannot mount a tmpfs in a private mount namespace: {probe.stderr.strip()}"
    return None


def test_remembering_until_the_disk_is_full_exits_8_loses_nothing_and_recovers(forker, tmp_path):
    problem = namespace_problem(tmp_path)
    if problem:
        pytest.skip(problem)
    source = tmp_path / "memory"
    forker.ok(source, "--action", "init", now="2026-07-01T00:00:00Z")
    forker.ok(
        source, "--action", "config", "--set", "embedding_model=hash", now="2026-07-01T00:00:00Z"
    )
    forker.ok(source, "--action", "remember", "--from", str(EXAMPLES), now="2026-07-01T00:00:00Z")
    batches = tmp_path / "batches"
    batches.mkdir()
    for number in range(60):
        (batches / f"batch-{number}.jsonl").write_text(
            jsonl_text(
                {
                    "subject": "user",
                    "predicate": "noted",
                    "object": f"item {number}-{n}",
                    "text": f"The user noted item {number}-{n} on the list of things to keep.",
                }
                for n in range(BATCH_SIZE)
            )
        )
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    script = (
        f'mount -t tmpfs -o size={TMPFS_SIZE} tmpfs "$0" && exec "$1" "$2" "$0" "$3" "$4" "$5" "$6"'
    )
    scenario = subprocess.run(
        [
            "unshare",
            "-rm",
            "sh",
            "-c",
            script,
            str(mount),
            sys.executable,
            str(SCENARIO),
            str(source),
            str(batches),
            str(ENTRYPOINT),
            str(ROOM),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert scenario.returncode == 0, scenario.stderr
    result = json.loads(scenario.stdout)
    print(json.dumps(result, indent=1))

    assert "never_full" not in result, "the disk never filled up"
    assert result["batches_acknowledged"] >= 1
    refused = result["refused"]
    assert refused["code"] == 8, refused["stderr"]
    line = refused["stderr"]
    assert line.count("\n") == 1 and line.startswith(f"Error: {refused['memory']}/"), line
    assert line.endswith(": No space left on device\n"), line
    assert result["lost_when_full"] == [] and result["invalid_when_full"] == []
    reindexed = result["reindex_when_full"]
    assert reindexed["code"] == 8 and reindexed["stderr"].count("\n") == 1, reindexed
    assert reindexed["stderr"].endswith(": No space left on device\n"), reindexed
    assert result["lost_after_reindex"] == [] and result["invalid_after_reindex"] == []

    assert result["remember_again"]["code"] == 0, result["remember_again"]["stderr"]
    assert result["consolidate"]["code"] == 0, result["consolidate"]["stderr"]
    assert result["health_check"]["code"] == 0, result["health_check"]["stderr"]
    assert result["lost_at_end"] == [] and result["invalid_at_end"] == []
    assert result["health"]["active_facts"] == result["acknowledged"]
    assert result["health"]["index"]["consistent"]
