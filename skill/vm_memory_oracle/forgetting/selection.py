"""What a forget takes: the selector a person gives, and everything it reaches.

Forgetting works on what was said. A selector names facts (by id, by the words of a query)
or turns (a session, a sender, a span of time); every fact names the turns it was learned
from (its source and the sources it was stated again in), and every turn the facts and
episodes made of it. A forget takes the turns its selector reaches, every episode of those
turns, every fact learned from them alone (a fact also said in a turn that stays keeps
that turn as its source), and the archived facts learned from them alone (an earlier,
superseded value recall would otherwise show).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from ..clock import format_iso, parse_iso
from ..episodes import Episode, read_episodes
from ..errors import UnknownFactError, UsageError
from ..model.archive import Archived
from ..model.fact import Fact
from ..model.text import tokens
from ..model.turn import OPENCLAW_ID, Turn
from ..storage.sessions import SESSION_NAME, read_session
from .marks import FORGOTTEN_TEXT

if TYPE_CHECKING:
    from ..graph import KnowledgeGraph

# A fact's or episode's source that is a line of a session log.
SESSION_LINE = re.compile(r"^sessions/([^/:]+\.jsonl):(\d+)$")


@dataclass(frozen=True)
class Selector:
    """What a person asked to forget: fact ids, or what matches a query, a session (a
    session log's name, an OpenClaw session id or key), a sender, narrowed (or, alone,
    given) by a span of time [since, until)."""

    ids: tuple[str, ...] = ()
    query: str | None = None
    session: str | None = None
    sender: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    @classmethod
    def of_options(
        cls,
        ids: Iterable[str] = (),
        query: str | None = None,
        session: str | None = None,
        sender: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> Selector:
        """The selector of forget's options; a usage error naming the option at fault."""
        ids = tuple(dict.fromkeys(ids))
        named = [name for name, value in _named(query, session, sender) if value is not None]
        if ids and (named or since or until):
            raise UsageError("--id forgets those facts: give no other selector with it")
        if len(named) > 1:
            both = " and ".join(f"--{name}" for name in named)
            raise UsageError(f"give one of --query, --session, --sender, not {both}")
        if not ids and not named and since is None and until is None:
            raise UsageError(
                "forget needs a selector: --id FACT_ID, --query TEXT, --session NAME, "
                "--sender NAME, or --since/--until"
            )
        if query is not None and not tokens(query):
            raise UsageError(f"--query {query!r} has no word to look for")
        if session is not None and not (
            SESSION_NAME.match(PurePath(session).name) or OPENCLAW_ID.fullmatch(session)
        ):
            raise UsageError(
                f"--session {session!r} is neither a session log's name "
                "(YYYY-MM-DD-HHMMSS.jsonl) nor an OpenClaw session id or key"
            )
        if sender is not None and not sender.strip():
            raise UsageError("--sender must name someone")
        start = _moment(since, "--since")
        end = _moment(until, "--until")
        if start and end and start >= end:
            raise UsageError(f"--since {since} is not before --until {until}")
        return cls(ids, query, session, sender and sender.strip(), start, end)

    def describe(self) -> str:
        """The selector as options, for messages (a query's words are the person's own)."""
        if self.ids:
            return " ".join(f"--id {fact_id}" for fact_id in self.ids)
        parts = [
            f"--{name} {value!r}"
            for name, value in _named(self.query, self.session, self.sender)
            if value
        ]
        parts += [f"--since {format_iso(self.since)}"] if self.since else []
        parts += [f"--until {format_iso(self.until)}"] if self.until else []
        return " ".join(parts)

    def audited(self) -> str:
        """The selector as the audit line keeps it: the session, sender or span given, never
        a query's words (they may be what is forgotten)."""
        if self.query is not None:
            named = "--query"
        elif self.ids:
            named = "--id"
        else:
            named = " ".join(
                f"--{name} {value}"
                for name, value in _named(None, self.session, self.sender)
                if value
            )
        span = [f"--since {format_iso(self.since)}"] if self.since else []
        span += [f"--until {format_iso(self.until)}"] if self.until else []
        return " ".join([named, *span]).strip()[:512]

    def kind(self) -> str:
        """Which selector, for the audit log (never the query's words)."""
        if self.ids:
            return "id"
        for name, value in _named(self.query, self.session, self.sender):
            if value is not None:
                return name
        return "time"

    def within(self, moment: datetime) -> bool:
        return (self.since is None or moment >= self.since) and (
            self.until is None or moment < self.until
        )

    @property
    def timed(self) -> bool:
        return self.since is not None or self.until is not None


