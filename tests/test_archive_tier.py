"""The archive tier read as recall needs it, not whole: its records read from the archive file
by their places for the facts recall looks at, its vectors' index mapped from a file of its
own; a tier whose archive file or index file is not the one it was made with is made again,
and a tier held while the archive is rewritten still reads the file it was made of."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

from vm_memory_oracle.archive_tier import archive_tier
from vm_memory_oracle.config import Settings
from vm_memory_oracle.memory import Memory
from vm_memory_oracle.model.archive import Archived
from vm_memory_oracle.recall import Asked, recall_many
from vm_memory_oracle.semantic import configured_embedder
from vm_memory_oracle.storage import snapshot

from conftest import hash_embedder, write_jsonl

NOW = datetime(2026, 5, 15, 14, 30, tzinfo=timezone.utc)  # the cli fixture's
COUNT = 1_000


def pruned(number: int) -> dict:
    return {
        "id": f"fact-00000000-0000-5000-8000-{number:012d}",
        "subject": "user",
        "predicate": "noted",
        "object": f"parcel {number} for depot {number % 31}",
        "source": "user-stated",
        "created": "2025-01-01T00:00:00Z",
        "activation": 1.0,
        "text": f"the user noted parcel {number} for depot {number % 31}",
        "archived_at": "2025-06-01T00:00:00Z",
        "archive_reason": "pruned: activation 0.04 below prune_threshold 0.05",
        "final_activation": 0.04,
    }


def archived_memory(cli, data_dir: Path) -> Memory:
    """A memory of no active fact and COUNT pruned ones, its tier made and kept by a recall
    command; opened anew, as the next process would."""
    hash_embedder(cli)
    write_jsonl(data_dir / "knowledge-graph" / "archived-facts.jsonl", map(pruned, range(COUNT)))
    done = cli("--json", "--action", "recall", "--query", "parcel 417", "--no-boost")
    assert done.code == 0, done.err
    assert done.json()["results"][0]["object"] == "parcel 417 for depot 14"
    snapshot.forget_memory()
    settings = Settings(embedding_model="hash", lock_timeout_seconds=5)
    return Memory.open(data_dir, settings, now=NOW)


def tier_of(memory: Memory):
    graph = memory.graph()
    return archive_tier(graph, configured_embedder(graph, graph.settings).embedder)


def test_a_tier_read_again_reads_the_records_of_the_facts_recall_looks_at(cli, data_dir):
    memory = archived_memory(cli, data_dir)
    indexes = memory.indexes()
    tier = indexes.archive
    assert len(tier) == COUNT and tier.embedded == 0
    assert tier.vector_index.index.mapped  # read from its file, not made again
    assert not tier._records  # nothing read of the archive file yet
    found = recall_many(
        indexes.graph, [Asked("parcel 612")], NOW, boost=False, indexes=indexes
    ).sets[0]
    assert found.hits[0].object == "parcel 612 for depot 23"
    assert "archive" in found.hits[0].matched
    assert 0 < len(tier._records) < COUNT / 2  # the candidates', not every record
    lines = (data_dir / "knowledge-graph" / "archived-facts.jsonl").read_text().splitlines()
    record = json.loads(lines[612])
    assert tier.record(record["id"]) == record
    assert tier.archived(record["id"]) == Archived.of(record)


def test_a_tier_whose_index_file_was_replaced_is_made_again(cli, data_dir):
    memory = archived_memory(cli, data_dir)
    index_file = data_dir / "state" / "cache" / "archive-tier.index"
    copy = index_file.with_name("copy")
    shutil.copyfile(index_file, copy)
    copy.replace(index_file)  # the same bytes, another file: not the one it was made with
    tier = tier_of(memory)
    assert not tier.vector_index.index.mapped  # made again, in this process
    assert tier.vectors is not None and tier.vectors[1] == list(snapshot.file_key(index_file))
    index_file.write_bytes(b"not an index")
    snapshot.forget_memory()
    tier = tier_of(memory)
    assert not tier.vector_index.index.mapped and len(tier.vector_index.index) == COUNT
    snapshot.forget_memory()
    assert tier_of(memory).vector_index.index.mapped  # the one made last, kept


def test_a_tier_held_while_the_archive_is_rewritten_reads_the_file_it_was_made_of(cli, data_dir):
    memory = archived_memory(cli, data_dir)
    held = tier_of(memory)
    archive = data_dir / "knowledge-graph" / "archived-facts.jsonl"
    first = json.loads(archive.read_text().splitlines()[0])
    rewritten = archive.with_name("rewritten")
    write_jsonl(rewritten, map(pruned, range(COUNT - 1, -1, -1)))  # another order
    rewritten.replace(archive)
    assert held.record(first["id"]) == first  # read from the file it holds open
    tier = tier_of(memory)
    assert tier is not held and len(tier) == COUNT
    assert tier.record(first["id"]) == first and tier.ids[0] != held.ids[0]


def test_a_tier_of_no_pruned_fact_is_made_without_opening_the_embedding_cache(
    cli, data_dir, monkeypatch
):
    """With nothing pruned, the tier has no vector to find: the embedding cache, whose
    digests at a million facts are 100 MB, is not opened; a tier of pruned facts opens it."""
    from vm_memory_oracle.semantic import cache

    hash_embedder(cli)
    assert cli("--action", "remember", "--subject", "user", "--predicate", "likes",
               "--object", "oolong tea").code == 0  # fmt: skip
    opened: list[object] = []
    real = cache.EmbeddingCache.of.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        cache.EmbeddingCache,
        "of",
        classmethod(lambda cls, *args: opened.append(args) or real(cls, *args)),
    )
    snapshot.forget_memory()
    memory = Memory.open(data_dir, Settings(embedding_model="hash"), now=NOW)
    embedder = configured_embedder(memory.graph(), memory.graph().settings).embedder
    tier = archive_tier(memory.graph(), embedder)
    assert len(tier) == 0 and tier.embedded == 0 and not opened
    write_jsonl(data_dir / "knowledge-graph" / "archived-facts.jsonl", map(pruned, range(3)))
    snapshot.forget_memory()
    tier = archive_tier(Memory.open(data_dir, Settings(), now=NOW).graph(), embedder)
    assert len(tier) == 3 and len(opened) == 1
