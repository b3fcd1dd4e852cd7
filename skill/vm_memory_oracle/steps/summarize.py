"""summarize: the session logs of a day -> the memory, and daily/YYYY-MM-DD.md.

1. OpenClaw transcripts and notes, when configured, are copied into sessions/.
2. The logs to read are listed, once: the day's, or with `all_pending` those of every day
   with a log not read to its end.
3. They are learned (learning/logs.learn_logs, the way every turn enters the memory): their
   secrets redacted in place (line numbers kept), their turns read and handed on to
   learn(), which keeps the facts citing sessions/<file>:<line>, the turns as episodes and
   each day's summary, rendered from the facts of all that day's turns, learned now or
   before, and marks in the ledger (state/summarized.json) how far each log was read, so
   that a second run learns nothing and boosts nothing.

The live path (learning/live.py) learns what just ended the same way, without this step.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ..config import Settings
from ..graph import KnowledgeGraph
from ..learning.learn import LearnReport, Progress
from ..learning.ledger import fully_summarized, read_ledger
from ..learning.logs import learn_logs
from ..openclaw.imports import ImportReport, import_openclaw, import_openclaw_state
from ..openclaw.provenance import Admission
from ..storage.sessions import session_day


def summarize(
    graph: KnowledgeGraph,
    settings: Settings,
    now: datetime,
    *,
    day: str | None = None,
    all_pending: bool = False,
    progress: Progress | None = None,
) -> LearnReport:
    """`progress(label, done, total)`, when given, is told of each day read."""
    imported = _import_from_openclaw(graph.store, settings)
    logs = _logs_to_read(graph.store, day or now.date().isoformat(), all_pending)
    return learn_logs(graph, now, logs, imported=imported, progress=progress)


def _import_from_openclaw(store, settings: Settings) -> list[tuple[ImportReport, str]]:
    """New turns of OpenClaw's conversations (its state database, or its session and memory
    directories), copied into sessions/ before the logs are read: their turns are learned
    from there, as every other log's are."""
    imported = []
    if settings.openclaw_state_dir:
        imported.append(
            (
                import_openclaw_state(
                    store, settings.openclaw_state_dir, admission=Admission.of(settings)
                ),
                "openclaw import",
            )
        )
    if settings.openclaw_sessions_dir or settings.openclaw_memory_dir:
        copied = import_openclaw(
            store,
            sessions_dir=settings.openclaw_sessions_dir,
            memory_dir=settings.openclaw_memory_dir,
        )
        imported.append((copied, "openclaw import"))
    return imported


def _logs_to_read(store, day: str, all_pending: bool) -> dict[str, list[Path]]:
    """The logs to read, by day: `day`'s, or with `all_pending` those of every day with a
    log not summarized to its end. The logs are listed once."""
    if not all_pending:
        found = store.session_files(day)
        return {day: found} if found else {}
    listed = store.session_files()
    ledger = read_ledger(store)
    pending = {session_day(path) for path in listed if not fully_summarized(path, ledger)}
    logs: dict[str, list[Path]] = {}
    for path in listed:
        if session_day(path) in pending:
            logs.setdefault(session_day(path), []).append(path)
    return dict(sorted(logs.items()))
