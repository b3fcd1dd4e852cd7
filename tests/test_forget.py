"""A forget that forgets: what a selector reaches (fact ids, a query, a session, a sender, a
span of time) is previewed, then gone from every answer: the facts archived as forgotten,
the episodes, the lines of the session logs, the daily summaries and MEMORY.md, the
indexes made again; the nightly jobs and a log copied back never learn it again, while the
owner saying it again later is heard. --purge erases what the archive kept. Real files,
the CLI in-process, the hashing embedder."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import test_openclaw_state
from test_openclaw_state import Transcript

from conftest import hash_embedder, recall_results, write_jsonl

# The fixtures of the transcript tests: an OpenClaw state directory, and a memory reading it.
state = test_openclaw_state.state
connected = test_openclaw_state.connected

SALARY = "My salary is 185,000 dollars a year, and my bank PIN hint is my dog's birthday."
SAID = "2026-11-20T10:00:00Z"
TURNS = [
    {"ts": SAID, "role": "user", "text": SALARY},
    {
        "ts": "2026-11-20T10:00:05Z",
        "role": "assistant",
        "text": "Noted, I will keep that private and not share it with anyone.",
    },
    {
        "ts": "2026-11-20T10:01:00Z",
        "role": "user",
        "text": "I live in Lisbon and I work as a nurse at the city hospital.",
    },
]
LOG = "2026-11-20-100000.jsonl"
LEARNED = "2026-11-20T12:00:00Z"
LATER = "2026-11-21T12:00:00Z"
MONTH_LATER = "2026-12-22T12:00:00Z"
WORDS = ("185,000", "PIN hint", "salary")
ARCHIVE = "knowledge-graph/archived-facts.jsonl"
ARCHIVE_CACHE = "state/cache/knowledge-graph__archived-facts.jsonl.marshal"
TRANSCRIPT_NOW = "2026-05-16T12:00:00Z"  # the day after the transcript's turns


@pytest.fixture
def salary(cli, data_dir) -> Path:
    """The new user's memory: the salary turn and two others, summarized and consolidated."""
    hash_embedder(cli)
    write_jsonl(data_dir / "sessions" / LOG, TURNS)
    assert cli("--action", "summarize", "--all", now=LEARNED).code == 0
    assert cli("--action", "consolidate", now=LEARNED).code == 0
    assert "salary" in (data_dir / "MEMORY.md").read_text()
    return data_dir


def holding(data_dir: Path, words=WORDS) -> set[str]:
    """The files of the data directory holding any of `words` (grep -r)."""
    return {
        str(path.relative_to(data_dir))
        for path in data_dir.rglob("*")
        if path.is_file() and any(word.encode() in path.read_bytes() for word in words)
    }


