"""Schemas: both validators agree, and their messages name the field at fault."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from vm_memory_oracle.model.fact import new_fact
from vm_memory_oracle.storage.validation import (
    SCHEMA_DIR,
    SCHEMA_NAMES,
    is_valid,
    load_schema,
    problem,
)

GOOD = new_fact(
    {"subject": "user", "predicate": "lives in", "object": "Berlin"},
    created="2026-05-15T14:30:00Z",
    default_source="user-stated",
).to_record()

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-2, 2, allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(["2026-05-15T14:30:00Z", GOOD["id"], "fact-x"]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=6,
)


def mutations():
    keys = st.sampled_from(sorted(GOOD) + ["text", "importance", "pinned", "entities", "extra"])
    return st.dictionaries(keys, values, max_size=3)


def test_every_schema_file_is_valid_draft_2020_12():
    assert sorted(path.name for path in SCHEMA_DIR.glob("*.schema.json")) == sorted(
        f"{name}.schema.json" for name in SCHEMA_NAMES
    )
    for name in SCHEMA_NAMES:
        schema = load_schema(name)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)


def test_archived_facts_carry_every_fact_field():
    fact = load_schema("fact")["properties"]
    archived = load_schema("archived-fact")["properties"]
    assert {key: archived[key] for key in fact} == fact


def test_a_proposal_holds_a_fact_exactly_as_facts_jsonl_would():
    fact = load_schema("fact")
    proposed = load_schema("pending-memory")["properties"]["fact"]
    assert {key: proposed[key] for key in ("required", "additionalProperties", "properties")} == {
        key: fact[key] for key in ("required", "additionalProperties", "properties")
    }


@settings(max_examples=300, deadline=None)
@given(changes=mutations(), drop=st.sets(st.sampled_from(sorted(GOOD)), max_size=2))
@pytest.mark.slow
def test_the_fast_validator_agrees_with_jsonschema(changes, drop):
    record = {key: value for key, value in {**GOOD, **changes}.items() if key not in drop}
    for name in ("fact", "archived-fact", "fact-input"):
        expected = Draft202012Validator(load_schema(name)).is_valid(record)
        assert is_valid(name, record) == expected, (name, json.dumps(record))


@pytest.mark.parametrize(
    "change, message",
    [
        ({"object": None}, "field 'object' must be a string, got null"),
        ({"activation": True}, "field 'activation' must be a number, got a boolean"),
        ({"activation": 1.5}, "field 'activation' must be between 0 and 1, got 1.5"),
        ({"id": "fact-1"}, "field 'id' is not a fact id like fact-<uuid>: 'fact-1'"),
        ({"created": "yesterday"}, "field 'created' is not an ISO-8601 date-time"),
        ({"category": "gossip"}, "field 'category' must be one of identity, health"),
        ({"subject": ""}, "field 'subject' must not be empty"),
        ({"predicate": "lives in"}, "field 'predicate' must be one word in snake_case"),
        ({"subject": "user\n"}, "field 'subject' contains a control character"),
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"entities": ["a"] * 51}, "field 'entities' must have at most 50 items, has 51"),
    ],
)
def test_messages_name_the_field(change, message):
    assert problem("fact", {**GOOD, **change}).startswith(message)


def test_missing_fields_are_named_and_huge_values_are_not_echoed():
    record = dict(GOOD)
    del record["source"]
    assert problem("fact", record) == "missing field 'source'"
    long = problem("fact", {**GOOD, "subject": "é" * 100_000})
    assert long == "field 'subject' is too long: 100000 characters, at most 256 allowed"
    assert problem("fact", GOOD) is None


def test_the_generated_validators_match_the_schemas():
    from vm_memory_oracle.storage.validation import GENERATED_DIR, generated_sources

    for file_name, source in generated_sources().items():
        path = GENERATED_DIR / file_name
        assert path.read_text() == source, (
            f"{path} is out of date: run python -m vm_memory_oracle.storage.validation"
        )


def test_the_validator_in_use_is_the_committed_generated_module():
    from vm_memory_oracle.storage.validation import _compiled, _module_name

    for name in SCHEMA_NAMES:
        validator = _compiled(name)
        assert validator.__module__ == (
            f"vm_memory_oracle.storage.validators.{_module_name(name)}"
        ), name
        assert validator.__name__.startswith("validate_"), name


def test_starting_up_compiles_no_schema():
    """A process that checks a record of every kind never imports fastjsonschema, the
    compiler: every validator comes from storage/validators/."""
    code = (
        "import sys\n"
        "from vm_memory_oracle.storage.validation import SCHEMA_NAMES, is_valid\n"
        "verdicts = [is_valid(name, {}) for name in SCHEMA_NAMES]\n"
        "print(len(verdicts), 'fastjsonschema' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == [str(len(SCHEMA_NAMES)), "False"]
