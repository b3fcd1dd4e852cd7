"""The whole `recall` process against `python -c "import numpy, faiss"`, in one run.

The two commands alternate, so both see the same load on the machine; the ratio of their
medians is the figure (goal: at most 2.0 at 10,000 facts). Used by the benchmark suite,
which reports it, and by benchmarks/timing_goals.py, which checks it with retries.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
ENTRYPOINT = BUNDLE / "scripts" / "vm-memory-oracle"
QUERIES = [
    "what does the user prefer",
    "which database migration was decided",
    "who reviewed the quarterly report",
    "用户喜欢什么茶",
    "when is the TLS renewal",
    "tell me about the hiking trip",
    "what did Alice work on",
    "北京出差的安排",
]


@dataclass
class ProcessFigures:
    recall_median_s: float
    import_median_s: float
    rounds: int

    @property
    def ratio(self) -> float:
        return self.recall_median_s / self.import_median_s


def measure(data: Path, rounds: int = 21, python: str = sys.executable) -> ProcessFigures:
    """Median wall time of a recall process on `data` and of importing numpy and faiss."""
    recall = [str(ENTRYPOINT), "--data-path", str(data), "--action", "recall", "--query"]
    first = subprocess.run(recall + ["what did Alice work on"], capture_output=True, text=True)
    if first.returncode != 0:
        raise RuntimeError(f"recall failed: {first.stderr.strip()}")
    baseline, process = [], []
    for round_ in range(rounds):
        begun = time.perf_counter()
        subprocess.run([python, "-c", "import numpy, faiss"], check=True)
        baseline.append(time.perf_counter() - begun)
        begun = time.perf_counter()
        subprocess.run(recall + [QUERIES[round_ % len(QUERIES)]], capture_output=True, check=True)
        process.append(time.perf_counter() - begun)
    return ProcessFigures(statistics.median(process), statistics.median(baseline), rounds)
