"""A forget carried out, under the data directory's lock, in an order that a run killed at any
point leaves every file valid and the next forget (or consolidate) finishes:

1. state/forgetting.json, the journal: the forget's ids and places, never the words;
2. state/forgotten.jsonl: each turn's line (marks.py), so that from here on nothing learns
   it again;
3. the facts learned from those turns alone archived as forgotten, the others' sources cut,
   a context quoting a forgotten turn dropped; archived facts of those turns made
   forgotten (--purge: their text erased, a tombstone kept);
4. the session logs' lines, their text replaced in place (FORGOTTEN_TEXT), the summarize
   ledger kept describing them;
5. the episodes of those turns removed, a question quoting one dropped from the episode
   that answers it; the lines of the daily summaries and the consolidation reports;
6. MEMORY.md (and each OpenClaw workspace's managed block) made again from the facts, its
   backup with it; the derived indexes and caches made again without the words; the memory
   page (view.html) removed;
7. one audit line (the selector's kind, the counts and ids, never the words), and the
   journal removed.

Each step reads what it changes and skips what is done, so a second run writes the same.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ..clock import format_iso
from ..episodes import EPISODE_KIND, Episode, episode_files
from ..model.archive import ArchiveCause, Archived
from ..model.fact import normalise
from ..model.turn import Turn
from .lines import forget_lines
from .marks import FORGOTTEN_TEXT, ForgottenTurn, append_forgotten
from .selection import SESSION_LINE, Selection, Selector, WhatWasSaid, cut_sources, select

JOURNAL_KIND = "forget-journal"
SNIPPET_CHARS = 60  # a forgotten turn is known in another record by this much of its words
_BULLET = re.compile(r"^- ")
_NONE = "- (none)"


@dataclass
class Forgot:
    """What one forget did (or, for a preview, would do)."""

    forget: str | None
    selector: Selector
    at: str | None = None  # when it was done
    reason: str | None = None  # the archive's prose of why
    facts: list[dict[str, Any]] = field(default_factory=list)  # id, text, source
    archived: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    turns: list[str] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)  # id, source, text
    purged: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    finished_earlier: str | None = None  # a forget killed before, finished first
    warnings: list[str] = field(default_factory=list)

    @property
    def nothing(self) -> bool:
        return not (self.facts or self.archived or self.turns or self.episodes or self.purged)


def forget_id(selector: Selector, now: datetime) -> str:
    said = f"{selector.describe()}\n{format_iso(now)}".encode()
    return "fg-" + hashlib.sha256(said).hexdigest()[:16]


def preview(graph, selector: Selector, *, purge: bool = False) -> Forgot:
    """What forgetting `selector` would take, writing nothing."""
    selection = select(graph, selector, purge=purge)
    return _described(None, selection, _files(graph, selection))


def forget(
    graph, selector: Selector, now: datetime, *, reason: str | None = None, purge: bool = False
) -> Forgot:
    """Forget what `selector` reaches (selected under the lock, so that a turn learned
    meanwhile is taken too), first finishing a forget a killed run left."""
    store = graph.store
    with store.locked("forget"):
        earlier = finish_pending(graph, now)
        selection = select(graph, selector, purge=purge)
        if selection.empty and earlier is not None:
            return _finished(graph, earlier, selector)  # the forget run again, finished
        if selection.empty:
            return _described(None, selection, [])
        ident = forget_id(selector, now)
        journal: dict[str, Any] = {
            "forget": ident,
            "at": format_iso(now),
            "selector": selector.kind(),
            "named": selector.audited(),
            "facts": [fact.id for fact in selection.facts],
            "archived": [archived.fact.id for archived in selection.archived],
            "turns": sorted(selection.sources),
            "purge": [archived.fact.id for archived in selection.purge]
            + ([fact.id for fact in selection.facts] if purge else [])
            + ([archived.fact.id for archived in selection.archived] if purge else []),
        }
        if reason:
            journal["reason"] = reason[:512]
        changed = _files(graph, selection)
        store.write_validated_json(store.layout.forget_journal, JOURNAL_KIND, journal)
        at = journal["at"]
        append_forgotten(store, [ForgottenTurn.of_turn(ident, at, t) for t in selection.turns])
        done = _described(ident, selection, changed)
        done.at = at
        done.reason = ArchiveCause("forgotten", journal.get("reason", "")).prose
        done.warnings += _carry(graph, journal, now, selection.turns)
        done.finished_earlier = None if earlier is None else earlier["forget"]
    return done


def _finished(graph, journal: dict[str, Any], selector: Selector) -> Forgot:
    """A forget that a killed run began and this one finished, as its journal and the
    archive tell it (the words of its episodes are gone by now)."""
    archived = {record.fact.id: record for record in graph.archived_facts()}
    facts = [archived[fact_id].fact for fact_id in journal["facts"] if fact_id in archived]
    return Forgot(
        journal["forget"],
        selector,
        at=journal["at"],
        reason=ArchiveCause("forgotten", journal.get("reason", "")).prose,
        facts=[{"id": f.id, "text": f.sentence, "source": f.source} for f in facts],
        archived=list(journal["archived"]),
        turns=list(journal["turns"]),
        purged=list(journal["purge"]),
        finished_earlier=journal["forget"],
    )


def finish_pending(graph, now: datetime) -> dict[str, Any] | None:
    """Finish the forget a killed run left in state/forgetting.json (under the caller's
    lock); its journal, or None when there was none."""
    store = graph.store
    path = store.layout.forget_journal
    if not path.exists():
        return None
    journal = store.read_json_file(path, JOURNAL_KIND)
    # Its turns not in the ledger yet (killed while it was written) are read from the logs,
    # which are changed only after it.
    memory = WhatWasSaid(graph)
    read = [memory.turn(source) for source in journal["turns"]]
    turns = [turn for turn in read if turn is not None]
    append_forgotten(
        store, [ForgottenTurn.of_turn(journal["forget"], journal["at"], turn) for turn in turns]
    )
    _carry(graph, journal, now, turns)
    return journal


def _carry(graph, journal: dict[str, Any], now: datetime, turns: list[Turn]) -> list[str]:
    """Steps 3 to 7 of a forget, from its journal and its `turns` as they were read (those
    still readable); each step skips what is done already."""
    store = graph.store
    forgotten_sources = set(journal["turns"])
    snippets = _snippets(turns)
    ident = journal["forget"]
    cause = ArchiveCause("forgotten", journal.get("reason", ""))
    fact_ids = {*journal["facts"], *journal["archived"]}
    # The forget's audit line (one for its whole locked block) begins with what it was.
    why = f"; why: {journal['reason']}" if journal.get("reason") else ""
    store.note(
        f"forgot by {journal.get('named') or journal['selector']}{why}: "
        f"{len(journal['facts'])} fact(s), "
        f"{len(journal['archived'])} archived fact(s) made forgotten, "
        f"{len(forgotten_sources)} session line(s), {len(journal['purge'])} purged",
        sorted(fact_ids | set(journal["purge"])),
    )
    _facts(graph, journal, forgotten_sources, snippets, cause, now)
    _archive(graph, journal, cause)
    for name, lines in _by_log(forgotten_sources).items():
        forget_lines(store, name, lines, ident)
    _episodes(store, forgotten_sources, snippets)
    needles = [*fact_ids, *(f"{source})" for source in forgotten_sources)]
    needles += [f"{source};" for source in forgotten_sources]
    for path in sorted(store.layout.daily_dir.glob("*.md")):
        _scrub_lines(store, path, needles, snippets, daily=True)
    for path in sorted(store.layout.reports_dir.glob("*.md")):
        _scrub_lines(store, path, needles, snippets, daily=False)
    warnings = _memory_md(graph, now)
    warnings += _indexes(graph)
    # The memory page (view.html) shows what the memory knew when it was made: it goes, to
    # be written again without what is forgotten (--action view).
    store.delete(store.layout.view_page)
    store.delete(store.layout.forget_journal)
    return warnings


def _snippets(turns: list[Turn]) -> list[str]:
    """How each forgotten turn is known inside another record (a question quoted, a
    context): the opening of its words, normalised (the turns are read before their lines
    are forgotten; after, from what their episodes still hold)."""
    found = []
    for turn in turns:
        words = normalise(turn.text)
        if len(words) >= 12:
            found.append(words[:SNIPPET_CHARS])
    return found


def _facts(graph, journal, forgotten: set[str], snippets: list[str], cause, now) -> None:
    """The journal's facts archived as forgotten; those that stay with the forgotten turns
    cut from their sources and a context quoting one dropped (in the same rewrite)."""
    leaving = set(journal["facts"])
    amend: dict[str, dict] = {}
    for fact in graph.facts():
        if fact.id in leaving:
            continue
        changes = cut_sources(fact, forgotten)
        if fact.context and _quotes(fact.context, snippets):
            changes["context"] = None
        if changes:
            amend[fact.id] = changes
    chosen = {fact.id: cause for fact in graph.facts() if fact.id in leaving}
    if amend and not chosen:
        graph.store.rewrite_facts(
            fact.changed(**amend[fact.id]) if fact.id in amend else fact for fact in graph.facts()
        )
    # Also when no fact is left to archive (a run killed after facts.jsonl was rewritten):
    # entities.jsonl and relations.jsonl are then brought in step with the facts.
    graph.archive(
        chosen, now, note=f"forgot {len(chosen)} fact(s)", amend=amend if chosen else None
    )


def _archive(graph, journal: dict[str, Any], cause: ArchiveCause) -> None:
    """The journal's archived facts made forgotten, and those it purges made tombstones,
    in one rewrite of archived-facts.jsonl (none when each is so already)."""
    store, path = graph.store, graph.layout.archive
    remark, purge = set(journal["archived"]), set(journal["purge"])
    records = store.read_records(path, "archived-fact", copy=False)
    changed = []
    touched = False
    for record in records:
        archived = Archived.of(record)
        fact_id = archived.fact.id
        if fact_id in remark and archived.cause.code != "forgotten":
            archived = Archived(
                archived.fact,
                archived.archived_at,
                cause,
                cause.prose,
                archived.final_activation,
                None,
            )
            touched = True
        if fact_id in purge and not archived.purged:
            archived = _tombstone(archived)
            touched = True
        changed.append(archived.to_json())
    if touched:
        store.rewrite_records(path, "archived-fact", changed)


def _tombstone(archived: Archived) -> Archived:
    """The archive record of a purged fact: its id, where it was said, when and why it
    left, no word of it."""
    fact = archived.fact
    blank = type(fact).from_record(
        {
            "id": fact.id,
            "subject": FORGOTTEN_TEXT,
            "predicate": "forgotten",
            "object": FORGOTTEN_TEXT,
            "source": fact.source,  # where it was said (a place, no word of it)
            "created": fact.created,
            "activation": fact.activation,
        }
    )
    cause = archived.cause if archived.cause.code == "forgotten" else ArchiveCause("forgotten")
    return Archived(blank, archived.archived_at, cause, cause.prose, None, None, True, True)


def _by_log(sources: set[str]) -> dict[str, set[int]]:
    logs: dict[str, set[int]] = {}
    for source in sources:
        match = SESSION_LINE.match(source)
        if match:
            logs.setdefault(match.group(1), set()).add(int(match.group(2)))
    return logs


def _episodes(store, forgotten: set[str], snippets: list[str]) -> None:
    """The episodes of the forgotten turns removed from their files; a question quoting one
    dropped from the episode that answers it."""
    for path in episode_files(store.layout):
        records = store.read_records(path, EPISODE_KIND, copy=False)
        kept, touched = [], False
        for record in records:
            if record["source"] in forgotten:
                touched = True
                continue
            if record.get("asked") and _quotes(record["asked"], snippets):
                record = replace(Episode.from_record(record), asked=None).record()
                touched = True
            kept.append(record)
        if touched:
            store.rewrite_records(path, EPISODE_KIND, kept)


def _quotes(text: str, snippets: list[str]) -> bool:
    said = normalise(text)
    return any(snippet in said for snippet in snippets)


def _scrub_lines(store, path: Path, needles: list[str], snippets: list[str], *, daily: bool):
    """The lines of a summary or report that name a forgotten fact or turn, or quote one,
    removed; a daily summary's section whose bullets all went says (none)."""
    if not store.usable(path):
        return
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept: list[str] = []
    emptied: dict[int, int] = {}  # section's heading index in kept -> where its bullets were
    bulleted: set[int] = set()  # the sections that keep a bullet
    heading = -1
    for line in lines:
        if line.startswith("## "):
            heading = len(kept)
        if any(needle in line for needle in needles) or _quotes(line, snippets):
            if daily and _BULLET.match(line) and heading >= 0:
                emptied.setdefault(heading, len(kept))
            continue
        if _BULLET.match(line):
            bulleted.add(heading)
        kept.append(line)
    if len(kept) == len(lines):
        return
    empty = [at for section, at in emptied.items() if section not in bulleted]
    for at in sorted(empty, reverse=True):
        kept.insert(at, _NONE + "\n")
    store.write_text(path, "".join(kept))


