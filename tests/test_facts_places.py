"""facts.jsonl read at the places of its records: recall's view holds where each record is,
not the records, and reads a fact from its line when asked; the places are kept in step by
the store's appends and rewrites, made again by a read of the file otherwise, and a file
with a line to set aside is read whole (which quarantines the line)."""

from __future__ import annotations

import dataclasses
import json
import os
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest
from vm_memory_oracle.config import Settings
from vm_memory_oracle.memory import Memory
from vm_memory_oracle.model.fact import vector_id
from vm_memory_oracle.storage import derived, facts_places, snapshot
from vm_memory_oracle.storage.facts_file import FactsById
from vm_memory_oracle.storage.facts_places import FactsAt, _kept, facts_at, is_current
from vm_memory_oracle.storage.layout import Layout

from conftest import hash_embedder

NOW = datetime(2026, 5, 15, 14, 30, tzinfo=timezone.utc)  # the cli fixture's


def opened(data_dir: Path) -> Memory:
    """The memory opened anew, as the next process would."""
    snapshot.forget_memory()
    return Memory.open(data_dir, Settings(embedding_model="hash"), now=NOW)


def remembered(cli, *triples: tuple[str, str, str]) -> None:
    for subject, predicate, said in triples:
        done = cli(
            "--json", "--action", "remember",
            "--subject", subject, "--predicate", predicate, "--object", said,
        )  # fmt: skip
        assert done.code == 0, done.err


def same_as_the_file(memory: Memory) -> FactsAt:
    """The view's facts, checked fact by fact against the file read whole (its records
    parsed, as a file with a line to set aside is read)."""
    store = memory.graph().store
    at = facts_at(store)
    assert isinstance(at, FactsAt)
    assert store.facts_by_id() is at  # what every command reads, the records not parsed
    whole = FactsById(store.read_records(store.layout.facts, "fact", unique_key="id"))
    assert isinstance(whole, FactsById)
    assert len(at) == len(whole)
    assert list(at) == list(whole)
    for fact_id in whole:
        assert at[fact_id] == whole[fact_id]
    return at


def places_held(memory: Memory) -> bool:
    kept = _kept(memory.graph().store)
    return kept.held(kept.key()) is not None


@pytest.fixture
def memory_of_facts(cli, data_dir: Path) -> Path:
    hash_embedder(cli)
    remembered(
        cli,
        ("user", "prefers", "oolong tea in the afternoon"),
        ("Bruno", "moved to", "the Porto office"),
        ("team", "decided", "to migrate the billing database to Postgres"),
    )
    return data_dir


def test_recall_reads_the_facts_at_their_places_and_holds_no_record(cli, memory_of_facts):
    done = cli("--json", "--action", "recall", "--query", "oolong tea", "--no-boost")
    assert done.code == 0, done.err
    assert "oolong" in done.json()["results"][0]["text"]
    memory = opened(memory_of_facts)
    view = memory.graph().live_view(NOW)
    assert isinstance(view.records, FactsAt)
    # Nothing of the records is read by making the view: the snapshot of records of the
    # file is not loaded, and no fact is made until one is asked for.
    assert (
        snapshot.load(
            memory.layout().snapshot_for(memory.layout().facts),
            snapshot.file_key(memory.layout().facts),
            disk=False,
        )
        is None
    )
    assert not view.records._made
    at = same_as_the_file(memory)
    assert "fact-00000000-0000-5000-8000-000000000000" not in at
    assert "not a fact id" not in at
    with pytest.raises(KeyError):
        at["fact-00000000-0000-5000-8000-000000000000"]


