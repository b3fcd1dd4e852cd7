"""A turn: what one speaker said at one time, and where it was said.

A turn is said in a session log (`source`: sessions/<file>.jsonl:<line>, the line a fact
learned from it cites); a turn copied from OpenClaw also names the transcript row it was
said in (`origin`: openclaw:<agent>/<session>#<seq>). Both are a conversation and a position
in it. in_context (extract/rules.py) adds what its neighbours in the log tell.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Turn:
    source_file: str  # relative to the data directory: sessions/<file>.jsonl
    line: int
    ts: datetime
    role: str
    text: str
    speaker: str | None = None
    origin: str | None = None  # where the log's line was copied from (an OpenClaw session)
    addressee: str | None = None  # whom "you" means: the other speaker, or the assistant
    after_question: bool = False  # the turn before it in the log asked something
    place: int = 0  # its index among the log's turns
    novelty: float = 1.0  # the share of its words not said earlier in the log
    followed_by_question: bool = False  # the turn after it in the log asks something
    asked: str | None = None  # the question of another speaker it follows ("Bob: Where to?")

    @property
    def source(self) -> str:
        return f"{self.source_file}:{self.line}"

    @property
    def subject(self) -> str:
        return self.speaker or ("user" if self.role == "user" else self.role)
