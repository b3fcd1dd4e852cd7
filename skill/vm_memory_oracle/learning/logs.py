"""Session logs learned: their secrets redacted in place, their turns read and handed on
to learn() (learn_logs), for summarize and the live path alike.

A bad line is never removed from a log (facts cite the lines after it by number): it is
copied to state/sessions.quarantine.jsonl once, and skipped with a warning each time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ChangedMeanwhile, DataDirError
from ..extract.redact import redact, redact_value
from ..model.turn import Turn
from ..storage import files, strict_json
from ..storage.files import BadLine
from ..storage.sessions import read_session
from .learn import READ_ATTEMPTS, LearnReport, Progress, learn
from .salience_scorer import SalienceScorer

if TYPE_CHECKING:
    from ..graph import KnowledgeGraph
    from ..openclaw.imports import ImportReport


def learn_logs(
    graph: KnowledgeGraph,
    now: datetime,
    logs: Mapping[str, Sequence[Path]],
    *,
    imported: Sequence[tuple[ImportReport, str]] = (),
    in_step: bool = False,
    progress: Progress | None = None,
) -> LearnReport:
    """The session logs `logs` (by day, each day's logs whole) learned, their secrets
    redacted in place first, and each day's summary written with them (learn); `imported`:
    what imports copied into sessions/ first, each with the name its warnings go under.
    When another run read a log further meanwhile, the logs are read again (at most
    READ_ATTEMPTS times), so that a day's summary lacks none of its lines."""
    paths = [path for found in logs.values() for path in found]
    if not paths:
        return _with_imports(LearnReport(days=list(logs)), imported)
    store = graph.store
    redactions = redact_logs(store, paths)
    from ..forgetting.lines import forget_again

    forget_again(store, paths)  # a forgotten turn copied back, or repeated by another
    scorer = SalienceScorer(graph, graph.settings)
    for attempt in range(1, READ_ATTEMPTS + 1):
        read = read_logs(store, paths)
        learned = learn(
            graph,
            read.turns,
            now,
            logs=read.data,
            days=logs,
            scorer=scorer,
            stop_if_read_further=attempt < READ_ATTEMPTS,
            in_step=in_step,
            progress=progress,
        )
        if not learned.stopped:
            break
    learned.days = list(logs)
    learned.session_files = [store.layout.relative(path) for path in paths]
    learned.redactions += redactions
    learned.warnings[:0] = read.warnings
    return _with_imports(learned, imported)


def _with_imports(report: LearnReport, imported: Sequence[tuple[ImportReport, str]]) -> LearnReport:
    """`report` with what the imports copied into sessions/ first, their warnings (each
    headed by its import's name) before the learn's."""
    warnings = []
    for done, what in imported:
        report.imported += done.files_written
        report.imported_turns += done.turns
        report.redactions += done.redactions
        warnings += [f"{what}: {reason}" for reason in done.skipped]
        warnings += [f"{what}: {cut}" for cut in done.cut]
    report.warnings[:0] = warnings
    return report


def redact_logs(store, paths: list[Path]) -> int:
    """The secrets of the logs about to be read, redacted in place (under the lock); how
    many."""
    total = 0
    with store.locked("summarize: redact"):
        for path in paths:
            found = redact_session(store, path)
            if found:
                relative = store.layout.relative(path)
                store.note(f"redacted {found} secret(s) in {relative}", redactions=found)
            total += found
    return total


def redact_session(store, path: Path, attempts: int = 5) -> int:
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


@dataclass
class LogsRead:
    """What one read of the session logs found: their turns as said, in the order of the
    logs, and the bytes read of each (how far it was read is measured on them)."""

    turns: list[Turn] = field(default_factory=list)
    data: dict[Path, bytes] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def read_logs(store, paths: list[Path]) -> LogsRead:
    """The turns of the logs at `paths` (no lock held); their bad lines quarantined."""
    read = LogsRead()
    for path in paths:
        read.data[path], turns = read_log(store, path, read.warnings)
        read.turns += turns
    return read


def read_log(store, path: Path, warnings: list[str]) -> tuple[bytes, list[Turn]]:
    """The bytes read from the log at `path`, and the turns they hold."""
    data, contents = read_session(path)
    name = store.layout.relative(path)
    if contents.bad:
        _quarantine_session_lines(store, name, contents.bad, warnings)
    turns = [
        Turn.of_record(name, number, record)
        for record, number in zip(contents.records, contents.line_numbers)
    ]
    return data, turns


def _quarantine_session_lines(
    store, name: str, bad_lines: list[BadLine], warnings: list[str]
) -> None:
    target = store.layout.sessions_quarantine
    known = (
        {(entry["file"], entry["line"]) for entry in store.read_records(target, "quarantine")}
        if target.exists()
        else set()
    )
    entries = []
    for bad in bad_lines:
        warnings.append(
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
