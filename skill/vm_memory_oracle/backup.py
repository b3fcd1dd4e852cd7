"""A memory carried whole: one archive of its durable files (backup), checked and unpacked
into a new data directory (restore.py).

The archive is a gzip-compressed tar: data/<path> for each durable file of the data
directory (storage/layout.py's table says which), then manifest.json, which names each
file with its size and sha256, the bundle's version, the schemas' digests and the time.
The derived files (vector and full-text indexes, caches, health.json) are left out: a
restore builds them again.

The copy is consistent while the agent keeps learning: under the store's write lock, which
every write of the memory takes, each durable file is opened and its size noted; the lock
is released and the files are read through those open files, up to those sizes. The
memory's writers only append to a JSONL file or replace a file whole by renaming a new one
over it, so what is read is the memory as it was under the lock, however long the reading
and compressing take. A JSONL file is carried up to its last whole line, and every record
is checked against its schema on the way, so that an archive once written restores.

The archive is written under a temporary name beside its destination and linked to its
name last: a backup killed midway leaves no file that looks complete, and an existing file
is never overwritten.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .errors import ArchiveError, InvalidInputError
from .storage import locks, strict_json
from .storage.files import FILE_MODE, fsync_directory
from .storage.layout import FILES, FileKind, Layout, kind_of
from .storage.validation import SCHEMA_DIR, SCHEMA_NAMES, problem

FORMAT = 1
MANIFEST = "manifest.json"
DATA = "data/"
MAX_READS = 3  # a file changed in place (never done by the memory's writers) is read again

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class ArchivedFile:
    path: str  # inside the data directory
    size: int
    sha256: str

    @classmethod
    def of(cls, path: str, data: bytes) -> ArchivedFile:
        """The entry of the file at `path` whose contents are `data`."""
        return cls(path, len(data), hashlib.sha256(data).hexdigest())

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "size": self.size, "sha256": self.sha256}


@dataclass(frozen=True)
class Manifest:
    """What an archive holds, as its manifest.json says."""

    format: int
    bundle_version: str
    created: str
    schemas: dict[str, str]  # schema name -> sha256 of its schema file
    files: tuple[ArchivedFile, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "format": self.format,
            "bundle": "vm-memory-oracle",
            "bundle_version": self.bundle_version,
            "created": self.created,
            "schemas": self.schemas,
            "files": [entry.to_json() for entry in self.files],
        }


@dataclass(frozen=True)
class BackupReport:
    archive: str
    files: int
    bytes: int  # of the files carried, before compression
    archive_bytes: int
    reads: int  # how many times the files were read (more than once: one changed in place)
    deleted: tuple[str, ...] = ()  # older archives of the directory, beyond backup_keep
    cleared: tuple[str, ...] = ()  # partial files of backups killed before they were named

    def to_json(self) -> dict[str, object]:
        return {
            "archive": self.archive,
            "files": self.files,
            "bytes": self.bytes,
            "archive_bytes": self.archive_bytes,
            "reads": self.reads,
            "deleted": list(self.deleted),
            "cleared": list(self.cleared),
        }


def schema_digests() -> dict[str, str]:
    """Each schema's name and the sha256 of its file: what the records were checked by."""
    return {
        name: hashlib.sha256((SCHEMA_DIR / f"{name}.schema.json").read_bytes()).hexdigest()
        for name in SCHEMA_NAMES
    }


def check_contents(relative: str, kind: FileKind, data: bytes, source: str) -> None:
    """Raise ArchiveError, naming `source` and the line, when a record of the file does not
    follow its schema (or the config is not a valid config)."""
    if kind == FILES["config"]:
        from .config import check_config_text

        try:
            check_config_text(data, source)
        except InvalidInputError as exc:
            raise ArchiveError(str(exc)) from None
        return
    if kind.schema is None:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise ArchiveError("is not UTF-8 text", source=source) from None
        return
    if relative.endswith(".jsonl"):
        for number, chunk in enumerate(data.split(b"\n"), start=1):
            if chunk.strip():
                _check_record(chunk, kind.schema, source, number)
    else:
        _check_record(data, kind.schema, source, None)


