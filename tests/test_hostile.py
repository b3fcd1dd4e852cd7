"""Hostile input: every bad thing a user, a file or a command line can hand the tool gets a
clear one-line error and a non-zero exit, follows no link out of the data directory, and
changes nothing on disk. Hand-written cases first, then property-based ones."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from vm_memory_oracle.config import KEYS, settings_from_mapping
from vm_memory_oracle.errors import ConfigError
from vm_memory_oracle.model.characters import UNSAFE, without_unsafe
from vm_memory_oracle.storage import strict_json
from vm_memory_oracle.storage.validation import SCHEMA_NAMES, load_schema, problem

from conftest import ENTRYPOINT, NOW, data_files, write_jsonl

REMEMBER = ("--action", "remember", "--subject", "user", "--predicate", "likes")
PROPOSE = (
    "--action",
    "propose",
    "--proposer",
    "helper",
    "--subject",
    "user",
    "--predicate",
    "likes",
)
PROPERTY = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def made_once(tmp_path_factory) -> Path:
    """A memory with every kind of file in it: facts, an archived one, a built index."""
    from vm_memory_oracle.cli import main

    data = tmp_path_factory.mktemp("hostile") / "memory"

    def run(*args: str) -> int:
        return main(["--data-path", str(data), "--now", NOW, "--json", *args])

    assert (
        run("--action", "init") == run("--action", "config", "--set", "embedding_model=hash") == 0
    )
    assert run(*REMEMBER, "--object", "green tea") == 0
    assert run(*REMEMBER, "--object", "long walks") == 0
    walks = [
        json.loads(line)["id"]
        for line in (data / "knowledge-graph/facts.jsonl").read_text().splitlines()
    ][1]
    assert run("--action", "forget", "--id", walks) == 0
    assert run("--action", "recall", "--query", "tea") == 0
    assert run(*PROPOSE, "--object", "herbal tea") == 0
    return data


@pytest.fixture
def memory(made_once, data_dir) -> Path:
    shutil.copytree(made_once, data_dir, symlinks=True)
    return data_dir


def names_field(message: str, *names: str) -> bool:
    """Whether `message` names one of `names` as a field, alone or in a dotted path."""
    quoted = {part for token in re.findall(r"'([^']*)'", message) for part in token.split(".")}
    return bool(quoted & set(names))


def refused(result, code: int, *message: str) -> None:
    """The command failed with `code`, one line on stderr naming what was wrong."""
    assert result.code == code, (result.code, result.err)
    lines = result.err.strip().splitlines()
    assert lines and lines[-1].startswith(("Error: ", "vm-memory-oracle: error: ")), result.err
    for part in message:
        assert part in result.err, (part, result.err)


# -- hand-written ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "line, message",
    [
        (b'{"subject": "user", "predicate": "likes", "object": "caf\xe9"}', "not UTF-8 text"),
        (
            b'{"subject": "user", "predicate": "likes", "object": "a\\u0007b"}',
            "field 'object' contains a control character",
        ),
        (
            '{"subject": "user", "predicate": "likes", "object": "abc\u202edef"}'.encode(),
            "a bidirectional control character",
        ),
        (b'{"subject": "user", "predicate": "likes", "object": "a\\udc80"}', "invalid UTF-8"),
        (
            b'{"subject": "user", "predicate": "likes", "object": "tea", "importance": NaN}',
            "NaN is not a JSON number",
        ),
        (
            b'{"subject": "user", "predicate": "likes", "object": "tea", "importance": -Infinity}',
            "-Infinity is not a JSON number",
        ),
        (
            b'{"subject": "user", "predicate": "likes", "object": "tea", "importance": 1e999}',
            "number 1e999 is out of range",
        ),
        (
            b'{"subject": "user", "predicate": "likes", "object": "tea", "object": "coffee"}',
            "duplicate key 'object'",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (
            b'{"subject": "user", "predicate": "likes", "object": ' + b"9" * 5000 + b"}",
            "invalid JSON",
        ),
        (
            b'{"subject": "user", "predicate": "likes", "object": "x' + b"y" * (10 << 20) + b'"}',
            "line is longer than the 1048576 bytes allowed",
        ),
    ],
)
def test_hostile_lines_given_to_remember_from_are_refused(cli, memory, tmp_path, line, message):
    given_file = tmp_path / "facts.jsonl"
    given_file.write_bytes(
        b'{"subject": "user", "predicate": "likes", "object": "jazz"}\n' + line + b"\n"
    )
    before = data_files(memory)
    refused(cli("--action", "remember", "--from", str(given_file)), 3, f"{given_file}:2: ", message)
    assert data_files(memory) == before


@pytest.mark.parametrize(
    "flag, value, message",
    [
        ("--object", "tea\u202e", "contains a control character, a bidirectional control"),
        ("--object", "tea\x1b[2J", "contains a control character"),
        ("--subject", "us\ner", "contains a control character"),
        ("--importance", "nan", "--importance: must be a finite number, got 'nan'"),
        ("--importance", "inf", "--importance: must be a finite number, got 'inf'"),
        ("--text", "x" * 2001, "is too long: 2001 characters"),
    ],
)
def test_hostile_flags_given_to_remember_are_refused(cli, memory, flag, value, message):
    args = {"--subject": "user", "--predicate": "likes", "--object": "tea", flag: value}
    before = data_files(memory)
    result = cli("--action", "remember", *[item for pair in args.items() for item in pair])
    refused(result, 2 if flag == "--importance" else 3, message)
    assert data_files(memory) == before


@pytest.mark.parametrize(
    "flag, value, code, message",
    [
        ("--proposer", "help\u202eer", 3, "--proposer: must be a printable name of 1 to 48"),
        ("--proposer", "x" * 49, 3, "--proposer: must be a printable name of 1 to 48"),
        ("--proposer", "  ", 3, "--proposer: must be a printable name"),
        ("--confidence", "nan", 2, "--confidence: must be a finite number, got 'nan'"),
        ("--confidence", "1.5", 3, "--confidence: must be between 0 and 1, got 1.5"),
        ("--object", "tea\x1b[2J", 3, "contains a control character"),
        ("--source", "s" * 500, 3, "field 'source' is too long for a proposal: 500 characters"),
    ],
)
def test_hostile_flags_given_to_propose_are_refused(cli, memory, flag, value, code, message):
    args = {
        "--proposer": "helper",
        "--subject": "user",
        "--predicate": "likes",
        "--object": "tea",
        flag: value,
    }
    before = data_files(memory)
    result = cli("--action", "propose", *[item for pair in args.items() for item in pair])
    refused(result, code, message)
    assert data_files(memory) == before


def test_invalid_utf8_on_the_command_line_is_refused_by_the_real_process(memory):
    before = data_files(memory)
    done = subprocess.run(
        [
            os.fsencode(ENTRYPOINT),
            b"--data-path",
            os.fsencode(memory),
            b"--action",
            b"remember",
            b"--subject",
            b"user",
            b"--predicate",
            b"likes",
            b"--object",
            b"caf\xe9",
        ],
        capture_output=True,
    )
    assert done.returncode == 3, done.stderr
    assert done.stderr.decode() == "Error: command-line argument b'caf\\xe9' is not valid UTF-8\n"
    assert data_files(memory) == before


@pytest.mark.parametrize(
    "query, message",
    [
        ("tea\u202e", "query contains a control character, a bidirectional control character"),
        ("tea\x00", "query contains a control character"),
        ("x" * 5000, "query is 5000 characters"),
        ("   ", "query must not be empty"),
    ],
)
def test_hostile_queries_are_refused_before_anything_is_written(cli, memory, query, message):
    assert (
        cli(
            "--action",
            "remember",
            "--subject",
            "user",
            "--predicate",
            "drinks",
            "--object",
            "coffee",
        ).code
        == 0
    )  # the index now has an entry to add
    before = data_files(memory)
    refused(cli("--action", "recall", "--query", query), 3, message)
    assert data_files(memory) == before


@pytest.mark.parametrize(
    "line, message",
    [
        (b'{"query": "tea", "query": "coffee"}', "duplicate key 'query'"),
        (b'{"query": "tea", "k": NaN}', "NaN is not a JSON number"),
        (b'{"query": "\xff"}', "not UTF-8"),
        (b"{" * 50_000, "invalid JSON"),
        (b'{"query": "tea\\u202e"}', "bidirectional control character"),
    ],
)
def test_hostile_query_files_are_refused(cli, memory, tmp_path, line, message):
    queries = tmp_path / "queries.jsonl"
    queries.write_bytes(line + b"\n")
    before = data_files(memory)
    refused(cli("--action", "recall", "--queries", str(queries)), 3, message)
    assert data_files(memory) == before


@pytest.mark.parametrize("program", ["def f: f; f", "repeat(1)", "last(range(1e12))"])
@pytest.mark.slow
def test_a_jq_program_that_never_ends_is_stopped_at_its_time_limit(cli, memory, program):
    assert cli("--action", "config", "--set", "query_timeout_seconds=0.5").code == 0
    before = data_files(memory)
    result = cli("--action", "query", "--jq", program)
    refused(result, 3, "--jq: jq program did not finish within 0.5s (query_timeout_seconds)")
    assert data_files(memory) == before
    assert cli("--action", "query", "--jq", ".[] | .object").out.split() == ['"green', 'tea"']


@pytest.mark.slow
def test_a_jq_program_that_prints_too_much_is_stopped(data_dir, memory):
    from vm_memory_oracle.clock import parse_iso
    from vm_memory_oracle.config import Settings
    from vm_memory_oracle.errors import InvalidInputError
    from vm_memory_oracle.jq_program import run_jq
    from vm_memory_oracle.memory import Memory

    settings = Settings(lock_timeout_seconds=5)
    graph = Memory.open(memory, settings, now=parse_iso(NOW)).graph()
    with pytest.raises(InvalidInputError, match="printed more than 1 MiB"):
        run_jq(graph, "range(1e9)", parse_iso(NOW), timeout=30, max_output_bytes=1 << 20)
    assert run_jq(graph, ".[0].object", parse_iso(NOW), timeout=30) == ["green tea"]


@pytest.mark.parametrize(
    "body, message",
    [
        (b"memory_oracle:\n  half_life_days: .nan\n", "half_life_days must be a number, got nan"),
        (b"memory_oracle:\n  recall_boost: .inf\n", "recall_boost must be a number, got inf"),
        (b"memory_oracle:\n  recall_k: 5\n  recall_k: 6\n", "invalid YAML"),
        (b"memory_oracle:\n  colour: blue\n", "unknown key memory_oracle.colour"),
        (b"memory_oracle:\n  max_facts: '10'\n", "max_facts must be a whole number"),
        (b'memory_oracle:\n  embedding_model: "hash\\u202e"\n', "bidirectional control character"),
        (b"memory_oracle:\n  recall_k: 10 # caf\xe9\n", "cannot read config file"),
        (
            b'memory_oracle: !!python/object/apply:os.system ["touch PWNED"]\n',
            "memory_oracle: must be a mapping",
        ),
        (b"memory_oracle:\n  recall_k: " + b"[" * 400 + b"]" * 400 + b"\n", "nested too deeply"),
        (
            b"memory_oracle:\n  path_check_roots: [notes]\n",
            "path_check_roots must be a list of directories, each absolute or starting with ~/",
        ),
        (b'memory_oracle:\n  path_check_roots: "~"\n', "path_check_roots must be a list"),
        (
            b'memory_oracle:\n  path_check_roots: ["/srv\\u202e"]\n',
            "path_check_roots contains a control character, a bidirectional control character",
        ),
    ],
)
def test_hostile_config_files_are_refused_naming_the_file(cli, memory, body, message):
    config = memory / "config.yaml"
    # The file a YAML loader that ran code would create: in this test's own directory.
    pwned = memory.parent / "pwned"
    config.write_bytes(body.replace(b"PWNED", str(pwned).encode()))
    before = data_files(memory)
    refused(cli("--action", "recall", "--query", "tea"), 3, f"Error: {config}", message)
    assert data_files(memory) == before
    assert not pwned.exists()


def test_a_data_path_of_root_or_with_dotdot_is_refused(cli, tmp_path):
    refused(cli("--action", "init", data=Path("/")), 5, "/: is the filesystem root")
    refused(cli("--action", "recall", "--query", "x", data=Path("/")), 5, "filesystem root")
    (tmp_path / "a").mkdir()
    sneaky = Path(f"{tmp_path}/a/../memory")
    refused(cli("--action", "init", data=sneaky), 5, "has a '..' component")
    assert not (tmp_path / "memory").exists()


def test_a_directory_that_is_not_a_memory_is_neither_read_nor_filled(cli, tmp_path, isolated_home):
    (isolated_home / "notes.txt").write_text("mine")
    before = data_files(isolated_home)
    for action in (
        ("--action", "init"),
        REMEMBER + ("--object", "tea"),
        ("--action", "recall", "--query", "tea"),
        ("--action", "consolidate"),
    ):
        refused(cli(*action, data=isolated_home), 5, "is not empty and holds no memory")
    assert data_files(isolated_home) == before


def test_a_data_path_that_is_a_symlink_is_refused(cli, memory, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(memory)
    before = data_files(memory)
    refused(
        cli(*REMEMBER, "--object", "coffee", data=link),
        5,
        f"{link}: is a symlink (to {memory}); give the directory it points to, {memory}",
    )
    assert data_files(memory) == before


ACTIONS = [
    ("--action", "init"),
    REMEMBER + ("--object", "coffee"),
    ("--action", "summarize", "--all"),
    ("--action", "recall", "--query", "tea"),
    ("--action", "query", "--jq", "length"),
    ("--action", "reindex"),
    ("--action", "consolidate"),
    ("--action", "consolidate", "--dry-run"),
    ("--action", "health-check"),
    ("--action", "quality-probe"),
    ("--action", "config", "--set", "recall_k=5"),
    ("--action", "config"),
    PROPOSE + ("--object", "coffee"),
    ("--action", "review"),
    ("--action", "review", "--accept-all-from", "helper"),
]
# The exit code of each action (0 unless named) with a link planted in place of a file or
# directory: a file no command can do without (config.yaml, the facts, the lock, pending
# proposals) stops the commands that need it with exit 5, changing nothing; whatever can
# be done without (a session log, the daily summaries, the caches) is skipped.
_FACTS_NEEDED = (
    "remember",
    "recall",
    "query",
    "reindex",
    "consolidate",
    "quality-probe",
    "propose",
    "review",
)
OUTCOMES = {
    "config.yaml": {
        action: 5
        for action in (
            "init",
            "remember",
            "summarize",
            "recall",
            "query",
            "reindex",
            "consolidate",
            "health-check",
            "quality-probe",
            "config",
            "propose",
            "review",
        )
    },
    "knowledge-graph/facts.jsonl": {action: 5 for action in _FACTS_NEEDED},
    "state/memory.lock": {
        action: 5
        for action in (
            "remember",
            "reindex",
            "consolidate",
            "health-check",
            "quality-probe",
            "config --set",
            "propose",
            "review --accept-all-from",
        )
    },
    "state/pending-memories.jsonl": {action: 5 for action in ("consolidate", "propose", "review")},
    "sessions/2026-05-15-120000.jsonl": {},
    "daily": {},
    "state/cache": {},
}
PLANTED = [
    "config.yaml",
    "knowledge-graph/facts.jsonl",
    "state/memory.lock",
    "sessions/2026-05-15-120000.jsonl",
    "daily",
    "state/cache",
    "state/pending-memories.jsonl",
]


@pytest.mark.parametrize("planted", PLANTED)
@pytest.mark.parametrize("action", ACTIONS, ids=lambda action: " ".join(action[1:3]))
def test_a_symlink_planted_inside_is_never_followed(cli, memory, tmp_path, planted, action):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text(
        '{"ts": "2026-05-15T12:00:00Z", "role": "user", "text": "my password is hunter2"}\n'
    )
    target = memory / planted
    if target.is_dir():
        os.rename(target, tmp_path / "moved-away")
    elif target.exists():
        target.unlink()
    target.symlink_to(outside if planted in ("daily", "state/cache") else outside / "secret")
    before, outside_before = data_files(memory), data_files(outside)
    result = cli(*action)
    outcomes = OUTCOMES[planted]
    code = outcomes.get(" ".join(action[1:3]), outcomes.get(action[1], 0))
    assert result.code == code, (result.code, result.err)
    if code == 5:
        refused(result, 5, f"{target}: is a symlink; refusing to follow links")
        assert data_files(memory) == before
    assert data_files(outside) == outside_before and target.is_symlink()
    assert "hunter2" not in result.out + result.err
    # nothing read through the link was written into the memory's own files
    own = {
        name: data
        for name, data in data_files(memory).items()
        if os.path.realpath(memory / name).startswith(f"{memory}/")
    }
    assert not any(b"hunter2" in data for data in own.values())


# Whether a recall can go on when the victim is refused: the data directory itself and the
# state/ directory (every command reads them) and the facts stop it; MEMORY.md and the
# session logs it does without.
@pytest.mark.parametrize(
    "victim, recall_code",
    [("MEMORY.md", 0), ("knowledge-graph/facts.jsonl", 5), ("state", 5), ("sessions", 0)],
)
def test_files_owned_by_another_user_are_refused(cli, memory, victim, recall_code):
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    path = memory / victim
    os.chown(path, 65534, 65534)
    before = data_files(memory)
    owned = f"{path}: is owned by uid 65534, not by the user running the tool (uid 0)"
    for action in (
        ("--action", "recall", "--query", "tea", "--no-boost"),
        REMEMBER + ("--object", "coffee"),
    ):
        result = cli(*action)
        if recall_code:
            refused(result, 5, owned)
            assert data_files(memory) == before
        else:
            assert result.code == 0, result.err
    if not recall_code:
        assert cli("--action", "health-check").code == 0
        listed = json.loads((memory / "health.json").read_text())["refused"]
        assert [entry["file"] for entry in listed] == [victim]
        assert listed[0]["fix"] == f"run chown 0 {path}, or run as its owner"


@pytest.mark.parametrize(
    "victim, mode, fix, recall_code",
    [
        (".", 0o777, "chmod 700", 5),
        (".", 0o720, "chmod 700", 5),
        ("knowledge-graph", 0o707, "chmod 700", 5),
        ("MEMORY.md", 0o666, "chmod 600", 0),
        ("knowledge-graph/facts.jsonl", 0o620, "chmod 600", 5),
    ],
)
def test_an_entry_writable_by_others_is_refused_saying_why(
    cli, memory, victim, mode, fix, recall_code
):
    path = memory / victim
    os.chmod(path, mode)
    before = data_files(memory)
    why = f"is writable by other users (mode {mode:04o}); run {fix}"
    recall = cli("--action", "recall", "--query", "tea", "--no-boost")
    if recall_code:
        refused(recall, 5, why)
    else:
        assert recall.code == 0 and "tea" in recall.out
    init = cli("--action", "init")
    if victim == ".":
        refused(init, 5, why)
    else:  # init makes what is missing and names what it leaves as it is
        assert init.code == 0 and f"is writable by other users (mode {mode:04o})" in init.err
        assert f"run {fix} {path}" in init.err
    assert data_files(memory) == before


@pytest.mark.slow
def test_files_are_0600_and_directories_0700_whatever_the_umask(tmp_path):
    """Every command of a day's use, in real processes started with umask 000."""
    data = tmp_path / "memory"
    session = tmp_path / "2026-05-15-120000.jsonl"
    write_jsonl(
        session,
        [
            {"ts": NOW, "role": "user", "text": "I live in Lisbon."},
            {"ts": NOW, "role": "user", "text": "{broken"},
        ],
    )

    def run(*args: str) -> None:
        done = subprocess.run(
            [str(ENTRYPOINT), "--data-path", str(data), "--now", NOW, *args],
            capture_output=True,
            text=True,
            preexec_fn=lambda: os.umask(0),
        )
        assert done.returncode == 0, done.stderr

    run("--action", "init")
    run("--action", "config", "--set", "embedding_model=hash")
    (data / "sessions" / session.name).write_bytes(session.read_bytes())
    os.chmod(data / "sessions" / session.name, 0o600)
    run("--action", "summarize", "--all")
    run(*REMEMBER, "--object", "tea")
    run("--action", "recall", "--query", "Lisbon")
    run("--action", "consolidate")
    run("--action", "quality-probe")
    with open(data / "knowledge-graph" / "facts.jsonl", "a") as facts:
        facts.write("not json\n")
    run("--action", "recall", "--query", "Lisbon")  # quarantines the line
    assert (data / "knowledge-graph" / "facts.quarantine.jsonl").exists()
    entries = [data] + list(data.rglob("*"))
    assert len(entries) > 25
    wrong = {
        str(path.relative_to(data)): oct(path.stat().st_mode & 0o777)
        for path in entries
        if (path.stat().st_mode & 0o777) != (0o700 if path.is_dir() else 0o600)
    }
    assert wrong == {}


