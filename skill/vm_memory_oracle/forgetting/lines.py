"""Forgotten lines of the session logs: their text replaced in place, the line kept (facts
cite the lines after it by number), the summarize ledger kept describing the log; and a log
that holds a turn forgotten before (copied back into sessions/, or another's repeating it)
forgotten the same way before it is read, and again when a learn finds, under the lock,
that a forget ran while it read (forget_read)."""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePath

from ..errors import ChangedMeanwhile, DataDirError
from ..learning.ledger import LedgerEntry, read_ledger, write_ledger
from ..storage import files, strict_json
from .marks import FORGOTTEN_TEXT, Forgotten, forgotten_line, read_forgotten

ATTEMPTS = 5  # reads of a log the agent keeps appending to, at most


def forget_again(store, paths: list[Path]) -> int:
    """The lines of the logs `paths` that hold a forgotten turn (Forgotten.which), forgotten
    in place (under the lock) before the logs are read; how many."""
    from ..model.turn import Turn
    from ..storage.sessions import read_session

    # Nothing ever forgotten: no lock to take (a forget that runs from now on is seen by
    # the learn itself, under its lock: forget_read).
    if not store.layout.forgotten.exists():
        return 0
    total = 0
    with store.locked("summarize: forgotten"):
        forgotten = read_forgotten(store)
        if not forgotten:
            return 0
        for path in paths:
            _, contents = read_session(path)
            relative = f"sessions/{path.name}"
            found: dict[str, set[int]] = {}
            for record, number in zip(contents.records, contents.line_numbers):
                if record.get("text") == FORGOTTEN_TEXT:
                    continue
                ident = forgotten.which(Turn.of_record(relative, number, record))
                if ident is not None:
                    found.setdefault(ident, set()).add(number)
            for ident, numbers in found.items():
                total += forget_lines(store, path.name, numbers, ident)
    return total


def forget_read(store, turns, forgotten: Forgotten) -> int:
    """The lines of session logs holding `turns` (turns `forgotten` covers), forgotten in
    place (under the caller's lock); how many. A learn calls it once it holds the lock: a
    forget that ran after its logs were read found such a turn unlearned and left its line,
    which no later read of the log (learned to its end by then) would forget."""
    found: dict[tuple[str, str], set[int]] = {}
    for turn in turns:
        path = PurePath(turn.source_file)
        if path.parent.name != "sessions" or turn.text == FORGOTTEN_TEXT:
            continue
        ident = forgotten.which(turn)
        if ident is not None:
            found.setdefault((path.name, ident), set()).add(turn.line)
    return sum(forget_lines(store, name, lines, ident) for (name, ident), lines in found.items())


def as_now(path: Path, data: bytes, entry: LedgerEntry) -> LedgerEntry:
    """How far the log at `path` was read (`entry`, of the bytes read, `data`) as the log
    reads now: when lines of it were forgotten in place since (by a forget, or forget_read),
    the same lines as they now are, so that the ledger keeps describing the log; otherwise
    `entry`."""
    if entry.prefix_unchanged(path):
        return entry
    was = data[: entry.bytes].splitlines(keepends=True)
    now = path.read_bytes().splitlines(keepends=True)[: len(was)]
    if len(now) < len(was) or not all(
        old == new or _forgotten_line(new) for old, new in zip(was, now)
    ):
        return entry
    return _reading(now, entry)


def _reading(lines: list[bytes], entry: LedgerEntry) -> LedgerEntry:
    """`entry`, of a log read as far as `lines` (the same lines as it now reads them)."""
    whole = b"".join(lines)
    return LedgerEntry(
        entry.lines, len(whole), hashlib.sha256(whole).hexdigest(), entry.summarized_at
    )


def _forgotten_line(raw: bytes) -> bool:
    """A whole line (its newline written) that a forget replaced."""
    return raw.endswith(b"\n") and forgotten_line(raw)


def forget_lines(store, name: str, lines: set[int], ident: str) -> int:
    """The lines `lines` of sessions/`name`, their text replaced in place (the line keeps
    its place, its time, role, origin and who said it); the summarize ledger's entry of the
    log, when it described the log as it was, describes it as it is now."""
    path = store.layout.sessions_dir / name
    if not path.exists() or not store.usable(path):
        return 0
    for _ in range(ATTEMPTS):
        before = path.stat()
        data = path.read_bytes()
        forgotten, count = _forgotten_lines(data, lines, ident)
        if not count:
            return 0
        ledger = read_ledger(store)
        entry = ledger.get(name)
        described = entry is not None and entry.prefix_unchanged(path)
        try:
            store.replace_if_unchanged(
                path, forgotten, size=before.st_size, mtime_ns=before.st_mtime_ns
            )
        except ChangedMeanwhile:
            continue
        if described and entry is not None:
            ledger[name] = _reading(forgotten.splitlines(keepends=True)[: entry.lines], entry)
            write_ledger(store, ledger)
        return count
    raise DataDirError(path, f"kept changing while lines were being forgotten ({ATTEMPTS} tries)")


def _forgotten_lines(data: bytes, lines: set[int], ident: str) -> tuple[bytes, int]:
    raw_lines = data.split(b"\n")
    count = 0
    for number in lines:
        index = number - 1
        if index >= len(raw_lines) or not raw_lines[index].strip():
            continue
        try:
            record = strict_json.loads(raw_lines[index].decode("utf-8"))
        except (UnicodeDecodeError, strict_json.JsonRefused):
            continue
        if not isinstance(record, dict) or record.get("text") == FORGOTTEN_TEXT:
            continue
        kept = {key: record[key] for key in ("ts", "role", "origin", "provenance") if key in record}
        kept.update(text=FORGOTTEN_TEXT, forgotten=ident)
        raw_lines[index] = files.dumps_record(kept).encode("utf-8")
        count += 1
    return b"\n".join(raw_lines), count
