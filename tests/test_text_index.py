"""The full-text index: real tantivy, kept in step with facts.jsonl, rebuilt when damaged."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import NOW, hash_embedder, write_jsonl

FACTS = [
    {"subject": subject, "predicate": predicate, "object": obj, "text": text}
    for subject, predicate, obj, text in (
        ("user", "drinks", "oolong tea", "the user drinks oolong tea"),
        ("user", "lives in", "Berlin", "the user lives in Berlin"),
        ("team", "chose", "PostgreSQL", "the team chose PostgreSQL for billing"),
        ("用户", "住在", "北京", "用户住在北京"),
        ("用户", "喜欢", "乌龙茶", "用户喜欢喝乌龙茶"),
    )
]
QUERIES = ["oolong tea", "which database for billing", "北京", "喝乌龙茶", "Berlin 北京"]


def _graph(data_dir: Path):
    from vm_memory_oracle.clock import parse_iso
    from vm_memory_oracle.config import Settings
    from vm_memory_oracle.memory import Memory

    at = parse_iso("2026-05-15T00:00:00Z")
    return Memory.open(data_dir, Settings(lock_timeout_seconds=5), now=at).graph()


def _remember(cli, tmp_path, facts, name="facts.jsonl"):
    result = cli("--action", "remember", "--from", str(write_jsonl(tmp_path / name, facts)))
    assert result.code == 0, result.err


def _recall(cli, query):
    result = cli("--json", "--action", "recall", "--query", query, "--no-boost")
    assert result.code == 0, result.err
    return result


def _lexical(result) -> list[str]:
    return [hit["text"] for hit in result.json()["results"] if "lexical" in hit["matched"]]


def test_the_index_finds_terms_deletes_by_id_and_reads_back_from_disk(tmp_path):
    from vm_memory_oracle.storage.text_index import TextIndex

    index = TextIndex.create(tmp_path / "text")
    index.write([], [(11, "oolong tea drink"), (12, "berlin live"), (13, "北 京 北京 live")])
    ids, scores = index.search(["oolong", "tea"], 10)
    assert ids.tolist() == [11] and scores[0] > 0
    assert index.search(["北京"], 10)[0].tolist() == [13]
    assert sorted(index.search(["live"], 10)[0].tolist()) == [12, 13]
    index.write([12], [(14, "live live berlin")])
    assert index.search(["berlin"], 10)[0].tolist() == [14]
    reopened = TextIndex.open(tmp_path / "text")  # a new process registers the tokenizer again
    assert len(reopened) == 3
    assert reopened.search(["live"], 10)[0].tolist()[0] == 14  # two occurrences rank first
    # Each write removes the files no commit uses any more: only the live segments' remain.
    segment_files = {path.name.split(".")[0] for path in (tmp_path / "text").glob("*.*")}
    assert segment_files - {"meta", ""} == _segments(tmp_path / "text")


def _segments(directory: Path) -> set[str]:
    """The segment ids meta.json uses (without dashes, as tantivy names their files)."""
    meta = json.loads((directory / "meta.json").read_text())
    return {segment["segment_id"].replace("-", "") for segment in meta["segments"]}


@pytest.mark.slow
def test_it_is_built_once_then_written_only_for_what_changed(cli, tmp_path, data_dir):
    from vm_memory_oracle.lexical import update_text_index
    from vm_memory_oracle.lexical.index import FIRST_BUILD

    hash_embedder(cli)
    _remember(cli, tmp_path, FACTS)
    _, first = update_text_index(_graph(data_dir))
    assert (first.documents, first.added, first.rebuilt, first.repaired) == (
        5,
        5,
        FIRST_BUILD,
        False,
    )
    directory = data_dir / "state/cache/text-index"
    files = {path.name: path.stat().st_mtime_ns for path in directory.iterdir()}
    _, again = update_text_index(_graph(data_dir))
    assert (again.documents, again.added, again.removed, again.rebuilt) == (5, 0, 0, None)
    assert {path.name: path.stat().st_mtime_ns for path in directory.iterdir()} == files

    # The same bytes under a new stat: in step by the content hash, nothing written.
    facts = data_dir / "knowledge-graph/facts.jsonl"
    facts.write_bytes(facts.read_bytes())
    _, touched = update_text_index(_graph(data_dir))
    assert (touched.added, touched.removed, touched.rebuilt) == (0, 0, None)
    assert {path.name: path.stat().st_mtime_ns for path in directory.iterdir()} == files

    _remember(cli, tmp_path, [{"subject": "user", "predicate": "plays", "object": "the violin",
                               "text": "the user plays the violin"}], "more.jsonl")  # fmt: skip
    _, added = update_text_index(_graph(data_dir))
    assert (added.documents, added.added, added.removed, added.rebuilt) == (6, 1, 0, None)
    moved = cli("--action", "remember", "--subject", "user", "--predicate", "lives in",
                "--object", "Munich", "--category", "identity")  # fmt: skip
    assert moved.code == 0, moved.err
    _, superseded = update_text_index(_graph(data_dir))
    assert (superseded.documents, superseded.added, superseded.removed) == (6, 1, 1)
    assert _lexical(_recall(cli, "Munich")) and not _lexical(_recall(cli, "Berlin"))


def test_chinese_and_mixed_queries_are_found_by_their_words(cli, tmp_path):
    hash_embedder(cli)
    _remember(cli, tmp_path, FACTS)
    assert _lexical(_recall(cli, "北京"))[0] == "用户住在北京"
    assert _lexical(_recall(cli, "喝乌龙茶"))[0] == "用户喜欢喝乌龙茶"
    assert set(_lexical(_recall(cli, "Berlin 北京"))[:2]) == {
        "the user lives in Berlin",
        "用户住在北京",
    }


def _damage(directory: Path, record: Path, how: str) -> str:
    """Damage the index as `how` says; the words the rebuild's reason must hold."""
    if how == "delete the index":
        shutil.rmtree(directory)
        return "state/cache/text-index is missing"
    if how == "delete its record":
        record.unlink()
        return "state/cache/text-index.npz is missing or unreadable"
    if how == "truncate a segment file":
        victim = max((path for path in directory.iterdir() if path.suffix == ".idx"),
                     key=lambda path: path.stat().st_size)  # fmt: skip
        victim.write_bytes(victim.read_bytes()[:5])
        return (
            f"state/cache/text-index has its file {victim.name} changed since it was "
            "written (5 bytes)"
        )
    if how == "garbage in meta.json":
        (directory / "meta.json").write_text("{garbage")
        return "state/cache/text-index has its file meta.json changed"
    if how == "a record of other documents":
        from vm_memory_oracle.lexical.index import _read_record, _record_bytes
        from vm_memory_oracle.storage.layout import Layout
        from vm_memory_oracle.storage.store import Store

        held = _read_record(Store(Layout(directory.parents[2]), lock_timeout=5, timestamp=NOW))
        assert held is not None
        held.vids, held.digests = held.vids[:-1], held.digests[:-1]  # one document less
        record.write_bytes(_record_bytes(held))
        return "state/cache/text-index holds 5 documents where 4 were written"
    raise AssertionError(how)


