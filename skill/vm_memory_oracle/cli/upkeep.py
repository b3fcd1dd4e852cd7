"""The actions that look after the memory: consolidate, health-check and quality-probe."""

from __future__ import annotations

from ..clock import format_iso
from ..errors import (
    EXIT_DEGRADED,
    EXIT_UNHEALTHY,
    DataDirError,
)
from ..progress import progress_bar
from .context import Context


def action_consolidate(args, context: Context) -> tuple[dict, list[str]]:
    from dataclasses import asdict

    from ..consolidate import consolidate, dry_run

    layout = context.checked_layout()  # a missing data directory is an error, not made here
    if not args.dry_run and not layout.is_made():
        from ..workspace import ensure_layout

        ensure_layout(layout, actor=context.actor, at=format_iso(context.now), action="consolidate")
    elif not layout.graph_dir.is_dir():
        raise DataDirError(layout.root, "not initialized (run --action init)")
    run = dry_run if args.dry_run else consolidate
    with progress_bar() as bar:
        report = run(layout, context.settings, context.now, actor=context.actor, progress=bar)
    context.warn(*report.warnings)
    return {
        **asdict(report),
        "steps": [step.as_dict() for step in report.steps],
    }, consolidation_lines(report)


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


def action_health_check(args, context: Context) -> tuple[dict, list[str]]:
    from ..steps.health import run_health_check

    layout = context.checked_layout()
    if not layout.state_dir.is_dir():
        raise DataDirError(layout.root, "not initialized (run --action init)")
    document, repaired = run_health_check(
        context.store(), context.settings, context.now, repair=args.repair
    )
    lines = [f"repaired: {finding.message}" for finding in repaired]
    lines += [
        f"{document['status']}: {document['active_facts']} active facts, "
        f"{document['archived_facts']} archived, MEMORY.md {document['memory_md_lines']} "
        f"lines, disk {document['disk_usage_percent']}% used (written to "
        f"{layout.relative(layout.health)})"
    ]
    lines += [f"  warning: {warning}" for warning in document["warnings"]]
    stale = document["stale_references"]
    lines += [
        f"  to review: {entry['fact']} names paths that are gone: {', '.join(entry['gone'])}"
        for entry in stale[:MAX_CHANGES_SHOWN]
    ]
    if len(stale) > MAX_CHANGES_SHOWN:
        lines.append(
            f"  ... and {len(stale) - MAX_CHANGES_SHOWN} more to review "
            "(health.json's stale_references lists them all)"
        )
    if args.strict and document["status"] != "healthy":
        context.exit_code = EXIT_DEGRADED if document["status"] == "degraded" else EXIT_UNHEALTHY
    return document, lines


def action_quality_probe(args, context: Context) -> tuple[dict, list[str]]:
    from ..indexes import bring_in_step
    from ..steps.health import run_health_check
    from ..steps.probe import quality_probe

    graph = context.graph()
    indexes = bring_in_step(graph)
    context.warn(*indexes.warnings)
    assert indexes.choice is not None
    record, warnings = quality_probe(
        graph, context.now, indexes=indexes, embedder_id=indexes.choice.embedder.model_id
    )
    context.warn(*warnings)
    document, _ = run_health_check(
        context.store(), context.settings, context.now, purpose="quality-probe: health"
    )
    if not record["total"]:
        return record, [
            f"No canaries in {graph.layout.relative(graph.layout.canaries)}: add "
            '[{"query": ..., "expected_contains": ...}] entries to measure recall'
        ]
    lines = [
        f"Quality probe: {record['passed']} of {record['total']} canaries passed "
        f"({record['accuracy']:.0%}); health {document['status']}"
    ]
    for failure in record["failures"]:
        top = "; ".join(failure["top"]) or "nothing"
        lines.append(
            f"  failed: {failure['query']!r} expected {failure['expected_contains']!r}, got: {top}"
        )
    return record, lines