# -- property-based -------------------------------------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=12,
)


@PROPERTY
@given(
    lines=st.lists(
        st.binary(max_size=200)
        | json_values.map(
            lambda value: json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")
        ),
        min_size=1,
        max_size=3,
    )
)
@pytest.mark.slow
def test_any_bytes_given_to_remember_from_are_stored_or_refused_whole(cli, memory, tmp_path, lines):
    given_file = tmp_path / "given.jsonl"
    given_file.write_bytes(b"\n".join(lines) + b"\n")
    before = data_files(memory)
    result = cli("--action", "remember", "--from", str(given_file))
    if result.code == 0:
        return
    refused(result, 3, f"{given_file}")
    assert data_files(memory) == before


fact_field = st.sampled_from(
    [
        "subject",
        "predicate",
        "object",
        "source",
        "text",
        "context",
        "category",
        "importance",
        "pinned",
        "entities",
        "valid_from",
        "confidence",
    ]
)
unsafe_text = st.text(alphabet=st.characters(codec=None), min_size=1, max_size=20).filter(
    lambda text: UNSAFE.search(text) is not None
)


@PROPERTY
@given(key=fact_field, value=json_values | unsafe_text)
@pytest.mark.slow
def test_any_value_in_any_field_is_stored_or_refused_naming_the_field(
    cli, memory, tmp_path, key, value
):
    record = {"subject": "user", "predicate": "likes", "object": "tea", key: value}
    given_file = tmp_path / "given.jsonl"
    given_file.write_bytes(json.dumps(record, allow_nan=True).encode("utf-8") + b"\n")
    before = data_files(memory)
    result = cli("--action", "remember", "--from", str(given_file))
    if result.code != 0:
        refused(result, 3, f"{given_file}:1: ")
        assert (
            names_field(result.err, key)
            or "JSON number" in result.err
            or "out of range" in result.err
        ), result.err
        assert data_files(memory) == before


