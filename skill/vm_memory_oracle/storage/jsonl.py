"""The store's JSONL files of records: read, their bad lines quarantined; peeked at, writing
nothing; and records made lines, checked against their schema, for the store to write.

A file unchanged since it was last parsed is served from its snapshot (storage.snapshot).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InvalidInputError
from . import files, snapshot, strict_json
from .files import BadLine, JsonlContents
from .layout import Layout
from .validation import problem
from .writer import Writer


def read_records(
    store: Writer,
    path: Path,
    kind: str,
    *,
    unique_key: str | None = None,
    copy: bool = True,
) -> list[dict]:
    """Valid records of `path`; bad lines are quarantined (under the lock) and reported.

    A file unchanged since it was last parsed is served from its snapshot, kept in this
    process and (see snapshot_on_disk) on disk. Callers that only read may pass
    copy=False and must then not modify the records.
    """
    if not store.usable(path):
        return []
    cache = store.layout.snapshot_for(path)
    key = snapshot.file_key(path)
    disk = snapshot_on_disk(store, path, cache)
    records = snapshot.load(cache, key, disk=disk)
    if records is None:
        contents = _read(path, kind, unique_key)
        if contents.bad:
            with store.locked(f"quarantine {path.name}"):
                contents = _read(path, kind, unique_key)  # what is there now
                if contents.bad:
                    _quarantine(store, path, contents)
            key = snapshot.file_key(path)
        records = contents.records
        snapshot.save(cache, key, records, disk=disk)
    return [dict(record) for record in records] if copy else records


def peek_records(store: Writer, path: Path, kind: str) -> tuple[list[dict], int]:
    """(valid records, number of invalid lines) of `path`, writing nothing: for checks
    that report damage and leave its repair to the next write, so that a check never
    changes what it checks. A refused file reads as empty (the health check lists it)."""
    if store.refused(path) is not None:
        return [], 0
    records = snapshot.load(
        store.layout.snapshot_for(path), snapshot.file_key(path), disk=store.cache_usable(None)
    )
    if records is not None:  # a snapshot is saved only of a file without bad lines
        return records, 0
    contents = files.read_jsonl(path, lambda record: problem(kind, record))
    return contents.records, len(contents.bad)


@dataclass
class LinesChecked:
    """What a pass over every line of a JSONL file found: how many records passed their
    schema, and the lines read_records would set aside, in order."""

    records: int = 0
    bad: list[BadLine] = field(default_factory=list)


def check_lines(
    path: Path,
    kind: str,
    *,
    unique_key: str | None = None,
    each: Callable[[dict], None] | None = None,
) -> LinesChecked:
    """Every line of `path` checked as read_records checks it (the `kind` schema, and each
    `unique_key` once), a line at a time: no record is held after its line, only the keys
    seen. `each` is given every record that passes the schema, a repeated key's too. For a
    pass that only checks the file: a clean file need not be read again, and one with a
    line to set aside is read by read_records, which quarantines it."""
    checked = LinesChecked()
    seen: set = set()
    for number, parsed in files.each_jsonl_line(path, lambda record: problem(kind, record)):
        if isinstance(parsed, BadLine):
            checked.bad.append(parsed)
            continue
        checked.records += 1
        if each is not None:
            each(parsed)
        if unique_key is not None:
            key = parsed[unique_key]
            if key in seen:
                checked.bad.append(BadLine(number, "", f"duplicate {unique_key} {key!r}"))
            seen.add(key)
    return checked


def snapshot_on_disk(store: Writer, path: Path, cache: Path) -> bool:
    """Whether the snapshot of records of `path` is kept on disk too: not the journal of
    recalls, which changes at every recall, nor facts.jsonl, read at the places of its
    records (storage/facts_places.py) unless a line of it is to be set aside (kept in this
    process only)."""
    layout = store.layout
    return path not in (layout.activation_journal, layout.facts) and store.cache_usable(cache)


def _read(path: Path, kind: str, unique_key: str | None) -> JsonlContents:
    contents = files.read_jsonl(path, lambda record: problem(kind, record))
    if unique_key is None:
        return contents
    kept = JsonlContents(bad=contents.bad)
    seen: set = set()
    for record, raw, number in zip(contents.records, contents.raw_lines, contents.line_numbers):
        if record[unique_key] in seen:
            kept.bad.append(BadLine(number, raw, f"duplicate {unique_key} {record[unique_key]!r}"))
            continue
        seen.add(record[unique_key])
        kept.keep(record, raw, number)
    kept.bad.sort(key=lambda bad: bad.line)
    return kept


def _quarantine(store: Writer, path: Path, contents: JsonlContents) -> None:
    # Quarantine first and durably, then drop the lines: a crash in between leaves the
    # line in both places, never in neither.
    layout = store.layout
    target = layout.quarantine_for(path)
    name = layout.relative(path)
    entries = [
        {
            "file": name,
            "line": bad.line,
            "reason": bad.reason[:2000],
            "raw": bad.raw,
            "quarantined_at": store.timestamp,
        }
        for bad in contents.bad
    ]
    store.append_records(target, "quarantine", entries)
    files.write_lines_atomic(path, contents.raw_lines)
    store.touched(path)
    store.note(f"quarantined {len(contents.bad)} invalid line(s) of {name}", repair=True)
    for bad in contents.bad:
        store.warnings.append(
            f"{name}:{bad.line}: {bad.reason}; moved to {layout.relative(target)}"
        )


# -- records made lines ----------------------------------------------------------------------
# `layout` names the file in the error that refuses a record.
def lines_in_step(
    layout: Layout, path: Path, kind: str, records: Callable[[], Iterable[dict]]
) -> Iterator[str] | None:
    """The lines of the records `records()` gives (a new iterator at each call) to write
    `path` with, made as they are written, or None when the file holds exactly those
    lines. Each is checked against the schema unless the file holds the same line: a
    remember at 100,000 facts changes a few of entities.jsonl's 90,000 records, and checking
    them all again took a second and a half. The file is read a line at a time, each line
    known by its hash, no record of it parsed (a million facts' entities.jsonl, parsed, held
    a gigabyte); neither the records nor their lines are held (the records are made twice
    when the file differs). A record that would not pass raises InvalidInputError where its
    line is made, which stops the write it was made for before anything changed."""
    made = (line(layout, path, kind, record).encode("utf-8") for record in records())
    held = array("q")
    same = True
    try:
        with open(path, "rb") as handle:
            for raw in handle:
                text = raw[:-1] if raw.endswith(b"\n") else raw
                held.append(hash(text))
                same = same and next(made, None) == text
    except FileNotFoundError:
        pass
    if same and next(made, None) is None:
        return None
    hashes = np.sort(np.frombuffer(held, dtype=np.int64))

    def in_file(text: bytes) -> bool:
        hashed = hash(text)
        place = int(np.searchsorted(hashes, hashed))
        return place < len(hashes) and int(hashes[place]) == hashed

    def lines() -> Iterator[str]:
        for record in records():
            text = line(layout, path, kind, record).encode("utf-8")
            yield (
                text.decode("utf-8") if in_file(text) else checked_line(layout, path, kind, record)
            )

    return lines()


def checked_line(layout: Layout, path: Path, kind: str, record: dict) -> str:
    fault = problem(kind, record)
    if fault:
        raise InvalidInputError(
            f"refusing to write an invalid {kind} record: {fault}",
            source=layout.relative(path),
        )
    return line(layout, path, kind, record)


def line(layout: Layout, path: Path, kind: str, record: dict) -> str:
    try:
        return files.dumps_record(record)
    except strict_json.JsonRefused as exc:
        raise InvalidInputError(
            f"refusing to write a {kind} record that {exc}", source=layout.relative(path)
        ) from None
