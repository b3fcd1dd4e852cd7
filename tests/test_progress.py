"""Progress bars: on a terminal's stderr during long work, never under cron or in --json."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest

from conftest import write_jsonl

NOW = "2026-05-15T23:00:00Z"


def run(args: list[str], *, terminal: bool) -> tuple[int, str, str]:
    """The CLI in a child process, its stderr a pseudo-terminal or a pipe (as under cron)."""
    command = [sys.executable, "-m", "vm_memory_oracle", *args]
    if not terminal:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    out = child.stdout.read()
    child.wait(timeout=300)
    os.close(master)
    return child.returncode, out, seen.decode("utf-8", "replace")


@pytest.fixture
def memory(tmp_path):
    data = tmp_path / "memory"
    sessions = data / "sessions"
    sessions.mkdir(parents=True)
    for day in ("2026-05-13", "2026-05-14", "2026-05-15"):
        write_jsonl(
            sessions / f"{day}-090000.jsonl",
            [
                {
                    "ts": f"{day}T09:00:00Z",
                    "role": "user",
                    "text": f"On {day} I decided to learn Go.",
                }
            ],
        )
    return data


@pytest.mark.parametrize("action", [["summarize", "--all"], ["consolidate"], ["reindex"]])
@pytest.mark.slow
def test_long_work_draws_a_bar_on_a_terminal_and_json_stays_clean(memory, action):
    base = ["--data-path", str(memory), "--now", NOW]
    if action[0] != "summarize":
        assert run(base + ["--action", "summarize", "--all"], terminal=False)[0] == 0
    if action[0] == "reindex":
        # summarize has embedded the sentences (for salience): without its cache, the
        # rebuild embeds everything again, the long work the bar is for
        for cache in (memory / "embeddings").glob("cache-*.npz"):
            cache.unlink()
    code, out, err = run(base + ["--json", "--action", *action], terminal=True)
    assert code == 0, err
    json.loads(out)  # stdout is the JSON document alone
    assert "\r" in err and "] " in err and "[#" in err
    assert err.endswith("\r\x1b[K") or err.rstrip("\r\n").endswith("\x1b[K")


@pytest.mark.parametrize("action", [["summarize", "--all"], ["consolidate"]])
@pytest.mark.slow
def test_under_cron_stderr_is_not_a_terminal_and_no_bar_is_drawn(memory, action):
    code, out, err = run(
        ["--data-path", str(memory), "--now", NOW, "--action", *action], terminal=False
    )
    assert code == 0, err
    assert "\r" not in err and "[#" not in err
