"""The Fact record: one line of facts.jsonl as a typed, frozen value, written back byte for
byte as it was read."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vm_memory_oracle.config import Settings
from vm_memory_oracle.data_directory import initialize
from vm_memory_oracle.graph import KnowledgeGraph
from vm_memory_oracle.model.fact import Fact, new_fact
from vm_memory_oracle.storage import files, snapshot
from vm_memory_oracle.storage.layout import Layout
from vm_memory_oracle.storage.store import Store
from vm_memory_oracle.storage.validation import is_valid, load_schema

from conftest import NOW

FIELDS = [spec.name for spec in dataclasses.fields(Fact) if not spec.name.startswith("_")]

words = st.text(
    alphabet=st.characters(categories=["L", "N"]) | st.sampled_from(" .-'用户"),
    min_size=1,
    max_size=12,
).filter(str.strip)
stamps = st.sampled_from(["2026-05-15T14:30:00Z", "2025-01-02T03:04:05.123+02:00"])
shares = st.floats(0, 1, allow_nan=False) | st.integers(0, 1)
fact_ids = st.uuids().map(lambda value: f"fact-{value}")
OPTIONAL = {
    "sources": st.lists(words, max_size=3),
    "text": words,
    "context": words,
    "category": st.sampled_from(load_schema("fact")["properties"]["category"]["enum"]),
    "importance": shares,
    "salience": shares,
    "pinned": st.booleans(),
    "entities": st.lists(words, max_size=3),
    "valid_from": st.sampled_from(["2026-05-15", "2026-05-15T00:00:00Z"]),
    "confidence": shares,
    "supersedes": fact_ids,
    "superseded_by": fact_ids,
    "superseded_at": stamps,
}


@st.composite
def fact_records(draw) -> dict:
    """A valid line of facts.jsonl: the required keys, some optional ones, in any order
    (files written by older versions, or by hand, have their own)."""
    record = {
        "id": draw(fact_ids),
        "subject": draw(words),
        "predicate": draw(st.from_regex(r"[a-z_]{1,12}", fullmatch=True)),
        "object": draw(words),
        "source": draw(words),
        "created": draw(stamps),
        "activation": draw(shares),
    }
    for key in draw(st.lists(st.sampled_from(sorted(OPTIONAL)), unique=True)):
        record[key] = draw(OPTIONAL[key])
    order = draw(st.permutations(list(record)))
    return {key: record[key] for key in order}


def test_a_fact_has_one_field_per_property_of_the_schema():
    assert set(FIELDS) == set(load_schema("fact")["properties"])
    assert FIELDS[:7] == load_schema("fact")["required"]


@settings(max_examples=300, deadline=None)
@given(record=fact_records())
def test_a_record_comes_back_as_it_was_read(record):
    assert is_valid("fact", record)
    again = Fact.from_record(record).to_record()
    assert again == record and list(again) == list(record)
    assert files.dumps_record(again) == files.dumps_record(record)


@settings(max_examples=100, deadline=None)
@given(record=fact_records(), later=fact_ids, stamp=stamps)
def test_a_change_keeps_the_order_and_puts_new_keys_last(record, later, stamp):
    fact = Fact.from_record(record)
    replaced = fact.changed(superseded_by=later, superseded_at=stamp).to_record()
    # what `record["superseded_by"] = ...; record["superseded_at"] = ...` always wrote
    expected = dict(record)
    expected["superseded_by"] = later
    expected["superseded_at"] = stamp
    assert list(replaced.items()) == list(expected.items())
    # removing keys, as `del record[key]` did, and adding them back puts them last
    current = fact.changed(superseded_by=None, superseded_at=None)
    assert current.current and "superseded_by" not in current.to_record()
    expected = {k: v for k, v in record.items() if k not in ("superseded_by", "superseded_at")}
    assert list(current.to_record()) == list(expected)
    again = current.changed(superseded_by=later).to_record()
    assert list(again)[-1] == "superseded_by"


def test_new_fact_writes_what_it_always_wrote():
    fact = new_fact(
        {
            "subject": "user",
            "predicate": "prefers",
            "object": "green tea",
            "category": "preference",
            "entities": ["tea"],
            "pinned": True,
        },
        created=NOW,
        default_source="user-stated",
    )
    assert list(fact.to_record()) == [
        "id",
        "subject",
        "predicate",
        "object",
        "source",
        "created",
        "activation",
        "category",
        "importance",
        "pinned",
        "entities",
    ]
    assert fact.entities == ("tea",) and fact.to_record()["entities"] == ["tea"]
    assert fact.sources == () and fact.text is None and fact.superseded_by is None


def test_the_facts_of_one_input_share_what_repeats_and_write_what_they_always_wrote():
    import io

    from vm_memory_oracle.intake import facts_from_jsonl
    from vm_memory_oracle.model.provenance import OWNER_SAID

    lines = [
        {"subject": "user", "predicate": "likes", "object": f"tea {n}", "category": "preference"}
        for n in range(3)
    ]
    given = "".join(json.dumps(line) + "\n" for line in lines).encode()

    facts = facts_from_jsonl(io.BytesIO(given), "in.jsonl", created=NOW).facts

    alone = [
        new_fact(
            line, created=NOW, default_source="import:in.jsonl", provenance=OWNER_SAID
        ).to_record()
        for line in lines
    ]
    assert [fact.to_record() for fact in facts] == alone
    first, *others = facts
    for name in ("subject", "source", "created", "category", "provenance", "_keys"):
        assert all(getattr(other, name) is getattr(first, name) for other in others), name


@settings(max_examples=100, deadline=None)
@given(
    records=st.lists(fact_records(), min_size=1, max_size=8),
    numbers=st.lists(st.sampled_from([1, 1.0, 0, 0.0, -0.0, 0.5, 0.25]), min_size=16, max_size=16),
)
def test_facts_read_sharing_their_numbers_write_what_they_were_read_from(records, numbers):
    """Equal numbers of facts read together are one object, unless written otherwise (1
    and 1.0, 0.0 and -0.0): each fact still writes back the bytes it was read from."""
    numbers_of = iter(numbers)
    for record in records:
        for name in ("activation", "importance"):
            if name in record:
                record[name] = json.loads(json.dumps(next(numbers_of)))  # as read: new
    shared: dict = {}
    facts = [Fact.from_record(record, shared=shared) for record in records]
    for fact, record in zip(facts, records):
        assert files.dumps_record(fact.to_record()) == files.dumps_record(record)
    by_written: dict = {}
    for fact in facts:
        for value in (fact.activation, fact.importance):
            if value is not None:
                held = by_written.setdefault(files.dumps_record([value]), value)
                assert held is value


def test_a_fact_made_without_a_record_writes_what_it_holds():
    fact = Fact(
        id="fact-00000000-0000-5000-8000-000000000000",
        subject="user",
        predicate="likes",
        object="tea",
        source="user-stated",
        created=NOW,
        activation=1.0,
        pinned=True,
    )
    assert fact.to_record() == {
        "id": "fact-00000000-0000-5000-8000-000000000000",
        "subject": "user",
        "predicate": "likes",
        "object": "tea",
        "source": "user-stated",
        "created": NOW,
        "activation": 1.0,
        "pinned": True,
    }
    # dataclasses.replace too: nothing it sets is lost
    assert dataclasses.replace(fact, text="The user likes tea").to_record()["text"] == (
        "The user likes tea"
    )


def test_a_fact_is_frozen():
    fact = new_fact(
        {"subject": "user", "predicate": "likes", "object": "tea"},
        created=NOW,
        default_source="user-stated",
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        fact.pinned = True  # type: ignore[misc]
    assert fact.current and fact.sentence == "user likes tea"


def test_an_unknown_key_is_no_fact():
    record = new_fact(
        {"subject": "user", "predicate": "likes", "object": "tea"},
        created=NOW,
        default_source="user-stated",
    ).to_record()
    with pytest.raises(TypeError):
        Fact.from_record({**record, "mood": "happy"})


def test_a_bad_line_of_facts_jsonl_is_quarantined_and_the_rest_are_facts(data_dir):
    layout = Layout(data_dir)
    initialize(layout)
    good = [
        new_fact(
            {"subject": "user", "predicate": "visited", "object": f"city {i}"},
            created=NOW,
            default_source="user-stated",
        ).to_record()
        for i in range(3)
    ]
    lines = [
        files.dumps_record(good[0]),
        json.dumps({**good[1], "mood": "happy"}),  # a key the schema does not know
        json.dumps({**good[1], "pinned": "yes"}),  # the wrong type
        files.dumps_record(good[2]),
    ]
    layout.facts.write_text("\n".join(lines) + "\n")
    store = Store(layout, lock_timeout=5, timestamp=NOW)

    facts = KnowledgeGraph(store, Settings()).facts()

    assert all(isinstance(fact, Fact) for fact in facts)
    assert [fact.id for fact in facts] == [good[0]["id"], good[2]["id"]]
    quarantine = layout.graph_dir / "facts.quarantine.jsonl"
    assert [json.loads(line)["line"] for line in quarantine.read_text().splitlines()] == [2, 3]


def test_reading_and_writing_facts_jsonl_changes_no_byte(data_dir):
    """Lines in the key order of older versions, with optional keys present or not, are
    written back exactly as they were."""
    layout = Layout(data_dir)
    initialize(layout)
    base = new_fact(
        {"subject": "user", "predicate": "lives in", "object": "Berlin", "text": "I live in B"},
        created=NOW,
        default_source="user-stated",
    ).to_record()
    shuffled = {key: base[key] for key in reversed(list(base))}
    unpinned = {**base, "pinned": False, "sources": []}
    other = {**base, "id": "fact-00000000-0000-5000-8000-000000000001", "activation": 1}
    layout.facts.write_text(
        "".join(files.dumps_record(record) + "\n" for record in (shuffled, unpinned, other))
        .replace(base["id"], "fact-00000000-0000-5000-8000-000000000002", 1)
        .replace(base["id"], "fact-00000000-0000-5000-8000-000000000003", 1)
    )
    before = layout.facts.read_bytes()
    store = Store(layout, lock_timeout=5, timestamp=NOW)
    with store.locked("test"):
        store.rewrite_facts(store.read_facts())
    assert layout.facts.read_bytes() == before
    snapshot.forget_memory()  # as a new process: parsed again, the same facts
    assert Store(layout, lock_timeout=5, timestamp=NOW).read_facts() == store.read_facts()


def test_a_lookup_by_id_makes_only_the_fact_asked_for(data_dir, monkeypatch):
    layout = Layout(data_dir)
    initialize(layout)
    records = [
        new_fact(
            {"subject": "user", "predicate": "visited", "object": f"city {i}"},
            created=NOW,
            default_source="user-stated",
        ).to_record()
        for i in range(5)
    ]
    layout.facts.write_text("".join(files.dumps_record(record) + "\n" for record in records))
    made = []
    from_record = Fact.from_record.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        Fact,
        "from_record",
        classmethod(lambda cls, *a, **k: made.append(1) or from_record(cls, *a, **k)),
    )
    store = Store(layout, lock_timeout=5, timestamp=NOW)

    by_id = store.facts_by_id()

    assert records[3]["id"] in by_id and len(by_id) == 5
    assert by_id[records[3]["id"]].object == "city 3"
    assert len(made) == 1
    assert [fact.to_record() for fact in store.read_facts()] == records
    assert len(made) == 5  # the other four, once
    # what a write leaves is what the next read gives, without making the facts again
    with store.locked("test"):
        store.rewrite_facts(store.read_facts()[:2])
    made.clear()
    assert [fact.id for fact in store.read_facts()] == [record["id"] for record in records[:2]]
    assert [fact.object for fact in store.facts_by_id().values()] == ["city 0", "city 1"]
    assert made == []
