"""Step 8 of consolidation: clean.

Session logs older than session_retention_days are removed, but never one with lines
summarize has not read (its facts would be lost); daily summaries older than
daily_retention_days are removed, and so are consolidation reports (state/reports/) and
audit log lines; proposals pending review longer than proposal_max_age_days expire, each
listed. (At the start of every consolidation, temporary files a crash left behind are
removed, remove_leftover_temporaries, and torn lines quarantined, quarantine_invalid_lines.)
Ages are whole days between the date in the file name and today (UTC).
"""

from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import Path

from ..graph import KnowledgeGraph
from ..learning.daily import DAILY_NAME
from ..learning.ledger import forget_removed_logs, unsummarized
from ..proposals import PendingMemories
from ..storage import snapshot
from ..storage.sessions import session_day
from .report import StepReport

# What an atomic write of the store leaves when killed between writing and renaming.
TEMPORARY = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
REPORT_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})T[\d-]+(?:\.\d+)?Z\.md$")


def expired_sessions(graph: KnowledgeGraph, today: date) -> list:
    limit = graph.settings.session_retention_days
    return [
        path
        for path in graph.store.session_files()
        if (today - date.fromisoformat(session_day(path))).days > limit
    ]


def expired_daily(graph: KnowledgeGraph, today: date, *, reports: bool = False) -> list:
    """Daily summaries (or, with reports=True, consolidation reports) past
    daily_retention_days."""
    limit = graph.settings.daily_retention_days
    directory = graph.layout.reports_dir if reports else graph.layout.daily_dir
    pattern = REPORT_NAME if reports else DAILY_NAME
    if not graph.store.usable(directory) or not directory.is_dir():
        return []
    found = []
    for path in sorted(directory.iterdir()):
        match = pattern.match(path.name)
        if match and path.is_file() and graph.store.usable(path):
            try:
                day = date.fromisoformat(match.group(1))
            except ValueError:
                continue
            if (today - day).days > limit:
                found.append(path)
    return found


def leftover_temporaries(store) -> list[Path]:
    """The temporary files of atomic rewrites (.<name>.<random>.tmp) in the layout's
    directories, state/cache/ and the reports included: a crash's, or, outside the write
    lock, one in progress."""
    found = []
    for directory in [
        *store.layout.directories(),
        store.layout.cache_dir,
        store.layout.reports_dir,
    ]:
        if store.refused(directory) is not None or not directory.is_dir():
            continue
        found += [
            path
            for path in sorted(directory.iterdir())
            if TEMPORARY.match(path.name) and path.is_file() and store.refused(path) is None
        ]
    return found


def remove_leftover_temporaries(store) -> list[str]:
    """Remove the temporary files of atomic rewrites a crash cut short; under the write
    lock, so no rewrite of ours is in progress."""
    removed = []
    with store.locked("remove leftover temporary files"):
        for path in leftover_temporaries(store):
            _remove(store, path)
            removed.append(store.layout.relative(path))
        if removed:
            store.note(
                f"removed {len(removed)} temporary file(s) of an interrupted write", repair=True
            )
    return removed


def quarantine_invalid_lines(store) -> None:
    """Read every JSONL file the tool appends to, so that a line torn by a power loss or
    spoilt by a hand edit is quarantined now, even in a file no step of this run reads
    (the probe log, the audit log before its trim). Each line is parsed and checked, then
    dropped: a clean file leaves nothing behind, in memory or on disk (at a million
    facts, the records of every file read whole took this check past 2 GB). A file with a
    line to set aside is read as its own reader reads it, which quarantines the line and
    reports it; what that read is not held after (snapshot.only_while)."""
    with snapshot.only_while():
        _read_every_line(store)


