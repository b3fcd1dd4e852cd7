"""Recall prefers the facts about the one a query names: "What instrument does Maria play?"
asks for Maria's facts, not for what others said of instruments."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import cache_random_vectors, fact_of, recall_results, remember_records

MUSIC = [
    {
        "subject": "Tom",
        "predicate": "plays",
        "object": "the violin",
        "text": "Tom plays the violin, his favourite instrument.",
    },
    {
        "subject": "Lena",
        "predicate": "plays",
        "object": "the flute",
        "text": "Lena plays the flute, an instrument she loves.",
    },
    {
        "subject": "Sam",
        "predicate": "wants to learn",
        "object": "an instrument",
        "text": "Sam wants to learn to play an instrument, maybe the piano.",
    },
    {
        "subject": "Maria",
        "predicate": "practises",
        "object": "the cello",
        "text": "Maria practises the cello every evening.",
    },
    {
        "subject": "Ana",
        "predicate": "is friends with",
        "object": "Maria",
        "text": "Ana has been friends with Maria since school.",
    },
    {
        "subject": "Ana",
        "predicate": "works as",
        "object": "a nurse",
        "text": "Ana works as a nurse in Lyon.",
    },
    {
        "subject": "Maria",
        "predicate": "works as",
        "object": "an architect",
        "text": "Maria works as an architect.",
    },
    {
        "subject": "张伟",
        "predicate": "喜欢",
        "object": "绿茶",
        "text": "张伟喜欢绿茶。",
    },
    {
        "subject": "李娜",
        "predicate": "喜欢",
        "object": "咖啡",
        "text": "李娜是张伟的朋友，喜欢咖啡。",
    },
]
CELLO = "Maria practises the cello every evening."


def texts(results: list[dict]) -> list[str]:
    return [hit["text"] for hit in results]


def about(results: list[dict]) -> set[str]:
    return {hit["text"] for hit in results if "about" in hit["matched"]}


@pytest.fixture
def music(cli, tmp_path):
    remember_records(cli, tmp_path / "m.jsonl", MUSIC)
    return cli


def test_the_named_persons_fact_comes_before_others_of_the_same_topic(music, monkeypatch):
    from vm_memory_oracle.recall.sources import about as about_source

    question = "What instrument does Maria play?"
    found = texts(recall_results(music, question))
    monkeypatch.setattr(about_source, "WEIGHT", 0.0)
    without = texts(recall_results(music, question))
    others = [fact["text"] for fact in MUSIC if fact["subject"] in ("Tom", "Lena", "Sam")]
    assert found.index(CELLO) < min(found.index(text) for text in others)
    assert found.index(CELLO) < without.index(CELLO)
    # Without the list, the others' instruments (which share the question's words) lead.
    assert without.index(CELLO) > min(without.index(text) for text in others)


def test_the_about_list_holds_the_named_subjects_facts_and_those_naming_them(music):
    results = recall_results(music, "What instrument does Maria play?")
    # Ana's friendship names Maria as its object; Tom's and Lena's facts are not Maria's.
    assert about(results) == {
        CELLO,
        "Maria works as an architect.",
        "Ana has been friends with Maria since school.",
    }


def test_a_name_as_an_owner_does_not_make_the_query_about_its_owner(music):
    # "Maria's friend" asks about Ana: Maria's own facts are not preferred.
    assert about(recall_results(music, "What does Maria's friend do for work?")) == set()
    assert about(recall_results(music, "What does Maria do for work?"))
    assert about(recall_results(music, "张伟的朋友喜欢什么？")) == set()
    assert about(recall_results(music, "张伟喜欢什么？")) == {"张伟喜欢绿茶。"}


def test_a_shortened_name_names_its_subject(music):
    results = recall_results(music, "What does Mar do for work?")
    assert "Maria works as an architect." in about(results)


def test_a_query_naming_every_subject_of_its_hits_adds_no_list(cli, tmp_path):
    facts = [fact for fact in MUSIC if fact["subject"] in ("Tom", "Lena")]
    remember_records(cli, tmp_path / "m.jsonl", facts)
    results = recall_results(cli, "Which instruments do Tom and Lena play?")
    assert set(texts(results)) == {fact["text"] for fact in facts}
    assert about(results) == set()


def test_an_extended_lexical_index_names_what_a_whole_build_names():
    from vm_memory_oracle.lexical.snapshot import NO_NAME, build_lexical_index, extend_lexical_index

    facts = [fact_of({**fact, "category": "fact"}) for fact in MUSIC]
    facts.append(fact_of({"subject": "Tom", "predicate": "said", "object": "x " * 40}))
    facts.append(fact_of({"subject": "Zoe", "predicate": "likes", "object": "Maria"}))
    # Appended facts bring names the first ones lack and reuse others (Maria).
    for held in range(1, len(facts)):
        extended = extend_lexical_index(build_lexical_index(facts[:held]), facts)
        assert extended == build_lexical_index(facts)
    index = build_lexical_index(facts)
    names = index.names
    subject_name = np.frombuffer(index.subject_name, dtype=np.uint32)
    object_name = np.frombuffer(index.object_name, dtype=np.uint32)
    assert names[subject_name[3]] == "maria" == names[object_name[4]] == names[object_name[-1]]
    assert object_name[-2] == NO_NAME  # a said sentence is no name


def test_a_fact_changed_since_the_index_was_built_is_read_by_itself():
    from vm_memory_oracle.lexical.snapshot import build_lexical_index
    from vm_memory_oracle.recall.corpus import Corpus

    facts = [fact_of({**fact, "category": "fact"}) for fact in MUSIC]
    corpus = Corpus(None, 0.0, build_lexical_index(facts))
    named = corpus.named_subjects("What does Maria play?")
    later = {len(facts): facts[0], len(facts) + 1: facts[4]}  # Tom's; Ana's naming Maria
    numbers = np.array([3, 0, len(facts), len(facts) + 1])
    assert corpus.is_about(numbers, named, later.get).tolist() == [True, False, False, True]


def test_a_name_alone_does_not_lift_its_facts_over_one_holding_the_querys_words(
    cli, data_dir, tmp_path, monkeypatch
):
    from vm_memory_oracle.recall.sources import about as about_source

    subjects = ("user", "team", "Alice", "Bob")
    facts = [
        {
            "subject": subjects[i % 4],
            "predicate": "mentioned",
            "object": f"topic number {i}",
            "text": f"{subjects[i % 4]} mentioned topic number {i}",
        }
        for i in range(300)
    ]
    remember_records(cli, tmp_path / "t.jsonl", facts)
    cache_random_vectors(data_dir)  # vectors that mean nothing: no fact is found by meaning
    assert cli("--action", "reindex").code == 0
    question = "what did the team decide about topic number 120"
    assert recall_results(cli, question)[0]["text"] == "user mentioned topic number 120"
    # Without the rule, the team's facts on other topics, sharing only "topic number", lead.
    monkeypatch.setattr(about_source, "_with_own_evidence", lambda query, numbers, _: numbers >= 0)
    assert recall_results(cli, question)[0]["text"].startswith("team mentioned")


def test_word_coverage_is_the_same_summed_over_the_postings_or_over_every_fact(monkeypatch):
    """A query's word coverage is summed over the facts its terms' postings name when they
    are few against the facts, else over an array of every fact: the same facts and shares,
    to the bit, and the facts holding no term left out either way."""
    from vm_memory_oracle.lexical.snapshot import build_lexical_index
    from vm_memory_oracle.model.text import evidence_terms
    from vm_memory_oracle.recall import corpus as corpus_module
    from vm_memory_oracle.recall.corpus import Corpus

    facts = [fact_of({**fact, "category": "fact"}) for fact in MUSIC]
    facts += [
        fact_of(
            {
                "subject": f"player {i}",
                "predicate": "owns",
                "object": f"instrument {i % 7}",
                "text": f"Player {i} owns instrument {i % 7}, a {('cello', 'drum')[i % 2]}.",
                "category": "fact",
            }
        )
        for i in range(200)
    ]
    corpus = Corpus(None, 0.0, build_lexical_index(facts))
    queries = ["Who plays the cello?", "instrument 3", "violin", "drum player 17", "nothing"]
    made = {}
    for sparse in (0, 10**9):  # never, always
        monkeypatch.setattr(corpus_module, "SPARSE_POSTINGS", sparse)
        made[sparse] = [corpus.word_coverage(evidence_terms(query)) for query in queries]
    for dense, sparse in zip(made[0], made[10**9]):
        assert dense.numbers.tolist() == sparse.numbers.tolist()
        assert dense.shares_held.tobytes() == sparse.shares_held.tobytes()
    held = [len(coverage.numbers) for coverage in made[0]]
    assert held[0] > 100 and 0 < held[2] < 5 and held[-1] == 0, held
    # The facts not searchable now are left out the same way by both, the others' shares
    # kept to the bit.
    every = made[0]
    corpus.mask = np.arange(len(facts)) % 3 != 0
    for sparse in (0, 10**9):
        monkeypatch.setattr(corpus_module, "SPARSE_POSTINGS", sparse)
        made[sparse] = [corpus.word_coverage(evidence_terms(query)) for query in queries]
    for dense, sparse, whole in zip(made[0], made[10**9], every):
        assert dense.numbers.tolist() == sparse.numbers.tolist()
        assert dense.shares_held.tobytes() == sparse.shares_held.tobytes()
        kept = whole.numbers % 3 != 0
        assert dense.numbers.tolist() == whole.numbers[kept].tolist()
        assert dense.shares_held.tobytes() == whole.shares_held[kept].tobytes()
