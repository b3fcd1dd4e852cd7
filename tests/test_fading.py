"""Fading changes rank, not findability: a fact under search_threshold, a pruned fact in the
archive and an old episode are found when the active facts do not answer, by words and by
meaning; recall restores what it returns (activation 0.3, noted in the audit log) unless
told not to boost; MEMORY.md keeps forgetting. Faults: a damaged archive line, an archive
of 100,000 facts, a restore racing the nightly prune."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from vm_memory_oracle.archive_tier import archive_tier
from vm_memory_oracle.clock import parse_iso
from vm_memory_oracle.config import Settings
from vm_memory_oracle.graph import KnowledgeGraph
from vm_memory_oracle.memory import Memory
from vm_memory_oracle.semantic import configured_embedder
from vm_memory_oracle.storage import snapshot

from conftest import ENTRYPOINT, activation_state, hash_embedder, log_turns, write_jsonl

DAY0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
LOLA = [
    (
        "user",
        "Lola had her check-up at the vet today. I paid $120 for the visit, vaccines included.",
    ),
    ("assistant", "Thanks for letting me know. I hope Lola is doing well!"),
    ("user", "Also, I started learning Portuguese with an app called Duolingo."),
    ("assistant", "That's great! Consistency is key with language learning."),
]
QUESTION = "How much did Lola's vet visit cost?"


def stamp(days: float) -> str:
    return (DAY0 + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def hashed_graph(data_dir: Path, at: str) -> KnowledgeGraph:
    """The knowledge graph of the memory at `data_dir` at `at`, with the hashing embedder."""
    settings = Settings(embedding_model="hash", lock_timeout_seconds=5)
    return Memory.open(data_dir, settings, now=parse_iso(at)).graph()


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def recalled(cli, query: str, *extra: str, now: str) -> list[dict]:
    result = cli("--json", "--action", "recall", "--query", query, *extra, now=now)
    assert result.code == 0, result.err
    return result.json()["results"]


@pytest.fixture
def forgotten_lola(cli, data_dir):
    """The Lola conversation learned on day 0, then consolidated every 10 days for 200
    days, as cron runs it: every fact learned from it archived as pruned."""
    assert cli("--action", "init").code == 0
    log_turns(data_dir, LOLA, "2026-01-01-090000.jsonl")
    assert cli("--action", "summarize", "--all", now=stamp(0.5)).code == 0
    graph = data_dir / "knowledge-graph"
    learned = {record["id"] for record in lines_of(graph / "facts.jsonl")}
    assert learned
    for day in range(10, 201, 10):
        done = cli("--action", "consolidate", now=stamp(day))
        assert done.code == 0, done.err
    archived = lines_of(graph / "archived-facts.jsonl")
    assert {record["id"] for record in archived} == learned
    assert all(record["archive_reason"].startswith("pruned:") for record in archived)
    assert lines_of(graph / "facts.jsonl") == []
    return learned


@pytest.mark.slow
def test_a_fact_said_once_is_found_after_200_days_and_is_active_again(
    cli, data_dir, forgotten_lola
):
    graph = data_dir / "knowledge-graph"
    archive = graph / "archived-facts.jsonl"
    asked = stamp(201)
    kept = archive.read_bytes()
    found = recalled(cli, QUESTION, "--no-boost", now=asked)
    # The fact holding the amount asked for comes before the one that only names the visit.
    assert "$120" in found[0]["text"], found
    assert "archive" in found[0]["matched"]
    assert archive.read_bytes() == kept  # found, not restored
    # The pleasantry that answered the statement says nothing of the visit: it comes after
    # every statement found, the person's own words included.
    texts = [hit["text"] for hit in found]
    thanks = next(n for n, text in enumerate(texts) if "Thanks for letting me know" in text)
    assert any("Lola had her check-up" in text for text in texts[:thanks])
    assert all("Thanks" not in text for text in texts[:thanks])

    woken = recalled(cli, QUESTION, now=asked)
    restored = {hit["id"] for hit in woken if hit.get("kind", "fact") == "fact"}
    assert restored and restored <= forgotten_lola
    active = {record["id"] for record in lines_of(graph / "facts.jsonl")}
    assert restored <= active
    assert not restored & {record["id"] for record in lines_of(archive)}
    state = activation_state(data_dir)
    for fact_id in restored:  # restored at 0.3, then boosted by the recall
        assert state[fact_id].activation == pytest.approx(0.6)
    audit = (data_dir / "state" / "audit.jsonl").read_text()
    assert "restored" in audit and "at activation 0.3" in audit
    # Active again: the next recall finds them in the active set.
    again = recalled(cli, QUESTION, "--no-boost", now=stamp(202))
    assert "archive" not in again[0]["matched"] and "dormant" not in again[0]["matched"]
    # Recall writes no MEMORY.md: the faded facts stay out of it until a consolidation
    # finds them active enough, as any recalled fact.
    assert "$120" not in (data_dir / "MEMORY.md").read_text()


def test_a_dormant_fact_is_found_ranked_below_an_active_one_equally_relevant(cli, data_dir):
    hash_embedder(cli)
    for obj, day in (("Oslo", 0), ("Bergen", 150)):
        done = cli(
            "--action", "remember", "--subject", "user", "--predicate", "visited",
            "--object", obj, now=stamp(day),
        )  # fmt: skip
        assert done.code == 0, done.err
    found = recalled(cli, "Which cities did the user visit?", "--no-boost", now=stamp(160))
    cities = [hit["object"] for hit in found]
    assert cities == ["Bergen", "Oslo"], found
    assert "dormant" in found[1]["matched"] and "dormant" not in found[0]["matched"]
    assert found[1]["activation"] < 0.15


def test_a_damaged_archive_line_is_quarantined_and_recall_answers_from_the_rest(cli, data_dir):
    hash_embedder(cli)
    archive = data_dir / "knowledge-graph" / "archived-facts.jsonl"
    records = [
        pruned_record(number, f"the user owns a kayak named Wave{number}") for number in (1, 2)
    ]
    write_jsonl(archive, records)
    with archive.open("a") as handle:
        handle.write('{"id": "fact-broken", "subject": \n')
    found = recalled(cli, "Wave2 kayak", "--no-boost", now=stamp(1))
    assert [hit["text"] for hit in found] == ["the user owns a kayak named Wave2"]
    quarantine = data_dir / "knowledge-graph" / "archived-facts.quarantine.jsonl"
    assert "fact-broken" in quarantine.read_text()


@pytest.mark.slow
def test_an_archive_of_100000_facts_is_searched_and_its_tier_kept(cli, data_dir):
    hash_embedder(cli)
    archive = data_dir / "knowledge-graph" / "archived-facts.jsonl"
    write_jsonl(
        archive,
        (pruned_record(number, f"the user noted item {number} in ledger {number % 97}")
         for number in range(100_000)),
    )  # fmt: skip
    found = recalled(cli, "item 73021", "--no-boost", now=stamp(1))
    assert found[0]["text"] == "the user noted item 73021 in ledger 77"
    assert "archive" in found[0]["matched"]
    # The tier is kept while the archive is unchanged: the next process reads its snapshot
    # and maps its vectors' index (IVF at this size) from the file made with it.
    snapshot.forget_memory()
    graph = hashed_graph(data_dir, stamp(1))
    tier = archive_tier(graph, configured_embedder(graph, graph.settings).embedder)
    assert len(tier) == 100_000 and tier.embedded == 0
    index = tier.vector_index.index
    assert index.mapped and index.approximate and len(index) == 100_000


def test_the_tier_takes_a_pruned_facts_vector_from_the_embedding_cache(cli, data_dir):
    hash_embedder(cli)
    for obj in ("Oslo", "Bergen", "Tromsø"):
        done = cli(
            "--action", "remember", "--subject", "user", "--predicate", "visited",
            "--object", obj, now=stamp(0),
        )  # fmt: skip
        assert done.code == 0
    assert cli("--action", "recall", "--query", "Oslo", now=stamp(1)).code == 0  # indexed
    assert cli("--action", "consolidate", now=stamp(400)).code == 0  # all pruned
    assert len(lines_of(data_dir / "knowledge-graph" / "archived-facts.jsonl")) == 3
    done = cli("--action", "remember", "--subject", "user", "--predicate", "likes",
               "--object", "tea", now=stamp(401))  # fmt: skip
    assert done.code == 0
    assert cli("--action", "recall", "--query", "tea", now=stamp(401)).code == 0  # cache saved
    graph = hashed_graph(data_dir, stamp(401))
    for cache in (data_dir / "state" / "cache").glob("archive-tier*"):
        cache.unlink()
    tier = archive_tier(graph, configured_embedder(graph, graph.settings).embedder)
    assert len(tier) == 3 and tier.embedded == 0


RACE = """
import subprocess, sys
entry, data, role, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
for number in range(rounds):
    if role == "recall":
        args = ["--action", "recall", "--query", "kayak named Wave", "--now", "2026-01-02T00:00Z"]
    else:
        args = ["--action", "consolidate", "--now", "2027-06-01T00:00:00Z"]
    done = subprocess.run([entry, "--data-path", data, *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{role} {number}: {done.returncode} {done.stderr[-500:]}")
"""


@pytest.mark.slow
def test_a_restore_racing_the_nightly_prune_never_doubles_or_loses_a_fact(cli, data_dir):
    hash_embedder(cli)
    archive = data_dir / "knowledge-graph" / "archived-facts.jsonl"
    records = [
        pruned_record(number, f"the user owns a kayak named Wave{number}") for number in range(8)
    ]
    write_jsonl(archive, records)
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACE, str(ENTRYPOINT), str(data_dir), role, "4"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for role in ("recall", "consolidate")
    ]
    for racer in racers:
        _, err = racer.communicate(timeout=900)
        assert racer.returncode == 0, err
    active = [record["id"] for record in lines_of(data_dir / "knowledge-graph" / "facts.jsonl")]
    archived = [record["id"] for record in lines_of(archive)]
    assert len(active) == len(set(active)) and len(archived) == len(set(archived))
    assert not set(active) & set(archived)
    assert set(active) | set(archived) == {record["id"] for record in records}


def pruned_record(number: int, text: str) -> dict:
    fact_id = f"fact-00000000-0000-5000-8000-{number:012d}"
    return {
        "id": fact_id,
        "subject": "user",
        "predicate": "noted",
        "object": text.removeprefix("the user "),
        "source": "user-stated",
        "created": "2025-01-01T00:00:00Z",
        "activation": 1.0,
        "text": text,
        "archived_at": "2025-06-01T00:00:00Z",
        "archive_reason": "pruned: activation 0.04 below prune_threshold 0.05",
        "final_activation": 0.04,
    }
