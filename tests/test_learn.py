"""learn(): the one way a turn enters the memory, for a day of logs or one turn alike."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from vm_memory_oracle.config import Settings
from vm_memory_oracle.data_directory import initialize
from vm_memory_oracle.graph import KnowledgeGraph
from vm_memory_oracle.learning.learn import learn
from vm_memory_oracle.model.turn import Turn
from vm_memory_oracle.storage.layout import Layout
from vm_memory_oracle.storage.sessions import read_session
from vm_memory_oracle.storage.store import Store

from conftest import write_jsonl

NOW = datetime(2026, 5, 15, 23, 0, tzinfo=timezone.utc)
LOG = "2026-05-15-090000.jsonl"
SAID = [
    ("user", "My name is Alex Chen and I live in Beijing."),
    ("assistant", "Nice to meet you, Alex. Beijing has wonderful tea houses."),
    ("user", "I work at Acme Robotics as a firmware engineer."),
    ("user", "I decided to use PostgreSQL for the billing service."),
    ("assistant", "PostgreSQL suits billing well: transactions keep the ledger exact."),
    ("user", "Please renew the TLS certificate before next Friday."),
]
# What a memory is: every file learn writes, byte for byte.
LEARNED = (
    "knowledge-graph/facts.jsonl",
    "knowledge-graph/entities.jsonl",
    "knowledge-graph/relations.jsonl",
    "activation-metadata.json",
    "episodes/2026-05-15.jsonl",
    "state/summarized.json",
)


def memory(root: Path) -> KnowledgeGraph:
    layout = Layout(root)
    initialize(layout, at="2026-05-15T08:00:00Z")
    store = Store(layout, lock_timeout=30, timestamp="2026-05-15T23:00:00Z")
    return KnowledgeGraph(store, Settings(embedding_model="hash"))


def logged(graph: KnowledgeGraph, said, name: str = LOG) -> Path:
    return write_jsonl(
        graph.layout.sessions_dir / name,
        [
            {"ts": f"{name[:10]}T09:{number:02d}:00Z", "role": role, "text": text}
            for number, (role, text) in enumerate(said)
        ],
    )


def turns_of(graph: KnowledgeGraph, path: Path) -> tuple[bytes, list[Turn]]:
    data, contents = read_session(path)
    name = graph.layout.relative(path)
    return data, [
        Turn.of_record(name, number, record)
        for record, number in zip(contents.records, contents.line_numbers)
    ]


def files_of(graph: KnowledgeGraph) -> dict[str, bytes | None]:
    root = graph.layout.root
    return {
        name: (root / name).read_bytes() if (root / name).exists() else None for name in LEARNED
    }


def test_one_turn_at_a_time_or_the_whole_log_at_once_makes_the_same_memory(tmp_path):
    """A live caller hands on each finished turn with the conversation before it (read
    already, so it gives context and is not learned again); summarize hands on the log."""
    whole = memory(tmp_path / "whole")
    path = logged(whole, SAID)
    data, turns = turns_of(whole, path)
    report = learn(whole, turns, NOW, logs={path: data})
    assert report.added > 0 and report.episodes > 0

    turn_by_turn = memory(tmp_path / "turn-by-turn")
    added = episodes = 0
    for number in range(1, len(SAID) + 1):
        path = logged(turn_by_turn, SAID[:number])
        data, turns = turns_of(turn_by_turn, path)
        one = learn(turn_by_turn, turns, NOW, logs={path: data})
        added, episodes = added + one.added, episodes + one.episodes
    assert (added, episodes) == (report.added, report.episodes)
    assert files_of(turn_by_turn) == files_of(whole)


def test_a_turn_handed_on_alone_is_learned_as_in_a_batch(tmp_path):
    said = [
        ("2026-05-15-090000.jsonl", "I live in Oslo and work at Statoil."),
        ("2026-05-15-100000.jsonl", "I prefer green tea in the morning."),
        ("2026-05-15-110000.jsonl", "I decided to move the backups to a NAS."),
    ]
    batch, alone = memory(tmp_path / "batch"), memory(tmp_path / "alone")
    for graph in (batch, alone):
        for name, text in said:
            logged(graph, [("user", text)], name)
    turns = [turns_of(batch, batch.layout.sessions_dir / name)[1][0] for name, _ in said]
    learn(batch, turns, NOW)
    for turn in turns:
        learn(alone, [turn], NOW)
    assert files_of(alone) == files_of(batch)
    assert len(batch.facts()) >= 3


def test_a_turn_learned_once_is_not_learned_again(tmp_path):
    graph = memory(tmp_path / "memory")
    path = logged(graph, SAID)
    data, turns = turns_of(graph, path)
    first = learn(graph, turns, NOW, logs={path: data})
    before = files_of(graph)
    again = learn(graph, turns, NOW, logs={path: data})
    assert first.added > 0
    assert (again.added, again.reinforced, again.episodes) == (0, 0, 0)
    assert files_of(graph) == before
    # what the turns state is still found, for a summary of the day
    assert [fact.id for fact in again.facts["2026-05-15"]] == [
        fact.id for fact in first.facts["2026-05-15"]
    ]
    ledger = json.loads(before["state/summarized.json"] or b"")
    assert ledger["files"][LOG]["lines"] == len(SAID)


@pytest.mark.parametrize("where", ["text", "speaker"])
def test_a_secret_in_a_turn_is_redacted_before_anything_is_written(tmp_path, where):
    secret = "sk-proj-Zx81kL0pQ9rT5vW2yB7nM4cD"
    graph = memory(tmp_path / "memory")
    said = Turn(
        f"sessions/{LOG}",
        1,
        NOW,
        "user",
        f"My api key for the billing bot is {secret}. I live in Oslo and work at Statoil.",
        "Dana",
    )
    if where == "speaker":
        said = Turn(f"sessions/{LOG}", 1, NOW, "user", "I live in Oslo.", f"token: {secret}")
    report = learn(graph, [said], NOW)
    assert report.redactions == 1 and report.added > 0
    written = [path for path in graph.layout.root.rglob("*") if path.is_file()]
    assert [path for path in written if secret.encode() in path.read_bytes()] == []
    episodes = (graph.layout.root / "episodes" / "2026-05-15.jsonl").read_text()
    assert "[REDACTED:" in episodes


def test_the_indexes_are_brought_in_step_once_the_turns_are_written(tmp_path, monkeypatch):
    """in_step: their owner brings the derived indexes in step once, in the same commit,
    after the facts are written; what it warns of is the learn's last warning."""
    from vm_memory_oracle import indexes

    graph = memory(tmp_path / "memory")
    path = logged(graph, SAID)
    data, turns = turns_of(graph, path)
    seen: list[int] = []
    bring_in_step = indexes.bring_in_step

    def in_step(graph_of_learn, **options):
        seen.append(len(graph.facts()))
        assert graph.store._held  # under the learn's own hold of the lock
        brought = bring_in_step(graph_of_learn, **options)
        brought.report.warnings.append("the index was rebuilt")
        return brought

    monkeypatch.setattr(indexes, "bring_in_step", in_step)
    report = learn(graph, turns, NOW, logs={path: data}, in_step=True)
    assert seen == [report.added] and report.added > 0
    assert report.warnings[-1] == "the index was rebuilt"


def test_a_turn_handed_on_with_the_owner_of_the_indexes_is_found_at_once(tmp_path):
    """The live path's way: one turn learned, the derived indexes brought in step by their
    one owner right after, so the next recall finds it without building anything."""
    from vm_memory_oracle.indexes import bring_in_step
    from vm_memory_oracle.recall import Asked, recall_many

    graph = memory(tmp_path / "memory")
    path = logged(graph, SAID)
    data, turns = turns_of(graph, path)
    report = learn(graph, turns[:1], NOW, logs={path: data}, in_step=True)
    assert report.added > 0 and report.episodes == 1
    indexes = bring_in_step(graph)  # as the next request finds them: in step, nothing to do
    episodes, vectors = indexes.report.episodes, indexes.report.vectors
    assert episodes is not None and vectors is not None
    assert (episodes.added, episodes.embedded, vectors.added, vectors.embedded) == (0, 0, 0, 0)
    assert episodes.episodes == 1 and vectors.vectors == report.added
    (found,) = recall_many(graph, [Asked("Where does Alex live?")], NOW, indexes=indexes)
    assert any("Beijing" in hit.text for hit in found.hits), found
