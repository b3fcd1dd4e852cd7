"""The front door of the library: one memory, opened once, through which everything is done.

    memory = Memory.open("/data/memory")
    memory.remember(facts)
    recalled = memory.recall([Asked("What am I allergic to?", 5)])

A Memory is a data directory with its settings, read at one time (`now`) by one actor: the
command line opens one per command (cli/), the recall process one per request (serve.py),
and the benchmarks and tests theirs. Each operation (init, remember, propose and review,
summarize and the live learns, recall, forget, pin, query, reindex, consolidate, the health
check and the quality probe) is a method returning the library's own record; what went
wrong in passing (a line set aside, a file skipped) is in `warnings()`, for the caller to
show. The store and the knowledge graph are made here, on first use, and nowhere else.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .clock import format_iso, utc_now
from .config import Settings, check_embedding_model, load_settings
from .storage.layout import Layout, Refusal

if TYPE_CHECKING:
    from collections.abc import Callable

    from .backup import BackupReport
    from .check import Finding as CheckFinding
    from .consolidate import ConsolidationReport
    from .data_directory import InitReport
    from .forgetting.carry import Forgot
    from .forgetting.selection import Selector
    from .graph import KnowledgeGraph
    from .graph.facts import RememberReport
    from .imports.history import HistoryReport
    from .indexes import Indexes
    from .learning.learn import LearnReport, Progress
    from .model.fact import Fact
    from .model.proposal import Proposal
    from .model.provenance import Provenance
    from .proposals import ProposeReport
    from .recall import Asked, Recalled
    from .restore import RestoreReport
    from .steps.health_records import HealthReport
    from .steps.probe import ProbeResult
    from .storage.store import Store
    from .view.page import Page
    from .view.records import ViewData


@dataclass
class Memory:
    """One memory at one time: its settings, data directory and config file, the time its
    operations take as now, and who acts (the audit log names them)."""

    settings: Settings
    data_path: Path
    now: datetime
    actor: str = "library"
    action: str | None = None  # the audit log's name for what is done, when not the step's
    config_path: Path | None = None
    checked: bool = False  # the data directory passed Layout.check since it was opened
    refusals: list[Refusal] | None = None  # what that check refused inside
    _store: Store | None = field(default=None, repr=False)
    _warnings: list[str] = field(default_factory=list, repr=False)

    @classmethod
    def open(
        cls,
        data_path: str | Path | None = None,
        settings: Settings | None = None,
        *,
        now: datetime | None = None,
        actor: str = "library",
        action: str | None = None,
        config_path: str | Path | None = None,
        dry_run: bool = False,
        check_model: bool = True,
    ) -> Memory:
        """The memory at `data_path` (else the config's, else the default), with `settings`
        (else those of `config_path`, else the data directory's own config.yaml, else the
        defaults), at `now` (else the clock).

        A data directory that exists is checked before anything in it is read (its
        config.yaml could be a planted link); one that is refused as a whole, or whose
        config or state directory is refused, is an error (DataDirError). `dry_run`: not
        even the settings' snapshot is written. `check_model`: the embedding model the
        settings name must be usable (config --set, which puts a refused name right, does
        without)."""
        config = Path(config_path) if config_path else None
        settings_given = settings is not None
        if settings is None:
            settings = load_settings(config) if config else Settings()
        if data_path is not None:
            path = Path(data_path)
        elif config is not None:
            path = Path(settings.data_path)
        else:
            path = Path(Settings().data_path)
        checked = os.path.lexists(path)
        refusals, uncached = None, False
        if checked:
            layout = Layout(path.expanduser().absolute())
            refusals = layout.check()
            refused = {refusal.path: refusal for refusal in refusals}
            for needed in (layout.config, layout.state_dir):
                if needed in refused:  # every operation reads it: none can go on without it
                    raise refused[needed].error()
            uncached = layout.cache_dir in refused
        if not settings_given and config is None and (path / "config.yaml").is_file():
            # The data directory's own config sets everything but where the data directory is.
            config = path / "config.yaml"
            cache_dir = Layout(path).cache_dir
            cacheable = cache_dir.parent.is_dir() and not dry_run and not uncached
            settings = load_settings(config, cache_dir if cacheable else None)
        path = path.expanduser().absolute()
        if check_model:
            check_embedding_model(settings, path, source=str(config or "defaults"))
        return cls(
            replace(settings, data_path=str(path)),
            path,
            now or utc_now(),
            actor,
            action,
            config,
            checked=checked,
            refusals=refusals,
        )

    # -- what it is made of ------------------------------------------------------------------
    def layout(self) -> Layout:
        return Layout(self.data_path)

    def checked_layout(self) -> Layout:
        """The data directory's layout, checked once: Layout.check walks every entry, and
        open has usually done it before the config was read."""
        layout = self.layout()
        if not self.checked:
            self.refusals = layout.check()
            self.checked = True
        return layout

    def store(self) -> Store:
        """The one store of this memory, so that its warnings reach the caller whatever the
        operation."""
        from .storage.store import Store

        if self._store is None:
            self._store = Store(
                self.layout(),
                lock_timeout=self.settings.lock_timeout_seconds,
                timestamp=format_iso(self.now),
                actor=self.actor,
                action=self.action,
                refusals=self.refusals if self.checked else None,
            )
        return self._store

    def graph(self, *, create: bool = False) -> KnowledgeGraph:
        """The knowledge graph; with `create`, the data directory's layout made first when
        any of it is missing."""
        from .graph import KnowledgeGraph

        if create and not self.layout().is_made():
            self.ensure_layout(self.action or "init")
        else:
            self.checked_layout()
        return KnowledgeGraph(self.store(), self.settings)

    def ensure_layout(self, action: str) -> None:
        """The layout's missing directories and starting files made, as done by `action`."""
        from .data_directory import ensure_layout

        ensure_layout(self.layout(), actor=self.actor, at=format_iso(self.now), action=action)

    def warn(self, *warnings: str) -> None:
        """Warnings to show with the results: what an operation returned beside them."""
        self._warnings.extend(warnings)

    def warnings(self) -> list[str]:
        """The store's own warnings (a line set aside, a file it could not read), then the
        operations'."""
        held = list(self._store.warnings) if self._store is not None else []
        return held + self._warnings

    # -- what it holds -----------------------------------------------------------------------
    def init(self) -> InitReport:
        """The data directory's layout with its starting files, what is there left as it is
        (the refused entries are in the warnings)."""
        from .data_directory import initialize

        report = initialize(self.layout(), actor=self.actor, at=format_iso(self.now))
        self.warn(
            *(
                f"{self.layout().relative(refusal.path)}: {refusal.problem}; left as it is "
                f"({refusal.fix})"
                for refusal in report.refused
            )
        )
        return report

    def remember(self, facts: Sequence[Fact], *, redactions: int = 0) -> RememberReport:
        """`facts` remembered (the layout made first if need be); `redactions`: the secrets
        taken out of them before, counted in the audit line of the write."""
        graph = self._placed(self.graph(create=True))
        self._note_redactions(redactions)
        return graph.remember(list(facts), self.now)

    def propose(
        self,
        facts: Sequence[Fact],
        lines: Sequence[int | None],
        *,
        proposer: str,
        where: str,
        redactions: int = 0,
    ) -> tuple[list[Proposal], ProposeReport]:
        """`facts` (read from the input lines `lines` of `where`) proposed by `proposer`,
        waiting for review; the proposals and what was new among them."""
        from .proposals import propose_facts

        graph = self.graph(create=True)
        self._note_redactions(redactions)
        return propose_facts(
            graph, list(facts), list(lines), proposer=proposer, where=where, now=self.now
        )

    def pending(self):
        """The proposals waiting for review (proposals.PendingMemories)."""
        from .proposals import PendingMemories

        return PendingMemories(self.graph())

    def summarize(
        self,
        *,
        day: str | None = None,
        all_pending: bool = False,
        progress: Progress | None = None,
    ) -> LearnReport:
        """The session logs of `day` (default today), or with `all_pending` of every day
        with lines not read yet, learned (OpenClaw's conversations copied in first)."""
        from .steps.summarize import summarize

        report = summarize(
            self._placed(self.graph(create=True)),
            self.settings,
            self.now,
            day=day,
            all_pending=all_pending,
            progress=progress,
        )
        self.warn(*report.warnings)
        return report

    def learn_agent(self, agent: str, state_dir: str) -> LearnReport:
        """OpenClaw agent `agent`'s turns that just ended learned, in one commit
        (learning/live.py), so that the next search finds them."""
        from .learning.live import learn_agent

        report = learn_agent(
            self._placed(self.graph(create=True)), self.now, agent=agent, state_dir=state_dir
        )
        self.warn(*report.warnings)
        return report

    def learn_notes(self, workspace: str | Path) -> LearnReport:
        """The new lines of an OpenClaw workspace's changed notes learned, in one commit."""
        from .learning.live import learn_notes

        report = learn_notes(self._placed(self.graph(create=True)), self.now, workspace=workspace)
        self.warn(*report.warnings)
        return report

    def import_history(
        self,
        source: str | Path,
        form: str,
        *,
        dry_run: bool = False,
        progress: Progress | None = None,
    ) -> HistoryReport:
        """Another assistant's history (`form`: chatgpt, claude-code or codex) at `source`
        learned, what the memory has not learned of it only, a batch of conversations a
        commit (imports/history.py); with `dry_run`, only counted, nothing written."""
        from .imports.history import import_history, plan_import

        if dry_run:
            store = self.store() if self.layout().import_ledger.exists() else None
            report = plan_import(store, form, source, progress=progress)
        else:
            graph = self._placed(self.graph(create=True))
            report = import_history(graph, self.now, form, source, progress=progress)
        self.warn(*report.warnings)
        return report

    def recall(
        self,
        queries: Iterable[Asked],
        *,
        boost: bool = True,
        order: str = "relevance",
        shown: Callable[[Provenance | None], bool] | None = None,
    ) -> Recalled:
        """Each of `queries` recalled (recall.recall_many); its warnings in `warnings()`.
        `shown`: which memories may be returned, by who said them (the others are neither
        returned nor boosted)."""
        from .recall import recall_many

        recalled = recall_many(
            self.graph(), list(queries), self.now, boost=boost, order=order, shown=shown
        )
        self.warn(*recalled.warnings)
        return recalled

    def forget(
        self,
        selector: Selector,
        *,
        reason: str | None = None,
        purge: bool = False,
        dry_run: bool = False,
    ) -> Forgot:
        """What `selector` reaches forgotten (forgetting/): its facts, episodes and session
        lines gone from every answer, never learned again; with `dry_run`, what would be."""
        from .forgetting.carry import forget, preview

        if dry_run:
            return preview(self.graph(), selector, purge=purge)
        return forget(self.graph(), selector, self.now, reason=reason, purge=purge)

    def view_data(self) -> ViewData:
        """What the memory page shows (view/records.py): nothing forgotten."""
        from .view.records import view_data

        data = view_data(self.graph(), self.now)
        self.warn(*data.warnings)
        return data

    def page(self, to: str | Path | None = None) -> Page:
        """The memory page written to `to` (default view.html in the data directory)."""
        from .errors import DataDirError
        from .view.page import write_page

        layout = self.checked_layout()
        if not layout.graph_dir.is_dir():
            raise DataDirError(layout.root, "not initialized (run --action init)")
        path = Path(to).expanduser().absolute() if to else layout.view_page
        return write_page(self.view_data(), path)

    def pin(self, fact_id: str, pinned: bool = True) -> tuple[Fact, bool]:
        """The fact pinned (or unpinned), and whether that changed anything."""
        return self.graph().set_pinned(fact_id, pinned, self.now)

    def query(self, program: str) -> list:
        """What the jq `program` outputs over the active facts (jq_program.py)."""
        from .jq_program import run_jq

        return run_jq(self.graph(), program, self.now, timeout=self.settings.query_timeout_seconds)

    def reindex(self, progress: Progress | None = None) -> Indexes:
        """Every derived index built again from the files."""
        from .indexes import ALL, bring_in_step

        graph = self.graph()
        graph.store.require([graph.layout.write_lock])  # its work is the indexes it writes
        indexes = bring_in_step(graph, rebuild=ALL, progress=progress)
        self.warn(*indexes.warnings)
        return indexes

    def indexes(self) -> Indexes:
        """The derived indexes, brought in step with the files."""
        from .indexes import bring_in_step

        indexes = bring_in_step(self.graph())
        self.warn(*indexes.warnings)
        return indexes

    # -- carried whole ----------------------------------------------------------------------
    def backup(self, destination: str | Path, progress: Progress | None = None) -> BackupReport:
        """An archive of the durable files at `destination` (backup.py), taken consistently
        while others write."""
        from .backup import backup

        return backup(
            self.checked_layout(),
            Path(destination),
            created=format_iso(self.now),
            lock_timeout=self.settings.lock_timeout_seconds,
            keep=self.settings.backup_keep,
            progress=progress,
        )

    def restore(
        self, archive: str | Path, *, dry_run: bool = False, progress: Progress | None = None
    ) -> RestoreReport:
        """This memory's data directory, absent or empty, made from the backup `archive`
        (restore.py), its derived indexes built and its health checked; with `dry_run`
        the archive is only checked."""
        from .restore import restore

        report = restore(Path(archive), self.data_path, dry_run=dry_run, progress=progress)
        if dry_run:
            return report
        restored = Memory.open(
            self.data_path,
            now=self.now,
            actor=self.actor,
            action="restore",
            config_path=self.config_path,
        )
        restored.reindex(progress)
        health, _ = restored.check(purpose="restore: health")
        self.warn(*restored.warnings())
        return replace(report, health=health.status)

    # -- its upkeep --------------------------------------------------------------------------
    def consolidate(
        self, *, dry_run: bool = False, progress: Progress | None = None
    ) -> ConsolidationReport:
        """The nightly consolidation (consolidate.py), or with `dry_run` what it would do,
        changing nothing."""
        from .consolidate import consolidate
        from .consolidate import dry_run as rehearse
        from .errors import DataDirError

        layout = self.checked_layout()  # a missing data directory is an error, not made here
        if not dry_run and not layout.is_made():
            self.ensure_layout("consolidate")
        elif not layout.graph_dir.is_dir():
            raise DataDirError(layout.root, "not initialized (run --action init)")
        run = rehearse if dry_run else consolidate
        report = run(layout, self.settings, self.now, actor=self.actor, progress=progress)
        self.warn(*report.warnings)
        return report

    def check(
        self, *, repair: bool = False, purpose: str = "health-check"
    ) -> tuple[HealthReport, list[CheckFinding]]:
        """The health check: health.json's report as written, and what `repair` mended."""
        from .errors import DataDirError
        from .steps.health import run_health_check

        layout = self.checked_layout()
        if not layout.state_dir.is_dir():
            raise DataDirError(layout.root, "not initialized (run --action init)")
        return run_health_check(
            self.store(), self.settings, self.now, repair=repair, purpose=purpose
        )

    def quality_probe(self) -> tuple[ProbeResult, HealthReport]:
        """The canaries recalled (steps/probe.py), then the health check; the probe's result
        and health.json's report."""
        from .steps.health import run_health_check
        from .steps.probe import quality_probe

        indexes = self.indexes()
        assert indexes.choice is not None
        result, warnings = quality_probe(
            indexes.graph, self.now, indexes=indexes, embedder_id=indexes.choice.embedder.model_id
        )
        self.warn(*warnings)
        report, _ = run_health_check(
            self.store(), self.settings, self.now, purpose="quality-probe: health"
        )
        return result, report

    def _placed(self, graph: KnowledgeGraph) -> KnowledgeGraph:
        """`graph`, each of its facts made before facts kept an origin given one first
        (graph/origins.py), so that what is learned next meets placed facts."""
        from .graph.origins import place_origins

        place_origins(graph)
        return graph

    def _note_redactions(self, redactions: int) -> None:
        if redactions:  # counted in the audit line of the write that follows
            self.store().note(
                f"redacted {redactions} secret(s) before storing", redactions=redactions
            )
