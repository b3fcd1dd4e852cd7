"""What a recall returns, as records: a fact found, an episode found, the result set of one
query and the recall of several. Their JSON (the command line's --json, the recall
process's answers) is made here and nowhere else, from the records."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..model.fact import UNKNOWN_ORIGIN
from ..model.provenance import Provenance

JsonObject = dict[str, Any]  # a record as JSON writes it

# A source that names a turn of a session log: sessions/<file>.jsonl:<line>.
_SESSION_SOURCE = re.compile(r"^(sessions/[^/:]+\.jsonl):(\d+)$")


def cited_turn(source: str) -> tuple[str, int] | None:
    """(session log, line) a source names, or None for one that came from elsewhere
    (remembered, imported)."""
    found = _SESSION_SOURCE.match(source)
    return (found.group(1), int(found.group(2))) if found else None


@dataclass(frozen=True)
class Earlier:
    """A statement a returned fact replaced."""

    id: str
    text: str
    object: str
    created: str
    superseded_at: str | None

    def to_json(self) -> JsonObject:
        return {
            "id": self.id,
            "text": self.text,
            "object": self.object,
            "created": self.created,
            "superseded_at": self.superseded_at,
        }


@dataclass(frozen=True)
class FoundFact:
    """A fact a recall returned: its sentence and triple, its activation (after the boost,
    when boosted), its fused score, its source, the sources of recall that found it, and
    the statements it replaced, newest first."""

    KIND: ClassVar[str] = "fact"
    id: str
    text: str
    subject: str
    predicate: str
    object: str
    activation: float
    score: float
    source: str
    matched: tuple[str, ...]
    history: tuple[Earlier, ...] = ()
    provenance: Provenance = UNKNOWN_ORIGIN  # who said it (unknown: made before origins)

    @property
    def cited(self) -> tuple[str, int] | None:
        """(session log, line) of the turn it was learned from, if it was."""
        return cited_turn(self.source)

    @property
    def origin(self) -> str:
        return self.provenance.origin

    def to_json(self) -> JsonObject:
        entry: JsonObject = {
            "id": self.id,
            "text": self.text,
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "activation": self.activation,
            "score": self.score,
            "source": self.source,
            "matched": list(self.matched),
        }
        if self.history:
            entry["history"] = [earlier.to_json() for earlier in self.history]
        entry["origin"] = self.provenance.origin
        entry["provenance"] = self.provenance.to_json()
        return entry


@dataclass(frozen=True)
class FoundEpisode:
    """A turn (or passage of one) a recall returned: its text cut to a window around the
    query's words, who said it and when, its fused score, the turn it cites, and which of
    the episodes' lists found it."""

    KIND: ClassVar[str] = "episode"
    id: str
    text: str
    speaker: str
    said_at: str
    score: float
    source: str
    matched: tuple[str, ...]
    provenance: Provenance | None = None

    @property
    def cited(self) -> tuple[str, int] | None:
        return cited_turn(self.source)

    @property
    def origin(self) -> str | None:
        return None if self.provenance is None else self.provenance.origin

    def to_json(self) -> JsonObject:
        entry: JsonObject = {
            "id": self.id,
            "kind": self.KIND,
            "text": self.text,
            "speaker": self.speaker,
            "said_at": self.said_at,
            "score": self.score,
            "source": self.source,
            "matched": list(self.matched),
        }
        if self.provenance is not None:
            entry["origin"] = self.provenance.origin
            entry["provenance"] = self.provenance.to_json()
        return entry


Found = FoundFact | FoundEpisode


@dataclass(frozen=True)
class ResultSet:
    """The results of one query, best first, and the embedder that searched them (None when
    recall searched by words alone), with why it is not the one configured, if so."""

    query: str
    hits: tuple[Found, ...]
    embedder: str | None = None
    embedder_fallback: str | None = None

    def to_json(self) -> JsonObject:
        document: JsonObject = {
            "query": self.query,
            "results": [hit.to_json() for hit in self.hits],
        }
        if self.embedder is not None:
            document["embedder"] = self.embedder
        if self.embedder_fallback is not None:
            document["embedder_fallback"] = self.embedder_fallback
        return document


@dataclass(frozen=True)
class Recalled(Sequence[ResultSet]):
    """The result sets of a recall, one per query in their order, and the warnings the
    command must show (an index that was off or rebuilt, a model that fell back, a boost
    that could not be written)."""

    sets: tuple[ResultSet, ...]
    warnings: tuple[str, ...] = field(default=())

    def __len__(self) -> int:
        return len(self.sets)

    def __getitem__(self, position):
        return self.sets[position]

    def __iter__(self) -> Iterator[ResultSet]:
        return iter(self.sets)