def _memory_md(graph, now: datetime) -> list[str]:
    """MEMORY.md made again from the facts (and each OpenClaw workspace's block), its
    backup the new text: the old one held the forgotten lines."""
    from ..steps.memory_md.data_file import reconcile_memory_file

    store, layout = graph.store, graph.layout
    if not layout.memory_md.exists():
        return []
    report = reconcile_memory_file(graph, now)
    if layout.memory_md_backup.exists() and store.usable(layout.memory_md_backup):
        store.write_bytes(layout.memory_md_backup, layout.memory_md.read_bytes())
    return list(report.warnings)


def _indexes(graph) -> list[str]:
    """The caches made from the forgotten words deleted and the full-text and episode
    indexes built again (a full-text index keeps a removed document's words until its
    segments merge)."""
    from ..indexes import EPISODES, TEXT, bring_in_step

    layout, store = graph.layout, graph.store
    caches = (layout.lexical_cache, layout.archive_tier_cache, layout.archive_tier_index)
    for cache in (*caches, layout.merge_search_cache):
        if cache.exists():
            store.delete(cache)
    indexes = bring_in_step(graph, rebuild={EPISODES, TEXT})
    _ = indexes.lexical  # made again now, not at the next search
    return indexes.warnings


def _described(ident: str | None, selection: Selection, changed: list[str]) -> Forgot:
    return Forgot(
        ident,
        selection.selector,
        facts=[
            {"id": fact.id, "text": fact.sentence, "source": fact.source}
            for fact in selection.facts
        ],
        archived=[archived.fact.id for archived in selection.archived],
        kept=sorted(selection.kept),
        turns=sorted(selection.sources),
        episodes=[
            {"id": episode.id, "source": episode.source, "text": episode.text}
            for episode in selection.episodes
        ],
        purged=[archived.fact.id for archived in selection.purge],
        files=changed,
    )


def _files(graph, selection: Selection) -> list[str]:
    """The files a forget of `selection` changes (data directory relative)."""
    from ..steps.memory_md.block import fact_line
    from ..steps.memory_md.data_file import FactCandidate
    from .selection import preview_files

    layout = graph.layout
    memory_md = layout.memory_md.read_text("utf-8") if layout.memory_md.exists() else ""
    shown = {
        fact.id for fact in selection.facts if fact_line(FactCandidate(fact, 0.0)) in memory_md
    }
    changed = preview_files(selection, layout, shown)
    sources = selection.sources
    ids = {fact.id for fact in selection.facts} | {a.fact.id for a in selection.archived}
    for path in sorted(layout.daily_dir.glob("*.md")) + sorted(layout.reports_dir.glob("*.md")):
        text = path.read_text("utf-8", errors="replace")
        if any(fact_id in text for fact_id in ids) or any(f"{s})" in text for s in sources):
            changed.append(layout.relative(path))
    if layout.view_page.exists():
        changed.append(layout.relative(layout.view_page))
    return sorted(set(changed))
