"""The only code that writes files: durable appends, atomic rewrites, tolerant reads.

Appends go out in one O_APPEND write followed by fsync, so a reader never sees half of
another process's batch unless the machine dies mid-write; rewrites are a temp file in
the same directory, fsync, os.replace, then fsync of the directory, so a crash leaves
either the old file or the new one. Readers never fail on a bad line: they set it aside
with its line number for the caller to quarantine.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

from ..errors import ChangedMeanwhile
from . import strict_json

FILE_MODE = 0o600
DIR_MODE = 0o700
LINES_PIECE = 1 << 20  # bytes of lines encoded and written at a time


@dataclass
class BadLine:
    line: int
    raw: str
    reason: str


@dataclass
class JsonlContents:
    """What a JSONL file held: valid records with their raw lines, and the lines set aside."""

    records: list[dict] = field(default_factory=list)
    raw_lines: list[str] = field(default_factory=list)
    line_numbers: list[int] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)

    def keep(self, record: dict, raw: str, number: int) -> None:
        self.records.append(record)
        self.raw_lines.append(raw)
        self.line_numbers.append(number)


def dumps_record(record: dict) -> str:
    """One JSONL line: compact, keys in a stable order, non-ASCII kept readable."""
    return strict_json.dumps(record, separators=(",", ":"))


def read_jsonl(path: Path, check: Callable[[Any], str | None]) -> JsonlContents:
    """Every line of `path` that parses and passes `check`; the others as BadLine.

    A missing file reads as empty. A last line without its newline is kept when it is a
    whole valid record (a hand edit) and set aside when it is not (a torn write).
    """
    try:
        data = read_bytes(path)
    except FileNotFoundError:
        return JsonlContents()
    return parse_jsonl(data, check)


def parse_jsonl(data: bytes, check: Callable[[Any], str | None]) -> JsonlContents:
    """What read_jsonl finds in `data`, the bytes of a JSONL file."""
    contents = JsonlContents()
    last = data.count(b"\n") + 1  # the number of the part after the last newline
    for number, chunk in enumerate(data.split(b"\n"), start=1):
        if not chunk.strip():
            continue
        parsed = _parsed(number, chunk, number == last, check)
        if isinstance(parsed, BadLine):
            contents.bad.append(parsed)
        else:
            contents.keep(parsed[0], parsed[1], number)
    return contents


def each_line(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, line with its newline, if it has one) of each line of `path`, read
    LINES_PIECE bytes at a time. A missing file reads as empty."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return
    with os.fdopen(fd, "rb", buffering=LINES_PIECE) as handle:
        yield from enumerate(handle, start=1)


def each_jsonl_line(
    path: Path, check: Callable[[Any], str | None]
) -> Iterator[tuple[int, dict | BadLine]]:
    """(line number, record or BadLine) of each line of `path` that is not blank, as
    read_jsonl finds them, read a line at a time and nothing of a line held after it: for
    a pass over a file that only checks it (read whole and parsed, a million facts'
    entities.jsonl and metadata.jsonl took the check of every line past 2 GB). A missing
    file reads as empty."""
    for number, raw in each_line(path):
        torn = not raw.endswith(b"\n")
        chunk = raw if torn else raw[:-1]
        if not chunk.strip():
            continue
        parsed = _parsed(number, chunk, torn, check)
        yield number, parsed if isinstance(parsed, BadLine) else parsed[0]


def _parsed(
    number: int, chunk: bytes, torn: bool, check: Callable[[Any], str | None]
) -> tuple[dict, str] | BadLine:
    """(record, its text) of the line `chunk`, or why it is set aside; `torn`: it is the
    file's last line and has no newline."""
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError as exc:
        return BadLine(
            number,
            chunk.decode("utf-8", "replace"),
            f"not UTF-8 ({exc.reason} at byte {exc.start})",
        )
    try:
        record = strict_json.loads(text)
    except strict_json.JsonRefused as exc:
        return BadLine(number, text, str(exc) + ("; torn last line" if torn else ""))
    problem = check(record)
    if problem:
        return BadLine(number, text, problem)
    return record, text


def append_lines(path: Path, lines: Iterable[str], *, durable: bool = True) -> bool:
    """Append whole lines in a single write, durably, or not at all; whether there were
    any.

    If the file's last line lacks its newline (a torn earlier write), a newline goes first,
    so the torn tail stays one bad line and never swallows the new records. If the write
    or its fsync fails (a full disk writes part of the batch, then refuses the rest), the
    file is cut back to its size before, so no torn line is left for the next reader.

    `durable=False` leaves out the fsync: the lines survive the process however it ends,
    but not a crash of the machine within the kernel's writeback delay.

    The lines are encoded and written a piece at a time (encoded_lines): a million facts'
    lines joined were a string of up to four bytes a character and its UTF-8 copy beside
    every line, over 1 GB held at once.
    """
    pieces = encoded_lines(lines)
    first = next(pieces, b"")
    if not first:
        return False
    with _naming(path):
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, FILE_MODE)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                first = b"\n" + first
            try:
                _write_all(fd, first)
                for piece in pieces:
                    _write_all(fd, piece)
                if durable:
                    os.fsync(fd)
            except BaseException:
                # Safe to cut at `size`: every append to these files is made under the
                # data directory's lock, so nobody else appended meanwhile.
                try:
                    os.ftruncate(fd, size)
                except OSError:
                    pass  # the first failure is the one to report
                raise
        finally:
            os.close(fd)
    return True