@pytest.mark.slow
@pytest.mark.parametrize(
    "how",
    [
        "delete the index",
        "delete its record",
        "truncate a segment file",
        "garbage in meta.json",
        "a record of other documents",
    ],
)
def test_a_damaged_index_is_rebuilt_said_and_gives_the_same_results(cli, tmp_path, data_dir, how):
    hash_embedder(cli)
    _remember(cli, tmp_path, FACTS)
    before = [_recall(cli, query).json()["results"] for query in QUERIES]
    directory, record = data_dir / "state/cache/text-index", data_dir / "state/cache/text-index.npz"
    reason = _damage(directory, record, how)

    health = cli("--json", "--action", "health-check").json()  # told, not repaired
    assert health["status"] == "degraded"
    assert any(w.startswith(f"Lexical recall degraded: {reason}") for w in health["warnings"])

    first = _recall(cli, QUERIES[0])
    assert f"Warning: full-text index rebuilt: {reason}" in first.err
    assert any(reason in warning for warning in first.json()["warnings"])
    after = [first.json()["results"]] + [
        _recall(cli, query).json()["results"] for query in QUERIES[1:]
    ]
    assert after == before
    assert _recall(cli, QUERIES[0]).err == ""  # repaired once, quiet afterwards
    healthy = cli("--json", "--action", "health-check").json()
    assert healthy["text_index"] == {"documents": 5, "problem": None}
    assert any("full-text index" in repair["repair"] for repair in healthy["repairs"]), healthy[
        "repairs"
    ]


