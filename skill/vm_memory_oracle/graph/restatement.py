"""A statement heard again: whether it is the same statement (its source names one line of a
log or one proposal, already counted) or a repetition, and what a repetition adds to the
stored fact (KnowledgeGraph.remember)."""

from __future__ import annotations

import re

from ..model.activation import ActivationEntry
from ..model.archive import ArchiveById, Archived
from ..model.fact import Fact

REPETITION_BONUS = 0.2
# Provenance that names one statement, a line of a log (sessions/<file>.jsonl:<line>) or a
# sub-agent's proposal (... via proposal-<uuid>): hearing it again is the same statement,
# not a repetition.
PRECISE_SOURCE = re.compile(
    r"(:\d+| via proposal-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-"
    r"[0-9a-f]{4}-[0-9a-f]{12})$"
)
MAX_SOURCES = 20


def archived_statement(candidate: Fact, archived: ArchiveById) -> Archived | None:
    """The archive record of `candidate`'s fact when it already holds `candidate`'s source
    (`archived`: archive records by fact id); None otherwise."""
    record = archived.get(candidate.id)
    if record is not None and candidate.source in {record.fact.source, *record.fact.sources}:
        return record
    return None


def already_heard(fact: Fact, entry: ActivationEntry | None, source: str) -> bool:
    """True when `source` (a line of a session log, a proposal) was already counted for this
    fact, in both the fact (its first source, or a restatement) and its activation state.

    Each file keeps its own record, so a crash between writing facts.jsonl and the
    activation state is completed by the retry and never counted twice.
    """
    if not PRECISE_SOURCE.search(source):
        return False  # "user-stated" again is a real repetition
    if source == fact.source:
        return True
    return source in fact.sources and entry is not None and source in entry.heard


def merge_restatement(existing: Fact, candidate: Fact, repetition_bonus: float) -> Fact:
    """What a repeated statement adds to the stored fact: a pin, importance, a text.

    Returns `existing` itself when it gains nothing.
    """
    changes: dict = {}
    if candidate.pinned and not existing.pinned:
        changes["pinned"] = True
    importance = round(
        min(1.0, max(candidate.importance or 0.0, existing.importance or 0.0) + repetition_bonus),
        3,
    )
    if importance != (existing.importance or 0.0):
        changes["importance"] = importance
    if candidate.text and not existing.text:
        changes["text"] = candidate.text
    return existing.changed(**changes) if changes else existing