JSON_TYPES = {
    "string": "text",
    "number": 2.5,
    "integer": 7,
    "boolean": True,
    "null": None,
    "array": [1],
    "object": {"k": 1},
}
FULL_FACT_INPUT = {
    "subject": "user",
    "predicate": "likes",
    "object": "tea",
    "source": "s",
    "text": "The user likes tea.",
    "context": "c",
    "category": "preference",
    "importance": 0.5,
    "pinned": False,
    "entities": ["tea"],
    "valid_from": "2026-05-01",
    "confidence": 0.9,
}
HAND_WRITTEN = {
    "fact-input": FULL_FACT_INPUT,
    "extractor-output": {"facts": [FULL_FACT_INPUT]},
    "import-ledger": {
        "sources": {"/x/a.jsonl": {"size": 1, "mtime_ns": 2, "files": ["2026-05-15-120000.jsonl"]}}
    },
    "consolidation-checkpoint": {
        "started_at": NOW,
        "actor": "cron",
        "completed": ["summarize"],
        "reports": {"summarize": {"counts": {}}},
    },
    "canary-facts": [{"query": "q", "expected_contains": "a"}],
    "forget-journal": {
        "forget": "fg-0123456789abcdef",
        "at": NOW,
        "selector": "query",
        "named": "--query",
        "reason": "private",
        "facts": ["fact-00000000-0000-5000-8000-000000000001"],
        "archived": ["fact-00000000-0000-5000-8000-000000000002"],
        "turns": ["sessions/2026-05-14-120000.jsonl:1"],
        "purge": ["fact-00000000-0000-5000-8000-000000000001"],
    },
}
FROM_FILES = {
    "fact": "knowledge-graph/facts.jsonl",
    "archived-fact": "knowledge-graph/archived-facts.jsonl",
    "entity": "knowledge-graph/entities.jsonl",
    "relation": "knowledge-graph/relations.jsonl",
    "activation-metadata": "activation-metadata.json",
    "quarantine": "knowledge-graph/facts.quarantine.jsonl",
    "session-turn": "sessions/2026-05-15-120000.jsonl",
    "summarize-ledger": "state/summarized.json",
    "vector-metadata": "embeddings/metadata.jsonl",
    "activation-journal": "state/activation-journal.jsonl",
    "audit-entry": "state/audit.jsonl",
    "probe-result": "state/probe-log.jsonl",
    "health": "health.json",
    "pending-memory": "state/pending-memories.jsonl",
    "episode": "episodes/2026-05-15.jsonl",
    "forgotten-turn": "state/forgotten.jsonl",
}


