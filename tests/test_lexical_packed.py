"""The lexical snapshot's packed texts and lookups (lexical/packed.py), and the snapshot made
of them: what a whole build gives, extended or not, and what recall reads of it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vm_memory_oracle.lexical import snapshot as lexical
from vm_memory_oracle.lexical import tables as lexical_tables
from vm_memory_oracle.lexical.index import document_text
from vm_memory_oracle.lexical.tables import Tables
from vm_memory_oracle.model.text import tokens
from vm_memory_oracle.storage import packed
from vm_memory_oracle.storage.packed import Numbers, Texts, numbers_by_hash, pack_texts

from conftest import fact_of

TEXTS = ["alpha", "", "北京出差", "beta", "alpha", "γ"]


def test_packed_texts_read_back_as_they_were():
    texts = Texts(*pack_texts(TEXTS))
    assert list(texts) == TEXTS
    assert len(texts) == len(TEXTS)
    assert texts[-1] == "γ" and texts[np.int64(2)] == "北京出差"
    assert texts[1:4] == TEXTS[1:4]
    with pytest.raises(IndexError):
        texts[len(TEXTS)]
    assert list(Texts(*pack_texts([]))) == []


def by_length(text: str) -> int:
    """A hash every text of one length shares: each lookup must compare the texts."""
    return len(text)


@pytest.mark.parametrize("hashed", [packed.text_hash, by_length])
def test_a_text_is_found_at_its_number_the_later_of_two_equal_ones(hashed):
    texts = Texts(*pack_texts(TEXTS))
    numbers = numbers_by_hash(texts, np.array([hashed(text) for text in TEXTS]), hashed)
    expected = {text: number for number, text in enumerate(TEXTS)}  # the later wins
    for text, number in expected.items():
        assert numbers[text] == number == numbers.get(text)
        assert text in numbers
    for absent in ("delta", "alph", "北京"):
        assert absent not in numbers and numbers.get(absent, -1) == -1
        with pytest.raises(KeyError):
            numbers[absent]
    assert 3 not in numbers  # not a text
    asked = [*TEXTS, "delta", "北京"]
    assert numbers.many(asked).tolist() == [numbers.get(text, -1) for text in asked]
    empty = Numbers(Texts(*pack_texts([])), np.zeros(0, dtype=np.uint64), None, hashed)
    assert empty.many(["alpha"]).tolist() == [-1] and empty.get("alpha") is None


WORDS = ["tea", "oolong", "Porto", "Anna", "database", "shard", "北京", "出差", "Lena", "violin"]
FACT = st.tuples(
    st.sampled_from(["user", "Anna", "Tom", "Lena", "北京办公室"]),
    st.sampled_from(["likes", "name", "works_at", "said"]),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
)


def facts_of(triples) -> list:
    facts, seen = [], set()
    for subject, predicate, obj in triples:
        fact = fact_of({"subject": subject, "predicate": predicate, "object": obj})
        if fact.id not in seen:
            seen.add(fact.id)
            facts.append(fact)
    return facts


def check_reads_as_built(index, facts) -> None:
    """Recall's tables of `index` give each fact's number by id and each term's facts as
    the facts' own documents hold them."""
    tables = Tables(index)
    assert list(tables.ids) == [fact.id for fact in facts]
    for number, fact in enumerate(facts):
        assert tables.position[fact.id] == number
    holders: dict[str, list[int]] = {}
    for number, fact in enumerate(facts):
        for term in set(tokens(document_text(fact))):
            holders.setdefault(term, []).append(number)
    for term, numbers in holders.items():
        assert tables.posting(term).tolist() == numbers
    assert tables.posting("absent-term").tolist() == []
    for number, name in enumerate(tables.names):
        assert tables.name_number[name] == number


@settings(max_examples=40, deadline=None)
@given(triples=st.lists(FACT, min_size=1, max_size=12), colliding=st.booleans())
def test_an_extended_snapshot_is_the_one_a_whole_build_makes(triples, colliding):
    facts = facts_of(triples)
    original = packed.text_hash
    hashing = (packed, lexical, lexical_tables)  # the modules that hash the texts
    if colliding:  # every term and name of one length shares a hash
        for module in hashing:
            module.text_hash = by_length  # type: ignore[attr-defined]
    try:
        whole = lexical.build_lexical_index(facts)
        for held in range(len(facts) + 1):
            extended = lexical.extend_lexical_index(
                lexical.build_lexical_index(facts[:held]), facts
            )
            assert extended == whole
        check_reads_as_built(whole, facts)
    finally:
        for module in hashing:
            module.text_hash = original  # type: ignore[attr-defined]


@settings(max_examples=20, deadline=None)
@given(triples=st.lists(FACT, min_size=1, max_size=12))
def test_a_snapshot_is_the_same_when_few_texts_are_kept_read(triples):
    facts = facts_of(triples)
    every = lexical.build_lexical_index(facts)
    held = lexical.TEXTS_HELD
    lexical.TEXTS_HELD = 1  # the subjects and objects after the first are read again
    try:
        assert lexical.build_lexical_index(facts) == every
    finally:
        lexical.TEXTS_HELD = held


@settings(max_examples=60, deadline=None)
@given(
    ids=st.one_of(
        st.lists(st.text(alphabet="abc-019", min_size=4, max_size=4), max_size=30),
        st.lists(st.text(alphabet="ab-é北", max_size=4), max_size=30),
    )
)
def test_packed_ids_are_ordered_as_their_strings_are(ids):
    """Each id's place when the ids are sorted, equal ones first first: packed ids of one
    length in ASCII are sorted as bytes, any others as strings, to the same order."""
    order = np.frombuffer(lexical._id_order(ids), dtype=np.uint32)
    packed_order = np.frombuffer(lexical._id_order(Texts(*pack_texts(ids))), dtype=np.uint32)
    assert packed_order.tolist() == order.tolist()
    expected = sorted(range(len(ids)), key=lambda number: (ids[number], number))
    assert [int(place) for place in np.argsort(order)] == expected