def test_health_check_repair_rebuilds_a_damaged_index(cli, tmp_path, data_dir):
    hash_embedder(cli)
    _remember(cli, tmp_path, FACTS)
    assert cli("--action", "consolidate").code == 0
    shutil.rmtree(data_dir / "state/cache/text-index")
    from vm_memory_oracle.check import check

    found = [(f.code, f.path) for f in check(data_dir)]
    assert found == [("index_mismatch", "state/cache/text-index")]
    assert [f.repaired for f in check(data_dir, fix=True)] == [True]
    assert check(data_dir) == []
    assert _recall(cli, QUERIES[0]).err == ""


@pytest.mark.slow
def test_without_tantivy_recall_says_it_ran_on_half_and_health_says_so(cli, tmp_path, data_dir):
    """A broken install (the package cannot be imported): recall still answers by exact and
    semantic matches, and says what is missing in its output and in health.json."""
    hash_embedder(cli)
    _remember(cli, tmp_path, FACTS)
    blocked = (
        "import sys; sys.modules['tantivy'] = None\n"
        "from vm_memory_oracle.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    skill = Path(__file__).resolve().parents[1] / "skill"

    def run(*args):
        return subprocess.run(
            [sys.executable, "-c", blocked, "--data-path", str(data_dir), "--now", NOW, *args],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(skill)},
            timeout=120,
        )

    result = run("--json", "--action", "recall", "--query", "the user drinks oolong tea")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert any(
        warning.startswith("lexical recall is off: the tantivy package cannot be imported")
        for warning in payload["warnings"]
    )
    assert "Warning: lexical recall is off" in result.stderr
    assert payload["results"][0]["text"] == "the user drinks oolong tea"  # the exact match
    assert all("lexical" not in hit["matched"] for hit in payload["results"])
    health = run("--json", "--action", "health-check")
    written = json.loads((data_dir / "health.json").read_text())
    assert health.returncode == 0 and written["status"] == "degraded"
    assert any(
        warning.startswith("Lexical recall degraded: the tantivy package cannot be imported")
        for warning in written["warnings"]
    )


def test_a_write_cut_short_is_built_again_without_calling_it_damage(cli, tmp_path, data_dir):
    """A write empties the record first; an empty record is a write that was cut short,
    which the interrupted command reported: the next one builds the index, quietly."""
    hash_embedder(cli)
    _remember(cli, tmp_path, FACTS)
    before = _recall(cli, QUERIES[0]).json()["results"]
    (data_dir / "state/cache/text-index.npz").write_bytes(b"")
    assert cli("--json", "--action", "health-check").json()["text_index"]["problem"] is None
    after = _recall(cli, QUERIES[0])
    assert after.err == "" and after.json()["results"] == before
    assert cli("--json", "--action", "health-check").json()["repairs"] == []


