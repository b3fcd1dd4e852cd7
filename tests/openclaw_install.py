"""Node 24 and the openclaw CLI from npm, installed once into a cache outside the repository
($VM_MEMORY_ORACLE_TEST_CACHE, else ~/.cache/vm-memory-oracle-tests) for the OpenClaw tests.

The first install downloads and unpacks about 840 MB, most of it waiting on the registry, so
when the OpenClaw tests are selected it starts in a background thread as soon as a worker's
tests outside tests/bench begin (conftest.py), and the tests' fixture waits for it. Workers
(and runs side by side) take turns under a lock, so one installs and the others find its
marker. Without npm, or when the registry cannot be reached, the fixture skips.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from results import TEST_CACHE  # noqa: E402  (read at import: HOME before fixtures)

OPENCLAW_VERSION = "2026.9.6"
NODE_PACKAGE = "node@24"
NETWORK_ERRORS = (
    "ENOTFOUND",
    "EAI_AGAIN",
    "ETIMEDOUT",
    "ECONNREFUSED",
    "ECONNRESET",
    "ENETUNREACH",
    "network",
    "getaddrinfo",
)


def npm_install(prefix: Path, package: str, env: dict) -> None:
    """`npm install --prefix prefix package`, once: a finished install leaves a marker. The
    workers of a run (and runs side by side) take turns: one installs, the others find its
    marker."""
    done = prefix / ".installed"
    if done.exists() and done.read_text() == package:
        return
    if shutil.which("npm", path=env["PATH"]) is None:
        pytest.skip("npm is not installed; the OpenClaw integration test needs it")
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix.with_name(prefix.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (done.exists() and done.read_text() == package):
            _npm_install(prefix, package, env)
            done.write_text(package)


def _npm_install(prefix: Path, package: str, env: dict) -> None:
    result = subprocess.run(
        ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", package],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    if result.returncode != 0:
        if any(marker in result.stderr for marker in NETWORK_ERRORS):
            pytest.skip(
                f"the npm registry cannot be reached, so OpenClaw cannot be installed: "
                f"{result.stderr.strip().splitlines()[-1]}"
            )
        raise AssertionError(f"npm install {package} failed:\n{result.stderr[-3000:]}")


def installed() -> bool:
    """Whether Node 24 and the openclaw CLI are installed in the cache already."""
    return all(
        (prefix / ".installed").is_file() and (prefix / ".installed").read_text() == package
        for prefix, package in (
            (TEST_CACHE / "node24", NODE_PACKAGE),
            (TEST_CACHE / f"openclaw-{OPENCLAW_VERSION}", f"openclaw@{OPENCLAW_VERSION}"),
        )
    )


def openclaw_environment(environ: dict) -> dict:
    """`environ` with Node 24 and the openclaw CLI first on PATH, installing them if needed."""
    env = {**environ}
    node = TEST_CACHE / "node24"
    npm_install(node, NODE_PACKAGE, env)
    env["PATH"] = f"{node / 'node_modules' / '.bin'}{os.pathsep}{env['PATH']}"
    openclaw = TEST_CACHE / f"openclaw-{OPENCLAW_VERSION}"
    # openclaw's install script checks the Node version: node 24 must already be first.
    npm_install(openclaw, f"openclaw@{OPENCLAW_VERSION}", env)
    env["PATH"] = f"{openclaw / 'node_modules' / '.bin'}{os.pathsep}{env['PATH']}"
    # Each call of the CLI would otherwise start Node twice: a launcher that starts it again
    # with a flag against experimental warnings and waits for it. OpenClaw's setting for
    # small hosts keeps it one process (what the suite's calls then ask of OpenClaw is the
    # same).
    env["OPENCLAW_NO_RESPAWN"] = "1"
    version = subprocess.run(["node", "--version"], capture_output=True, text=True, env=env)
    assert version.stdout.startswith("v24."), version.stdout
    return env


_environ: dict | None = None  # the environment as the session began, before any fixture
_installing: Future | None = None


def expect_install() -> None:
    """The OpenClaw tests are selected: keep the environment as it is now, before fixtures
    change HOME or PATH, for the install that start_install() begins."""
    global _environ
    _environ = {**os.environ}


def install_expected() -> bool:
    """Whether this run installs OpenClaw (its OpenClaw tests are selected)."""
    return _environ is not None


def start_install() -> None:
    """Begin the install in a background thread, once, if expect_install() was called."""
    global _installing
    if _environ is None or _installing is not None:
        return
    _installing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="openclaw-install").submit(
        openclaw_environment, _environ
    )


def installed_environment() -> dict:
    """The environment of the OpenClaw tests: the background install's, waited for (its
    skip or failure raised here), or one installed now."""
    if _installing is not None:
        return _installing.result()
    return openclaw_environment({**os.environ})
