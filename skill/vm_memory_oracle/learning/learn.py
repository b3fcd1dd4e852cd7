"""learn: the one way a turn enters the memory, whether a thousand or one.

summarize hands on the turns of the session logs it reads (learning/logs.py; OpenClaw's
conversations among them, copied into sessions/ first); the live path (learning/live.py)
hands on the turns of an agent's or a workspace's logs that just grew. Each takes the same
path:

1. Its text and speaker have their unsafe characters replaced and their secrets redacted,
   once: nothing after reads the turn as it was said.
2. The turns of each log are read in context (extract.rules.in_context: whom "you" means,
   the question a turn answers, ...), from the turns handed on with it.
3. A day at a time (the day of the log it was said in), its fragments become candidate
   facts (learning/candidates.py) and the turn is kept as episodes, without the lock.
4. Under the lock, once, one commit: the ledger (learning/ledger.py) is read again and a
   turn another run learned meanwhile is left out; the facts are remembered, the episodes
   appended, the summary of each day handed on whole written (learning/daily.py), the
   ledger marks the logs read (after all the rest, so that a crash before it leaves the
   turns to be learned again), and, when asked, the derived indexes are brought in step by
   their owner (indexes.py). The audit log gets one line for all of it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from ..clock import format_iso
from ..config import Settings
from ..episodes import Episode, append_episodes, episodes_of
from ..extract.redact import redact
from ..extract.rules import in_context, section_of
from ..forgetting.marks import read_forgotten
from ..graph import KnowledgeGraph
from ..model.characters import without_unsafe
from ..model.fact import Fact
from ..model.provenance import OWNER
from ..model.turn import Turn
from ..storage.sessions import SESSION_NAME, session_day
from .candidates import candidates_of
from .daily import render_daily_summary
from .ledger import LedgerEntry, learned_before, read_ledger, record_how_far, still_valid
from .salience_scorer import SalienceScorer

if TYPE_CHECKING:
    from ..recall.results import JsonObject

# Whose turns are kept as episodes: what the person and the assistant said (a system
# prompt or a tool's output is not the conversation).
EPISODE_ROLES = ("user", "assistant")

Progress = Callable[[str, int, int], None]

# A summarize that finds, once it holds the lock, that another one read the logs further
# since it read them, reads them again: its daily summary would lack what it missed.
READ_ATTEMPTS = 5


@dataclass
class LearnReport:
    """What a learn did: the one report of learn, summarize and the live path. The days and
    session logs read, what was found in their turns and what of it was new, the days'
    summaries written, and what an import copied into sessions/ first."""

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
    redactions: int = 0  # secrets found in the turns, the logs and the copies
    extractor: str = "rules"
    salience: str = ""  # what scored salience: "features", or "features and <model id>"
    daily_written: list[str] = field(default_factory=list)
    daily_unchanged: list[str] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)  # copies an import wrote in sessions/
    imported_turns: int = 0  # OpenClaw transcript turns (or note lines) copied
    warnings: list[str] = field(default_factory=list)
    # Day -> the candidate facts of the turns handed on, those learned before included,
    # in the order said: what a summary of the day lists.
    facts: dict[str, list[Fact]] = field(default_factory=dict)
    # The logs another run had read further than the bytes handed on (see `learn`).
    read_further: list[Path] = field(default_factory=list)
    stopped: bool = False  # nothing was written: another run had read further

    def to_json(self) -> JsonObject:
        """The report as summarize --json prints it (its warnings go with the command's)."""
        return {
            "days": list(self.days),
            "session_files": list(self.session_files),
            "turns": self.turns,
            "fragments": self.fragments,
            "chatter": self.chatter,
            "facts_extracted": self.facts_extracted,
            "episodes": self.episodes,
            "added": self.added,
            "reinforced": self.reinforced,
            "superseded": self.superseded,
            "redactions": self.redactions,
            "extractor": self.extractor,
            "salience": self.salience,
            "daily_written": list(self.daily_written),
            "daily_unchanged": list(self.daily_unchanged),
            "imported": list(self.imported),
            "imported_turns": self.imported_turns,
        }


def learn(
    graph: KnowledgeGraph,
    turns: Sequence[Turn],
    now: datetime,
    *,
    logs: Mapping[Path, bytes] | None = None,
    days: Mapping[str, Sequence[Path]] | None = None,
    scorer: SalienceScorer | None = None,
    stop_if_read_further: bool = False,
    in_step: bool = False,
    progress: Progress | None = None,
) -> LearnReport:
    """Learn `turns` (as said, in the order said), the facts stamped `now`, in one commit.

    `logs`: the session logs the turns were read from, each with the bytes read; the ledger
    marks how far each was read, and a turn of one of them is learned only if it lies past
    what an earlier run read. `days`: the days whose logs were handed on whole (day -> its
    logs), whose summaries are written from these turns' facts. `scorer`: the salience
    scorer to use (one is made otherwise). When another run has read one of `logs` further
    than these bytes, it is named in `read_further` (and that day's summary, which the other
    run wrote, is left as it is); with `stop_if_read_further`, nothing is written then
    (`stopped`), for the caller to read the logs again. `in_step`: the derived indexes are
    brought in step in the same commit, so that the next search finds the turns.
    `progress(label, done, total)` is told of each day.
    """
    store, settings = graph.store, graph.settings
    report = LearnReport(turns=len(turns))
    created = format_iso(now)
    scorer = scorer or SalienceScorer(graph, settings)
    report.salience = scorer.name
    episodes = _read_days(_said_by_day(turns, report), settings, created, scorer, report, progress)
    # How far each log was read: by the bytes read, not the log as it is now, since the
    # agent may have appended to it meanwhile.
    logs = dict(logs or {})
    read = {path: LedgerEntry.of(data, created) for path, data in logs.items()}
    with store.locked("learn"):
        # What a forget took is never learned again, nor summarized: read under the lock,
        # so a forget that ran while these turns were read is seen. The lines of such turns
        # are forgotten in place now, and how far each log was read is told as it now reads.
        forgotten = read_forgotten(store)
        covered = [turn for turn in turns if forgotten.covers(turn)]
        if forgotten:
            from ..forgetting.lines import as_now, forget_read

            forget_read(store, covered, forgotten)
            read = {path: as_now(path, logs[path], entry) for path, entry in read.items()}
        ledger = read_ledger(store)
        valid = still_valid(ledger, list(read))
        report.read_further = [
            path
            for path in read
            if path.name in valid and valid[path.name].bytes > read[path].bytes
        ]
        if report.read_further and stop_if_read_further:
            report.stopped = True
            return report
        gone = {turn.source for turn in covered}
        unread = {
            turn.source
            for turn in turns
            if turn.source not in gone and not learned_before(turn, valid)
        }
        if gone:
            report.facts = {
                day: [fact for fact in facts if fact.source not in gone]
                for day, facts in report.facts.items()
            }
        scorer.save()
        fresh = [fact for facts in report.facts.values() for fact in facts if fact.source in unread]
        if fresh:
            remembered = graph.remember(fresh, now)
            report.added, report.reinforced = len(remembered.added), len(remembered.reinforced)
            report.superseded = len(remembered.superseded)
        for day, kept in episodes.items():
            report.episodes += append_episodes(
                store, day, [episode for episode in kept if episode.source in unread]
            )
        if days:
            _write_summaries(store, days, report)
        record_how_far(store, ledger, list(read), valid, {p.name: e for p, e in read.items()})
        if in_step:
            from ..indexes import bring_in_step

            report.warnings += bring_in_step(graph).warnings
    return report


def _read_days(
    days: dict[str, list[Turn]],
    settings: Settings,
    created: str,
    scorer: SalienceScorer,
    report: LearnReport,
    progress: Progress | None,
) -> dict[str, list[Episode]]:
    """The candidate facts of each day's turns (in `report.facts`) and their episodes."""
    episodes: dict[str, list[Episode]] = {}
    for number, (day, said) in enumerate(days.items()):
        if progress is not None:
            progress("learn", number, len(days))
        found = candidates_of(said, settings, created, scorer)
        report.fragments += found.fragments
        report.chatter += found.chatter
        report.extractor = found.extractor
        report.warnings += found.warnings
        report.facts[day] = found.facts
        report.facts_extracted += len(found.facts)
        episodes[day] = _episodes(said, found.facts)
    if progress is not None:
        progress("learn", len(days), len(days))
    return episodes


def _said_by_day(turns: Sequence[Turn], report: LearnReport) -> dict[str, list[Turn]]:
    """The turns, redacted and in the context of their log, by the day of their log (in the
    order handed on)."""
    logs: dict[str, list[Turn]] = {}
    for turn in turns:
        if turn.scaffolding:
            continue  # a heartbeat, a cron run: no one's words, never memory
        logs.setdefault(turn.source_file, []).append(_redacted(turn, report))
    days: dict[str, list[Turn]] = {}
    for log, said in logs.items():
        days.setdefault(_day_of(log, said[0]), []).extend(in_context(said))
    return days


def _redacted(turn: Turn, report: LearnReport) -> Turn:
    """`turn` with its text and speaker made safe to keep: unsafe characters replaced (but
    the newlines and tabs the extractor reads), secrets redacted."""
    text = redact(without_unsafe(turn.text))
    report.redactions += text.count
    if turn.speaker is None:
        return replace(turn, text=text.text)
    speaker = redact(without_unsafe(turn.speaker))
    report.redactions += speaker.count
    return replace(turn, text=text.text, speaker=speaker.text)


def _day_of(log: str, turn: Turn) -> str:
    """The day of the session log `log`, or for a turn said in none the day it was said."""
    named = SESSION_NAME.match(PurePath(log).name)
    return named.group(1) if named else turn.ts.date().isoformat()


def _episodes(turns: list[Turn], facts: list[Fact]) -> list[Episode]:
    """The episodes of what the person and the assistant said, each noting how many facts
    were learned from its turn."""
    learned = Counter(fact.source for fact in facts)
    return [
        episode
        for turn in turns
        if turn.role in EPISODE_ROLES
        for episode in episodes_of(
            turn.source,
            format_iso(turn.ts),
            turn.subject,
            turn.text,
            learned[turn.source],
            turn.asked,
            turn.provenance,
        )
    ]


def _write_summaries(store, days: Mapping[str, Sequence[Path]], report: LearnReport) -> None:
    """Each day's summary, but that of a day whose logs another run read further (its
    summary, written by the run that read further, stands)."""
    stale_days = {session_day(path) for path in report.read_further}
    for day, found in days.items():
        if day in stale_days:
            report.warnings.append(
                f"daily/{day}.md left as it is: other summarize runs kept reading "
                f"its logs further than this one ({READ_ATTEMPTS} tries)"
            )
            continue
        _write_daily(store, day, found, report.facts.get(day, []), report)


def _write_daily(
    store, day: str, logs: Sequence[Path], facts: list[Fact], report: LearnReport
) -> None:
    layout = store.layout
    entries = [
        {
            "section": section_of(fact.category or "fact"),
            "text": fact.text or fact.object,
            "id": fact.id,
            # Who said it, when it was not the owner.
            "source": fact.source
            if fact.said_by.origin == OWNER
            else f"{fact.source}; {fact.said_by.describe()}",
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