def test_an_append_and_a_rewrite_keep_the_places_in_step_without_a_read(cli, memory_of_facts):
    assert cli("--action", "recall", "--query", "tea", "--no-boost").code == 0
    memory = opened(memory_of_facts)
    assert places_held(memory)
    remembered(cli, ("Dana", "lives in", "Lisbon"))  # an append
    memory = opened(memory_of_facts)
    assert places_held(memory)  # kept by the append itself, not made by a read
    at = same_as_the_file(memory)
    assert any(fact.object == "Lisbon" for fact in at.all())
    # lines of more bytes than characters: their places are counted in bytes
    remembered(cli, ("用户", "喜欢", "乌龙茶"), ("Zoë", "moved to", "São Paulo"))
    memory = opened(memory_of_facts)
    assert places_held(memory)
    at = same_as_the_file(memory)
    assert {"乌龙茶", "São Paulo"} <= {fact.object for fact in at.all()}
    tea = next(fact for fact in at.all() if "oolong" in fact.object)
    assert cli("--json", "--action", "pin", "--id", tea.id).code == 0  # a rewrite
    memory = opened(memory_of_facts)
    assert places_held(memory)
    assert same_as_the_file(memory)[tea.id].pinned


def test_a_file_changed_by_hand_has_its_places_made_again(cli, memory_of_facts):
    assert cli("--action", "recall", "--query", "tea", "--no-boost").code == 0
    path = memory_of_facts / "knowledge-graph" / "facts.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n\n".join(reversed(lines)) + "\n", encoding="utf-8")  # blank lines too
    memory = opened(memory_of_facts)
    assert not places_held(memory)
    same_as_the_file(memory)
    assert places_held(memory)


def test_whether_a_fact_is_current_is_told_by_its_place_without_reading_it(cli, memory_of_facts):
    """is_current answers from the places: a line this tool wrote is known for the fact's
    own by its first bytes, and nothing is read or made of it. A line whose keys a hand put
    in another order is read whole to be sure, and answers the same."""
    remembered(cli, ("user", "lives in", "Berlin"), ("user", "lives in", "Lisbon"))
    path = memory_of_facts / "knowledge-graph" / "facts.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    reordered = dict(reversed(list(records[2].items())))  # the billing fact, id last
    lines = [json.dumps(record, ensure_ascii=False, separators=(",", ":")) for record in records]
    lines[2] = json.dumps(reordered, ensure_ascii=False, separators=(",", ":"))
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    at = same_as_the_file(opened(memory_of_facts))
    expected = {record["id"]: "superseded_by" not in record for record in records}
    assert sorted(expected.values()) == [False, True, True, True, True]  # Berlin superseded

    fresh = facts_at(opened(memory_of_facts).graph().store)
    assert isinstance(fresh, FactsAt)
    for fact_id, current in expected.items():
        assert fresh.is_current(fact_id) is current and at[fact_id].current is current
    assert set(fresh._made) == {2}  # only the reordered line was read
    assert fresh.is_current("fact-00000000-0000-5000-8000-000000000000") is None
    assert is_current(dict(at.items()), records[0]["id"]) is True  # any mapping of facts
    assert is_current({}, records[0]["id"]) is None


def test_a_line_to_set_aside_is_quarantined_by_the_whole_read(cli, memory_of_facts):
    path = memory_of_facts / "knowledge-graph" / "facts.jsonl"
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(first) + "\n")  # the same id twice
        handle.write('{"id": "fact-torn\n')
    memory = opened(memory_of_facts)
    assert facts_at(memory.graph().store) is None
    done = cli("--json", "--action", "recall", "--query", "oolong tea", "--no-boost")
    assert done.code == 0, done.err
    assert "oolong" in done.json()["results"][0]["text"]
    assert len(path.read_text(encoding="utf-8").splitlines()) == 3  # both lines set aside
    memory = opened(memory_of_facts)
    assert isinstance(memory.graph().live_view(NOW).records, FactsAt)
    same_as_the_file(memory)


def test_a_view_reads_the_file_it_was_made_of_when_it_is_replaced(cli, memory_of_facts):
    memory = opened(memory_of_facts)
    at = facts_at(memory.graph().store)
    assert isinstance(at, FactsAt)
    before = {fact_id: at.fact(at.number(fact_id)).object for fact_id in list(at)}
    at._made.clear()
    path = memory_of_facts / "knowledge-graph" / "facts.jsonl"
    replacement = path.with_name("facts.jsonl.new")
    replacement.write_text(path.read_text(encoding="utf-8").replace("Porto", "Braga"))
    os.replace(replacement, path)
    assert {fact_id: at[fact_id].object for fact_id in before} == before
    assert any("Braga" in fact.object for fact in opened(memory_of_facts).graph().facts())


