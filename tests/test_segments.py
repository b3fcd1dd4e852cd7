"""The facts' vector index in segments (semantic/segments.py): at most SEGMENT_MAX vectors a
file, a change reading and writing only the segments it touches, searched as one index."""

from __future__ import annotations

import numpy as np
import pytest
from vm_memory_oracle.semantic import segments
from vm_memory_oracle.semantic.segments import FactVectors
from vm_memory_oracle.semantic.vectors import PAGES_HELD, VectorIndex
from vm_memory_oracle.storage.layout import Layout

from conftest import hash_embedder, recall_results, write_jsonl

DIMENSION = 16


def unit_rows(count: int, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, DIMENSION)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture
def small(monkeypatch):
    monkeypatch.setattr(segments, "SEGMENT_MAX", 4)


def files_of(layout: Layout) -> dict[str, tuple]:
    return {
        path.name: (path.stat().st_ino, path.stat().st_mtime_ns, path.stat().st_size)
        for path in layout.index_segments()
    }


def change(
    vectors: FactVectors,
    table: dict,
    removed=(),
    added=(),
    *,
    layout: Layout | None = None,
    minimum: int = 20_000,
    order=None,
) -> None:
    """vectors.change with the rows of `table` (vector id -> vector), approximate_min_facts
    `minimum`; with `layout`, each segment written to its file and read back mapped, else
    held in memory."""

    def write(number: int, segment: VectorIndex) -> VectorIndex:
        assert layout is not None
        path = layout.index_segment(number)
        temporary = path.with_name(path.name + ".new")
        temporary.write_bytes(bytes(segment.to_bytes()))
        temporary.replace(path)  # another file, as the store writes it
        return VectorIndex.load(path, DIMENSION, mapped=True)

    vectors.change(
        np.array(removed, dtype=np.int64),
        np.array(added, dtype=np.int64),
        lambda ids: np.vstack([table[vid] for vid in ids.tolist()]),
        approximate_min_facts=minimum,
        write=write if layout is not None else None,
        order=order,
    )


def exact(table: dict, query: np.ndarray, k: int) -> list[int]:
    ids = list(table)
    scores = np.array([float(table[vid] @ query) for vid in ids])
    return [ids[number] for number in np.argsort(-scores, kind="stable")[:k]]


def test_segments_hold_at_most_segment_max_and_search_as_one_index(small, tmp_path):
    layout = Layout(tmp_path)
    layout.embeddings_dir.mkdir()
    rows = unit_rows(11)
    table = {100 + number: rows[number] for number in range(11)}
    vectors = FactVectors(DIMENSION)
    change(vectors, table, added=list(table), layout=layout)
    opened = FactVectors.open(layout, DIMENSION)
    assert [path.name for path in layout.index_segments()] == [
        "index.bin",
        "index-2.bin",
        "index-3.bin",
    ]
    assert [len(segment) for segment in opened.segments] == [4, 4, 3]
    assert opened.mapped and sorted(opened.ids().tolist()) == sorted(table)
    for query in unit_rows(5, seed=1):
        hits = opened.search(query, 6)
        assert [vid for vid, _ in hits] == exact(table, query, 6)
        assert [score for _, score in hits] == pytest.approx(
            [float(table[vid] @ query) for vid, _ in hits], abs=1e-5
        )
    assert opened.search_many(unit_rows(2, seed=2), 3) == [
        opened.search(query, 3) for query in unit_rows(2, seed=2)
    ]
    np.testing.assert_allclose(opened.vectors(np.array([109, 100])), rows[[9, 0]], atol=1e-6)
    with pytest.raises(KeyError):
        opened.vectors(np.array([7]))
    # the pages a search may leave are shared out, not each segment's whole allowance
    assert sum(segment.pages_held for segment in opened.segments) <= PAGES_HELD


def test_a_change_writes_only_the_segments_it_touches(small, tmp_path):
    layout = Layout(tmp_path)
    layout.embeddings_dir.mkdir()
    rows = unit_rows(13)
    table = {number: rows[number] for number in range(11)}
    vectors = FactVectors(DIMENSION)
    change(vectors, table, added=list(table), layout=layout)
    before = files_of(layout)
    change(vectors, table, removed=[5], layout=layout)  # in the second segment
    after = files_of(layout)
    assert [name for name in before if after[name] != before[name]] == ["index-2.bin"]
    del table[5]
    table.update({11: rows[11], 12: rows[12]})
    before = after
    change(vectors, table, added=[11, 12], layout=layout)  # one fills the last, one starts another
    after = files_of(layout)
    assert [name for name in after if after.get(name) != before.get(name)] == [
        "index-3.bin",
        "index-4.bin",
    ]
    opened = FactVectors.open(layout, DIMENSION)
    assert [sorted(segment.ids().tolist()) for segment in opened.segments] == [
        [0, 1, 2, 3],
        [4, 6, 7],
        [8, 9, 10, 11],
        [12],
    ]
    query = unit_rows(1, seed=3)[0]
    assert [vid for vid, _ in opened.search(query, 13)] == exact(table, query, 13)


def test_of_equal_scores_the_later_segment_comes_first(small, tmp_path):
    layout = Layout(tmp_path)
    layout.embeddings_dir.mkdir()
    row = unit_rows(1)[0]
    table = {vid: row for vid in range(6)}  # one vector six times: every score tied
    vectors = FactVectors(DIMENSION)
    change(vectors, table, added=list(table), layout=layout)
    one = VectorIndex(DIMENSION)
    one.add(np.arange(6, dtype=np.int64), np.vstack([row] * 6))
    expected = [vid for vid, _ in one.search(row, 6)]  # a flat index: the later added first
    assert expected == [5, 4, 3, 2, 1, 0]
    assert [vid for vid, _ in FactVectors.open(layout, DIMENSION).search(row, 6)] == expected


