"""Parsed copies of files, kept while the file they came from is unchanged.

Loading 10,000 facts means parsing and validating 10,000 JSON lines; a recall should not
pay that every time. A snapshot holds what was parsed and validated, keyed by the source
file's identity (inode, size, modification and change times): in memory for the life of
the process, and on disk under state/cache/ in `marshal` format, which stores plain data
only (no code runs when it is read). A snapshot whose key does not match is ignored and
replaced; a damaged one is ignored too. Snapshots are derived data: deleting state/cache/
costs one slow load, nothing more.

This module is the store behind storage/derived.Derived, not a memo beside it: its two
dicts are what a process holds, by cache path, each value with the key it was made for
(the file's key, or a Derived key made of its sources' keys), so that a change of the file
makes it unheld. `_memory` holds the payloads, as saved (the parsed records of a JSONL
file, a Derived state as encoded); `_decoded` holds each Derived state as decoded, the
same object for as long as its key holds.
"""

from __future__ import annotations

import marshal
import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from . import files

FORMAT = 1
_memory: dict[str, tuple[tuple, object]] = {}


def file_key(path: Path) -> tuple | None:
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def load(cache_path: Path, key: tuple | None, *, disk: bool = True, streamed: bool = False):
    """The payload saved for `key`, or None (`streamed`: see _stored)."""
    if key is None:
        return None
    held = _memory.get(str(cache_path))
    if held is not None and held[0] == key:
        return held[1]
    stored = _stored(cache_path, streamed=streamed) if disk else None
    if stored is None or stored[0] != key:
        return None
    _memory[str(cache_path)] = stored
    return stored[1]


def load_any(
    cache_path: Path, *, disk: bool = True, streamed: bool = False
) -> tuple[tuple, object] | None:
    """(key, payload) of whatever is held for `cache_path`, whatever file it was made of:
    for a snapshot that can be brought up to date instead of made again."""
    held = _memory.get(str(cache_path))
    if held is not None:
        return held
    return _stored(cache_path, streamed=streamed) if disk else None


def key_of(cache_path: Path, *, disk: bool = True, streamed: bool = False) -> tuple | None:
    """The key of what load_any would give, read without its payload: of the payload held
    in memory, else of a file written a value at a time (`streamed`: the lexical snapshot of
    a million facts is 240 MB, read only to find it made of other facts); None when that
    cannot be told so (nothing held, no such file, or one of another form)."""
    held = _memory.get(str(cache_path))
    if held is not None:
        return held[0]
    if not disk or not streamed:
        return None
    try:
        with open(cache_path, "rb") as handle:
            if handle.read(5) != _TUPLE + struct.pack("<i", 3):
                return None
            stored_format = marshal.load(handle)
            key = marshal.load(handle)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if stored_format != FORMAT or not isinstance(key, (tuple, list)):
        return None
    return tuple(key)


def stored(cache_path: Path, *, streamed: bool = False) -> tuple[tuple, object] | None:
    """(key, payload) of the snapshot file as it is now, whatever this process holds: what
    another process may have written meanwhile."""
    return _stored(cache_path, streamed=streamed)


def _stored(cache_path: Path, *, streamed: bool = False) -> tuple[tuple, object] | None:
    """(key, payload) of the snapshot file, or None when it is missing, unreadable or of
    another format. `streamed`, for a payload of a few large bytes objects (a packed
    snapshot): read from the file object by object, so that the file is not held whole
    beside what it holds (marshal reads many small objects faster from bytes)."""
    try:
        if streamed:
            with open(cache_path, "rb") as handle:
                stored_format, stored_key, payload = marshal.load(handle)
        else:
            stored_format, stored_key, payload = marshal.loads(cache_path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return (tuple(stored_key), payload) if stored_format == FORMAT else None


def save(
    cache_path: Path, key: tuple | None, payload, *, disk: bool = True, streamed: bool = False
) -> None:
    """Keep `payload` for `key` in memory and, best effort, on disk (`streamed`: a list of
    a few large bytes objects, written as _in_pieces)."""
    if key is None:
        return
    _memory[str(cache_path)] = (key, payload)
    if not disk:
        return
    try:
        files.make_directory(cache_path.parent)
        stored = (FORMAT, key, payload)
        data = _in_pieces(stored) if streamed else marshal.dumps(stored)
        files.write_atomic(cache_path, data, durable=False)
    except (OSError, ValueError):
        pass  # a cache that cannot be written only costs speed


# marshal's type codes of what _in_pieces writes itself: a tuple, a list, a bytes object
_TUPLE, _LIST, _BYTES = b"(", b"[", b"s"
_LONGEST = 2**31  # marshal's lengths are 32-bit: a longer value is left to it (it refuses)


def _in_pieces(stored: tuple) -> files.Producer:
    """What marshal.loads reads as `stored` (format, key, a payload list or tuple), written
    a value of the payload at a time, and each bytes value from where it lies:
    marshal.dumps makes one bytes object of it all, a second copy of what is saved (the
    lexical snapshot of a million facts: 240 MB). Version 2 of marshal's format throughout,
    which refers back to no earlier object, so that values marshalled one by one read as
    one whole."""
    stored_format, key, payload = stored

    def produce(write) -> None:
        write(_TUPLE + struct.pack("<i", 3))
        write(marshal.dumps(stored_format, 2))
        write(marshal.dumps(key, 2))
        write((_LIST if isinstance(payload, list) else _TUPLE) + struct.pack("<i", len(payload)))
        for value in payload:
            if type(value) is bytes and len(value) < _LONGEST:
                write(_BYTES + struct.pack("<i", len(value)))
                write(value)
            else:
                write(marshal.dumps(value, 2))

    return produce


@contextmanager
def only_while() -> Iterator[None]:
    """Hold what is loaded inside the block only while it runs: the snapshots it loads
    (or saves) that this process did not hold before are let go at its end, and read from
    disk again by whoever wants them next. For a pass that reads every file once (the
    consolidation's check of every line, the health check), so that what it read is not
    held beside what the steps after it hold (at a million facts, 900 MB of records)."""
    before = {path: held[0] for path, held in _memory.items()}
    try:
        yield
    finally:
        for path in [path for path, held in _memory.items() if before.get(path) != held[0]]:
            del _memory[path]


def discard(cache_path: Path) -> None:
    """Hold no snapshot for `cache_path`, in this process or on disk (best effort): one of
    a file no longer read from its snapshot, which would only take memory and disk."""
    let_go(cache_path)
    try:
        cache_path.unlink()
    except OSError:
        pass  # none, or a cache that cannot be changed: a key of another file, ignored


def let_go(cache_path: Path) -> None:
    """Hold no longer what was loaded or decoded for `cache_path` (read again from disk
    when asked)."""
    _memory.pop(str(cache_path), None)
    _decoded.pop(str(cache_path), None)


def forget_memory() -> None:
    """Drop what this process holds: for tests, as a new process; for an import of a long
    history, between its batches, so that what it holds does not grow with the history."""
    _memory.clear()
    _decoded.clear()


# Derived states (storage/derived.py) decoded in this process, by cache path: (key, value).
# The value is the same object for as long as its key holds, so what a process builds on
# it (recall's tables) is made once.
_decoded: dict[str, tuple[tuple, object]] = {}


def decoded(cache_path: Path) -> tuple[tuple, object] | None:
    """(key, value) of the derived state this process decoded last for `cache_path`."""
    return _decoded.get(str(cache_path))


def hold_decoded(cache_path: Path, key: tuple, value: object) -> None:
    _decoded[str(cache_path)] = (key, value)
