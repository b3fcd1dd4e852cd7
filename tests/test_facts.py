"""Fact identity and replacement rules."""

import json

from hypothesis import given
from hypothesis import strategies as st
from vm_memory_oracle.config import Settings
from vm_memory_oracle.model.fact import (
    fact_id,
    fact_sentence,
    new_fact,
    normalise_predicate,
    replacement_key,
)

from conftest import fact_of

SINGLE = Settings().single_valued()


def test_the_same_fact_always_gets_the_same_id():
    assert fact_id("User", "lives in", "Berlin") == fact_id("  user ", "Lives_In", "berlin")
    assert fact_id("user", "lives_in", "Berlin") != fact_id("user", "lives_in", "Paris")
    assert fact_id("user", "lives_in", "Berlin").startswith("fact-")


@given(st.text(max_size=60))
def test_an_id_is_the_uuid5_of_the_normalised_key(name):
    import uuid

    from vm_memory_oracle.model.fact import FACT_NAMESPACE, _uuid5

    assert _uuid5(name) == str(uuid.uuid5(FACT_NAMESPACE, name))


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_ascii_text_is_cleaned_and_normalised_as_any_text(text):
    """clean_text and normalise take a shortcut for ASCII; it must give what the Unicode
    path gives."""
    import re
    import unicodedata

    from vm_memory_oracle.model.fact import clean_text, normalise

    space = re.compile(r"\s+")
    assert clean_text(text) == space.sub(" ", unicodedata.normalize("NFC", text)).strip()
    assert normalise(text) == space.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def test_ids_do_not_change_between_releases():
    # Stored facts are found again by id; a change of namespace would orphan every one.
    assert (
        fact_id("deployment project", "started_on", "2026-05-15")
        == "fact-183eb485-19f6-5a51-9397-013a32491110"
    )


def test_predicates_become_snake_case():
    assert normalise_predicate("Lives In") == "lives_in"
    assert normalise_predicate("works-at") == "works_at"


def test_new_fact_fills_defaults_and_importance_from_category():
    fact = new_fact(
        {
            "subject": " user\t",
            "predicate": "prefers",
            "object": "dark\nmode",
            "category": "preference",
        },
        created="2026-05-15T14:30:00Z",
        default_source="user-stated",
    )
    assert fact.subject == "user" and fact.object == "dark mode"
    assert fact.source == "user-stated"
    assert fact.importance == 0.8
    assert fact.activation == 1.0
    assert fact_sentence(fact) == "user prefers dark mode"


def test_single_valued_predicates_key_on_subject_and_predicate():
    berlin = fact_of({"subject": "User", "predicate": "lives_in", "object": "Berlin"})
    paris = fact_of({"subject": "user", "predicate": "lives_in", "object": "Paris"})
    assert replacement_key(berlin, SINGLE) == replacement_key(paris, SINGLE)


def test_opposite_polarity_about_the_same_thing_collides():
    likes = fact_of({"subject": "user", "predicate": "likes", "object": "Jazz"})
    hates = fact_of({"subject": "user", "predicate": "hates", "object": "jazz"})
    likes_rock = fact_of({"subject": "user", "predicate": "likes", "object": "rock"})
    xihuan = fact_of({"subject": "用户", "predicate": "喜欢", "object": "咖啡"})
    taoyan = fact_of({"subject": "用户", "predicate": "讨厌", "object": "咖啡"})
    assert replacement_key(likes, SINGLE) == replacement_key(hates, SINGLE)
    assert replacement_key(likes, SINGLE) != replacement_key(likes_rock, SINGLE)
    assert replacement_key(xihuan, SINGLE) == replacement_key(taoyan, SINGLE)


def test_multi_valued_predicates_replace_nothing():
    assert (
        replacement_key(
            fact_of({"subject": "user", "predicate": "visited", "object": "Rome"}), SINGLE
        )
        is None
    )


def test_entities_are_the_same_when_few_names_are_kept_normalised(monkeypatch):
    from vm_memory_oracle.graph import derived

    facts = [
        new_fact(
            {"subject": subject, "predicate": "visited", "object": f"City {n % 4}"},
            created="2026-05-01T00:00:00Z",
            default_source="user-stated",
        )
        for n, subject in enumerate(["user", "Sam", "user", "the team", "Sam", "user"] * 3)
    ]
    every = derived._entity_records(facts)
    monkeypatch.setattr(derived, "NAMES_HELD", 2)

    assert derived._entity_records(facts) == every
    assert [entity.key for entity in every] == [
        "city 0",
        "city 1",
        "city 2",
        "city 3",
        "sam",
        "the team",
        "user",
    ]


