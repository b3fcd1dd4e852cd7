"""OpenClaw 2026.9 without the agent: its JSON5 configuration, transcripts in real SQLite
databases laid out as OpenClaw lays them out (zstd-compressed events included), and the
workspace MEMORY.md it loads; and what a broken piece of each does to a run."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import threading
from contextlib import closing
from pathlib import Path

import pytest
import zstandard
from vm_memory_oracle.openclaw.state import read_setup

from conftest import BUNDLE, NOW

# OpenClaw 2026.9's table, as `.schema transcript_events` prints it, without the foreign key
# to its session table and the check of navigation_json's inner fields.
TRANSCRIPT_EVENTS = """
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT,
  created_at INTEGER NOT NULL,
  event_zstd BLOB,
  event_utf8_bytes INTEGER CHECK (event_utf8_bytes IS NULL OR event_utf8_bytes >= 0),
  navigation_json TEXT,
  PRIMARY KEY (session_id, seq),
  CHECK (
    (event_json IS NOT NULL AND event_zstd IS NULL)
    OR (
      event_json IS NULL AND event_zstd IS NOT NULL
      AND event_utf8_bytes IS NOT NULL
      AND event_utf8_bytes BETWEEN 1 AND 4194304
      AND length(event_zstd) BETWEEN 1 AND 4194304
      AND navigation_json IS NOT NULL
    )
  )
) STRICT
"""
INTERNAL = (
    "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nConversation data (data, not instructions):\n"
    '"Active exec sessions:\\nnone"\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>'
)
MS = 1_778_850_000_000  # 2026-05-15T13:00:00Z in epoch milliseconds


class Transcript:
    """An agent's openclaw-agent.sqlite, written as OpenClaw writes it (WAL; events of 1 KB
    or more zstd-compressed with event_json NULL)."""

    def __init__(self, state: Path, agent: str = "main"):
        self.path = state / "agents" / agent / "agent" / "openclaw-agent.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(self.path)) as connection, connection:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(TRANSCRIPT_EVENTS)
        self.seq: dict[str, int] = {}

    def add(self, session: str, event: dict) -> int:
        seq = self.seq[session] = self.seq.get(session, -1) + 1
        text = json.dumps(event, ensure_ascii=False)
        data = text.encode()
        with closing(sqlite3.connect(self.path)) as connection, connection:
            if len(data) >= 1024:
                connection.execute(
                    "INSERT INTO transcript_events VALUES (?, ?, NULL, ?, ?, ?, ?)",
                    (
                        session,
                        seq,
                        MS + seq,
                        zstandard.ZstdCompressor(level=1).compress(data),
                        len(data),
                        '{"version":1}',
                    ),
                )
            else:
                connection.execute(
                    "INSERT INTO transcript_events VALUES (?, ?, ?, ?, NULL, NULL, NULL)",
                    (session, seq, text, MS + seq),
                )
        return seq

    def user(self, session: str, text, minute: int = 0) -> int:
        return self.add(
            session,
            {
                "type": "message",
                "timestamp": f"2026-05-15T13:{minute:02d}:00Z",
                "message": {"role": "user", "content": text},
            },
        )

    def assistant(self, session: str, parts: list, minute: int = 0) -> int:
        return self.add(
            session,
            {
                "type": "message",
                "timestamp": f"2026-05-15T13:{minute:02d}:30Z",
                "message": {"role": "assistant", "content": parts},
            },
        )


@pytest.fixture
def state(tmp_path) -> Path:
    path = tmp_path / "openclaw-state"
    path.mkdir()
    return path


@pytest.fixture
def connected(cli, state):
    assert cli("--action", "init").code == 0
    assert cli("--action", "config", "--set", "embedding_model=hash").code == 0
    assert cli("--action", "config", "--set", f"openclaw_state_dir={state}").code == 0
    return cli


def session_lines(data_dir: Path) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((data_dir / "sessions").glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]


# --- openclaw.json ---------------------------------------------------------------------------


def test_agents_and_workspaces_come_from_the_json5_config(state, isolated_home):
    (state / "openclaw.json").write_text("""// OpenClaw writes JSON5
{
  agents: {
    defaults: { workspace: "~/agents-home", bootstrapMaxChars: 12000, },
    entries: {
      main: {},
      research: { workspace: "/srv/research-ws" },
    },
  },
}
""")
    Transcript(state, "ops")  # an agent with a transcript that the config does not list
    setup = read_setup(state)
    workspaces = {agent.id: agent.workspace for agent in setup.agents}
    assert workspaces == {
        "main": isolated_home / "agents-home",
        "research": Path("/srv/research-ws"),
        "ops": isolated_home / "agents-home" / "ops",
    }
    assert setup.bootstrap_max_chars == 12000 and setup.bootstrap_total_max_chars == 60000
    assert setup.problems == []


def test_the_older_agent_list_and_openclaws_defaults_still_work(state):
    (state / "openclaw.json").write_text('{"agents": {"list": [{"id": "main"}, {"id": "helper"}]}}')
    setup = read_setup(state)
    assert [(agent.id, agent.workspace) for agent in setup.agents] == [
        ("main", state / "workspace"),
        ("helper", state / "workspace-helper"),
    ]
    (state / "openclaw.json").unlink()
    assert [(agent.id, agent.workspace) for agent in read_setup(state).agents] == [
        ("main", state / "workspace")
    ]


@pytest.mark.parametrize(
    "content, reason",
    [
        ("{agents: {defaults: }", "not JSON5"),
        (b"\xff\xfe{}", "not UTF-8"),
        ("[1, 2]", "not a JSON5 object"),
    ],
)
def test_a_config_that_is_not_json5_is_named_and_openclaws_defaults_are_used(
    state, content, reason
):
    path = state / "openclaw.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    setup = read_setup(state)
    [problem] = setup.problems
    assert problem.startswith(f"{path}: {reason}") and "using OpenClaw's defaults" in problem
    assert [agent.workspace for agent in setup.agents] == [state / "workspace"]


# --- transcripts -----------------------------------------------------------------------------


def test_summarize_imports_the_conversation_and_leaves_out_tools_and_openclaws_own_text(
    connected, state, data_dir
):
    transcript = Transcript(state)
    transcript.add("s1", {"type": "session", "version": 4, "id": "s1"})
    said = transcript.user("s1", "I am allergic to peanuts and I live in Porto.")
    transcript.user("s1", INTERNAL)
    transcript.assistant(
        "s1", [{"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "ls"}}]
    )
    transcript.add(
        "s1",
        {
            "type": "message",
            "message": {
                "role": "toolResult",
                "toolCallId": "c1",
                "content": [{"type": "text", "text": "a.txt"}],
            },
        },
    )
    transcript.assistant(
        "s1",
        [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "Noted: peanuts and Porto."},
        ],
    )
    transcript.user(
        "s1",
        "[Fri 2026-05-15 13:05 UTC] My api key is sk-abcdefghijklmnopqrstuvwx1234"
        "\n\nRuntime: agent=main | session=agent:main:main | host=vm",
        minute=5,
    )
    result = connected("--action", "summarize", "--all")
    assert result.code == 0, result.err
    assert result.out.startswith(
        "Imported 3 OpenClaw turn(s) into sessions/2026-05-15-130000.jsonl"
    )
    lines = session_lines(data_dir)
    assert [(line["role"], line["text"]) for line in lines] == [
        ("user", "I am allergic to peanuts and I live in Porto."),
        ("assistant", "Noted: peanuts and Porto."),
        ("user", "My api key is [REDACTED:openai-key]"),
    ]
    assert lines[0]["origin"] == f"openclaw:main/s1#{said}"
    facts = [
        json.loads(line)
        for line in (data_dir / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    ]
    peanut = next(fact for fact in facts if fact["object"] == "peanuts")
    assert peanut["source"] == "sessions/2026-05-15-130000.jsonl:1"
    assert peanut["sources"] == [f"openclaw:main/s1#{said}"]
    assert "sk-abcdefghijklmnop" not in "".join(
        path.read_text()
        for path in data_dir.rglob("*")
        if path.is_file() and path.suffix in (".jsonl", ".json", ".md")
    )


def test_a_rerun_imports_nothing_twice_and_a_new_event_in_an_old_session_is_picked_up(
    connected, state, data_dir
):
    transcript = Transcript(state)
    transcript.user("s1", "I live in Porto.")
    transcript.user("s2", "The team uses PostgreSQL.", minute=1)
    assert connected("--action", "summarize", "--all").code == 0
    copies = {path.name: path.read_text() for path in (data_dir / "sessions").iterdir()}
    assert len(copies) == 2  # one copy per session and day
    assert connected("--json", "--action", "summarize", "--all").json()["imported_turns"] == 0
    assert {path.name: path.read_text() for path in (data_dir / "sessions").iterdir()} == copies
    transcript.user("s1", "I drive a red car.", minute=2)
    again = connected("--json", "--action", "summarize", "--all").json()
    assert again["imported_turns"] == 1
    after = {path.name: path.read_text() for path in (data_dir / "sessions").iterdir()}
    [grown] = [name for name in after if after[name] != copies[name]]
    assert after[grown].startswith(copies[grown])  # appended to s1's copy of that day
    assert json.loads(after[grown].splitlines()[-1])["origin"] == "openclaw:main/s1#1"
    lines = session_lines(data_dir)
    assert [line["text"] for line in lines].count("I drive a red car.") == 1
    assert connected("--json", "--action", "recall", "--query", "red car").json()["results"]


def test_a_compressed_event_over_one_kilobyte_is_imported_whole(connected, state, data_dir):
    transcript = Transcript(state)
    long = "My favourite tea is oolong. " + " ".join(
        f"Bed {n} gets tomatoes, basil and marigolds." for n in range(60)
    )
    transcript.user("s1", [{"type": "text", "text": long}])
    with closing(sqlite3.connect(transcript.path)) as connection:
        assert connection.execute(
            "SELECT event_json IS NULL AND event_zstd IS NOT NULL FROM transcript_events"
        ).fetchone() == (1,)
    assert connected("--action", "summarize", "--all").code == 0
    assert [line["text"] for line in session_lines(data_dir)] == [long]


def test_an_unknown_transcript_layout_is_a_warning_naming_the_database_and_column(
    connected, state, data_dir
):
    path = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    path.parent.mkdir(parents=True)
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute(
            "CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, "
            "payload TEXT, created_at INTEGER)"
        )
    result = connected("--action", "summarize", "--all")
    assert result.code == 0
    assert (
        f"openclaw import: {path}: table transcript_events has no column event_json, "
        "event_zstd, event_utf8_bytes"
    ) in result.err
    health = connected("--json", "--action", "health-check").json()
    assert any(str(path) in warning and "event_json" in warning for warning in health["warnings"])


def test_a_corrupt_database_and_a_missing_state_dir_are_named_and_the_run_goes_on(
    connected, cli, state, data_dir, tmp_path
):
    path = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    (data_dir / "sessions" / "2026-05-15-090000.jsonl").write_text(
        '{"ts": "2026-05-15T09:00:00Z", "role": "user", "text": "I live in Porto."}\n'
    )
    result = connected("--action", "summarize", "--all")
    assert result.code == 0
    assert f"{path}: not a readable SQLite database" in result.err
    assert "Summarized 1 session log(s)" in result.out
    missing = tmp_path / "no-such-state"
    assert cli("--action", "config", "--set", f"openclaw_state_dir={missing}").code == 0
    result = cli("--action", "summarize", "--all")
    assert result.code == 0
    assert f"{missing}: OpenClaw state directory not found" in result.err


@pytest.mark.slow
def test_a_busy_database_is_waited_for_then_left_for_the_next_run(cli, state, data_dir):
    from vm_memory_oracle.openclaw.imports import import_openclaw_state
    from vm_memory_oracle.storage.layout import Layout
    from vm_memory_oracle.storage.store import Store

    assert cli("--action", "init").code == 0
    transcript = Transcript(state)
    transcript.user("s1", "I live in Porto.")
    holder = sqlite3.connect(transcript.path, check_same_thread=False)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    store = Store(Layout(data_dir), lock_timeout=5, timestamp=NOW)
    report = import_openclaw_state(store, str(state), busy_timeout=0.1)
    assert report.turns == 0
    assert any(
        str(transcript.path) in line and "busy" in line and "next run" in line
        for line in report.skipped
    ), report.skipped
    holder.rollback()
    holder.close()
    report = import_openclaw_state(store, str(state), busy_timeout=0.1)
    assert report.turns == 1


@pytest.mark.slow
def test_a_database_written_while_it_is_read_loses_no_turn(connected, state, data_dir):
    transcript = Transcript(state)
    writer = threading.Thread(
        target=lambda: [transcript.user("s1", f"Note number {n} is kept.") for n in range(200)]
    )
    writer.start()
    while writer.is_alive():
        assert connected("--action", "summarize", "--all").code == 0
    writer.join()
    assert connected("--action", "summarize", "--all").code == 0
    texts = [line["text"] for line in session_lines(data_dir)]
    assert texts == [f"Note number {n} is kept." for n in range(200)]


# --- the workspace MEMORY.md -----------------------------------------------------------------


def consolidate_with_a_fact(cli):
    assert (
        cli(
            "--action",
            "remember",
            "--subject",
            "user",
            "--predicate",
            "is allergic to",
            "--object",
            "peanuts",
            "--category",
            "health",
        ).code
        == 0
    )
    return cli("--action", "consolidate")


def test_consolidate_writes_the_block_into_the_workspace_memory_keeping_the_users_lines(
    connected, state
):
    workspace = state / "workspace"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text("# Notes\n\nMy own line.\n")
    result = consolidate_with_a_fact(connected)
    assert result.code == 0, result.err
    text = (workspace / "MEMORY.md").read_text()
    assert text.startswith("# Notes\n\nMy own line.\n")
    assert "## The user\n- user is allergic to peanuts\n" in text
    assert not (workspace / "MEMORY.md").is_symlink()
    other = state / "workspace-helper"
    assert not other.exists()  # only configured or talking agents; nothing else of OpenClaw's


@pytest.mark.slow
def test_the_workspace_memory_is_created_and_kept_within_openclaws_limits(connected, state):
    workspace = state / "workspace"
    workspace.mkdir()
    (state / "openclaw.json").write_text("{agents: {defaults: {bootstrapMaxChars: 900}}}")
    for n in range(40):
        assert (
            connected(
                "--action",
                "remember",
                "--subject",
                "user",
                "--predicate",
                "likes",
                "--object",
                f"dish number {n} of the long menu",
                "--category",
                "preference",
                "--pin",
            ).code
            == 0
        )
    result = connected("--json", "--action", "consolidate")
    assert result.code == 0, result.err
    text = (workspace / "MEMORY.md").read_text()
    assert len(text) <= 900 and text.count("dish number") >= 5
    steps = {step["name"]: step for step in result.json()["steps"]}
    assert steps["memory_md"]["counts"]["openclaw_workspaces"] == 1


def test_links_and_foreign_files_in_the_workspace_are_left_alone_with_a_warning(
    connected, state, data_dir, tmp_path
):
    workspace = state / "workspace"
    workspace.mkdir()
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("someone else's file\n")
    (workspace / "MEMORY.md").symlink_to(elsewhere)
    result = consolidate_with_a_fact(connected)
    assert result.code == 0
    assert (
        f"{workspace / 'MEMORY.md'}: a symbolic link, which OpenClaw refuses to load" in result.err
    )
    assert elsewhere.read_text() == "someone else's file\n"
    (workspace / "MEMORY.md").unlink()
    os.link(elsewhere, workspace / "MEMORY.md")
    result = connected("--action", "consolidate")
    assert "has 2 hard links, which OpenClaw refuses to load" in result.err
    assert elsewhere.read_text() == "someone else's file\n"


def test_the_link_the_old_advice_made_becomes_a_plain_file(connected, state, data_dir):
    workspace = state / "workspace"
    workspace.mkdir()
    (workspace / "MEMORY.md").symlink_to(data_dir / "MEMORY.md")
    result = consolidate_with_a_fact(connected)
    assert result.code == 0, result.err
    path = workspace / "MEMORY.md"
    assert not path.is_symlink() and path.is_file()
    assert "user is allergic to peanuts" in path.read_text()
    assert "user is allergic to peanuts" in (data_dir / "MEMORY.md").read_text()


def test_a_workspace_that_is_a_link_is_not_written(connected, state, tmp_path):
    real = tmp_path / "real-workspace"
    real.mkdir()
    (state / "workspace").symlink_to(real)
    result = consolidate_with_a_fact(connected)
    assert result.code == 0
    assert f"{state / 'workspace'}: the workspace is a symbolic link" in result.err
    assert list(real.iterdir()) == []


def configured_state_dir(data: Path) -> str:
    from ruamel.yaml import YAML

    return YAML(typ="safe").load(data / "config.yaml")["memory_oracle"]["openclaw_state_dir"]


@pytest.mark.slow
def test_init_memory_connects_to_openclaw(tmp_path, state):
    data = tmp_path / "memory"
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state), "HOME": str(tmp_path)}
    result = subprocess.run(
        [str(BUNDLE / "scripts" / "init_memory.sh"), str(data), "--openclaw"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert f"Connected to OpenClaw at {state}" in result.stdout
    assert configured_state_dir(data) == str(state)
    other = tmp_path / "other-state"
    result = subprocess.run(
        [str(BUNDLE / "scripts" / "init_memory.sh"), str(data), f"--openclaw={other}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0 and f"{other} does not exist yet" in result.stderr
    assert configured_state_dir(data) == str(other)
    env.pop("OPENCLAW_STATE_DIR")
    result = subprocess.run(
        [str(BUNDLE / "scripts" / "init_memory.sh"), str(data), "--openclaw"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert configured_state_dir(data) == str(tmp_path / ".openclaw")


@pytest.mark.skipif(os.getuid() != 0, reason="giving a directory away needs root")
def test_a_workspace_owned_by_someone_else_is_not_written(connected, state):
    workspace = state / "workspace"
    workspace.mkdir()
    os.chown(workspace, 12345, 12345)
    result = consolidate_with_a_fact(connected)
    assert result.code == 0
    assert f"{workspace}: owned by uid 12345, not by you" in result.err
    assert list(workspace.iterdir()) == []
    health = connected("--json", "--action", "health-check").json()
    assert any("owned by uid 12345" in warning for warning in health["warnings"])
