"""The actions that look after the memory: consolidate, health-check and quality-probe."""

from __future__ import annotations

from ..errors import EXIT_DEGRADED, EXIT_OK, EXIT_UNHEALTHY
from ..memory import Memory
from ..progress import progress_bar
from .context import Output


def action_consolidate(args, memory: Memory) -> Output:
    from dataclasses import asdict

    with progress_bar() as bar:
        report = memory.consolidate(dry_run=args.dry_run, progress=bar)
    return Output(
        {
            **asdict(report),
            "steps": [step.as_dict() for step in report.steps],
            "changes": [change.to_json() for change in report.changes],
        },
        consolidation_lines(report),
    )


MAX_CHANGES_SHOWN = 50


def consolidation_lines(report) -> list[str]:
    """The consolidation report (steps/report.py); a dry run's lines say so each."""
    from ..steps.report import render

    more = f"all in {report.report_file}" if report.report_file else "--json lists them all"
    lines = render(report, max_changes=MAX_CHANGES_SHOWN, more=more)
    if report.report_file:
        lines += ["", f"Written to {report.report_file}."]
    if report.dry_run:
        lines = ["No file was changed. Run without --dry-run to apply these changes.", "", *lines]
        return [f"[DRY RUN] {line}".rstrip() for line in lines]
    return lines


def action_health_check(args, memory: Memory) -> Output:
    report, repaired = memory.check(repair=args.repair)
    measured = report.measured
    layout = memory.layout()
    lines = [f"repaired: {finding.message}" for finding in repaired]
    lines += [
        f"{report.status}: {measured.active_facts} active facts, "
        f"{measured.archived_facts} archived, MEMORY.md {measured.memory_md_lines} "
        f"lines, disk {measured.disk_usage_percent}% used (written to "
        f"{layout.relative(layout.health)})"
    ]
    lines += [f"  warning: {warning}" for warning in report.warnings]
    if measured.openclaw is not None and measured.openclaw.excluded:
        left_out = ", ".join(
            f"{why}: {count.sessions} ({count.events} event(s) unread)"
            for why, count in measured.openclaw.excluded
        )
        lines.append(f"  never learned, as the settings ask: OpenClaw sessions of {left_out}")
    stale = measured.stale_references
    lines += [
        f"  to review: {entry['fact']} names paths that are gone: {', '.join(entry['gone'])}"
        for entry in stale[:MAX_CHANGES_SHOWN]
    ]
    if len(stale) > MAX_CHANGES_SHOWN:
        lines.append(
            f"  ... and {len(stale) - MAX_CHANGES_SHOWN} more to review "
            "(health.json's stale_references lists them all)"
        )
    exit_code = EXIT_OK
    if args.strict and report.status != "healthy":
        exit_code = EXIT_DEGRADED if report.status == "degraded" else EXIT_UNHEALTHY
    return Output(report.to_json(), lines, exit_code)


def action_quality_probe(args, memory: Memory) -> Output:
    result, report = memory.quality_probe()
    layout = memory.layout()
    if not result.total:
        return Output(
            result.to_json(),
            [
                f"No canaries in {layout.relative(layout.canaries)}: add "
                '[{"query": ..., "expected_contains": ...}] entries to measure recall'
            ],
        )
    lines = [
        f"Quality probe: {result.passed} of {result.total} canaries passed "
        f"({result.accuracy:.0%}); health {report.status}"
    ]
    for failure in result.failures:
        top = "; ".join(failure.top) or "nothing"
        lines.append(
            f"  failed: {failure.query!r} expected {failure.expected_contains!r}, got: {top}"
        )
    return Output(result.to_json(), lines)
