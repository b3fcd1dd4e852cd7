"""activation-metadata.json packed as recall reads it (storage/activation_packed.py): each
record looked up is the file's, the columns made of it are those the records give, and the
packed state follows the file as it changes."""

from __future__ import annotations

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

from conftest import NOW


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
