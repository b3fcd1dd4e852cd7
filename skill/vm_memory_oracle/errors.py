"""Every error the library raises on purpose, each with the exit code the CLI maps it to.

Each class subclasses the built-in a caller would expect to catch (ValueError for bad
input, TimeoutError for a lock, OSError for the data directory) and carries the path, key
or line at fault as attributes, so callers need not parse messages.
"""

from __future__ import annotations

import errno
from pathlib import Path

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INVALID_INPUT = 3
EXIT_LOCK_TIMEOUT = 4
EXIT_DATA_DIR = 5
EXIT_DEGRADED = 6  # health-check --strict only
EXIT_UNHEALTHY = 7  # health-check --strict only
EXIT_STORAGE = 8  # the disk refused a write: full, over quota, read-only, I/O error
EXIT_ARCHIVE = 9  # a backup archive is damaged, changed or not a memory's backup
EXIT_FORMAT = 10  # import: a history file that is not of the format given

# The errors of an OSError that mean the storage, not the tool or its input, is at fault:
# the user's fix is on the machine (free space, remount, replace the disk), then a retry.
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO})


def os_failure(exc: OSError) -> tuple[int, str]:
    """The exit code and one-line message of an OSError a command met: the storage's
    (exit 8) when the disk is at fault, else an unexpected failure (exit 1)."""
    where = f"{exc.filename}: " if exc.filename else ""
    code = EXIT_STORAGE if exc.errno in STORAGE_ERRNOS else EXIT_FAILURE
    return code, f"{where}{exc.strerror or exc}"


class OracleError(Exception):
    """Base of the errors a user can cause; the message is one actionable line."""

    exit_code = EXIT_FAILURE


class UsageError(OracleError, ValueError):
    """Options that do not fit together or do not fit the action."""

    exit_code = EXIT_USAGE


class InvalidInputError(OracleError, ValueError):
    """A record, value or file given to the tool is not acceptable.

    `source` names the file (or "-" for stdin, "--option" for a flag), `line` the 1-based
    line number when the input is line-oriented, `key` the field at fault.
    """

    exit_code = EXIT_INVALID_INPUT

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        key: str | None = None,
    ):
        self.source = source
        self.line = line
        self.key = key
        where = source or ""
        if line is not None:
            where = f"{where}:{line}" if where else f"line {line}"
        super().__init__(f"{where}: {message}" if where else message)


class ConfigError(InvalidInputError):
    """The configuration file or a setting in it is not acceptable."""


class UnknownFactError(InvalidInputError):
    """An id that names no active fact."""

    def __init__(self, fact_id: str):
        self.fact_id = fact_id
        super().__init__(f"no active fact with id {fact_id!r}", key="id")


class UnknownProposalError(InvalidInputError):
    """An id that names no pending proposal."""

    def __init__(self, proposal_id: str):
        self.proposal_id = proposal_id
        super().__init__(
            f"no pending proposal with id {proposal_id!r} (decided already, "
            "expired, or never made; --action review lists the pending ones)",
            key="id",
        )


class ArchiveError(InvalidInputError):
    """A backup archive that cannot be restored: not a gzip tar, truncated, a member that is
    a link or escapes, a file whose hash or record does not match. `source` names the
    archive and the member at fault."""

    exit_code = EXIT_ARCHIVE


class ImportFormatError(InvalidInputError):
    """A history given to import that is not of the format named (a Codex file given as a
    ChatGPT export, a JSON document that is no export, a binary file): `source` names the
    file."""

    exit_code = EXIT_FORMAT


class LockTimeoutError(OracleError, TimeoutError):
    """Another process held the data directory's lock for longer than the timeout."""

    exit_code = EXIT_LOCK_TIMEOUT

    def __init__(self, lock_path: Path, timeout: float, holder: str | None):
        self.lock_path = lock_path
        self.timeout = timeout
        self.holder = holder
        held_by = f" (held by {holder})" if holder else ""
        super().__init__(f"could not lock {lock_path} within {timeout:g}s{held_by}")


class DataDirError(OracleError, OSError):
    """The data directory is missing, unreadable, or holds something it must not."""

    exit_code = EXIT_DATA_DIR

    def __init__(self, path: Path, problem: str):
        self.path = path
        self.problem = problem
        # OSError's own formatting would prefix an errno; keep the message plain.
        Exception.__init__(self, f"{path}: {problem}")

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


# Internal faults: raised and caught inside the library, never shown as a command's own
# error (a caller falls back, retries or reports them as a warning).


class ExtractorFailed(RuntimeError):
    """The external extractor could not be used; the message says why, in one line."""


class EmbedderUnavailable(RuntimeError):
    """The configured model cannot be loaded here; the message says why in one line."""


class ChangedMeanwhile(RuntimeError):
    """The file changed between being read and being replaced; nothing was written."""


class IndexCorrupt(ValueError):
    """A vector index file cannot be read or does not hold what it should."""


class TextIndexCorrupt(ValueError):
    """A full-text index directory cannot be opened or searched; the message says why."""