@pytest.mark.parametrize("block", [65_536, 2])
def test_the_current_facts_a_snapshot_does_not_hold_are_found_by_vector_id(
    cli, memory_of_facts, monkeypatch, block
):
    """Found by vector id, a block of records at a time (of two, among three records)."""
    monkeypatch.setattr(facts_places, "OUTSIDE_BLOCK", block)
    memory = opened(memory_of_facts)
    at = facts_at(memory.graph().store)
    assert isinstance(at, FactsAt)
    ids = list(at)
    assert at.current_outside(np.sort(at.vids)) == []
    held = np.sort(at.vids[1:])
    assert at.current_outside(held) == [ids[0]]
    assert at.current_outside(np.sort(at.vids[[0, 2]])) == [ids[1]]
    assert at.current_outside(np.zeros(0, dtype=np.uint64)) == ids
    asked = [ids[2], "fact-00000000-0000-5000-8000-000000000000"]
    vids = np.array([vector_id(fact_id) for fact_id in asked], dtype=np.uint64)
    assert at.held(asked, vids) == {ids[2]}
    # A vector id matching a fact of the file is not enough: the id must be the fact's.
    assert at.held(["fact-00000000-0000-5000-8000-000000000000"], vids[:1]) == set()


def test_the_places_are_a_derived_state_of_their_own_layout(cli, memory_of_facts):
    memory = opened(memory_of_facts)
    kept = _kept(memory.graph().store)
    assert kept.cache == memory.layout().facts_places_cache
    assert isinstance(kept, derived.Derived)


def test_a_process_keeps_one_view_of_a_file_while_it_is_unchanged(cli, memory_of_facts):
    memory = opened(memory_of_facts)
    store = memory.graph().store
    first = facts_at(store)
    assert isinstance(first, FactsAt)
    tea = next(fact for fact in first.all() if "oolong" in fact.object)
    assert facts_at(store) is first  # the facts it read are read again from it
    remembered(cli, ("Dana", "lives in", "Lisbon"))
    later = facts_at(store)
    assert isinstance(later, FactsAt) and later is not first
    assert later[tea.id] == tea
    assert any(fact.object == "Lisbon" for fact in later.all())
    assert not any(fact.object == "Lisbon" for fact in first.all())  # as it was opened


def test_every_fact_is_read_a_piece_of_the_file_at_a_time_and_kept(
    cli, memory_of_facts, monkeypatch
):
    from vm_memory_oracle.storage import files

    remembered(cli, *[("user", "visited", f"city {i}") for i in range(40)])
    monkeypatch.setattr(files, "LINES_PIECE", 300)  # a few lines a piece
    memory = opened(memory_of_facts)
    at = facts_at(memory.graph().store)
    assert isinstance(at, FactsAt)
    asked = at.fact(5)  # made before: kept, not made again
    facts = at.all()
    assert len(facts) == 43 and facts[5] is asked
    whole = FactsById(
        memory.graph().store.read_records(memory.layout().facts, "fact", unique_key="id")
    )
    assert facts == whole.all()
    assert [fact.to_record() for fact in facts] == [fact.to_record() for fact in whole.all()]
    # what repeats from fact to fact is one object, not one each as JSON parses it
    visits = [fact for fact in facts if fact.object.startswith("city ")]
    assert len(visits) == 40
    for name in ("subject", "predicate", "source", "provenance", "_keys"):
        assert len({id(getattr(fact, name)) for fact in visits}) == 1, name
    again = at.all()
    assert again == facts and all(a is b for a, b in zip(again, facts))
    assert at[facts[7].id] is facts[7] and at.fact(9) is facts[9]


