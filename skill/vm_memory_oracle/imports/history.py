"""Another assistant's history brought in: a ChatGPT export, Claude Code's or Codex's
session transcripts, learned the way every turn is.

An import reads the history twice, a conversation at a time, never whole:

1. The plan: every file is read through, so that one of another format (or a ChatGPT
   export cut short) is refused before anything is written (ImportFormatError, exit 10),
   and the conversations, turns and days new to the memory are counted (what --dry-run
   says, and the progress bar's total). A damaged line of a JSON-lines transcript is
   skipped with a warning naming its file and line; a file under a directory given that
   is not of the format is skipped with a warning.
2. The learn, a batch of conversations at a time (BATCH_TURNS turns), each batch one
   commit: under the store's lock the new turns of each conversation (those after the
   import ledger's count, state/imports.json) are copied into sessions/ as the OpenClaw
   transcripts are (openclaw/imports.py: a copy per conversation and day, named after its
   first turn, each line redacted, dated by the turn's own time and naming where it was
   said, `<format>:<conversation>#<turn>`, and who said it: the person's words the
   owner's, the assistant's the agent's, but what it says after a tool's output in the
   same exchange, which is untrusted), the ledger moves on, and the days of those copies
   are learned whole (learning/live.learn_copied). A second import of the same history
   learns nothing; one of a later export learns only what was said since.
3. The derived indexes are brought in step once, after the last batch, so that the next
   search finds it all (a search meanwhile brings them in step itself).

The facts learned are made now (the memory's clock never runs backwards); their turns,
episodes and daily summaries keep the day they were said.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..clock import format_iso
from ..errors import ImportFormatError, InvalidInputError
from ..forgetting.marks import read_forgotten
from ..model.provenance import AGENT, OWNER, UNTRUSTED, Provenance
from ..openclaw.imports import ImportReport, append_day_copy, copied_line
from ..openclaw.ledger import ImportLedger, read_import_ledger, write_import_ledger
from ..storage import snapshot
from . import chatgpt, claude_code, codex
from .said import USER, Conversation, Reading, files_of

if TYPE_CHECKING:
    from datetime import datetime

    from ..graph import KnowledgeGraph
    from ..learning.learn import LearnReport, Progress
    from ..storage.store import Store

# The turns learned in one commit: a batch's conversations are held in memory meanwhile.
BATCH_TURNS = 2000


@dataclass
class HistoryReport:
    """What an import found new in a history, and (but for a dry run) what it learned."""

    format: str
    source: str
    dry_run: bool
    files: int = 0  # the files of the history read
    conversations: int = 0  # with turns new to the memory
    turns: int = 0  # new turns
    days: set[str] = field(default_factory=set)  # the days those turns were said
    copied: int = 0  # turns copied into sessions/ (a forgotten one is not)
    copies: list[str] = field(default_factory=list)  # the copies written, sessions/<name>
    commits: int = 0  # the learns (one a batch)
    facts_extracted: int = 0
    added: int = 0
    reinforced: int = 0
    episodes: int = 0
    redactions: int = 0
    daily_written: int = 0
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        days = sorted(self.days)
        return {
            "format": self.format,
            "from": self.source,
            "dry_run": self.dry_run,
            "files": self.files,
            "conversations": self.conversations,
            "turns": self.turns,
            "days": len(days),
            "first_day": days[0] if days else None,
            "last_day": days[-1] if days else None,
            "copied": self.copied,
            "copies": len(self.copies),
            "commits": self.commits,
            "facts_extracted": self.facts_extracted,
            "added": self.added,
            "reinforced": self.reinforced,
            "episodes": self.episodes,
            "redactions": self.redactions,
            "daily_written": self.daily_written,
        }

    def learned(self, report: LearnReport) -> None:
        self.commits += 1
        self.copied += report.imported_turns
        self.copies += report.imported
        self.facts_extracted += report.facts_extracted
        self.added += report.added
        self.reinforced += report.reinforced
        self.episodes += report.episodes
        self.redactions += report.redactions
        self.daily_written += len(report.daily_written)
        self.warnings += report.warnings


def plan_import(
    store: Store | None,
    form: str,
    source: str | Path,
    *,
    progress: Progress | None = None,
) -> HistoryReport:
    """The conversations, turns and days of the history at `source` that the memory of
    `store` (None: an empty memory) has not learned; nothing is written. A history not of
    the format `form` is refused (ImportFormatError)."""
    path = Path(source).expanduser()
    ledger = _ledger(store)
    report = HistoryReport(form, str(path), dry_run=True)
    reading = Reading()
    for found in _read(form, path, reading, report, progress):
        start = ledger.turns_read(found.key)
        fresh = found.turns[start:]
        if fresh:
            report.conversations += 1
            report.turns += len(fresh)
            report.days.update(format_iso(turn.ts)[:10] for turn in fresh)
    report.warnings += reading.warnings
    return report


def import_history(
    graph: KnowledgeGraph,
    now: datetime,
    form: str,
    source: str | Path,
    *,
    progress: Progress | None = None,
) -> HistoryReport:
    """The turns of the history at `source` the memory has not learned, learned (see the
    module's notes); what was found and learned."""
    report = plan_import(graph.store, form, source, progress=progress)
    report.dry_run = False
    if not report.turns:
        return report
    path = Path(report.source)
    known = _ledger(graph.store)  # read again under the lock, batch by batch
    batch: list[Conversation] = []
    held = done = 0
    for found in _read(form, path, Reading(), None, None):
        fresh = len(found.turns) - known.turns_read(found.key)
        if fresh <= 0:
            continue
        batch.append(found)
        held += fresh
        if held >= BATCH_TURNS:
            done += _learn_batch(graph, now, form, batch, report)
            batch, held = [], 0
            # What the batch parsed (its days' logs and episodes, the facts as they were)
            # is held by the process for the next read of the same files; a history's days
            # are seldom read again, and holding them all would grow with the history.
            snapshot.forget_memory()
            if progress is not None:
                progress(f"learn {form}", done, report.turns)
    if batch:
        done += _learn_batch(graph, now, form, batch, report)
    if progress is not None:
        progress(f"learn {form}", done, report.turns)
    if report.commits:
        from ..indexes import bring_in_step

        with graph.store.locked(f"import {form}: indexes"):
            report.warnings += bring_in_step(graph, progress=progress).warnings
    return report


def _learn_batch(
    graph: KnowledgeGraph,
    now: datetime,
    form: str,
    batch: list[Conversation],
    report: HistoryReport,
) -> int:
    """The new turns of `batch` copied into sessions/ and learned, in one commit; how many
    new turns it held (those another run imported meanwhile left out)."""
    from ..learning.live import learn_copied, not_learned

    store = graph.store
    with store.locked(f"import {form}"):
        ledger = read_import_ledger(store, store.layout.import_ledger)
        owned = ledger.copies()
        forgotten = read_forgotten(store)
        copied = ImportReport()
        new = 0
        earlier: list[str] = []
        for found in batch:
            entry = ledger.conversation(found.key)
            earlier += entry.copies()
            fresh = found.turns[entry.turns :]
            new += len(fresh)
            by_day: dict[str, list[tuple[str, str]]] = {}
            for number, turn in enumerate(fresh, start=entry.turns + 1):
                origin = f"{found.key}#{number}"
                ts = format_iso(turn.ts)
                owner = turn.role == USER
                if forgotten.covers_row(origin, ts, turn.role, turn.text, owner):
                    continue
                said = Provenance(OWNER if owner else UNTRUSTED if turn.after_tool else AGENT)
                line = copied_line(origin, ts, turn.role, turn.text, said, copied)
                by_day.setdefault(ts[:10], []).append((ts, line))
            for day, lines in sorted(by_day.items()):
                name = append_day_copy(
                    store, entry.files, day, lines[0][0], [line for _, line in lines], owned
                )
                copied.turns += len(lines)
                if f"sessions/{name}" not in copied.files_written:
                    copied.files_written.append(f"sessions/{name}")
            entry.turns = len(found.turns)
        if copied.turns:
            store.note(
                f"imported {copied.turns} turn(s) of {len(batch)} {form} conversation(s) "
                "into sessions/",
                redactions=copied.redactions,
            )
        write_import_ledger(store, store.layout.import_ledger, ledger)
        left = not_learned(store, earlier)
        # The indexes are brought in step once, after the last batch: each batch's would
        # rewrite them whole, a cost that grows with every batch learned before it.
        report.learned(learn_copied(graph, now, copied, f"{form} import", left, in_step=False))
    return new


def _read(
    form: str,
    path: Path,
    reading: Reading,
    report: HistoryReport | None,
    progress: Progress | None,
) -> Iterator[Conversation]:
    """The conversations of the history at `path`, read one at a time."""
    if form == "chatgpt":
        export = chatgpt.history_file(path)
        if not export.is_file():
            raise InvalidInputError("no such file", source=str(export))
        reading.total = export.stat().st_size
        if report is not None:
            report.files = 1
        yield from _told(chatgpt.conversations(export, reading), reading, progress, form)
        return
    module = claude_code if form == "claude-code" else codex
    files = files_of(path, module.PATTERN)
    reading.total = sum(each.stat().st_size for each in files)
    usable = []
    for each in files:
        try:
            module.check(each)
        except ImportFormatError as refusal:
            if path.is_file():
                raise
            reading.warnings.append(f"{refusal}; skipped")
            reading.done += each.stat().st_size
            continue
        usable.append(each)
    if not usable:
        found = (
            f"none of its {len(files)} {module.PATTERN} files is"
            if files
            else f"it holds no {module.PATTERN} file: expected"
        )
        raise ImportFormatError(f"{found} {module.EXPECTED}", source=str(path))
    if report is not None:
        report.files = len(usable)
    for each in usable:
        yield from _told(module.conversation(each, reading), reading, progress, form)


def _told(
    found: Iterator[Conversation],
    reading: Reading,
    progress: Callable[[str, int, int], None] | None,
    form: str,
) -> Iterator[Conversation]:
    """The conversations `found`, the progress bar told of the bytes read after each."""
    for conversation in found:
        if progress is not None:
            progress(f"read {form}", reading.done // 1_000_000, max(1, reading.total // 1_000_000))
        yield conversation


def _ledger(store: Store | None) -> ImportLedger:
    if store is None or not store.layout.import_ledger.exists():
        return ImportLedger()
    return read_import_ledger(store, store.layout.import_ledger)
