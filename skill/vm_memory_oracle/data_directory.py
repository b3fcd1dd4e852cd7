"""`init`: the data directory's layout, with its starting files from assets/."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .clock import format_iso, utc_now
from .errors import DataDirError
from .storage.layout import Layout
from .storage.store import Store

BUNDLE_DIR = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = BUNDLE_DIR / "assets" / "templates"
EMPTY_ACTIVATION = b'{\n  "facts": {}\n}\n'


@dataclass
class InitReport:
    root: Path
    created: list[str] = field(default_factory=list)
    refused: list = field(default_factory=list)  # storage.layout.Refusal: left as they are


def initialize(
    layout: Layout,
    templates: Path = TEMPLATES_DIR,
    *,
    actor: str = "library",
    at: str | None = None,
    action: str = "init",
) -> InitReport:
    """Create whatever of the layout is missing; never touch what is there (idempotent).

    What it created is recorded in the audit log as done by `actor` at `at` (default now).
    """
    starting_files = {
        layout.config: _template(templates, "config.yaml"),
        layout.canaries: _template(templates, "canary-facts.json"),
        layout.memory_md: _template(templates, "MEMORY.md"),
        layout.activation: EMPTY_ACTIVATION,
        layout.facts: b"",
        layout.archive: b"",
        layout.entities: b"",
        layout.relations: b"",
    }
    existed = {path for path in layout.directories() if path.is_dir()}
    report = InitReport(layout.root, refused=layout.create())
    report.created += [
        f"{layout.relative(path)}/" if path != layout.root else f"{path}/"
        for path in layout.directories()
        if path not in existed
    ]
    if all(path.exists() for path in starting_files):
        return report
    store = Store(
        layout,
        lock_timeout=30,
        timestamp=at or format_iso(utc_now()),
        actor=actor,
        action=action,
        refusals=report.refused,
    )
    with store.locked("init"):  # recorded in the audit log, as done by `actor`
        for path, data in starting_files.items():
            if store.create_file(path, data):
                report.created.append(layout.relative(path))
        if report.created:
            store.note(f"created {', '.join(report.created)}")
    return report


def ensure_layout(
    layout: Layout, *, actor: str = "library", at: str | None = None, action: str = "init"
) -> None:
    """Make the directories if the data directory is new or half made (writers call this,
    readers do not)."""
    if not layout.is_made():
        initialize(layout, actor=actor, at=at, action=action)
    else:
        layout.check()


def _template(templates: Path, name: str) -> bytes:
    path = templates / name
    try:
        return path.read_bytes()
    except OSError:
        raise DataDirError(path, "template missing from the skill bundle") from None