def _check_record(raw: bytes, schema: str, source: str, line: int | None) -> None:
    try:
        record = strict_json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ArchiveError(f"not valid JSON ({exc})", source=source, line=line) from None
    wrong = problem(schema, record)
    if wrong is not None:
        raise ArchiveError(f"not a valid {schema} record: {wrong}", source=source, line=line)


ARCHIVE_NAME = re.compile(r"memory-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.tar\.gz")


def archive_name(created: str) -> str:
    """The name of an archive written into a directory: memory-<time>.tar.gz, which sorts
    by time."""
    return f"memory-{created.replace(':', '-')}.tar.gz"


def rotate(directory: Path, keep: int) -> list[str]:
    """Delete all but the `keep` newest archives named by archive_name in `directory`;
    the names deleted. Other files there are left alone."""
    archives = sorted(
        entry.name for entry in directory.iterdir() if ARCHIVE_NAME.fullmatch(entry.name)
    )
    gone = archives[: max(len(archives) - keep, 0)]
    for name in gone:
        os.unlink(directory / name)
    if gone:
        fsync_directory(directory)
    return gone


def _partial_name(name: str, pid: int) -> str:
    return f".{name}.{pid}.partial"


_PARTIAL = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.partial")


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def clear_partials(directory: Path, named: Callable[[str], bool]) -> list[str]:
    """Delete the partial files in `directory` of the archives `named` accepts whose backup
    was killed before it gave the archive its name (its process is gone); the names deleted.
    A partial file of a backup still running is left to it."""
    cleared = []
    for entry in sorted(directory.iterdir(), key=lambda entry: entry.name):
        found = _PARTIAL.fullmatch(entry.name)
        if found is None or not named(found["name"]) or _running(int(found["pid"])):
            continue
        try:
            os.unlink(entry)
        except FileNotFoundError:  # another backup cleared it meanwhile
            continue
        cleared.append(entry.name)
    if cleared:
        fsync_directory(directory)
    return cleared


def destination_for(layout: Layout, destination: Path, created: str) -> Path:
    """The archive's path, absolute (in a directory given: archive_name), or
    InvalidInputError: it exists (never overwritten), its directory does not, or it lies
    inside the data directory."""
    path = destination.expanduser().absolute()
    if path.is_dir() and not path.is_symlink():
        path = path / archive_name(created)
    if os.path.lexists(path):
        raise InvalidInputError(
            "already exists; a backup never overwrites a file: give a new name", source=str(path)
        )
    if not path.parent.is_dir():
        raise InvalidInputError(f"its directory {path.parent} does not exist", source=str(path))
    root = layout.root.resolve()
    if path.parent.resolve() == root or root in path.parent.resolve().parents:
        raise InvalidInputError(
            f"is inside the data directory {layout.root}; put the backup elsewhere "
            "(a backup inside would be carried by the next one)",
            source=str(path),
        )
    return path


def backup(
    layout: Layout,
    destination: Path,
    *,
    created: str,
    lock_timeout: float,
    keep: int = 7,
    progress: Progress | None = None,
) -> BackupReport:
    """The archive of the memory at `layout`, written to `destination`: a new file, or in
    a directory as archive_name, where only the `keep` newest such archives are kept."""
    from .errors import DataDirError

    given = destination.expanduser().absolute()
    into_directory = given if given.is_dir() and not given.is_symlink() else None
    path = destination_for(layout, destination, created)
    if not layout.state_dir.is_dir():
        raise DataDirError(layout.root, "not initialized (run --action init)")
    temporary = path.with_name(_partial_name(path.name, os.getpid()))
    fd = os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    try:
        with os.fdopen(fd, "w+b") as handle:
            reads = 0
            while True:
                reads += 1
                handle.seek(0)
                handle.truncate()
                held = _hold(layout, lock_timeout)
                try:
                    carried = _write_archive(held, handle, created, progress)
                    if all(file.unchanged() for file in held):
                        break
                finally:
                    for file in held:
                        os.close(file.fd)
                if reads == MAX_READS:
                    raise ArchiveError(
                        f"changed in place {MAX_READS} times while it was read; "
                        "try again when the memory is quiet",
                        source=str(layout.root),
                    )
            handle.flush()
            os.fsync(handle.fileno())
            archive_bytes = handle.tell()
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise InvalidInputError(
                "appeared while the backup was written; it was left as it is",
                source=str(path),
            ) from None
        fsync_directory(path.parent)
        rotated = rotate(path.parent, keep) if path.parent == into_directory else []
        # What killed backups left: of any archive of the directory's, or of this name.
        if path.parent == into_directory:
            cleared = clear_partials(path.parent, lambda name: bool(ARCHIVE_NAME.fullmatch(name)))
        else:
            cleared = clear_partials(path.parent, lambda name: name == path.name)
    finally:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
    return BackupReport(
        str(path),
        len(carried),
        sum(entry.size for entry in carried),
        archive_bytes,
        reads,
        tuple(rotated),
        tuple(cleared),
    )