def _named(query, session, sender) -> list[tuple[str, str | None]]:
    return [("query", query), ("session", session), ("sender", sender)]


def _moment(value: str | None, option: str) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_iso(value, what=option)
    except ValueError:
        raise UsageError(f"{option} {value!r} is not an ISO-8601 date or date-time") from None


@dataclass
class Selection:
    """Everything one forget takes."""

    selector: Selector
    facts: list[Fact] = field(default_factory=list)  # active facts, forgotten
    archived: list[Archived] = field(default_factory=list)  # archived ones, made forgotten
    kept: set[str] = field(default_factory=set)  # facts that stay, their sources cut
    turns: list[Turn] = field(default_factory=list)  # the lines of session logs forgotten
    episodes: list[Episode] = field(default_factory=list)
    purge: list[Archived] = field(default_factory=list)  # forgotten before, --purge asked

    @property
    def sources(self) -> set[str]:
        return {turn.source for turn in self.turns}

    @property
    def empty(self) -> bool:
        return not (self.facts or self.archived or self.turns or self.episodes or self.purge)


class WhatWasSaid:
    """The memory's facts, archive, episodes and session logs as a selection reads them,
    each read once."""

    def __init__(self, graph: KnowledgeGraph):
        self.graph = graph
        self.layout = graph.layout
        self._facts: list[Fact] | None = None
        self._archived: list[Archived] | None = None
        self._episodes: list[Episode] | None = None
        self._logs: dict[str, list[Turn]] = {}

    def facts(self) -> list[Fact]:
        if self._facts is None:
            self._facts = self.graph.facts()
        return self._facts

    def archived(self) -> list[Archived]:
        if self._archived is None:
            self._archived = self.graph.archived_facts()
        return self._archived

    def episodes(self) -> list[Episode]:
        if self._episodes is None:
            self._episodes = read_episodes(self.graph.store)
        return self._episodes

    def log(self, name: str) -> list[Turn]:
        """The turns of sessions/`name` (none when it is gone: `clean` removes old logs)."""
        if name not in self._logs:
            path = self.layout.sessions_dir / name
            _, contents = read_session(path)
            relative = f"sessions/{name}"
            self._logs[name] = [
                Turn.of_record(relative, number, record)
                for record, number in zip(contents.records, contents.line_numbers)
            ]
        return self._logs[name]

    def logs(self) -> list[str]:
        from ..storage.sessions import session_files

        return [path.name for path in session_files(self.layout)]

    def turn(self, source: str) -> Turn | None:
        """The turn a source cites: its log's line, or, the log gone, the turn as its
        episodes keep it."""
        match = SESSION_LINE.match(source)
        if match is None:
            return None
        name, line = match.group(1), int(match.group(2))
        found = next((turn for turn in self.log(name) if turn.line == line), None)
        if found is not None and found.text != FORGOTTEN_TEXT:
            return found
        parts = sorted(
            (episode for episode in self.episodes() if episode.source == source),
            key=lambda episode: episode.part,
        )
        if not parts:
            return None
        first = parts[0]
        role = "assistant" if first.speaker == "assistant" else "user"
        return Turn(
            f"sessions/{name}",
            line,
            parse_iso(first.ts),
            role,
            " ".join(episode.text for episode in parts),
            provenance=first.provenance,
        )


def session_sources(fact: Fact) -> list[str]:
    """The session log lines a fact was learned from or stated again in."""
    return [source for source in (fact.source, *fact.sources) if SESSION_LINE.match(source)]


