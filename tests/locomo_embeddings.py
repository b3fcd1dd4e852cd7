"""The LoCoMo dev conversations embedded with the bundled model, in a background process.

Five tests read the conversations' embeddings kept in the test cache (see
benchmarks/locomo_retrieval.py, KEPT_EMBEDDINGS): the retrieval and MEMORY.md benchmarks, the
salience training check, the lexical engines' run on one conversation and the relevance
test. On a first run the ~7,200 texts take minutes of the bundled model, most of the suite's
time, while the rest of the suite leaves a core idle. So when such a test is selected,
`benchmarks/locomo_retrieval.py --embed-ahead` starts as the session begins, those tests run
last (conftest.py), and their fixture waits for it. The tests still summarize, index and
recall afresh: only the vectors, what any run would compute, are made ahead.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BUNDLE / "benchmarks"))

from locomo import dataset_path  # noqa: E402
from locomo_retrieval import KEPT_EMBEDDINGS  # noqa: E402

FIXTURE = "locomo_embeddings"

_job: subprocess.Popen | None = None
_log = None


def start() -> None:
    """Begin embedding the conversations in a child process, once (when the data is here:
    else the tests skip)."""
    global _job, _log
    if _job is not None or not dataset_path().exists():
        return
    _log = tempfile.TemporaryFile()
    _job = subprocess.Popen(
        [sys.executable, str(BUNDLE / "benchmarks" / "locomo_retrieval.py"), "--embed-ahead"],
        stdout=subprocess.DEVNULL,
        stderr=_log,
        env={**os.environ},
    )


def ready() -> Path:
    """The kept embeddings, once the child started by start(), if any, has finished; its
    failure is the test's failure."""
    if _job is not None and _job.wait() != 0:
        assert _log is not None
        _log.seek(0)
        stderr = _log.read().decode(errors="replace")
        raise AssertionError(
            f"embedding the LoCoMo conversations ahead failed (exit {_job.returncode}):\n"
            f"{stderr[-3000:]}"
        )
    return KEPT_EMBEDDINGS
