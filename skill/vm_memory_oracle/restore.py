"""A data directory made from a backup archive (backup.py), or the archive only checked.

Every member is checked before the data directory is there: a regular file (no link, no
device, no directory entry), named data/<path> with a path that stays inside and names a
durable file of the memory, each record valid against its schema, and at the end the
manifest: every file it names present with its size and sha256, none it does not name.
The files are written into a new directory beside the target, which takes the target's
name only once all is checked: a restore refused or killed midway leaves the target as it
was (absent or empty) and the directory beside it is removed (by the next restore, if
this one was killed). The caller (Memory.restore) then builds the derived indexes again
and runs the health check.
"""

from __future__ import annotations

import gzip
import os
import shutil
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .backup import DATA, FORMAT, MANIFEST, ArchivedFile, Manifest, Progress, check_contents
from .errors import ArchiveError, DataDirError, InvalidInputError
from .storage import strict_json
from .storage.files import DIR_MODE, FILE_MODE, fsync_directory
from .storage.layout import kind_of

MAX_MANIFEST_BYTES = 64 << 20


@dataclass(frozen=True)
class RestoreReport:
    archive: str
    data_path: str
    files: int
    bytes: int
    created: str  # when the backup was made
    bundle_version: str  # of the bundle that made it
    dry_run: bool
    health: str | None = None  # the health check's status once restored

    def to_json(self) -> dict[str, object]:
        return {
            "archive": self.archive,
            "data_path": self.data_path,
            "files": self.files,
            "bytes": self.bytes,
            "created": self.created,
            "bundle_version": self.bundle_version,
            "dry_run": self.dry_run,
            "health": self.health,
        }


def restore(
    archive: Path, target: Path, *, dry_run: bool = False, progress: Progress | None = None
) -> RestoreReport:
    """Check `archive` and, unless `dry_run`, make the data directory `target` of it."""
    archive = archive.expanduser().absolute()
    target = target.expanduser().absolute()
    _check_target(target)
    if dry_run:
        manifest = verify_archive(archive, None, progress)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(target)
        staging = target.with_name(f".{target.name}.restoring-{os.getpid()}")
        os.mkdir(staging, DIR_MODE)
        try:
            manifest = verify_archive(archive, staging, progress)
            _check_target(target)  # still absent or empty
            if target.is_dir():
                os.rmdir(target)
            os.rename(staging, target)
            fsync_directory(target.parent)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return RestoreReport(
        str(archive),
        str(target),
        len(manifest.files),
        sum(entry.size for entry in manifest.files),
        manifest.created,
        manifest.bundle_version,
        dry_run,
    )


def _check_target(target: Path) -> None:
    if not os.path.lexists(target):
        return
    if target.is_symlink() or not target.is_dir():
        raise DataDirError(target, "exists and is not a directory; restore into a new directory")
    with os.scandir(target) as entries:
        if any(entries):
            raise DataDirError(
                target, "is not empty; a restore fills only a new or empty directory"
            )


