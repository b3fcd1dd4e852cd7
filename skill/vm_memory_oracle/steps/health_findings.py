"""What the health check warns of: the findings read from its measurements (Measurements,
made by health.collect; steps/health_records.py), each with its severity."""

from __future__ import annotations

from datetime import datetime

from ..clock import days_between, parse_iso
from ..config import Settings
from .health_records import Finding, Measurements, ProblemFound

# When a warning is raised; fact and line limits scale with the configured caps.
DISK_WARNING_PERCENT = 80.0
DISK_CRITICAL_PERCENT = 95.0
FACT_LIMIT_SHARE = 0.9  # of max_facts (9,000 of the default 10,000)
MEMORY_MD_LIMIT_SHARE = 0.9  # of memory_md_max_lines (180 of the default 200)
LOW_AVERAGE_ACTIVATION = 0.2
HIGH_AVERAGE_ACTIVATION = 0.8
SLOW_CONSOLIDATION_SECONDS = 600.0
PROBE_MIN_ACCURACY = 0.7
CONSOLIDATION_OVERDUE_DAYS = 2.0
RECENT_QUARANTINE_DAYS = 7.0


class _Findings(list):
    def warn(self, code: str, message: str, severity: str = "warning") -> None:
        self.append(Finding(code, severity, message))


def assess(measured: Measurements, settings: Settings, now: datetime) -> list[Finding]:
    """What health.json warns of, from what was measured: the memory's size and its decay,
    its schedules, its indexes, and its files."""
    return [
        *_size_findings(measured, settings),
        *_schedule_findings(measured, now),
        *_index_findings(measured),
        *_file_findings(measured),
    ]


def _size_findings(measured: Measurements, settings: Settings) -> list[Finding]:
    """The disk, the number of facts, how they decay, and MEMORY.md's length."""
    findings = _Findings()
    percent = measured.disk_usage_percent
    if percent > DISK_WARNING_PERCENT:
        findings.warn(
            "disk_usage",
            f"Disk usage high: {percent:.1f}% of the filesystem holding "
            f"{measured.data_path} is used",
            "critical" if percent > DISK_CRITICAL_PERCENT else "warning",
        )
    limit = FACT_LIMIT_SHARE * settings.max_facts
    if measured.active_facts > limit:
        findings.warn(
            "fact_limit",
            f"Approaching fact limit: {measured.active_facts} active facts, "
            f"max_facts {settings.max_facts}",
        )
    average = measured.avg_activation
    # Before one half-life has passed nothing can have decayed much: no advice yet.
    if average is not None and measured.memory_age_days >= settings.half_life_days:
        if average < LOW_AVERAGE_ACTIVATION:
            findings.warn(
                "low_activation",
                f"Most facts are decaying (average activation {average:.2f}); "
                "consider raising half_life_days",
            )
        elif average > HIGH_AVERAGE_ACTIVATION:
            findings.warn(
                "high_activation",
                f"Facts not decaying enough (average activation "
                f"{average:.2f}); consider lowering half_life_days",
            )
    lines_limit = MEMORY_MD_LIMIT_SHARE * settings.memory_md_max_lines
    if measured.memory_md_lines > lines_limit:
        findings.warn(
            "memory_md_lines",
            f"MEMORY.md approaching {settings.memory_md_max_lines}-line "
            f"limit: {measured.memory_md_lines} lines",
        )
    return findings


def _schedule_findings(measured: Measurements, now: datetime) -> list[Finding]:
    """Consolidation's duration and last run, and the last quality probe."""
    findings = _Findings()
    duration = measured.consolidation_duration_seconds
    if duration is not None and duration > SLOW_CONSOLIDATION_SECONDS:
        findings.warn("slow_consolidation", f"Consolidation taking too long: {duration:.0f} s")
    last = measured.last_consolidation
    if last is not None and days_between(parse_iso(last), now) > CONSOLIDATION_OVERDUE_DAYS:
        findings.warn(
            "consolidation_overdue", f"No consolidation since {last}; is the cron job running?"
        )
    probe = measured.last_probe
    if probe is not None and probe.accuracy is not None and probe.accuracy < PROBE_MIN_ACCURACY:
        findings.warn(
            "probe_accuracy",
            f"Recall quality below {PROBE_MIN_ACCURACY:.0%}: {probe.passed} "
            f"of {probe.total} canaries passed ({probe.at})",
        )
    return findings


def _index_findings(measured: Measurements) -> list[Finding]:
    """The vector and full-text indexes, and the embedder."""
    findings = _Findings()
    index = measured.index
    if index.problem:
        findings.warn(
            "index",
            f"Semantic recall degraded: {index.problem}; the next recall or "
            "consolidation rebuilds the index",
        )
    text_index = measured.text_index
    if text_index.problem:
        findings.warn(
            "text_index",
            f"Lexical recall degraded: {text_index.problem}; the next recall or "
            "consolidation rebuilds the full-text index",
        )
    embedder = measured.embedder
    if embedder.problem:
        findings.warn("embedder", embedder.problem)
    return findings


def _file_findings(measured: Measurements) -> list[Finding]:
    """Invalid lines, OpenClaw's files and the plugin's set-up there, damaged and refused
    files, problems found, quarantine."""
    findings = _Findings()
    if measured.invalid_lines:
        findings.warn(
            "invalid_lines",
            f"{measured.invalid_lines} invalid line(s) in the knowledge "
            "graph; the next write quarantines them",
        )
    openclaw = measured.openclaw
    for problem in openclaw.problems if openclaw else ():
        findings.warn("openclaw", f"OpenClaw: {problem}")
    for setup in (openclaw.plugin_setup if openclaw else None) or ():
        findings.warn("openclaw_setup", f"OpenClaw's plugin is half set up: {setup.message}")
    for damaged in measured.damaged_files:
        findings.warn("damaged_file", f"{damaged.file}: {damaged.problem}")
    for found in measured.problems:
        if not _reported_elsewhere(found, measured):
            findings.warn(
                found.code,
                found.message + (" (health-check --repair repairs it)" if found.repairable else ""),
            )
    for refused in measured.refused:
        core = refused.file in measured.refused_core
        findings.warn(
            "refused",
            f"{refused.file}: {refused.problem}; "
            + ("commands that need it stop (exit 5)" if core else "skipped by every command")
            + f" until you {refused.fix}",
            "critical" if core else "warning",
        )
    if measured.recently_quarantined:
        findings.warn(
            "quarantine",
            f"{measured.recently_quarantined} line(s) quarantined in the last "
            f"{RECENT_QUARANTINE_DAYS:.0f} days (see *.quarantine.jsonl)",
        )
    return findings


def _reported_elsewhere(found: ProblemFound, measured: Measurements) -> bool:
    """Whether another measurement of health.json warns of this problem already (refused
    entries, the index, invalid lines of the facts, damaged canaries and ledgers), or it is
    not worth a warning: a snapshot left in state/cache/ of a file that is gone is never
    read again."""
    return (
        found.code in ("refused", "index_mismatch")
        or (found.code == "orphan_state" and found.file.startswith("state/cache/"))
        or (
            found.code == "invalid_line"
            and found.file
            in ("knowledge-graph/facts.jsonl", "knowledge-graph/archived-facts.jsonl")
        )
        or found.file in {damaged.file for damaged in measured.damaged_files}
    )
