"""Where everything lives in the data directory, and which entries inside are refused."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
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
class Layout:
    root: Path

    @cached_property
    def graph_dir(self) -> Path:
        return self.root / "knowledge-graph"

    @cached_property
    def facts(self) -> Path:
        return self.graph_dir / "facts.jsonl"

    @cached_property
    def archive(self) -> Path:
        return self.graph_dir / "archived-facts.jsonl"

    @cached_property
    def entities(self) -> Path:
        return self.graph_dir / "entities.jsonl"

    @cached_property
    def relations(self) -> Path:
        return self.graph_dir / "relations.jsonl"

    @cached_property
    def canaries(self) -> Path:
        return self.graph_dir / "canary-facts.json"

    @cached_property
    def embeddings_dir(self) -> Path:
        return self.root / "embeddings"

    @cached_property
    def index_file(self) -> Path:
        return self.embeddings_dir / "index.bin"

    @cached_property
    def vector_metadata(self) -> Path:
        return self.embeddings_dir / "metadata.jsonl"

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
        """The episodes' vector index (episodes/index.py), derived from episodes/."""
        return self.cache_dir / "episodes.bin"

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
    def activation(self) -> Path:
        return self.root / "activation-metadata.json"

    @cached_property
    def activation_journal(self) -> Path:
        return self.state_dir / "activation-journal.jsonl"

    @cached_property
    def memory_md(self) -> Path:
        return self.root / "MEMORY.md"

    @cached_property
    def health(self) -> Path:
        return self.root / "health.json"

    @cached_property
    def config(self) -> Path:
        return self.root / "config.yaml"

    @cached_property
    def write_lock(self) -> Path:
        return self.state_dir / "memory.lock"

    @cached_property
    def consolidation_lock(self) -> Path:
        return self.state_dir / "consolidate.lock"

    @cached_property
    def checkpoint(self) -> Path:
        return self.state_dir / "consolidation.json"

    @cached_property
    def reports_dir(self) -> Path:
        return self.state_dir / "reports"

    @cached_property
    def audit_log(self) -> Path:
        return self.state_dir / "audit.jsonl"

    @cached_property
    def probe_log(self) -> Path:
        return self.state_dir / "probe-log.jsonl"

    @cached_property
    def pending_memories(self) -> Path:
        return self.state_dir / "pending-memories.jsonl"

    @cached_property
    def memory_md_backup(self) -> Path:
        return self.root / "MEMORY.md.bak"

    @cached_property
    def summarize_ledger(self) -> Path:
        """How far each session log was summarized."""
        return self.state_dir / "summarized.json"

    @cached_property
    def import_ledger(self) -> Path:
        """What was copied from OpenClaw's transcripts, per agent and session."""
        return self.state_dir / "imports.json"

    @cached_property
    def sessions_quarantine(self) -> Path:
        """Bad lines of session logs, copied here once (the logs themselves keep them)."""
        return self.state_dir / "sessions.quarantine.jsonl"

    @cached_property
    def index_built(self) -> Path:
        """Says the vector index was built once (and with which model)."""
        return self.state_dir / "index-built"

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
    def archive_tier_cache(self) -> Path:
        """The pruned facts' lexical snapshot and vectors (archive_tier.py)."""
        return self.cache_dir / "archive-tier.marshal"

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
        """Each JSON or JSONL file of the layout and the schema its records (JSONL) or its
        document (JSON) follow; session logs follow "session-turn", quarantine files
        "quarantine"."""
        return {
            self.facts: "fact",
            self.archive: "archived-fact",
            self.entities: "entity",
            self.relations: "relation",
            self.vector_metadata: "vector-metadata",
            self.activation_journal: "activation-journal",
            self.audit_log: "audit-entry",
            self.probe_log: "probe-result",
            self.pending_memories: "pending-memory",
            self.sessions_quarantine: "quarantine",
            self.activation: "activation-metadata",
            self.health: "health",
            self.canaries: "canary-facts",
            self.summarize_ledger: "summarize-ledger",
            self.import_ledger: "import-ledger",
            self.checkpoint: "consolidation-checkpoint",
        }

    def core_files(self) -> frozenset[Path]:
        """The files no command may do without once it reads or writes them: the knowledge
        graph, activation, the lock files, the audit log, ledgers, the checkpoint, pending
        proposals, quarantines and the config. A refused one stops the command that needs
        it (exit 5) before anything changes; any other refused file (a session log, a daily
        summary, MEMORY.md, the index, a cache, a report) is skipped with a warning."""
        return frozenset(
            (
                self.facts,
                self.archive,
                self.entities,
                self.relations,
                self.activation,
                self.activation_journal,
                self.audit_log,
                self.write_lock,
                self.consolidation_lock,
                self.summarize_ledger,
                self.import_ledger,
                self.checkpoint,
                self.pending_memories,
                self.config,
            )
        )

    def is_core(self, path: Path) -> bool:
        return path in self.core_files() or path.name.endswith(".quarantine.jsonl")

    def holds_core(self, path: Path) -> bool:
        """Whether `path` is, or is a directory holding, a file commands cannot do without."""
        return self.is_core(path) or any(path in core.parents for core in self.core_files())

    def unaudited(self) -> frozenset[str]:
        """Files whose writes are bookkeeping, not changes to the memory: the audit log
        itself, the health report, the probe log and the consolidation checkpoint."""
        return frozenset(
            self.relative(path)
            for path in (
                self.audit_log,
                self.health,
                self.probe_log,
                self.checkpoint,
                self.index_built,
            )
        )

    def is_derived(self, path: Path) -> bool:
        """Whether `path` is bookkeeping made again when lost, whose writing the audit log
        does not record (its removal it does): consolidation reports, state/cache/, and
        the embedding caches beside the index."""
        return path.parent in (self.reports_dir, self.cache_dir) or (
            path.parent == self.embeddings_dir and path.name.startswith(("cache-", "background-"))
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

    def known_files(self) -> list[Path]:
        return [
            self.facts,
            self.archive,
            self.entities,
            self.relations,
            self.canaries,
            self.activation,
            self.memory_md,
            self.memory_md_backup,
            self.health,
            self.config,
            self.index_file,
            self.vector_metadata,
            self.checkpoint,
            self.audit_log,
            self.probe_log,
            self.pending_memories,
        ]

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
