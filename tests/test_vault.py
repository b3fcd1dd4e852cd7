"""The vault: pin and unpin any fact. A pinned fact never decays, is never pruned, and
always has its line in MEMORY.md's managed block; an unpinned one decays again from the
moment it was unpinned."""

from __future__ import annotations

import json

from conftest import data_files, hash_embedder

DAY_ZERO = "2026-01-01T09:00:00Z"


def remember(cli, obj: str, now: str = DAY_ZERO) -> str:
    result = cli(
        "--json",
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "visited",
        "--object",
        obj,
        now=now,
    )
    assert result.code == 0, result.err
    return result.json()["ids"][0]


def activation(cli, fact_id: str, now: str) -> float:
    [value] = cli(
        "--action", "query", "--jq", f'.[] | select(.id == "{fact_id}") | .activation', now=now
    ).json_lines()
    return value


def active_ids(data_dir) -> set[str]:
    return {
        json.loads(line)["id"]
        for line in (data_dir / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    }


def test_a_pinned_fact_keeps_its_activation_and_its_line_through_a_year(cli, data_dir):
    hash_embedder(cli)
    kept = remember(cli, "Kyoto")
    faded = remember(cli, "Osaka")
    at_pin = activation(cli, kept, "2026-01-31T09:00:00Z")
    assert 0.4 < at_pin < 0.6  # a month: about one half-life
    result = cli("--action", "pin", "--id", kept, now="2026-01-31T09:00:00Z")
    assert result.code == 0 and result.out.startswith(f"Pinned {kept}: user visited Kyoto")
    a_year_on = "2027-01-31T09:00:00Z"
    assert activation(cli, kept, a_year_on) == at_pin
    assert cli("--action", "consolidate", now=a_year_on).code == 0
    assert active_ids(data_dir) == {kept}  # Osaka fell below prune_threshold
    archived = (data_dir / "knowledge-graph" / "archived-facts.jsonl").read_text()
    assert faded in archived
    assert "\n- user visited Kyoto\n" in (data_dir / "MEMORY.md").read_text()


def test_an_unpinned_fact_decays_again_from_the_moment_it_was_unpinned(cli, data_dir):
    hash_embedder(cli)
    fact = remember(cli, "Nara")
    assert cli("--action", "pin", "--id", fact, now=DAY_ZERO).code == 0
    unpinned_at = "2026-07-01T09:00:00Z"
    result = cli("--action", "unpin", "--id", fact, now=unpinned_at)
    assert result.code == 0 and result.out.startswith(f"Unpinned {fact}")
    assert activation(cli, fact, unpinned_at) == 1.0  # held while pinned, not six months old
    importance = json.loads((data_dir / "knowledge-graph" / "facts.jsonl").read_text()).get(
        "importance", 0.0
    )
    half_life = 30 / (1 - 0.5 * importance)
    later = activation(cli, fact, "2026-07-31T09:00:00Z")
    assert abs(later - 0.5 ** (30 / half_life)) < 1e-3
    assert cli("--action", "consolidate", now="2027-07-01T09:00:00Z").code == 0
    assert fact not in active_ids(data_dir)


def test_pinning_twice_or_an_unknown_id_changes_nothing(cli, data_dir):
    hash_embedder(cli)
    fact = remember(cli, "Sapporo")
    assert cli("--action", "pin", "--id", fact).code == 0
    before = data_files(data_dir)
    again = cli("--json", "--action", "pin", "--id", fact)
    assert again.code == 0 and again.json() == {"id": fact, "pinned": True, "changed": False}
    missing = cli("--action", "unpin", "--id", "fact-00000000-0000-5000-8000-000000000000")
    assert missing.code == 3
    assert missing.err == (
        "Error: no active fact with id 'fact-00000000-0000-5000-8000-000000000000'\n"
    )
    assert data_files(data_dir) == before
    audit = (data_dir / "state" / "audit.jsonl").read_text().splitlines()
    assert json.loads(audit[-1]) | {"at": None} == {
        "at": None,
        "actor": "cli",
        "action": "pin",
        "step": "pin",
        "files": ["knowledge-graph/facts.jsonl", "state/activation-journal.jsonl"],
        "change": "pinned 1 fact",
        "ids": [fact],
    }