def snapshot(data_dir: Path) -> dict[str, str]:
    """Every file of the memory (not the lock, nor the caches: derived, kept by a read)."""
    return {
        str(path.relative_to(data_dir)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(data_dir.rglob("*"))
        if path.is_file()
        and not path.name.startswith("memory.lock")
        and "cache" not in path.relative_to(data_dir).parts
    }


def said(cli, query: str, now: str = MONTH_LATER) -> str:
    return json.dumps(recall_results(cli, query, now=now))


def test_forget_by_query_is_previewed_then_gone_from_every_answer_and_never_learned_again(
    cli, salary
):
    data_dir = salary
    before = snapshot(data_dir)
    preview = cli("--json", "--action", "forget", "--query", "salary", now=LATER)
    assert preview.code == 0, preview.err
    listed = preview.json()
    assert listed["dry_run"] and listed["forget"] is None
    assert {fact["text"] for fact in listed["facts"]} >= {"user's salary is 185,000 dollars a year"}
    assert [episode["source"] for episode in listed["episodes"]] == [f"sessions/{LOG}:1"]
    assert listed["turns"] == [f"sessions/{LOG}:1"]
    assert {"knowledge-graph/facts.jsonl", f"sessions/{LOG}", "MEMORY.md"} <= set(listed["files"])
    assert snapshot(data_dir) == before  # a preview changes nothing

    done = cli("--action", "forget", "--query", "salary", "--yes", now=LATER)
    assert done.code == 0, done.err
    assert done.out.startswith("Forgot 2 fact(s), 1 episode(s) and 1 session line(s)")
    assert "185,000" not in said(cli, "what is my salary", LATER)
    # The text stays in the archive alone (and the archive's cache); the other turns stay.
    assert holding(data_dir) == {ARCHIVE, ARCHIVE_CACHE}
    assert "Lisbon" in said(cli, "where do I live", LATER)
    assert "185,000" not in (data_dir / "MEMORY.md.bak").read_text()

    # The nightly jobs a month later, and the same log copied back into sessions/.
    write_jsonl(data_dir / "sessions" / "2026-11-22-090000.jsonl", TURNS)
    assert cli("--action", "summarize", "--all", now=MONTH_LATER).code == 0
    assert cli("--action", "consolidate", now=MONTH_LATER).code == 0
    assert "185,000" not in said(cli, "what is my salary")
    assert "185,000" not in said(cli, "bank PIN hint")
    assert holding(data_dir) == {ARCHIVE, ARCHIVE_CACHE}
    # the copy's other lines are learned as they were
    assert "Lisbon" in said(cli, "where do I live")

    purged = cli("--action", "forget", "--query", "salary", "--purge", "--yes", now=MONTH_LATER)
    assert purged.code == 0, purged.err
    assert holding(data_dir) == set()
    tombstones = [
        json.loads(line)
        for line in (data_dir / ARCHIVE).read_text().splitlines()
        if json.loads(line).get("purged")
    ]
    assert len(tombstones) == 2
    assert all(t["source"] == f"sessions/{LOG}:1" for t in tombstones)


def test_forget_by_id_takes_the_turn_its_fact_was_learned_from(cli, salary):
    data_dir = salary
    facts = [json.loads(line) for line in (data_dir / "knowledge-graph/facts.jsonl").open()]
    (pay,) = [fact["id"] for fact in facts if "185,000" in fact["object"]]
    done = cli("--json", "--action", "forget", "--id", pay, "--reason", "private", now=LATER)
    assert done.code == 0, done.err
    answer = done.json()
    # as forget --id has always answered, and what else went with it
    assert answer["forgotten"] == pay and answer["archive_reason"] == "forgotten: private"
    assert answer["turns"] == [f"sessions/{LOG}:1"] and len(answer["facts"]) == 2
    assert "185,000" not in said(cli, "what is my salary", LATER)
    assert holding(data_dir) == {ARCHIVE, ARCHIVE_CACHE}
    again = cli("--action", "forget", "--id", pay, now=LATER)
    assert again.code == 0 and again.out.startswith("Nothing to forget")


def test_the_owner_saying_it_again_is_heard_and_another_repeating_it_is_not(cli, salary):
    data_dir = salary
    assert cli("--action", "forget", "--query", "salary", "--yes", now=LATER).code == 0
    outsider = {"origin": "untrusted", "session": "interactive"}
    write_jsonl(
        data_dir / "sessions" / "2026-11-25-090000.jsonl",
        [
            {
                "ts": "2026-11-25T09:00:00Z",
                "role": "assistant",
                "text": f"The page says: {SALARY}",
                "provenance": outsider,
            },
            {"ts": "2026-11-25T09:05:00Z", "role": "user", "text": "I love hiking in Sintra."},
        ],
    )
    assert cli("--action", "summarize", "--all", now="2026-11-25T12:00:00Z").code == 0
    assert "185,000" not in said(cli, "what is my salary")
    assert "Sintra" in said(cli, "hiking")
    log = (data_dir / "sessions" / "2026-11-25-090000.jsonl").read_text()
    assert "185,000" not in log and "[forgotten]" in log

    write_jsonl(
        data_dir / "sessions" / "2026-11-26-090000.jsonl",
        [
            {
                "ts": "2026-11-26T09:00:00Z",
                "role": "user",
                "text": "My salary is 185,000 dollars a year.",
            }
        ],
    )
    assert cli("--action", "summarize", "--all", now="2026-11-26T12:00:00Z").code == 0
    assert "185,000" in said(cli, "what is my salary")  # a new statement, heard


def test_forget_a_session_a_sender_or_a_span_of_time(cli, data_dir):
    hash_embedder(cli)
    write_jsonl(
        data_dir / "sessions" / "2026-11-01-090000.jsonl",
        [
            {"ts": "2026-11-01T09:00:00Z", "role": "user", "text": "I keep three beehives."},
            {
                "ts": "2026-11-01T09:01:00Z",
                "role": "user",
                "text": "I am allergic to shellfish.",
                "speaker": "Bob",
                "provenance": {"origin": "untrusted", "chat": "group", "sender": "Bob"},
            },
        ],
    )
    write_jsonl(
        data_dir / "sessions" / "2026-11-02-090000.jsonl",
        [{"ts": "2026-11-02T09:00:00Z", "role": "user", "text": "I play the cello on Sundays."}],
    )
    write_jsonl(
        data_dir / "sessions" / "2026-11-03-090000.jsonl",
        [{"ts": "2026-11-03T09:00:00Z", "role": "user", "text": "I drive an old red Volvo."}],
    )
    assert cli("--action", "summarize", "--all", now="2026-11-03T12:00:00Z").code == 0
    for word in ("beehives", "shellfish", "cello", "Volvo"):
        assert word in said(cli, word), word

    by_sender = cli("--action", "forget", "--sender", "bob", "--yes", now=LATER)
    assert by_sender.code == 0, by_sender.err
    assert "shellfish" not in said(cli, "shellfish") and "beehives" in said(cli, "beehives")

    by_session = cli(
        "--action", "forget", "--session", "2026-11-02-090000.jsonl", "--yes", now=LATER
    )
    assert by_session.code == 0, by_session.err
    assert "cello" not in said(cli, "cello")

    span = ["--since", "2026-11-03T00:00:00Z", "--until", "2026-11-04"]
    by_time = cli("--json", "--action", "forget", *span, "--yes", now=LATER)
    assert by_time.code == 0, by_time.err
    assert by_time.json()["turns"] == ["sessions/2026-11-03-090000.jsonl:1"]
    assert "Volvo" not in said(cli, "Volvo") and "beehives" in said(cli, "beehives")
    assert holding(data_dir, ("shellfish", "cello", "Volvo")) <= {ARCHIVE, ARCHIVE_CACHE}


def test_a_fact_also_said_in_a_turn_that_stays_keeps_that_turn(cli, data_dir):
    hash_embedder(cli)
    for day in ("2026-11-01", "2026-11-02"):
        write_jsonl(
            data_dir / "sessions" / f"{day}-090000.jsonl",
            [{"ts": f"{day}T09:00:00Z", "role": "user", "text": "I live in Porto."}],
        )
        assert cli("--action", "summarize", "--all", now=f"{day}T12:00:00Z").code == 0
    done = cli(
        "--json", "--action", "forget", "--session", "2026-11-01-090000.jsonl", "--yes", now=LATER
    )
    assert done.code == 0, done.err
    assert done.json()["facts"] == [] and len(done.json()["kept"]) == 1
    (fact,) = [json.loads(line) for line in (data_dir / "knowledge-graph/facts.jsonl").open()]
    assert fact["source"] == "sessions/2026-11-02-090000.jsonl:1"
    assert "sessions/2026-11-01-090000.jsonl:1" not in fact.get("sources", [])
    assert "Porto" in said(cli, "Porto")


def test_a_selector_that_matches_nothing_changes_nothing(cli, salary):
    before = snapshot(salary)
    nothing = cli("--action", "forget", "--query", "submarine", "--yes", now=LATER)
    assert nothing.code == 0
    assert (
        nothing.out.strip()
        == "Nothing to forget: no fact, episode or session line matches --query 'submarine'"
    )
    assert snapshot(salary) == before


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ([], "forget needs a selector"),
        (["--id", "fact-x", "--query", "salary"], "--id"),
        (["--query", "salary", "--sender", "Bob"], "--query and --sender"),
        (["--query", "the"], "--query 'the'"),
        (["--session", "../../etc/passwd"], "--session"),
        (["--since", "yesterday"], "--since 'yesterday'"),
        (["--since", "2026-11-05", "--until", "2026-11-01"], "--since 2026-11-05"),
        (["--sender", " "], "--sender"),
    ],
)
def test_a_malformed_selector_is_a_usage_error_naming_it(cli, salary, options, named):
    before = snapshot(salary)
    refused = cli("--action", "forget", *options, "--yes", now=LATER)
    assert refused.code == 2, refused.err
    assert named in refused.err and len(refused.err.strip().splitlines()) == 1
    assert snapshot(salary) == before


