"""Time as the library sees it: aware UTC datetimes, written as ISO-8601 with a Z.

Every action takes its `now` from the caller (the CLI's `--now`, or the wall clock), so
tests and replays of old logs see the same numbers as a live run.
"""

from __future__ import annotations

from datetime import datetime, timezone
from functools import lru_cache

from .errors import InvalidInputError

SECONDS_PER_DAY = 86400.0


def utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


@lru_cache(maxsize=65536)
def parse_iso(value: str, *, what: str = "timestamp") -> datetime:
    """Parse an ISO-8601 date or date-time; a value without a zone is taken as UTC."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{what} must be an ISO-8601 date-time, got {value!r}", key=what)
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInputError(
            f"{what} is not an ISO-8601 date-time: {value!r}", key=what
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def format_iso(moment: datetime) -> str:
    """UTC, second precision unless the moment has sub-second parts, with a Z suffix."""
    moment = moment.astimezone(timezone.utc)
    text = moment.isoformat(timespec="microseconds" if moment.microsecond else "seconds")
    return text.replace("+00:00", "Z")


def days_between(earlier: datetime, later: datetime) -> float:
    return (later - earlier).total_seconds() / SECONDS_PER_DAY
