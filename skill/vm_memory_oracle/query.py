"""`query --jq`: a jq program over the active facts, each with its live activation."""

from __future__ import annotations

from datetime import datetime

from .errors import InvalidInputError
from .graph import KnowledgeGraph


def run_jq(graph: KnowledgeGraph, program: str, now: datetime) -> list:
    """Every value `program` outputs when given the array of active facts (like `jq -s`).

    Each fact carries its record fields plus text, activation (now), last_accessed and
    access_count; superseded facts are included with their superseded_by field.
    """
    import jq

    try:
        compiled = jq.compile(program)
    except ValueError as exc:
        raise InvalidInputError(f"invalid jq program: {_first_line(exc)}", source="--jq") from None
    facts = [fact.as_dict() for fact in graph.live_facts(now)]
    try:
        return compiled.input_value(facts).all()
    except ValueError as exc:
        raise InvalidInputError(f"jq program failed: {_first_line(exc)}", source="--jq") from None


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
