"""Episodes: what was said, turn by turn, kept in the memory beside the facts.

A fact is what summarize understood of a turn; an episode is the turn itself, so that a
question whose answer sits in a turn no fact came from (an assistant's answer, a pasted
article, a list) still finds it. Summarize writes one episode for each turn it reads, or
for a turn longer than PASSAGE_CHARS one for each passage of it, to
episodes/<day of the session log>.jsonl: append-only, written under the data directory's
lock, each episode once (its id is its turn's source, its part and its text). Clean removes
old session logs but never episodes: they are the memory of what was said.

Each episode cites its turn (sessions/<file>:<line>). Its text is the turn's, redacted as
the log is, on one line. The vector and full-text indexes over the episodes are derived
(episodes/index.py); recall fuses the episodes they find with the facts
(recall/sources/episodes.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ..model.fact import stable_hash
from ..model.provenance import Provenance
from ..model.text import OF_THEMSELF, turn_context

PASSAGE_CHARS = 1000  # at most this many characters of a turn in one episode
# A turn is found by meaning through the vector of its opening: at most this many characters
# of its first passage (its later passages are found by their words). The model's cost is
# its tokens: an assistant says about eight times what the person does, and embedding all of
# it made ingest five times as slow, while what a turn is about is mostly said as it opens.
EMBEDDED_CHARS = 400
EPISODE_KIND = "episode"  # the schema of an episodes file's records
# A turn with fewer words than this says nothing to find again ("ok", "thanks!").
MIN_WORDS = 3
_WORDS = re.compile(r"[^\W\d_]{2,}|\d+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# Where a long turn may be cut: after a sentence, a line, or a clause.
_SENTENCE_END = re.compile(r"(?<=[.!?。！？;；])\s+|\n+")
# A word whose dot ends no sentence: "Dr. Eric Lander", "the U.S. Department".
_ABBREVIATION = re.compile(
    r"(?:^|\s)(?:Dr|Mr|Mrs|Ms|Prof|Sr|Jr|St|Mt|vs|etc|No|Inc|Ltd|Co|e\.g|i\.e|[A-Z](?:\.[A-Z])*)\.$"
)
_CLAUSE_END = re.compile(r"(?<=[,，:：])\s+|\s+")


@dataclass(frozen=True)
class Episode:
    source: str  # sessions/<file>:<line>
    part: int  # which passage of the turn, from 0
    parts: int  # how many passages the turn has
    ts: str  # when the turn was said (ISO)
    speaker: str  # "user", "assistant", or the speaker's name
    text: str  # the passage, on one line
    facts: int = 0  # how many facts summarize learned from the turn
    asked: str | None = None  # the question of another speaker the turn answers, if any
    provenance: Provenance | None = None  # who said it, as its log's line gave it

    @property
    def id(self) -> str:
        return episode_id(self.source, self.part, self.text)

    @property
    def vector_id(self) -> int:
        """Its id in the episodes' vector and full-text indexes."""
        return stable_hash(self.id.encode("utf-8"))

    @cached_property  # read for the cache, the digests and the index alike
    def embedded(self) -> str | None:
        """The text its vector is made from, or None for a later passage of a turn (found by
        its words alone): the turn's context (model.text.turn_context: the question it
        answers, who said it) with at most EMBEDDED_CHARS characters of its opening. For a
        turn no longer than that, a fact's context is the same text: one embedding serves
        both."""
        if self.part:
            return None
        return turn_context(self.speaker, opening(self.text, EMBEDDED_CHARS), self.asked)

    def record(self) -> dict[str, Any]:
        record = {
            "id": self.id,
            "source": self.source,
            "part": self.part,
            "parts": self.parts,
            "ts": self.ts,
            "speaker": self.speaker,
            "text": self.text,
            "facts": self.facts,
        }
        if self.asked:
            record["asked"] = self.asked
        if self.provenance is not None:
            record["provenance"] = self.provenance.to_json()
        return record

    @classmethod
    def from_record(cls, record: dict) -> Episode:
        return cls(
            record["source"],
            record["part"],
            record["parts"],
            record["ts"],
            record["speaker"],
            record["text"],
            record.get("facts", 0),
            record.get("asked"),
            Provenance.of(record["provenance"]) if "provenance" in record else None,
        )


