"""What the vector index should hold and what its metadata says it holds, as columns
(semantic/wanted.py): the same answers as the dictionaries they replace."""

from __future__ import annotations

import json

import numpy as np
import pytest
from vm_memory_oracle.model.fact import vector_id
from vm_memory_oracle.semantic import wanted as wanted_module
from vm_memory_oracle.semantic.cache import content_hash
from vm_memory_oracle.semantic.index import metadata_lines
from vm_memory_oracle.semantic.wanted import (
    changes,
    indexed_texts,
    read_known,
    wanted_vectors,
)

from conftest import fact_of, hash_embedder, recall_results, write_jsonl


def facts_of(count: int, *, context_every: int = 3):
    return [
        fact_of(
            {
                "subject": "user",
                "predicate": "visited",
                "object": f"town {number}",
                **({"context": f"a trip in spring {number}"} if number % context_every else {}),
            }
        )
        for number in range(count)
    ]


def as_dictionary(facts) -> dict:
    """The dictionary wanted_vectors gave before it gave columns."""
    found = {}
    for fact in facts:
        if fact.current:
            texts = indexed_texts(fact)
            found[vector_id(fact.id)] = (fact.id, content_hash("\n".join(texts)), texts)
    return found


def test_the_columns_answer_as_the_dictionary_did():
    facts = facts_of(20)
    facts[4] = facts[4].changed(superseded_by=facts[5].id)  # not current: no vector
    facts.append(facts[7].changed(activation=0.5))  # the same id again: the later is kept
    wanted = wanted_vectors(facts)
    expected = as_dictionary(facts)
    assert len(wanted) == len(expected) == 19
    assert {vid: tuple(wanted[vid]) for vid in wanted} == expected
    repeated = vector_id(facts[7].id)
    # in the facts' order, the repeated id where it was last
    assert list(wanted) == [vid for vid in expected if vid != repeated] + [repeated]
    assert vector_id(facts[4].id) not in wanted and wanted.places(np.array([12345])).tolist() == [
        -1
    ]
    with pytest.raises(KeyError):
        wanted["not a vector id"]


def test_the_facts_still_held_are_not_hashed_again(monkeypatch, tmp_path):
    facts = facts_of(10)
    made = []
    real = wanted_module.text_digest
    monkeypatch.setattr(
        wanted_module, "text_digest", lambda texts: made.append(texts) or real(texts)
    )
    path = tmp_path / "facts.jsonl"
    path.write_text("one\n")
    assert len(wanted_vectors(facts, path)) == 10 and len(made) == 10
    assert len(wanted_vectors(facts, path)) == 10 and len(made) == 10  # the file unchanged
    path.write_text("one\ntwo\n")  # the file changed: facts appended
    later = facts + facts_of(12)[10:]
    second = wanted_vectors(later, path)
    assert len(made) == 12  # the two new facts only
    assert {vid: tuple(second[vid]) for vid in second} == as_dictionary(later)


def test_the_metadata_read_a_line_at_a_time(tmp_path):
    facts = facts_of(6)
    wanted = wanted_vectors(facts)
    records = [
        {
            "vector_id": vid,
            "fact_id": fact_id,
            "model_id": "hash-512+sentence-context-mean-v1",
            "dimension": 512,
            "content_hash": digest,
        }
        for vid, (fact_id, digest, _) in sorted(as_dictionary(facts).items())
    ]
    lines = metadata_lines(records, "embeddings/metadata.jsonl")
    reordered = json.dumps(dict(reversed(list(records[0].items()))))  # another writer's order
    path = tmp_path / "metadata.jsonl"
    path.write_text("\n".join([reordered, *lines[1:], '{"vector_id": "x"}', "{torn"]) + "\n")
    known = read_known(path)
    assert known.vids.tolist() == [record["vector_id"] for record in records]
    assert [f"{digest:016x}" for digest in known.digests.tolist()] == [
        record["content_hash"] for record in records
    ]
    assert known.models == {("hash-512+sentence-context-mean-v1", 512)} and known.bad == 2
    stale, fresh = changes(known, wanted)
    assert stale.tolist() == [] and fresh.tolist() == []
    changed = [facts[0].changed(object="a city"), *facts[2:]]  # one changed, one gone
    stale, fresh = changes(known, wanted_vectors(changed))
    gone = {vector_id(facts[0].id), vector_id(facts[1].id)}
    assert set(known.vids[stale].tolist()) == gone
    assert wanted_vectors(changed).vids[fresh].tolist() == [vector_id(changed[0].id)]


def test_a_recall_after_a_remember_does_not_read_the_metadata_again(
    cli, tmp_path, data_dir, monkeypatch
):
    hash_embedder(cli)
    records = [
        {"subject": "user", "predicate": "likes", "object": f"tea {n}", "text": f"likes tea {n}"}
        for n in range(5)
    ]
    cli("--action", "remember", "--from", str(write_jsonl(tmp_path / "a.jsonl", records)))
    assert recall_results(cli, "tea 3")
    assert (data_dir / "state" / "cache" / "known-vectors.marshal").exists()

    def refused(path):
        raise AssertionError(f"{path} read again")

    monkeypatch.setattr(wanted_module, "read_known", refused)
    more = [{"subject": "user", "predicate": "likes", "object": "coffee", "text": "likes coffee"}]
    cli("--action", "remember", "--from", str(write_jsonl(tmp_path / "b.jsonl", more)))
    assert recall_results(cli, "coffee")[0]["object"] == "coffee"
    metadata = (data_dir / "embeddings" / "metadata.jsonl").read_text().splitlines()
    assert len(metadata) == 6
    assert np.array_equal(
        sorted(json.loads(line)["vector_id"] for line in metadata),
        [json.loads(line)["vector_id"] for line in metadata],
    )  # written in the order of the vector ids
