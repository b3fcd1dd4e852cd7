"""The episodes' places packed as arrays answer as the dictionary they stand for."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from vm_memory_oracle.episodes.places import Growing, Places

FOUND = st.tuples(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.sampled_from(["2026-01-01.jsonl", "2026-01-02.jsonl", "2026-03-09.jsonl"]),
    st.integers(min_value=0, max_value=2**40),
)


@given(
    base=st.lists(FOUND, max_size=30),
    chunks=st.lists(st.lists(FOUND, max_size=12), max_size=6),
    repeated=st.lists(st.integers(min_value=0, max_value=40), max_size=8),
)
def test_places_grown_chunk_by_chunk_answer_as_a_dictionary(base, chunks, repeated):
    """Each chunk's episodes are new unless their id is in the base, an earlier chunk or
    earlier in the chunk (the first place found is kept), as a dictionary filled in order
    would say; the places made, and read back from their plain form, answer the same."""
    reference: dict[int, tuple[str, int]] = {}
    for vector_id, name, offset in base:
        reference.setdefault(vector_id, (name, offset))
    start = Growing(Places.empty())
    start.new(base)
    grown = Growing(Places.from_plain(start.places().plain()))
    seen = [found for chunk in chunks for found in chunk]
    for number in repeated:  # ids found again later, at another place
        if seen:
            vector_id, name, _ = seen[number % len(seen)]
            chunks.append([(vector_id, name, 7)])
    for chunk in chunks:
        expected = []
        for vector_id, name, offset in chunk:
            expected.append(vector_id not in reference)
            reference.setdefault(vector_id, (name, offset))
        assert grown.new(chunk) == expected
    places = Places.from_plain(grown.places().plain())
    assert len(places) == len(reference)
    for vector_id, place in reference.items():
        assert vector_id in places and places.get(vector_id) == place
    assert places.get(2**63 - 1) == reference.get(2**63 - 1)
