"""Why a fact was archived: a structured cause (code and detail) with its prose rendered from
it, and archives written before the cause was stored read as if they had it."""

from __future__ import annotations

import json

import pytest
from vm_memory_oracle.model.archive import ArchiveCause, Archived, cause_of

from conftest import hash_embedder


@pytest.mark.parametrize(
    "cause, prose",
    [
        (ArchiveCause("superseded", "fact-1"), "superseded by fact-1"),
        (ArchiveCause("merged", "fact-2: same words"), "merged into fact-2: same words"),
        (
            ArchiveCause("pruned", "activation 0.0100 below prune_threshold 0.05"),
            "pruned: activation 0.0100 below prune_threshold 0.05",
        ),
        (
            ArchiveCause("stale", "every path it names is gone: /tmp/x"),
            "stale: every path it names is gone: /tmp/x",
        ),
        (ArchiveCause("forgotten", "moved house"), "forgotten: moved house"),
        (ArchiveCause("forgotten"), "forgotten"),
        (ArchiveCause("other", "by hand"), "by hand"),
    ],
)
def test_the_prose_is_rendered_from_the_cause_and_read_back_from_it(cause, prose):
    assert cause.prose == prose
    assert cause_of({"archive_reason": prose}) == cause  # an older record: prose alone
    assert cause_of({"archive_reason": "ignored", "archive_cause": cause.as_dict()}) == cause


def test_an_unknown_code_is_refused():
    with pytest.raises(ValueError, match="unknown archive cause 'lost'"):
        ArchiveCause("lost")


FACT = {
    "id": "fact-0b7f1a4e-0000-4000-8000-000000000002",
    "subject": "user",
    "predicate": "likes",
    "object": "tea",
    "source": "user-stated",
    "created": "2026-01-01T00:00:00Z",
    "activation": 1.0,
    "sources": ["sessions/a.jsonl:3"],
}


@pytest.mark.parametrize(
    "archive",
    [
        {  # merged, as consolidation writes it
            "archived_at": "2026-02-01T00:00:00Z",
            "archive_reason": "merged into fact-1: same words",
            "archive_cause": {"code": "merged", "detail": "fact-1: same words"},
            "final_activation": 0.25,
            "merged_into": "fact-1",
        },
        {"archived_at": "2026-02-01T00:00:00Z", "archive_reason": "pruned: low"},  # older
    ],
)
def test_an_archive_record_reads_as_archived_and_back_unchanged(archive):
    record = {**FACT, **archive}
    archived = Archived.of(record)
    assert archived.fact.id == FACT["id"] and archived.cause == cause_of(record)
    assert archived.merged_into == archive.get("merged_into")
    assert json.dumps(archived.to_json()) == json.dumps(record)


def test_forget_stores_the_cause_beside_its_prose(cli, data_dir):
    hash_embedder(cli)
    remembered = cli(
        "--json",
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "likes",
        "--object",
        "tea",
    )
    [fact_id] = remembered.json()["ids"]
    assert cli("--action", "forget", "--id", fact_id, "--reason", "changed my mind").code == 0
    [record] = [
        json.loads(line)
        for line in (data_dir / "knowledge-graph" / "archived-facts.jsonl").read_text().splitlines()
    ]
    assert record["archive_reason"] == "forgotten: changed my mind"
    assert record["archive_cause"] == {"code": "forgotten", "detail": "changed my mind"}


def test_an_archive_written_before_causes_were_stored_still_restores(cli, data_dir):
    """recall brings back a pruned fact (not a superseded one), telling them apart by cause."""
    hash_embedder(cli)
    assert cli("--action", "init").code == 0
    old = {
        "id": "fact-0b7f1a4e-0000-4000-8000-000000000001",
        "subject": "user",
        "predicate": "likes",
        "object": "oolong tea",
        "text": "The user likes oolong tea.",
        "source": "user-stated",
        "created": "2026-01-01T00:00:00Z",
        "activation": 1.0,
        "category": "preference",
        "importance": 0.8,
        "archived_at": "2026-03-01T00:00:00Z",
        "final_activation": 0.01,
        "archive_reason": "pruned: activation 0.0100 below prune_threshold 0.05",
    }
    replaced = {
        **old,
        "id": "fact-0b7f1a4e-0000-4000-8000-000000000002",
        "object": "oolong",
        "text": "The user likes oolong.",
        "archive_reason": "superseded by fact-0b7f1a4e-0000-4000-8000-000000000001",
    }
    (data_dir / "knowledge-graph" / "archived-facts.jsonl").write_text(
        json.dumps(old) + "\n" + json.dumps(replaced) + "\n"
    )
    found = cli("--json", "--action", "recall", "--query", "oolong tea")
    assert found.code == 0, found.err
    ids = [result["id"] for result in found.json()["results"]]
    assert old["id"] in ids and replaced["id"] not in ids


def test_a_fact_pruned_with_its_cause_comes_back_without_it(cli, data_dir):
    hash_embedder(cli)
    assert (
        cli(
            "--action",
            "remember",
            "--subject",
            "user",
            "--predicate",
            "likes",
            "--object",
            "oolong tea",
            now="2026-01-01T00:00:00Z",
        ).code
        == 0
    )
    # a year on, the fact has faded below prune_threshold: consolidation archives it
    assert cli("--action", "consolidate", now="2027-01-01T00:00:00Z").code == 0
    [archived] = [
        json.loads(line)
        for line in (data_dir / "knowledge-graph" / "archived-facts.jsonl").read_text().splitlines()
    ]
    assert archived["archive_cause"]["code"] == "pruned"
    found = cli("--json", "--action", "recall", "--query", "oolong tea", now="2027-01-01T01:00:00Z")
    assert found.code == 0, found.err
    assert [result["id"] for result in found.json()["results"]] == [archived["id"]]
    [back] = [
        json.loads(line)
        for line in (data_dir / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    ]
    assert "archive_cause" not in back and "archive_reason" not in back
