"""The data directory's write lock: a real flock with an explicit timeout.

Whoever holds it writes who they are beside it, so a process that gives up waiting can
name the holder's pid in its error.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from filelock import FileLock, Timeout

from ..errors import STORAGE_ERRNOS, LockTimeoutError
from .files import FILE_MODE


def holder_path(lock_path: Path) -> Path:
    return lock_path.with_name(lock_path.name + ".holder")


@contextmanager
def exclusive(lock_path: Path, timeout: float, purpose: str) -> Iterator[None]:
    """Hold `lock_path` exclusively for the block, or raise LockTimeoutError after `timeout` s."""
    lock = FileLock(lock_path, timeout=timeout, mode=FILE_MODE)
    try:
        lock.acquire()
    except Timeout:
        raise LockTimeoutError(lock_path, timeout, read_holder(lock_path)) from None
    try:
        _write_holder(lock_path, f"pid {os.getpid()} ({purpose}) since "
                                 f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}")
        yield
    finally:
        # Cleared before release, so a stale name is never blamed for someone else's hold.
        _write_holder(lock_path, "")
        lock.release()


def read_holder(lock_path: Path) -> str | None:
    try:
        text = holder_path(lock_path).read_text(encoding="utf-8").strip()
    except (FileNotFoundError, UnicodeDecodeError):
        return None
    return text or None


def _write_holder(lock_path: Path, text: str) -> None:
    # Not fsynced, and best effort on a failing disk: it only serves the error message of a
    # process that timed out waiting, so a full disk must neither fail the command here
    # (the write the command is for reports it) nor stop it releasing the lock.
    try:
        fd = os.open(holder_path(lock_path),
                     os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
    except OSError as exc:
        if exc.errno in STORAGE_ERRNOS:
            return
        raise
    try:
        os.write(fd, (text + "\n" if text else "").encode("utf-8"))
    except OSError as exc:
        if exc.errno not in STORAGE_ERRNOS:
            raise
    finally:
        os.close(fd)
