"""state/forgotten.jsonl: the turns forgotten, so that none is learned again.

One line for each turn a forget took: the forget it belongs to, where the turn was said
(its session log line, and the OpenClaw transcript row a copy names), when and by whom,
and hashes of its words, never the words. Learning (learning/learn.py) and the OpenClaw
imports (openclaw/imports.py) read it under the data directory's lock before they write,
and leave out a turn it covers (Forgotten.covers):

- the same transcript row copied again (its origin);
- the same turn in any log (its time, role and words: a log copied back into sessions/);
- words of a forgotten turn repeated by anyone but the owner (a run of SHINGLE_WORDS of
  its words: the same web page read again, a group member saying it again, the agent
  repeating it). The owner saying it again, in a new turn, is heard: that is a new
  statement.

A forgotten line of a session log keeps its place (facts cite the lines after it by
number) with FORGOTTEN_TEXT for its text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..clock import format_iso, parse_iso
from ..extract.redact import redact
from ..model.provenance import OWNER
from ..model.text import tokens
from ..model.turn import Turn

FORGOTTEN_KIND = "forgotten-turn"  # the schema of a line of state/forgotten.jsonl
FORGOTTEN_TEXT = "[forgotten]"  # a session log line's text once forgotten
SHINGLE_WORDS = 8  # a run of this many words of a forgotten turn is its words again
MAX_SHINGLES = 400  # of one turn, at most (its opening: a long page is known by it)


def forgotten_line(line: str | bytes) -> bool:
    """Whether a session log's line (as read, without its newline or with it) is one a
    forget replaced: a record whose text is FORGOTTEN_TEXT."""
    from ..storage import strict_json

    try:
        raw = line.decode("utf-8") if isinstance(line, bytes) else line
        record = strict_json.loads(raw)
    except (UnicodeDecodeError, strict_json.JsonRefused):
        return False
    return isinstance(record, dict) and record.get("text") == FORGOTTEN_TEXT


def words_of(text: str) -> list[str]:
    """The words a turn is compared by: its secrets redacted as they are before anything
    keeps them, stop words dropped, case and word forms folded (model.text.tokens), each
    CJK character a word."""
    return tokens(redact(text).text, pairs=False)


def _hash(words: Iterable[str], length: int) -> str:
    return hashlib.sha256(" ".join(words).encode("utf-8")).hexdigest()[:length]


def digest(text: str) -> str:
    """The hash of a turn's words (words_of)."""
    return _hash(words_of(text), 32)


def shingles(text: str) -> list[str]:
    """The hashes of each run of SHINGLE_WORDS words of `text` (of all its words, for a
    shorter text), at most MAX_SHINGLES, in order."""
    words = words_of(text)
    size = min(SHINGLE_WORDS, len(words))
    if not size:
        return []
    runs = range(min(len(words) - size + 1, MAX_SHINGLES))
    return list(dict.fromkeys(_hash(words[i : i + size], 16) for i in runs))


@dataclass(frozen=True)
class ForgottenTurn:
    """One line of state/forgotten.jsonl."""

    forget: str  # the id of the forget that took it
    at: str  # when it was forgotten
    source: str  # sessions/<file>.jsonl:<line>
    ts: str  # when it was said
    role: str
    digest: str  # digest(its text)
    owner: bool  # whether the owner said it
    shingles: tuple[str, ...] = ()  # shingles(its text)
    run: int = SHINGLE_WORDS  # the words of a shingle: all its words, when fewer
    origin: str | None = None  # the transcript row a copy names (openclaw:<agent>/<s>#<seq>)

    @classmethod
    def of_turn(cls, forget: str, at: str, turn: Turn) -> ForgottenTurn:
        return cls(
            forget,
            at,
            turn.source,
            format_iso(turn.ts),
            turn.role,
            digest(turn.text),
            turn.said_by.origin == OWNER,
            tuple(shingles(turn.text)),
            min(SHINGLE_WORDS, len(words_of(turn.text))),
            turn.origin,
        )

    @classmethod
    def of_record(cls, record: dict[str, Any]) -> ForgottenTurn:
        return cls(
            record["forget"],
            record["at"],
            record["source"],
            record["ts"],
            record["role"],
            record["digest"],
            record["owner"],
            tuple(record.get("shingles", ())),
            record.get("run", SHINGLE_WORDS),
            record.get("origin"),
        )

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "forget": self.forget,
            "at": self.at,
            "source": self.source,
            "ts": self.ts,
            "role": self.role,
            "digest": self.digest,
            "owner": self.owner,
        }
        if self.shingles:
            record["shingles"] = list(self.shingles)
            record["run"] = self.run
        if self.origin is not None:
            record["origin"] = self.origin
        return record


