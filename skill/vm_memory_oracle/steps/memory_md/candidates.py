"""An active fact as MEMORY.md's block sees it (Shown: a Candidate, or a fact read as one
when asked), and why one must never be in the block (promotion_problem)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from ...extract.redact import redact
from ...model.provenance import OWNER, TRUSTED

USER = "user"
MAX_TEXT_CHARS = 300
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")
_LOG_LINE = re.compile(
    r"\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}"  # ISO date-time
    r"|\[[^\]]*\d{1,2}:\d{2}[^\]]*\]|\[\d{9,}"
)  # [time], [epoch]
_BARE_TOKEN = (
    r"(?:[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"  # uuid
    r"|(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{7,}"  # hash
    r"|[A-Za-z]+[-_:][\w-]*\d[\w-]*"  # fact-..., id_42
    r"|[~.]?(?:[\w.-]*[/\\])+[\w.-]*"  # a/b, C:\x
    r"|[\w.-]+\.(?:md|jsonl?|txt|log|py|ya?ml|toml|csv|bin|npz))"
)
_BARE = re.compile(rf"{_BARE_TOKEN}(?:[\s,;]+{_BARE_TOKEN})*[.,;]?")


class Shown(Protocol):
    """What reconcile reads of an active fact: a Candidate, or a fact read as one when
    asked (data_file.FactCandidate)."""

    @property
    def id(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def importance(self) -> float: ...
    @property
    def activation(self) -> float: ...
    @property
    def pinned(self) -> bool: ...
    @property
    def superseded(self) -> bool: ...
    @property
    def subject(self) -> str: ...
    @property
    def salience(self) -> float | None: ...
    @property
    def source(self) -> str: ...
    @property
    def valid_from(self) -> str | None: ...
    @property
    def origin(self) -> str: ...
    @property
    def weight(self) -> float: ...


def weight_of(importance: float, salience: float | None, activation: float) -> float:
    """What the block is filled by, after pinned facts: salience x activation (the
    importance stands in for a salience never scored)."""
    return (importance if salience is None else salience) * activation


@dataclass(frozen=True, slots=True)
class Candidate:
    """One active fact as reconcile sees it."""

    id: str
    text: str
    category: str
    importance: float
    activation: float
    pinned: bool = False
    superseded: bool = False
    subject: str = USER
    salience: float | None = None  # None: the importance stands in for it
    source: str = ""  # sessions/<log>:<line> for a fact learned from a turn
    valid_from: str | None = None  # a day (YYYY-MM-DD) for a dated fact
    origin: str = OWNER  # who said it (model/provenance.py)

    @property
    def weight(self) -> float:
        return weight_of(self.importance, self.salience, self.activation)


def category_of(candidate: Shown) -> str:
    return candidate.category.strip().lower()


@lru_cache(maxsize=4096)  # a memory has few subjects, each shared by many facts
def _subject_problem(subject: str) -> str | None:
    if "<!--" in subject or "-->" in subject or len(subject.splitlines()) > 1:
        return "its subject would break the block (a marker or a line break)"
    if redact(subject).count:
        return "its subject holds a secret"
    return None


def promotion_problem(candidate: Shown) -> str | None:
    """Why this fact must never be in MEMORY.md, or None when it may be."""
    if candidate.origin not in TRUSTED:
        return f"of {candidate.origin} origin: only the owner's and the agent's words go there"
    text = candidate.text.strip()
    if not text:
        return "empty text"
    secrets = redact(text)
    if secrets.count:
        return f"holds a secret ({', '.join(sorted(set(secrets.kinds)))})"
    if "[REDACTED:" in text:
        return "holds a redacted secret"
    if text.splitlines() != [text]:
        return "contains a line break (would break the block)"
    if "<!--" in text or "-->" in text:
        return "contains an HTML comment marker (would break the block)"
    subject_problem = _subject_problem(candidate.subject)
    if subject_problem:
        return subject_problem
    if not _SAFE_ID.fullmatch(candidate.id):
        return "its id cannot be written in a comment"
    if len(text) > MAX_TEXT_CHARS:
        return "too long for a memory line"
    if _LOG_LINE.match(text):
        return "looks like a raw log line"
    if text[0] in "{[":
        return "looks like JSON metadata"
    if "sessions/" in text and ".jsonl" in text:
        return "cites a session log file"
    if _BARE.fullmatch(text):
        return "a bare id, hash or path with no words"
    if category_of(candidate) == "temporary" and not candidate.pinned:
        return "temporary facts stay out of MEMORY.md"
    return None
