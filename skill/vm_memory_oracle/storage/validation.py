"""JSON Schema validation of every record type, before any write and at every load.

The schemas (draft 2020-12) live in `schemas/`. Checking uses a compiled validator
(fastjsonschema) because a load checks every line of a 10,000-fact file; when a record
fails, jsonschema re-checks it to name the field at fault in a message a user can act on.
Both read the same schema files; a property test holds them to the same verdicts.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).with_name("schemas")
SCHEMA_NAMES = ("fact", "fact-input", "archived-fact", "entity", "relation",
                "activation-metadata", "canary-facts", "quarantine", "session-turn",
                "extractor-output", "summarize-ledger", "import-ledger", "vector-metadata")


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict:
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _compiled(name: str):
    import fastjsonschema

    return fastjsonschema.compile(load_schema(name))


@lru_cache(maxsize=None)
def _explainer(name: str):
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name))


def is_valid(name: str, record: Any) -> bool:
    import fastjsonschema

    try:
        _compiled(name)(record)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def problem(name: str, record: Any) -> str | None:
    """None when `record` is valid, else one line naming the field at fault."""
    if is_valid(name, record):
        return None
    errors = list(_explainer(name).iter_errors(record))
    if not errors:  # the two validators disagree; report what the fast one said
        return f"does not match the {name} schema"
    # The shallowest error is the one a person fixes first (a missing field before its type).
    first = min(errors, key=lambda e: (len(e.absolute_path), str(e.absolute_path)))
    return describe(first)


def describe(error) -> str:
    """A schema error as a short sentence; never echoes a (possibly huge) value in full."""
    field = ".".join(str(part) for part in error.absolute_path)
    subject = f"field {field!r}" if field else "the record"
    kind = error.validator
    instance = error.instance
    if kind == "required":
        present = instance if isinstance(instance, dict) else {}
        missing = [key for key in error.validator_value if key not in present]
        return f"missing field {missing[0]!r}" + (f" in {field!r}" if field else "")
    if kind == "additionalProperties":
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(key for key in instance if key not in allowed)
        return f"unknown field {extra[0]!r}" + (f" in {field!r}" if field else "")
    if kind == "type":
        return f"{subject} must be {_article(error.validator_value)}, got {_json_type(instance)}"
    if kind == "maxLength":
        return (f"{subject} is too long: {len(instance)} characters, "
                f"at most {error.validator_value} allowed")
    if kind == "minLength":
        return f"{subject} must not be empty"
    if kind in ("maxItems", "minItems"):
        bound = "at most" if kind == "maxItems" else "at least"
        return f"{subject} must have {bound} {error.validator_value} items, has {len(instance)}"
    if kind in ("minimum", "maximum"):
        low = error.schema.get("minimum")
        high = error.schema.get("maximum")
        return f"{subject} must be between {low} and {high}, got {instance!r}"
    if kind == "enum":
        choices = ", ".join(str(choice) for choice in error.validator_value)
        return f"{subject} must be one of {choices}; got {_short(instance)}"
    if kind in ("pattern", "propertyNames"):
        message = error.schema.get("x-message", "has a value that is not allowed")
        return f"{subject} {message}: {_short(instance)}"
    return f"{subject}: {error.message[:200]}"


def _article(type_name) -> str:
    names = type_name if isinstance(type_name, list) else [type_name]
    words = {"object": "an object", "array": "an array", "integer": "an integer",
             "string": "a string", "number": "a number", "boolean": "true or false",
             "null": "null"}
    return " or ".join(words.get(name, name) for name in names)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
