"""How long the stress test runs: the bounded size by default, `--long` or `--stress-seconds N`
(both options are declared in tests/conftest.py)."""

from __future__ import annotations

import pytest

BOUNDED_SECONDS = 15.0
LONG_SECONDS = 60.0


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