def test_a_forget_stopped_halfway_is_finished_by_the_next_consolidate(cli, salary, monkeypatch):
    """Stopped after the logs' lines were forgotten and before the episodes were: every file
    is valid, the journal is left, and the nightly consolidate finishes the forget."""
    from vm_memory_oracle.forgetting import carry

    def stopped(*args, **kwargs):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(carry, "_episodes", stopped)
    assert cli("--action", "forget", "--query", "salary", "--yes", now=LATER).code == 8
    monkeypatch.undo()
    journal = salary / "state" / "forgetting.json"
    assert journal.exists() and "185,000" not in journal.read_text()
    assert "185,000" not in (salary / "sessions" / LOG).read_text()
    assert cli("--action", "health-check", now=LATER).code == 0

    done = cli("--json", "--action", "consolidate", now=MONTH_LATER)
    assert done.code == 0, done.err
    assert any("finished the forget fg-" in warning for warning in done.json()["warnings"])
    assert not journal.exists()
    assert "185,000" not in said(cli, "what is my salary")
    assert holding(salary) == {ARCHIVE, ARCHIVE_CACHE}


def test_the_recall_process_finds_nothing_forgotten_and_get_says_a_line_was_forgotten(cli, salary):
    from test_serve import services

    with services(salary) as start:
        service = start()
        before = service.ask("search", query="what is my salary", maxResults=5)
        assert "185,000" in json.dumps(before["result"])
        assert cli("--action", "forget", "--query", "salary", "--yes", now=LATER).code == 0
        after = service.ask("search", query="what is my salary", maxResults=5)
        assert after["ok"] and "185,000" not in json.dumps(after["result"])
        opened = service.ask("get", path=f"sessions/{LOG}", **{"from": 1, "lines": 2})
        assert opened["ok"], opened
        first, second = opened["result"]["text"].split("\n")[:2]
        assert first.startswith("[forgotten:") and "185,000" not in opened["result"]["text"]
        assert "Noted" in second