def test_a_segment_whose_count_calls_for_ivf_is_made_again_as_ivf(monkeypatch, tmp_path):
    monkeypatch.setattr(segments, "SEGMENT_MAX", 64)
    layout = Layout(tmp_path)
    layout.embeddings_dir.mkdir()
    rows = unit_rows(100)
    table = {number: rows[number] for number in range(100)}

    vectors = FactVectors(DIMENSION)
    change(vectors, table, added=range(30), minimum=40)
    assert [segment.kind for segment in vectors.segments] == ["flat"]
    # the first fills to 64 (IVF), the rest make a flat second
    change(vectors, table, added=range(30, 100), minimum=40)
    assert [(segment.kind, len(segment)) for segment in vectors.segments] == [
        ("ivf", 64),
        ("flat", 36),
    ]
    assert vectors.kind == "ivf" and vectors.measured_recall is not None


def remember(cli, tmp_path, count: int, name: str) -> None:
    records = [
        {
            "subject": "user",
            "predicate": "visited",
            "object": f"town {number}",
            "text": f"the user visited the town of Veldhoven number {number} on a bicycle",
        }
        for number in range(count)
    ]
    path = write_jsonl(tmp_path / name, records)
    assert cli("--action", "remember", "--from", str(path)).code == 0


def test_a_memory_larger_than_a_segment_recalls_as_with_one(
    cli, tmp_path, data_dir, small, monkeypatch
):
    hash_embedder(cli)
    remember(cli, tmp_path, 10, "a.jsonl")
    queries = ["town 7 bicycle", "Veldhoven", "number 3"]
    found = [recall_results(cli, query) for query in queries]
    layout = Layout(data_dir)
    assert [path.name for path in layout.index_segments()] == [
        "index.bin",
        "index-2.bin",
        "index-3.bin",
    ]
    assert cli("--json", "--action", "health-check").json()["problems"] == []
    # a segment lost: the index is made again, and finds the same
    (layout.embeddings_dir / "index-2.bin").unlink()
    first = cli("--json", "--action", "recall", "--query", queries[0], "--no-boost")
    assert "vector index rebuilt: embeddings/index-2.bin: missing" in first.err
    assert [first.json()["results"]] + [recall_results(cli, q) for q in queries[1:]] == found
    # one segment of them all (a memory below the segment size) finds the same
    monkeypatch.setattr(segments, "SEGMENT_MAX", 1_000)
    rebuilt = cli("--json", "--action", "reindex")
    assert rebuilt.code == 0, rebuilt.err
    assert [path.name for path in layout.index_segments()] == ["index.bin"]
    assert [recall_results(cli, query) for query in queries] == found


def test_an_index_of_more_than_a_segment_is_made_again_in_segments(
    cli, tmp_path, data_dir, monkeypatch
):
    hash_embedder(cli)
    remember(cli, tmp_path, 10, "a.jsonl")
    recall_results(cli, "bicycle")  # one index.bin of the ten, as indexes were made before
    layout = Layout(data_dir)
    assert [path.name for path in layout.index_segments()] == ["index.bin"]
    monkeypatch.setattr(segments, "SEGMENT_MAX", 4)
    remember(cli, tmp_path, 12, "b.jsonl")
    first = cli("--json", "--action", "recall", "--query", "bicycle", "--no-boost")
    assert (
        "vector index rebuilt: embeddings/index.bin holds 10 vectors, more than a "
        "segment's 4" in first.err
    )
    assert [path.name for path in layout.index_segments()] == [
        "index.bin",
        "index-2.bin",
        "index-3.bin",
    ]
    assert cli("--json", "--action", "health-check").json()["problems"] == []


def test_a_segment_made_again_as_the_other_kind_takes_its_vectors_in_the_facts_order(
    monkeypatch,
):
    monkeypatch.setattr(segments, "SEGMENT_MAX", 64)
    rows = unit_rows(50)
    table = {number: rows[number] for number in range(50)}  # ids in the facts' order

    in_order = lambda ids: np.sort(ids)  # noqa: E731  # the facts' order is the ids' here
    shrunk = FactVectors(DIMENSION)
    change(shrunk, table, added=range(50), minimum=40)
    assert shrunk.segments[0].kind == "ivf"
    assert shrunk.segments[0].ids().tolist() != list(range(50))  # held by group, not order
    # 35 left: a flat index again
    change(shrunk, table, removed=range(0, 30, 2), minimum=40, order=in_order)
    remaining = [vid for vid in range(50) if vid not in range(0, 30, 2)]
    assert shrunk.segments[0].kind == "flat"
    assert shrunk.segments[0].ids().tolist() == remaining
    built = FactVectors(DIMENSION)
    change(built, table, added=remaining, minimum=40)
    query = unit_rows(1, seed=4)[0]
    assert shrunk.search(query, 35) == built.search(query, 35)
    grown = FactVectors(DIMENSION)
    change(grown, table, added=range(30), minimum=40)
    # 50: IVF, as a build of the 50 is
    change(grown, table, added=range(30, 50), minimum=40, order=in_order)
    whole = FactVectors(DIMENSION)
    change(whole, table, added=range(50), minimum=40)
    assert bytes(grown.segments[0].to_bytes()) == bytes(whole.segments[0].to_bytes())
