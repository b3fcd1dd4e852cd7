"""Why a fact left the active set: a code and its detail, stored in the archive record's
`archive_cause`; the prose of `archive_reason` is rendered from them for people to read.

Archive records written before the cause was stored have the prose alone: `cause_of` reads
the cause back from it, so old archives load as new ones do.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
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


def cause_of(record: Mapping[str, Any]) -> ArchiveCause:
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


@dataclass(frozen=True, slots=True)
class Archived:
    """A fact as the archive keeps it (one line of archived-facts.jsonl): the fact, when it
    was archived and why, its activation then and, for a merged fact, the one it went into."""

    fact: Fact
    archived_at: str
    cause: ArchiveCause
    reason: str  # the prose archive_reason, as the record says it
    final_activation: float | None = None  # absent from some older records
    merged_into: str | None = None
    # Whether the record stores archive_cause (older records have the prose alone).
    cause_stored: bool = True
    purged: bool = False  # its text erased by forget --purge: a tombstone

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Archived:
        """The archive record (archived-facts.jsonl) as an Archived."""
        from .fact import Fact

        return cls(
            Fact.from_archived(record),
            record["archived_at"],
            cause_of(record),
            record["archive_reason"],
            record.get("final_activation"),
            record.get("merged_into"),
            "archive_cause" in record,
            bool(record.get("purged", False)),
        )

    @classmethod
    def new(
        cls,
        fact: Fact,
        archived_at: str,
        cause: ArchiveCause,
        final_activation: float,
        merged_into: str | None = None,
    ) -> Archived:
        """The record of `fact` archived now, its prose rendered from `cause`."""
        return cls(fact, archived_at, cause, cause.prose, final_activation, merged_into)

    def to_json(self) -> dict[str, Any]:
        """The record as archived-facts.jsonl holds it: the fact's keys, then the archive's."""
        record = self.fact.to_record()
        record["archived_at"] = self.archived_at
        record["archive_reason"] = self.reason
        if self.cause_stored:
            record["archive_cause"] = self.cause.as_dict()
        if self.final_activation is not None:
            record["final_activation"] = self.final_activation
        if self.merged_into is not None:
            record["merged_into"] = self.merged_into
        if self.purged:
            record["purged"] = True
        return record


class ArchiveById:
    """Archive records by fact id (each fact's last), read as Archived only when one is
    asked for: an archive may hold 100,000."""

    def __init__(self, records: Iterable[Mapping[str, Any]]):
        self._records = {record["id"]: record for record in records}
        self._read: dict[str, Archived] = {}

    def __contains__(self, fact_id: object) -> bool:
        return fact_id in self._records

    def __iter__(self) -> Iterator[str]:
        return iter(self._records)

    def get(self, fact_id: str) -> Archived | None:
        archived = self._read.get(fact_id)
        if archived is None:
            record = self._records.get(fact_id)
            if record is None:
                return None
            archived = self._read[fact_id] = Archived.of(record)
        return archived
