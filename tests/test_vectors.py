"""The vector index itself: exact (flat) and calibrated IVF, with real FAISS."""

from __future__ import annotations

import numpy as np
import pytest
from vm_memory_oracle.embed.hashing import HashEmbedder
from vm_memory_oracle.semantic.vectors import FLAT, IVF, IndexCorrupt, VectorIndex


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