def select(graph, selector: Selector, *, purge: bool = False) -> Selection:
    """Everything `selector` reaches in `graph`'s memory (read, never written)."""
    memory = WhatWasSaid(graph)
    chosen: dict[str, Fact] = {}
    chosen_archived: dict[str, Archived] = {}
    turns: dict[str, Turn] = {}
    selection = Selection(selector)

    def take_turn(source: str) -> None:
        if source not in turns:
            turn = memory.turn(source)
            if turn is not None:
                turns[source] = turn

    if selector.ids:
        active = {fact.id: fact for fact in memory.facts()}
        archive = {archived.fact.id: archived for archived in memory.archived()}
        for fact_id in selector.ids:
            if fact_id in active:
                chosen[fact_id] = active[fact_id]
            elif fact_id in archive and archive[fact_id].cause.code != "forgotten":
                chosen_archived[fact_id] = archive[fact_id]
            elif fact_id in archive and purge:
                selection.purge.append(archive[fact_id])
            elif fact_id not in archive:
                raise UnknownFactError(fact_id)
    else:
        for turn in _turns_selected(memory, selector, graph.settings):
            turns.setdefault(turn.source, turn)
        for fact in memory.facts():
            if _fact_selected(fact, selector, memory):
                chosen[fact.id] = fact
        for archived in memory.archived():
            if archived.cause.code != "forgotten" and _fact_selected(
                archived.fact, selector, memory
            ):
                chosen_archived[archived.fact.id] = archived
        if selector.query is not None:
            wanted = set(tokens(selector.query))
            for episode in memory.episodes():
                if wanted <= set(tokens(episode.text)) and selector.within(parse_iso(episode.ts)):
                    take_turn(episode.source)
    for fact in [*chosen.values(), *(archived.fact for archived in chosen_archived.values())]:
        for source in session_sources(fact):
            take_turn(source)

    forgotten_sources = set(turns)
    for fact in memory.facts():
        if fact.id in chosen:
            continue
        sources = session_sources(fact)
        cut = [source for source in sources if source in forgotten_sources]
        if not cut:
            continue
        if len(cut) == len(sources) and fact.source in forgotten_sources:
            chosen[fact.id] = fact
        else:
            selection.kept.add(fact.id)
    for archived in memory.archived():
        sources = session_sources(archived.fact)
        if (
            archived.cause.code != "forgotten"
            and sources
            and all(source in forgotten_sources for source in sources)
        ):
            chosen_archived.setdefault(archived.fact.id, archived)
    if purge:
        selection.purge += _forgotten_before(memory, selector, forgotten_sources, selection)
    selection.facts = list(chosen.values())
    selection.archived = list(chosen_archived.values())
    selection.turns = sorted(turns.values(), key=lambda turn: (turn.source_file, turn.line))
    selection.episodes = [e for e in memory.episodes() if e.source in forgotten_sources]
    return selection


def _forgotten_before(
    memory: WhatWasSaid, selector: Selector, forgotten: set[str], selection: Selection
) -> list[Archived]:
    """The facts forgotten before that a --purge reaches: those the selector names, those
    of the turns it takes, and those said in the same turns as either (a turn forgotten
    once took all its facts)."""
    if selector.ids:
        return []
    earlier = [
        archived
        for archived in memory.archived()
        if archived.cause.code == "forgotten" and not archived.purged
    ]
    named = [archived for archived in earlier if _fact_selected(archived.fact, selector, memory)]
    turns = forgotten | {source for archived in named for source in session_sources(archived.fact)}
    taken = {archived.fact.id for archived in selection.purge}
    return [
        archived
        for archived in earlier
        if archived.fact.id not in taken
        and (archived in named or set(session_sources(archived.fact)) & turns)
    ]


def cut_sources(fact: Fact, forgotten: set[str]) -> dict[str, Any]:
    """How `fact`, said in other turns too, changes (Fact.changed arguments) when the turns
    `forgotten` are left out of its sources: the first that stays becomes its source, and
    the context, the forgotten turn's words, goes; nothing when none of them is its."""
    sources = (fact.source, *fact.sources)
    remaining = [source for source in sources if source not in forgotten]
    if not remaining or len(remaining) == len(sources):
        return {}
    if fact.source not in forgotten:
        return {"sources": tuple(remaining[1:])}
    return {"source": remaining[0], "sources": tuple(remaining[1:]), "context": None}