@dataclass(frozen=True)
class _Held:
    """A durable file opened under the lock, with its size and time then."""

    relative: str
    fd: int
    size: int
    mtime_ns: int

    def read(self) -> bytes:
        """Its bytes as they were under the lock: whatever is appended or renamed over it
        since is not seen through this open file."""
        chunks, done = [], 0
        while done < self.size:
            chunk = os.pread(self.fd, min(self.size - done, 1 << 24), done)
            if not chunk:
                break
            chunks.append(chunk)
            done += len(chunk)
        data = b"".join(chunks)
        if self.relative.endswith(".jsonl") and data and not data.endswith(b"\n"):
            data = data[: data.rfind(b"\n") + 1]  # a line still being written: not yet said
        return data

    def unchanged(self) -> bool:
        """Whether what was read is still what the file held under the lock: JSONL files
        only grow by appends; any other file is replaced whole, never written in place."""
        status = os.fstat(self.fd)
        if self.relative.endswith(".jsonl"):
            return status.st_size >= self.size
        return (status.st_size, status.st_mtime_ns) == (self.size, self.mtime_ns)


def _hold(layout: Layout, lock_timeout: float) -> list[_Held]:
    """Every durable file opened under the store's write lock, which every write of the
    memory takes: held only while they are listed and opened, not while they are read."""
    held: list[_Held] = []
    with locks.exclusive(layout.write_lock, lock_timeout, "backup"):
        names = layout.durable_files()
        _room_for(len(names) + 64)
        try:
            for relative in names:
                fd = os.open(layout.root / relative, os.O_RDONLY | os.O_NOFOLLOW)
                status = os.fstat(fd)
                held.append(_Held(relative, fd, status.st_size, status.st_mtime_ns))
        except OSError as exc:
            for file in held:
                os.close(file.fd)
            raise ArchiveError(
                f"cannot be read ({exc.strerror})", source=str(exc.filename or layout.root)
            ) from None
    return held


def _room_for(files: int) -> None:
    """Enough open files allowed for `files` (the soft limit raised toward the hard one)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < files:
        wanted = files if hard == resource.RLIM_INFINITY else min(files, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def _write_archive(
    held: list[_Held], handle: io.BufferedRandom, created: str, progress: Progress | None
) -> list[ArchivedFile]:
    carried: list[ArchivedFile] = []
    with tarfile.open(fileobj=handle, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for done, file in enumerate(held):
            if progress is not None:
                progress("backup", done, len(held))
            data = file.read()
            kind = kind_of(file.relative)
            assert kind is not None
            try:
                check_contents(file.relative, kind, data, file.relative)
            except ArchiveError as exc:
                raise ArchiveError(
                    f"{exc}; run --action health-check --repair to set it aside, then back up"
                ) from None
            carried.append(ArchivedFile.of(file.relative, data))
            _add(tar, DATA + file.relative, data, file.mtime_ns // 1_000_000_000)
        manifest = Manifest(FORMAT, __version__, created, schema_digests(), tuple(carried))
        document = strict_json.dumps(manifest.to_json(), indent=2).encode("utf-8") + b"\n"
        _add(tar, MANIFEST, document, int(time.time()))
        if progress is not None:
            progress("backup", len(held), len(held))
    return carried


def _add(tar: tarfile.TarFile, name: str, data: bytes, mtime: int) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = mtime
    info.mode = FILE_MODE
    tar.addfile(info, io.BytesIO(data))
