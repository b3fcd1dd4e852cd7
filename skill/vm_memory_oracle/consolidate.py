"""The nightly consolidation: nine steps, in order, checkpointed.

1 summarize (every session log with lines not read yet) -> 2 decay -> 3 index -> 4 merge
(near-duplicates) -> 5 stale (facts naming files that are gone) -> 6 prune -> 7 MEMORY.md
-> 8 clean -> 9 health check.

One consolidation runs at a time (state/consolidate.lock; a second one waits
lock_timeout_seconds, then gives up naming the holder). Each step takes the data
directory's write lock only for its own writes, so the agent can remember and recall
meanwhile, and slow work (embedding) happens outside it. After each step,
state/consolidation.json records it as done, with what it did. A run that is killed
leaves that checkpoint behind: the next run resumes at the first unfinished step, at the
clock of the interrupted run, so it ends with the files an uninterrupted run would have
written. Every step converges (it computes what should be and writes only the
difference), so a step cut off halfway is simply run again. Before the steps, what an
interrupted write can leave is repaired: temporary files are removed and torn lines
quarantined.

A dry run consolidates a private copy of the data directory and reports what changed
there: exactly what the real run would do, and nothing written to the data directory.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .clock import format_iso, parse_iso
from .config import Settings
from .graph import KnowledgeGraph
from .graph.origins import place_origins
from .steps.clean import quarantine_invalid_lines, remove_leftover_temporaries
from .steps.report import Change, StepReport, changes, render, summary_counts
from .storage import locks
from .storage.layout import Layout
from .storage.store import Store

STEPS = ("summarize", "decay", "index", "merge", "stale", "prune", "memory_md", "clean", "health")
# A checkpoint older than this is not resumed at its own clock: the steps are run afresh.
RESUME_WITHIN = timedelta(hours=24)
# Left out of a dry run's copy: derived caches and the locks of the real directory.
NOT_COPIED = ("*.lock", "*.lock.holder")


@dataclass
class ConsolidationReport:
    started_at: str
    steps: list[StepReport] = field(default_factory=list)
    resumed_from: str | None = None  # the first step this run did, when it resumed
    dry_run: bool = False
    duration_seconds: float = 0.0
    status: str | None = None  # health status at the end
    warnings: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # the report's summary counts
    changes: list[Change] = field(default_factory=list)  # every step's changes, in order
    report_file: str | None = None  # state/reports/<start>.md (None for a dry run)


@dataclass
class Checkpoint:
    """state/consolidation.json: the run in progress, when it started (its clock) and by
    whom, the steps it finished, in order, and what each did."""

    started_at: str
    actor: str | None = None
    completed: list[str] = field(default_factory=list)
    reports: dict[str, StepReport] = field(default_factory=dict)

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> Checkpoint:
        return cls(
            document["started_at"],
            document.get("actor"),
            list(document["completed"]),
            {name: StepReport.from_dict(name, data) for name, data in document["reports"].items()},
        )

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"started_at": self.started_at}
        if self.actor is not None:
            document["actor"] = self.actor
        document["completed"] = self.completed
        document["reports"] = {
            name: report.as_dict(named=False) for name, report in self.reports.items()
        }
        return document


def consolidate(
    layout: Layout,
    settings: Settings,
    now: datetime,
    *,
    actor: str = "library",
    progress: Callable[[str, int, int], None] | None = None,
    monotonic: Callable[[], float] = time.monotonic,
) -> ConsolidationReport:
    """Run (or resume) the consolidation of the data directory at `layout`.

    `progress(label, done, total)`, when given, is told of each step and of the embedding.
    """
    started = monotonic()
    store = Store(
        layout,
        lock_timeout=settings.lock_timeout_seconds,
        timestamp=format_iso(now),
        actor=actor,
        action="consolidate",
    )
    store.require(layout.core_files())  # every step may need any: none runs without one
    with locks.exclusive(layout.consolidation_lock, settings.lock_timeout_seconds, "consolidate"):
        checkpoint, report = _start(store, now)
        now = parse_iso(checkpoint.started_at)
        store.timestamp = checkpoint.started_at
        graph = KnowledgeGraph(store, settings)
        leftovers = remove_leftover_temporaries(store)
        if leftovers:
            report.warnings.append(
                f"removed {len(leftovers)} temporary file(s) left by an "
                f"interrupted write: {', '.join(leftovers)}"
            )
        quarantine_invalid_lines(store)
        place_origins(graph)  # facts made before facts kept an origin (its audit line says)
        _finish_forget(graph, now, report)
        run = _Run(graph, now, started, monotonic, progress)
        for number, name in enumerate(STEPS):
            if name in checkpoint.completed:
                report.steps.append(replace(checkpoint.reports[name], done_before=True))
                continue
            if progress is not None:
                progress(f"{number + 1}/{len(STEPS)} {name}", number, len(STEPS))
            step_report = run.step(name)
            _with_origins(graph, step_report)
            report.warnings += step_report.warnings
            report.steps.append(step_report)
            checkpoint.completed.append(name)
            checkpoint.reports[name] = step_report
            if name != STEPS[-1]:
                store.write_validated_json(
                    layout.checkpoint, "consolidation-checkpoint", checkpoint.to_json()
                )
        _ready_for_recall(graph)
        report.warnings[:0] = store.warnings
        report.duration_seconds = round(monotonic() - started, 3)
        report.status = report.steps[-1].details["status"]
        report.counts = summary_counts(report.steps)
        report.changes = changes(report.steps)
        report.report_file = _write_report(store, report)
        store.delete(layout.checkpoint)
        if progress is not None:
            progress("consolidate", len(STEPS), len(STEPS))
    return report


def dry_run(
    layout: Layout,
    settings: Settings,
    now: datetime,
    *,
    actor: str = "library",
    progress: Callable[[str, int, int], None] | None = None,
) -> ConsolidationReport:
    """What consolidate would change, found by consolidating a private copy."""
    with tempfile.TemporaryDirectory(prefix="vm-memory-oracle-dry-run-") as scratch:
        copy = Layout(Path(scratch) / "memory")
        store = Store(
            layout,
            lock_timeout=settings.lock_timeout_seconds,
            timestamp=format_iso(now),
            actor=actor,
        )
        store.require(layout.core_files())  # as the real run would
        with store.locked("consolidate --dry-run: copy"):  # one consistent moment
            shutil.copytree(
                layout.root, copy.root, symlinks=True, ignore=_not_copied(layout, store.refusals())
            )
        # Paths that facts name in the real data directory are checked there, as the real
        # run checks them.
        copy_settings = replace(
            settings,
            data_path=str(copy.root),
            path_check_roots=(*settings.path_check_roots, os.path.abspath(layout.root)),
        )
        report = consolidate(copy, copy_settings, now, actor=actor, progress=progress)
    report.dry_run = True
    report.report_file = None  # it was written in the copy, which is gone
    return report


def _not_copied(layout: Layout, refusals):
    """copytree's filter: the locks, the derived caches (made again in the copy), and the
    refused entries (which the real run skips)."""
    patterns = shutil.ignore_patterns(*NOT_COPIED)
    refused = {refusal.path for refusal in refusals}

    def ignored(directory: str, names: list[str]) -> set[str]:
        found = set(patterns(directory, names))
        found.update(name for name in names if Path(directory) / name in refused)
        if Path(directory) == layout.state_dir:
            found.add(layout.cache_dir.name)
        return found

    return ignored


class _Run:
    """The steps of one run, sharing the embedder they load (only if a step needs it)."""

    def __init__(
        self,
        graph: KnowledgeGraph,
        now: datetime,
        started: float,
        monotonic: Callable[[], float],
        progress=None,
    ):
        self.graph = graph
        self.progress = progress
        self.now = now
        self.started = started
        self.monotonic = monotonic
        self._choice = None

    def step(self, name: str) -> StepReport:
        steps: dict[str, Callable[[], StepReport]] = {
            "summarize": self._summarize,
            "decay": self._decay,
            "index": self._index,
            "merge": self._merge,
            "stale": self._stale,
            "prune": self._prune,
            "memory_md": self._memory_md,
            "clean": self._clean,
            "health": self._health,
        }
        return steps[name]()

    def _summarize(self) -> StepReport:
        from .steps.summarize import summarize

        result = summarize(
            self.graph, self.graph.settings, self.now, all_pending=True, progress=self.progress
        )
        counts = {
            key: value
            for key, value in result.to_json().items()
            if isinstance(value, int) and not isinstance(value, bool)
        }
        changes = [
            {"file": name, "change": "summarized", "reason": "lines not read yet"}
            for name in result.session_files
        ]
        changes += [
            {"file": name, "change": "written", "reason": "daily summary"}
            for name in result.daily_written
        ]
        return StepReport(
            "summarize",
            counts={**counts, "session_files": len(result.session_files)},
            changes=changes,
            warnings=list(result.warnings),
        )

    def _decay(self) -> StepReport:
        from .steps.decay import decay

        return decay(self.graph, self.now)

    def _index(self) -> StepReport:
        from .indexes import bring_in_step

        indexes = bring_in_step(self.graph, progress=self.progress, choice=self._embedder())
        vectors, episodes, text = (
            indexes.report.vectors,
            indexes.report.episodes,
            indexes.report.text,
        )
        assert vectors is not None and episodes is not None
        return StepReport(
            "index",
            counts={
                "vectors": vectors.vectors,
                "embedded": vectors.embedded,
                "from_cache": vectors.from_cache,
                "added": vectors.added,
                "removed": vectors.removed,
                "documents": text.documents if text is not None else 0,
                "episodes": episodes.episodes,
                "episodes_added": episodes.added,
                "episodes_embedded": episodes.embedded,
            },
            warnings=indexes.warnings,
            details={
                "embedder": self._embedder().embedder.model_id,
                "rebuilt": vectors.rebuilt,
                "index_kind": vectors.index_kind,
            },
        )

    def _merge(self) -> StepReport:
        from .semantic import cached_sentence_vectors
        from .steps.merge import merge_duplicates

        embedder = self._embedder().embedder
        threshold = self.graph.settings.merge_similarity
        if threshold is None:
            threshold = embedder.merge_similarity
        return merge_duplicates(
            self.graph,
            self.now,
            vectors=(
                (lambda: cached_sentence_vectors(self.graph, embedder))
                if threshold is not None
                else None
            ),
            threshold=threshold,
            model_id=embedder.model_id,
        )

    def _stale(self) -> StepReport:
        from .steps.stale import stale

        return stale(self.graph, self.now)

    def _prune(self) -> StepReport:
        from .indexes import bring_in_step
        from .steps.prune import prune

        def bring_indexes_in_step() -> list[str]:
            """The indexes without the archived facts; returns their warnings. A memory
            never indexed by meaning gets no vector index here."""
            built = self.graph.layout.index_file.exists()
            return bring_in_step(
                self.graph, vectors=built, choice=self._embedder() if built else None
            ).warnings

        return prune(self.graph, self.now, bring_indexes_in_step=bring_indexes_in_step)

    def _memory_md(self) -> StepReport:
        from .steps.memory_md.data_file import reconcile_memory_file

        return reconcile_memory_file(self.graph, self.now)

    def _clean(self) -> StepReport:
        from .steps.clean import clean

        return clean(self.graph, self.now)

    def _health(self) -> StepReport:
        from .steps.health import health_report, write_health

        layout = self.graph.layout
        duration = round(self.monotonic() - self.started, 3)
        report = health_report(
            layout,
            self.graph.settings,
            self.now,
            last_consolidation=format_iso(self.now),
            duration_seconds=duration,
        )
        write_health(self.graph.store, report)
        return StepReport(
            "health",
            counts={"warnings": len(report.findings)},
            details={"status": report.status, "health_warnings": report.warnings},
        )

    def _embedder(self):
        if self._choice is None:
            from .semantic import configured_embedder

            self._choice = configured_embedder(self.graph, self.graph.settings)
        return self._choice


def _ready_for_recall(graph: KnowledgeGraph) -> None:
    """Make the tables recall reads of the facts and their activation as the night leaves
    them (the lexical snapshot, made again from every fact when the steps rewrote
    facts.jsonl, and the packed activation state), kept in state/cache/: the morning's first
    recall reads them instead of making them (at 100,000 facts that took it 8 s)."""
    from .graph.derived import let_go_of_entities
    from .lexical.snapshot import lexical_index_saved
    from .semantic.wanted import let_go_of_wanted
    from .storage.facts_places import let_go_of_facts

    # What the steps asked for and ask no more (the prune step's and the health check's
    # entities; every Fact of a large file, whose snapshot is then made of its facts as
    # they are read, storage/facts_places.FactsPassing, in the memory they held).
    let_go_of_entities()
    if let_go_of_facts(graph.store):
        let_go_of_wanted(graph.layout.facts)  # which holds them too
    lexical_index_saved(graph)
    graph.store.activation_view()


def _with_origins(graph: KnowledgeGraph, report: StepReport) -> None:
    """Each change of a fact in `report` told who said the fact (the report's Said by)."""
    touched = [change for change in report.changes if "fact" in change]
    if not touched:
        return
    held = {fact.id: fact for fact in graph.facts()}
    archived = None
    for change in touched:
        fact = held.get(change["fact"])
        if fact is None:  # archived by the step
            archived = archived or graph.archived_by_id()
            record = archived.get(change["fact"])
            fact = None if record is None else record.fact
        if fact is not None:
            change["origin"] = fact.said_by.origin


def _start(store: Store, now: datetime) -> tuple[Checkpoint, ConsolidationReport]:
    """The checkpoint to continue from: the interrupted run's, or a new one."""
    layout = store.layout
    fresh = Checkpoint(format_iso(now), store.actor)
    if not layout.checkpoint.exists():
        return fresh, ConsolidationReport(fresh.started_at)
    try:
        checkpoint = Checkpoint.from_json(
            store.read_json_file(layout.checkpoint, "consolidation-checkpoint")
        )
    except ValueError as exc:
        report = ConsolidationReport(fresh.started_at)
        report.warnings.append(f"{exc}; starting a new consolidation")
        return fresh, report
    if now - parse_iso(checkpoint.started_at) > RESUME_WITHIN:
        report = ConsolidationReport(fresh.started_at)
        report.warnings.append(
            f"an interrupted consolidation of {checkpoint.started_at} is "
            "too old to resume; starting a new one"
        )
        return fresh, report
    remaining = [name for name in STEPS if name not in checkpoint.completed]
    report = ConsolidationReport(checkpoint.started_at, resumed_from=remaining[0])
    report.warnings.append(
        f"resuming the consolidation started at {checkpoint.started_at} at step {remaining[0]}"
    )
    return checkpoint, report


def _write_report(store: Store, report: ConsolidationReport) -> str:
    """state/reports/<start>.md; a resumed run rewrites the report of the run it finishes.
    Bookkeeping, like health.json: the audit log already has each change."""
    path = store.layout.report_file(report.started_at)
    text = "\n".join(render(report)) + "\n"
    with store.locked("consolidate: report"):
        store.make_directory(path.parent)
        store.write_text(path, text)
    return store.layout.relative(path)


def _finish_forget(graph: KnowledgeGraph, now: datetime, report: ConsolidationReport) -> None:
    """A forget a killed run began (state/forgetting.json), finished before any step reads
    what it was taking away."""
    from .forgetting.carry import finish_pending

    with graph.store.locked("consolidate: forget"):
        finished = finish_pending(graph, now)
    if finished is not None:
        report.warnings.append(f"finished the forget {finished['forget']}, which was interrupted")
