"""summarize: session logs of a day -> facts in the knowledge graph and daily/YYYY-MM-DD.md.

1. OpenClaw transcripts and notes, when configured, are copied into sessions/.
2. Secrets in the session logs are redacted in place (line numbers kept).
3. Each turn is split into fragments, classified and scored; what passes the threshold
   becomes a fact citing sessions/<file>:<line> (external extractor first, if configured).
4. Facts from lines not summarized before are ingested, and their turns kept as episodes
   (episodes/<day>.jsonl); state/summarized.json records how far each file has been read,
   so a second run ingests nothing and boosts nothing.
5. The day's summary is rendered from all of that day's facts and written if it changed.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..clock import format_iso, parse_iso
from ..config import Settings
from ..episodes import Episode, append_episodes, episodes_of
from ..errors import ChangedMeanwhile, DataDirError, ExtractorFailed, InvalidInputError
from ..extract.external import run_extractor
from ..extract.fragments import CHATTER, QUESTION
from ..extract.redact import redact, redact_value
from ..extract.rules import (
    ACTION_ITEM_PREDICATE,
    Turn,
    extract_statements,
    fragment_records,
    in_context,
    section_of,
    signal_score,
    turn_fragments,
)
from ..extract.salience import importance_with, with_evidence
from ..graph import KnowledgeGraph
from ..intake import candidate_fact
from ..learning.ledger import (
    LedgerEntry,
    fully_summarized,
    read_ledger,
    record_how_far,
    still_valid,
)
from ..learning.salience_scorer import SalienceScorer
from ..model.characters import without_unsafe
from ..model.fact import INTRINSIC_IMPORTANCE, Fact, clean_text
from ..openclaw_import import import_openclaw, import_openclaw_state
from ..storage import files, strict_json
from ..storage.sessions import read_session, session_day
from .daily_summary import render_daily_summary

# A summarize that finds, once it holds the lock, that another one read the logs further
# since it read them, reads them again: its daily summary would lack what it missed.
READ_ATTEMPTS = 5
# Whose turns are kept as episodes: what the person and the assistant said (a system
# prompt or a tool's output is not the conversation).
EPISODE_ROLES = ("user", "assistant")
# The origin an imported line names (openclaw_import.py): "openclaw:<agent>/<session>#<seq>".
_ORIGIN = re.compile(r"openclaw:[^\s/#]{1,128}/[^\s#]{1,256}#\d{1,12}")


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
    store, layout = graph.store, graph.layout
    report = SummarizeReport()
    _import_from_openclaw(store, settings, report)
    days = _days_to_read(store, day or now.date().isoformat(), all_pending)
    logs = {one_day: store.session_files(one_day) for one_day in days}  # each day listed once
    paths = [path for found in logs.values() for path in found]
    report.days = [one_day for one_day, found in logs.items() if found]
    report.session_files = [layout.relative(path) for path in paths]
    if not paths:
        return report
    _redact_logs(store, paths, report)

    created = format_iso(now)
    scorer = SalienceScorer(graph, settings)
    report.salience = scorer.name
    for attempt in range(1, READ_ATTEMPTS + 1):
        reading = _read_logs(store, report.days, settings, created, progress, scorer)
        # How far each log was read: by the bytes read, not the log as it is now, since the
        # agent may have appended to it meanwhile.
        entries = {name: LedgerEntry.of(data, created) for name, data in reading.logs.items()}
        with store.locked("summarize"):
            ledger = read_ledger(store)
            valid = still_valid(ledger, paths)
            read_further_meanwhile = [
                path
                for path in paths
                if path.name in valid and valid[path.name].bytes > entries[path.name].bytes
            ]
            if read_further_meanwhile and attempt < READ_ATTEMPTS:
                continue  # another summarize read further meanwhile: read the logs again
            # The lines of each log a summarize before this one learned from already.
            done = {
                layout.relative(path): valid[path.name].lines if path.name in valid else 0
                for path in paths
            }
            fresh = [
                fact
                for facts in reading.per_day.values()
                for fact, _ in facts
                if _unread(fact.source, done)
            ]
            scorer.save()
            if fresh:
                result = graph.remember(fresh, now)
                report.added, report.reinforced = len(result.added), len(result.reinforced)
                report.superseded = len(result.superseded)
            for one_day, episodes in reading.episodes.items():
                unread = [episode for episode in episodes if _unread(episode.source, done)]
                report.episodes += append_episodes(store, one_day, unread)
            stale_days = {session_day(path) for path in read_further_meanwhile}
            for one_day, facts in reading.per_day.items():
                if one_day in stale_days:
                    # Its summary, written by the summarize that read further, stands.
                    report.warnings.append(
                        f"daily/{one_day}.md left as it is: other summarize runs kept reading "
                        f"its logs further than this one ({READ_ATTEMPTS} tries)"
                    )
                    continue
                _write_daily(store, one_day, facts, report)
            record_how_far(store, ledger, paths, valid, entries)
            break
    report.turns, report.fragments = reading.tally.turns, reading.tally.fragments
    report.chatter, report.extractor = reading.tally.chatter, reading.tally.extractor
    report.redactions += reading.tally.redactions
    report.warnings += reading.tally.warnings
    report.facts_extracted = sum(len(facts) for facts in reading.per_day.values())
    return report


def _import_from_openclaw(store, settings: Settings, report: SummarizeReport) -> None:
    """New turns of OpenClaw's conversations (its state database, or its session and memory
    directories), copied into sessions/ before the logs are read."""
    if settings.openclaw_state_dir:
        imported = import_openclaw_state(store, settings.openclaw_state_dir)
        report.imported = imported.files_written
        report.imported_turns = imported.turns
        report.redactions += imported.redactions
        report.warnings += [f"openclaw import: {reason}" for reason in imported.skipped]
    if settings.openclaw_sessions_dir or settings.openclaw_memory_dir:
        imported = import_openclaw(
            store,
            sessions_dir=settings.openclaw_sessions_dir,
            memory_dir=settings.openclaw_memory_dir,
        )
        report.imported += imported.files_written
        report.redactions += imported.redactions
        report.warnings += [f"openclaw import: {reason}" for reason in imported.skipped]


def _days_to_read(store, day: str, all_pending: bool) -> list[str]:
    """`day`, or with `all_pending` every day with a log not summarized to its end."""
    if not all_pending:
        return [day]
    ledger = read_ledger(store)
    return sorted(
        {session_day(path) for path in store.session_files() if not fully_summarized(path, ledger)}
    )


def _redact_logs(store, paths: list[Path], report: SummarizeReport) -> None:
    """The secrets of the logs about to be read, redacted in place (under the lock)."""
    with store.locked("summarize: redact"):
        for path in paths:
            found = _redact_session(store, path)
            if found:
                relative = store.layout.relative(path)
                store.note(f"redacted {found} secret(s) in {relative}", redactions=found)
            report.redactions += found


def _unread(source: str, done: dict[str, int]) -> bool:
    """Whether the turn at `source` lies past the lines of its log read before (`done`: log
    -> lines, for the logs being read)."""
    name, _, line = source.rpartition(":")
    return name in done and int(line) > done[name]


@dataclass
class _Reading:
    """What one read of the session logs found."""

    logs: dict[str, bytes] = field(default_factory=dict)  # log name -> the bytes read
    per_day: dict[str, list[tuple[Fact, str]]] = field(
        default_factory=dict
    )  # day -> (candidate fact, section)
    tally: SummarizeReport = field(default_factory=SummarizeReport)  # turns, fragments, ...
    episodes: dict[str, list[Episode]] = field(default_factory=dict)  # day -> its episodes


def _read_logs(
    store,
    days: list[str],
    settings: Settings,
    created: str,
    progress=None,
    scorer: SalienceScorer | None = None,
) -> _Reading:
    """Read the logs of `days` and extract their candidate facts (no lock held)."""
    reading = _Reading()
    for number, one_day in enumerate(days):
        if progress is not None:
            progress("summarize", number, len(days))
        turns = []
        for path in store.session_files(one_day):
            reading.logs[path.name], path_turns = _read_turns(store, path, reading.tally)
            turns += path_turns
        reading.per_day[one_day] = _extract(turns, settings, created, reading.tally, scorer)
        learned = Counter(fact.source for fact, _ in reading.per_day[one_day])
        reading.episodes[one_day] = [
            episode
            for turn in turns
            if turn.role in EPISODE_ROLES
            for episode in episodes_of(
                turn.source,
                format_iso(turn.ts),
                turn.subject,
                without_unsafe(turn.text),
                learned[turn.source],
                turn.asked,
            )
        ]
    if progress is not None:
        progress("summarize", len(days), len(days))
    return reading


def _redact_session(store, path: Path, attempts: int = 5) -> int:
    """Replace secrets in a session log, line by line, keeping every line where it is.

    The agent may be appending to the log meanwhile (it takes none of our locks): if the
    file changes between reading and replacing, it is read again; lines appended during the
    replacement itself are carried over, and redacted in turn.
    """
    redactions = 0
    for _ in range(attempts):
        before = path.stat()
        data = path.read_bytes()
        redacted, total = _redacted_lines(data)
        if not total:
            return redactions
        try:
            carried = store.replace_if_unchanged(
                path, redacted, size=before.st_size, mtime_ns=before.st_mtime_ns
            )
        except ChangedMeanwhile:
            continue
        redactions += total
        if not carried:
            return redactions
    raise DataDirError(path, f"kept changing while secrets were being redacted ({attempts} tries)")


def _redacted_lines(data: bytes) -> tuple[bytes, int]:
    raw_lines = data.split(b"\n")
    trailing = raw_lines[-1] == b""
    if trailing:
        raw_lines.pop()
    total = 0
    out = []
    for raw in raw_lines:
        text = raw.decode("utf-8", "replace")
        try:
            value = strict_json.loads(text)
        except strict_json.JsonRefused:
            cleaned = redact(text)
            total += cleaned.count
            out.append(cleaned.text)
            continue
        value, count = redact_value(value)
        total += count
        out.append(files.dumps_record(value) if count else text)
    return "".join(line + "\n" for line in out).encode("utf-8"), total


def _read_turns(store, path: Path, report: SummarizeReport) -> tuple[bytes, list[Turn]]:
    """The bytes read from the log at `path`, and its turns, their texts redacted: a line
    the agent appended after summarize redacted the log is read as the next run will find
    it, so its facts, its episode and its neighbours' context never hold the secret."""
    data, contents = read_session(path)
    name = store.layout.relative(path)
    if contents.bad:
        _quarantine_session_lines(store, name, contents.bad, report)
    turns = []
    for record, number in zip(contents.records, contents.line_numbers):
        origin = record.get("origin")
        turns.append(
            Turn(
                name,
                number,
                parse_iso(record["ts"]),
                record["role"],
                redact(without_unsafe(record["text"])).text,
                without_unsafe(record["speaker"]) if "speaker" in record else None,
                origin if isinstance(origin, str) and _ORIGIN.fullmatch(origin) else None,
            )
        )
    report.turns += len(turns)
    return data, in_context(turns)