@pytest.fixture(scope="module")
def real_records(tmp_path_factory) -> dict:
    """One valid record of every schema, most of them read from a memory the CLI made."""
    from vm_memory_oracle.cli import main

    data = tmp_path_factory.mktemp("schemas") / "memory"

    def run(*args: str) -> None:
        assert main(["--data-path", str(data), "--now", NOW, *args]) == 0

    run("--action", "init")
    run("--action", "config", "--set", "embedding_model=hash")
    # Connected to an OpenClaw state directory, so health.json has its "openclaw" part.
    from test_openclaw_state import Transcript

    state = data.parent / "openclaw-state"
    (state / "workspace").mkdir(parents=True)
    Transcript(state)
    run("--action", "config", "--set", f"openclaw_state_dir={state}")
    write_jsonl(
        data / "sessions" / "2026-05-15-120000.jsonl",
        [
            {
                "ts": NOW,
                "role": "user",
                "text": "I live in Lisbon.",
                "provenance": {
                    "origin": "owner",
                    "session": "interactive",
                    "chat": "direct",
                    "channel": "telegram",
                    "sender": "Olivia",
                },
            }
        ],
    )
    # A turn to forget by query (state/forgotten.jsonl), in a log of its own.
    write_jsonl(
        data / "sessions" / "2026-05-14-120000.jsonl",
        [{"ts": "2026-05-14T12:00:00Z", "role": "user", "text": "My locker code hint is blue."}],
    )
    run("--action", "summarize", "--all")
    run(*REMEMBER, "--object", "tea", "--category", "preference")
    run("--action", "consolidate")
    tea = [json.loads(line) for line in (data / "knowledge-graph/facts.jsonl").open()]
    run("--action", "forget", "--id", next(f["id"] for f in tea if f["object"] == "tea"))
    run("--action", "forget", "--query", "locker", "--yes")
    (data / "notes").mkdir()
    (data / "notes" / "kept.md").write_text("kept")
    run(*REMEMBER, "--object", f"{data}/notes/kept.md and {data}/notes/gone.md")  # stale_references
    run("--action", "recall", "--query", "Lisbon")
    with open(data / "knowledge-graph/facts.jsonl", "a") as facts:
        facts.write("not json\n")
    (data / "knowledge-graph/canary-facts.json").write_text(
        '[{"query": "favourite planet", "expected_contains": "Neptune"}]'
    )
    run("--action", "quality-probe")  # the canary fails, so the result lists a failure
    run(*PROPOSE, "--object", "jasmine tea", "--category", "preference", "--pin")
    records = dict(HAND_WRITTEN)
    for schema, name in FROM_FILES.items():
        text = (data / name).read_text()
        records[schema] = json.loads(text if name.endswith(".json") else text.splitlines()[0])
    records["health"]["damaged_files"] = [
        {"file": "knowledge-graph/canary-facts.json", "problem": "invalid JSON"}
    ]
    records["health"]["openclaw"]["excluded"] = {"chat type group": {"sessions": 1, "events": 3}}
    records["health"]["refused"] = [
        {"file": "sessions/x.jsonl", "problem": "is a symlink", "fix": "remove it"}
    ]
    records["health"]["problems"] = [
        {
            "code": "mode",
            "file": "health.json",
            "message": "health.json: mode 0644",
            "repairable": True,
        }
    ]
    assert set(records) == set(SCHEMA_NAMES)
    for schema, record in records.items():
        assert problem(schema, record) is None, (schema, problem(schema, record))
    return records


