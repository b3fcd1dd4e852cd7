"""The vector index itself: exact (flat) and calibrated IVF, with real FAISS."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from vm_memory_oracle.embed.hashing import HashEmbedder
from vm_memory_oracle.errors import IndexCorrupt
from vm_memory_oracle.semantic.vectors import FLAT, IVF, VectorIndex


def _vectors(count: int) -> tuple[np.ndarray, np.ndarray]:
    topics = ["tea", "violin lessons", "the Berlin office", "北京出差", "TLS renewal", "hiking"]
    texts = [f"fact {i} about {topics[i % len(topics)]} number {i % 97}" for i in range(count)]
    return np.arange(count, dtype=np.int64) * 11 + 5, HashEmbedder(384).embed_passages(texts)


@pytest.mark.parametrize("kind", [FLAT, IVF])
def test_each_kind_adds_finds_removes_and_reads_back_by_id(kind, tmp_path):
    ids, vectors = _vectors(3000)
    index = VectorIndex(384, kind=kind)
    index.add(ids, vectors)
    assert len(index) == 3000 and sorted(index.ids().tolist()) == sorted(ids.tolist())
    assert index.search(vectors[7], 1)[0][0] == ids[7]
    assert np.allclose(index.vectors(ids[3:5]), vectors[3:5], atol=1e-6)
    index.remove(ids[:100])
    assert len(index) == 2900 and ids[7] not in {found for found, _ in index.search(vectors[7], 5)}
    index.add(ids[:100], vectors[:100])  # in place, no rebuild
    assert index.search(vectors[7], 1)[0][0] == ids[7]

    (tmp_path / "index.bin").write_bytes(bytes(index.to_bytes()))
    loaded = VectorIndex.load(tmp_path / "index.bin", 384)
    assert loaded.kind == kind and len(loaded) == 3000 and loaded.nprobe == index.nprobe
    assert loaded.search(vectors[42], 1)[0][0] == ids[42]


@pytest.mark.parametrize("kind", [FLAT, IVF])
def test_many_queries_searched_at_once_find_what_each_finds_alone(kind):
    ids, vectors = _vectors(3000)
    index = VectorIndex(384, kind=kind)
    index.add(ids, vectors)
    queries = vectors[[3, 500, 2999]] + vectors[[40, 41, 42]]
    together = index.search_many(queries, 20)
    for query, found in zip(queries, together):
        alone = index.search(query, 20)
        assert [vector_id for vector_id, _ in found] == [vector_id for vector_id, _ in alone]
        assert np.allclose([score for _, score in found], [score for _, score in alone], atol=1e-5)
    assert VectorIndex(384).search_many(queries, 5) == [[], [], []]  # nothing to find


@pytest.mark.parametrize("mapped", [False, True])
def test_a_flat_index_finds_the_exact_nearest_ties_the_later_added_first_alone_or_among_many(
    mapped, tmp_path
):
    """A flat index's k nearest are the k best by exact score, of vectors of equal score
    the later added first, whether a query is asked alone or among many (which are scored
    by a matrix product first, then again one by one). The vectors here repeat 60
    directions, so most queries' k-th score is shared by several vectors beyond it."""
    import faiss

    rng = np.random.default_rng(0)
    directions = rng.standard_normal((60, 32)).astype(np.float32)
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    vectors = np.ascontiguousarray(directions[rng.integers(0, 60, 3000)])
    ids = np.arange(3000, dtype=np.int64) * 11 + 5
    index = VectorIndex(32)
    index.add(ids, vectors)
    if mapped:
        (tmp_path / "index.bin").write_bytes(bytes(index.to_bytes()))
        index = VectorIndex.load(tmp_path / "index.bin", 32, mapped=True)
    queries = rng.standard_normal((40, 32)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    every = faiss.IndexFlatIP(32)  # every vector's score, as FAISS scores it alone
    every.add(vectors)
    ties = 0
    for k in (10, 100):
        together = index.search_many(queries, k)
        for query, found in zip(queries, together):
            assert found == index.search(query, k)  # alone: the same, bit for bit
            scores, places = every.search(query.reshape(1, -1), 3000)
            order = np.lexsort((-places[0], -scores[0]))[:k]
            expected = [(int(ids[places[0][o]]), float(scores[0][o])) for o in order]
            assert [vector_id for vector_id, _ in found] == [vector_id for vector_id, _ in expected]
            assert [score for _, score in found] == [score for _, score in expected]
            ties += int(np.sum(scores[0] == scores[0][order[-1]]) > 1)
    assert ties >= 20  # the case the order of equal scores is for


@pytest.mark.parametrize("kind", [FLAT, IVF])
def test_a_mapped_index_finds_the_same_and_refuses_a_change(kind, tmp_path):
    """Mapped from its file, the index is read as searched; FAISS would abort the process
    on a change to it, so the change is refused with an error instead."""
    ids, vectors = _vectors(3000)
    index = VectorIndex(384, kind=kind)
    index.add(ids, vectors)
    (tmp_path / "index.bin").write_bytes(bytes(index.to_bytes()))
    mapped = VectorIndex.load(tmp_path / "index.bin", 384, mapped=True)
    assert mapped.mapped and mapped.kind == kind and len(mapped) == 3000
    assert mapped.search(vectors[42], 10) == index.search(vectors[42], 10)
    assert np.allclose(mapped.vectors(ids[3:5]), vectors[3:5], atol=1e-6)
    with pytest.raises(RuntimeError, match="read only"):
        mapped.add(ids[:1] + 1, vectors[:1])
    with pytest.raises(RuntimeError, match="read only"):
        mapped.remove(ids[:1])
    assert len(mapped) == 3000
    data = (tmp_path / "index.bin").read_bytes()
    (tmp_path / "index.bin").write_bytes(data[: len(data) // 2])
    with pytest.raises(IndexCorrupt):  # a file cut short is refused, not read past its end
        VectorIndex.load(tmp_path / "index.bin", 384, mapped=True)


def _resident_kb(path) -> int:
    """How much of the file at `path` this process holds mapped and resident (smaps)."""
    import os

    inode, total, current = str(os.stat(path).st_ino), 0, False
    with open("/proc/self/smaps", encoding="ascii", errors="replace") as smaps:
        for line in smaps:
            fields = line.split()
            if "-" in fields[0] and len(fields) >= 5:  # a mapping's own line
                current = fields[4] == inode
            elif current and fields[0] == "Rss:":
                total += int(fields[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs /proc/self/smaps")
def test_a_large_mapped_ivf_index_lets_the_pages_it_read_go_and_finds_the_same(
    tmp_path, monkeypatch
):
    """Queries of a mapped IVF index larger than PAGES_HELD are searched a few at a time,
    and the file's pages they read leave the process after each few: what the process
    holds of the file stays within about PAGES_HELD however many queries are asked, and
    each query finds what it finds alone."""
    from vm_memory_oracle.semantic import vectors as vectors_module

    ids, vectors = _vectors(6000)
    index = VectorIndex(384, kind=IVF)
    index.add(ids, vectors)
    (tmp_path / "index.bin").write_bytes(bytes(index.to_bytes()))
    size = (tmp_path / "index.bin").stat().st_size
    queries = vectors[::50] + vectors[7::50]  # 120 queries, between facts
    whole = VectorIndex.load(tmp_path / "index.bin", 384, mapped=True)
    expected = whole.search_many(queries, 20)  # the file is under PAGES_HELD: all at once
    assert _resident_kb(tmp_path / "index.bin") > size // 1024 // 2  # read, and still held
    del whole

    monkeypatch.setattr(vectors_module, "PAGES_HELD", size // 20)
    mapped = VectorIndex.load(tmp_path / "index.bin", 384, mapped=True)
    step = mapped._queries_per_release()
    assert step is not None and step < len(queries)
    assert mapped.search_many(queries, 20) == expected
    assert _resident_kb(tmp_path / "index.bin") < size // 1024 // 10
    assert mapped.search(queries[3], 20) == expected[3]


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs /proc/self/smaps")
def test_the_ids_of_a_mapped_ivf_index_are_read_and_its_pages_let_go(tmp_path):
    """A list's ids lie after its vectors in the file: reading every list's ids maps pages
    of all of them, which leave the process once the ids are read."""
    ids, vectors = _vectors(6000)
    index = VectorIndex(384, kind=IVF)
    index.add(ids, vectors)
    (tmp_path / "index.bin").write_bytes(bytes(index.to_bytes()))
    size = (tmp_path / "index.bin").stat().st_size
    mapped = VectorIndex.load(tmp_path / "index.bin", 384, mapped=True)
    assert np.array_equal(np.sort(mapped.ids()), np.sort(index.ids()))
    assert np.array_equal(np.sort(mapped.ids()), np.sort(np.asarray(ids, dtype=np.int64)))
    assert _resident_kb(tmp_path / "index.bin") < size // 1024 // 10
    assert mapped.search(vectors[42], 10) == index.search(vectors[42], 10)


def test_the_ivf_index_is_calibrated_to_agree_with_exact_search():
    ids, vectors = _vectors(5000)
    index = VectorIndex(384, kind=IVF)
    index.add(ids, vectors)
    assert index.measured_recall is not None and index.measured_recall >= 0.98
    assert 1 <= index.nprobe <= index._index.nlist
    exact = VectorIndex(384, kind=FLAT)
    exact.add(ids, vectors)
    rng = np.random.default_rng(1)
    agree = []
    for a, b in rng.integers(0, 5000, size=(100, 2)):
        query = vectors[a] + vectors[b]
        query /= np.linalg.norm(query)
        tenth = exact.search(query, 10)[-1][1]
        agree += [score >= tenth - 1e-5 for _, score in index.search(query, 10)]
    assert np.mean(agree) >= 0.98


def test_the_ivf_index_agrees_with_exact_search_as_deep_as_recall_reads_it():
    """Recall fuses the index's 100 nearest: the calibration checks that depth too. In a
    memory of many restatements (250 groups of 20 near-duplicates around one shared
    direction, as a sentence model places them), the top 10 of a query between two facts
    lie in two groups and agree with exact search at a few lists scanned, while the top
    100 reach across many groups (at the lists the top 10 alone called for, they agreed
    on about 75% of hits)."""
    count, dimension = 5000, 384
    rng = np.random.default_rng(7)
    shared = rng.standard_normal(dimension)
    shared /= np.linalg.norm(shared)
    centres = rng.standard_normal((count // 20, dimension))
    centres = 2.0 * shared + centres / np.linalg.norm(centres, axis=1, keepdims=True)
    noise = rng.standard_normal((count, dimension))
    vectors = centres[np.arange(count) // 20] + 0.3 * noise / np.linalg.norm(
        noise, axis=1, keepdims=True
    )
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    ids = np.arange(count, dtype=np.int64)
    index = VectorIndex(dimension, kind=IVF)
    index.add(ids, vectors)
    assert index.measured_recall is not None and index.measured_recall >= 0.98
    pairs = np.random.default_rng(3).integers(0, count, size=(100, 2))  # not the calibration's
    for depth in (10, 100):
        agree = []
        for a, b in pairs:
            query = vectors[a] + vectors[b]
            query /= np.linalg.norm(query)
            last = np.sort(vectors @ query)[-depth]
            agree += [score >= last - 1e-5 for _, score in index.search(query, depth)]
        assert np.mean(agree) >= 0.98, depth


@pytest.mark.parametrize("kind", [FLAT, IVF])
def test_an_index_added_a_block_at_a_time_is_the_index_added_whole(kind, monkeypatch):
    """add_rows asks for the rows a block at a time (never all at once: the IVF training
    sample and each calibration block are fewer) and makes the same index as add() of them
    all: the same IVF centroids, nprobe and calibration, the same hits."""
    from vm_memory_oracle.semantic import vectors as module

    monkeypatch.setattr(module, "CALIBRATION_BLOCK", 1000)
    ids, vectors = _vectors(5000)
    whole = VectorIndex(384, kind=kind)
    whole.add(ids, vectors)
    asked: list[int] = []

    def rows(numbers):
        asked.append(len(numbers))
        return vectors[numbers]

    blocks = VectorIndex(384, kind=kind)
    blocks.add_rows(ids, rows, block=700)
    assert max(asked) < 5000 and asked.count(700) == 5000 // 700
    assert blocks.nprobe == whole.nprobe and blocks.measured_recall == whole.measured_recall
    queries = vectors[:40] + vectors[40:80]
    assert blocks.search_many(queries, 10) == whole.search_many(queries, 10)
    assert bytes(blocks.to_bytes()) == bytes(whole.to_bytes())


def test_an_empty_ivf_index_saves_as_an_empty_flat_one(tmp_path):
    (tmp_path / "index.bin").write_bytes(bytes(VectorIndex(384, kind=IVF).to_bytes()))
    assert len(VectorIndex.load(tmp_path / "index.bin", 384)) == 0


def test_a_truncated_ivf_file_is_refused_as_corrupt(tmp_path):
    ids, vectors = _vectors(2000)
    index = VectorIndex(384, kind=IVF)
    index.add(ids, vectors)
    data = bytes(index.to_bytes())
    (tmp_path / "index.bin").write_bytes(data[: len(data) // 2])
    with pytest.raises(IndexCorrupt):
        VectorIndex.load(tmp_path / "index.bin", 384)


def test_the_combined_rows_of_many_facts_equal_each_fact_s_combined_vector(tmp_path):
    from vm_memory_oracle.semantic.cache import EmbeddingCache, content_hash

    rng = np.random.default_rng(3)
    texts = [f"text {i}" for i in range(40)]
    cache = EmbeddingCache(
        tmp_path / "cache.npz",
        16,
        {content_hash(text): rng.normal(size=16).astype(np.float32) for text in texts},
    )
    groups = [tuple(texts[i : i + size]) for i, size in zip(range(0, 40, 4), [1, 2, 3, 2] * 3)]
    rows = cache.combined_rows(groups)
    assert rows.dtype == np.float32
    assert (rows == np.vstack([cache.combined(group) for group in groups])).all()
    assert cache.combined_rows([]).shape == (0, 16)


def test_metadata_lines_are_what_dumps_record_writes_and_refuse_what_is_not_plain():
    from vm_memory_oracle.errors import InvalidInputError
    from vm_memory_oracle.semantic.index import metadata_lines
    from vm_memory_oracle.storage.files import dumps_record

    records = [
        {
            "vector_id": number * 7919,
            "fact_id": f"fact-00000000-0000-5000-8000-{number:012x}",
            "model_id": "hash-ngram-v1-512+r2",
            "dimension": 512,
            "content_hash": f"{number:016x}",
        }
        for number in range(50)
    ]
    assert metadata_lines(records, "embeddings/metadata.jsonl") == [
        dumps_record(record) for record in records
    ]
    assert metadata_lines([], "embeddings/metadata.jsonl") == []
    for change in (
        {"fact_id": 'fact-"quoted"'},
        {"content_hash": "A\\B"},
        {"vector_id": -1},
        {"vector_id": True},
        {"dimension": 384},
    ):
        bad = [records[0], {**records[1], **change}]
        with pytest.raises(InvalidInputError, match="refusing to write an invalid"):
            metadata_lines(bad, "embeddings/metadata.jsonl")
    with pytest.raises(InvalidInputError, match="refusing to write an invalid"):
        metadata_lines([{**records[0], "dimension": "512"}], "embeddings/metadata.jsonl")


def test_the_embedding_cache_writes_few_new_vectors_beside_the_whole_file(tmp_path):
    """A save of a few vectors the whole file lacks writes only the recent file; both are
    read back; past a tenth of the cache (or 256) the whole file is written again and the
    recent one removed; a damaged recent file costs only its own vectors."""
    from vm_memory_oracle.data_directory import initialize
    from vm_memory_oracle.semantic import cache as module
    from vm_memory_oracle.semantic.cache import EmbeddingCache
    from vm_memory_oracle.storage.layout import Layout
    from vm_memory_oracle.storage.store import Store

    layout = Layout(tmp_path / "memory")
    initialize(layout)
    store = Store(layout, lock_timeout=5, timestamp="2026-05-15T00:00:00Z")
    whole, recent = layout.embedding_cache("m"), layout.recent_embeddings("m")
    rng = np.random.default_rng(0)

    def vectors(names):
        return rng.normal(size=(len(names), 4)).astype(np.float32)

    first = [f"text {n}" for n in range(3000)]
    cache = EmbeddingCache.load(whole, 4, recent)
    made = vectors(first)
    cache.add(first, made)
    cache.save(store)
    assert whole.exists() and not recent.exists()  # nothing to add to: written whole
    whole_bytes = whole.read_bytes()

    cache = EmbeddingCache.load(whole, 4, recent)
    cache.add(["one more"], vectors(["one more"]))
    cache.save(store)
    assert whole.read_bytes() == whole_bytes and recent.exists()
    again = EmbeddingCache.load(whole, 4, recent)
    assert again.problem is None
    assert all(module.content_hash(text) in again for text in [*first, "one more"])
    assert np.array_equal(again.vector(module.content_hash("text 7")), made[7])

    more = [f"later {n}" for n in range(300)]  # 301 > max(256, 3000 // 10): a part
    again_made = vectors(more)
    again.add(more, again_made)
    again.save(store)
    parts = module.part_paths(whole)
    assert not recent.exists() and whole.read_bytes() == whole_bytes
    assert [part.name for part in parts] == ["cache-m.part-1.npz"]
    read = EmbeddingCache.load(whole, 4, recent)
    assert all(module.content_hash(text) in read for text in [*first, *more, "one more"])
    assert np.array_equal(read.vector(module.content_hash("later 7")), again_made[7])

    read.add(["last"], vectors(["last"]))
    read.save(store)
    recent.write_bytes(recent.read_bytes()[:50])  # cut short
    damaged = EmbeddingCache.load(whole, 4, recent)
    assert damaged.problem is not None and module.content_hash("last") not in damaged
    assert module.content_hash("later 3") in damaged  # the whole file still serves
    damaged.add(["last"], vectors(["last"]))
    damaged.save(store)  # a damaged file is mended by writing everything whole
    assert not recent.exists() and not module.part_paths(whole)
    mended = EmbeddingCache.load(whole, 4, recent)
    assert mended.problem is None
    assert all(module.content_hash(text) in mended for text in [*first, *more, "last"])
    assert np.array_equal(mended.vector(module.content_hash("later 7")), again_made[7])
    assert np.array_equal(mended.vector(module.content_hash("text 7")), made[7])


def test_a_build_s_vectors_go_to_parts_as_it_goes_and_many_parts_are_written_whole(
    tmp_path, monkeypatch
):
    """save() of many new vectors writes them as a part and holds them no more; past PART_MAX parts
    everything is written again as one whole file, read back the same; keep() drops the
    vectors it leaves out when that happens; a file replaced by another process after
    this one read its digests is read as it was."""
    from vm_memory_oracle.data_directory import initialize
    from vm_memory_oracle.semantic import cache as module
    from vm_memory_oracle.semantic.cache import EmbeddingCache, content_hash
    from vm_memory_oracle.storage.layout import Layout
    from vm_memory_oracle.storage.store import Store

    layout = Layout(tmp_path / "memory")
    initialize(layout)
    store = Store(layout, lock_timeout=5, timestamp="2026-05-15T00:00:00Z")
    whole, recent = layout.embedding_cache("m"), layout.recent_embeddings("m")
    monkeypatch.setattr(module, "RECENT_MAX", 10)  # 50 new vectors are many
    rng = np.random.default_rng(1)
    made: dict[str, np.ndarray] = {}
    cache = EmbeddingCache.load(whole, 6, recent)
    for batch in range(module.PART_MAX + 3):
        texts = [f"turn {batch}-{n}" for n in range(50)]
        matrix = rng.normal(size=(50, 6)).astype(np.float32)
        made.update(zip(texts, matrix))
        cache.add(texts, matrix)
        cache.save(store)
        assert not cache._added  # written, no longer held
        if batch == 0:
            assert whole.exists() and not module.part_paths(whole)
        elif batch <= module.PART_MAX:
            assert len(module.part_paths(whole)) == batch
    assert len(module.part_paths(whole)) == 1  # merged into the whole file once, then one
    read = EmbeddingCache.load(whole, 6, recent)
    texts = list(made)
    assert np.array_equal(
        read.vectors([content_hash(t) for t in texts]), np.vstack(list(made.values()))
    )
    opened = EmbeddingCache.load(whole, 6, recent)
    kept = texts[::2]
    read.keep({content_hash(t) for t in kept})
    assert content_hash(texts[1]) not in read and content_hash(texts[0]) in read
    read._write_whole(store)
    assert not module.part_paths(whole)
    with np.load(whole) as written:  # its digests each once, sorted, as 16 hex digits
        assert written["hashes"].dtype == np.dtype("<U16")
        assert written["hashes"].tolist() == sorted(content_hash(t) for t in kept)
    after = EmbeddingCache.load(whole, 6, recent)
    assert all(content_hash(t) in after for t in kept)
    assert not any(content_hash(t) in after for t in texts[1::2])
    assert np.array_equal(after.vector(content_hash(kept[5])), made[kept[5]])
    # read before the rewrite, its files since replaced or deleted: read as they were
    assert np.array_equal(opened.vector(content_hash(texts[1])), made[texts[1]])
    assert np.array_equal(opened.vector(content_hash(texts[-1])), made[texts[-1]])


@pytest.mark.parametrize("kind, count", [(FLAT, 3000), (IVF, 5000), (FLAT, 0)])
def test_an_index_written_piece_by_piece_is_its_serialization(kind, count):
    index = VectorIndex(16, kind=kind)
    if count:
        index.add(np.arange(count), np.random.default_rng(0).random((count, 16)))
    pieces: list[bytes] = []
    index.write_to(lambda piece: pieces.append(bytes(piece)))
    assert b"".join(pieces) == bytes(index.to_bytes())


def test_a_cache_whose_vectors_turn_out_damaged_embeds_those_texts_again(tmp_path):
    """The whole file's digests are read first and its vectors only when needed: a file
    damaged inside its vectors (its digests still read) says so when they are asked for,
    and its texts count as not cached."""
    from vm_memory_oracle.data_directory import initialize
    from vm_memory_oracle.semantic.cache import EmbeddingCache, content_hash
    from vm_memory_oracle.storage.layout import Layout
    from vm_memory_oracle.storage.store import Store

    layout = Layout(tmp_path / "memory")
    initialize(layout)
    store = Store(layout, lock_timeout=5, timestamp="2026-05-15T00:00:00Z")
    whole = layout.embedding_cache("m")
    texts = [f"text {n}" for n in range(400)]
    cache = EmbeddingCache(whole, 8, {})
    cache.add(texts, np.random.default_rng(0).normal(size=(400, 8)).astype(np.float32))
    cache.save(store)
    import zipfile

    with zipfile.ZipFile(whole) as archive:
        member = archive.getinfo("vectors.npy")
    data = bytearray(whole.read_bytes())
    # inside the vectors, past their header: the zip's CRC of them no longer matches
    data[member.header_offset + member.compress_size // 2] ^= 0xFF
    whole.write_bytes(bytes(data))

    damaged = EmbeddingCache.load(whole, 8, layout.recent_embeddings("m"))
    assert damaged.problem is None and content_hash("text 3") in damaged  # not read yet
    assert damaged.unreadable(["text 3", "new text"]) == ["text 3", "new text"]
    assert damaged.problem is not None and "CRC" in damaged.problem
    assert content_hash("text 3") not in damaged
