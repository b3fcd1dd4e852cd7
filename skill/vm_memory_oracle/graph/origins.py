"""The origin of each fact made before facts kept one, placed by the rules a new fact is
placed by, from what its source still says.

- A fact learned from a session log's line (`sessions/<file>.jsonl:<line>`) is said by whom
  that line says (model/turn.Turn.said_by: the provenance a copy of OpenClaw's transcript
  carries, else the owner for the user's words and the agent for the assistant's). A line
  copied from OpenClaw before copies kept one (it names its transcript row, `origin`) is
  placed from that row, read again from the transcript database as a new copy's would be
  (a heartbeat poll then is `system`); when the row cannot be read, it is `unknown`.
- A fact remembered through the command line (`user-stated`, `import:<file>`) is the
  owner's; one a sub-agent proposed (`subagent:<name>`, `... via proposal-<id>`) the
  agent's, whose proposal the owner accepted.
- Any other, or one whose line can no longer be read (the log gone or cut), is `unknown`:
  found by an explicit recall as before, but never in MEMORY.md or injected unasked.

Placing rewrites facts.jsonl once, under the lock, with the facts otherwise as they were:
nothing is lost, a run cut short leaves the file as it was (the rewrite is atomic), and a
run after it finds nothing left to place.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from ..model.fact import UNKNOWN_ORIGIN, Fact
from ..model.provenance import AGENT_SAID, OWNER_SAID, Provenance
from ..model.turn import Turn
from ..openclaw.state import DATABASE
from ..openclaw.transcripts import read_new_turns
from ..storage.sessions import read_session

if TYPE_CHECKING:
    from .facts import KnowledgeGraph

_LOG_LINE = re.compile(r"^(sessions/[^/\\]+\.jsonl):(\d{1,12})$")
_PROPOSED = re.compile(r"^subagent:| via proposal-[0-9a-f-]{36}$")
_COPY = re.compile(r"openclaw:([^\s/#]+)/([^\s#]+)#(\d+)")


def place_origins(graph: KnowledgeGraph) -> Counter[str]:
    """Each fact without an origin given one (see above); how many of each origin."""
    if graph.store.refused(graph.layout.facts) is not None:
        return Counter()  # what needs the facts says why it cannot have them
    if all(fact.provenance is not None for fact in graph.facts()):
        return Counter()  # the usual case: nothing to do, and no lock taken
    placed: Counter[str] = Counter()
    with graph.store.locked("place origins"):
        logs = _Logs(graph)
        facts = []
        for fact in graph.facts():  # read again under the lock
            if fact.provenance is None:
                fact = fact.changed(provenance=logs.origin_of(fact))
                placed[fact.said_by.origin] += 1
            facts.append(fact)
        if placed:
            counts = ", ".join(f"{origin} {n}" for origin, n in sorted(placed.items()))
            graph.store.note(
                f"placed the origin of {placed.total()} facts made before facts kept one ({counts})"
            )
            graph.store.rewrite_facts(facts)
    return placed


class _Logs:
    """The session logs facts cite, each read once."""

    def __init__(self, graph: KnowledgeGraph):
        self._root = graph.layout.root
        self._turns: dict[str, dict[int, Turn]] = {}
        self._state_dir = graph.settings.openclaw_state_dir
        self._rows: dict[str, dict[tuple[str, int], Provenance]] = {}  # by agent

    def origin_of(self, fact: Fact) -> Provenance:
        source = fact.source
        if source == "user-stated" or source.startswith("import:"):
            return OWNER_SAID
        if _PROPOSED.search(source):
            return AGENT_SAID
        match = _LOG_LINE.match(source)
        if match is None:
            return UNKNOWN_ORIGIN
        turn = self._lines(match.group(1)).get(int(match.group(2)))
        if turn is None:
            return UNKNOWN_ORIGIN
        if turn.provenance is None and turn.origin and turn.origin.startswith("openclaw:"):
            return self._copied(turn.origin) or UNKNOWN_ORIGIN
        return turn.said_by

    def _copied(self, origin: str) -> Provenance | None:
        """Who said the transcript row a copied line names (openclaw:<agent>/<session>#<seq>),
        placed as a copy of it would be now; None when it cannot be read."""
        match = _COPY.fullmatch(origin)
        if match is None or not self._state_dir:
            return None
        agent, session, seq = match.group(1), match.group(2), int(match.group(3))
        rows = self._rows.get(agent)
        if rows is None:
            database = Path(self._state_dir).expanduser() / "agents" / agent / DATABASE
            read = read_new_turns(database, {}) if database.is_file() else None
            rows = self._rows[agent] = (
                {}
                if read is None or read.problem
                else {(turn.session_id, turn.seq): turn.provenance for turn in read.turns}
            )
        return rows.get((session, seq))

    def _lines(self, name: str) -> dict[int, Turn]:
        held = self._turns.get(name)
        if held is None:
            _, contents = read_session(self._root / name)
            held = self._turns[name] = {
                number: Turn.of_record(name, number, record)
                for record, number in zip(contents.records, contents.line_numbers)
            }
        return held