def typed_fields(spec: dict, path: tuple = ()):
    """(path, property schema) of every field with a declared type, nested ones included;
    "[]" in a path stands for an array's items, "*" for a mapping's values."""
    if path and ("type" in spec or "enum" in spec):
        yield path, spec
    for key, sub in spec.get("properties", {}).items():
        yield from typed_fields(sub, path + (key,))
    if isinstance(spec.get("items"), dict):
        yield from typed_fields(spec["items"], path + ("[]",))
    for sub in list(spec.get("patternProperties", {}).values()) + [
        spec.get("additionalProperties")
    ]:
        if isinstance(sub, dict):
            yield from typed_fields(sub, path + ("*",))


def put(record, path: tuple, value):
    """A copy of `record` with `value` at `path`, or None when a parent on the way is absent."""
    import copy

    record = copy.deepcopy(record)
    parent = record
    for step in path[:-1]:
        if step == "[]":
            if not parent:
                return None
            parent = parent[0]
        elif step == "*":
            if not parent:
                return None
            parent = parent[next(iter(parent))]
        elif step in parent:
            parent = parent[step]
        elif path[-2:] == (step, "[]"):  # an optional list left out: give it one item
            parent = parent.setdefault(step, [])
        else:
            return None
    last = path[-1]
    if parent is None:  # an optional object given as null (health.json's "openclaw")
        return None
    if last == "[]":
        if not isinstance(parent, list):
            return None
        parent[:1] = [value]
    elif last == "*":
        if not isinstance(parent, dict) or not parent:
            return None
        parent[next(iter(parent))] = value
    else:
        parent[last] = value
    return record