def test_commands_hold_no_record_of_the_facts_and_a_write_keeps_the_facts_it_wrote(
    cli, memory_of_facts
):
    """Every command reads facts.jsonl at its places: its records are never held, in the
    process or on disk (parsed, a million facts' records held 3.4 GB), and a write leaves
    the facts it wrote held for the next read of every fact."""
    layout = Layout(memory_of_facts)
    cache = layout.snapshot_for(layout.facts)
    snapshot.forget_memory()
    for action in (
        ("--action", "recall", "--query", "tea"),
        ("--action", "consolidate"),
        ("--action", "health-check"),
        ("--action", "remember", "--subject", "Dana", "--predicate", "lives in",
         "--object", "Lisbon"),
    ):  # fmt: skip
        done = cli("--json", *action)
        assert done.code == 0, (action, done.err)
        assert snapshot.load(cache, snapshot.file_key(layout.facts), disk=False) is None, action
        assert not cache.exists(), action
    store = opened(memory_of_facts).graph().store
    facts = store.read_facts()
    tea = next(fact for fact in facts if "oolong" in fact.object)
    with store.locked("test"):
        store.rewrite_facts([fact.changed(pinned=True) if fact is tea else fact for fact in facts])
    held = store.read_facts()
    assert [fact.id for fact in held] == [fact.id for fact in facts]
    assert all(a is b for a, b in zip(held, facts) if a.id != tea.id)  # none made again
    assert held[facts.index(tea)].pinned


def test_the_lengths_of_lines_are_counted_in_bytes():
    from vm_memory_oracle.storage.facts_places import byte_length

    lines = ["plain", "乌龙茶", "São Paulo", ""]
    assert [byte_length(line) for line in lines] == [len(line.encode("utf-8")) for line in lines]
    assert [byte_length(line) for line in lines] == [5, 9, 10, 0]


def test_a_large_file_is_passed_through_a_block_at_a_time_and_not_held(
    cli, memory_of_facts, monkeypatch
):
    """The passes that go through every fact (the indexes' builds) read a file of more than
    PASSING_MIN records a block of PASSING_BLOCK at a time, and keep none: the facts equal
    those the whole read makes, a fact looked up before is the one made then, and once
    every fact is held the passes use those. A smaller file's facts are read once and kept."""
    from vm_memory_oracle.storage.facts_places import FactsPassing, held_facts

    remembered(cli, *[("user", "visited", f"city {i}") for i in range(40)])
    store = opened(memory_of_facts).graph().store
    assert isinstance(store.facts_passing(), list) and held_facts(store) is not None

    monkeypatch.setattr(facts_places, "PASSING_MIN", 10)
    monkeypatch.setattr(facts_places, "PASSING_BLOCK", 7)
    store = opened(memory_of_facts).graph().store
    at = facts_at(store)
    assert isinstance(at, FactsAt)
    asked = at.fact(9)
    passing = store.facts_passing()
    assert isinstance(passing, FactsPassing) and len(passing) == 43
    whole = FactsById(store.read_records(store.layout.facts, "fact", unique_key="id")).all()
    assert list(passing) == whole
    assert passing[9] is asked
    assert passing[-1] == whole[-1] and passing[5:16] == whole[5:16]
    assert [passing[number] for number in (40, 2, 41, 8)] == [whole[n] for n in (40, 2, 41, 8)]
    with pytest.raises(IndexError):
        passing[43]
    assert held_facts(store) is None  # nothing was kept
    facts = at.all()
    held = store.facts_passing()
    assert held == whole and all(a is b for a, b in zip(held, facts))