def episode_id(source: str, part: int, text: str) -> str:
    digest = stable_hash(f"{source}\n{part}\n{text}".encode())
    return f"ep-{digest:016x}"


def passages(text: str, limit: int = PASSAGE_CHARS) -> list[str]:
    """`text` on one line, or for a longer text its passages of at most `limit` characters,
    cut after a sentence or a line where one ends in the passage, else after a clause or a
    word, else anywhere (a run of characters without a space)."""
    pieces: list[str] = []
    for piece in (" ".join(piece.split()) for piece in _SENTENCE_END.split(text)):
        if pieces and _ABBREVIATION.search(pieces[-1]):  # "Dr." ends no sentence
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    result: list[str] = []
    current = ""
    for piece in (piece for piece in pieces if piece):
        while len(piece) > limit:
            cut = _cut(piece, limit)
            if current:
                result.append(current)
                current = ""
            result.append(piece[:cut].rstrip())
            piece = piece[cut:].lstrip()
        if current and len(current) + 1 + len(piece) > limit:
            result.append(current)
            current = piece
        else:
            current = f"{current} {piece}" if current else piece
    if current:
        result.append(current)
    return result


def opening(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters cut after the last clause or word that fits."""
    if len(text) <= limit:
        return text
    return text[: _cut(text, limit)].rstrip()


def _cut(piece: str, limit: int) -> int:
    """Where to cut a sentence longer than `limit`: after the last clause or word that fits."""
    ends = [match.end() for match in _CLAUSE_END.finditer(piece, 0, limit + 1)]
    return ends[-1] if ends and ends[-1] > limit // 2 else limit


def worth_keeping(text: str) -> bool:
    """Whether `text` says something to find again: MIN_WORDS words (two CJK characters
    counting as one), and not only reactions and questions ("Wow! What was the best
    part?": a question asks, and its answer is the turn to find), but for a question in
    which the asker speaks of themself: "What are some ways to keep my living room
    dust-free, with a cat that sheds a lot?" tells what they have and care about, and is
    what a later "Could it be my living room?" must find."""
    if len(_WORDS.findall(_CJK.sub(" ", text))) + len(_CJK.findall(text)) // 2 < MIN_WORDS:
        return False
    from ..extract.fragments import CHATTER, QUESTION, fragments

    return any(
        fragment.kind != CHATTER
        and (fragment.kind != QUESTION or OF_THEMSELF.search(fragment.text) is not None)
        for fragment in fragments(text)
    )


def episodes_of(
    source: str,
    ts: str,
    speaker: str,
    text: str,
    facts: int = 0,
    asked: str | None = None,
    provenance: Provenance | None = None,
) -> list[Episode]:
    """The episodes of one turn (from which `facts` facts were learned; answering the
    question `asked`, as model.text.question_of gives it, when it follows one): none for a
    turn with next to no words. The first passage keeps the question."""
    if not worth_keeping(text):
        return []
    parts = passages(text)
    return [
        Episode(
            source,
            number,
            len(parts),
            ts,
            speaker,
            passage,
            facts,
            asked if not number else None,
            provenance,
        )
        for number, passage in enumerate(parts)
    ]


def episode_files(layout) -> list[Path]:
    directory = layout.episodes_dir
    if not directory.is_dir():
        return []
    return sorted(path for path in directory.glob("*.jsonl") if _DAY_FILE.match(path.name))


_DAY_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}\.jsonl$")


def append_episodes(store, day: str, episodes: Iterable[Episode]) -> int:
    """Append to episodes/<day>.jsonl those of `episodes` it does not hold yet (under the
    caller's lock); returns how many were written."""
    path = store.layout.episodes_file(day)
    held = {record["id"] for record in store.read_records(path, EPISODE_KIND, copy=False)}
    fresh: dict[str, Episode] = {}
    for episode in episodes:
        if episode.id not in held:
            fresh.setdefault(episode.id, episode)
    if fresh:
        store.make_directory(path.parent)
        store.append_records(path, EPISODE_KIND, [episode.record() for episode in fresh.values()])
    return len(fresh)


def read_episodes(store) -> list[Episode]:
    """Every episode of the memory, file by file (bad lines quarantined and reported)."""
    return [
        Episode.from_record(record)
        for path in episode_files(store.layout)
        for record in store.read_records(path, EPISODE_KIND, copy=False)
    ]
