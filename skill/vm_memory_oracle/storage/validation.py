"""JSON Schema validation of every record type, before any write and at every load.

The schemas (draft 2020-12) live in `schemas/`. Checking uses a compiled validator
(fastjsonschema) because a load checks every line of a 10,000-fact file; when a record
fails, jsonschema re-checks it to name the field at fault in a message a user can act on.
Both read the same schema files; a property test holds them to the same verdicts.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).with_name("schemas")
SCHEMA_NAMES = (
    "fact",
    "fact-input",
    "archived-fact",
    "entity",
    "relation",
    "activation-metadata",
    "canary-facts",
    "quarantine",
    "session-turn",
    "extractor-output",
    "summarize-ledger",
    "import-ledger",
    "vector-metadata",
    "activation-journal",
    "audit-entry",
    "probe-result",
    "consolidation-checkpoint",
    "health",
    "pending-memory",
    "episode",
    "forgotten-turn",
    "forget-journal",
)


@cache
def load_schema(name: str) -> dict:
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


GENERATED_DIR = Path(__file__).with_name("validators")


@cache
def _compiled(name: str):
    """The schema's validator: the generated module when it matches the schema file (no
    compiling at start-up), else one compiled now."""
    import importlib

    text = (SCHEMA_DIR / f"{name}.schema.json").read_bytes()
    try:
        module = importlib.import_module(f"{__package__}.validators.{_module_name(name)}")
    except ModuleNotFoundError:
        module = None
    if module is not None and module.SCHEMA_SHA256 == hashlib.sha256(text).hexdigest():
        return module.validate
    # A schema edited since its module was generated: compiled now, until regenerated.
    import fastjsonschema

    return fastjsonschema.compile(json.loads(text))


def _module_name(name: str) -> str:
    return name.replace("-", "_")


def generated_sources() -> dict[str, str]:
    """File name -> Python source of each schema's generated validator."""
    import fastjsonschema

    sources = {
        "__init__.py": '"""Validators generated from ../schemas by fastjsonschema; see '
        'validation.generated_sources()."""\n\n\n' + _ERRORS
    }
    for name in SCHEMA_NAMES:
        text = (SCHEMA_DIR / f"{name}.schema.json").read_bytes()
        # The generated code needs fastjsonschema only for two exception classes; importing
        # the package costs a command start 20 ms, so the classes come from validators/.
        code = fastjsonschema.compile_to_code(json.loads(text), detailed_exceptions=False).replace(
            "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException",
            "from . import JsonSchemaValueException, JsonSchemaValuesException",
        )
        # The first function the generator writes is the schema's entry point; its name
        # comes from the schema's $id, so the module names it `validate` for the loader.
        entry = re.search(r"^def (validate_\w+)\(", code, re.MULTILINE)
        if entry is None:
            raise RuntimeError(f"no validate function generated for {name}")
        sources[f"{_module_name(name)}.py"] = (
            f"# Generated from schemas/{name}.schema.json by fastjsonschema; do not edit.\n"
            f"# Regenerate: python -m vm_memory_oracle.storage.validation\n"
            f"SCHEMA_SHA256 = {hashlib.sha256(text).hexdigest()!r}\n\n{code}"
            f"\n\nvalidate = {entry.group(1)}\n"
        )
    return sources


_ERRORS = '''class JsonSchemaValueException(ValueError):
    """A record does not match its schema (raised by the generated validators)."""

    def __init__(self, message, value=None, name=None, definition=None, rule=None):
        super().__init__(message)
        self.message = message
        self.value = value
        self.name = name
        self.definition = definition
        self.rule = rule


JsonSchemaValuesException = JsonSchemaValueException
'''


def write_generated() -> None:
    GENERATED_DIR.mkdir(exist_ok=True)
    for file_name, source in generated_sources().items():
        (GENERATED_DIR / file_name).write_text(source, encoding="utf-8")


@cache
def _explainer(name: str):
    from jsonschema import Draft202012Validator, validators

    strict = validators.extend(Draft202012Validator, {"pattern": _pattern_to_the_end})
    return strict(load_schema(name))


def _pattern_to_the_end(validator, pattern, instance, schema):
    """The `pattern` keyword as the fast validator reads it: `$` is the end of the text.
    (Python's re also lets `$` match before a final newline, so plain jsonschema would find
    nothing wrong with "x\n" and the message could not name the field.)"""
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _to_the_end(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def _to_the_end(pattern: str) -> re.Pattern:
    return re.compile(re.sub(r"(?<!\\)\$", r"\\Z", pattern))


def is_valid(name: str, record: Any) -> bool:
    try:
        _compiled(name)(record)
    except ValueError:  # what both the generated and the compiled validators raise
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
        return (
            f"{subject} is too long: {len(instance)} characters, "
            f"at most {error.validator_value} allowed"
        )
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


def _article(type_name: str | list[str]) -> str:
    names = type_name if isinstance(type_name, list) else [type_name]
    words = {
        "object": "an object",
        "array": "an array",
        "integer": "an integer",
        "string": "a string",
        "number": "a number",
        "boolean": "true or false",
        "null": "null",
    }
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


if __name__ == "__main__":
    write_generated()