# Writes a file's content piece by piece through the function it is given (a producer
# too large to hold as one bytes object twice: a vector index of 100,000 facts is 200 MB).
Producer = Callable[[Callable[[bytes | memoryview], None]], None]


def npz_producer(whole: dict[str, Any], name: str, shape: tuple[int, int], blocks) -> Producer:
    """A Producer of an uncompressed .npz (as numpy.savez writes it, read by numpy.load):
    the arrays of `whole`, and under `name` a float32 array of `shape` whose rows `blocks()`
    gives a block at a time, so that it is never held whole."""

    def produce(write: Callable[[bytes | memoryview], None]) -> None:
        import io
        import zipfile

        import numpy as np

        class Sink(io.RawIOBase):  # zipfile writes it without seeking, sizes after each member
            def writable(self) -> bool:
                return True

            def write(self, data) -> int:
                write(bytes(data))
                return len(data)

        with zipfile.ZipFile(Sink(), "w", zipfile.ZIP_STORED, allowZip64=True) as zipped:
            for member, array in whole.items():
                with zipped.open(f"{member}.npy", "w", force_zip64=True) as out:
                    np.lib.format.write_array(out, array)
            with zipped.open(f"{name}.npy", "w", force_zip64=True) as out:
                header = {"descr": "<f4", "fortran_order": False, "shape": shape}
                np.lib.format.write_array_header_2_0(out, header)
                for block in blocks():
                    out.write(np.ascontiguousarray(block, dtype="<f4").tobytes())

    return produce


def write_atomic(
    path: Path,
    data: bytes | memoryview | Producer,
    *,
    durable: bool = True,
    before_replace: Callable[[], None] | None = None,
) -> None:
    """Replace `path` with `data` so that a crash leaves either the old or the new file.

    `durable=False` skips the fsyncs, for derived files that are rebuilt when lost.
    `before_replace` runs once the new content is on disk, just before the rename; if it
    raises, the old file stays and the temporary one is removed.
    """
    with _naming(path):
        _write_atomic(path, data, durable, before_replace)


