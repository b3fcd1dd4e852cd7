"""JSON as this tool reads and writes it: one meaning per document, or a refusal.

Python's json module accepts what other JSON readers do not (NaN and Infinity), silently
keeps the last of two duplicate keys (so a record could say two things and be read as
one), turns 1e999 into infinity, and overflows the stack on deeply nested input. Every
JSON document the tool reads goes through `loads`, every one it writes through `dumps`.
"""

from __future__ import annotations

import json
import math
from typing import Any


class JsonRefused(ValueError):
    """Text that is not a JSON document this tool accepts; the message says why."""


def loads(text: str) -> Any:
    try:
        return json.loads(
            text,
            object_pairs_hook=_without_duplicates,
            parse_constant=_no_constant,
            parse_float=_finite,
        )
    except JsonRefused:
        raise
    except json.JSONDecodeError as exc:
        raise JsonRefused(f"invalid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise JsonRefused("invalid JSON (nested too deeply)") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise JsonRefused(f"invalid JSON ({exc})") from None


def dumps(value: Any, **options) -> str:
    """json.dumps that refuses NaN and infinities instead of writing invalid JSON."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, **options)
    except ValueError as exc:
        raise JsonRefused(f"cannot be written as JSON ({exc})") from None
    except RecursionError:
        raise JsonRefused("cannot be written as JSON (nested too deeply)") from None


def _without_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise JsonRefused(f"duplicate key {key!r}")
            seen.add(key)
    return record


def _no_constant(name: str) -> float:
    raise JsonRefused(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonRefused(f"number {text} is out of range")
    return value
