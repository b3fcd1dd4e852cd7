"""Fault injection: a warm process that forks one child per command, each child with its
faults armed.

Starting Python and importing the package costs a command most of its time, so a trial
that starts a fresh interpreter would make a hundred trials take minutes. Instead one
server process (`serve`) imports the package once and forks a child for every command it
is asked to run. The server itself never runs a command, so no thread pool (OpenMP, BLAS)
exists in it when it forks.

A child counts the calls that change files (os.write, os.fsync, os.replace, os.unlink,
os.ftruncate) and, as asked, SIGKILLs itself just before the Nth of them, raises an
OSError at the Nth call of one of them, refuses os.write with ENOSPC once K bytes were
written (to any file, or to one), or SIGKILLs itself at the fsync that follows the first
write to one file (the moment a power loss can tear that write).

The test side (`Forker`) sends one JSON request a line and reads one JSON reply a line.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

COUNTED = ("write", "fsync", "replace", "unlink", "ftruncate")
CHILD_TIMEOUT_SECONDS = 300


# -- the server and its children ------------------------------------------------------------
def serve() -> None:
    # Imported once here, so every child starts warm; import only, no work that starts
    # threads.
    import glob  # noqa: F401

    import faiss  # noqa: F401
    import numpy  # noqa: F401
    import ruamel.yaml  # noqa: F401
    from vm_memory_oracle import (  # noqa: F401
        check,
        cli,
        consolidate,
        data_directory,
        graph,
        intake,
        recall,
        semantic,
    )
    from vm_memory_oracle.embed import hashing  # noqa: F401
    from vm_memory_oracle.steps import (  # noqa: F401
        clean,
        decay,
        health,
        probe,
        prune,
        summarize,
    )
    from vm_memory_oracle.steps.memory_md import block, data_file, workspaces  # noqa: F401
    from vm_memory_oracle.storage import validation

    for name in validation.SCHEMA_NAMES:
        validation.is_valid(name, {})  # load every generated validator
    print(json.dumps({"ready": os.getpid()}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        print(json.dumps(_run(request)), flush=True)


def _run(request: dict) -> dict:
    scratch = Path(request["scratch"])
    scratch.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            code = _child(request, scratch)
        except BaseException:
            import traceback

            traceback.print_exc()  # to the child's stderr file, for the reply
            sys.stderr.flush()
        finally:
            os._exit(code)
    deadline = time.monotonic() + CHILD_TIMEOUT_SECONDS
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return {"timeout": True}
        time.sleep(0.002)
    reply = {
        "timeout": False,
        "code": None,
        "signal": None,
        "calls": {},
        "bytes": 0,
        "sizes": [],
        "truncated": [],
        "fired": None,
    }
    if os.WIFSIGNALED(status):
        reply["signal"] = os.WTERMSIG(status)
    else:
        reply["code"] = os.WEXITSTATUS(status)
    report = scratch / "report.json"
    if report.exists():
        reply.update(json.loads(report.read_text()))
        report.unlink()
    for stream in ("stdout", "stderr"):
        path = scratch / stream
        reply[stream] = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
    return reply


def _child(request: dict, scratch: Path) -> int:
    for number, name in ((1, "stdout"), (2, "stderr")):
        fd = os.open(scratch / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, number)
        os.close(fd)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
    faults = _Faults(request.get("fault"))
    originals = faults.install()
    from vm_memory_oracle.cli import main

    try:
        code = main(request["argv"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    sys.stdout.flush()
    sys.stderr.flush()
    for name, function in originals.items():
        setattr(os, name, function)
    (scratch / "report.json").write_text(
        json.dumps(
            {
                "calls": faults.calls,
                "bytes": faults.written,
                "sizes": faults.sizes,
                "truncated": faults.truncated,
                "fired": faults.fired,
            }
        )
    )
    return code


class _Faults:
    """The calls of a child, counted, and the one fault it was asked for."""

    def __init__(self, fault: dict | None):
        self.fault = fault or {}
        self.calls = {name: 0 for name in COUNTED}
        self.total = 0
        self.written = 0
        self.aimed_written = 0
        self.sizes: list[int] = []  # of each write, so tests can aim at one
        self.truncated: list[str] = []  # the file of each ftruncate
        self.fired: str | None = None
        self.armed = False

    def install(self) -> dict:
        originals = {name: getattr(os, name) for name in COUNTED}
        for name in COUNTED:
            setattr(os, name, self._wrap(name, originals[name]))
        self._original = originals
        return originals

    def _wrap(self, name: str, function):
        def call(*args, **kwargs):
            self.calls[name] += 1
            self.total += 1
            if name == "ftruncate":
                self.truncated.append(_path_of(args[0]))
            self._before(name, args)
            if name == "write":
                return self._write(function, *args)
            return function(*args, **kwargs)

        return call

    def _before(self, name: str, args: tuple) -> None:
        kind = self.fault.get("kind")
        if kind == "kill" and self.total == self.fault["at"]:
            os.kill(os.getpid(), signal.SIGKILL)
        if kind == "error" and name == self.fault["call"] and self.calls[name] == self.fault["at"]:
            self.fired = f"{name} #{self.calls[name]}"
            code = self.fault["errno"]
            raise OSError(code, os.strerror(code))
        if kind == "tear" and name in ("write", "fsync") and self._names_target(args[0]):
            if name == "write":
                self.armed = True
            elif self.armed:
                # The write reached the file; power fails before it is durable.
                os.kill(os.getpid(), signal.SIGKILL)

    def _names_target(self, fd: int) -> bool:
        return _path_of(fd) == self.fault["path"]

    def _write(self, function, fd, data):
        # With a "path", only the writes to that file meet the full disk.
        aimed = self.fault.get("kind") == "enospc" and (
            "path" not in self.fault or self._names_target(fd)
        )
        if aimed:
            used = self.aimed_written if "path" in self.fault else self.written
            room = self.fault["after_bytes"] - used
            if room <= 0 and len(data):
                self.fired = f"write after {used} bytes"
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            if len(data) > room:
                data = bytes(memoryview(data)[:room])  # a short write: the disk filled up
        written = function(fd, data)
        self.written += written
        if aimed:
            self.aimed_written += written
        self.sizes.append(written)
        return written


def _path_of(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""


# -- the test side ----------------------------------------------------------------------------
@dataclass
class Outcome:
    code: int | None
    signal: int | None
    stdout: str
    stderr: str
    calls: dict = field(default_factory=dict)
    bytes: int = 0
    sizes: list = field(default_factory=list)
    truncated: list = field(default_factory=list)  # the file of each ftruncate
    fired: str | None = None

    @property
    def killed(self) -> bool:
        return self.signal == signal.SIGKILL

    @property
    def total(self) -> int:
        return sum(self.calls.values())

    def json(self):
        return json.loads(self.stdout)


class Forker:
    """Runs CLI commands in children of one warm server process."""

    def __init__(self, scratch: Path):
        self.scratch = scratch
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
        self.process = subprocess.Popen(
            [sys.executable, "-c", "import harness; harness.serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        ready = self.process.stdout.readline()
        assert ready and "ready" in json.loads(ready), "the fault server did not start"

    def run(
        self, data: Path, *args: str, now: str | None = None, fault: dict | None = None
    ) -> Outcome:
        """`fault`: {"kind": "kill", "at": N}, {"kind": "error", "call": NAME, "at": N,
        "errno": E}, {"kind": "enospc", "after_bytes": K[, "path": FILE]} or
        {"kind": "tear", "path": FILE}; see the module's docstring."""
        argv = ["--data-path", str(data)] + (["--now", now] if now else []) + list(args)
        request = {"argv": argv, "fault": fault, "scratch": str(self.scratch)}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        reply = json.loads(self.process.stdout.readline())
        assert not reply["timeout"], f"{argv} hung (killed after {CHILD_TIMEOUT_SECONDS} s)"
        return Outcome(
            reply["code"],
            reply["signal"],
            reply["stdout"],
            reply["stderr"],
            reply["calls"],
            reply["bytes"],
            reply["sizes"],
            reply["truncated"],
            reply["fired"],
        )

    def ok(self, data: Path, *args: str, **options) -> Outcome:
        """Run a command that must succeed."""
        outcome = self.run(data, *args, **options)
        assert outcome.code == 0, f"{args} exited {outcome.code}: {outcome.stderr}"
        return outcome

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)
