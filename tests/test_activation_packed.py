"""activation-metadata.json packed as recall reads it (storage/activation_packed.py): each
record looked up is the file's, the columns made of it are those the records give, and the
packed state follows the file as it changes."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vm_memory_oracle.graph.columns import ActivationColumns, FactColumns
from vm_memory_oracle.model.activation import ActivationEntries, ActivationEntry
from vm_memory_oracle.storage import snapshot
from vm_memory_oracle.storage.activation_packed import pack
from vm_memory_oracle.storage.packed import Texts, id_hash, numbers_by_hash, pack_texts
from vm_memory_oracle.storage.store import Store

from conftest import NOW, fact_of


def fact_id(number: int) -> str:
    """An id whose vector id (its top 63 bits) is its own."""
    return f"fact-{number:08x}-0000-5000-8000-{number:012x}"


def twin_id(number: int) -> str:
    """An id whose vector id every twin_id shares: each match must compare the ids."""
    return f"fact-00000000-0000-5000-8000-{number:012x}"


IDS = st.integers(0, 60).map(fact_id) | st.integers(0, 60).map(twin_id)
STAMPS = [NOW, "2026-05-15T14:30:00Z", "2026-05-15T14:30:00.250000+02:00", "2025-01-01T00:00:00Z"]
RECORD = st.fixed_dictionaries(
    {
        "activation": st.one_of(st.sampled_from([0, 1]), st.floats(0.0, 1.0)),
        "last_accessed": st.sampled_from(STAMPS),
        "access_count": st.integers(0, 2**40),
    },
    optional={"heard": st.lists(st.text(min_size=1, max_size=8), max_size=3)},
)


@settings(max_examples=60, deadline=None)
@given(records=st.dictionaries(IDS, RECORD, max_size=20))
def test_each_packed_record_is_the_files_own(records):
    packed = pack(records).records
    assert len(packed) == len(records) and set(packed) == set(records)
    for held_id, record in records.items():
        assert held_id in packed
        looked_up = packed[held_id]
        assert looked_up == record
        assert type(looked_up["activation"]) is type(record["activation"])
    for absent in (fact_id(61), twin_id(61), "fact-not-an-id", 7):
        assert absent not in packed
    with pytest.raises(KeyError):
        packed[fact_id(501)]


@settings(max_examples=60, deadline=None)
@given(
    records=st.dictionaries(IDS, RECORD, max_size=20),
    numbered=st.lists(IDS, unique=True, max_size=20),
)
def test_columns_of_the_packed_records_are_those_of_the_records(records, numbered):
    """Facts the file has no record of keep their own inputs; records of facts not numbered
    are passed over."""
    count = len(numbered)
    facts = FactColumns(
        np.full(count, 0.5),
        np.zeros(count, dtype=np.bool_),
        np.arange(count, dtype=np.int64) * 1_000_000,
        np.linspace(0.1, 0.9, count),
    )
    ids = Texts(*pack_texts(numbered))
    hashes = np.array([id_hash(one) for one in numbered], dtype=np.uint64)
    position = numbers_by_hash(ids, hashes, id_hash)
    from_records = ActivationColumns.of_records(position, facts, pack(records).records)
    plain = {one: number for number, one in enumerate(numbered)}
    from_entries = ActivationColumns.of(plain, facts, ActivationEntries(dict(records)))
    assert from_records.a0.tolist() == from_entries.a0.tolist()
    assert from_records.last.tolist() == from_entries.last.tolist()


def test_the_packed_state_follows_the_file_and_a_damaged_file_is_set_aside(store):
    first = {fact_id(1): ActivationEntry(0.5, NOW, 0), fact_id(2): ActivationEntry(1.0, NOW, 3)}
    store.write_activation(first)
    assert dict(store.activation_records()) == ActivationEntries.of(first).to_json()
    assert store.layout.activation_packed_cache.exists()
    # Read by another process, from the packed state kept on disk.
    snapshot.forget_memory()
    fresh = Store(store.layout, lock_timeout=5, timestamp=NOW)
    assert dict(fresh.activation_records()) == ActivationEntries.of(first).to_json()
    assert fresh.activation_view()[fact_id(2)] == first[fact_id(2)]
    # The file changes: the packed state is made again of it.
    second = {fact_id(3): ActivationEntry(0.25, "2026-05-15T14:30:00Z", 1, ("log.jsonl:4",))}
    store.write_activation(second)
    assert dict(fresh.activation_records()) == ActivationEntries.of(second).to_json()
    # A boost in the journal is looked up before the file's record.
    boosted = {fact_id(3): ActivationEntry(0.75, NOW, 2)}
    store.write_activation(boosted, changed=[fact_id(3)])
    assert fresh.activation_view()[fact_id(3)] == boosted[fact_id(3)]
    assert fresh.activation_entries({fact_id(3), fact_id(4)}) == boosted
    # A damaged file reads as no state, and is set aside, as a whole read does.
    store.layout.activation.write_text("{ this is not json")
    assert dict(fresh.activation_records()) == {}
    aside = list(store.layout.root.glob("activation-metadata.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_text() == "{ this is not json"


# -- the state a command changes, held packed -----------------------------------------------

VALID_RECORD = st.fixed_dictionaries(
    {
        "activation": st.one_of(st.sampled_from([0, 1]), st.floats(0.0, 1.0)),
        "last_accessed": st.sampled_from(STAMPS),
        "access_count": st.integers(0, 2**40),
    },
    optional={"heard": st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=3)},
)
CHANGES = st.lists(
    st.one_of(
        st.tuples(st.just("set"), IDS, VALID_RECORD),
        st.tuples(st.just("delete"), IDS, st.none()),
        st.tuples(st.just("only"), st.lists(IDS, max_size=30), st.none()),
    ),
    max_size=12,
)


def fresh_store(root) -> Store:
    """A store over `root` as a new process opens it: nothing held from before."""
    from vm_memory_oracle.data_directory import initialize
    from vm_memory_oracle.storage.layout import Layout

    snapshot.forget_memory()
    layout = Layout(root)
    initialize(layout)
    return Store(layout, lock_timeout=5, timestamp=NOW)


def file_text(records: dict) -> str:
    """activation-metadata.json as a whole write of `records` makes it."""
    from vm_memory_oracle.storage import strict_json

    document = {"updated": NOW, "facts": records}
    return strict_json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n"


@settings(max_examples=80, deadline=None)
@given(
    records=st.dictionaries(IDS, VALID_RECORD, max_size=20),
    boosts=st.dictionaries(IDS, VALID_RECORD, max_size=4),
    changes=CHANGES,
)
def test_the_packed_state_changed_and_written_is_what_a_dictionary_would_be(
    tmp_path_factory, records, boosts, changes
):
    """Read (the journal's boosts over the file), changed, narrowed, written and read again,
    the packed state is the dictionary of records the same steps give, and the file's text
    is that of the dictionary."""
    from vm_memory_oracle.storage.activation_packed import PackedState

    root = tmp_path_factory.mktemp("data")
    store = fresh_store(root)
    store.write_activation(ActivationEntries(dict(records)))
    for fact_id, record in boosts.items():
        store.write_activation(ActivationEntries({fact_id: record}), changed=[fact_id])
    model = {**records, **boosts}
    state = fresh_store(root).read_activation()
    assert isinstance(state.to_json(), PackedState)
    for change, fact_id, record in changes:
        if change == "set":
            state[fact_id] = ActivationEntry.from_json(record)
            model[fact_id] = ActivationEntry.from_json(record).to_json()
        elif change == "delete":
            if fact_id in model:
                del state[fact_id]
                del model[fact_id]
            else:
                with pytest.raises(KeyError):
                    del state[fact_id]
        else:
            state = state.only(fact_id)
            model = {one: model[one] for one in fact_id if one in model}
        assert len(state) == len(model) and sorted(state) == sorted(model)
    assert dict(state.to_json()) == model
    assert all(one in state for one in model)
    assert sorted(state.decay_starts()) == sorted(
        (one, float(record["activation"]), record["last_accessed"]) for one, record in model.items()
    )
    store.write_activation(state)
    assert store.layout.activation.read_text(encoding="utf-8") == file_text(model)
    assert dict(fresh_store(root).read_activation().to_json()) == model
    assert dict(store.activation_records()) == model


def test_a_whole_write_keeps_the_packed_state_of_the_file_it_wrote(store):
    """The next process reads the packed state the write kept, not the file: the kept
    state is for the file as written, and reading it changes nothing in state/cache/."""
    ids = [fact_id(number) for number in range(1, 6)]
    store.write_activation({one: ActivationEntry(0.5, NOW, 0) for one in ids})
    state = store.read_activation()
    state[ids[0]] = ActivationEntry(0.75, NOW, 1, ("log.jsonl:4",))
    del state[ids[1]]
    state[fact_id(9)] = ActivationEntry(1, NOW, 0)
    store.write_activation(state)
    cache = store.layout.activation_packed_cache
    kept = snapshot.stored(cache, streamed=True)
    assert kept is not None and kept[0][1:] == (snapshot.file_key(store.layout.activation),)
    before = os.stat(cache)
    fresh = fresh_store(store.layout.root)
    read = fresh.read_activation()
    assert read == state and read[fact_id(9)].activation == 1
    after = os.stat(cache)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    # The parsed copy of the whole file that was kept beside it is no more.
    assert not store.layout.snapshot_for(store.layout.activation).exists()


def test_the_state_of_the_facts_is_their_rows_and_the_initial_state_of_the_others(store):
    """for_facts and only keep a selection of the packed rows: a record is made for a
    fact without one, and for no other."""
    ids = [fact_id(number) for number in range(1, 5)]
    store.write_activation({one: ActivationEntry(0.5, NOW, 2) for one in ids})
    state = store.read_activation()
    new = a_fact(fact_id(7), activation=0.25)
    old = [a_fact(one) for one in ids[1:]]
    whole = state.for_facts([*old, new])
    assert dict(whole.to_json()) == {
        **{one: ActivationEntry(0.5, NOW, 2).to_json() for one in ids[1:]},
        fact_id(7): ActivationEntry.initial(new).to_json(),
    }
    assert whole.to_json().changes() == {fact_id(7): ActivationEntry.initial(new).to_json()}
    assert list(state.only([ids[2], ids[1], fact_id(8), ids[2]])) == [ids[2], ids[1]]
    store.write_activation(whole)
    assert set(Store(store.layout, lock_timeout=5, timestamp=NOW).read_activation()) == {
        *ids[1:],
        fact_id(7),
    }


def test_folding_a_state_that_is_the_files_writes_nothing(store):
    ids = [fact_id(number) for number in range(1, 4)]
    store.write_activation({one: ActivationEntry(0.5, NOW, 0) for one in ids})
    before = os.stat(store.layout.activation)
    state = store.read_activation()
    assert not store.fold_activation(state.only(reversed(ids)))
    assert os.stat(store.layout.activation).st_mtime_ns == before.st_mtime_ns
    state[ids[0]] = ActivationEntry(0.5, NOW, 0)  # set to what it was
    assert not store.fold_activation(state)
    del state[ids[0]]
    assert store.fold_activation(state)
    assert set(store.read_activation()) == set(ids[1:])


def test_a_file_a_person_edited_still_reads_and_is_written_back_compact(store):
    records = {
        fact_id(2): {"access_count": 1, "last_accessed": NOW, "activation": 0.5},
        fact_id(1): {"activation": 1, "access_count": 0, "last_accessed": STAMPS[2]},
    }
    store.layout.activation.write_text(
        json.dumps({"facts": records, "updated": NOW}, indent=4), encoding="utf-8"
    )
    state = fresh_store(store.layout.root).read_activation()
    assert dict(state.to_json()) == records
    store.write_activation(state)
    assert store.layout.activation.read_text(encoding="utf-8") == file_text(records)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{ this is not json", "unreadable ("),
        ('{"facts": {"fact-1": {}}}', "facts"),
    ],
)
def test_a_damaged_file_is_set_aside_with_the_same_warning(store, text, reason):
    store.layout.activation.write_text(text, encoding="utf-8")
    fresh = fresh_store(store.layout.root)
    assert dict(fresh.read_activation()) == {}
    [aside] = store.layout.root.glob("activation-metadata.json.corrupt-*")
    assert aside.read_text(encoding="utf-8") == text
    [warning] = fresh.warnings
    assert warning.startswith("activation-metadata.json: ")
    assert reason in warning
    assert warning.endswith(f"; moved to {aside.name}, activation reset from facts")


def a_fact(one: str, **fields):
    return fact_of({"id": one, "subject": "s", "predicate": "p", "object": one, **fields})


# -- the file packed as it is read -----------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(records=st.dictionaries(IDS, VALID_RECORD, max_size=20))
def test_a_file_in_the_writers_form_is_packed_as_its_records_are(tmp_path_factory, records):
    from vm_memory_oracle.storage.activation_file import packed_file

    path = tmp_path_factory.mktemp("data") / "activation-metadata.json"
    path.write_text(file_text(records), encoding="utf-8")
    packed = packed_file(path)
    assert packed is not None
    # As the records parsed from the file pack: ties of vector id in the file's order.
    assert packed.plain() == pack(json.loads(path.read_text())["facts"]).plain()


@pytest.mark.parametrize(
    "text",
    [
        # Indented, or its records' keys in another order: a file a person edited.
        '{\n  "facts": {}, "updated": "2026-05-15T14:30:00Z"}',
        '{"facts":{"F1":{"activation":1,"access_count":0,"last_accessed":"T"}},"updated":"T"}',
        # The same fact twice, or the facts out of order.
        '{"facts":{"F1":R,"F1":R},"updated":"T"}',
        '{"facts":{"F2":R,"F1":R},"updated":"T"}',
        # What the schema refuses: an activation above 1, a key it does not know, a time
        # that is not one, a heard list of an empty text.
        '{"facts":{"F1":{"access_count":0,"activation":1.5,"last_accessed":"T"}},"updated":"T"}',
        '{"facts":{"F1":{"access_count":0,"activation":1,"last_accessed":"T","x":1}},'
        '"updated":"T"}',
        '{"facts":{"F1":{"access_count":0,"activation":1,"last_accessed":"yesterday"}},'
        '"updated":"T"}',
        '{"facts":{"F1":{"access_count":0,"activation":1,"heard":[""],"last_accessed":"T"}},'
        '"updated":"T"}',
        # Cut short, or more after its end.
        '{"facts":{"F1":R,',
        '{"facts":{"F1":R},"updated":"T"}{}',
    ],
)
def test_a_file_in_any_other_form_is_not_packed_as_it_is_read(tmp_path, text):
    from vm_memory_oracle.storage.activation_file import packed_file

    record = '{"access_count":0,"activation":1,"last_accessed":"T"}'
    text = (
        text.replace("R", record)
        .replace("F1", fact_id(1))
        .replace("F2", fact_id(2))
        .replace('"T"', f'"{NOW}"')
    )
    path = tmp_path / "activation-metadata.json"
    path.write_text(text, encoding="utf-8")
    assert packed_file(path) is None


def test_a_file_read_a_piece_at_a_time_packs_records_cut_across_pieces(tmp_path, monkeypatch):
    from vm_memory_oracle.storage import files
    from vm_memory_oracle.storage.activation_file import packed_file

    monkeypatch.setattr(files, "LINES_PIECE", 7)
    records = {
        fact_id(number): {
            "activation": number / 50,
            "last_accessed": STAMPS[number % len(STAMPS)],
            "access_count": number,
            **({"heard": [f"log.jsonl:{number}", 'é\\"]']} if number % 3 else {}),
        }
        for number in range(40)
    }
    path = tmp_path / "activation-metadata.json"
    path.write_text(file_text(records), encoding="utf-8")
    packed = packed_file(path)
    assert (
        packed is not None and packed.plain() == pack(json.loads(path.read_text())["facts"]).plain()
    )


def test_activation_values_of_the_packed_state_are_those_of_its_records(store):
    from datetime import timedelta

    from vm_memory_oracle.clock import parse_iso
    from vm_memory_oracle.graph.columns import activation_values

    ids = [fact_id(number) for number in range(1, 7)]
    store.write_activation(
        {
            one: ActivationEntry(0.9 - number / 10, STAMPS[number % 4], 1)
            for number, one in enumerate(ids)
        }
    )
    state = store.read_activation()
    state[ids[0]] = ActivationEntry(0.25, STAMPS[1], 2)  # set over its row
    del state[ids[1]]  # its fact reads at its creation state
    state = state.only(ids[:5])  # ids[5] is not in the state
    state[fact_id(9)] = ActivationEntry(1, STAMPS[3], 0)
    facts = [a_fact(one, importance=0.5) for one in [*ids, fact_id(9), fact_id(10)]]
    now = parse_iso(NOW) + timedelta(days=40)
    plain = ActivationEntries(dict(state.to_json()))
    assert activation_values(facts, state, now, 30) == activation_values(facts, plain, now, 30)


def test_the_file_is_known_to_pass_its_schema_where_it_packs_without_being_read_whole(store):
    assert not store.activation_passes()  # none yet
    store.write_activation({fact_id(1): ActivationEntry(0.5, NOW, 0)})
    assert store.activation_passes()  # its packed state is kept
    store.layout.activation_packed_cache.unlink()
    fresh = fresh_store(store.layout.root)
    assert fresh.activation_passes()  # in the writer's form
    assert not fresh.layout.activation_packed_cache.exists()  # a check keeps nothing
    text = store.layout.activation.read_text(encoding="utf-8")
    store.layout.activation.write_text(text.replace(",", ", "), encoding="utf-8")
    assert not fresh_store(store.layout.root).activation_passes()  # read whole to know


def test_a_record_set_over_the_packed_state_reads_back_as_it_was_set(store):
    """A record set is held by its values (a remember of a million new facts sets a million)
    and read back equal, "heard" and all; one with another shape is held as it was given."""
    from vm_memory_oracle.storage.activation_packed import PackedState

    store.write_activation({fact_id(1): ActivationEntry(0.5, NOW, 0)})
    state = store.read_activation().to_json()
    assert isinstance(state, PackedState)
    given = {
        fact_id(1): {"activation": 0.75, "last_accessed": NOW, "access_count": 2},
        fact_id(2): {"activation": 1, "last_accessed": NOW, "access_count": 0, "heard": ["a:1"]},
        fact_id(3): {"activation": 1, "last_accessed": NOW, "access_count": 0, "heard": None},
        fact_id(4): {"activation": 1, "last_accessed": NOW, "access_count": 0, "other": 1},
        fact_id(5): {"activation": 1, "last_accessed": NOW},
    }
    for one, record in given.items():
        state[one] = record
    for one, record in given.items():
        assert state[one] == record and list(state[one]) == list(record)
    assert dict(state.changes()) == given and len(state.changes()) == 5
    assert list(state.changes()) == [fact_id(1), *list(given)[1:]]


def test_a_write_refuses_a_bad_record_among_many_as_a_whole_check_would(store, monkeypatch):
    """The records set are checked a block at a time; when one fails, the message is the one
    the whole state's check gives (the field a person fixes first), and nothing is written."""
    from vm_memory_oracle.errors import InvalidInputError
    from vm_memory_oracle.storage import activation_state
    from vm_memory_oracle.storage.validation import problem

    monkeypatch.setattr(activation_state, "CHECKED_AT_ONCE", 3)
    store.write_activation({fact_id(0): ActivationEntry(0.5, NOW, 0)})
    before = store.layout.activation.read_bytes()
    state = store.read_activation()
    for number in range(1, 11):
        state[fact_id(number)] = ActivationEntry(0.5, NOW, number)
    state.to_json()[fact_id(8)] = {"activation": 2.5, "last_accessed": NOW, "access_count": 0}
    state.to_json()[fact_id(5)] = {"activation": 0.5, "last_accessed": NOW, "access_count": -1}
    whole = {"updated": store.timestamp, "facts": dict(state.to_json().changes())}
    expected = problem("activation-metadata", whole)
    assert expected is not None
    with pytest.raises(InvalidInputError) as refused:
        store.write_activation(state)
    assert expected in str(refused.value)
    assert store.layout.activation.read_bytes() == before
    del state[fact_id(5)], state[fact_id(8)]
    store.write_activation(state)
    assert len(fresh_store(store.layout.root).read_activation()) == 9


def test_records_of_equal_values_are_held_once_and_read_back_as_they_were_set(store):
    """The records set of equal values (a remember's new facts) are one held object; 1 and
    1.0, 0.0 and -0.0, and counts of 0 and 0.0 are told apart, and every record reads back
    and is written as it was set."""
    from vm_memory_oracle.storage.activation_packed import PackedState

    state = store.read_activation().to_json()
    assert isinstance(state, PackedState)
    values = [1.0, 1.0, 1, 1, 0.0, -0.0, 0.5, 0.5]
    for number, activation in enumerate(values):
        state[fact_id(number)] = {"activation": activation, "last_accessed": NOW, "access_count": 0}
    state[fact_id(20)] = {"activation": 0.5, "last_accessed": [NOW], "access_count": 0}
    held = [state._added[fact_id(number)] for number in range(len(values))]
    assert held[0] is held[1] and held[2] is held[3] and held[6] is held[7]
    assert held[0] is not held[2] and held[4] is not held[5]
    for number, activation in enumerate(values):
        read = state[fact_id(number)]["activation"]
        assert read == activation and type(read) is type(activation)
        assert math.copysign(1, read) == math.copysign(1, activation)
    assert state[fact_id(20)]["last_accessed"] == [NOW]
    del state[fact_id(20)]
    store.write_activation(ActivationEntries(state))
    written = json.loads(store.layout.activation.read_text(encoding="utf-8"))["facts"]
    assert [written[fact_id(n)]["activation"] for n in range(len(values))] == values
    text = store.layout.activation.read_text(encoding="utf-8")
    assert text.count('"activation":1.0') == 2 and text.count('"activation":1,') == 2
    assert text.count('"activation":-0.0') == 1
