"""What a command acts on: its time, settings and data directory (Context), resolved from
the options and the environment."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..clock import format_iso, parse_iso, utc_now
from ..config import Settings, check_embedding_model, load_settings
from ..errors import (
    EXIT_OK,
    InvalidInputError,
    UsageError,
)
from ..storage.layout import Layout

if TYPE_CHECKING:
    from ..storage.store import Store


DATA_PATH_ENV = "MEMORY_ORACLE_DATA_PATH"
NOW_ENV = "MEMORY_ORACLE_NOW"  # the default of --now: a replay, a demo or a test at one time
CONFIG_ENV = "MEMORY_ORACLE_CONFIG"


@dataclass
class Context:
    settings: Settings
    data_path: Path
    config_path: Path | None
    now: datetime
    as_json: bool
    actor: str = "cli"
    action: str | None = None
    exit_code: int = EXIT_OK
    checked: bool = False  # the data directory passed Layout.check in this command
    refusals: list | None = None  # what that check refused inside (storage.layout.Refusal)
    _store: Store | None = field(default=None, repr=False)
    _warnings: list[str] = field(default_factory=list, repr=False)

    def layout(self):
        return Layout(self.data_path)

    def checked_layout(self):
        """The data directory's layout, checked once per command: Layout.check walks every
        entry, and resolve_context has usually done it before the config was read."""
        layout = self.layout()
        if not self.checked:
            self.refusals = layout.check()
            self.checked = True
        return layout

    def store(self):
        """One store per command, so its warnings reach the output whatever the action."""
        from ..storage.store import Store

        if self._store is None:
            self._store = Store(
                self.layout(),
                lock_timeout=self.settings.lock_timeout_seconds,
                timestamp=format_iso(self.now),
                actor=self.actor,
                action=self.action,
                refusals=self.refusals if self.checked else None,
            )
        return self._store

    def warn(self, *warnings: str) -> None:
        """Warnings the command shows: what the library returned with its results."""
        self._warnings.extend(warnings)

    def warnings(self) -> list[str]:
        """The store's own warnings (a line set aside, a file it could not read), then the
        command's."""
        held = list(self._store.warnings) if self._store is not None else []
        return held + self._warnings

    def graph(self, *, create: bool = False):
        from ..graph import KnowledgeGraph

        if create and not self.layout().is_made():
            from ..workspace import ensure_layout

            ensure_layout(
                self.layout(),
                actor=self.actor,
                at=format_iso(self.now),
                action=self.action or "init",
            )
        else:
            self.checked_layout()
        return KnowledgeGraph(self.store(), self.settings)


def resolve_context(args: argparse.Namespace, environ=os.environ) -> Context:
    """The time (--now, else $MEMORY_ORACLE_NOW, else the clock), settings and data path
    (--data-path, else $MEMORY_ORACLE_DATA_PATH, else the config, else the default)."""
    try:
        if args.now:
            now = parse_iso(args.now, what="--now")
        elif environ.get(NOW_ENV):
            now = parse_iso(environ[NOW_ENV], what=f"${NOW_ENV}")
        else:
            now = utc_now()
    except InvalidInputError as exc:
        raise UsageError(str(exc)) from None
    config_path = (
        Path(args.config or environ.get(CONFIG_ENV) or "")
        if (args.config or environ.get(CONFIG_ENV))
        else None
    )
    settings = load_settings(config_path) if config_path else Settings()
    explicit = args.data_path or environ.get(DATA_PATH_ENV)
    if explicit:
        data_path = Path(explicit)
    elif config_path:
        data_path = Path(settings.data_path)
    else:
        data_path = Path(Settings().data_path)
    checked = os.path.lexists(data_path)
    refusals, uncached = None, False
    if checked:
        # Before anything in it is read: its config.yaml could be a planted link.
        layout = Layout(data_path.expanduser().absolute())
        refusals = layout.check()
        refused = {refusal.path: refusal for refusal in refusals}
        for path in (layout.config, layout.state_dir):
            if path in refused:  # every command reads it: none can go on without it
                raise refused[path].error()
        uncached = layout.cache_dir in refused
    if config_path is None and (data_path / "config.yaml").is_file():
        # The data directory's own config sets everything but where the data directory is.
        config_path = data_path / "config.yaml"
        cache_dir = Layout(data_path).cache_dir
        # A dry run writes nothing, not even the settings' snapshot.
        cacheable = (
            cache_dir.parent.is_dir() and not getattr(args, "dry_run", False) and not uncached
        )
        settings = load_settings(config_path, cache_dir if cacheable else None)
    data_path = data_path.expanduser().absolute()
    if args.action != "config":  # config --set is how a refused name is put right
        check_embedding_model(settings, data_path, source=str(config_path or "defaults"))
    actor = args.actor.strip()
    if not actor or len(actor) > 64 or not actor.isprintable():
        raise UsageError(f"--actor must be a short printable name, got {args.actor!r}")
    return Context(
        replace(settings, data_path=str(data_path)),
        data_path,
        config_path,
        now,
        args.json,
        actor,
        args.action,
        checked=checked,
        refusals=refusals,
    )
