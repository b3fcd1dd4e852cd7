"""Headless Chromium driven through the DevTools protocol over a pipe (--remote-debugging-pipe:
commands on its fd 3, answers and events on its fd 4, each a JSON message ended by a NUL
byte), so that no port is opened and no library is needed. Chromium comes from Debian's
packages: installed with apt-get where it is missing and this user may, else the tests
that need it are skipped, saying why."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser")


def chromium() -> tuple[str | None, str]:
    """The browser's path, or None and why there is none."""
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found, ""
    if shutil.which("apt-get") is None:
        return None, "no chromium, and no apt-get to install it with (Debian's package)"
    if os.geteuid() != 0:
        return None, "no chromium, and installing Debian's package needs root"
    done = subprocess.run(
        ["apt-get", "install", "-y", "chromium"], capture_output=True, text=True, timeout=1200
    )
    found = shutil.which("chromium")
    if found is None:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return None, f"apt-get install chromium failed (exit {done.returncode}): {tail[0]}"
    return found, ""


class Browser:
    """One headless Chromium; one page (a target) attached in flat mode."""

    def __init__(self, executable: str, profile: Path):
        self._to_reader, self._to = os.pipe()
        self._from, self._from_writer = os.pipe()
        os.set_inheritable(self._to_reader, True)
        os.set_inheritable(self._from_writer, True)
        command = [
            executable,
            "--headless",
            "--no-sandbox",  # as root in a container; the page is our own file
            "--disable-gpu",
            "--no-first-run",
            "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            "--window-size=1280,1600",
            # Any name looked up fails: a request that tried to leave the page would be seen
            # (Network events) and would go nowhere.
            "--host-resolver-rules=MAP * ~NOTFOUND",
        ]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),  # kept open by the child: _map_fds made them its pipe ends
            preexec_fn=self._map_fds,
        )
        os.close(self._to_reader)
        os.close(self._from_writer)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Network"):
            self.call(f"{domain}.enable", session=True)

    def _map_fds(self) -> None:
        """In the child: its end of each pipe made fd 3 and fd 4 (by way of fds above both,
        so that neither overwrites the other)."""
        reader = fcntl.fcntl(self._to_reader, fcntl.F_DUPFD, 10)
        writer = fcntl.fcntl(self._from_writer, fcntl.F_DUPFD, 10)
        os.dup2(reader, 3)
        os.dup2(writer, 4)

    def call(self, method: str, params: dict | None = None, *, session: bool = False) -> dict:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._to, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read(60)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def _read(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self._from, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def open(self, url: str) -> None:
        """`url` loaded, its load event fired."""
        self.events.clear()
        self.call("Page.navigate", {"url": url}, session=True)
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._read(60))

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def requests(self) -> list[str]:
        """The URL of each request the page made since it was opened."""
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def blocked(self) -> dict[str, str]:
        """The URL of each request the browser refused to send, with why ("csp": the page's
        Content-Security-Policy)."""
        urls = {
            e["params"]["requestId"]: e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        }
        return {
            urls.get(e["params"]["requestId"], "?"): e["params"]["blockedReason"]
            for e in self.events
            if e.get("method") == "Network.loadingFailed" and e["params"].get("blockedReason")
        }

    def screenshot(self, path: Path) -> Path:
        shot = self.call("Page.captureScreenshot", {"format": "png"}, session=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (OSError, RuntimeError, TimeoutError, EOFError):
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to)
        os.close(self._from)