@pytest.mark.slow
def test_a_wrong_type_in_every_field_of_every_schema_is_refused_naming_it(real_records, capsys):
    tried, unreachable = 0, []
    for schema in SCHEMA_NAMES:
        for path, spec in typed_fields(load_schema(schema)):
            allowed = spec.get("type", [])
            allowed = {allowed} if isinstance(allowed, str) else set(allowed)
            if "number" in allowed:
                allowed.add("integer")
            for type_name, value in JSON_TYPES.items():
                if type_name in allowed or value in spec.get("enum", [value]) and "enum" in spec:
                    continue
                record = put(real_records[schema], path, value)
                if record is None:
                    unreachable.append((schema, path))
                    continue
                message = problem(schema, record)
                tried += 1
                assert message is not None, (schema, path, value)
                named = [step for step in path if step not in ("[]", "*")]
                assert names_field(message, *named) or not named, (schema, path, value, message)
    assert tried > 800
    with capsys.disabled():
        print(
            f"\n{tried} wrong-typed values over {len(SCHEMA_NAMES)} schemas, each refused "
            "naming its field"
        )
    assert sorted(set(unreachable)) == [], sorted(set(unreachable))


@settings(max_examples=200, deadline=None)
@given(
    values=st.dictionaries(
        st.sampled_from(KEYS) | st.text(max_size=10), json_values | st.floats(), max_size=4
    )
)
@pytest.mark.slow
def test_any_config_mapping_is_accepted_or_refused_naming_a_key(values):
    try:
        settings_from_mapping(values, source="config.yaml")
    except ConfigError as exc:
        assert exc.key in values or exc.key == "prune_threshold", (exc.key, values)
        assert str(exc).startswith("config.yaml: ")
    else:
        for value in values.values():
            assert not isinstance(value, float) or math.isfinite(value)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(codec=None)))