@dataclass
class Forgotten:
    """What every forget so far took, as learning asks it (covers, which): each mark of a
    forgotten turn, with the forget that took it."""

    turns: list[ForgottenTurn] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)
    said: dict[tuple[str, str, str], str] = field(default_factory=dict)  # (ts, role, digest)
    runs: dict[int, dict[str, str]] = field(default_factory=dict)  # words a run -> shingles

    def add(self, turn: ForgottenTurn) -> None:
        self.turns.append(turn)
        if turn.origin:
            self.origins.setdefault(turn.origin, turn.forget)
        self.said.setdefault((turn.ts, turn.role, turn.digest), turn.forget)
        known = self.runs.setdefault(turn.run, {})
        for shingle in turn.shingles:
            known.setdefault(shingle, turn.forget)

    def __bool__(self) -> bool:
        return bool(self.turns)

    def covers(self, turn: Turn) -> bool:
        """Whether `turn` is one forgotten, or repeats one's words and is not the owner's."""
        return turn.text == FORGOTTEN_TEXT or self.which(turn) is not None

    def which(self, turn: Turn) -> str | None:
        """The forget that took `turn` (or the words it repeats), or None."""
        return self._which(
            turn.origin, format_iso(turn.ts), turn.role, turn.text, turn.said_by.origin == OWNER
        )

    def covers_row(self, origin: str, ts: str, role: str, text: str, owner: bool) -> bool:
        """Whether a transcript row about to be copied is one forgotten (covers)."""
        return self._which(origin, format_iso(parse_iso(ts)), role, text, owner) is not None

    def _which(self, origin: str | None, ts: str, role: str, text: str, owner: bool) -> str | None:
        if not self.turns:
            return None
        if origin is not None and origin in self.origins:
            return self.origins[origin]
        same = self.said.get((ts, role, digest(text)))
        if same is not None or owner:
            return same
        return self.repeated(text)

    def repeated(self, text: str) -> str | None:
        """The forget of a turn whose SHINGLE_WORDS words in a row (all the words of a
        shorter one) `text` holds, or None."""
        words = words_of(text)
        for size, known in self.runs.items():
            for i in range(len(words) - size + 1):
                found = known.get(_hash(words[i : i + size], 16))
                if found is not None:
                    return found
        return None


def read_forgotten(store) -> Forgotten:
    """Every forgotten turn (bad lines quarantined, as the store does for every file)."""
    forgotten = Forgotten()
    path = store.layout.forgotten
    if not path.exists():
        return forgotten
    for record in store.read_records(path, FORGOTTEN_KIND, copy=False):
        forgotten.add(ForgottenTurn.of_record(record))
    return forgotten


def append_forgotten(store, turns: Iterable[ForgottenTurn]) -> None:
    """Add `turns` to the ledger (under the caller's lock), those it holds already left out
    (a forget run again after it was killed)."""
    held = read_forgotten(store)
    fresh = [turn for turn in turns if (turn.forget, turn.source) not in _keys(held)]
    if fresh:
        store.make_directory(store.layout.forgotten.parent)
        store.append_records(store.layout.forgotten, FORGOTTEN_KIND, [t.to_json() for t in fresh])


def _keys(held: Forgotten) -> set[tuple[str, str]]:
    return {(turn.forget, turn.source) for turn in held.turns}
