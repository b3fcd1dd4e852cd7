"""What the store's readers (jsonl.py, facts_file.py, activation_state.py) ask of the store
that holds them: the one writer of the data directory decides which entries may be used,
holds the lock, keeps the audit log and makes every write. A protocol, so that the readers
the store delegates to need not import it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from ..model.activation import ActivationEntry
from .layout import Layout, Refusal


class Writer(Protocol):
    layout: Layout
    timestamp: str
    warnings: list[str]

    def refused(self, path: Path) -> Refusal | None: ...

    def usable(self, path: Path) -> bool: ...

    def cache_usable(self, cache: Path | None) -> bool: ...

    def locked(
        self, purpose: str, *, needs: Iterable[Path] | None = None, durable: bool = True
    ) -> AbstractContextManager[None]: ...

    def touched(self, path: Path) -> None: ...

    def note(
        self, change: str, ids: Iterable[str] = (), *, redactions: int = 0, repair: bool = False
    ) -> None: ...

    def read_records(
        self, path: Path, kind: str, *, unique_key: str | None = None, copy: bool = True
    ) -> list[dict]: ...

    def peek_records(self, path: Path, kind: str) -> tuple[list[dict], int]: ...

    def append_records(
        self,
        path: Path,
        kind: str,
        records: Iterable[dict],
        *,
        lines: Iterable[str] | None = None,
        copy: bool = True,
        kept: bool = True,
    ) -> None: ...

    def rewrite_records(
        self,
        path: Path,
        kind: str,
        records: Iterable[dict],
        *,
        lines: Iterable[str] | None = None,
        kept: bool = True,
    ) -> None: ...

    def write_activation(
        self,
        state: Mapping[str, ActivationEntry],
        changed: Iterable[str] | None = None,
        *,
        journal_limit: int = ...,
    ) -> None: ...

    def write_validated_json(
        self, path: Path, kind: str, document, *, compact: bool = False, checked=None
    ) -> bool: ...
