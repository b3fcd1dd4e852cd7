"""Shared read, gated write: a sub-agent proposes facts, the main agent reviews them. A
proposal is invisible to recall and query until accepted; rejecting drops it; one left
pending past proposal_max_age_days expires at the nightly consolidation, which lists it."""

from __future__ import annotations

import json

import pytest

from conftest import NOW, activation_state, data_files, hash_embedder, run_entrypoint

BERLIN = (
    "--subject",
    "user",
    "--predicate",
    "lives in",
    "--object",
    "Berlin",
    "--text",
    "The user lives in Berlin.",
)


def propose(cli, proposer: str, *fact: str, now: str = NOW, confidence: str = "0.8") -> dict:
    result = cli(
        "--json",
        "--action",
        "propose",
        "--proposer",
        proposer,
        "--confidence",
        confidence,
        *fact,
        now=now,
    )
    assert result.code == 0, result.err
    return result.json()


def pending(data_dir) -> list[dict]:
    path = data_dir / "state" / "pending-memories.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def facts(data_dir) -> dict[str, dict]:
    return {
        record["id"]: record
        for record in map(
            json.loads, (data_dir / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
        )
    }


def audit(data_dir) -> list[dict]:
    return [
        json.loads(line) for line in (data_dir / "state" / "audit.jsonl").read_text().splitlines()
    ]


@pytest.mark.slow
def test_a_proposal_is_invisible_to_recall_until_accepted_in_real_processes(data_dir):
    def run(*args: str) -> str:
        done = run_entrypoint("--data-path", str(data_dir), "--now", NOW, *args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    run("--action", "init")
    run("--action", "config", "--set", "embedding_model=hash")
    proposed = json.loads(
        run(
            "--json",
            "--action",
            "propose",
            "--proposer",
            "researcher",
            "--confidence",
            "0.8",
            *BERLIN,
        )
    )
    [proposal_id] = proposed["proposed"]
    assert proposal_id.startswith("proposal-") and proposed["already_pending"] == []
    assert run("--action", "recall", "--query", "Berlin") == "No matching facts.\n"
    assert run("--action", "query", "--jq", "length") == "0\n"
    listing = run("--action", "review")
    assert listing.splitlines() == [
        "1 pending proposal(s):",
        f"{proposal_id}  from researcher at {NOW}, confidence 0.8: The user lives in Berlin.",
    ]
    accepted = run("--action", "review", "--accept", proposal_id)
    [fact_id] = proposed["fact_ids"]
    assert accepted == (
        f"Accepted {proposal_id} from researcher: remembered {fact_id} (new): "
        "The user lives in Berlin.\n"
    )
    hits = json.loads(run("--json", "--action", "recall", "--query", "Berlin"))["results"]
    assert [hit["id"] for hit in hits] == [fact_id]
    assert hits[0]["source"] == f"subagent:researcher via {proposal_id}"
    assert facts(data_dir)[fact_id]["confidence"] == 0.8
    assert run("--action", "review") == "No pending proposals.\n"


def test_a_rejected_proposal_is_dropped_and_never_seen(cli, data_dir):
    hash_embedder(cli)
    [proposal_id] = propose(cli, "researcher", *BERLIN)["proposed"]
    before = (data_dir / "knowledge-graph" / "facts.jsonl").read_bytes()
    result = cli("--action", "review", "--reject", proposal_id)
    assert result.code == 0
    assert result.out == f"Rejected {proposal_id} from researcher: The user lives in Berlin.\n"
    assert pending(data_dir) == []
    assert (data_dir / "knowledge-graph" / "facts.jsonl").read_bytes() == before
    last = audit(data_dir)[-1]
    assert (last["action"], last["files"], last["change"]) == (
        "review",
        ["state/pending-memories.jsonl"],
        f"rejected {proposal_id} from researcher",
    )
    assert cli("--action", "recall", "--query", "Berlin").out == "No matching facts.\n"


def test_accept_all_from_takes_only_that_proposers_proposals(cli, data_dir):
    hash_embedder(cli)
    tea = propose(cli, "alpha", "--subject", "user", "--predicate", "likes", "--object", "tea")
    jazz = propose(cli, "alpha", "--subject", "user", "--predicate", "likes", "--object", "jazz")
    rain = propose(cli, "beta", "--subject", "user", "--predicate", "likes", "--object", "rain")
    result = cli("--json", "--action", "review", "--accept-all-from", "alpha")
    assert result.code == 0, result.err
    accepted = result.json()["accepted"]
    assert [entry["proposal"] for entry in accepted] == tea["proposed"] + jazz["proposed"]
    assert all(entry["status"] == "new" for entry in accepted)
    assert set(facts(data_dir)) == set(tea["fact_ids"] + jazz["fact_ids"])
    assert [proposal["id"] for proposal in pending(data_dir)] == rain["proposed"]
    decisions = [entry for entry in audit(data_dir) if entry["action"] == "review"]
    assert [entry["ids"] for entry in decisions] == [tea["fact_ids"], jazz["fact_ids"]]
    nobody = cli("--action", "review", "--accept-all-from", "gamma")
    assert nobody.code == 0 and nobody.out == "No pending proposals from gamma.\n"


def test_proposing_the_same_fact_again_writes_nothing(cli, data_dir):
    hash_embedder(cli)
    first = propose(cli, "researcher", *BERLIN)
    before = data_files(data_dir)
    later = "2026-05-16T09:00:00Z"
    again = propose(
        cli,
        "researcher",
        "--subject",
        "User",
        "--predicate",
        "Lives In",
        "--object",
        "berlin",
        now=later,
        confidence="0.3",
    )
    assert again["proposed"] == [] and again["already_pending"] == first["proposed"]
    text = cli("--action", "propose", "--proposer", "researcher", *BERLIN, now=later)
    assert text.out.startswith(
        f"Already pending: {first['proposed'][0]} (confidence 0.8): The user lives in Berlin."
    )
    assert data_files(data_dir) == before
    other = propose(cli, "someone else", *BERLIN)  # another proposer: another proposal
    assert other["proposed"] != first["proposed"] and len(pending(data_dir)) == 2


@pytest.mark.parametrize("option", ["--accept", "--reject"])
def test_an_unknown_or_decided_proposal_is_refused_and_changes_nothing(cli, data_dir, option):
    hash_embedder(cli)
    [decided] = propose(cli, "researcher", *BERLIN)["proposed"]
    assert cli("--action", "review", option, decided).code == 0
    propose(cli, "researcher", "--subject", "user", "--predicate", "likes", "--object", "tea")
    before = data_files(data_dir)
    for unknown in (decided, "proposal-00000000-0000-5000-8000-000000000000", "fact-1"):
        result = cli("--action", "review", option, unknown)
        assert result.code == 3
        assert result.err == (
            f"Error: no pending proposal with id {unknown!r} (decided "
            "already, expired, or never made; --action review lists the "
            "pending ones)\n"
        )
    assert data_files(data_dir) == before


def test_proposals_past_their_age_expire_at_consolidation_and_are_listed(cli, data_dir):
    hash_embedder(cli)
    old = propose(cli, "researcher", *BERLIN, now="2026-05-01T09:00:00Z")
    fresh = propose(
        cli,
        "helper",
        "--subject",
        "user",
        "--predicate",
        "likes",
        "--object",
        "tea",
        now="2026-05-10T09:00:00Z",
    )
    not_yet = cli("--json", "--action", "consolidate", now="2026-05-15T08:00:00Z").json()
    [clean] = [step for step in not_yet["steps"] if step["name"] == "clean"]
    assert clean["counts"]["proposals_expired"] == 0 and len(pending(data_dir)) == 2
    result = cli("--json", "--action", "consolidate", now="2026-05-15T10:00:00Z")
    [clean] = [step for step in result.json()["steps"] if step["name"] == "clean"]
    assert clean["counts"]["proposals_expired"] == 1
    reason = (
        "pending more than 14 days (proposed by researcher at 2026-05-01T09:00:00Z): "
        "The user lives in Berlin."
    )
    assert clean["changes"] == [
        {"proposal": old["proposed"][0], "change": "expired", "reason": reason}
    ]
    assert [proposal["id"] for proposal in pending(data_dir)] == fresh["proposed"]
    assert cli("--action", "config", "--set", "proposal_max_age_days=3").code == 0
    text = cli("--action", "consolidate", now="2026-05-15T11:00:00Z")
    assert text.code == 0
    assert (
        f"| clean | expired | {fresh['proposed'][0]} |  | pending more than 3 days (proposed "
        "by helper at 2026-05-10T09:00:00Z): user likes tea |" in text.out.splitlines()
    )
    assert "| proposals expired | 1 |" in text.out.splitlines()
    assert pending(data_dir) == [] and "facts.jsonl" not in text.out
    refused = cli("--action", "config", "--set", "proposal_max_age_days=0")
    assert refused.code == 3 and "proposal_max_age_days must be between 1 and 36500" in refused.err


@pytest.mark.parametrize(
    "value, code, message",
    [
        ("nan", 2, "--confidence: must be a finite number, got 'nan'"),
        ("high", 2, "--confidence: must be a finite number, got 'high'"),
        ("-0.1", 3, "Error: --confidence: must be between 0 and 1, got -0.1"),
        ("1.01", 3, "Error: --confidence: must be between 0 and 1, got 1.01"),
    ],
)
def test_an_invalid_confidence_is_refused(cli, data_dir, value, code, message):
    hash_embedder(cli)
    before = data_files(data_dir)
    result = cli("--action", "propose", "--proposer", "researcher", "--confidence", value, *BERLIN)
    assert result.code == code and message in result.err, result.err
    assert data_files(data_dir) == before


def test_accepting_supersedes_and_the_listing_says_so_beforehand(cli, data_dir):
    hash_embedder(cli)
    lisbon = cli(
        "--json",
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "lives in",
        "--object",
        "Lisbon",
    ).json()["ids"][0]
    [proposal_id] = propose(cli, "researcher", *BERLIN)["proposed"]
    listing = cli("--json", "--action", "review").json()["pending"]
    assert listing[0]["would_supersede"] == {"id": lisbon, "text": "user lives in Lisbon"}
    assert listing[0]["known"] is False
    assert (
        f"    would supersede {lisbon}: user lives in Lisbon"
        in cli("--action", "review").out.splitlines()
    )
    result = cli("--action", "review", "--accept", proposal_id)
    berlin = listing[0]["fact"]["id"]
    assert result.out.splitlines()[1:] == [f"  {berlin} supersedes {lisbon}"]
    assert facts(data_dir)[lisbon]["superseded_by"] == berlin


def test_the_listing_names_the_preference_a_proposed_alternative_would_replace(cli, data_dir):
    hash_embedder(cli)
    dark = cli(
        "--json",
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "prefers",
        "--object",
        "dark mode",
    ).json()["ids"][0]
    [proposal_id] = propose(
        cli, "researcher", "--subject", "user", "--predicate", "prefers", "--object", "light mode"
    )["proposed"]
    [entry] = cli("--json", "--action", "review").json()["pending"]
    assert entry["would_supersede"] == {"id": dark, "text": "user prefers dark mode"}
    assert cli("--action", "review", "--accept", proposal_id).code == 0
    assert facts(data_dir)[dark]["superseded_by"] == entry["fact"]["id"]


def test_an_acceptance_cut_short_after_remembering_completes_without_a_second_boost(
    cli, data_dir, monkeypatch
):
    from vm_memory_oracle.proposals import PendingMemories

    hash_embedder(cli)
    cli("--action", "remember", "--subject", "user", "--predicate", "likes", "--object", "tea")
    [tea, jazz] = [
        propose(cli, "researcher", "--subject", "user", "--predicate", "likes", "--object", obj)[
            "proposed"
        ][0]
        for obj in ("tea", "jazz")
    ]

    def killed(self, ids):
        raise KeyboardInterrupt  # as if the process died before the proposal was dropped

    for proposal_id in (tea, jazz):  # one reinforces a known fact, one adds a new one
        with monkeypatch.context() as patch:
            patch.setattr(PendingMemories, "_drop", killed)
            assert cli("--action", "review", "--accept", proposal_id).code == 130
        stored, state = dict(facts(data_dir)), activation_state(data_dir)
        retry = cli("--action", "review", "--accept", proposal_id, now="2026-05-16T09:00:00Z")
        assert retry.code == 0 and "(already known)" in retry.out, retry.out
        assert facts(data_dir) == stored and activation_state(data_dir) == state
    assert pending(data_dir) == []


def test_propose_from_jsonl_names_the_line_and_takes_each_lines_confidence(cli, data_dir, tmp_path):
    hash_embedder(cli)
    given = tmp_path / "proposals.jsonl"
    given.write_text(
        '{"subject": "user", "predicate": "likes", "object": "tea"}\n'
        '{"subject": "user", "predicate": "likes", "object": "jazz", '
        '"confidence": 0.9, "source": "https://example.org/profile"}\n'
    )
    result = cli(
        "--json",
        "--action",
        "propose",
        "--proposer",
        "crawler",
        "--from",
        str(given),
        "--confidence",
        "0.6",
    )
    assert result.code == 0, result.err
    records = pending(data_dir)
    assert [record["confidence"] for record in records] == [0.6, 0.9]
    assert (
        records[1]["fact"]["source"]
        == f"https://example.org/profile, subagent:crawler via {records[1]['id']}"
    )
    given.write_text(
        '{"subject": "user", "predicate": "likes", "object": "rain"}\n'
        '{"subject": "user", "predicate": "likes", "object": "x", '
        '"confidence": 7}\n'
    )
    before = data_files(data_dir)
    refused = cli("--action", "propose", "--proposer", "crawler", "--from", str(given))
    assert refused.code == 3
    assert refused.err.startswith(f"Error: {given}:2: field 'confidence' must be between 0 and 1")
    assert data_files(data_dir) == before


def test_the_audit_log_names_the_proposer_and_health_counts_what_waits(cli, data_dir):
    hash_embedder(cli)
    propose(cli, "researcher", *BERLIN)
    entry = audit(data_dir)[-1]
    assert (entry["actor"], entry["action"], entry["files"]) == (
        "subagent:researcher",
        "propose",
        ["state/pending-memories.jsonl"],
    )
    assert entry["change"] == "proposed 1 fact(s) for review (by researcher)"
    health = cli("--json", "--action", "health-check").json()
    assert health["pending_proposals"] == 1 and health["status"] == "healthy"
