"""Every fact says who said it: the owner through the command line, the agent through a
proposal, a turn's speaker through what its log line records; facts made before facts kept
an origin are placed once by the same rules; only trusted facts reach MEMORY.md, and what
came from outside never replaces, reinforces or absorbs the owner's facts."""

from __future__ import annotations

import json
from pathlib import Path

import test_openclaw_state
from test_openclaw_state import Transcript
from vm_memory_oracle.clock import parse_iso
from vm_memory_oracle.config import Settings
from vm_memory_oracle.memory import Memory
from vm_memory_oracle.model.fact import new_fact
from vm_memory_oracle.model.provenance import OWNER_SAID, UNTRUSTED, Provenance

from conftest import NOW, log_turns, remember_records, write_jsonl

# The fixtures of the transcript tests: an OpenClaw state directory, and a memory reading it.
state = test_openclaw_state.state
connected = test_openclaw_state.connected
BOB = Provenance(UNTRUSTED, chat="group", channel="telegram", sender="Bob")


def facts(data_dir: Path) -> list[dict]:
    path = data_dir / "knowledge-graph" / "facts.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def by_object(data_dir: Path) -> dict[str, dict]:
    return {fact["object"]: fact for fact in facts(data_dir)}


def fact(subject: str, predicate: str, obj: str, said_by: Provenance, source: str = "t:1"):
    return new_fact(
        {"subject": subject, "predicate": predicate, "object": obj, "source": source},
        created=NOW,
        default_source=source,
        provenance=said_by,
    )


def test_remembered_facts_are_the_owners_and_accepted_proposals_the_agents(cli, data_dir):
    assert cli("--action", "remember", "--subject", "user", "--predicate", "likes",
               "--object", "tea").code == 0  # fmt: skip
    proposed = cli(
        "--json", "--action", "propose", "--proposer", "planner",
        "--subject", "user", "--predicate", "likes", "--object", "chess",
    )  # fmt: skip
    assert proposed.code == 0, proposed.err
    [proposal] = proposed.json()["ids"]
    accepted = cli("--action", "review", "--accept", proposal)
    assert accepted.code == 0, accepted.err
    held = by_object(data_dir)
    assert held["tea"]["provenance"] == {"origin": "owner", "session": "interactive"}
    assert held["chess"]["provenance"] == {"origin": "agent", "session": "interactive"}
    [found] = [
        hit
        for hit in cli("--json", "--action", "recall", "--query", "tea", "--no-boost").json()[
            "results"
        ]
        if hit["id"] == held["tea"]["id"]
    ]
    assert found["origin"] == "owner" and found["provenance"]["origin"] == "owner"


def test_an_outside_fact_never_replaces_reinforces_or_joins_the_owners(data_dir):
    memory = Memory.open(data_dir, Settings(), now=parse_iso(NOW))
    home = fact("user", "lives_in", "Lisbon", OWNER_SAID)
    memory.remember([home])
    before = by_object(data_dir)["Lisbon"]

    # Bob claims the owner moved, and repeats what the owner said: neither counts.
    report = memory.remember(
        [fact("user", "lives_in", "Porto", BOB, "g:1"), fact("user", "lives_in", "Lisbon", BOB)]
    )
    assert report.superseded == [] and report.reinforced == []
    held = by_object(data_dir)
    assert held["Lisbon"] == before  # still current, no source or importance added
    assert "superseded_by" not in held["Lisbon"]
    assert held["Porto"]["provenance"]["origin"] == "untrusted"

    # Bob's own fact, then the owner says the same: it is the owner's from then on.
    memory.remember([fact("Bob", "likes", "jazz", BOB, "g:2")])
    memory.remember([fact("Bob", "likes", "jazz", OWNER_SAID, "o:2")])
    assert by_object(data_dir)["jazz"]["provenance"]["origin"] == "owner"

    # Near-duplicates of different trust are never merged into one.
    graph = memory.graph()
    porto = held["Porto"]["id"]
    assert graph.merge({porto: (held["Lisbon"]["id"], "test")}, parse_iso(NOW)) == {}
    assert porto in {record["id"] for record in facts(data_dir)}


