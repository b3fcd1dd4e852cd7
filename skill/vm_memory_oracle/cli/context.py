"""The memory a command acts on, opened through the front door (memory.Memory) from the
options and the environment: its time, settings, data directory and actor; and what an
action gives back to be printed (Output)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..clock import parse_iso, utc_now
from ..errors import EXIT_OK, InvalidInputError, UsageError
from ..memory import Memory

DATA_PATH_ENV = "MEMORY_ORACLE_DATA_PATH"
NOW_ENV = "MEMORY_ORACLE_NOW"  # the default of --now: a replay, a demo or a test at one time
CONFIG_ENV = "MEMORY_ORACLE_CONFIG"


@dataclass(frozen=True)
class Output:
    """What an action gives back: the document --json prints (a JSON object, or a list for
    the actions that print one value a line), the lines printed otherwise, and the exit
    code."""

    payload: Any
    lines: list[str]
    exit_code: int = EXIT_OK


def open_memory(args: argparse.Namespace, environ=os.environ) -> Memory:
    """The memory of a command: the time (--now, else $MEMORY_ORACLE_NOW, else the clock),
    the config (--config, else $MEMORY_ORACLE_CONFIG, else the data directory's own) and
    the data path (--data-path, else $MEMORY_ORACLE_DATA_PATH, else the config's, else the
    default)."""
    try:
        if args.now:
            now = parse_iso(args.now, what="--now")
        elif environ.get(NOW_ENV):
            now = parse_iso(environ[NOW_ENV], what=f"${NOW_ENV}")
        else:
            now = utc_now()
    except InvalidInputError as exc:
        raise UsageError(str(exc)) from None
    config = args.config or environ.get(CONFIG_ENV)
    actor = args.actor.strip()
    memory = Memory.open(
        args.data_path or environ.get(DATA_PATH_ENV) or None,
        now=now,
        actor=actor,
        action=args.action,
        config_path=Path(config) if config else None,
        dry_run=getattr(args, "dry_run", False),
        # config --set is how a refused name is put right; a restore brings its own config
        check_model=args.action not in ("config", "restore"),
    )
    if not actor or len(actor) > 64 or not actor.isprintable():
        raise UsageError(f"--actor must be a short printable name, got {args.actor!r}")
    return memory