def test_each_forget_leaves_an_audit_line_of_when_why_what_and_how_many_never_the_words(
    cli, salary
):
    done = cli(
        "--json", "--action", "forget", "--query", "salary", "--yes", "--reason", "private",
        now=LATER,
    )  # fmt: skip
    assert done.code == 0, done.err
    audit = [json.loads(line) for line in (salary / "state" / "audit.jsonl").open()]
    (line,) = [entry for entry in audit if entry["action"] == "forget"]
    assert line["at"] == LATER
    assert line["change"].startswith(
        "forgot by --query; why: private: 2 fact(s), 0 archived fact(s) made forgotten, "
        "1 session line(s), 0 purged; "
    )
    assert set(line["ids"]) == {fact["id"] for fact in done.json()["facts"]}
    assert not any(word in json.dumps(audit) for word in WORDS)


def test_an_openclaw_session_forgotten_is_never_copied_nor_learned_again(
    cli, connected, state, data_dir
):
    """Forget by OpenClaw session id: the copies of its rows are forgotten in place; read
    again from the transcript (its import ledger gone), no row of it is copied back."""
    transcript = Transcript(state)
    transcript.user("s-private", "My salary is 185,000 dollars a year.", minute=1)
    transcript.user("s-garden", "I grow tomatoes in my garden.", minute=2)
    assert connected("--action", "summarize", "--all").code == 0
    assert "185,000" in said(cli, "what is my salary", TRANSCRIPT_NOW)

    preview = connected("--json", "--action", "forget", "--session", "s-private")
    assert preview.code == 0 and len(preview.json()["turns"]) == 1
    assert connected("--action", "forget", "--session", "s-private", "--yes").code == 0
    assert "185,000" not in said(cli, "what is my salary", TRANSCRIPT_NOW)

    (data_dir / "state" / "imports.json").unlink()  # every row read again
    assert connected("--action", "summarize", "--all").code == 0
    assert "185,000" not in said(cli, "what is my salary", TRANSCRIPT_NOW)
    assert "tomatoes" in said(cli, "what do I grow", TRANSCRIPT_NOW)
    assert holding(data_dir) <= {ARCHIVE, ARCHIVE_CACHE}
    # the row was not copied again: the one line of it is the first copy's, forgotten
    copies = [line for path in (data_dir / "sessions").glob("*.jsonl") for line in path.open()]
    assert sum("[forgotten]" in line for line in copies) == 1