def _read_every_line(store) -> None:
    layout = store.layout
    for path, kind, unique_key in (
        (layout.facts, "fact", "id"),
        (layout.archive, "archived-fact", None),
        (layout.entities, "entity", None),
        (layout.relations, "relation", None),
        (layout.vector_metadata, "vector-metadata", None),
        (layout.activation_journal, "activation-journal", None),
        (layout.audit_log, "audit-entry", None),
        (layout.probe_log, "probe-result", None),
        (layout.pending_memories, "pending-memory", "id"),
    ):
        if path in (layout.entities, layout.relations):
            # no command reads their records (they are compared with what the facts make a
            # line at a time): a snapshot of them left by an earlier version is read no more
            snapshot.discard(layout.snapshot_for(path))
        if path == layout.facts and store.facts_at() is not None:
            # every line a fact, each id once (read at their places); a snapshot of its
            # records left by an earlier version is read no more
            snapshot.discard(layout.snapshot_for(path))
            continue
        if not path.exists() or not store.usable(path):
            continue
        if store.check_lines(path, kind, unique_key=unique_key).bad:
            store.read_records(path, kind, unique_key=unique_key, copy=False)


def clean(graph: KnowledgeGraph, now: datetime) -> StepReport:
    layout, store = graph.layout, graph.store
    today = now.date()
    changes: list[dict] = []
    warnings: list[str] = []
    with store.locked("consolidate: clean"):
        sessions = expired_sessions(graph, today)
        pending = unsummarized(store, sessions)
        removed_sessions = []
        for path in sessions:
            name = layout.relative(path)
            if path in pending:
                warnings.append(
                    f"{name} is past session_retention_days but has lines not summarized yet; kept"
                )
                continue
            _remove(store, path)
            removed_sessions.append(path.name)
            changes.append(
                {
                    "file": name,
                    "change": "removed",
                    "reason": f"session log older than "
                    f"{graph.settings.session_retention_days} days",
                }
            )
        forget_removed_logs(store)
        daily = expired_daily(graph, today)
        for path in daily:
            _remove(store, path)
            changes.append(
                {
                    "file": layout.relative(path),
                    "change": "removed",
                    "reason": f"daily summary older than "
                    f"{graph.settings.daily_retention_days} days",
                }
            )
        reports = expired_daily(graph, today, reports=True)
        for path in reports:
            _remove(store, path)
            changes.append(
                {
                    "file": layout.relative(path),
                    "change": "removed",
                    "reason": f"consolidation report older than "
                    f"{graph.settings.daily_retention_days} days",
                }
            )
        trimmed = _trim_audit_log(graph, today)
        if changes:
            store.note(
                f"removed {len(removed_sessions)} session log(s), {len(daily)} daily "
                f"summaries and {len(reports)} consolidation reports past retention"
            )
        max_age = graph.settings.proposal_max_age_days
        expired = PendingMemories(graph).expire(now, max_age)
        for proposal in expired:
            changes.append(
                {
                    "proposal": proposal.id,
                    "change": "expired",
                    "reason": f"pending more than {max_age} days (proposed by "
                    f"{proposal.proposer} at {proposal.proposed_at}): "
                    f"{proposal.fact.sentence}",
                }
            )
    return StepReport(
        "clean",
        counts={
            "sessions_removed": len(removed_sessions),
            "daily_removed": len(daily),
            "reports_removed": len(reports),
            "sessions_kept_unsummarized": len(pending),
            "audit_lines_dropped": trimmed,
            "proposals_expired": len(expired),
        },
        changes=changes,
        warnings=warnings,
    )


def _remove(store, path) -> None:
    store.delete(path)


def _trim_audit_log(graph: KnowledgeGraph, today: date) -> int:
    path = graph.layout.audit_log
    if not path.exists():
        return 0
    limit = graph.settings.daily_retention_days
    entries = graph.store.read_records(path, "audit-entry", copy=False)
    kept = [
        entry for entry in entries if (today - date.fromisoformat(entry["at"][:10])).days <= limit
    ]
    if len(kept) == len(entries):
        return 0
    graph.store.rewrite_records(path, "audit-entry", kept)
    return len(entries) - len(kept)
