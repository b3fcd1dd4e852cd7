"""Where everything lives in the data directory (DESIGN section 3)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataDirError
from .files import make_directory


@dataclass(frozen=True)
class Layout:
    root: Path

    @property
    def graph_dir(self) -> Path:
        return self.root / "knowledge-graph"

    @property
    def facts(self) -> Path:
        return self.graph_dir / "facts.jsonl"

    @property
    def archive(self) -> Path:
        return self.graph_dir / "archived-facts.jsonl"

    @property
    def entities(self) -> Path:
        return self.graph_dir / "entities.jsonl"

    @property
    def relations(self) -> Path:
        return self.graph_dir / "relations.jsonl"

    @property
    def canaries(self) -> Path:
        return self.graph_dir / "canary-facts.json"

    @property
    def embeddings_dir(self) -> Path:
        return self.root / "embeddings"

    @property
    def index_file(self) -> Path:
        return self.embeddings_dir / "index.bin"

    @property
    def vector_metadata(self) -> Path:
        return self.embeddings_dir / "metadata.jsonl"

    def embedding_cache(self, model_id: str) -> Path:
        return self.embeddings_dir / f"cache-{model_id}.npz"

    @property
    def daily_dir(self) -> Path:
        return self.root / "daily"

    @property
    def sessions_dir(self) -> Path:
        return self.root / "sessions"

    @property
    def state_dir(self) -> Path:
        return self.root / "state"

    @property
    def activation(self) -> Path:
        return self.root / "activation-metadata.json"

    @property
    def activation_journal(self) -> Path:
        return self.state_dir / "activation-journal.jsonl"

    @property
    def memory_md(self) -> Path:
        return self.root / "MEMORY.md"

    @property
    def health(self) -> Path:
        return self.root / "health.json"

    @property
    def config(self) -> Path:
        return self.root / "config.yaml"

    @property
    def write_lock(self) -> Path:
        return self.state_dir / "memory.lock"

    @property
    def consolidation_lock(self) -> Path:
        return self.state_dir / "consolidate.lock"

    @property
    def checkpoint(self) -> Path:
        return self.state_dir / "consolidation.json"

    @property
    def audit_log(self) -> Path:
        return self.state_dir / "audit.jsonl"

    @property
    def probe_log(self) -> Path:
        return self.state_dir / "probe-log.jsonl"

    @property
    def memory_md_backup(self) -> Path:
        return self.root / "MEMORY.md.bak"

    def unaudited(self) -> frozenset[str]:
        """Files whose writes are bookkeeping, not changes to the memory: the audit log
        itself, the health report, the probe log and the consolidation checkpoint."""
        return frozenset(self.relative(path) for path in (
            self.audit_log, self.health, self.probe_log, self.checkpoint,
            self.state_dir / "index-built"))

    def directories(self) -> list[Path]:
        return [self.root, self.graph_dir, self.embeddings_dir, self.daily_dir,
                self.sessions_dir, self.state_dir]

    def known_files(self) -> list[Path]:
        return [self.facts, self.archive, self.entities, self.relations, self.canaries,
                self.activation, self.memory_md, self.memory_md_backup, self.health, self.config,
                self.index_file, self.vector_metadata, self.checkpoint, self.audit_log,
                self.probe_log]

    def quarantine_for(self, path: Path) -> Path:
        return path.with_name(f"{path.stem}.quarantine.jsonl")

    def relative(self, path: Path) -> str:
        return str(path.relative_to(self.root))

    def exists(self) -> bool:
        return self.root.is_dir()

    def create(self) -> None:
        """Make every directory of the layout, private to the user (mode 0700)."""
        if self.root.exists() and not self.root.is_dir():
            raise DataDirError(self.root, "exists and is not a directory")
        try:
            for directory in self.directories():
                if directory != self.root:
                    _refuse_symlink(directory)
                make_directory(directory)
        except OSError as exc:
            problem = (exc.strerror or str(exc)).lower()
            raise DataDirError(Path(exc.filename or self.root), f"cannot create: {problem}") from None
        self.check()

    def check(self) -> None:
        """Refuse a data directory that is missing, unusable, or has symlinks planted in it.

        The root itself may be a symlink (a mount elsewhere); what is inside may not, since a
        planted link would send writes outside the data directory.
        """
        if not self.root.exists():
            raise DataDirError(self.root, "data directory does not exist (run --action init)")
        if not self.root.is_dir():
            raise DataDirError(self.root, "exists and is not a directory")
        if not os.access(self.root, os.R_OK | os.W_OK | os.X_OK):
            raise DataDirError(self.root, "data directory is not readable and writable")
        for path in self.directories()[1:] + self.known_files():
            _refuse_symlink(path)
        for path in self.directories()[1:]:
            if path.exists() and not path.is_dir():
                raise DataDirError(path, "exists and is not a directory")


def _refuse_symlink(path: Path) -> None:
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        raise DataDirError(path, "is a symlink; refusing to follow links inside the data directory")
