"""The live path: what an OpenClaw agent or workspace just said, learned as it ends.

The plugin asks for a learn when a turn of an agent ends (learn_agent) and when a note of a
workspace changes (learn_notes). Each is one commit: under the store's lock, taken once,
the new transcript turns (or note lines) are copied into sessions/ (openclaw/imports.py,
openclaw/notes.py), the days of those copies are learned whole, as `summarize --date DAY`
reads them (learning/logs.py: every log of each day, so that each turn is read in the same
context and the day's summary stays whole), and the derived indexes are brought in step,
so that the next search finds them; the audit log gets one line for all of it. An agent's
transcript database is read before the lock is taken: OpenClaw may keep it busy.

A turn is learned once however it comes in, live or by the nightly summarize: the import
ledger holds the last transcript row (or note line) copied, the summarize ledger the last
line of each copy learned.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..openclaw.imports import ImportReport, agent_copies, copy_read_turns, read_openclaw_state
from ..openclaw.notes import import_workspace_notes
from ..openclaw.provenance import Admission
from ..storage.sessions import session_day
from .learn import LearnReport
from .ledger import read_ledger
from .logs import learn_logs

if TYPE_CHECKING:
    from ..graph import KnowledgeGraph


def learn_agent(graph: KnowledgeGraph, now: datetime, *, agent: str, state_dir: str) -> LearnReport:
    """OpenClaw agent `agent`'s new transcript turns (in its state directory `state_dir`)
    learned in one commit, with the copies an earlier learn cut short left unlearned."""
    store = graph.store
    read = read_openclaw_state(
        store, state_dir, agents={agent}, admission=Admission.of(graph.settings)
    )
    with store.locked("learn"):
        imported = copy_read_turns(store, read)
        left = not_learned(store, agent_copies(store, state_dir, agent))
        return learn_copied(graph, now, imported, "openclaw import", left)


def learn_notes(graph: KnowledgeGraph, now: datetime, *, workspace: str | Path) -> LearnReport:
    """The new lines of an OpenClaw workspace's changed notes (memory/*.md, USER.md)
    learned in one commit."""
    with graph.store.locked("learn"):
        imported = import_workspace_notes(graph.store, workspace, now)
        return learn_copied(graph, now, imported, "workspace notes")


def learn_copied(
    graph: KnowledgeGraph,
    now: datetime,
    imported: ImportReport,
    what: str,
    left: Collection[Path] = (),
    *,
    in_step: bool = True,
) -> LearnReport:
    """The days of the copies an import wrote, and of those an earlier learn `left` (cut
    short), learned whole; with `in_step`, the indexes brought in step in the same commit."""
    store = graph.store
    copies = {store.layout.root / name for name in imported.files_written} | set(left)
    days = sorted({session_day(path) for path in copies})
    logs = {day: found for day in days if (found := store.session_files(day))}
    return learn_logs(graph, now, logs, imported=[(imported, what)], in_step=in_step)


def not_learned(store, names: list[str]) -> set[Path]:
    """The copies of `names` with lines not learned yet: a learn cut short after the copy
    was written (an import only appends to a copy, so its size tells)."""
    ledger = read_ledger(store)
    pending = set()
    for name in names:
        path = store.layout.sessions_dir / name
        entry = ledger.get(name)
        try:
            if entry is None or entry.bytes != path.stat().st_size:
                pending.add(path)
        except FileNotFoundError:  # cleaned since
            continue
    return pending
