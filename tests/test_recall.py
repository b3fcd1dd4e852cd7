"""recall and query: what the agent sees when it asks."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import (
    activation_state,
    data_files,
    recall_results,
    remember_records,
    write_jsonl,
)

FACTS = [
    {
        "subject": "user",
        "predicate": "is allergic to",
        "object": "peanuts",
        "text": "The user is allergic to peanuts.",
        "category": "health",
    },
    {"subject": "user", "predicate": "lives in", "object": "Berlin"},
    {"subject": "user", "predicate": "prefers", "object": "dark mode in the editor"},
    {"subject": "用户", "predicate": "喜欢", "object": "乌龙茶", "text": "用户喜欢喝乌龙茶"},
    {"subject": "deployment project", "predicate": "started on", "object": "2026-05-15"},
]
LATER = "2026-05-02T00:00:00Z"
RESULT_KEYS = {"id", "text", "subject", "predicate", "object", "activation", "score", "source"}


@pytest.fixture
def seeded(cli, tmp_path):
    remember_records(cli, tmp_path / "f.jsonl", FACTS, now="2026-05-01T00:00:00Z")
    return cli


@pytest.mark.slow
def test_recall_json_has_the_documented_shape(seeded):
    result = seeded(
        "--json", "--action", "recall", "--query", "peanut allergy", now="2026-05-02T00:00:00Z"
    )
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["query"] == "peanut allergy"
    top = payload["results"][0]
    assert set(top) >= RESULT_KEYS
    assert top["text"] == "The user is allergic to peanuts."
    assert top["source"].startswith("import:")
    assert 0 < top["score"] <= 1


@pytest.mark.slow
def test_exact_match_ranks_first(seeded):
    results = seeded("--json", "--action", "recall", "--query", "Berlin").json()["results"]
    assert results[0]["object"] == "Berlin" and results[0]["score"] == 1.0


def test_chinese_queries_match_without_spaces(seeded):
    results = seeded("--json", "--action", "recall", "--query", "乌龙茶").json()["results"]
    assert results[0]["subject"] == "用户"
    results = seeded("--json", "--action", "recall", "--query", "用户喜欢什么茶").json()["results"]
    assert results and results[0]["object"] == "乌龙茶"


@pytest.mark.slow
def test_a_query_with_nothing_in_common_returns_nothing(seeded):
    result = seeded("--json", "--action", "recall", "--query", "quantum chromodynamics")
    assert result.json()["results"] == []
    assert (
        seeded("--action", "recall", "--query", "quantum chromodynamics").out.strip()
        == "No matching facts."
    )


@pytest.mark.slow
def test_recall_boosts_what_it_returns_and_no_boost_does_not(seeded):
    later = "2026-06-01T00:00:00Z"
    plain = seeded(
        "--json", "--action", "recall", "--query", "Berlin", "--no-boost", now=later
    ).json()["results"][0]["activation"]
    assert plain == pytest.approx(0.5 ** (31 / 30), abs=1e-4)
    again = seeded(
        "--json", "--action", "recall", "--query", "Berlin", "--no-boost", now=later
    ).json()["results"][0]["activation"]
    assert again == plain
    boosted = seeded("--json", "--action", "recall", "--query", "Berlin", now=later).json()[
        "results"
    ][0]["activation"]
    assert boosted == pytest.approx(plain + 0.3, abs=1e-4)
    after = seeded(
        "--json", "--action", "recall", "--query", "Berlin", "--no-boost", now=later
    ).json()["results"][0]["activation"]
    assert after == boosted


def test_a_recall_boost_is_written_without_fsync_and_a_remember_with_it(
    seeded, data_dir, monkeypatch
):
    """The boost is a recency signal, written like an access time: its journal and audit
    lines reach the file (so no end of the process loses them) but are not fsynced, while
    a remember still fsyncs what it acknowledges."""
    import os

    synced: list[str] = []
    real_fsync = os.fsync

    def counting_fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    data = data_dir
    # The first recall builds the indexes (durably); the boosts of the later ones are tested.
    assert seeded("--action", "recall", "--query", "Berlin", "--no-boost", now=LATER).code == 0
    synced.clear()
    journal = data / "state" / "activation-journal.jsonl"
    audit = data / "state" / "audit.jsonl"
    lines_before = audit.read_text().count("\n")
    result = seeded("--json", "--action", "recall", "--query", "Berlin", now=LATER)
    assert result.code == 0 and result.json()["results"]
    assert synced == []
    assert journal.read_text().count("\n") == 1  # the boosted fact's entry
    assert audit.read_text().count("\n") == lines_before + 1  # and its audit line
    result = seeded(
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "likes",
        "--object",
        "rye bread",
        now=LATER,
    )
    assert result.code == 0, result.err
    assert str(data / "knowledge-graph" / "facts.jsonl") in synced
    assert str(audit) in synced


def test_facts_below_the_search_threshold_are_found_when_the_active_ones_do_not_answer(
    seeded, data_dir
):
    # 0.5 ** (days / 30) < 0.15 after about 82 days without recall: the Berlin fact is
    # dormant, out of everyday recall, yet what is asked of it finds it.
    later = "2026-08-01T00:00:00Z"
    audit = data_dir / "state" / "audit.jsonl"
    asked = seeded(
        "--json", "--action", "recall", "--query", "Berlin", "--no-boost", now=later
    ).json()
    (hit,) = asked["results"]
    assert hit["object"] == "Berlin" and "dormant" in hit["matched"]
    assert hit["activation"] < 0.15
    assert "woke" not in audit.read_text()  # --no-boost finds without restoring
    # The health fact (importance 1) fades at half the rate and is still active.
    result = seeded("--json", "--action", "recall", "--query", "peanuts", now=later).json()
    assert [hit["object"] for hit in result["results"]] == ["peanuts"]
    assert "dormant" not in result["results"][0]["matched"]
    # Recalled with the boost, the fact is active again: at 0.3, then boosted.
    woken = seeded("--json", "--action", "recall", "--query", "Berlin", now=later).json()
    assert woken["results"][0]["activation"] == pytest.approx(0.3 + 0.3)
    last = json.loads(audit.read_text().splitlines()[-1])
    assert last["change"].startswith("woke 1 dormant fact(s) at activation 0.3")
    again = seeded("--json", "--action", "recall", "--query", "Berlin", now=later).json()
    assert "dormant" not in again["results"][0]["matched"]


@pytest.mark.slow
def test_k_limits_results_and_order_activation_sorts_by_activation(seeded):
    seeded("--action", "recall", "--query", "dark mode", now="2026-05-20T00:00:00Z")
    results = seeded(
        "--json",
        "--action",
        "recall",
        "--query",
        "user",
        "--k",
        "2",
        "--order",
        "activation",
        "--no-boost",
        now="2026-05-20T00:00:00Z",
    ).json()["results"]
    assert len(results) == 2
    assert results[0]["object"] == "dark mode in the editor"
    assert results[0]["activation"] >= results[1]["activation"]


@pytest.mark.slow
def test_recall_queries_file_prints_one_json_line_per_query(seeded, tmp_path):
    queries = write_jsonl(
        tmp_path / "q.jsonl",
        [{"query": "Berlin"}, {"query": "乌龙茶", "k": 1}, {"query": "nothing like it"}],
    )
    result = seeded("--action", "recall", "--queries", str(queries), "--no-boost")
    assert result.code == 0, result.err
    lines = result.json_lines()
    assert [line["query"] for line in lines] == ["Berlin", "乌龙茶", "nothing like it"]
    assert lines[0]["results"][0]["object"] == "Berlin"
    assert len(lines[1]["results"]) == 1
    assert lines[2]["results"] == []
    assert all(set(hit) >= RESULT_KEYS for line in lines for hit in line["results"])
    # The queries' vectors are searched in one call: each finds what it finds alone.
    for line, query in zip(lines, ["Berlin", "乌龙茶", "nothing like it"]):
        k = ("--k", "1") if query == "乌龙茶" else ()
        alone = seeded("--json", "--action", "recall", "--query", query, "--no-boost", *k)
        assert [hit["id"] for hit in alone.json()["results"]] == [
            hit["id"] for hit in line["results"]
        ], query


def test_a_bad_queries_file_is_refused_and_nothing_is_boosted(seeded, data_dir, tmp_path):
    before = activation_state(data_dir)
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"query": "Berlin"}\n{"question": "Berlin"}\n')
    result = seeded("--action", "recall", "--queries", str(queries))
    assert result.code == 3
    assert f"{queries}:2: unknown field 'question'" in result.err
    assert activation_state(data_dir) == before


def test_recall_option_errors(seeded):
    assert seeded("--action", "recall").code == 2
    assert seeded("--action", "recall", "--query", "a", "--queries", "b").code == 2
    assert seeded("--action", "recall", "--query", "a", "--k", "0").code == 2
    result = seeded("--action", "recall", "--query", "   ")
    assert result.code == 3 and "query must not be empty" in result.err


def test_query_runs_jq_over_active_facts_with_live_activation(seeded):
    result = seeded(
        "--action",
        "query",
        "--jq",
        '[.[] | select(.subject == "user")] | map(.object) | sort',
        now="2026-05-31T00:00:00Z",
    )
    assert result.code == 0, result.err
    assert json.loads(result.out) == ["Berlin", "dark mode in the editor", "peanuts"]
    activations = seeded(
        "--action",
        "query",
        "--jq",
        '.[] | select(.object == "Berlin") | .activation',
        now="2026-05-31T00:00:00Z",
    ).json_lines()
    assert activations == [pytest.approx(0.5, abs=1e-6)]


def test_query_reports_a_bad_program(seeded):
    result = seeded("--action", "query", "--jq", ".[] | select(")
    assert result.code == 3 and result.err.startswith("Error: --jq: invalid jq program")
    result = seeded("--action", "query", "--jq", ".[0].object | keys")
    assert result.code == 3 and "jq program failed" in result.err


def test_reading_actions_need_an_existing_data_directory(cli, data_dir):
    result = cli("--action", "recall", "--query", "x")
    assert result.code == 5
    assert result.err == f"Error: {data_dir}: data directory does not exist (run --action init)\n"
    assert not data_dir.exists()


@pytest.mark.slow
def test_words_that_every_fact_has_do_not_flood_the_results(cli, tmp_path):
    facts = [
        {"subject": "user", "predicate": "mentioned", "object": f"topic {i} of week {i // 7}"}
        for i in range(60)
    ]
    remember_records(cli, tmp_path / "t.jsonl", facts)
    results = recall_results(cli, "topic 42")
    assert results[0]["object"] == "topic 42 of week 6"
    # Only that fact matched lexically; the others are semantic neighbours, not word noise.
    assert [hit["object"] for hit in results if "lexical" in hit["matched"]] == [
        "topic 42 of week 6"
    ]


@pytest.mark.slow
def test_recall_still_boosts_after_the_activation_file_was_reset(seeded, data_dir):
    (data_dir / "activation-metadata.json").write_text("garbage")
    result = seeded("--json", "--action", "recall", "--query", "Berlin", now="2026-05-31T00:00:00Z")
    assert result.code == 0
    assert any("activation-metadata.json" in warning for warning in result.json()["warnings"])
    assert "Warning: activation-metadata.json: unreadable" in result.err
    # Reset to its creation values (1.0 on 2026-05-01), decayed 30 days, then boosted.
    assert result.json()["results"][0]["activation"] == pytest.approx(0.8, abs=1e-4)
    berlin = result.json()["results"][0]["id"]
    assert activation_state(data_dir)[berlin].access_count == 1


def test_quarantine_warnings_reach_every_action(seeded, data_dir):
    with open(data_dir / "knowledge-graph" / "facts.jsonl", "a") as handle:
        handle.write('{"id": "torn')
    result = seeded("--action", "query", "--jq", "length")
    assert result.code == 0
    assert result.json_lines() == [len(FACTS)]
    assert result.err.startswith("Warning: knowledge-graph/facts.jsonl:6: invalid JSON")
    assert "moved to knowledge-graph/facts.quarantine.jsonl" in result.err


def test_a_recall_returns_its_warnings_with_its_results(seeded, data_dir, tmp_path):
    """Warnings are returned with the result sets, never added to the store's own list: a
    memory whose lock is refused is read, and the command is told what was not written."""
    from vm_memory_oracle.clock import parse_iso
    from vm_memory_oracle.config import Settings
    from vm_memory_oracle.memory import Memory
    from vm_memory_oracle.recall import Asked, recall_many

    shutil.rmtree(data_dir / "state" / "cache")  # the full-text index is built again
    lock = data_dir / "state" / "memory.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(tmp_path / "elsewhere")  # refused: the memory is read, never written
    before = data_files(data_dir)
    memory = Memory.open(data_dir, Settings(lock_timeout_seconds=5), now=parse_iso(LATER))
    store, graph = memory.store(), memory.graph()
    result_sets = recall_many(graph, [Asked("Berlin", 3)], parse_iso(LATER))
    assert result_sets[0].hits[0].object == "Berlin"
    assert any(
        "the full-text index was built for this command only" in warning
        for warning in result_sets.warnings
    )
    assert any("recalled facts were not boosted" in warning for warning in result_sets.warnings)
    assert store.warnings == []
    assert data_files(data_dir) == before


def test_what_the_process_held_is_kept_from_the_collector_only_while_queries_rank(
    seeded, tmp_path, monkeypatch
):
    """A recall of many queries freezes what the process holds before ranking them (the
    code, the memory's tables: a full collection traversed all of it again), and unfreezes
    it after, whatever the ranking did."""
    import gc

    from vm_memory_oracle.recall import pipeline

    frozen = []
    ranked = pipeline._Ranking.ranked

    def ranking(self, *args, **kwargs):
        frozen.append(gc.get_freeze_count())
        return ranked(self, *args, **kwargs)

    monkeypatch.setattr(pipeline._Ranking, "ranked", ranking)
    queries = write_jsonl(tmp_path / "q.jsonl", [{"query": "Berlin"}, {"query": "乌龙茶"}])
    assert seeded("--action", "recall", "--queries", str(queries), "--no-boost").code == 0
    assert len(frozen) == 1 and frozen[0] > 1000
    assert gc.get_freeze_count() == 0

    def failing(self, *args, **kwargs):
        raise RuntimeError("ranking failed")

    monkeypatch.setattr(pipeline._Ranking, "ranked", failing)
    with pytest.raises(RuntimeError):
        seeded("--action", "recall", "--query", "Berlin", "--no-boost")
    assert gc.get_freeze_count() == 0
