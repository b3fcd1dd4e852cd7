"""summarize: the session logs of a day -> the memory, and daily/YYYY-MM-DD.md.

1. OpenClaw transcripts and notes, when configured, are copied into sessions/ (the live
   path, summarize_agent and summarize_notes, copies what just changed: an agent's new
   transcript turns, a workspace's new note lines).
2. The logs to read are listed, once: the day's, or with `all_pending` those of every day
   with a log not read to its end.
3. Secrets in them are redacted in place (line numbers kept).
4. Their turns are read and handed on to learn(), the one way a turn enters the memory:
   facts citing sessions/<file>:<line>, the turns kept as episodes, and the ledger
   (state/summarized.json) noting how far each log was read, so that a second run learns
   nothing and boosts nothing.
5. Each day's summary is rendered from the facts of all that day's turns, learned now or
   before, and written if it changed: with the facts, before the ledger.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path

from ..config import Settings
from ..extract.rules import section_of
from ..graph import KnowledgeGraph
from ..learning.learn import LearnReport, learn
from ..learning.ledger import fully_summarized, read_ledger
from ..learning.salience_scorer import SalienceScorer
from ..model.fact import Fact
from ..openclaw_import import (
    ImportReport,
    agent_copies,
    import_openclaw,
    import_openclaw_state,
)
from ..storage.sessions import session_day
from ..workspace_notes import import_workspace_notes
from . import session_logs
from .daily_summary import render_daily_summary

# A summarize that finds, once it holds the lock, that another one read the logs further
# since it read them, reads them again: its daily summary would lack what it missed.
READ_ATTEMPTS = 5


@dataclass
class SummarizeReport:
    days: list[str] = field(default_factory=list)
    session_files: list[str] = field(default_factory=list)
    turns: int = 0
    fragments: int = 0
    chatter: int = 0  # fragments of chatter or bare questions: kept in the log, not as facts
    facts_extracted: int = 0
    episodes: int = 0  # turns and passages kept as episodes (episodes/)
    added: int = 0
    reinforced: int = 0
    superseded: int = 0
    redactions: int = 0
    extractor: str = "rules"
    salience: str = ""  # what scored salience: "features", or "features and <model id>"
    daily_written: list[str] = field(default_factory=list)
    daily_unchanged: list[str] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)
    imported_turns: int = 0  # OpenClaw transcript turns copied into sessions/
    warnings: list[str] = field(default_factory=list)


def summarize(
    graph: KnowledgeGraph,
    settings: Settings,
    now: datetime,
    *,
    day: str | None = None,
    all_pending: bool = False,
    progress=None,
) -> SummarizeReport:
    """`progress(label, done, total)`, when given, is told of each day read."""
    report = SummarizeReport()
    _import_from_openclaw(graph.store, settings, report)
    logs = _logs_to_read(graph.store, day or now.date().isoformat(), all_pending)
    return learn_logs(graph, settings, now, logs, report, progress=progress)


def summarize_agent(
    graph: KnowledgeGraph,
    settings: Settings,
    now: datetime,
    *,
    agent: str,
    state_dir: str,
    in_step: Callable[[], list[str]] | None = None,
) -> SummarizeReport:
    """An OpenClaw agent's turns that just ended, learned as the nightly summarize learns
    them: its new transcript turns copied into sessions/, then the days of those copies
    summarized (every log of each day, as `summarize --date DAY` reads them, so that each
    turn is read in the same context and the day's summary stays whole). A turn is learned
    once however it comes in: the import ledger holds the last transcript row copied, the
    summarize ledger the last line of each copy learned. `in_step` brings the derived
    indexes in step after (the live path's owner call)."""
    report = SummarizeReport()
    imported = import_openclaw_state(graph.store, state_dir, agents={agent})
    _took(report, imported)
    left = _not_learned(graph.store, agent_copies(graph.store, state_dir, agent))
    return _learn_copied(graph, settings, now, imported, report, in_step, left)


def summarize_notes(
    graph: KnowledgeGraph,
    settings: Settings,
    now: datetime,
    *,
    workspace: str | Path,
    in_step: Callable[[], list[str]] | None = None,
) -> SummarizeReport:
    """The new lines of an OpenClaw workspace's changed notes (memory/*.md, USER.md) learned
    as summarize_agent learns a transcript's new turns: copied into sessions/
    (workspace_notes.py), then the days of those copies summarized. A line is learned once:
    the import ledger holds the lines of each note copied, the summarize ledger the last line
    of each copy learned."""
    report = SummarizeReport()
    imported = import_workspace_notes(graph.store, workspace, now)
    _took(report, imported, "workspace notes")
    return _learn_copied(graph, settings, now, imported, report, in_step)


def _learn_copied(
    graph: KnowledgeGraph,
    settings: Settings,
    now: datetime,
    imported: ImportReport,
    report: SummarizeReport,
    in_step: Callable[[], list[str]] | None,
    left: Collection[Path] = (),
) -> SummarizeReport:
    """The days of the copies an import wrote, and of those an earlier learn `left` (cut
    short), learned whole (every log of each day, as `summarize --date DAY` reads them, so
    that each turn is read in the same context and the day's summary stays whole)."""
    store = graph.store
    copies = {store.layout.root / name for name in imported.files_written} | set(left)
    days = sorted({session_day(path) for path in copies})
    logs = {day: found for day in days if (found := store.session_files(day))}
    return learn_logs(graph, settings, now, logs, report, in_step=in_step)


def _not_learned(store, names: list[str]) -> set[Path]:
    """The copies of `names` with lines not learned yet: a learn cut short after the copy
    was written (an import only appends to a copy, so its size tells)."""
    ledger = read_ledger(store)
    pending = set()
    for name in names:
        path = store.layout.sessions_dir / name
        entry = ledger.get(name)
        try:
            if entry is None or entry.bytes != path.stat().st_size:
                pending.add(path)
        except FileNotFoundError:  # cleaned since
            continue
    return pending


def learn_logs(
    graph: KnowledgeGraph,
    settings: Settings,
    now: datetime,
    logs: dict[str, list[Path]],
    report: SummarizeReport,
    *,
    in_step: Callable[[], list[str]] | None = None,
    progress=None,
) -> SummarizeReport:
    """The session logs `logs` (by day) learned, their secrets redacted in place first, and
    each day's summary written; `report` filled in."""
    store, layout = graph.store, graph.layout
    paths = [path for found in logs.values() for path in found]
    report.days = list(logs)
    report.session_files = [layout.relative(path) for path in paths]
    if not paths:
        return report
    report.redactions += session_logs.redact_logs(store, paths)

    scorer = SalienceScorer(graph, settings)
    for attempt in range(1, READ_ATTEMPTS + 1):
        read = session_logs.read_logs(store, paths)
        learned = learn(
            graph,
            read.turns,
            now,
            logs=read.data,
            scorer=scorer,
            with_them=partial(_write_summaries, store, logs, report),
            stop_if_read_further=attempt < READ_ATTEMPTS,
            in_step=in_step,
            progress=progress,
        )
        if not learned.stopped:
            break
    _tally(report, learned, read.warnings)
    return report


def _import_from_openclaw(store, settings: Settings, report: SummarizeReport) -> None:
    """New turns of OpenClaw's conversations (its state database, or its session and memory
    directories), copied into sessions/ before the logs are read: their turns are learned
    from there, as every other log's are."""
    if settings.openclaw_state_dir:
        _took(report, import_openclaw_state(store, settings.openclaw_state_dir))
    if settings.openclaw_sessions_dir or settings.openclaw_memory_dir:
        _took(
            report,
            import_openclaw(
                store,
                sessions_dir=settings.openclaw_sessions_dir,
                memory_dir=settings.openclaw_memory_dir,
            ),
        )


def _took(report: SummarizeReport, imported: ImportReport, what: str = "openclaw import") -> None:
    """What an import copied into sessions/, in the report (its warnings headed `what`)."""
    report.imported += imported.files_written
    report.imported_turns += imported.turns
    report.redactions += imported.redactions
    report.warnings += [f"{what}: {reason}" for reason in imported.skipped]
    report.warnings += [f"{what}: {cut}" for cut in imported.cut]


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


def _tally(report: SummarizeReport, learned: LearnReport, warnings: list[str]) -> None:
    """What learn() did, and what reading the logs warned of, in the report."""
    report.turns, report.fragments = learned.turns, learned.fragments
    report.chatter, report.facts_extracted = learned.chatter, learned.facts_extracted
    report.episodes, report.added = learned.episodes, learned.added
    report.reinforced, report.superseded = learned.reinforced, learned.superseded
    report.extractor, report.salience = learned.extractor, learned.salience
    report.redactions += learned.redactions
    report.warnings += warnings + learned.warnings


def _write_summaries(
    store, logs: dict[str, list[Path]], report: SummarizeReport, learned: LearnReport
) -> None:
    """Each day's summary, but that of a day whose logs another run read further (its
    summary, written by the run that read further, stands)."""
    stale_days = {session_day(path) for path in learned.read_further}
    for day, found in logs.items():
        if day in stale_days:
            report.warnings.append(
                f"daily/{day}.md left as it is: other summarize runs kept reading "
                f"its logs further than this one ({READ_ATTEMPTS} tries)"
            )
            continue
        _write_daily(store, day, found, learned.facts.get(day, []), report)


def _write_daily(
    store, day: str, logs: list[Path], facts: list[Fact], report: SummarizeReport
) -> None:
    layout = store.layout
    entries = [
        {
            "section": section_of(fact.category or "fact"),
            "text": fact.text or fact.object,
            "id": fact.id,
            "source": fact.source,
        }
        for fact in facts
    ]
    text = render_daily_summary(day, [path.name for path in logs], entries)
    path = layout.daily_summary(day)
    relative = layout.relative(path)
    if not store.usable(path):
        return
    if path.exists() and path.read_text(encoding="utf-8") == text:
        report.daily_unchanged.append(relative)
        return
    store.write_text(path, text)
    store.note(f"wrote the daily summary {relative}")
    report.daily_written.append(relative)
