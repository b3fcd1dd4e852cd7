"""Fixtures: a fresh data directory and an isolated HOME for every test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests hold for every example, however long one takes: on a loaded machine an
# example can take seconds, which is no failure of the code (hypothesis's default deadline
# of 200 ms, and its health check of slow data generation, would call it one).
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")

# The embedding engine and FAISS run on OpenMP threads, which by default spin on a core
# after each step they share, waiting for the next one, before they sleep. With two workers
# on two cores (and the benchmarks of others beside them) the spinning takes the core from
# the thread that has the work: a recall process embedding its queries burned 11 to 16 s of
# processor time where it needed 0.8. Threads that sleep at once compute the same vectors;
# the tests' processes and every process they start inherit the setting.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# NumPy's OpenBLAS threads do the same for up to 2**28 cycles; 2**4 is its shortest wait.
# The threads and their shares of the work stay as they were, so the results do too: the
# salience training check (the same weights to the bit) took 26 s of processor time beside
# another worker, was 36 to 44.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

BUNDLE = Path(__file__).resolve().parents[1]
ENTRYPOINT = BUNDLE / "scripts" / "vm-memory-oracle"
NOW = "2026-05-15T14:30:00Z"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MEMORY_ORACLE_DATA_PATH", raising=False)
    monkeypatch.delenv("MEMORY_ORACLE_CONFIG", raising=False)
    return home


@pytest.fixture
def data_dir(tmp_path) -> Path:
    return tmp_path / "memory"


@pytest.fixture
def store(data_dir):
    """A store over a new data directory, stamping its writes with NOW."""
    from vm_memory_oracle.data_directory import initialize
    from vm_memory_oracle.storage.layout import Layout
    from vm_memory_oracle.storage.store import Store

    layout = Layout(data_dir)
    initialize(layout)
    return Store(layout, lock_timeout=5, timestamp=NOW)


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)

    def json_lines(self):
        return [json.loads(line) for line in self.out.splitlines() if line.strip()]


@pytest.fixture
def cli(data_dir, capsys):
    """Run the CLI in-process against the test's data directory."""
    from vm_memory_oracle.cli import main

    def run(*args: str, data: Path | None = data_dir, now: str | None = NOW) -> Result:
        argv = []
        if data is not None:
            argv += ["--data-path", str(data)]
        if now is not None:
            argv += ["--now", now]
        capsys.readouterr()
        code = main(argv + list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def hash_embedder(cli) -> None:
    """Initialize the test's data directory with the hashing embedder (fast, no model)."""
    assert cli("--action", "init").code == 0
    assert cli("--action", "config", "--set", "embedding_model=hash").code == 0


def run_entrypoint(
    *args: str,
    cwd: Path | None = None,
    env: dict | None = None,
    entrypoint: Path = ENTRYPOINT,
    stdin: str | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess:
    """The real shell entrypoint in a child process."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [str(entrypoint), *args],
        cwd=cwd,
        env=full_env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def write_jsonl(path: Path, records) -> Path:
    path.write_text(
        "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records),
        encoding="utf-8",
    )
    return path


def log_turns(data_dir: Path, turns, name: str) -> Path:
    """Append (role, text) `turns` to the session log sessions/`name` of `data_dir`, said a
    minute apart from 09:00 on the log's day."""
    sessions = data_dir / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    path = sessions / name
    day = name[:10]
    with path.open("a", encoding="utf-8") as handle:
        for number, (role, text) in enumerate(turns):
            record = {"ts": f"{day}T09:{number:02d}:00Z", "role": role, "text": text}
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def summarized_allergy(cli, data_dir: Path) -> Path:
    """A session log where the user says they are allergic to peanuts (line 1) and that
    their sister Maya lives in Porto (line 3), summarized; returns the log."""
    log = log_turns(
        data_dir,
        [
            ("user", "I'm allergic to peanuts, so please keep that in mind."),
            ("assistant", "Noted: I will keep peanuts out of every recipe I suggest."),
            ("user", "My sister Maya lives in Porto and teaches chemistry."),
        ],
        "2026-05-14-090000.jsonl",
    )
    assert cli("--action", "summarize", "--all").code == 0
    return log


def remember_records(cli, path: Path, records, *, now: str = NOW) -> None:
    """Remember `records` (fact fields) through the CLI at `now`, from a JSONL file at
    `path`."""
    result = cli("--action", "remember", "--from", str(write_jsonl(path, records)), now=now)
    assert result.code == 0, result.err


def cache_random_vectors(data: Path) -> None:
    """Put random vectors of the bundled model in the embedding cache of every fact of the
    memory at `data` (benchmarks/synthetic.py): a reindex then embeds nothing, and no fact is
    found by meaning."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from vm_memory_oracle.clock import parse_iso
    from vm_memory_oracle.config import Settings
    from vm_memory_oracle.embed.bundled import MODEL_ID
    from vm_memory_oracle.memory import Memory

    import synthetic

    memory = Memory.open(data, Settings(), now=parse_iso("2026-05-15T00:00:00Z"))
    synthetic.cache_random_vectors(memory.graph(), model_id=MODEL_ID)


def recall_results(cli, query: str, *, now: str = NOW) -> list[dict]:
    """The results of a recall of `query` through the CLI at `now`, without the boost."""
    result = cli("--json", "--action", "recall", "--query", query, "--no-boost", now=now)
    assert result.code == 0, result.err
    return result.json()["results"]


def fact_of(record: dict):
    """A Fact of the fields a test names; the required ones it leaves out get test values
    (the id from subject, predicate and object, as new_fact makes it)."""
    from vm_memory_oracle.model.fact import Fact, fact_id

    defaults = {
        "source": "user-stated",
        "created": NOW,
        "activation": 1.0,
    }
    if "id" not in record:
        defaults["id"] = fact_id(record["subject"], record["predicate"], record["object"])
    return Fact.from_record({**defaults, **record})


def python_child(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def data_files(data_dir: Path, *, exclude: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Every file of a data directory by relative path, with its bytes; state/cache/ (derived
    snapshots, rebuilt at will) and the names in `exclude` left out."""
    found = {}
    for path in data_dir.rglob("*"):
        relative = path.relative_to(data_dir).as_posix()
        if path.is_file() and not relative.startswith("state/cache/") and path.name not in exclude:
            found[relative] = path.read_bytes()
    return found


def activation_state(data_dir: Path) -> dict[str, dict]:
    """The activation state as the tool sees it: the file with its journal applied."""
    from vm_memory_oracle.clock import parse_iso
    from vm_memory_oracle.config import Settings
    from vm_memory_oracle.memory import Memory

    settings = Settings(lock_timeout_seconds=5)
    return Memory.open(data_dir, settings, now=parse_iso(NOW)).store().read_activation()


def pytest_addoption(parser):
    group = parser.getgroup("long runs (tests/stress, tests/faults)")
    group.addoption(
        "--long",
        action="store_true",
        help="run the stress test for 60 s instead of 15 s, the fault injection "
        "tests at full size (1000 SIGKILL trials, more fault points and "
        "truncation offsets) and the recall latency benchmark at 100,000 facts too",
    )
    group.addoption(
        "--stress-seconds",
        type=float,
        default=None,
        metavar="N",
        help="run the stress test for N seconds (overrides --long)",
    )
    group.addoption(
        "--fault-seed",
        type=int,
        default=None,
        metavar="N",
        help="seed of the fault injection tests' random choices (default: fixed)",
    )


# The fast lane (`pytest -m "not slow"`) leaves these out whole: the benchmarks, the stress
# and fault-injection runs (hundreds of killed and restarted processes) and the real
# OpenClaw agent. Single slow tests elsewhere carry @pytest.mark.slow themselves.
SLOW_PLACES = (
    BUNDLE / "tests" / "bench",
    BUNDLE / "tests" / "stress",
    BUNDLE / "tests" / "faults",
    BUNDLE / "tests" / "test_openclaw.py",
    BUNDLE / "tests" / "test_openclaw_plugin.py",
    BUNDLE / "tests" / "test_openclaw_connect.py",
    BUNDLE / "tests" / "test_openclaw_trust.py",
    BUNDLE / "tests" / "test_consolidate_crash.py",
)


# The files that take longest, longest first (references/reliability.md lists the slowest
# tests): the workers are handed whole files (scripts/test: --dist loadfile) in the order of
# the collection, so these go first and the many short files fill in beside them, and no
# worker is left running a long file at the end while the other has nothing to do. The files
# after them go by their number of tests, most first: a file of a few tests that takes ten
# seconds or more is listed here, else it would be among the last handed out.
LONGEST_FIRST = (
    BUNDLE / "tests" / "test_openclaw.py",
    BUNDLE / "tests" / "test_openclaw_trust.py",
    BUNDLE / "tests" / "test_openclaw_connect.py",
    BUNDLE / "tests" / "test_openclaw_plugin.py",
    BUNDLE / "tests" / "bench" / "test_scripts_on_tiny_data.py",
    BUNDLE / "tests" / "bench" / "test_salience_training.py",
    BUNDLE / "tests" / "bench" / "test_longmemeval.py",
    BUNDLE / "tests" / "bench" / "test_locomo_retrieval.py",
    BUNDLE / "tests" / "faults" / "test_sigkill.py",
    BUNDLE / "tests" / "bench" / "test_consolidate_bench.py",
    BUNDLE / "tests" / "test_concurrency.py",
    BUNDLE / "tests" / "test_doc_outputs.py",
    BUNDLE / "tests" / "test_relevance.py",
    BUNDLE / "tests" / "test_consolidate_crash.py",
    BUNDLE / "tests" / "test_fading.py",
    BUNDLE / "tests" / "test_docs.py",
    BUNDLE / "tests" / "bench" / "test_recall_latency.py",
    BUNDLE / "tests" / "stress" / "test_stress.py",
    BUNDLE / "tests" / "test_openclaw_backup.py",
    BUNDLE / "tests" / "test_forget_races.py",
    BUNDLE / "tests" / "faults" / "test_live_kill.py",
    BUNDLE / "tests" / "bench" / "test_ingest_bench.py",
    BUNDLE / "tests" / "bench" / "test_memory_salience.py",
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(str(item.fspath))
        if any(path == place or place in path.parents for place in SLOW_PLACES):
            item.add_marker(pytest.mark.slow)
    tests_in = Counter(Path(str(item.fspath)) for item in items)
    items.sort(key=lambda item: _turn(item, tests_in))


def _turn(item, tests_in: Counter) -> tuple:
    """When a test's file is handed out: the longest files first, then the files with the
    most tests. Two kinds of long files go first only once what they wait for is in the test
    cache. The tests that read the LoCoMo embeddings: on a machine's first run they go last,
    the longer to embed the conversations ahead (on workers: the files holding only such
    tests are handed out last); later runs only check the kept embeddings, and two such
    files handed out last, one after the other to the same worker, would leave the other
    worker idle for a minute at the end. The OpenClaw files: on a machine's first run they
    wait for the install, which begins with the first test outside tests/bench."""
    import locomo_embeddings

    import openclaw_install

    path = Path(str(item.fspath))
    longest = LONGEST_FIRST
    if path in OPENCLAW_TESTS and not openclaw_install.installed():
        longest = tuple(place for place in LONGEST_FIRST if place not in OPENCLAW_TESTS)
    place = longest.index(path) if path in longest else len(longest)
    late = _reads_locomo_embeddings(item) and not locomo_embeddings.kept()
    return (late, place, -tests_in[path], str(path))


def _reads_locomo_embeddings(item) -> bool:
    import locomo_embeddings

    return locomo_embeddings.FIXTURE in getattr(item, "fixturenames", ())


@pytest.fixture
def locomo_embeddings(request) -> Path:
    """The kept embeddings of the LoCoMo dev conversations, once the background process
    (locomo_embeddings.py) that embeds them ahead has finished."""
    import locomo_embeddings

    return locomo_embeddings.ready(run_directory(request.config))


def run_benchmark(
    tmp_path: Path, script: str, *args: str, env: dict | None = None
) -> subprocess.CompletedProcess:
    """benchmarks/`script` run whole, from `tmp_path`, in `env` (this process's environment
    by default), its figures written to tmp_path/output (not benchmarks/output/); it must
    succeed."""
    done = subprocess.run(
        [sys.executable, str(BUNDLE / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        timeout=900,
        env={
            **(os.environ if env is None else env),
            "VM_MEMORY_ORACLE_BENCH_OUTPUT": str(tmp_path / "output"),
        },
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


# Tests that need Node 24 (and the openclaw CLI), installed beside the other tests.
OPENCLAW_TESTS = (
    BUNDLE / "tests" / "test_openclaw.py",
    BUNDLE / "tests" / "test_openclaw_plugin.py",
    BUNDLE / "tests" / "test_openclaw_connect.py",
    BUNDLE / "tests" / "test_openclaw_trust.py",
)
BENCHMARKS = BUNDLE / "tests" / "bench"


def pytest_configure(config):
    # One id for the whole run, shared by its workers (pytest-xdist hands its own to them).
    if not hasattr(config, "workerinput") and getattr(config.option, "testrunuid", None) is None:
        config.option.testrunuid = uuid.uuid4().hex


def run_directory(config) -> Path:
    """A directory of this run's own, shared by its workers: what one worker starts for all
    (locomo_embeddings.py) leaves its traces there."""
    if hasattr(config, "workerinput"):
        uid = config.workerinput["testrunuid"]
    else:
        uid = config.option.testrunuid
    return Path(tempfile.gettempdir()) / f"vm-memory-oracle-run-{uid}"


def _first_process(config) -> bool:
    """The only process of the run, or its first worker."""
    return getattr(config, "workerinput", {}).get("workerid", "gw0") == "gw0"


def pytest_unconfigure(config):
    if not hasattr(config, "workerinput"):  # the process that began the run ends it
        import locomo_embeddings

        directory = run_directory(config)
        locomo_embeddings.stop(directory)
        shutil.rmtree(directory, ignore_errors=True)


def pytest_collection_finish(session):
    import locomo_embeddings

    import openclaw_install

    if any(Path(str(item.fspath)) in OPENCLAW_TESTS for item in session.items):
        openclaw_install.expect_install()
    if (
        not session.config.option.collectonly
        and _first_process(session.config)
        and any(map(_reads_locomo_embeddings, session.items))
    ):
        locomo_embeddings.start(run_directory(session.config))


def pytest_runtest_setup(item):
    # The OpenClaw install waits mostly on the npm registry: it runs beside the tests once
    # a worker's benchmarks, which are timed, are done.
    if BENCHMARKS not in Path(str(item.fspath)).parents:
        import openclaw_install

        openclaw_install.start_install()
