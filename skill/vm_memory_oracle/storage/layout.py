"""Where everything lives in the data directory, and which entries inside are refused."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cached_property
from pathlib import Path

from ..errors import DataDirError
from .files import make_directory


@dataclass(frozen=True)
class Refusal:
    """An entry inside the data directory that is not followed, read or written: a link, or
    an entry another user owns or can write. The rest of the memory works without it."""

    path: Path
    problem: str  # "is a symlink; ...", "is owned by uid 1001, ...", "is writable by ..."
    fix: str  # what the user runs to put it right

    @cached_property
    def message(self) -> str:
        return f"{self.path}: {self.problem}; {self.fix}"

    def error(self) -> DataDirError:
        """The error that stops a command needing this entry (exit 5)."""
        return DataDirError(self.path, f"{self.problem}; {self.fix}")


@dataclass(frozen=True)
class FileKind:
    """What one file of the data directory is: where it lives (relative to the data
    directory; in a pattern, `*` stands for any name), the schema its records (JSONL) or its
    document (JSON) follow, whether it is durable (the memory itself: kept, carried, never
    made again) or derived (made again from the durable files when lost), whether its
    writes are recorded in the audit log, whether no command may do without it (a refused
    core file stops the command that needs it, exit 5; any other is skipped with a warning)
    and whether its presence says the directory holds a memory."""

    path: str
    schema: str | None = None
    durable: bool = True
    audited: bool = True
    core: bool = False
    sign: bool = False


# Every file of the data directory, in one table: the files of fixed names by the Layout
# attribute that names them, then the files of each folder by pattern. The Layout's lists
# (schemas, core_files, unaudited, known_files, is_derived) are read from it.
FILES: dict[str, FileKind] = {
    "facts": FileKind("knowledge-graph/facts.jsonl", "fact", core=True, sign=True),
    "archive": FileKind(
        "knowledge-graph/archived-facts.jsonl", "archived-fact", core=True, sign=True
    ),
    "entities": FileKind("knowledge-graph/entities.jsonl", "entity", core=True, sign=True),
    "relations": FileKind("knowledge-graph/relations.jsonl", "relation", core=True, sign=True),
    "vector_metadata": FileKind(
        "embeddings/metadata.jsonl", "vector-metadata", durable=False, sign=True
    ),
    "activation_journal": FileKind(
        "state/activation-journal.jsonl", "activation-journal", core=True
    ),
    "audit_log": FileKind("state/audit.jsonl", "audit-entry", audited=False, core=True, sign=True),
    "probe_log": FileKind("state/probe-log.jsonl", "probe-result", audited=False, sign=True),
    "pending_memories": FileKind(
        "state/pending-memories.jsonl", "pending-memory", core=True, sign=True
    ),
    "sessions_quarantine": FileKind("state/sessions.quarantine.jsonl", "quarantine", core=True),
    "activation": FileKind("activation-metadata.json", "activation-metadata", core=True, sign=True),
    "health": FileKind("health.json", "health", durable=False, audited=False, sign=True),
    "canaries": FileKind("knowledge-graph/canary-facts.json", "canary-facts", sign=True),
    "summarize_ledger": FileKind("state/summarized.json", "summarize-ledger", core=True),
    "import_ledger": FileKind("state/imports.json", "import-ledger", core=True),
    "forgotten": FileKind("state/forgotten.jsonl", "forgotten-turn", core=True),
    "forget_journal": FileKind("state/forgetting.json", "forget-journal", core=True),
    "checkpoint": FileKind(
        "state/consolidation.json", "consolidation-checkpoint", audited=False, core=True, sign=True
    ),
    "memory_md": FileKind("MEMORY.md", sign=True),
    "memory_md_backup": FileKind("MEMORY.md.bak", sign=True),
    "config": FileKind("config.yaml", core=True, sign=True),
    "index_file": FileKind("embeddings/index.bin", durable=False, sign=True),
    "write_lock": FileKind("state/memory.lock", durable=False, core=True),
    "consolidation_lock": FileKind("state/consolidate.lock", durable=False, core=True),
    "index_built": FileKind("state/index-built", durable=False, audited=False),
    "view_page": FileKind("view.html", durable=False, audited=False),
}
FOLDERS: tuple[FileKind, ...] = (
    FileKind("sessions/*.jsonl", "session-turn"),
    FileKind("episodes/*.jsonl", "episode"),
    FileKind("daily/*.md"),
    FileKind("knowledge-graph/*.quarantine.jsonl", "quarantine", core=True),
    FileKind("state/*.quarantine.jsonl", "quarantine", core=True),
    FileKind("embeddings/*.quarantine.jsonl", "quarantine", core=True),
    FileKind("episodes/*.quarantine.jsonl", "quarantine", core=True),
    # Made again when lost, their writes not recorded (their removal is): the consolidation
    # reports, state/cache/ (snapshots, the full-text and episode indexes) and the embedding
    # caches beside the index.
    FileKind("state/reports/*", durable=False, audited=False),
    FileKind("state/cache/*", durable=False, audited=False),
    FileKind("embeddings/cache-*", durable=False, audited=False),
    # The vector index's segments after the first (embeddings/index.bin), as derived as it.
    FileKind("embeddings/index-*.bin", durable=False),
    FileKind("embeddings/background-*", durable=False, audited=False),
)

_UNAUDITED = frozenset(kind.path for kind in FILES.values() if not kind.audited)
# (folder, name pattern) of the derived files whose writes are not recorded
_DERIVED_IN_FOLDERS = tuple(
    tuple(kind.path.rsplit("/", 1)) for kind in FOLDERS if not kind.durable and not kind.audited
)


def kind_of(relative: str) -> FileKind | None:
    """What the file at `relative` (its path inside the data directory, "/" between names)
    is, from the table: its own entry, else the most particular pattern of FOLDERS it
    matches (episodes/x.quarantine.jsonl is a quarantine, not an episode file); None for a
    file the memory does not know (a temporary file, a lock's holder)."""
    for kind in FILES.values():
        if kind.path == relative:
            return kind
    folder, _, name = relative.rpartition("/")
    if name.startswith("."):  # a temporary file being written, never the memory itself
        return None
    matches = [
        kind
        for kind in FOLDERS
        if kind.path.rsplit("/", 1)[0] == folder and fnmatchcase(name, kind.path.rsplit("/", 1)[1])
    ]
    return max(matches, key=lambda kind: len(kind.path), default=None)


def _core_files(layout: Layout) -> frozenset[Path]:
    # A quarantine is core (is_core), but only the write that sets a line aside needs it:
    # it is not among the files every locked block requires.
    return frozenset(
        layout.root / kind.path
        for kind in FILES.values()
        if kind.core and kind.schema != "quarantine"
    )


class _File:
    """A Layout attribute naming a file of fixed name: its path, from FILES."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, layout: Layout, owner: type | None = None) -> Path:
        path = layout.root / FILES[self.name].path
        layout.__dict__[self.name] = path  # kept, as a cached_property keeps it
        return path


@dataclass(frozen=True)
class Layout:
    root: Path

    # The files of fixed names (FILES says what each is).
    facts = _File()
    archive = _File()
    entities = _File()
    relations = _File()
    canaries = _File()
    index_file = _File()
    vector_metadata = _File()
    activation = _File()
    activation_journal = _File()
    memory_md = _File()
    memory_md_backup = _File()
    health = _File()
    config = _File()
    write_lock = _File()
    consolidation_lock = _File()
    checkpoint = _File()
    audit_log = _File()
    probe_log = _File()
    pending_memories = _File()
    summarize_ledger = _File()
    import_ledger = _File()
    forgotten = _File()
    forget_journal = _File()
    sessions_quarantine = _File()
    index_built = _File()
    view_page = _File()

    @cached_property
    def graph_dir(self) -> Path:
        return self.root / "knowledge-graph"

    @cached_property
    def embeddings_dir(self) -> Path:
        return self.root / "embeddings"

    def embedding_cache(self, model_id: str) -> Path:
        return self.embeddings_dir / f"cache-{model_id}.npz"

    def recent_embeddings(self, model_id: str) -> Path:
        """The vectors added to the embedding cache since it was last written whole."""
        return self.embeddings_dir / f"cache-{model_id}.recent.npz"

    @cached_property
    def daily_dir(self) -> Path:
        return self.root / "daily"

    @cached_property
    def sessions_dir(self) -> Path:
        return self.root / "sessions"

    @cached_property
    def episodes_dir(self) -> Path:
        """What was said, turn by turn (episodes/__init__.py): kept when clean removes the
        session logs."""
        return self.root / "episodes"

    def episodes_file(self, day: str) -> Path:
        return self.episodes_dir / f"{day}.jsonl"

    @cached_property
    def episode_vectors(self) -> Path:
        """The episodes' vector index, in segments (episodes/vectors.py), derived from
        episodes/."""
        return self.cache_dir / "episode-vectors"

    @cached_property
    def episode_text_dir(self) -> Path:
        """The episodes' full-text (BM25) index: tantivy's own files."""
        return self.cache_dir / "episode-text"

    @cached_property
    def episode_index_state(self) -> Path:
        """What the episodes' indexes hold: each episode's place, the files they were
        brought in step with, and the model."""
        return self.cache_dir / "episode-index.marshal"

    @cached_property
    def state_dir(self) -> Path:
        return self.root / "state"

    @cached_property
    def reports_dir(self) -> Path:
        return self.state_dir / "reports"

    @cached_property
    def cache_dir(self) -> Path:
        """Derived state that is rebuilt when missing: parsed snapshots, the lexical index."""
        return self.state_dir / "cache"

    def snapshot_for(self, path: Path) -> Path:
        """Where the parsed records of `path` are kept between processes."""
        held = self._snapshots.get(path)
        if held is None:
            held = self._snapshots[path] = self.cache_dir / (
                self.relative(path).replace("/", "__") + ".marshal"
            )
        return held

    @cached_property
    def lexical_cache(self) -> Path:
        return self.cache_dir / "lexical-index.marshal"

    @cached_property
    def facts_places_cache(self) -> Path:
        """Where each record of facts.jsonl is in the file (storage/facts_places.py)."""
        return self.cache_dir / "facts-places.marshal"

    @cached_property
    def activation_packed_cache(self) -> Path:
        """activation-metadata.json packed as recall reads it (storage/activation_packed.py)."""
        return self.cache_dir / "activation-packed.marshal"

    @cached_property
    def archive_tier_cache(self) -> Path:
        """The pruned facts' lexical snapshot and vectors (archive_tier.py)."""
        return self.cache_dir / "archive-tier.marshal"

    @cached_property
    def archive_tier_index(self) -> Path:
        """The pruned facts' vectors, a FAISS index mapped as searched (archive_tier.py)."""
        return self.cache_dir / "archive-tier.index"

    @cached_property
    def text_index_dir(self) -> Path:
        """The full-text (BM25) index: tantivy's own files (storage/text_index.py)."""
        return self.cache_dir / "text-index"

    @cached_property
    def text_index_state(self) -> Path:
        """What the full-text index holds: each document's fact and content hash, the
        facts file it was brought in step with, and its own files' sizes."""
        return self.cache_dir / "text-index.npz"

    @cached_property
    def index_state_cache(self) -> Path:
        return self.cache_dir / "index-state.marshal"

    @cached_property
    def known_vectors_cache(self) -> Path:
        """The vector ids and content hashes embeddings/metadata.jsonl holds (numbers only)."""
        return self.cache_dir / "known-vectors.marshal"

    @cached_property
    def merge_search_cache(self) -> Path:
        """What the merge step's last search was made on, when it found no duplicate."""
        return self.cache_dir / "merge-search.marshal"

    def background_cache(self, model_id: str) -> Path:
        """An embedder's vectors of the background passages, when none ship for it."""
        return self.embeddings_dir / f"background-{model_id}.npz"

    def daily_summary(self, day: str) -> Path:
        return self.daily_dir / f"{day}.md"

    def report_file(self, started_at: str) -> Path:
        """The report of the consolidation started at `started_at` (ISO time)."""
        return self.reports_dir / f"{started_at.replace(':', '-')}.md"

    def schemas(self) -> dict[Path, str]:
        """Each JSON or JSONL file of fixed name and the schema its records (JSONL) or its
        document (JSON) follow (session logs follow "session-turn", quarantine files
        "quarantine": FOLDERS)."""
        return {self.root / kind.path: kind.schema for kind in FILES.values() if kind.schema}

    def core_files(self) -> frozenset[Path]:
        """The files of fixed name no command may do without once it reads or writes them
        (FileKind.core): the knowledge graph, activation, the lock files, the audit log,
        ledgers, the checkpoint, pending proposals, quarantines and the config. A refused
        one stops the command that needs it (exit 5) before anything changes; any other
        refused file (a session log, a daily summary, MEMORY.md, the index, a cache, a
        report) is skipped with a warning."""
        return _core_files(self)

    def is_core(self, path: Path) -> bool:
        return path in self.core_files() or path.name.endswith(".quarantine.jsonl")

    def holds_core(self, path: Path) -> bool:
        """Whether `path` is, or is a directory holding, a file commands cannot do without."""
        return self.is_core(path) or any(path in core.parents for core in self.core_files())

    def unaudited(self) -> frozenset[str]:
        """Files of fixed name whose writes are bookkeeping, not changes to the memory
        (FileKind.audited false): the audit log itself, the health report, the probe log,
        the consolidation checkpoint and the mark of a built index."""
        return _UNAUDITED

    def is_derived(self, path: Path) -> bool:
        """Whether `path` is bookkeeping made again when lost, whose writing the audit log
        does not record (its removal it does): a file of FOLDERS neither durable nor
        audited (consolidation reports, state/cache/, the embedding caches beside the
        index)."""
        try:
            folder = self.relative(path.parent)
        except ValueError:
            return False
        return any(
            folder == parent and fnmatchcase(path.name, name)
            for parent, name in _DERIVED_IN_FOLDERS
        )

    def directories(self) -> list[Path]:
        return [
            self.root,
            self.graph_dir,
            self.embeddings_dir,
            self.daily_dir,
            self.sessions_dir,
            self.state_dir,
        ]

    def durable_files(self) -> list[str]:
        """The durable files now in the data directory (FileKind.durable), by their paths
        inside it, in order: what a backup carries. Links are not followed."""
        found = []
        for folder, directories, names in os.walk(self.root):
            directories[:] = [
                name for name in directories if not os.path.islink(os.path.join(folder, name))
            ]
            for name in names:
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, self.root).replace(os.sep, "/")
                kind = kind_of(relative)
                if kind is not None and kind.durable and not os.path.islink(path):
                    found.append(relative)
        return sorted(found)

    def known_files(self) -> list[Path]:
        """The files of fixed name whose presence says the directory holds a memory."""
        return [self.root / kind.path for kind in FILES.values() if kind.sign]

    def index_segment(self, number: int) -> Path:
        """The file of the vector index's `number`-th segment (from 1; semantic/segments.py)."""
        return self.index_file if number == 1 else self.embeddings_dir / f"index-{number}.bin"

    def index_segments(self) -> list[Path]:
        """The vector index's segment files there are, in order: index.bin (when it exists)
        and every index-<n>.bin, whatever their numbers (a gap is the reader's to find)."""
        try:
            names = os.listdir(self.embeddings_dir)
        except FileNotFoundError:
            return []
        numbers = sorted(
            int(name[6:-4])
            for name in names
            if name.startswith("index-") and name.endswith(".bin") and name[6:-4].isdigit()
        )
        first = [self.index_file] if self.index_file.exists() else []
        return first + [self.index_segment(number) for number in numbers]

    def quarantine_for(self, path: Path) -> Path:
        return path.with_name(f"{path.stem}.quarantine.jsonl")

    def quarantine_directories(self) -> tuple[Path, ...]:
        """The directories whose JSONL files may have quarantines beside them (quarantine_for):
        session logs' bad lines go to state/sessions.quarantine.jsonl instead."""
        return (self.graph_dir, self.state_dir, self.embeddings_dir, self.episodes_dir)

    def relative(self, path: Path) -> str:
        held = self._relative.get(path)
        if held is None:
            held = self._relative[path] = str(path.relative_to(self.root))
        return held

    # Named once per path: a recall asks for the same few names dozens of times, and
    # pathlib's relative_to costs more than the rest of a lookup.
    @cached_property
    def _relative(self) -> dict[Path, str]:
        return {}

    @cached_property
    def _snapshots(self) -> dict[Path, Path]:
        return {}

    def exists(self) -> bool:
        return self.root.is_dir()

    def is_made(self) -> bool:
        """Whether every directory of the layout is there: a writer that finds some missing
        makes them, since another writer may be making the layout right now (state/, which
        holds the lock, comes last)."""
        return all(directory.is_dir() for directory in self.directories())

    def create(self) -> list[Refusal]:
        """Make every directory of the layout, private to the user (mode 0700), in a new or
        empty directory or one that already holds a memory (see `check`); a refused
        directory is left as it is. Returns the refused entries."""
        if os.path.lexists(self.root):
            refused = self.check()
        else:
            _refuse_unsafe_path(self.root)
            refused = []
        skipped = {refusal.path for refusal in refused}
        try:
            for directory in self.directories():
                if directory not in skipped:
                    make_directory(directory)
        except OSError as exc:
            problem = (exc.strerror or str(exc)).lower()
            raise DataDirError(
                Path(exc.filename or self.root), f"cannot create: {problem}"
            ) from None
        return self.check()

    def check(self) -> list[Refusal]:
        """Refuse a data directory that is missing or unusable, or that someone else could
        have changed: one that is a symlink, or owned by another user or writable by other
        users; and one that is not empty but holds no memory, so that a mistyped path (a
        home directory, /etc) is never read or filled.

        Returns the entries inside that must not be followed, read or written (Refusal): a
        link would send reads and writes outside the data directory, and a file others can
        write could say anything. Each is refused for itself only; its message says how to
        put it right.
        """
        _refuse_unsafe_path(self.root)
        try:
            status = os.lstat(self.root)
        except FileNotFoundError:
            raise DataDirError(
                self.root, "data directory does not exist (run --action init)"
            ) from None
        if stat.S_ISLNK(status.st_mode):
            raise DataDirError(
                self.root,
                f"is a symlink (to {os.readlink(self.root)}); give the "
                f"directory it points to, {self.root.resolve()}",
            )
        if not stat.S_ISDIR(status.st_mode):
            raise DataDirError(self.root, "exists and is not a directory")
        if not os.access(self.root, os.R_OK | os.W_OK | os.X_OK):
            raise DataDirError(self.root, "data directory is not readable and writable")
        refusal = _foreign(self.root, status)
        if refusal is not None:
            raise refusal.error()
        if not self._holds_memory():
            with os.scandir(self.root) as entries:
                if any(entries):
                    raise DataDirError(
                        self.root,
                        "is not empty and holds no memory (no "
                        "config.yaml or knowledge-graph/); give a new "
                        "or empty directory",
                    )
            return []
        refused: list[Refusal] = []
        _check_tree(self.root, refused)
        for path in self.directories()[1:]:
            if not os.path.islink(path) and path.exists() and not path.is_dir():
                raise DataDirError(path, "exists and is not a directory")
        return refused

    def _holds_memory(self) -> bool:
        return any(os.path.lexists(path) for path in self.directories()[1:] + self.known_files())