def test_a_forget_run_while_summarize_reads_its_logs_leaves_no_line_and_no_stale_ledger(
    cli, salary, monkeypatch
):
    """A forget that runs after a summarize read the logs and before it learns them: the
    lines that summarize leaves out as forgotten (another repeating the salary, not learned
    when the forget ran) are forgotten in place by it, and the summarize ledger describes the
    logs as the forget left them, so the next run learns (and boosts) nothing again."""
    from vm_memory_oracle.cli import main
    from vm_memory_oracle.learning import logs

    data_dir = salary
    with (data_dir / "sessions" / LOG).open("a") as handle:
        line = {"ts": "2026-11-20T10:02:00Z", "role": "user", "text": "I keep three beehives."}
        handle.write(json.dumps(line) + "\n")
    bob = {"origin": "untrusted", "chat": "group", "sender": "Bob"}
    write_jsonl(
        data_dir / "sessions" / "2026-11-21-090000.jsonl",
        [
            {
                "ts": "2026-11-21T09:00:00Z",
                "role": "user",
                "text": f"Bob heard: {SALARY}",
                "speaker": "Bob",
                "provenance": bob,
            },
            {"ts": "2026-11-21T09:01:00Z", "role": "user", "text": "I play the cello."},
        ],
    )
    read = logs.read_logs

    def read_then_forget(store, paths):
        found = read(store, paths)
        monkeypatch.setattr(logs, "read_logs", read)
        forget = ["--data-path", str(data_dir), "--now", LATER, "--action", "forget"]
        assert main([*forget, "--query", "salary", "--yes"]) == 0
        return found

    monkeypatch.setattr(logs, "read_logs", read_then_forget)
    assert cli("--action", "summarize", "--all", now=LATER).code == 0
    assert holding(data_dir) == {ARCHIVE, ARCHIVE_CACHE}
    assert "beehives" in said(cli, "beehives") and "cello" in said(cli, "cello")
    again = cli("--json", "--action", "summarize", "--all", now=MONTH_LATER)
    assert again.code == 0, again.err
    assert again.json()["turns"] == 0 and again.json()["reinforced"] == 0


def test_an_openclaw_session_is_forgotten_by_its_key_too(cli, connected, state, data_dir):
    """--session names an OpenClaw session by its key as well: the sessions the transcript
    database gives that key are the ones forgotten."""
    from test_provenance_learning import sessions_table

    transcript = Transcript(state)
    sessions_table(
        transcript,
        [
            ("s-private", "agent:main:telegram:direct:42", "direct", "telegram", None),
            ("s-garden", "agent:main:main", "direct", "telegram", None),
        ],
    )
    transcript.user("s-private", "My salary is 185,000 dollars a year.", minute=1)
    transcript.user("s-garden", "I grow tomatoes in my garden.", minute=2)
    assert connected("--action", "summarize", "--all").code == 0
    key = "agent:main:telegram:direct:42"
    done = connected("--json", "--action", "forget", "--session", key, "--yes")
    assert done.code == 0, done.err
    (turn,) = done.json()["turns"]
    assert "185,000" not in said(cli, "what is my salary", TRANSCRIPT_NOW)
    assert "tomatoes" in said(cli, "what do I grow", TRANSCRIPT_NOW)
    assert holding(data_dir) <= {ARCHIVE, ARCHIVE_CACHE}
