"""Why a fact left the active set: a code and its detail, stored in the archive record's
`archive_cause`; the prose of `archive_reason` is rendered from them for people to read.

Archive records written before the cause was stored have the prose alone: `cause_of` reads
the cause back from it, so old archives load as new ones do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .fact import Fact

# code -> how its prose begins; the detail follows
CODES = {
    "superseded": "superseded by ",
    "merged": "merged into ",
    "pruned": "pruned: ",
    "stale": "stale: ",
    "forgotten": "forgotten: ",
    "other": "",
}


@dataclass(frozen=True)
class ArchiveCause:
    code: str  # one of CODES
    detail: str = ""  # the newer fact's id, the merge's target and reason, the figures, ...

    def __post_init__(self):
        if self.code not in CODES:
            raise ValueError(f"unknown archive cause {self.code!r}")

    @property
    def prose(self) -> str:
        """The archive_reason shown to people: "superseded by fact-...", "pruned: ...",
        "forgotten" (without a reason given)."""
        if not self.detail:
            return CODES[self.code].rstrip(" :") or self.code
        return CODES[self.code] + self.detail

    def as_dict(self) -> dict:
        return {"code": self.code, "detail": self.detail}


def cause_of(record: dict) -> ArchiveCause:
    """The cause of an archive record: its `archive_cause`, else read from the prose of an
    older record's `archive_reason` (a prose of no known kind is kept whole, as "other")."""
    stored = record.get("archive_cause")
    if stored is not None:
        return ArchiveCause(stored["code"], stored.get("detail", ""))
    reason = record["archive_reason"]
    for code, opening in CODES.items():
        if code == "other":
            continue
        if reason.startswith(opening):
            return ArchiveCause(code, reason[len(opening) :])
        if reason == opening.rstrip(" :"):
            return ArchiveCause(code)
    return ArchiveCause("other", reason)


@dataclass(frozen=True)
class Archived:
    """A fact as the archive keeps it: the fact, when it was archived and why."""

    fact: Fact
    archived_at: str
    cause: ArchiveCause
    reason: str  # the prose archive_reason, as the record says it

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Archived:
        """The archive record (archived-facts.jsonl) as an Archived."""
        from .fact import Fact

        return cls(
            Fact.from_archived(record),
            record["archived_at"],
            cause_of(dict(record)),
            record["archive_reason"],
        )
