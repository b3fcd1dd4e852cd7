"""The health check's records: what it measured (Measurements, made by health.collect), each
part of it that is more than a number, and the report written as health.json (HealthReport).

Each `to_json` gives health.json's part with its keys in the order references/formats.md
lists them; HealthReport.to_json is the whole document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..lexical import TextIndexState
from .memory_md.workspaces import OpenClawHealth


@dataclass(frozen=True, slots=True)
class IndexState:
    """How the vector index stands against the facts (health.json's `index`)."""

    vectors: int
    facts: int
    consistent: bool
    pending: int  # facts remembered since the index was brought in step: normal
    stale: int
    problem: str | None  # damage: the index missing once built, invalid metadata lines

    def to_json(self) -> dict[str, Any]:
        return {
            "vectors": self.vectors,
            "facts": self.facts,
            "consistent": self.consistent,
            "pending": self.pending,
            "stale": self.stale,
            "problem": self.problem,
        }


@dataclass(frozen=True, slots=True)
class EmbedderState:
    """The model configured, the one the index was built with, and the problem when the
    index was built with a fallback (health.json's `embedder`)."""

    configured: str
    index_built_with: str | None
    problem: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "configured": self.configured,
            "index_built_with": self.index_built_with,
            "problem": self.problem,
        }


@dataclass(frozen=True, slots=True)
class LastProbe:
    """The last quality probe's result, as far as health.json repeats it."""

    at: str
    total: int
    passed: int
    accuracy: float | None

    @classmethod
    def of(cls, record: dict) -> LastProbe:
        """From a line of state/probe-log.jsonl."""
        return cls(record["at"], record["total"], record["passed"], record["accuracy"])

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "total": self.total,
            "passed": self.passed,
            "accuracy": self.accuracy,
        }


@dataclass(frozen=True, slots=True)
class RecentRepair:
    """A repair an audited command made: when, by which action, and what (`repairs`)."""

    at: str
    action: str
    repair: str  # as the audit log records it

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at, "action": self.action, "repair": self.repair}


@dataclass(frozen=True, slots=True)
class DamagedFile:
    """A file with damage no command mends by itself (`damaged_files`)."""

    file: str  # relative to the data directory
    problem: str

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "problem": self.problem}


@dataclass(frozen=True, slots=True)
class RefusedFile:
    """A file the store refused, with its problem and the fix (`refused`)."""

    file: str
    problem: str
    fix: str

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "problem": self.problem, "fix": self.fix}


@dataclass(frozen=True, slots=True)
class ProblemFound:
    """A broken invariant check.findings reports, not repaired (`problems`)."""

    code: str
    file: str
    message: str
    repairable: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "file": self.file,
            "message": self.message,
            "repairable": self.repairable,
        }


@dataclass(frozen=True, slots=True)
class Finding:
    """What health.json warns of: a code, its severity and the warning."""

    code: str
    severity: str  # "warning" or "critical"
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "message": self.message}


@dataclass(frozen=True)
class Measurements:
    """What the health check measured: health.json's fields, in its order, and what assess
    reads besides (the last three, not written)."""

    openclaw: OpenClawHealth | None
    timestamp: str
    data_path: str
    disk_usage_bytes: int
    disk_usage_percent: float
    total_facts: int
    active_facts: int
    archived_facts: int
    pinned_facts: int
    superseded_facts: int
    avg_activation: float | None
    daily_files_count: int
    session_files_count: int
    embedding_index_size_bytes: int
    memory_md_lines: int
    last_consolidation: str | None
    consolidation_duration_seconds: float | None
    index: IndexState
    text_index: TextIndexState
    embedder: EmbedderState
    last_probe: LastProbe | None
    quarantined_lines: int
    invalid_lines: int
    redactions: int
    pending_proposals: int
    repairs: list[RecentRepair]
    damaged_files: list[DamagedFile]
    refused: list[RefusedFile]
    problems: list[ProblemFound]
    stale_references: list  # steps/stale.flagged_references, as health.json has them
    refused_core: list[str]  # of `refused`, the files commands cannot do without
    recently_quarantined: int  # lines quarantined in the last RECENT_QUARANTINE_DAYS
    memory_age_days: float  # since the oldest current fact was made

    def document(self) -> dict[str, Any]:
        """health.json's measurements (status, warnings and findings are added to them)."""
        return {
            "openclaw": self.openclaw.to_json() if self.openclaw is not None else None,
            "timestamp": self.timestamp,
            "data_path": self.data_path,
            "disk_usage_bytes": self.disk_usage_bytes,
            "disk_usage_percent": self.disk_usage_percent,
            "total_facts": self.total_facts,
            "active_facts": self.active_facts,
            "archived_facts": self.archived_facts,
            "pinned_facts": self.pinned_facts,
            "superseded_facts": self.superseded_facts,
            "avg_activation": self.avg_activation,
            "daily_files_count": self.daily_files_count,
            "session_files_count": self.session_files_count,
            "embedding_index_size_bytes": self.embedding_index_size_bytes,
            "memory_md_lines": self.memory_md_lines,
            "last_consolidation": self.last_consolidation,
            "consolidation_duration_seconds": self.consolidation_duration_seconds,
            "index": self.index.to_json(),
            "text_index": self.text_index.to_json(),
            "embedder": self.embedder.to_json(),
            "last_probe": self.last_probe.to_json() if self.last_probe is not None else None,
            "quarantined_lines": self.quarantined_lines,
            "invalid_lines": self.invalid_lines,
            "redactions": self.redactions,
            "pending_proposals": self.pending_proposals,
            "repairs": [repair.to_json() for repair in self.repairs],
            "damaged_files": [damaged.to_json() for damaged in self.damaged_files],
            "refused": [refused.to_json() for refused in self.refused],
            "problems": [problem.to_json() for problem in self.problems],
            "stale_references": self.stale_references,
        }


@dataclass(frozen=True)
class HealthReport:
    """health.json: the measurements, the status they give, and what is warned of."""

    measured: Measurements
    status: str  # "healthy", "degraded" or "unhealthy"
    findings: list[Finding]

    @property
    def warnings(self) -> list[str]:
        return [finding.message for finding in self.findings]

    def to_json(self) -> dict[str, Any]:
        """The document written to health.json and printed by --json."""
        return {
            **self.measured.document(),
            "status": self.status,
            "warnings": self.warnings,
            "findings": [finding.to_json() for finding in self.findings],
        }