def _fact_selected(fact: Fact, selector: Selector, memory: WhatWasSaid) -> bool:
    """Whether the selector itself names `fact`: by its words, who said it, and when it was
    said (a fact of no turn, remembered or proposed: when it was learned)."""
    if selector.timed and not _said_within(fact, selector, memory):
        return False
    if selector.query is not None:
        return set(tokens(selector.query)) <= set(tokens(f"{fact.sentence} {fact.object}"))
    if selector.sender is not None:
        return _is(fact.said_by.sender, selector.sender)
    if selector.session is not None:
        return False  # a session's facts are those of its turns
    return selector.timed and not session_sources(fact)  # a turn's facts come with it


def _said_within(fact: Fact, selector: Selector, memory: WhatWasSaid) -> bool:
    sources = session_sources(fact)
    if not sources:
        return selector.within(parse_iso(fact.created))
    turns = [memory.turn(source) for source in sources]
    return any(turn is not None and selector.within(turn.ts) for turn in turns)


def _turns_selected(memory: WhatWasSaid, selector: Selector, settings) -> list[Turn]:
    """The turns a session, sender or span of time names (a query names facts and
    episodes, which name their turns)."""
    if selector.query is not None:
        return []
    names = memory.logs()
    if selector.session is not None:
        wanted = PurePath(selector.session).name
        if SESSION_NAME.match(wanted):
            names = [name for name in names if name == wanted]
            return [t for name in names for t in memory.log(name) if _said(t, selector)]
        ids = _openclaw_sessions(settings, selector.session)
        return [
            turn
            for name in names
            for turn in memory.log(name)
            if turn.origin and _origin_session(turn.origin) in ids and _said(turn, selector)
        ]
    found = []
    for name in names:
        for turn in memory.log(name):
            if turn.text == FORGOTTEN_TEXT or not _said(turn, selector):
                continue
            if selector.sender is not None and not (
                _is(turn.said_by.sender, selector.sender) or _is(turn.speaker, selector.sender)
            ):
                continue
            found.append(turn)
    return found


def _said(turn: Turn, selector: Selector) -> bool:
    return turn.text != FORGOTTEN_TEXT and selector.within(turn.ts)


def _is(name: str | None, wanted: str) -> bool:
    return name is not None and name.casefold() == wanted.casefold()


def _origin_session(origin: str) -> str:
    """The session id of an origin openclaw:<agent>/<session>#<seq>."""
    return origin.split("/", 1)[-1].rsplit("#", 1)[0]


def _openclaw_sessions(settings, named: str) -> set[str]:
    """The OpenClaw session ids `named` stands for: itself, and the sessions whose key it
    is in the transcripts of the OpenClaw set-up (when one is configured)."""
    ids = {named}
    if not settings.openclaw_state_dir:
        return ids
    from ..openclaw.transcripts import session_ids_of_key

    return ids | session_ids_of_key(Path(settings.openclaw_state_dir), named)


def preview_files(selection: Selection, layout, memory_md_ids: set[str]) -> list[str]:
    """The files a forget of `selection` changes, relative to the data directory."""
    files: set[str] = set()
    if selection.facts or selection.kept:
        files.add(layout.relative(layout.facts))
    if selection.facts or selection.archived or selection.purge:
        files.add(layout.relative(layout.archive))
    for turn in selection.turns:
        if (layout.root / turn.source_file).exists():
            files.add(turn.source_file)
    if selection.turns:
        files.add(layout.relative(layout.forgotten))
    for episode in selection.episodes:
        files.add(f"episodes/{_day_of_episode(episode)}.jsonl")
    if memory_md_ids & {fact.id for fact in selection.facts}:
        files.add(layout.relative(layout.memory_md))
    return sorted(files)


def _day_of_episode(episode: Episode) -> str:
    match = SESSION_LINE.match(episode.source)
    named = SESSION_NAME.match(match.group(1)) if match else None
    return named.group(1) if named else episode.ts[:10]