def _remove_abandoned(target: Path) -> None:
    """The directories a killed restore into `target` left beside it (its process gone)."""
    prefix = f".{target.name}.restoring-"
    for entry in target.parent.iterdir():
        pid = entry.name.removeprefix(prefix)
        if entry.name.startswith(prefix) and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def verify_archive(archive: Path, into: Path | None, progress: Progress | None) -> Manifest:
    """The archive's manifest once every member is checked (ArchiveError naming the member
    at fault otherwise); with `into`, each file written under it as it is checked."""
    source = str(archive)
    if not archive.is_file():
        raise InvalidInputError("does not exist or is not a file", source=source)
    found: dict[str, ArchivedFile] = {}
    document: bytes | None = None
    total = archive.stat().st_size
    try:
        with tarfile.open(archive, mode="r|gz") as tar:
            for member in tar:
                where = f"{source}: {member.name}"
                if document is not None:
                    raise ArchiveError("follows the manifest, which comes last", source=where)
                if not member.isfile():
                    raise ArchiveError(
                        f"is {_kind(member)}, not a regular file: refused", source=where
                    )
                handle = tar.extractfile(member)
                assert handle is not None
                if member.name == MANIFEST:
                    if member.size > MAX_MANIFEST_BYTES:
                        raise ArchiveError("is too large for a manifest", source=where)
                    document = handle.read()
                    continue
                relative = _member_path(member.name, where)
                if relative in found:
                    raise ArchiveError("is in the archive twice", source=where)
                kind = kind_of(relative)
                if kind is None or not kind.durable:
                    raise ArchiveError("is not a durable file of a memory: refused", source=where)
                data = handle.read()
                check_contents(relative, kind, data, where)
                found[relative] = ArchivedFile.of(relative, data)
                if into is not None:
                    _write_new(into, relative, data)
                if progress is not None and tar.fileobj is not None:
                    progress("restore", min(_position(tar), total), total)
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise ArchiveError(
            f"is not a whole gzip tar archive ({exc or type(exc).__name__})", source=source
        ) from None
    if document is None:
        raise ArchiveError(f"has no {MANIFEST} (not a backup, or cut short)", source=source)
    manifest = _manifest(document, f"{source}: {MANIFEST}")
    named = {entry.path: entry for entry in manifest.files}
    for path, entry in named.items():
        got = found.get(path)
        where = f"{source}: {DATA}{path}"
        if got is None:
            raise ArchiveError(f"is named in {MANIFEST} but missing from the archive", source=where)
        if got.size != entry.size or got.sha256 != entry.sha256:
            raise ArchiveError(
                f"its size or sha256 differs from {MANIFEST}'s: the file was changed or damaged",
                source=where,
            )
    for path in found.keys() - named.keys():
        raise ArchiveError(f"is not named in {MANIFEST}: refused", source=f"{source}: {DATA}{path}")
    return manifest


def _position(tar: tarfile.TarFile) -> int:
    """How far into the compressed file the reading is, for the progress bar."""
    stream = getattr(tar.fileobj, "fileobj", None)
    try:
        return stream.tell() if stream is not None else 0
    except (OSError, ValueError):
        return 0


def _kind(member: tarfile.TarInfo) -> str:
    if member.issym() or member.islnk():
        return f"a link (to {member.linkname})"
    if member.isdir():
        return "a directory entry"
    return "a device or special file"


def _member_path(name: str, where: str) -> str:
    """The path inside the data directory of the member `name` (data/<path>), or
    ArchiveError for one outside data/ or escaping it."""
    if not name.startswith(DATA):
        raise ArchiveError(f"is not under {DATA} nor the {MANIFEST}: refused", source=where)
    relative = name.removeprefix(DATA)
    parts = PurePosixPath(relative).parts
    if (
        not parts
        or relative.startswith("/")
        or "\\" in relative
        or any(part in ("..", ".", "") for part in relative.split("/"))
    ):
        raise ArchiveError("escapes the data directory: refused", source=where)
    return relative


def _write_new(root: Path, relative: str, data: bytes) -> None:
    path = root / relative
    for parent in reversed(path.relative_to(root).parents[:-1]):
        directory = root / parent
        if not directory.is_dir():
            os.mkdir(directory, DIR_MODE)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _manifest(document: bytes, source: str) -> Manifest:
    try:
        value = strict_json.loads(document.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ArchiveError(f"not valid JSON ({exc})", source=source) from None
    if not isinstance(value, dict) or value.get("bundle") != "vm-memory-oracle":
        raise ArchiveError("is not a vm-memory-oracle backup's manifest", source=source)
    number = value.get("format")
    if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= FORMAT:
        raise ArchiveError(
            f"format {number!r} is not one this version reads (1 to {FORMAT})", source=source
        )
    files = value.get("files")
    if not isinstance(files, list):
        raise ArchiveError("files must be a list", source=source, key="files")
    entries = []
    for index, entry in enumerate(files):
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("path"), str)
            and isinstance(entry.get("size"), int)
            and isinstance(entry.get("sha256"), str)
            and len(entry["sha256"]) == 64
        ):
            raise ArchiveError(
                f"files[{index}] must hold a path, a size and a sha256", source=source
            )
        entries.append(ArchivedFile(entry["path"], entry["size"], entry["sha256"]))
    schemas = value.get("schemas")
    return Manifest(
        number,
        str(value.get("bundle_version", "")),
        str(value.get("created", "")),
        dict(schemas) if isinstance(schemas, dict) else {},
        tuple(entries),
    )
