"""Options of the stress test: the bounded size by default, `--long` or `--stress-seconds N`."""

from __future__ import annotations

import pytest

BOUNDED_SECONDS = 15.0
LONG_SECONDS = 60.0


def pytest_addoption(parser):
    group = parser.getgroup("stress", "stress test (tests/stress)")
    group.addoption("--long", action="store_true", default=False,
                    help=f"run the stress test for {LONG_SECONDS:g} s instead of "
                         f"{BOUNDED_SECONDS:g} s (scripts/test tests/stress --long)")
    group.addoption("--stress-seconds", type=float, default=None, metavar="N",
                    help="run the stress test for N seconds (overrides --long)")


@pytest.fixture
def stress_seconds(request) -> float:
    """How long the workers work: --stress-seconds, else --long, else the bounded size."""
    seconds = request.config.getoption("stress_seconds", default=None)
    if seconds is None:
        long_run = request.config.getoption("long", default=False)
        seconds = LONG_SECONDS if long_run else BOUNDED_SECONDS
    if seconds <= 0:
        raise pytest.UsageError(f"--stress-seconds must be positive, got {seconds:g}")
    return seconds
