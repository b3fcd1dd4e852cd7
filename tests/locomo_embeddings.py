"""The LoCoMo dev conversations embedded with the bundled model, in a background process.

Five tests read the conversations' embeddings kept in the test cache (see
benchmarks/locomo_retrieval.py, KEPT_EMBEDDINGS): the retrieval and MEMORY.md benchmarks,
the salience training check, the lexical engines' run on one conversation and the relevance
test. On a first run the ~7,000 texts take minutes of the bundled model, so when such a test
is selected, one process of the run (the first worker, or the only process) starts this
module as a child as the session begins, those tests run last on a first run (conftest.py),
and their fixture, in whichever worker runs them, waits for the child's status file. The
tests still summarize, index and recall afresh: only the vectors, what any run would
compute, are made ahead.

The run's own directory (conftest.run_directory) holds the child's process id, its log and
its status; the process that began the run removes it, stopping the child if it still
runs, when the run ends.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BUNDLE / "benchmarks"))

from locomo import dataset_path  # noqa: E402
from locomo_retrieval import KEPT_EMBEDDINGS  # noqa: E402

FIXTURE = "locomo_embeddings"
WAIT_SECONDS = 3600  # the embedding takes minutes; a child that never ends is a failure
_STATUS = "locomo-embeddings.json"
_LOG = "locomo-embeddings.log"
_PID = "locomo-embeddings.pid"


def kept() -> bool:
    """Whether an earlier run kept the conversations' embeddings: this run's child then only
    checks them, and the tests that read them need not wait for it."""
    return any(KEPT_EMBEDDINGS.glob("*/cache-*.npz"))


def start(directory: Path) -> None:
    """Begin embedding the conversations in a child process, once a run (when the data is
    here: else the tests skip)."""
    if not dataset_path().exists() or (directory / _PID).exists():
        return
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / _LOG, "wb") as log:
        child = subprocess.Popen(
            [sys.executable, __file__, str(directory)],
            stdout=subprocess.DEVNULL,
            stderr=log,
            env={**os.environ},
            start_new_session=True,  # not stopped with the worker that began it
        )
    (directory / _PID).write_text(str(child.pid))


def ready(directory: Path) -> Path:
    """The kept embeddings, once the child of this run, if there is one, has finished; its
    failure is the test's failure."""
    if not (directory / _PID).exists():
        return KEPT_EMBEDDINGS
    status = directory / _STATUS
    deadline = time.monotonic() + WAIT_SECONDS
    while not status.exists():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"embedding the LoCoMo conversations ahead took over {WAIT_SECONDS} s"
            )
        time.sleep(0.5)
    code = json.loads(status.read_text())["exit"]
    if code != 0:
        stderr = (directory / _LOG).read_text(errors="replace")
        raise AssertionError(
            f"embedding the LoCoMo conversations ahead failed (exit {code}):\n{stderr[-3000:]}"
        )
    return KEPT_EMBEDDINGS


def stop(directory: Path) -> None:
    """At the end of the run: stop the child if it still runs."""
    pid = directory / _PID
    if pid.exists() and not (directory / _STATUS).exists():
        try:
            os.killpg(int(pid.read_text()), signal.SIGTERM)
        except (ProcessLookupError, PermissionError, ValueError):
            pass


def _main(directory: Path) -> int:
    from locomo_retrieval import embed_ahead

    code = 0
    try:
        with tempfile.TemporaryDirectory() as scratch:
            embed_ahead(Path(scratch))
    except BaseException:  # the status tells the waiting tests; the log, why
        traceback.print_exc()
        code = 1
    partial = directory / (_STATUS + ".partial")
    partial.write_text(json.dumps({"exit": code}))
    partial.replace(directory / _STATUS)
    return code


if __name__ == "__main__":
    sys.exit(_main(Path(sys.argv[1])))
