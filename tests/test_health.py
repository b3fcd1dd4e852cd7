"""health-check: health.json, each warning condition, status and --strict."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone

import pytest

from conftest import data_files, hash_embedder, write_jsonl

NOW = "2026-05-15T14:30:00Z"
SEED_KEYS = (
    "timestamp",
    "status",
    "disk_usage_bytes",
    "disk_usage_percent",
    "total_facts",
    "active_facts",
    "archived_facts",
    "avg_activation",
    "daily_files_count",
    "session_files_count",
    "embedding_index_size_bytes",
    "memory_md_lines",
    "last_consolidation",
    "consolidation_duration_seconds",
    "warnings",
)


def check(cli, *args, now=NOW):
    result = cli("--json", "--action", "health-check", *args, now=now)
    return result


def facts(tmp_path, count, **extra):
    return write_jsonl(
        tmp_path / f"facts-{count}.jsonl",
        [
            {"subject": "user", "predicate": f"note_{n}", "object": f"value {n}", **extra}
            for n in range(count)
        ],
    )


def codes(document):
    return [finding["code"] for finding in document["findings"]]


def test_health_json_has_every_documented_key_and_what_an_operator_needs(cli, data_dir):
    hash_embedder(cli)
    assert cli("--action", "remember", "--from", "assets/examples/facts.jsonl").code == 0
    assert cli("--action", "consolidate").code == 0
    result = check(cli)
    assert result.code == 0, result.err
    written = json.loads((data_dir / "health.json").read_text())
    assert written == result.json()
    assert all(key in written for key in SEED_KEYS)
    assert written["status"] == "healthy" and written["warnings"] == []
    assert written["active_facts"] == 8 and written["total_facts"] == 8
    assert written["last_consolidation"] == NOW
    assert written["index"] == {
        "vectors": 8,
        "facts": 8,
        "consistent": True,
        "pending": 0,
        "stale": 0,
        "problem": None,
    }
    assert written["embedder"]["index_built_with"].startswith("hash-")
    assert written["memory_md_lines"] == len((data_dir / "MEMORY.md").read_text().splitlines())
    assert (
        written["embedding_index_size_bytes"] == (data_dir / "embeddings/index.bin").stat().st_size
    )
    assert written["last_probe"] is None and written["quarantined_lines"] == 0
    assert written["redactions"] == 0


def test_a_missing_index_is_degraded_and_strict_exits_6(cli, data_dir):
    hash_embedder(cli)
    assert cli("--action", "remember", "--from", "assets/examples/facts.jsonl").code == 0
    assert cli("--action", "consolidate").code == 0
    shutil.rmtree(data_dir / "embeddings")
    result = check(cli)
    assert result.code == 0
    assert result.json()["status"] == "degraded" and codes(result.json()) == ["index"]
    assert (
        "Semantic recall degraded: embeddings/index.bin is missing" in result.json()["warnings"][0]
    )
    assert check(cli, "--strict").code == 6
    assert not (data_dir / "embeddings").exists()  # reported, not repaired


def test_a_health_check_writes_only_health_json_and_leaves_a_bad_line_for_the_next_write(
    cli, data_dir
):
    hash_embedder(cli)
    assert cli("--action", "remember", "--from", "assets/examples/facts.jsonl").code == 0
    with open(data_dir / "knowledge-graph" / "facts.jsonl", "a") as handle:
        handle.write('{"id": "broken"\n')
    before = data_files(data_dir, exclude=("health.json",))
    result = check(cli)
    assert result.json()["invalid_lines"] == 1 and "invalid_lines" in codes(result.json())
    assert data_files(data_dir, exclude=("health.json",)) == before


def test_disk_usage_over_80_percent_warns_and_over_95_is_unhealthy(cli, data_dir, monkeypatch):
    hash_embedder(cli)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: (1000, 850, 150))
    result = check(cli)
    assert codes(result.json()) == ["disk_usage"]
    assert result.json()["warnings"][0].startswith("Disk usage high: 85.0%")
    assert result.json()["status"] == "degraded"
    monkeypatch.setattr(shutil, "disk_usage", lambda path: (1000, 960, 40))
    assert check(cli).json()["status"] == "unhealthy"
    assert check(cli, "--strict").code == 7


@pytest.mark.parametrize("count, warned", [(9000, False), (9001, True)])
@pytest.mark.slow
def test_more_than_9000_active_facts_warns_of_the_fact_limit(cli, tmp_path, count, warned):
    hash_embedder(cli)
    assert cli("--action", "remember", "--from", str(facts(tmp_path, count))).code == 0
    document = check(cli).json()
    assert ("fact_limit" in codes(document)) is warned
    if warned:
        assert "Approaching fact limit: 9001 active facts, max_facts 10000" in document["warnings"]


def test_average_activation_below_0_2_or_above_0_8_gives_advice(cli, tmp_path):
    hash_embedder(cli)
    assert (
        cli(
            "--action", "remember", "--from", str(facts(tmp_path, 20)), now="2026-01-01T00:00:00Z"
        ).code
        == 0
    )
    # 134 days at half-life 30: 0.045 each; fresh facts are too young to judge
    assert "low_activation" not in codes(check(cli, now="2026-01-20T00:00:00Z").json())
    low = check(cli).json()
    assert low["avg_activation"] < 0.2 and "low_activation" in codes(low)
    assert any("consider raising half_life_days" in warning for warning in low["warnings"])


def test_average_activation_above_0_8_warns_that_facts_do_not_decay(cli, tmp_path):
    hash_embedder(cli)
    assert (
        cli(
            "--action",
            "remember",
            "--from",
            str(facts(tmp_path, 20, pinned=True)),
            now="2026-01-01T00:00:00Z",
        ).code
        == 0
    )
    high = check(cli).json()
    assert high["avg_activation"] == 1.0 and "high_activation" in codes(high)
    assert any("consider lowering half_life_days" in warning for warning in high["warnings"])


def test_memory_md_over_180_lines_warns(cli, data_dir):
    hash_embedder(cli)
    (data_dir / "MEMORY.md").write_text("".join(f"note {n}\n" for n in range(181)))
    document = check(cli).json()
    assert "MEMORY.md approaching 200-line limit: 181 lines" in document["warnings"]
    (data_dir / "MEMORY.md").write_text("".join(f"note {n}\n" for n in range(180)))
    assert "memory_md_lines" not in codes(check(cli).json())


def test_a_consolidation_over_600_seconds_warns_and_the_warning_stays(cli, data_dir):
    from vm_memory_oracle.config import load_settings
    from vm_memory_oracle.consolidate import consolidate
    from vm_memory_oracle.storage.layout import Layout

    hash_embedder(cli)
    ticks = iter(range(0, 100_000, 601))  # every reading of the clock is 601 s later
    settings = load_settings(data_dir / "config.yaml")
    report = consolidate(
        Layout(data_dir),
        settings,
        datetime(2026, 5, 15, tzinfo=timezone.utc),
        monotonic=lambda: float(next(ticks)),
    )
    assert report.status == "degraded"
    written = json.loads((data_dir / "health.json").read_text())
    assert written["consolidation_duration_seconds"] == 601
    assert "Consolidation taking too long: 601 s" in written["warnings"]
    later = check(cli, now="2026-05-15T06:00:00Z").json()  # the 6-hourly check keeps it
    assert later["last_consolidation"] == "2026-05-15T00:00:00Z"
    assert "slow_consolidation" in codes(later)


def test_probe_accuracy_below_70_percent_warns(cli, data_dir):
    hash_embedder(cli)
    assert cli("--action", "remember", "--from", "assets/examples/facts.jsonl").code == 0
    (data_dir / "knowledge-graph" / "canary-facts.json").write_text(
        json.dumps(
            [
                {"query": "Where does the user live?", "expected_contains": "Berlin"},
                {"query": "What is the user's name?", "expected_contains": "Alex Chen"},
                {"query": "Which database for billing?", "expected_contains": "MongoDB"},
            ]
        )
    )
    result = cli("--json", "--action", "quality-probe")
    assert result.code == 0, result.err
    assert (result.json()["passed"], result.json()["total"]) == (2, 3)
    document = json.loads((data_dir / "health.json").read_text())
    assert "probe_accuracy" in codes(document)
    assert "Recall quality below 70%: 2 of 3 canaries passed" in document["warnings"][0]
    assert document["last_probe"]["accuracy"] == pytest.approx(0.6667)


def test_a_consolidation_not_run_for_two_days_is_reported(cli):
    hash_embedder(cli)
    assert cli("--action", "consolidate", now="2026-05-10T00:30:00Z").code == 0
    assert "consolidation_overdue" not in codes(check(cli, now="2026-05-11T00:00:00Z").json())
    assert "consolidation_overdue" in codes(check(cli).json())


def test_health_check_of_a_missing_data_directory_exits_5(cli, data_dir):
    result = cli("--action", "health-check")
    assert result.code == 5 and not data_dir.exists()


def test_redactions_are_counted_from_the_audit_log(cli, data_dir):
    hash_embedder(cli)
    assert (
        cli(
            "--action",
            "remember",
            "--subject",
            "user",
            "--predicate",
            "uses_key",
            "--object",
            "sk-proj-Zx81kL0pQ9rT5vW2yB7nM4cD",
        ).code
        == 0
    )
    assert check(cli).json()["redactions"] == 1
    assert "sk-proj" not in (data_dir / "state" / "audit.jsonl").read_text()


def test_facts_not_indexed_yet_are_pending_not_a_problem(cli, data_dir):
    hash_embedder(cli)
    assert cli("--action", "remember", "--from", "assets/examples/facts.jsonl").code == 0
    before_any_index = check(cli).json()
    assert before_any_index["status"] == "healthy"
    assert before_any_index["index"]["pending"] == 8
    assert cli("--action", "consolidate").code == 0
    assert (
        cli(
            "--action", "remember", "--subject", "user", "--predicate", "likes", "--object", "tea"
        ).code
        == 0
    )
    document = check(cli).json()
    assert document["status"] == "healthy"
    assert document["index"]["consistent"] is False and document["index"]["pending"] == 1
