"""The data directory's write lock: a real flock(2) with an explicit timeout.

flock, not a lock file's existence: the kernel releases it when its holder dies, however
it dies, so a killed writer never leaves the memory locked. (Taken with fcntl directly: the
filelock package costs a recall process 15 ms of imports for these few lines.)

Whoever holds it writes who they are beside it, so a process that gives up waiting can
name the holder's pid in its error.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import STORAGE_ERRNOS, LockTimeoutError
from .files import FILE_MODE

POLL_SECONDS = 0.01


def holder_path(lock_path: Path) -> Path:
    return lock_path.with_name(lock_path.name + ".holder")


@contextmanager
def exclusive(
    lock_path: Path, timeout: float, purpose: str, *, poll: float = POLL_SECONDS
) -> Iterator[None]:
    """Hold `lock_path` exclusively for the block, or raise LockTimeoutError after `timeout` s
    of trying every `poll` s."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, FILE_MODE)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeoutError(lock_path, timeout, read_holder(lock_path)) from None
                time.sleep(poll)
        holder = _open_holder(lock_path)
        try:
            _holder_write(
                holder,
                f"pid {os.getpid()} ({purpose}) since "
                f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
            )
            yield
        finally:
            # Cleared before release, so a stale name is never blamed for someone else's hold.
            _holder_write(holder, "")
            if holder is not None:
                os.close(holder)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def read_holder(lock_path: Path) -> str | None:
    try:
        text = holder_path(lock_path).read_text(encoding="utf-8").strip()
    except (FileNotFoundError, UnicodeDecodeError):
        return None
    return text or None


# The holder's name is best effort on a failing disk, and not fsynced: it only serves the
# error message of a process that timed out waiting, so a full disk must neither fail the
# command here (the write the command is for reports it) nor stop it releasing the lock.
# The file stays open for the hold and is emptied before it is closed: ext4 writes a file
# back when it is closed after being truncated to nothing with data in it, which cost each
# lock a quarter of a millisecond.
def _open_holder(lock_path: Path) -> int | None:
    try:
        return os.open(holder_path(lock_path), os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, FILE_MODE)
    except OSError as exc:
        if exc.errno in STORAGE_ERRNOS:
            return None
        raise


def _holder_write(fd: int | None, text: str) -> None:
    if fd is None:
        return
    try:
        os.ftruncate(fd, 0)
        if text:
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, (text + "\n").encode("utf-8"))
    except OSError as exc:
        if exc.errno not in STORAGE_ERRNOS:
            raise