def _refuse_unsafe_path(root: Path) -> None:
    if ".." in root.parts:
        raise DataDirError(root, "has a '..' component; give the data directory's path without it")
    if root.resolve() == Path(root.anchor or "/"):
        raise DataDirError(
            root, "is the filesystem root; give a directory of its own, e.g. /data/memory"
        )


def _check_tree(directory: Path, refused: list[Refusal]) -> None:
    """Every entry below `directory`, depth first, without following any link: the refused
    ones are added to `refused` (and a refused directory is not entered).

    Other processes write meanwhile: a temporary file renamed into place between being
    listed and being looked at is simply gone, not an error.
    """
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except FileNotFoundError:
        return
    for entry in entries:
        path = Path(entry.path)
        if entry.is_symlink():
            refused.append(
                Refusal(
                    path,
                    "is a symlink; refusing to follow links inside the data directory",
                    f"remove it (rm {path}) and put the real file or directory there",
                )
            )
            continue
        try:
            status = entry.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue
        refusal = _foreign(path, status)
        if refusal is not None:
            refused.append(refusal)
        elif stat.S_ISDIR(status.st_mode):
            _check_tree(path, refused)


def _foreign(path: Path, status: os.stat_result) -> Refusal | None:
    """Why an entry owned by another user or writable by others is refused, or None."""
    user = os.geteuid()
    if status.st_uid != user:
        return Refusal(
            path,
            f"is owned by uid {status.st_uid}, not by the user running the tool (uid {user})",
            f"run chown {user} {path}, or run as its owner",
        )
    if status.st_mode & 0o022:
        fix = "700" if stat.S_ISDIR(status.st_mode) else "600"
        return Refusal(
            path,
            f"is writable by other users (mode {stat.S_IMODE(status.st_mode):04o})",
            f"run chmod {fix} {path}",
        )
    return None
