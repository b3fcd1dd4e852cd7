"""The ledger of what was learned (state/summarized.json): how far each session log was read.

An entry holds the whole lines read of a log, their bytes and the hash of those bytes: a log
that only grew since is read on from there; one whose first bytes changed is read again. A
turn was learned before when the entry of its log covers its line (learned_before).
"""

from __future__ import annotations

import builtins
import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path, PurePath

from ..model.turn import Turn


@dataclass(frozen=True)
class LedgerEntry:
    """One log's entry, as the file keeps it: whole lines read, their bytes and their hash,
    and when."""

    lines: int
    bytes: int
    sha256: str
    summarized_at: str

    @classmethod
    def of(cls, data: builtins.bytes, stamp: str) -> LedgerEntry:
        """How much of a log is read, given the bytes read: its whole lines only. A last
        line still being written is not counted, so its facts are ingested once it is
        complete."""
        whole = data[: data.rfind(b"\n") + 1]
        return cls(whole.count(b"\n"), len(whole), hashlib.sha256(whole).hexdigest(), stamp)

    def prefix_unchanged(self, path: Path) -> bool:
        """True when the log's first bytes are those summarized (it only grew since)."""
        with open(path, "rb") as handle:
            prefix = handle.read(self.bytes)
        return len(prefix) == self.bytes and hashlib.sha256(prefix).hexdigest() == self.sha256

    def covers(self, path: Path) -> bool:
        """True when the log is, to its end, what was summarized."""
        return path.stat().st_size == self.bytes and self.prefix_unchanged(path)


Ledger = dict[str, LedgerEntry]  # by the log's file name


def learned_before(turn: Turn, valid: Ledger) -> bool:
    """Whether an earlier run learned `turn`: the entry of its log in `valid` (those still
    describing their log, see still_valid) covers its line."""
    entry = valid.get(PurePath(turn.source_file).name)
    return entry is not None and turn.line <= entry.lines


def read_ledger(store) -> Ledger:
    path = store.layout.summarize_ledger
    if not path.exists():
        return {}
    files = store.read_json_file(path, "summarize-ledger")["files"]
    return {name: LedgerEntry(**entry) for name, entry in files.items()}


def write_ledger(store, ledger: Ledger) -> None:
    files = {name: asdict(entry) for name, entry in ledger.items()}
    store.write_validated_json(store.layout.summarize_ledger, "summarize-ledger", {"files": files})


def fully_summarized(path: Path, ledger: Ledger) -> bool:
    entry = ledger.get(path.name)
    return entry is not None and entry.covers(path)


def still_valid(ledger: Ledger, paths: list[Path]) -> Ledger:
    """The entries of `ledger` that still describe their log (it only grew since), each
    checked once: it re-reads and hashes what the entry covers."""
    return {
        path.name: ledger[path.name]
        for path in paths
        if path.name in ledger and ledger[path.name].prefix_unchanged(path)
    }


def record_how_far(store, ledger: Ledger, paths: list[Path], valid: Ledger, read: Ledger) -> None:
    """The ledger with how far each log was read now (`read`), written when it changed. The
    entry of a summarize that read as far, or further, stands (`valid`: still_valid's)."""
    before = dict(ledger)
    for path in paths:
        known, entry = valid.get(path.name), read[path.name]
        if known is None or known.bytes < entry.bytes:
            ledger[path.name] = entry
    if ledger != before:
        write_ledger(store, ledger)


def unsummarized(store, paths: list[Path]) -> set[Path]:
    """The session logs of `paths` with lines summarize has not read yet."""
    ledger = read_ledger(store)
    return {path for path in paths if not fully_summarized(path, ledger)}


def forget_removed_logs(store) -> int:
    """Drop the ledger entries of session logs no longer in sessions/ (under the caller's
    lock); returns how many."""
    ledger = read_ledger(store)
    kept = {
        name: entry
        for name, entry in ledger.items()
        if (store.layout.sessions_dir / name).is_file()
    }
    if len(kept) != len(ledger):
        write_ledger(store, kept)
    return len(ledger) - len(kept)