def test_indexes_built_of_facts_read_as_they_go_are_those_built_of_facts_held(
    cli, memory_of_facts, tmp_path, monkeypatch
):
    """A first recall of a large file reads its facts as each pass goes (the vectors' texts
    embedded a block at a time, the full-text documents, the lexical snapshot's columns a
    block at a time): it finds what a recall of the facts held finds, and writes the same
    vector index, metadata and lexical snapshot."""
    import shutil

    from vm_memory_oracle.lexical import snapshot as lexical_snapshot
    from vm_memory_oracle.semantic import index as semantic_index
    from vm_memory_oracle.semantic import wanted

    remembered(
        cli,
        *[(f"person {i % 6}", "visited", f"city {i} in spring") for i in range(30)],
        ("user", "name", "Priya Raman"),
        ("user", "lives in", "Berlin"),
        ("user", "lives in", "Lisbon"),
        ("Dana", "said", "person 3 visited city 12 in spring"),
    )
    copy = tmp_path / "copy"
    shutil.copytree(memory_of_facts, copy)
    store = opened(memory_of_facts).graph().store
    assert not all(fact.current for fact in store.read_facts())  # Berlin was superseded
    queries = ("city 12", "where does Priya live", "person 3 spring")
    snapshot.forget_memory()
    held = [cli("--json", "--action", "recall", "--query", query) for query in queries]

    monkeypatch.setattr(facts_places, "PASSING_MIN", 10)
    monkeypatch.setattr(facts_places, "PASSING_BLOCK", 7)
    monkeypatch.setattr(semantic_index, "EMBEDDED_PLACES", 5)
    monkeypatch.setattr(wanted, "TEXTS_HELD", 4)  # the texts read, let go when 4 are held
    monkeypatch.setattr(lexical_snapshot, "COLUMNS_BLOCK", 6)
    snapshot.forget_memory()
    passed = [cli("--json", "--action", "recall", "--query", query, data=copy) for query in queries]
    for one, other in zip(held, passed):
        assert one.code == other.code == 0, (one.err, other.err)
        assert one.json()["results"] == other.json()["results"] != []
    for name in ("embeddings/metadata.jsonl", "embeddings/index.bin"):
        assert (memory_of_facts / name).read_bytes() == (copy / name).read_bytes(), name
    snapshot.forget_memory()
    made = [lexical_snapshot.lexical_index(opened(at).graph()) for at in (memory_of_facts, copy)]
    assert made[0] == made[1] and len(made[0].ids) == 36  # the current facts


def test_a_consolidation_lets_go_of_every_fact_before_it_makes_the_lexical_snapshot(
    cli, memory_of_facts, monkeypatch
):
    """When its steps rewrote a large facts file (a year on, the faded facts are pruned), a
    consolidation makes the next recall's lexical snapshot of its facts read as they go,
    having let go of every Fact the steps held: none is held while it is made, and it is
    the snapshot a build of the facts held makes."""
    from vm_memory_oracle.lexical import snapshot as lexical_snapshot
    from vm_memory_oracle.storage.facts_places import held_facts

    remembered(cli, *[("user", "visited", f"city {i}") for i in range(30)])
    facts = opened(memory_of_facts).graph().facts()
    tea = next(fact.id for fact in facts if "oolong" in fact.object)
    kept = [tea, *(fact.id for fact in facts if fact.object.startswith("city 1"))]
    for fact_id in kept:  # pinned: kept a year on, more than PASSING_MIN
        assert cli("--action", "pin", "--id", fact_id).code == 0
    assert cli("--json", "--action", "recall", "--query", "city 3").code == 0
    monkeypatch.setattr(facts_places, "PASSING_MIN", 10)
    monkeypatch.setattr(facts_places, "PASSING_BLOCK", 7)
    store = opened(memory_of_facts).graph().store
    held_while_built: list[object] = []
    build = lexical_snapshot.build_lexical_index

    def building(facts):
        held_while_built.append(held_facts(store))
        return build(facts)

    monkeypatch.setattr(lexical_snapshot, "build_lexical_index", building)
    before = snapshot.file_key(store.layout.facts)
    assert cli("--action", "consolidate", now="2027-06-01T00:00:00Z").code == 0
    assert snapshot.file_key(store.layout.facts) != before  # the steps rewrote it
    assert held_while_built == [None]
    made = lexical_snapshot.lexical_index(opened(memory_of_facts).graph())
    current = [fact for fact in opened(memory_of_facts).graph().facts() if fact.current]
    assert dataclasses.replace(made, made_of=None) == build(current)
    assert sorted(made.ids) == sorted(kept)  # the faded facts were pruned