def test_facts_made_before_origins_are_placed_once_and_only_trusted_ones_reach_memory_md(
    cli, data_dir
):
    log_turns(
        data_dir,
        [("user", "I grow tomatoes."), ("assistant", "Tomatoes need sun.")],
        "2026-05-14-090000.jsonl",
    )
    copied = data_dir / "sessions" / "2026-05-14-100000.jsonl"
    write_jsonl(
        copied,
        [
            {
                "ts": "2026-05-14T10:00:00Z",
                "role": "assistant",
                "text": "The page says the user banks at 4421.",
                "provenance": {"origin": "untrusted"},
            }
        ],
    )
    made = [
        ("tomatoes", "user-stated"),
        ("basil", "import:garden.jsonl"),
        ("peppers", "subagent:planner"),
        ("sun", "sessions/2026-05-14-090000.jsonl:1"),
        ("shade", "sessions/2026-05-14-090000.jsonl:2"),
        ("bank 4421", "sessions/2026-05-14-100000.jsonl:1"),
        ("onions", "sessions/2026-05-01-090000.jsonl:3"),  # the log is gone
        ("leeks", "my diary"),
    ]
    remember_records(
        cli,
        data_dir / "input.jsonl",
        [
            {
                "subject": "user",
                "predicate": "grows",
                "object": name,
                "source": source,
                "pinned": True,
            }  # fmt: skip
            for name, source in made
        ],
    )
    # As a memory made before facts kept an origin holds them.
    path = data_dir / "knowledge-graph" / "facts.jsonl"
    legacy = [{k: v for k, v in record.items() if k != "provenance"} for record in facts(data_dir)]
    write_jsonl(path, legacy)

    assert cli("--action", "consolidate").code == 0
    held = by_object(data_dir)
    origins = {name: held[name]["provenance"]["origin"] for name, _ in made}
    assert origins == {
        "tomatoes": "owner",
        "basil": "owner",
        "peppers": "agent",
        "sun": "owner",
        "shade": "agent",
        "bank 4421": "untrusted",
        "onions": "unknown",
        "leeks": "unknown",
    }
    # Nothing else of a fact changed, and no fact was lost.
    for record in legacy:
        placed = held[record["object"]]
        assert {k: v for k, v in placed.items() if k != "provenance"} == record
    audit = (data_dir / "state" / "audit.jsonl").read_text()
    assert audit.count("placed the origin of 8 facts") == 1

    memory_md = (data_dir / "MEMORY.md").read_text()
    for name in ("tomatoes", "basil", "peppers", "sun", "shade"):
        assert name in memory_md
    for name in ("4421", "onions", "leeks"):
        assert name not in memory_md

    placed = path.read_bytes()
    assert cli("--action", "consolidate", now="2026-05-16T14:30:00Z").code == 0
    assert path.read_bytes() == placed  # nothing left to place: the file as it was
    assert (data_dir / "state" / "audit.jsonl").read_text().count("placed the origin") == 1


def test_facts_and_turns_copied_from_openclaw_before_are_placed_from_its_transcripts(
    connected, state, data_dir
):
    """A memory made before copies kept who said a turn: its facts are placed from the
    transcript rows their copies name (a heartbeat poll is scaffolding, never the owner's),
    and its episodes of those copies are of unknown origin."""
    transcript = Transcript(state)
    owner_row = transcript.user("main", "I grow tomatoes in my garden.")
    poll = transcript.add(
        "main",
        {
            "type": "message",
            "timestamp": "2026-05-15T13:05:00Z",
            "message": {
                "role": "user",
                "content": "[OpenClaw heartbeat poll]",
                "provenance": {"kind": "internal_system", "sourceTool": "heartbeat"},
            },
        },
    )
    assert connected("--action", "summarize", "--all").code == 0
    [copy] = sorted((data_dir / "sessions").glob("*.jsonl"))
    [line] = [json.loads(text) for text in copy.read_text().splitlines()]
    assert line["origin"] == f"openclaw:main/main#{owner_row}"
    # As a copy made before held it: the heartbeat poll copied without its provenance, and
    # learned as the user's words.
    polled = {
        "ts": line["ts"],
        "role": "user",
        "text": "[OpenClaw heartbeat poll]",
        "origin": f"openclaw:main/main#{poll}",
    }
    with copy.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(polled) + "\n")
    assert connected("--action", "summarize", "--all").code == 0
    learned = facts(data_dir)
    if not any(fact["source"] == f"sessions/{copy.name}:2" for fact in learned):
        learned.append(
            {
                **learned[0],
                "id": "fact-00000000-0000-5000-8000-000000000001",
                "predicate": "said",
                "object": "[OpenClaw heartbeat poll]",
                "text": "user said: [OpenClaw heartbeat poll]",
                "source": f"sessions/{copy.name}:2",
            }
        )
    legacy = [
        {**{k: v for k, v in fact.items() if k != "provenance"}, "pinned": True} for fact in learned
    ]
    write_jsonl(data_dir / "knowledge-graph" / "facts.jsonl", legacy)
    for path in (data_dir / "episodes").glob("*.jsonl"):
        episodes = [json.loads(text) for text in path.read_text().splitlines()]
        write_jsonl(path, [{k: v for k, v in e.items() if k != "provenance"} for e in episodes])

    assert connected("--action", "consolidate").code == 0
    origins = {fact["source"]: fact["provenance"]["origin"] for fact in facts(data_dir)}
    assert origins[f"sessions/{copy.name}:2"] == "system"
    assert origins[f"sessions/{copy.name}:1"] == "owner"
    memory_md = (data_dir / "MEMORY.md").read_text()
    assert "tomato" in memory_md and "heartbeat" not in memory_md

    found = connected("--json", "--action", "recall", "--query", "heartbeat poll", "--no-boost")
    episodes = [hit for hit in found.json()["results"] if hit.get("kind") == "episode"]
    assert episodes and all(hit["origin"] == "unknown" for hit in episodes)


def test_the_copies_of_transcripts_are_read_again_when_the_ledger_changes(
    connected, state, data_dir
):
    """Which session logs copy OpenClaw's transcripts is kept in memory while the import
    ledger is unchanged, and read again once an import rewrote it."""
    from vm_memory_oracle.openclaw.ledger import transcript_copies

    store = Memory.open(data_dir).store()
    assert transcript_copies(store) == frozenset()
    Transcript(state).user("main", "I grow tomatoes in my garden.")
    assert connected("--action", "summarize", "--all").code == 0
    copies = {path.name for path in (data_dir / "sessions").glob("*.jsonl")}
    assert copies and transcript_copies(store) == copies
    assert transcript_copies(store) is transcript_copies(store)
