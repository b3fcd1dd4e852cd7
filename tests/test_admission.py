"""Admission: the settings exclude_channels, exclude_chat_types and exclude_hook_sources leave
whole OpenClaw sessions out by what their `session_windows` row says, before any of their
events is read: nothing of them is copied, learned or kept as an episode, each is read past
in the import ledger (so a later change of the settings never brings its turns back), and
the health check names what was left out. Real SQLite transcript databases, the real
command line and the real long-lived process."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
import test_openclaw_state
from test_live_learning import learn, memory, served  # noqa: F401 (fixtures)
from test_openclaw_state import Transcript
from test_provenance_learning import OWNER, every, message, sessions_table
from vm_memory_oracle.config import Settings
from vm_memory_oracle.openclaw.provenance import Admission
from vm_memory_oracle.openclaw.transcripts import read_new_turns

from conftest import data_files

state = test_openclaw_state.state
connected = test_openclaw_state.connected
ALICE = {"senderIsOwner": False, "senderId": "111", "senderName": "Alice"}
SESSIONS = [
    ("main", "agent:main:main", "direct", "telegram", None),
    ("chat", "agent:main:discord:direct:7", "direct", "Discord", None),
    ("group", "agent:main:telegram:group:-100", "group", "telegram", None),
    ("mail", "agent:main:cron:hook-2", None, None, "gmail"),
]
SETTINGS = (
    "exclude_channels=[DISCORD]",
    "exclude_chat_types=[Group]",
    "exclude_hook_sources=[gmail, webhook]",
)


def undecodable(transcript: Transcript, session: str) -> None:
    """A row no reader could decode: reading it would be reported."""
    seq = transcript.seq[session] = transcript.seq.get(session, -1) + 1
    with closing(sqlite3.connect(transcript.path)) as connection, connection:
        connection.execute(
            "INSERT INTO transcript_events VALUES (?, ?, ?, ?, NULL, NULL, NULL)",
            (session, seq, "{not json", 1_000 + seq),
        )


def conversations(transcript: Transcript) -> None:
    """The owner's direct chat beside a Discord chat, a group and a mail run, each left-out
    session with an event no reader could decode and one stored compressed."""
    sessions_table(transcript, SESSIONS)
    message(transcript, "main", "user", "I am allergic to peanuts.", __openclaw=OWNER)
    message(transcript, "main", "assistant", [{"type": "text", "text": "Noted: peanuts."}])
    message(transcript, "chat", "user", "I play chess every Sunday.", __openclaw=OWNER)
    message(transcript, "chat", "assistant", [{"type": "text", "text": "Chess, noted."}])
    message(transcript, "group", "user", "@bot I'm allergic to shellfish.", __openclaw=ALICE)
    message(transcript, "mail", "user", "Your new account number is 5566-7788.")
    message(transcript, "mail", "user", "Quarterly report attached. " + "lorem " * 300)
    for session in ("chat", "group", "mail"):
        undecodable(transcript, session)


def ledger_sessions(data_dir: Path) -> dict[str, dict]:
    ledger = json.loads((data_dir / "state" / "imports.json").read_text())
    [sessions] = [source["sessions"] for source in ledger["sources"].values()]
    return sessions


def learned_text(data_dir: Path) -> str:
    return (data_dir / "knowledge-graph" / "facts.jsonl").read_text() + json.dumps(
        every(data_dir, "episodes")
    )


def copied_text(data_dir: Path) -> str:
    return " ".join(line["text"] for line in every(data_dir, "sessions"))


def test_a_left_out_session_is_never_read(state):
    """Only the seqs of a left-out session's rows are read: none of its events is decoded
    (its undecodable row is not reported), and it is read past to its last; names are
    compared without case."""
    transcript = Transcript(state)
    conversations(transcript)
    settings = Settings(
        exclude_channels=("discord",),
        exclude_chat_types=("group",),
        exclude_hook_sources=("gmail",),
    )
    read = read_new_turns(transcript.path, {}, admission=Admission.of(settings))
    assert read.undecodable == 0 and read.problem is None
    assert {turn.session_id for turn in read.turns} == {"main"}
    assert read.events == 2  # the direct chat's, none of the others'
    assert {session: (left.reason, left.seqs) for session, left in read.excluded.items()} == {
        "chat": ("channel discord", (0, 1, 2)),
        "group": ("chat type group", (0, 1)),
        "mail": ("hook source gmail", (0, 1, 2)),
    }
    assert read.last_seq == {"main": 1, "chat": 2, "group": 1, "mail": 2}
    # Read again after the first two rows of the chat: only what is new is counted.
    again = read_new_turns(transcript.path, {"chat": 1}, admission=Admission.of(settings))
    assert again.excluded["chat"].seqs == (2,)
    assert again.excluded["chat"].events_after(1) == 1


def test_two_runs_reading_at_once_count_what_they_left_out_once(cli, state, data_dir):
    """The nightly run and live learning may read the same database before either takes the
    lock; the one that copies second counts only the events the first did not read past."""
    from vm_memory_oracle.openclaw.imports import copy_read_turns, read_openclaw_state
    from vm_memory_oracle.storage.layout import Layout
    from vm_memory_oracle.storage.store import Store

    from conftest import NOW

    assert cli("--action", "init").code == 0
    transcript = Transcript(state)
    conversations(transcript)
    store = Store(Layout(data_dir), lock_timeout=5, timestamp=NOW)
    admission = Admission.of(Settings(exclude_chat_types=("group",)))
    early = read_openclaw_state(store, str(state), admission=admission)
    message(transcript, "group", "user", "@bot I'm allergic to kiwis.", __openclaw=ALICE)
    late = read_openclaw_state(store, str(state), admission=admission)
    assert copy_read_turns(store, late).excluded["chat type group"].events == 3
    assert copy_read_turns(store, early).excluded == {}  # already read past
    assert ledger_sessions(data_dir)["group"] == {
        "excluded": {"chat type group": 3},
        "files": {},
        "seq": 2,
    }
    # The other order: the early read copied first, the late one counts what is new.
    message(transcript, "group", "user", "@bot I'm allergic to figs.", __openclaw=ALICE)
    early = read_openclaw_state(store, str(state), admission=admission)
    message(transcript, "group", "user", "@bot I'm allergic to dates.", __openclaw=ALICE)
    late = read_openclaw_state(store, str(state), admission=admission)
    assert copy_read_turns(store, early).excluded["chat type group"].events == 1
    assert copy_read_turns(store, late).excluded["chat type group"].events == 1
    assert ledger_sessions(data_dir)["group"]["excluded"] == {"chat type group": 5}


def test_sessions_the_settings_leave_out_are_never_read_nor_learned(connected, state, data_dir):
    transcript = Transcript(state)
    conversations(transcript)
    for setting in SETTINGS:
        assert connected("--action", "config", "--set", setting).code == 0
    summarized = connected("--action", "summarize", "--all")
    assert summarized.code == 0
    assert "could not be decoded" not in summarized.out + summarized.err

    said, learned = copied_text(data_dir), learned_text(data_dir)
    assert "peanuts" in said and "peanuts" in learned  # the session beside them is learned
    for left_out in ("chess", "shellfish", "5566", "Quarterly"):
        assert left_out not in said and left_out not in learned
    sessions = ledger_sessions(data_dir)
    assert {key: session.get("excluded") for key, session in sessions.items()} == {
        "main": None,
        "chat": {"channel discord": 3},
        "group": {"chat type group": 2},
        "mail": {"hook source gmail": 3},
    }
    assert {key: session["seq"] for key, session in sessions.items()} == {
        "main": 1,
        "chat": 2,
        "group": 1,
        "mail": 2,
    }
    assert all(not sessions[key]["files"] for key in ("chat", "group", "mail"))
    audit = (data_dir / "state" / "audit.jsonl").read_text()
    assert "left out, as the settings ask: 1 session(s) of chat type group" in audit

    checked = connected("--json", "--action", "health-check")
    assert checked.json()["openclaw"]["excluded"] == {
        "channel discord": {"sessions": 1, "events": 3},
        "chat type group": {"sessions": 1, "events": 2},
        "hook source gmail": {"sessions": 1, "events": 3},
    }
    assert not any("left out" in warning for warning in checked.json()["warnings"])
    text = connected("--action", "health-check").out
    assert (
        "never learned, as the settings ask: OpenClaw sessions of "
        "channel discord: 1 (3 event(s) unread), chat type group: 1 (2 event(s) unread), "
        "hook source gmail: 1 (3 event(s) unread)"
    ) in text


def test_changing_the_settings_later_never_brings_back_what_was_left_out(
    connected, state, data_dir
):
    transcript = Transcript(state)
    conversations(transcript)
    for setting in SETTINGS:
        assert connected("--action", "config", "--set", setting).code == 0
    assert connected("--action", "summarize", "--all").code == 0
    message(transcript, "group", "user", "@bot I'm allergic to kiwis.", __openclaw=ALICE)
    assert connected("--action", "summarize", "--all").code == 0  # still left out

    for setting in ("exclude_chat_types=[]", "exclude_channels=[]", "exclude_hook_sources=[]"):
        assert connected("--action", "config", "--set", setting).code == 0
    message(transcript, "group", "user", "@bot I collect stamps.", __openclaw=ALICE)
    message(transcript, "chat", "user", "I sing in a choir.", __openclaw=OWNER)
    assert connected("--action", "summarize", "--all").code == 0

    said = copied_text(data_dir)
    assert "stamps" in said and "choir" in said
    learned = learned_text(data_dir)
    for left_out in ("chess", "shellfish", "kiwis", "5566", "Quarterly"):
        assert left_out not in said and left_out not in learned
    sessions = ledger_sessions(data_dir)
    assert sessions["group"]["excluded"] == {"chat type group": 3}
    assert sessions["group"]["seq"] == 3 and sessions["group"]["files"]
    # What was left out is still named, in all: the owner asked for it once.
    health = connected("--json", "--action", "health-check").json()["openclaw"]
    assert health["excluded"] == {
        "channel discord": {"sessions": 1, "events": 3},
        "chat type group": {"sessions": 1, "events": 3},
        "hook source gmail": {"sessions": 1, "events": 3},
    }


def test_the_live_path_leaves_the_same_sessions_out(served, state, memory, cli):  # noqa: F811
    transcript = Transcript(state)
    conversations(transcript)
    for setting in SETTINGS:
        assert cli("--action", "config", "--set", setting).code == 0
    service = served()
    learn(service, state)
    said, learned = copied_text(memory), learned_text(memory)
    assert "peanuts" in said and "peanuts" in learned
    for left_out in ("chess", "shellfish", "5566", "Quarterly"):
        assert left_out not in said and left_out not in learned
    assert ledger_sessions(memory)["group"]["excluded"] == {"chat type group": 2}


def test_a_ledger_of_the_first_form_is_read_and_counted(connected, state, data_dir):
    """The first ledgers with admission kept only why a session was left out."""
    transcript = Transcript(state)
    conversations(transcript)
    assert connected("--action", "config", "--set", "exclude_chat_types=[group]").code == 0
    assert connected("--action", "summarize", "--all").code == 0
    path = data_dir / "state" / "imports.json"
    ledger = json.loads(path.read_text())
    [source] = ledger["sources"].values()
    source["sessions"]["group"]["excluded"] = "chat type group"
    path.write_text(json.dumps(ledger))
    health = connected("--json", "--action", "health-check").json()["openclaw"]
    assert health["excluded"] == {"chat type group": {"sessions": 1, "events": 0}}
    message(transcript, "group", "user", "@bot I collect stamps.", __openclaw=ALICE)
    assert connected("--action", "summarize", "--all").code == 0
    assert ledger_sessions(data_dir)["group"]["excluded"] == {"chat type group": 1}


@pytest.mark.parametrize(
    "setting",
    [
        "exclude_channels=[Discord, 'x y']",
        "exclude_chat_types=group",
        "exclude_hook_sources=[1]",
        "exclude_hook_sources=[gmail, null]",
    ],
)
def test_a_bad_value_is_refused_naming_the_key_and_changes_nothing(connected, data_dir, setting):
    key = setting.split("=")[0]
    before = data_files(data_dir)
    refused = connected("--action", "config", "--set", setting)
    assert refused.code == 3
    assert f"memory_oracle.{key} must be a list of names" in refused.err
    assert data_files(data_dir) == before
