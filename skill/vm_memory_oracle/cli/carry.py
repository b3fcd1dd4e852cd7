"""The actions that carry a memory: backup and restore, and import (another assistant's
history brought in)."""

from __future__ import annotations

from ..memory import Memory
from ..progress import progress_bar
from .context import Output


def action_backup(args, memory: Memory) -> Output:
    with progress_bar() as bar:
        report = memory.backup(args.to, progress=bar)
    lines = [f"Backed up {report.files} files ({report.bytes} bytes) to {report.archive}"]
    if report.deleted:
        lines.append(
            f"Deleted {len(report.deleted)} older archive(s), keeping the newest "
            f"{memory.settings.backup_keep}: {', '.join(report.deleted)}"
        )
    if report.cleared:
        lines.append(
            f"Deleted {len(report.cleared)} partial file(s) of backups killed before they "
            f"finished: {', '.join(report.cleared)}"
        )
    return Output(report.to_json(), lines)


def action_restore(args, memory: Memory) -> Output:
    with progress_bar() as bar:
        report = memory.restore(args.archive, dry_run=args.dry_run, progress=bar)
    made = f"backup of {report.created} (vm-memory-oracle {report.bundle_version})"
    if report.dry_run:
        lines = [
            f"[DRY RUN] {report.archive}: a whole {made}, {report.files} files "
            f"({report.bytes} bytes), every hash and record checked; nothing was written"
        ]
    else:
        lines = [
            f"Restored {report.files} files ({report.bytes} bytes) of the {made} into "
            f"{report.data_path}; indexes rebuilt; health {report.health}"
        ]
    return Output(report.to_json(), lines)


def action_import(args, memory: Memory) -> Output:
    with progress_bar() as bar:
        report = memory.import_history(
            args.source, args.history_format, dry_run=args.dry_run, progress=bar
        )
    days = sorted(report.days)
    span = f" ({days[0]} to {days[-1]})" if days else ""
    found = (
        f"{report.conversations} conversation(s), {report.turns} turn(s) "
        f"of {len(days)} day(s){span}"
    )
    if report.dry_run:
        lines = [f"[DRY RUN] {report.source}: would learn {found}; nothing was written"]
    elif not report.turns:
        lines = [f"{report.source}: nothing new to learn"]
    else:
        lines = [
            f"Learned {found} from {report.source} into {len(report.copies)} session "
            f"log(s): {report.facts_extracted} fact(s) found, {report.added} new, "
            f"{report.reinforced} reinforced; {report.episodes} episode(s)"
        ]
    return Output(report.to_json(), lines)
