"""User input turned into candidate facts, all checked before anything is written.

A batch is accepted whole or refused whole: the first bad line stops it with a message
naming the line, and nothing reaches the data directory.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from .errors import InvalidInputError
from .model.fact import Fact, new_fact
from .model.provenance import OWNER_SAID, Provenance
from .storage import strict_json
from .storage.validation import problem

MAX_LINE_BYTES = 1 << 20


@dataclass
class Candidates:
    facts: list[Fact] = field(default_factory=list)
    redactions: int = 0
    lines: list[int] = field(default_factory=list)  # the input line of each fact


def candidate_fact(
    fields: object,
    *,
    created: str,
    default_source: str,
    source: str,
    line: int | None = None,
    provenance: Provenance = OWNER_SAID,
    shared: dict | None = None,
) -> tuple[Fact, int]:
    """Check one input value (an object, or the error naming what it is instead), redact
    secrets in it, build and check its fact, said by whom `provenance` names (the owner at
    the machine, unless the caller knows better). `shared`: as for Fact.from_record, kept by
    the reader of many values.

    Returns the fact and how many secrets were replaced.
    """
    fault = problem("fact-input", fields)
    if fault or not isinstance(fields, dict):
        raise InvalidInputError(fault or "not an object", source=source, line=line)
    from .extract.redact import redact_value  # its patterns compile on first use only

    redacted, redactions = redact_value(fields)
    fact = new_fact(
        redacted,
        created=created,
        default_source=default_source,
        provenance=provenance,
        shared=shared,
    )
    fault = problem("fact", fact.to_record())
    if fault:
        raise InvalidInputError(fault, source=source, line=line)
    return fact.mark_checked(), redactions


def read_json_lines(
    stream: BinaryIO, source: str, *, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, object]]:
    """(line number, parsed value) for each non-blank line; refuses oversized or broken lines."""
    # readline with a limit: a line without end (--from /dev/zero) is refused at the limit,
    # not read into memory whole.
    for number, raw in enumerate(iter(lambda: stream.readline(max_line_bytes + 1), b""), start=1):
        if len(raw) > max_line_bytes:
            raise InvalidInputError(
                f"line is longer than the {max_line_bytes} bytes allowed",
                source=source,
                line=number,
            )
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInputError("not UTF-8 text", source=source, line=number) from None
        try:
            value = strict_json.loads(text)
        except strict_json.JsonRefused as exc:
            raise InvalidInputError(str(exc), source=source, line=number) from None
        yield number, value


def facts_from_jsonl(
    stream: BinaryIO,
    source: str,
    *,
    created: str,
    default_source: str | None = None,
    defaults: dict | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    provenance: Provenance = OWNER_SAID,
) -> Candidates:
    """Every line of `stream` as a candidate fact.

    A line without its own `source` gets `default_source`, else import:<source>; a line
    without one of the fields of `defaults` gets its value there.
    """
    fallback = default_source or f"import:{source}"
    result = Candidates()
    # The values that repeat from fact to fact (the source, the creation time, the
    # provenance) are one object for the batch: a million facts made each its own, 300 MB.
    shared: dict = {}
    for number, value in read_json_lines(stream, source, max_line_bytes=max_line_bytes):
        if defaults and isinstance(value, dict):
            value = {**defaults, **value}
        fact, redactions = candidate_fact(
            value,
            created=created,
            default_source=fallback,
            source=source,
            line=number,
            provenance=provenance,
            shared=shared,
        )
        result.facts.append(fact)
        result.redactions += redactions
        result.lines.append(number)
    if not result.facts:
        raise InvalidInputError("no facts in input", source=source)
    return result


@dataclass(frozen=True, slots=True)
class QueryLine:
    """One line of a --queries file: the query and how many results it asks for (None:
    the command's --k)."""

    query: str
    k: int | None = None


def queries_from_jsonl(
    stream: BinaryIO, source: str, *, max_line_bytes: int = MAX_LINE_BYTES
) -> list[QueryLine]:
    """Recall queries, one {"query": str, "k": int?} object a line."""
    queries = []
    for number, value in read_json_lines(stream, source, max_line_bytes=max_line_bytes):
        if not isinstance(value, dict):
            raise InvalidInputError(
                'each line must be an object like {"query": "..."}', source=source, line=number
            )
        unknown = sorted(set(value) - {"query", "k"})
        if unknown:
            raise InvalidInputError(f"unknown field {unknown[0]!r}", source=source, line=number)
        query = value.get("query")
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError(
                "field 'query' must be a non-empty string", source=source, line=number
            )
        k = value.get("k")
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 1000):
            raise InvalidInputError(
                "field 'k' must be a whole number from 1 to 1000", source=source, line=number
            )
        queries.append(QueryLine(query, k))
    return queries
