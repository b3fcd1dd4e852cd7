"""A real full disk, run inside a private mount namespace by test_full_disk.py:

    unshare -rm sh -c 'mount -t tmpfs -o size=... tmpfs MOUNT && exec python THIS ...'

It copies a small memory onto the tmpfs at MOUNT, fills all but ROOM bytes of it with a
ballast file, then remembers batches of facts with the real entrypoint until one fails;
checks what the failure left; tries a reindex (the largest write) on the full disk; removes
the ballast; remembers the refused batch again and
consolidates. It prints one JSON object with what it saw, for the test to judge.

Arguments: MOUNT SOURCE_MEMORY BATCH_DIRECTORY ENTRYPOINT ROOM_BYTES
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from checks import fact_ids, invalid  # noqa: E402

MAX_BATCHES = 60


def main(mount: Path, source: Path, batches: Path, entrypoint: str, room: int) -> dict:
    memory = mount / "memory"
    shutil.copytree(source, memory, symlinks=True)
    ballast = mount / "ballast"
    stat = os.statvfs(mount)
    with open(ballast, "wb") as handle:
        handle.write(b"\0" * max(0, stat.f_bavail * stat.f_frsize - room))

    def run(*args: str, now: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [entrypoint, "--data-path", str(memory), "--now", now, *args],
            capture_output=True,
            text=True,
            timeout=300,
        )

    result = {"batches_acknowledged": 0, "acknowledged": 0}
    acknowledged: set[str] = set(fact_ids(memory))
    refused = None
    for number in range(MAX_BATCHES):
        batch = batches / f"batch-{number}.jsonl"
        done = run(
            "--json",
            "--action",
            "remember",
            "--from",
            str(batch),
            now=f"2026-07-20T10:{number:02d}:00Z",
        )
        if done.returncode != 0:
            refused = (batch, done)
            break
        acknowledged |= set(json.loads(done.stdout)["ids"])
        result["batches_acknowledged"] += 1
    if refused is None:
        result["never_full"] = True
        return result
    batch, done = refused
    result["refused"] = {"code": done.returncode, "stderr": done.stderr, "memory": str(memory)}
    result["acknowledged"] = len(acknowledged)
    result["lost_when_full"] = sorted(acknowledged - fact_ids(memory))
    result["invalid_when_full"] = invalid(memory)
    result["free_when_full"] = os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize
    # The vector index is the largest file: rebuilding it on the full disk is refused too.
    reindexed = run("--action", "reindex", now="2026-07-20T10:59:00Z")
    result["reindex_when_full"] = {"code": reindexed.returncode, "stderr": reindexed.stderr}
    result["lost_after_reindex"] = sorted(acknowledged - fact_ids(memory))
    result["invalid_after_reindex"] = invalid(memory)

    ballast.unlink()
    again = run("--json", "--action", "remember", "--from", str(batch), now="2026-07-20T11:00:00Z")
    result["remember_again"] = {"code": again.returncode, "stderr": again.stderr}
    if again.returncode == 0:
        acknowledged |= set(json.loads(again.stdout)["ids"])
    consolidated = run("--action", "consolidate", now="2026-07-21T00:30:00Z")
    result["consolidate"] = {"code": consolidated.returncode, "stderr": consolidated.stderr}
    checked = run("--json", "--action", "health-check", now="2026-07-21T01:00:00Z")
    result["health_check"] = {"code": checked.returncode, "stderr": checked.stderr}
    result["health"] = json.loads(checked.stdout) if checked.returncode == 0 else None
    result["lost_at_end"] = sorted(acknowledged - fact_ids(memory))
    result["invalid_at_end"] = invalid(memory)
    result["acknowledged"] = len(acknowledged)
    return result


if __name__ == "__main__":
    mount, source, batches, entrypoint, room = sys.argv[1:6]
    print(json.dumps(main(Path(mount), Path(source), Path(batches), entrypoint, int(room))))
