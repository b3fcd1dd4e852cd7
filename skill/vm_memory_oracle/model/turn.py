"""A turn: what one speaker said at one time, and where it was said.

A turn is said in a session log (`source`: sessions/<file>.jsonl:<line>, the line a fact
learned from it cites); a turn copied from OpenClaw also names the transcript row it was
said in (`origin`: openclaw:<agent>/<session>#<seq>), and one copied from a workspace note
the note's line (note:memory/<name>.md#L<line>, note:USER.md#L<line>). Each is a
conversation or note and a position in it, which is how the memory knows whether it has
learned a turn already.

A line may say who said it (`provenance`, model/provenance.py: the copies of OpenClaw's
transcripts carry one); a line that says nothing is the owner's when the user speaks and
the agent's when the assistant does, and one whose provenance is not valid is untrusted.

Read from a log, a turn holds its text as said; learn() redacts it before anything else
reads it, and in_context (extract/rules.py) adds what its neighbours tell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..clock import parse_iso
from .provenance import SYSTEM, UNTRUSTED, Provenance, by_role

# The origin a copied line names: "openclaw:<agent>/<session>#<seq>" (openclaw/imports.py),
# "note:<path in the workspace>#L<line>" (openclaw/notes.py) or "<format>:<conversation>#<turn>"
# (imports/history.py: a ChatGPT, Claude Code or Codex history).
ORIGIN = re.compile(
    r"openclaw:[^\s/#]{1,128}/[^\s#]{1,256}#\d{1,12}"
    r"|note:(?:USER\.md|memory/[^/\\\x00-\x1f\x7f]{1,251}\.md)#L\d{1,9}"
    r"|(?:chatgpt|claude-code|codex):[\w.:-]{1,128}#\d{1,9}"
)
# An OpenClaw agent or session id as a caller names it (the live path's learn).
OPENCLAW_ID = re.compile(r"[\w.:-]{1,128}")


@dataclass(frozen=True)
class Turn:
    source_file: str  # relative to the data directory: sessions/<file>.jsonl
    line: int
    ts: datetime
    role: str
    text: str
    speaker: str | None = None
    origin: str | None = None  # where the log's line was copied from (OpenClaw, a note)
    addressee: str | None = None  # whom "you" means: the other speaker, or the assistant
    after_question: bool = False  # the turn before it in the log asked something
    place: int = 0  # its index among the log's turns
    novelty: float = 1.0  # the share of its words not said earlier in the log
    followed_by_question: bool = False  # the turn after it in the log asks something
    asked: str | None = None  # the question of another speaker it follows ("Bob: Where to?")
    provenance: Provenance | None = None  # as the line gives it; None: by its role

    @property
    def said_by(self) -> Provenance:
        """Who said it: the line's provenance, else the one its role gives."""
        return self.provenance if self.provenance is not None else by_role(self.role)

    @property
    def scaffolding(self) -> bool:
        """Whether it is no one's words (a heartbeat, a cron run): never learned."""
        return self.said_by.origin == SYSTEM

    @classmethod
    def of_record(cls, source_file: str, line: int, record: dict) -> Turn:
        """The turn a session log's line holds (a record valid as a session-turn). An
        origin that is not one a copy of OpenClaw's or of a note writes is left out."""
        origin = record.get("origin")
        marked = record.get("provenance")
        provenance = None if marked is None else Provenance.of(marked) or Provenance(UNTRUSTED)
        return cls(
            source_file,
            line,
            parse_iso(record["ts"]),
            record["role"],
            record["text"],
            record.get("speaker"),
            origin if isinstance(origin, str) and ORIGIN.fullmatch(origin) else None,
            provenance=provenance,
        )

    @property
    def source(self) -> str:
        return f"{self.source_file}:{self.line}"

    @property
    def subject(self) -> str:
        return self.speaker or ("user" if self.role == "user" else self.role)