def test_entities_held_as_columns_read_as_the_records_one_by_one_would_be():
    """The entities are held as columns, the one fact naming a key as its id; read by
    place, by slice or in order, they are the records made one by one: each key's name as
    first written and the ids of the facts naming it, in order, a fact once."""
    from vm_memory_oracle.graph import derived
    from vm_memory_oracle.graph.derived import Entity, entity_names
    from vm_memory_oracle.model.fact import normalise

    said = [
        ("user", "Rome"),
        ("Sam", "user"),
        ("user", "user"),
        ("The Team", "Rome 2"),
        ("sam", "x"),
    ]
    facts = [
        new_fact(
            {"subject": subject, "predicate": "visited", "object": obj},
            created="2026-05-01T00:00:00Z",
            default_source="user-stated",
        )
        for subject, obj in said
    ]
    names: dict[str, str] = {}
    mentions: dict[str, list[str]] = {}
    for fact in facts:
        for name in entity_names(fact):
            names.setdefault(normalise(name), name)
            ids = mentions.setdefault(normalise(name), [])
            if not ids or ids[-1] != fact.id:
                ids.append(fact.id)
    expected = [Entity(names[key], key, tuple(mentions[key])) for key in sorted(mentions)]

    made = derived._entity_records(facts)
    assert made == expected and list(made) == expected and len(made) == len(expected)
    assert [made[n] for n in range(len(made))] == expected and made[1:3] == expected[1:3]
    assert made[-1] == expected[-1]
    assert {entity.key: entity.fact_ids for entity in made}["user"] == tuple(
        fact.id for fact in facts[:3]
    )
    assert [entity.to_json() for entity in made] == [entity.to_json() for entity in expected]


def test_entities_and_vector_keys_made_again_when_a_fact_changes(tmp_path):
    """entity_records and wanted_vectors keep what they made of the last facts they were
    given (wanted_vectors while the facts file is unchanged); a list holding one other Fact
    object, or the same facts in another list, must give what they make of it from
    scratch."""
    from vm_memory_oracle.graph import derived
    from vm_memory_oracle.graph.derived import entity_records
    from vm_memory_oracle.semantic.index import wanted_vectors

    facts = [
        new_fact(
            {"subject": "user", "predicate": "visited", "object": f"city {n}"},
            created="2026-05-01T00:00:00Z",
            default_source="user-stated",
        )
        for n in range(5)
    ]
    first = entity_records(facts)
    assert entity_records(list(facts)) is first  # the same facts, held: not made again
    changed = [*facts[:2], facts[2].changed(object="Lisbon"), *facts[3:]]
    assert entity_records(changed) == derived._entity_records(changed)
    assert "lisbon" in {entity.key for entity in entity_records(changed)}
    assert entity_records(facts[:4]) == derived._entity_records(facts[:4])

    facts_file = tmp_path / "facts.jsonl"
    facts_file.write_text("".join(json.dumps(fact.to_record()) + "\n" for fact in facts))
    vectors = wanted_vectors(facts, facts_file)
    assert wanted_vectors(list(facts), facts_file) == vectors == wanted_vectors(facts)
    again = wanted_vectors(changed, facts_file)  # the file unchanged: the Facts decide
    assert again == wanted_vectors(changed)
    assert set(again) == set(vectors)  # the id, hence the vector id, stays
    moved = next(key for key in again if again[key][0] == facts[2].id)
    assert again[moved][2] == ("user visited Lisbon",)
    assert again[moved][1] != vectors[moved][1]
    superseded = [*facts[:4], facts[4].changed(superseded_by=facts[0].id)]
    assert len(wanted_vectors(superseded, facts_file)) == 4


def test_a_consolidation_lets_go_of_the_entities_before_it_makes_the_recalls_tables(
    cli, data_dir, monkeypatch
):
    """The prune step and the health check share the entities of the facts; the last pass,
    which makes the lexical snapshot for the next recall, is made without them held."""
    from vm_memory_oracle.graph import derived
    from vm_memory_oracle.lexical import snapshot as lexical_snapshot

    from conftest import hash_embedder

    hash_embedder(cli)
    assert cli("--action", "remember", "--from", "assets/examples/facts.jsonl").code == 0
    held_then: list[object] = []
    build = lexical_snapshot.build_lexical_index

    def building(facts):
        held_then.append(derived._last)
        return build(facts)

    monkeypatch.setattr(lexical_snapshot, "build_lexical_index", building)
    assert derived._last is not None  # the remember's, held
    assert cli("--action", "consolidate").code == 0
    assert held_then == [None]