def _quarantine_session_lines(store, name: str, bad_lines, report: SummarizeReport) -> None:
    target = store.layout.sessions_quarantine
    known = (
        {(entry["file"], entry["line"]) for entry in store.read_records(target, "quarantine")}
        if target.exists()
        else set()
    )
    entries = []
    for bad in bad_lines:
        report.warnings.append(
            f"{name}:{bad.line}: {bad.reason}; skipped (copied to {store.layout.relative(target)})"
        )
        if (name, bad.line) not in known:
            entries.append(
                {
                    "file": name,
                    "line": bad.line,
                    "reason": bad.reason[:2000],
                    "raw": redact(bad.raw).text,
                    "quarantined_at": store.timestamp,
                }
            )
    if entries:
        with store.locked("quarantine session lines"):
            store.append_records(target, "quarantine", entries)


def _extract(
    turns: list[Turn], settings: Settings, created: str, report: SummarizeReport, scorer=None
) -> list[tuple[Fact, str]]:
    """(candidate fact, summary section) for one day's turns, in the order they were said."""
    pairs = turn_fragments(turns, frozenset(settings.extract_roles))
    report.fragments += len(pairs)
    report.chatter += sum(1 for _, fragment in pairs if fragment.kind in (CHATTER, QUESTION))
    fields_list = None
    if settings.extractor_command:
        try:
            fields_list = run_extractor(
                list(settings.extractor_command),
                fragment_records(pairs),
                timeout=settings.extractor_timeout_seconds,
            )
            report.extractor = "external"
        except ExtractorFailed as exc:
            report.warnings.append(f"{exc}; using the built-in rules instead")
            report.extractor = "rules (external extractor failed)"
    if fields_list is None:
        found = extract_statements(pairs, threshold=settings.extract_threshold)
        fields_list = [fields for fields, _ in found]
        if found and scorer is not None:
            scores = scorer.scores(
                [statement for _, statement in found],
                [clean_text(fields["text"]) for fields in fields_list],
            )
            for (fields, statement), score in zip(found, scores):
                intrinsic = INTRINSIC_IMPORTANCE[fields["category"]]
                signals = signal_score(statement.text)
                action_item = fields["predicate"] == ACTION_ITEM_PREDICATE
                fields["salience"] = with_evidence(float(score), intrinsic, signals, action_item)
                fields["importance"] = importance_with(intrinsic, signals, fields["salience"])
    origins = {turn.source: turn.origin for turn in turns if turn.origin}
    facts = []
    for fields in fields_list:
        try:
            fact, redactions = candidate_fact(
                fields, created=created, default_source=fields["source"], source=fields["source"]
            )
            report.redactions += redactions
        except InvalidInputError as exc:
            report.warnings.append(f"skipped an extracted fact: {exc}")
            continue
        if fact.source in origins:
            # The copied line's own origin: the fact names the OpenClaw session it was said in.
            fact = fact.changed(sources=(origins[fact.source],))
        facts.append((fact, section_of(fact.category or "fact")))
    return facts


def _write_daily(store, day: str, facts: list[tuple[Fact, str]], report: SummarizeReport) -> None:
    layout = store.layout
    names = [path.name for path in store.session_files(day)]
    entries = [
        {
            "section": section,
            "text": fact.text or fact.object,
            "id": fact.id,
            "source": fact.source,
        }
        for fact, section in facts
    ]
    text = render_daily_summary(day, names, entries)
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