def test_the_schemas_and_the_session_cleaner_agree_on_unsafe_characters(text):
    record = {"subject": "user", "predicate": "likes", "object": text or "x"}
    cleaned = without_unsafe(text)
    assert UNSAFE.search(cleaned.replace("\n", "").replace("\t", "")) is None
    assert (problem("fact-input", record) is None) == (UNSAFE.search(text) is None) or len(
        text
    ) > 2000


@settings(max_examples=300, deadline=None)
@given(value=json_values)
@pytest.mark.slow
def test_strict_json_reads_back_exactly_what_it_writes_or_refuses_to_write(value):
    try:
        text = strict_json.dumps(value)
    except strict_json.JsonRefused:
        assert "nan" in repr(value) or "inf" in repr(value)
        return
    assert strict_json.loads(text) == value


@pytest.mark.slow
def test_ten_megabyte_lines_in_memory_files_and_logs_are_set_aside_and_the_rest_kept(cli, memory):
    """Files the tool reads rather than is given: a bad line is quarantined with a warning
    (nothing is silently dropped, nothing stops the other lines)."""
    big = "x" * (10 << 20)
    write_jsonl(
        memory / "sessions" / "2026-05-15-120000.jsonl",
        [
            {"ts": NOW, "role": "user", "text": f"I live in Oslo. {big}"},
            {"ts": NOW, "role": "user", "text": "I live in Bergen."},
        ],
    )
    with open(memory / "knowledge-graph" / "facts.jsonl", "a") as facts:
        facts.write(json.dumps({"subject": "user", "text": big}) + "\n")
    result = cli("--action", "summarize", "--all")
    assert result.code == 0, result.err
    assert "facts.jsonl:2: missing field 'id'" in result.err
    assert "2026-05-15-120000.jsonl:1: field 'text' is too long: 10485776 characters" in result.err
    objects = [
        json.loads(line)["object"]
        for line in (memory / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    ]
    assert objects == ["green tea", "Bergen"]
    quarantined = (memory / "knowledge-graph" / "facts.quarantine.jsonl").read_text()
    assert json.loads(quarantined)["raw"].endswith('x"}')


def test_input_without_line_ends_is_refused_at_the_line_limit(cli, memory):
    before = data_files(memory)
    refused(
        cli("--action", "remember", "--from", "/dev/zero"),
        3,
        "/dev/zero:1: line is longer than the 1048576 bytes allowed",
    )
    assert data_files(memory) == before


def test_a_config_that_is_a_device_or_huge_is_refused(cli, memory, tmp_path):
    huge = tmp_path / "huge.yaml"
    huge.write_text("memory_oracle:\n" + "# padding\n" * 200_000)
    before = data_files(memory)
    refused(
        cli("--config", "/dev/zero", "--action", "recall", "--query", "tea"),
        3,
        "/dev/zero: config file is not a regular file",
    )
    refused(
        cli("--config", str(huge), "--action", "recall", "--query", "tea"),
        3,
        f"{huge}: config file is larger than 1048576 bytes",
    )
    assert data_files(memory) == before


def test_the_schemas_and_the_code_refuse_unsafe_characters_in_the_same_words():
    from vm_memory_oracle.model.characters import UNSAFE_FOUND

    assert load_schema("fact-input")["properties"]["object"]["x-message"] == UNSAFE_FOUND


def test_a_link_planted_in_sessions_is_skipped_and_reported_while_the_memory_works(
    cli, memory, tmp_path
):
    outside = tmp_path / "transcript.jsonl"
    outside.write_text(
        '{"ts": "2026-05-15T12:00:00Z", "role": "user", '
        '"text": "My password is hunter2 and I live in Oslo."}\n'
    )
    link = memory / "sessions" / "2026-05-15-120000.jsonl"
    link.symlink_to(outside)
    write_jsonl(
        memory / "sessions" / "2026-05-15-130000.jsonl",
        [{"ts": NOW, "role": "user", "text": "I moved to Lisbon last week."}],
    )
    skipped = (
        "sessions/2026-05-15-120000.jsonl: is a symlink; refusing to follow links "
        f"inside the data directory; skipped (remove it (rm {link})"
    )
    assert cli("--action", "recall", "--query", "tea").code == 0
    assert cli(*REMEMBER, "--object", "coffee").code == 0
    summarized = cli("--action", "summarize", "--all")
    assert summarized.code == 0 and skipped in summarized.err
    facts = (memory / "knowledge-graph" / "facts.jsonl").read_text()
    assert "Lisbon" in facts and "Oslo" not in facts and "hunter2" not in facts
    checked = cli("--action", "health-check")
    assert checked.code == 0
    report = json.loads((memory / "health.json").read_text())
    assert report["refused"] == [
        {
            "file": "sessions/2026-05-15-120000.jsonl",
            "problem": "is a symlink; refusing to follow links inside the data directory",
            "fix": f"remove it (rm {link}) and put the real file or directory there",
        }
    ]
    assert report["status"] == "degraded"
    assert any(
        warning.startswith("sessions/2026-05-15-120000.jsonl: is a symlink")
        for warning in report["warnings"]
    )
    assert outside.read_text().count("hunter2") == 1 and link.is_symlink()


@pytest.mark.parametrize("planted", ["knowledge-graph/facts.jsonl", "knowledge-graph"])
def test_a_refused_file_commands_need_makes_the_memory_unhealthy(cli, memory, tmp_path, planted):
    target = memory / planted
    os.rename(target, tmp_path / "moved-away")
    target.symlink_to(tmp_path / "moved-away")
    checked = cli("--action", "health-check")
    assert checked.code == 0, checked.err
    report = json.loads((memory / "health.json").read_text())
    assert report["status"] == "unhealthy" and [r["file"] for r in report["refused"]] == [planted]
    assert any(
        finding["severity"] == "critical" and finding["code"] == "refused"
        for finding in report["findings"]
    )