def test_the_lexical_snapshot_of_appended_facts_is_extended_to_what_a_build_makes(
    cli, data_dir, tmp_path, monkeypatch
):
    """After a remember appends facts, the lexical snapshot is brought up to date from the
    previous one (only the new facts read) and equals a build from scratch; a rewrite of
    facts.jsonl (a supersession) or a snapshot of other bytes is built whole."""
    from vm_memory_oracle.lexical import snapshot as lexical_snapshot
    from vm_memory_oracle.storage import snapshot

    hash_embedder(cli)
    _remember(cli, tmp_path, FACTS[:3])
    _recall(cli, "oolong tea")
    built: list[int] = []
    real_build = lexical_snapshot.build_lexical_index

    def counted(facts):
        facts = list(facts)  # the facts may come as the pass reads them
        built.append(len(facts))
        return real_build(facts)

    monkeypatch.setattr(lexical_snapshot, "build_lexical_index", counted)

    def fresh_snapshot() -> lexical_snapshot.LexicalSnapshot:
        snapshot.forget_memory()  # as a new process: the snapshot on disk is what counts
        graph = _graph(data_dir)
        index = lexical_snapshot.lexical_index(graph)
        current = [fact for fact in graph.facts() if fact.current]
        assert dataclasses.replace(index, made_of=None) == real_build(current)
        return index

    _remember(cli, tmp_path, FACTS[3:], name="more.jsonl")
    index = fresh_snapshot()
    assert built == [2]  # only the two appended facts were read
    assert index.made_of is not None and index.made_of.records == 5
    assert [hit["text"] for hit in _recall(cli, "北京").json()["results"]][0] == "用户住在北京"

    built.clear()
    result = cli("--action", "remember", "--subject", "user", "--predicate", "lives in",
                 "--object", "Lisbon")  # fmt: skip
    assert result.code == 0, result.err  # supersedes Berlin: facts.jsonl is rewritten
    fresh_snapshot()
    assert built == [5]  # the five current facts, made whole

    built.clear()
    cache = data_dir / "state" / "cache" / "lexical-index.marshal"
    key, payload = snapshot.load_any(cache)
    payload[-1][2] = "0" * 128  # a snapshot of other bytes than the file's (made_of's digest)
    snapshot.forget_memory()
    snapshot.save(cache, (key[0], (key[1][0], 1, 1, 1)), payload)  # the same file, as it was
    _remember(cli, tmp_path, [{"subject": "user", "predicate": "owns", "object": "a kayak"}],
              name="kayak.jsonl")  # fmt: skip
    fresh_snapshot()
    assert built == [6]


def test_a_consolidation_with_nothing_new_tells_the_lexical_snapshot_in_step_unread(
    cli, data_dir, tmp_path, monkeypatch
):
    """A consolidation leaves the lexical snapshot in step for the next recall; when the
    one kept is (nothing new), its key alone tells so, and the snapshot is not read (at a
    million facts, 240 MB)."""
    from vm_memory_oracle.lexical import snapshot as lexical_snapshot
    from vm_memory_oracle.storage import snapshot

    hash_embedder(cli)
    _remember(cli, tmp_path, FACTS)
    for _ in range(2):  # the first may rewrite facts.jsonl (decay, merge)
        assert cli("--action", "consolidate").code == 0
    kept = lexical_snapshot._kept(_graph(data_dir))
    facts = data_dir / "knowledge-graph/facts.jsonl"
    before = snapshot.file_key(facts)
    snapshot.forget_memory()
    assert snapshot.key_of(kept.cache, streamed=True) == kept.key()
    read: list[Path] = []
    real = snapshot._stored

    def stored(path, **kwargs):
        read.append(Path(path))
        return real(path, **kwargs)

    monkeypatch.setattr(snapshot, "_stored", stored)
    assert cli("--action", "consolidate").code == 0
    assert snapshot.file_key(facts) == before  # nothing new: the facts were not written
    assert kept.cache not in read and read  # other states were read from their files
    snapshot.forget_memory()
    assert snapshot.key_of(kept.cache, streamed=True) == kept.key()
    assert [hit["text"] for hit in _recall(cli, "北京").json()["results"]][0] == "用户住在北京"
