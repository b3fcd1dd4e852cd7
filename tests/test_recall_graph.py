"""Recall one hop through the graph: the facts that share an entity with the best hits."""

from __future__ import annotations

import pytest

from conftest import recall_results, remember_records

COMPANY = [
    {
        "subject": "user",
        "predicate": "works at",
        "object": "Acme Robotics",
        "text": "The user works at Acme Robotics.",
    },
    {
        "subject": "Acme Robotics",
        "predicate": "headquartered in",
        "object": "Porto",
        "text": "Acme Robotics has its headquarters in Porto.",
    },
    {
        "subject": "Globex",
        "predicate": "headquartered in",
        "object": "Madrid",
        "text": "Globex has its headquarters in Madrid.",
    },
    {
        "subject": "Initech",
        "predicate": "headquartered in",
        "object": "Austin",
        "text": "Initech has its headquarters in Austin.",
    },
    {
        "subject": "Acme Robotics",
        "predicate": "founded by",
        "object": "Maria Silva",
        "text": "Acme Robotics was founded by Maria Silva.",
    },
    {
        "subject": "user",
        "predicate": "lives in",
        "object": "Lisbon",
        "text": "The user lives in Lisbon.",
    },
    {"subject": "user", "predicate": "likes", "object": "hiking", "text": "The user likes hiking."},
]
QUESTION = "Where is the headquarters of the company the user works at?"


@pytest.fixture
def company(cli, tmp_path):
    remember_records(cli, tmp_path / "c.jsonl", COMPANY)
    return cli


def test_a_fact_one_hop_from_the_best_hit_is_lifted(company, monkeypatch):
    from vm_memory_oracle.recall.sources import graph as graph_source

    with_graph = recall_results(company, QUESTION)
    monkeypatch.setattr(graph_source, "GRAPH_SEEDS", 0)
    without = recall_results(company, QUESTION)
    texts = [hit["text"] for hit in with_graph]
    porto = "Acme Robotics has its headquarters in Porto."
    assert texts.index(porto) < [hit["text"] for hit in without].index(porto)
    assert texts.index(porto) < texts.index("Globex has its headquarters in Madrid.")
    assert texts.index(porto) < texts.index("Initech has its headquarters in Austin.")
    assert "graph" in with_graph[texts.index(porto)]["matched"]
    assert all("graph" not in hit["matched"] for hit in without)


def test_the_users_other_facts_are_not_linked_through_the_user(company):
    results = recall_results(company, QUESTION)
    linked = {hit["text"] for hit in results if "graph" in hit["matched"]}
    assert linked and all(text.startswith("Acme Robotics") for text in linked)


def test_an_entity_of_many_facts_is_not_followed(cli, tmp_path):
    staff = [
        {"subject": f"employee {n}", "predicate": "works at", "object": "Acme Robotics"}
        for n in range(25)
    ]
    remember_records(cli, tmp_path / "c.jsonl", COMPANY + staff)
    assert all("graph" not in hit["matched"] for hit in recall_results(cli, QUESTION))


def test_a_query_about_nothing_in_the_memory_still_finds_nothing(company):
    assert recall_results(company, "quantum chromodynamics") == []
