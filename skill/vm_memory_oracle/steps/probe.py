"""--action quality-probe: does recall still find what it should?

Each canary of knowledge-graph/canary-facts.json ({query, expected_contains}) is asked of
recall without boosting, so the probe changes no activation. A canary passes when its
expected text is in one of the top-k results, dates compared in one form ("May 15, 2026"
and "2026-05-15" are the same day). The result is appended to state/probe-log.jsonl; the
health check reads the last one and warns below 70%.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..clock import format_iso
from ..graph import KnowledgeGraph
from ..model.dates_text import contains_expected
from ..recall import Asked, FoundEpisode, ResultSet, recall_many
from ..recall.results import Found

SHOWN_RESULTS = 3


@dataclass(frozen=True, slots=True)
class Canary:
    """A question recall should answer, and the text one of its results should hold."""

    query: str
    expected_contains: str

    @classmethod
    def of(cls, record: dict) -> Canary:
        """From an entry of canary-facts.json."""
        return cls(record["query"], record["expected_contains"])


@dataclass(frozen=True, slots=True)
class ProbeFailure:
    """A canary recall missed, with the first results it gave instead."""

    query: str
    expected_contains: str
    top: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "expected_contains": self.expected_contains,
            "top": list(self.top),
        }


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """A quality probe, as state/probe-log.jsonl records it."""

    at: str
    total: int
    passed: int
    accuracy: float | None  # None without canaries
    k: int
    failures: tuple[ProbeFailure, ...]
    embedder: str | None = None  # the model id recall used, when known

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "at": self.at,
            "total": self.total,
            "passed": self.passed,
            "accuracy": self.accuracy,
            "k": self.k,
            "failures": [failure.to_json() for failure in self.failures],
        }
        if self.embedder:
            record["embedder"] = self.embedder
        return record


def read_canaries(graph: KnowledgeGraph) -> list[Canary]:
    path = graph.layout.canaries
    if not path.exists():
        return []
    return [Canary.of(entry) for entry in graph.store.read_json_file(path, "canary-facts")]


def quality_probe(
    graph: KnowledgeGraph, now: datetime, *, indexes=None, embedder_id: str | None = None
) -> tuple[ProbeResult, list[str]]:
    """The probe's result, logged, and the warnings of its recall."""
    canaries = read_canaries(graph)
    k = graph.settings.recall_k
    warnings: list[str] = []
    result_sets: list[ResultSet] = []
    if canaries:
        recalled = recall_many(
            graph, [Asked(c.query, k) for c in canaries], now, boost=False, indexes=indexes
        )
        result_sets, warnings = list(recalled), list(recalled.warnings)
    failures = []
    for canary, result in zip(canaries, result_sets):
        texts = [_searchable_text(hit) for hit in result.hits]
        if not any(contains_expected(text, canary.expected_contains) for text in texts):
            failures.append(
                ProbeFailure(
                    canary.query,
                    canary.expected_contains,
                    tuple(hit.text for hit in result.hits[:SHOWN_RESULTS]),
                )
            )
    total = len(canaries)
    probed = ProbeResult(
        at=format_iso(now),
        total=total,
        passed=total - len(failures),
        accuracy=round((total - len(failures)) / total, 4) if total else None,
        k=k,
        failures=tuple(failures),
        embedder=embedder_id,
    )
    with graph.store.locked("quality-probe"):
        graph.store.append_records(graph.layout.probe_log, "probe-result", [probed.to_json()])
    return probed, warnings


def _searchable_text(hit: Found) -> str:
    """The result as the probe reads it: a fact's sentence and its subject, predicate and
    object; an episode's passage and who said it."""
    if isinstance(hit, FoundEpisode):
        return f"{hit.text} | {hit.speaker}"
    return f"{hit.text} | {hit.subject} {hit.predicate.replace('_', ' ')} {hit.object}"
