"""OpenClaw's gateway for the real-agent tests: started on 127.0.0.1 with a token, waited for
until it listens, and stopped with whatever of it outlives it. A gateway loads OpenClaw
once for every turn it runs, where `openclaw agent --local` loads it for each. And what
those tests watch of the memory the plugin serves: its processes, and its copies of what
was said (live learning)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import json5


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(check, what: str, timeout: float = 180):
    """What `check` returns once it is true, asked every 0.2 s for at most `timeout` s."""
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)
    return found


def start_gateway(env: dict, port: int, token: str, log: Path | None = None) -> subprocess.Popen:
    """`openclaw gateway run` on 127.0.0.1:`port`, once it listens; its output goes to `log`
    (what a failure shows), else nowhere."""
    with open(log or os.devnull, "wb") as output:
        gateway = subprocess.Popen(
            ["openclaw", "gateway", "run", "--bind", "loopback", "--auth", "token", "--token",
             token, "--port", str(port)],
            env=env, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

    def listening() -> bool:
        assert gateway.poll() is None, "the gateway ended"
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", port)) == 0

    try:
        wait_for(listening, "the gateway")
    except BaseException:
        stop_gateway(gateway)
        raise
    return gateway


def stop_gateway(gateway: subprocess.Popen, settle=None) -> None:
    """Stop the gateway, call `settle` (which waits for what the last turns asked of other
    processes to be done), and kill whatever of its process group outlived it."""
    gateway.terminate()
    try:
        gateway.wait(timeout=60)
    except subprocess.TimeoutExpired:
        gateway.kill()
        gateway.wait()
    if settle is not None:
        settle()
    try:
        os.killpg(gateway.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def memory_processes(data: Path) -> list[str]:
    """The memory processes running on the data directory `data` (the plugin's recall and
    learning processes, which outlive the agent's turn to finish what it asked of them)."""
    listed = subprocess.run(["ps", "-eo", "args="], capture_output=True, text=True).stdout
    return [line for line in listed.splitlines() if "--action serve" in line and str(data) in line]


def copied(data: Path, words: str) -> bool:
    """Whether the memory's copies of what was said hold `words`: their turn was learned."""
    return any(words in path.read_text() for path in (data / "sessions").glob("*.jsonl"))


def edit_config(state: Path, *settings: tuple[str, object]) -> None:
    """Set each (dotted path, value) in OpenClaw's configuration file in the state directory
    `state`, as a user edits it by hand: no `openclaw config set`, a start of Node that loads
    OpenClaw whole, before a gateway that reads the file as it starts (and checks it). Only
    for settings OpenClaw keeps as written, such as a plugin's config: `openclaw config set
    agents.entries.X` also keeps the main agent, which a key written here would hide."""
    path = state / "openclaw.json"
    config = json5.loads(path.read_text())
    for dotted, value in settings:
        *parents, last = dotted.split(".")
        node = config
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    path.write_text(json.dumps(config, indent=2) + "\n")
