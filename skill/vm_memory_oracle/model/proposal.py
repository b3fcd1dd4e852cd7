"""A fact a sub-agent proposed, as state/pending-memories.jsonl keeps it, and what the
review shows of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .fact import Fact


@dataclass(frozen=True, slots=True)
class Proposal:
    """One pending proposal: its id, who proposed it, how sure they are, when, and the
    fact it would commit (its source naming the proposal, its confidence the proposal's)."""

    id: str
    proposer: str
    confidence: float
    proposed_at: str
    fact: Fact

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Proposal:
        """The record of pending-memories.jsonl (already checked) as a Proposal."""
        return cls(
            record["id"],
            record["proposer"],
            record["confidence"],
            record["proposed_at"],
            Fact.from_record(record["fact"]),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "proposer": self.proposer,
            "confidence": self.confidence,
            "proposed_at": self.proposed_at,
            "fact": self.fact.to_record(),
        }


@dataclass(frozen=True, slots=True)
class ReviewEntry:
    """A pending proposal with what accepting it would do: whether its fact is already
    known, and the current fact it would supersede (id and sentence), if any."""

    proposal: Proposal
    text: str  # the fact's sentence
    known: bool
    would_supersede: tuple[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {**self.proposal.to_json(), "text": self.text, "known": self.known}
        if self.would_supersede is not None:
            older_id, older_text = self.would_supersede
            entry["would_supersede"] = {"id": older_id, "text": older_text}
        return entry
