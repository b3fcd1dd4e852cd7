"""consolidate end to end: the nine steps, their idempotence, the lock, the dry run."""

from __future__ import annotations

import json
import shutil
import signal
import time

import pytest

from conftest import data_files, hash_embedder, python_child, write_jsonl

DAY0 = "2026-01-01T09:00:00Z"
LATER = "2026-07-20T00:30:00Z"  # 200 days after DAY0
USER_TOP = "# MEMORY\n\nMy own notes: call mum on Sundays.\n\n"
USER_BOTTOM = "\n## Scratch\n- written by hand, kept by hand\n"


def remember(cli, *args, now=DAY0):
    result = cli("--json", "--action", "remember", *args, now=now)
    assert result.code == 0, result.err
    return result.json()["ids"][0]


def consolidate(cli, *args, now=LATER):
    result = cli("--json", "--action", "consolidate", *args, now=now)
    assert result.code == 0, result.err
    return result.json()


def lines_of(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def ids_in(data_dir, name):
    return {record["id"] for record in lines_of(data_dir / "knowledge-graph" / name)}


def indexed_fact_ids(data_dir):
    return {record["fact_id"] for record in lines_of(data_dir / "embeddings" / "metadata.jsonl")}


def test_a_fact_unused_for_200_days_is_archived_and_a_pinned_one_of_the_same_age_stays(
    cli, data_dir
):
    hash_embedder(cli)
    faded = remember(cli, "--subject", "user", "--predicate", "visited", "--object", "Oslo")
    pinned = remember(
        cli, "--subject", "user", "--predicate", "blood_type", "--object", "O+", "--pin"
    )
    consolidate(cli, now=DAY0)
    assert {faded, pinned} <= indexed_fact_ids(data_dir)

    report = consolidate(cli)
    prune = next(step for step in report["steps"] if step["name"] == "prune")
    assert prune["counts"]["pruned"] == 1
    assert ids_in(data_dir, "facts.jsonl") == {pinned}
    [archived] = lines_of(data_dir / "knowledge-graph" / "archived-facts.jsonl")
    assert archived["id"] == faded and archived["archive_reason"].startswith("pruned: activation")
    assert archived["final_activation"] < 0.05
    assert indexed_fact_ids(data_dir) == {pinned}
    assert "- user blood type O+\n" in (data_dir / "MEMORY.md").read_text()
    assert "Oslo" not in (data_dir / "MEMORY.md").read_text()


def test_the_first_recall_after_a_consolidation_reads_the_tables_it_left(cli, data_dir):
    # The night rewrites facts.jsonl (a fact pruned); the tables recall reads are made of
    # the file as it leaves it, so the morning's recall reads them, not makes them again.
    hash_embedder(cli)
    remember(cli, "--subject", "user", "--predicate", "visited", "--object", "Oslo")
    kept = remember(cli, "--subject", "user", "--predicate", "likes", "--object", "oolong tea")
    cli("--action", "pin", "--id", kept)
    report = consolidate(cli)
    assert next(step for step in report["steps"] if step["name"] == "prune")["counts"]["pruned"]
    tables = [
        data_dir / "state" / "cache" / name
        for name in ("lexical-index.marshal", "activation-packed.marshal")
    ]
    made = [(path.stat().st_ino, path.stat().st_mtime_ns) for path in tables]
    recalled = cli("--json", "--action", "recall", "--query", "oolong", "--no-boost", now=LATER)
    assert [hit["id"] for hit in recalled.json()["results"]] == [kept]
    assert [(path.stat().st_ino, path.stat().st_mtime_ns) for path in tables] == made


def test_a_superseded_fact_is_archived_and_stays_the_newer_ones_history(cli, data_dir):
    hash_embedder(cli)
    berlin = remember(cli, "--subject", "user", "--predicate", "lives_in", "--object", "Berlin")
    lisbon = remember(
        cli,
        "--subject",
        "user",
        "--predicate",
        "lives_in",
        "--object",
        "Lisbon",
        now="2026-01-02T09:00:00Z",
    )
    consolidate(cli, now="2026-01-03T00:30:00Z")
    assert ids_in(data_dir, "facts.jsonl") == {lisbon}
    [archived] = lines_of(data_dir / "knowledge-graph" / "archived-facts.jsonl")
    assert archived["id"] == berlin and archived["archive_reason"] == f"superseded by {lisbon}"
    memory = (data_dir / "MEMORY.md").read_text()
    assert "Lisbon" in memory and "Berlin" not in memory
    recalled = cli(
        "--json",
        "--action",
        "recall",
        "--query",
        "where does the user live",
        "--no-boost",
        now="2026-01-03T08:00:00Z",
    ).json()
    [hit] = [hit for hit in recalled["results"] if hit["id"] == lisbon]
    assert [old["object"] for old in hit["history"]] == ["Berlin"]
    assert berlin not in {hit["id"] for hit in recalled["results"]}


def test_a_fact_superseded_by_a_fact_lost_to_damage_is_current_again(cli, data_dir):
    """facts.jsonl cut inside the newer fact's line (a disk fault; the tool's own writes
    cannot do it): the older fact is not archived as superseded by a fact that is nowhere,
    it is made current again, and the repair is reported."""
    hash_embedder(cli)
    porto = remember(cli, "--subject", "user", "--predicate", "lives_in", "--object", "Porto")
    remember(
        cli,
        "--subject",
        "user",
        "--predicate",
        "lives_in",
        "--object",
        "Rome",
        now="2026-01-02T09:00:00Z",
    )
    facts = data_dir / "knowledge-graph" / "facts.jsonl"
    facts.write_bytes(facts.read_bytes()[:-40])
    result = cli("--json", "--action", "consolidate", now="2026-01-03T00:30:00Z")
    assert result.code == 0, result.err
    [current] = lines_of(facts)
    assert current["id"] == porto and "superseded_by" not in current
    prune = next(step for step in result.json()["steps"] if step["name"] == "prune")
    assert prune["counts"]["reinstated"] == 1
    [change] = [change for change in prune["changes"] if change["change"] == "reinstated"]
    assert change["fact"] == porto and "in neither facts.jsonl nor the archive" in change["reason"]
    health = json.loads((data_dir / "health.json").read_text())
    assert any("reinstated" in repair["repair"] for repair in health["repairs"])
    recalled = cli(
        "--json",
        "--action",
        "recall",
        "--query",
        "where does the user live",
        "--no-boost",
        now="2026-01-03T08:00:00Z",
    ).json()["results"]
    assert recalled[0]["object"] == "Porto"


@pytest.mark.slow
def test_two_consolidations_in_a_row_change_no_file_but_health_timestamps(cli, data_dir):
    """With the default embedder and the wall clock, as cron runs it."""
    sessions = data_dir / "sessions"
    sessions.mkdir(parents=True)
    today = time.strftime("%Y-%m-%d", time.gmtime())
    write_jsonl(
        sessions / f"{today}-080000.jsonl",
        [
            {
                "ts": f"{today}T08:00:00Z",
                "role": "user",
                "text": "I live in Lisbon and I work at Acme.",
            },
            {
                "ts": f"{today}T08:01:00Z",
                "role": "user",
                "text": "Remember that I am allergic to shellfish.",
            },
        ],
    )
    assert cli("--action", "remember", "--from", "assets/examples/facts.jsonl", now=None).code == 0
    first = cli("--json", "--action", "consolidate", now=None)
    assert first.code == 0, first.err
    assert "shellfish" in (data_dir / "MEMORY.md").read_text()
    before = data_files(data_dir)
    second = cli("--json", "--action", "consolidate", now=None)
    assert second.code == 0, second.err
    after = data_files(data_dir)
    report = f"state/reports/{json.loads(second.out)['started_at'].replace(':', '-')}.md"
    assert {name for name in after if after[name] != before.get(name)} <= {"health.json", report}
    assert set(after) - {report} == set(before) - {report}  # both runs may start in one second
    old, new = json.loads(before["health.json"]), json.loads(after["health.json"])
    moving = (
        "timestamp",
        "last_consolidation",
        "consolidation_duration_seconds",
        "disk_usage_bytes",
        "disk_usage_percent",
    )
    assert {k: v for k, v in old.items() if k not in moving} == {
        k: v for k, v in new.items() if k not in moving
    }
    counts = {step["name"]: step["counts"] for step in second.json()["steps"]}
    assert counts["summarize"]["added"] == 0 and counts["index"]["embedded"] == 0
    assert counts["prune"]["archived"] == 0 and counts["memory_md"]["added"] == 0


@pytest.mark.slow
def test_a_second_consolidation_waits_its_timeout_then_exits_4_naming_the_holder(cli, data_dir):
    hash_embedder(cli)
    assert cli("--action", "config", "--set", "lock_timeout_seconds=1").code == 0
    holder = python_child(
        "import sys, time\n"
        "from pathlib import Path\n"
        "from vm_memory_oracle.storage import locks\n"
        "with locks.exclusive(Path(sys.argv[1]), 5, 'consolidate'):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(60)\n",
        str(data_dir / "state" / "consolidate.lock"),
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        before = data_files(data_dir)
        started = time.monotonic()
        result = cli("--action", "consolidate")
        waited = time.monotonic() - started
        assert result.code == 4
        assert f"pid {holder.pid} (consolidate)" in result.err
        assert waited >= 1.0
        assert data_files(data_dir) == before
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert cli("--action", "consolidate").code == 0  # the dead holder's lock is free


def test_remember_and_recall_are_not_held_up_by_a_consolidation_in_progress(cli, data_dir):
    hash_embedder(cli)
    holder = python_child(
        "import sys, time\n"
        "from pathlib import Path\n"
        "from vm_memory_oracle.storage import locks\n"
        "with locks.exclusive(Path(sys.argv[1]), 5, 'consolidate'):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(60)\n",
        str(data_dir / "state" / "consolidate.lock"),
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        fact = remember(cli, "--subject", "user", "--predicate", "likes", "--object", "tea")
        found = cli("--json", "--action", "recall", "--query", "tea", now=DAY0).json()
        assert fact in {hit["id"] for hit in found["results"]}
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()


def _world(cli, data_dir):
    """A memory with something for every step to do."""
    hash_embedder(cli)
    sessions = data_dir / "sessions"
    write_jsonl(
        sessions / "2026-06-01-080000.jsonl",
        [
            {"ts": "2026-06-01T08:00:00Z", "role": "user", "text": "I moved to Porto last week."},
            {
                "ts": "2026-06-01T08:05:00Z",
                "role": "user",
                "text": "I prefer green tea in the morning.",
            },
        ],
    )
    write_jsonl(
        sessions / "2026-07-19-210000.jsonl",
        [
            {
                "ts": "2026-07-19T21:00:00Z",
                "role": "user",
                "text": "Remember that my dentist is Dr. Silva.",
            },
        ],
    )
    (data_dir / "daily" / "2025-06-01.md").write_text("# 2025-06-01\n")
    remember(cli, "--subject", "user", "--predicate", "visited", "--object", "Oslo")
    remember(cli, "--subject", "user", "--predicate", "lives_in", "--object", "Berlin")
    remember(
        cli,
        "--subject",
        "user",
        "--predicate",
        "name",
        "--object",
        "Alex",
        "--category",
        "identity",
        now="2026-07-01T00:00:00Z",
    )
    memory = data_dir / "MEMORY.md"
    memory.write_text(
        USER_TOP + "<!-- vm-memory-oracle:begin -->\n<!-- vm-memory-oracle:end -->\n" + USER_BOTTOM
    )


def _changes(report: dict) -> list:
    return [(step["name"], step["counts"], step["changes"]) for step in report["steps"]]


@pytest.mark.slow
def test_a_dry_run_writes_nothing_and_lists_the_changes_the_real_run_makes(cli, data_dir, tmp_path):
    _world(cli, data_dir)
    copy = tmp_path / "copy"
    shutil.copytree(data_dir, copy)
    before = data_files(data_dir)
    dry = cli("--json", "--action", "consolidate", "--dry-run", now=LATER)
    assert dry.code == 0, dry.err
    assert data_files(data_dir) == before
    assert not (data_dir / "health.json").exists()

    real = cli("--json", "--action", "consolidate", now=LATER, data=copy)
    assert real.code == 0, real.err
    assert dry.json()["dry_run"] and not real.json()["dry_run"]
    assert _changes(dry.json()) == _changes(real.json())
    steps = {step["name"]: step for step in real.json()["steps"]}
    assert steps["summarize"]["counts"]["session_files"] == 2
    assert steps["prune"]["counts"] == {
        "archived": 2,
        "superseded": 1,
        "pruned": 1,
        "reinstated": 0,
    }
    assert steps["clean"]["counts"]["sessions_removed"] == 1  # 2026-06-01, summarized
    assert steps["clean"]["counts"]["daily_removed"] == 1  # 2025-06-01
    assert steps["memory_md"]["counts"]["added"] >= 3

    text = cli("--action", "consolidate", "--dry-run", now=LATER)
    assert text.code == 0
    assert all(line.startswith("[DRY RUN]") for line in text.out.splitlines())


def test_memory_md_keeps_the_users_lines_and_a_backup_of_the_previous_version(cli, data_dir):
    _world(cli, data_dir)
    previous = (data_dir / "MEMORY.md").read_bytes()
    consolidate(cli)
    text = (data_dir / "MEMORY.md").read_text()
    assert text.startswith(USER_TOP + "<!-- vm-memory-oracle:begin -->\n")
    assert text.endswith("<!-- vm-memory-oracle:end -->\n" + USER_BOTTOM)
    block = text.split("<!-- vm-memory-oracle:begin -->\n")[1].split("<!-- vm-memory-oracle:end")[0]
    assert block.startswith("## The user\n") and "\n- user name Alex\n" in block
    assert "Porto" in text and "Oslo" not in text and "Berlin" not in text
    assert (data_dir / "MEMORY.md.bak").read_bytes() == previous


@pytest.mark.slow
def test_memory_md_with_5000_facts_above_half_stays_within_200_lines(cli, data_dir, tmp_path):
    hash_embedder(cli)
    # The line cap, with the character budget at its highest (20,000) so that the lines
    # run out first; the default budget is held by the next test.
    assert cli("--action", "config", "--set", "memory_md_max_chars=20000").code == 0
    categories = ["identity", "health"] + ["preference", "fact", "decision"] * 16
    facts = [
        {
            "subject": "user",
            "predicate": f"note_{n}",
            "object": f"value {n}",
            "category": categories[n % len(categories)],
        }
        for n in range(5000)
    ]  # 100 identity
    source = write_jsonl(tmp_path / "many.jsonl", facts)
    assert cli("--action", "remember", "--from", str(source), now=DAY0).code == 0
    memory = data_dir / "MEMORY.md"
    memory.write_text(
        USER_TOP + "<!-- vm-memory-oracle:begin -->\n<!-- vm-memory-oracle:end -->\n" + USER_BOTTOM
    )
    report = consolidate(cli, now="2026-01-02T00:30:00Z")
    text = memory.read_text()
    assert len(text.splitlines()) == 180  # filled to 90% of memory_md_max_lines
    assert text.startswith(USER_TOP) and text.endswith(USER_BOTTOM)
    block = text.split("<!-- vm-memory-oracle:begin -->\n")[1].split("<!-- vm-memory-oracle:end")[0]
    headings = [line for line in block.splitlines() if line.startswith("## ")]
    assert headings == ["## The user"]  # one subject
    assert (
        sum(1 for line in block.splitlines() if " note " in line)
        == len(text.splitlines()) - len(USER_TOP.splitlines()) - len(USER_BOTTOM.splitlines()) - 3
    )
    # identity and health facts decay slowest: the most active, they fill the block first
    shown = [
        int(line.split(" note ")[1].split()[0]) for line in block.splitlines() if " note " in line
    ]
    assert shown and all(n % 50 in (0, 1) for n in shown)  # identity, health
    steps = {step["name"]: step for step in report["steps"]}
    assert steps["memory_md"]["counts"]["lines"] == len(text.splitlines())
    own = len(USER_TOP.splitlines()) + len(USER_BOTTOM.splitlines())
    placed = 180 - own - 2 - 1  # markers and one heading
    assert steps["memory_md"]["counts"]["not_fitting"] == 5000 - placed


@pytest.mark.slow
def test_memory_md_stays_within_its_character_budget(cli, data_dir, tmp_path):
    hash_embedder(cli)
    facts = [
        {
            "subject": "user",
            "predicate": f"note_{n}",
            "object": f"value {n} of a rather long description of something",
            "pinned": True,
            "category": "fact",
        }
        for n in range(400)
    ]
    source = write_jsonl(tmp_path / "many.jsonl", facts)
    assert cli("--action", "remember", "--from", str(source), now=DAY0).code == 0
    report = consolidate(cli, now="2026-01-02T00:30:00Z")
    text = (data_dir / "MEMORY.md").read_text()
    assert len(text) <= 8000 < len(text) + 150  # the default budget, filled
    assert len(text.splitlines()) < 180  # the characters ran out before the lines
    step = {step["name"]: step for step in report["steps"]}["memory_md"]
    assert step["counts"]["not_fitting"] > 0 and step["counts"]["chars"] == len(text)


def test_the_users_own_lines_over_the_cap_are_kept_and_warned_about(cli, data_dir):
    hash_embedder(cli)
    remember(cli, "--subject", "user", "--predicate", "likes", "--object", "tea")
    own = "".join(f"line {n} of my own\n" for n in range(210))
    (data_dir / "MEMORY.md").write_text(own)
    result = cli("--action", "consolidate", now=DAY0)
    assert result.code == 0
    text = (data_dir / "MEMORY.md").read_text()
    assert text.startswith(own)
    assert "tea" not in text
    assert "exceed memory_md_max_lines (200)" in result.err


def test_clean_removes_old_logs_and_summaries_but_never_an_unsummarized_log(cli, data_dir):
    hash_embedder(cli)
    sessions = data_dir / "sessions"
    write_jsonl(
        sessions / "2026-05-01-080000.jsonl",
        [{"ts": "2026-05-01T08:00:00Z", "role": "user", "text": "I work at Acme."}],
    )
    partial = sessions / "2026-05-02-080000.jsonl"
    write_jsonl(partial, [{"ts": "2026-05-02T08:00:00Z", "role": "user", "text": "I like jazz."}])
    with open(partial, "a") as handle:  # a turn still being written: never complete
        handle.write('{"ts": "2026-05-02T08:01:00Z", "role": "user", "text": "and')
    recent = sessions / "2026-07-01-080000.jsonl"
    write_jsonl(recent, [{"ts": "2026-07-01T08:00:00Z", "role": "user", "text": "I like tea."}])
    (data_dir / "daily" / "2025-07-01.md").write_text("# old\n")
    (data_dir / "daily" / "2025-07-30.md").write_text("# within a year\n")
    result = cli("--json", "--action", "consolidate", now="2026-07-30T00:30:00Z")
    assert result.code == 0, result.err
    assert not (sessions / "2026-05-01-080000.jsonl").exists()
    assert partial.exists() and recent.exists()
    assert not (data_dir / "daily" / "2025-07-01.md").exists()
    assert (data_dir / "daily" / "2025-07-30.md").exists()
    assert any(
        "2026-05-02-080000.jsonl is past session_retention_days but has lines not "
        "summarized yet; kept" in warning
        for warning in result.json()["warnings"]
    )
    ledger = json.loads((data_dir / "state" / "summarized.json").read_text())["files"]
    assert "2026-05-01-080000.jsonl" not in ledger  # gone with its log
    assert ids_in(data_dir, "facts.jsonl")  # the facts of the removed log stay


def test_every_mutation_leaves_an_audit_line_naming_its_actor(cli, data_dir):
    _world(cli, data_dir)
    fact = remember(
        cli,
        "--subject",
        "user",
        "--predicate",
        "owns",
        "--object",
        "a bike",
        now="2026-07-19T00:00:00Z",
    )
    before = data_files(data_dir)
    assert cli("--actor", "cron", "--action", "consolidate", now=LATER).code == 0
    after = data_files(data_dir)
    assert cli("--action", "forget", "--id", fact, now=LATER).code == 0
    assert cli("--action", "recall", "--query", "Porto", now=LATER).code == 0
    audit = lines_of(data_dir / "state" / "audit.jsonl")
    by_cron = [entry for entry in audit if entry["actor"] == "cron"]
    assert by_cron and all(entry["action"] == "consolidate" for entry in by_cron)
    written = {name for entry in by_cron for name in entry["files"]}
    changed = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
    bookkeeping = {
        "health.json",
        "state/audit.jsonl",
        "state/index-built",
        "state/consolidate.lock",
        "state/consolidate.lock.holder",
    }
    derived = {name for name in changed if name.startswith(("embeddings/cache-", "state/reports/"))}
    assert changed - bookkeeping - derived <= written
    assert {
        "knowledge-graph/archived-facts.jsonl",
        "MEMORY.md",
        "sessions/2026-06-01-080000.jsonl",
    } <= written
    actions = [(entry["actor"], entry["action"]) for entry in audit]
    assert ("cli", "forget") in actions and ("cli", "recall") in actions
    [forgot] = [entry for entry in audit if entry["action"] == "forget"]
    assert forgot["ids"] == [fact] and forgot["change"].startswith("forgot by --id: 1 fact(s)")


def test_consolidate_of_a_missing_data_directory_exits_5_and_creates_nothing(cli, data_dir):
    result = cli("--action", "consolidate")
    assert result.code == 5
    assert "does not exist" in result.err and not data_dir.exists()


def test_consolidate_of_an_empty_directory_lays_it_out_and_a_dry_run_refuses_it(cli, data_dir):
    data_dir.mkdir()
    dry = cli("--action", "consolidate", "--dry-run")
    assert dry.code == 5 and "not initialized (run --action init)" in dry.err
    assert list(data_dir.iterdir()) == []
    result = cli("--action", "consolidate")
    assert result.code == 0, result.err
    assert (data_dir / "MEMORY.md").exists() and (data_dir / "health.json").exists()


def test_a_workspace_link_to_memory_md_keeps_showing_the_rewritten_file(cli, data_dir, tmp_path):
    """OpenClaw reads MEMORY.md from its workspace: a link there follows every rewrite."""
    hash_embedder(cli)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "MEMORY.md").symlink_to(data_dir / "MEMORY.md")
    remember(cli, "--subject", "user", "--predicate", "likes", "--object", "green tea")
    consolidate(cli, now=DAY0)
    remember(
        cli,
        "--subject",
        "user",
        "--predicate",
        "likes",
        "--object",
        "jazz",
        now="2026-01-02T00:00:00Z",
    )
    consolidate(cli, now="2026-01-02T00:30:00Z")
    seen = (workspace / "MEMORY.md").read_text()
    assert "green tea" in seen and "jazz" in seen
    assert (workspace / "MEMORY.md").is_symlink()


def test_a_step_report_is_typed_and_reads_the_checkpoints_of_earlier_runs():
    from vm_memory_oracle.steps.report import StepReport, changes, summary_counts

    # as the health step returns it, and as an earlier version's checkpoint held it
    health = StepReport.from_dict(
        "health",
        {
            "counts": {"warnings": 1},
            "status": "degraded",
            "changes": [],
            "health_warnings": ["disk"],
        },
    )
    prune = StepReport.from_dict(
        "prune",
        {
            "counts": {"archived": 2, "pruned": 1},
            "changes": [{"fact": "fact-1", "change": "archived", "reason": "pruned: low"}],
        },
        done_before=True,
    )
    assert health.details == {"status": "degraded", "health_warnings": ["disk"]}
    assert health.as_dict() == {
        "name": "health",
        "counts": {"warnings": 1},
        "changes": [],
        "warnings": [],
        "status": "degraded",
        "health_warnings": ["disk"],
    }
    assert prune.as_dict(named=False)["done_before"] is True
    assert StepReport.from_dict("prune", prune.as_dict(named=False)) == prune
    assert summary_counts([health, prune])["archived"] == 2
    assert [change.to_json() for change in changes([health, prune])] == [
        {"step": "prune", "change": "archived", "target": "fact-1", "reason": "pruned: low"}
    ]


def test_a_reports_changes_read_back_from_its_table_are_the_changes_it_rendered():
    from vm_memory_oracle.consolidate import ConsolidationReport
    from vm_memory_oracle.steps.report import StepReport, changes, render, written_changes

    merge = StepReport(
        "merge",
        changes=[
            {
                "fact": "fact-2",
                "change": "merged",
                "reason": "into fact-1: a | b",
                "origin": "owner",
            },
            {"fact": "fact-3", "change": "merged", "reason": "ends in a \\", "origin": "untrusted"},
        ],
    )
    clean = StepReport(
        "clean", changes=[{"file": "sessions/old.jsonl", "change": "deleted", "reason": "old"}]
    )
    report = ConsolidationReport("2026-05-16T13:00:00Z", [merge, clean], resumed_from="merge")
    text = "\n".join(render(report)) + "\n"
    assert written_changes(text) == ("2026-05-16T13:00:00Z", changes([merge, clean]))
    cut = "\n".join(render(report, max_changes=1, more="all in the file"))
    assert written_changes(cut) == ("2026-05-16T13:00:00Z", changes([merge])[:1])
    nothing = "\n".join(render(ConsolidationReport("2026-05-17T13:00:00Z", [])))
    assert written_changes(nothing) == ("2026-05-17T13:00:00Z", [])
    assert written_changes("") == (None, [])