def _write_atomic(
    path: Path,
    data: bytes | memoryview | Producer,
    durable: bool,
    before_replace: Callable[[], None] | None,
) -> None:
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, FILE_MODE)
        if callable(data):
            data(lambda piece: _write_all(fd, piece))
        else:
            _write_all(fd, data)
        if durable:
            os.fsync(fd)
        os.close(fd)
        fd = -1
        if before_replace is not None:
            before_replace()
        os.replace(temp_name, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(temp_name)
        except OSError:
            pass  # the first failure is the one to report; consolidate removes the rest
        raise
    if durable:
        fsync_directory(path.parent)


def replace_if_unchanged(path: Path, data: bytes, *, size: int, mtime_ns: int) -> bytes:
    """write_atomic, unless another writer (one that takes no lock of ours, such as the
    agent appending to a session log) changed `path` since it was read with this size and
    modification time; then raise ChangedMeanwhile so the caller can read it again.

    A writer can still append to the old file between that check and the rename. The old
    file is kept open, and whatever it gained is appended to the new one, until it stops
    growing; those bytes are returned (almost always none), for the caller to look at.
    """
    old = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:

        def unchanged() -> None:
            current, held = os.stat(path), os.fstat(old)
            if (
                current.st_size != size
                or current.st_mtime_ns != mtime_ns
                or current.st_ino != held.st_ino
            ):
                raise ChangedMeanwhile(str(path))

        write_atomic(path, data, before_replace=unchanged)
        carried = b""
        while (grown := os.fstat(old).st_size - size - len(carried)) > 0:
            carried += os.pread(old, grown, size + len(carried))
    finally:
        os.close(old)
    if carried:
        with _naming(path):
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
            try:
                _write_durably(fd, carried)
            finally:
                os.close(fd)
    return carried


def write_lines_atomic(path: Path, lines: Iterable[str]) -> None:
    def produce(write: Callable[[bytes | memoryview], None]) -> None:
        for piece in encoded_lines(lines):
            write(piece)

    write_atomic(path, produce)


def encoded_lines(lines: Iterable[str]) -> Iterator[bytes]:
    """`lines`, each with its newline, in UTF-8, as pieces of about LINES_PIECE bytes (a
    line longer than that is a piece of its own); nothing for no lines."""
    return encoded_pieces(line + "\n" for line in lines)


def encoded_pieces(texts: Iterable[str]) -> Iterator[bytes]:
    """`texts` one after another in UTF-8, as pieces of about LINES_PIECE bytes (a text
    longer than that is a piece of its own); nothing for no texts."""
    size = LINES_PIECE
    piece: list[bytes] = []
    held = 0
    for text in texts:
        encoded = text.encode("utf-8")
        piece.append(encoded)
        held += len(encoded)
        if held >= size:
            yield b"".join(piece)
            piece.clear()
            held = 0
    if piece:
        yield b"".join(piece)


def read_json(path: Path) -> Any:
    """Parse a JSON file; raises FileNotFoundError, strict_json.JsonRefused or UnicodeDecodeError
    (all but the first are ValueErrors)."""
    return strict_json.loads(read_bytes(path).decode("utf-8"))


def write_json_atomic(path: Path, value: Any, *, compact: bool = False) -> None:
    """Indented JSON, or `compact` on one line for large documents written often: made and
    written a piece at a time (compact_pieces), never the whole text at once (a million
    facts' activation state is 110 MB of it, twice over as text and as its UTF-8)."""
    if not compact:
        text = strict_json.dumps(value, indent=2, sort_keys=True)
        write_atomic(path, (text + "\n").encode("utf-8"))
        return

    def produce(write: Callable[[bytes | memoryview], None]) -> None:
        for piece in encoded_pieces(chain(compact_pieces(value), ("\n",))):
            write(piece)

    write_atomic(path, produce)


JSON_BLOCK = 4096  # entries of a large object written at a time by compact_pieces


class ObjectInBlocks(ABC):
    """A JSON object not held as a dictionary (a million facts' activation records, held
    packed): compact_pieces writes it a block of its entries at a time."""

    @abstractmethod
    def blocks(self, size: int) -> Iterator[dict]:
        """Its entries, `size` at a time (the last block may hold fewer), each block's keys
        after those of the block before: the order of sort_keys."""


def compact_pieces(value: Any) -> Iterator[str]:
    """The pieces of strict_json.dumps(value, sort_keys=True, separators=(",", ":")), the
    same text once joined: an object of more than JSON_BLOCK entries (by text keys) is
    written JSON_BLOCK entries at a time, its keys sorted once; an ObjectInBlocks as its
    blocks come."""
    if isinstance(value, ObjectInBlocks):
        yield from _in_blocks(value.blocks(JSON_BLOCK))
        return
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        yield strict_json.dumps(value, sort_keys=True, separators=(",", ":"))
        return
    large = len(value) > JSON_BLOCK
    if not large and not any(_large(inner) for inner in value.values()):
        yield strict_json.dumps(value, sort_keys=True, separators=(",", ":"))
        return
    keys = sorted(value)
    if large:
        yield from _in_blocks(
            {key: value[key] for key in keys[start : start + JSON_BLOCK]}
            for start in range(0, len(keys), JSON_BLOCK)
        )
        return
    yield "{"
    for number, key in enumerate(keys):
        yield ("," if number else "") + strict_json.dumps(key) + ":"
        yield from compact_pieces(value[key])
    yield "}"


def _in_blocks(blocks: Iterable[dict]) -> Iterator[str]:
    """The pieces of a JSON object whose entries come a block at a time, each block's keys
    after those of the block before: each block's entries as one piece."""
    yield "{"
    first = True
    for block in blocks:
        if block:
            text = strict_json.dumps(block, sort_keys=True, separators=(",", ":"))
            yield ("" if first else ",") + text[1:-1]
            first = False
    yield "}"


def _large(value: Any) -> bool:
    if isinstance(value, ObjectInBlocks):
        return True
    return isinstance(value, dict) and (
        len(value) > JSON_BLOCK or any(_large(inner) for inner in value.values())
    )


def create_file(path: Path, data: bytes) -> bool:
    """Write `data` to `path` only if nothing is there yet; True if it was written."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    except FileExistsError:
        return False
    with _naming(path):
        try:
            _write_durably(fd, data)
        finally:
            os.close(fd)
    return True


def make_directory(path: Path) -> None:
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    if (path.stat().st_mode & 0o777) != DIR_MODE:
        os.chmod(path, DIR_MODE)


def fsync_directory(path: Path) -> None:
    with _naming(path):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextmanager
def _naming(path: Path) -> Iterator[None]:
    """Make an OSError name `path`: os.write and os.fsync errors name no file, and a failed
    rename names the temporary file, while the user needs to know which file the disk
    refused."""
    try:
        yield
    except OSError as exc:
        if exc.filename == str(path) or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc


def file_digest(path: Path, size: int | None = None) -> str | None:
    """The blake2b (128 bits, in hex) of the file's bytes, or of its first `size` bytes,
    read a megabyte at a time; None when it is missing or shorter than `size`."""
    digest = hashlib.blake2b(digest_size=16)
    left = size
    try:
        with open(path, "rb") as handle:
            while left is None or left > 0:
                chunk = handle.read(1 << 20 if left is None else min(left, 1 << 20))
                if not chunk:
                    break
                digest.update(chunk)
                if left is not None:
                    left -= len(chunk)
    except FileNotFoundError:
        return None
    return None if left else digest.hexdigest()


def read_bytes(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _write_durably(fd: int, data: bytes) -> None:
    _write_all(fd, data)
    os.fsync(fd)


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
