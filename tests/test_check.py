"""The library's health check: each invariant found broken, repaired where that is safe, and
left for a person where it is not."""

from __future__ import annotations

import json
import os

import pytest
from vm_memory_oracle.check import check

from conftest import data_files, hash_embedder, write_jsonl


@pytest.fixture
def memory(cli, data_dir):
    hash_embedder(cli)
    assert cli("--action", "remember", "--from", "assets/examples/facts.jsonl").code == 0
    assert cli("--action", "recall", "--query", "tea").code == 0  # builds the index
    return data_dir


def codes(found) -> list[tuple[str, str, bool]]:
    return sorted((finding.code, finding.path, finding.repairable) for finding in found)


def test_a_sound_memory_has_no_findings_and_a_check_writes_nothing(memory):
    before = data_files(memory)
    assert check(memory) == []
    assert check(memory, fix=True) == []
    assert data_files(memory) == before


@pytest.mark.slow
def test_each_broken_invariant_is_found_and_the_safe_ones_repaired(memory):
    graph = memory / "knowledge-graph"
    with open(graph / "facts.jsonl", "a") as facts:
        facts.write("not json\n")
    with open(graph / "relations.jsonl", "a") as relations:
        relations.write('{"torn": ')
    (graph / "entities.jsonl").write_text("")  # not what the facts make
    os.chmod(memory / "activation-metadata.json", 0o644)
    state = json.loads((memory / "activation-metadata.json").read_text())
    state["facts"]["fact-00000000-0000-4000-8000-000000000000"] = {
        "activation": 0.5,
        "last_accessed": "2026-05-15T12:00:00Z",
        "access_count": 0,
    }
    (memory / "activation-metadata.json").write_text(json.dumps(state))
    (memory / "state" / ".audit.jsonl.ab12cd34.tmp").write_text("half")
    metadata = (memory / "embeddings" / "metadata.jsonl").read_text().splitlines()
    (memory / "embeddings" / "metadata.jsonl").write_text("\n".join(metadata[1:]) + "\n")
    (graph / "canary-facts.json").write_text("[{")  # the user's file: reported only
    found = check(memory)
    assert codes(found) == [
        ("derived_mismatch", "knowledge-graph/entities.jsonl", True),
        ("index_mismatch", "embeddings/index.bin", True),
        ("index_mismatch", "embeddings/index.bin", True),
        ("invalid_document", "knowledge-graph/canary-facts.json", False),
        ("invalid_line", "knowledge-graph/facts.jsonl", True),
        ("invalid_line", "knowledge-graph/relations.jsonl", True),
        ("mode", "activation-metadata.json", True),
        ("orphan_state", "activation-metadata.json", True),
        ("temporary_file", "state/.audit.jsonl.ab12cd34.tmp", True),
    ]
    assert "knowledge-graph/facts.jsonl:9: invalid JSON" in " ".join(f.message for f in found)

    repaired = check(memory, fix=True)
    assert [(f.code, f.repaired) for f in repaired] == [(f.code, f.repairable) for f in found]
    assert codes(check(memory)) == [
        ("invalid_document", "knowledge-graph/canary-facts.json", False)
    ]
    assert (graph / "canary-facts.json").read_text() == "[{"
    audit = [
        json.loads(line) for line in (memory / "state" / "audit.jsonl").read_text().splitlines()
    ]
    repairs = [
        repair
        for entry in audit
        if entry["action"] == "health-check --repair"
        for repair in entry.get("repairs", ())
    ]
    assert any("temporary" in repair for repair in repairs)
    assert any("mode 0600" in repair for repair in repairs)
    assert any("activation of 1 fact" in repair for repair in repairs)
    assert any("quarantined" in repair for repair in repairs)
    assert any(entry["step"] == "index" and "rebuilt" in entry["change"] for entry in audit)
    assert (graph / "facts.quarantine.jsonl").exists()


def test_what_only_a_person_can_decide_is_reported_and_left(memory, tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text("")
    link = memory / "sessions" / "2026-05-15-120000.jsonl"
    link.symlink_to(outside)
    write_jsonl(
        memory / "sessions" / "2026-05-15-130000.jsonl",
        [{"ts": "2026-05-15T13:00:00Z", "role": "user", "text": "hi"}],
    )
    with open(memory / "sessions" / "2026-05-15-130000.jsonl", "a") as log:
        log.write("{broken\n")
    found = check(memory, fix=True)
    assert codes(found) == [
        ("invalid_line", "sessions/2026-05-15-130000.jsonl", False),
        ("refused", "sessions/2026-05-15-120000.jsonl", False),
    ]
    assert not any(finding.repaired for finding in found)
    assert (
        link.is_symlink()
        and "{broken" in (memory / "sessions" / "2026-05-15-130000.jsonl").read_text()
    )


def test_health_check_reports_the_findings_and_repair_mends_them(cli, memory):
    (memory / "knowledge-graph" / "entities.jsonl").write_text("")
    reported = cli("--json", "--action", "health-check")
    assert reported.code == 0
    document = reported.json()
    assert {
        "code": "derived_mismatch",
        "file": "knowledge-graph/entities.jsonl",
        "message": "knowledge-graph/entities.jsonl is not what the facts make (0 records, "
        "the facts make 7)",
        "repairable": True,
    } in document["problems"]
    assert any(
        warning.endswith("(health-check --repair repairs it)") for warning in document["warnings"]
    )
    assert document["status"] == "degraded"
    repaired = cli("--action", "health-check", "--repair")
    assert repaired.code == 0, repaired.err
    assert repaired.out.startswith(
        "repaired: knowledge-graph/entities.jsonl is not what the facts make"
    )
    after = json.loads((memory / "health.json").read_text())
    assert after["problems"] == [] and after["status"] == "healthy"
