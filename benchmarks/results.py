"""Where benchmarks leave their figures: benchmarks/output/<name>.json, one file a benchmark,
replaced by each run, with the time and the machine it was measured on. The directory is not
part of the bundle (it is git-ignored); a person reads it, nothing asserts on it."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

OUTPUT = Path(
    os.environ.get("VM_MEMORY_ORACLE_BENCH_OUTPUT") or Path(__file__).resolve().parent / "output"
)
# Where the tests and benchmarks keep what they download or compute once and reuse in later
# runs (OpenClaw from npm, the LoCoMo conversations' embeddings): outside the repository.
TEST_CACHE = Path(
    os.environ.get("VM_MEMORY_ORACLE_TEST_CACHE")
    or Path.home() / ".cache" / "vm-memory-oracle-tests"
)


def machine() -> dict:
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def record(name: str, figures: dict) -> Path:
    """Write `figures` as benchmarks/output/<name>.json and return its path."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / f"{name}.json"
    payload = {
        "benchmark": name,
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine(),
        "figures": figures,
    }
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return path


@dataclass
class Timed:
    """What `timed` measured: the last round's result and each round's seconds."""

    result: object
    seconds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def timed(run, *, rounds: int, setup=None, args: tuple = ()) -> Timed:
    """`run(*args)` `rounds` times, each after `setup()` when given (untimed; it returns the
    round's arguments), with the seconds each round took."""
    seconds, result = [], None
    for _ in range(rounds):
        arguments = setup() if setup is not None else args
        started = time.perf_counter()
        result = run(*arguments)
        seconds.append(time.perf_counter() - started)
    return Timed(result, seconds)
