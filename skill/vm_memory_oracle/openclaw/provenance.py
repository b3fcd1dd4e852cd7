"""The provenance of each turn of an OpenClaw transcript, from what OpenClaw recorded.

OpenClaw 2026.9 records who spoke in three places, all written by its code, none by the
words of a message:

- the session's row of `session_windows`: its key (`agent:<id>:cron:<job>` for a cron
  run, `agent:<id>:subagent:<id>` for a sub-agent's own session), its chat type and
  channel, and for a webhook or mail run the external source (`hook_external_content_source`);
- a user message's `provenance` (`internal_system` for a heartbeat poll or a cron wake,
  with the tool that sent it; `inter_session` for another session's message) and its
  `__openclaw.senderIsOwner`, with the sender's id and name;
- the tool results of a turn (`role: toolResult`): what the assistant says after one in
  the same turn may repeat what a tool read, fetched or ran.

A turn is the user message and what follows it up to the next user message. Its user
message decides its origin: the owner's (senderIsOwner, or a direct chat that names no
sender), someone else's (`untrusted`: another sender, another session, a hook's session),
or scaffolding (`system`: a heartbeat, a cron run, a sub-agent's own session). The
assistant answering the owner is `agent` until a tool result comes (the memory's own
tools aside), and `untrusted` from then to the end of the turn; answering anyone else it
takes their origin. The state a session's reading ends in (TurnState) is kept with the
import ledger, so a turn read over two runs is placed as one.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..model.provenance import (
    AGENT,
    CRON,
    HEARTBEAT,
    HOOK,
    INTER_SESSION,
    INTERACTIVE,
    OWNER,
    SUBAGENT,
    SYSTEM,
    UNTRUSTED,
    Provenance,
    group_of,
)

SESSIONS_TABLE = "session_windows"
SESSION_COLUMNS = ("session_id", "session_key", "chat_type", "channel")
# The memory's own tools: what they return is the memory's, not the outside's.
OWN_TOOLS = frozenset({"memory_search", "memory_get", "memory_forget"})
# The run id of an assistant message that answers a sub-agent's announced result.
ANNOUNCE_RUN = "announce:"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


@dataclass(frozen=True)
class SessionInfo:
    """What OpenClaw's session row says of one session (all None when it has none)."""

    key: str | None = None
    chat: str | None = None
    channel: str | None = None
    hook_source: str | None = None
    spawned: bool = False

    @property
    def kind(self) -> str:
        """The kind of session: a hook's (webhook, mail), a sub-agent's own, a cron run's, or
        an interactive one (which heartbeats and cron wakes visit, turn by turn)."""
        key = self.key or ""
        if self.hook_source:
            return HOOK
        if self.spawned or ":subagent:" in key:
            return SUBAGENT
        if ":cron:" in key:
            return CRON
        return INTERACTIVE


@dataclass(frozen=True)
class Admission:
    """Which sessions are never learned, by what their row says: a channel (telegram), a
    chat type (group) or a hook source (gmail, webhook), as the settings exclude_channels,
    exclude_chat_types and exclude_hook_sources name them (compared without case)."""

    channels: frozenset[str] = frozenset()
    chat_types: frozenset[str] = frozenset()
    hook_sources: frozenset[str] = frozenset()

    @classmethod
    def of(cls, settings: Any) -> Admission:
        return cls(
            frozenset(settings.exclude_channels),
            frozenset(settings.exclude_chat_types),
            frozenset(settings.exclude_hook_sources),
        )

    def refusal(self, info: SessionInfo) -> str | None:
        """Why a session is left out ("channel telegram"), or None when it is learned."""
        for what, value, names in (
            ("channel", info.channel, self.channels),
            ("chat type", info.chat, self.chat_types),
            ("hook source", info.hook_source, self.hook_sources),
        ):
            if value and value.lower() in names:
                return f"{what} {value.lower()}"
        return None


@dataclass
class TurnState:
    """Where the reading of one session stopped: the provenance of the turn under way (None
    before its first user message) and whether a tool result came in it."""

    turn: Provenance | None = None
    tainted: bool = False

    @classmethod
    def of(cls, record: Any) -> TurnState:
        if not isinstance(record, dict):
            return cls()
        return cls(Provenance.of(record.get("provenance")), record.get("tainted") is True)

    def to_json(self) -> dict[str, Any]:
        """Its JSON object (the import ledger's `turn` of a session): empty before a turn."""
        document: dict[str, Any] = {}
        if self.turn is not None:
            document["provenance"] = self.turn.to_json()
        if self.tainted:
            document["tainted"] = True
        return document


@dataclass
class Classifier:
    """Places the messages of one session, read in order."""

    session: SessionInfo
    state: TurnState = field(default_factory=TurnState)
    problems: list[str] = field(default_factory=list)  # fields of the wrong type met

    def user(self, message: Mapping[str, Any]) -> Provenance:
        """The provenance of a user message, which begins a turn."""
        said = self._user(message)
        self.state = TurnState(said)
        return said

    def tool_result(self, message: Mapping[str, Any]) -> None:
        if message.get("toolName") not in OWN_TOOLS:
            self.state.tainted = True

    def assistant(self, message: Mapping[str, Any]) -> Provenance:
        """The provenance of what the assistant says at this point of the turn."""
        session = self.session
        meta = message.get("__openclaw")
        run = meta.get("runId") if isinstance(meta, dict) else None
        if isinstance(run, str) and run.startswith(ANNOUNCE_RUN):
            return self._placed(UNTRUSTED, INTER_SESSION)
        turn = self.state.turn
        if turn is None:
            turn = self._placed(*_default_of(session.kind))
        if turn.origin == OWNER:
            return replace(turn, origin=UNTRUSTED if self.state.tainted else AGENT)
        return turn

    def _user(self, message: Mapping[str, Any]) -> Provenance:
        kind = self.session.kind
        if kind != INTERACTIVE:
            return self._placed(*_default_of(kind))
        marked = message.get("provenance")
        if marked is not None:
            if not isinstance(marked, dict) or not isinstance(marked.get("kind"), str):
                return self._wrong("provenance")
            if marked["kind"] == "internal_system":
                tool = marked.get("sourceTool")
                return self._placed(SYSTEM, CRON if tool == "cron" else HEARTBEAT)
            if marked["kind"] == "inter_session":
                source = marked.get("sourceSessionKey")
                return self._placed(
                    UNTRUSTED, INTER_SESSION, sender=source if isinstance(source, str) else None
                )
        meta = message.get("__openclaw")
        if meta is not None and not isinstance(meta, dict):
            return self._wrong("__openclaw")
        meta = meta or {}
        owner = meta.get("senderIsOwner")
        if owner is not None and not isinstance(owner, bool):
            return self._wrong("__openclaw.senderIsOwner")
        if owner is True:
            return self._placed(OWNER, INTERACTIVE)
        if owner is False or self.session.chat not in (None, "direct"):
            return self._placed(UNTRUSTED, INTERACTIVE, sender=_sender(meta))
        return self._placed(OWNER, INTERACTIVE)  # a direct chat that names no other sender

    def _placed(self, origin: str, kind: str, *, sender: str | None = None) -> Provenance:
        session = self.session
        return Provenance(
            origin, kind, session.chat, session.channel, sender, group_of(session.key)
        )

    def _wrong(self, name: str) -> Provenance:
        where = self.session.key or "a session"
        self.problems.append(f"{where}: {name} of the wrong type; read as untrusted")
        return self._placed(UNTRUSTED, self.session.kind)


def _default_of(kind: str) -> tuple[str, str]:
    """The origin of every turn of a session of this kind that is not interactive (and of an
    assistant message before any user message)."""
    if kind == HOOK:
        return UNTRUSTED, HOOK
    if kind in (CRON, SUBAGENT):
        return SYSTEM, kind
    return AGENT, INTERACTIVE


def _sender(meta: dict) -> str | None:
    """The sender's name as OpenClaw recorded it (else their user name, else id), on one
    line."""
    for key in ("senderName", "senderUsername", "senderId"):
        value = meta.get(key)
        if isinstance(value, str):
            value = _CONTROL.sub(" ", value).strip()[:256].strip()
            if value:
                return value
    return None


def read_sessions(connection: sqlite3.Connection) -> dict[str, SessionInfo]:
    """What `session_windows` says of each session, by session id (nothing when the
    database has no such table: every session is then read as interactive)."""
    columns = {row[1] for row in connection.execute(f"PRAGMA table_info({SESSIONS_TABLE})")}
    if not set(SESSION_COLUMNS) <= columns:
        return {}
    optional = [
        name if name in columns else "NULL"
        for name in ("hook_external_content_source", "spawned_by", "parent_session_key")
    ]
    rows = connection.execute(
        f"SELECT session_id, session_key, chat_type, channel, {', '.join(optional)} "
        f"FROM {SESSIONS_TABLE}"
    )
    sessions = {}
    for session_id, key, chat, channel, hook, spawned_by, parent in rows:
        if not isinstance(session_id, str):
            continue
        sessions[session_id] = SessionInfo(
            _text(key), _text(chat), _text(channel), _text(hook), bool(spawned_by or parent)
        )
    return sessions


def _text(value: object) -> str | None:
    return value[:256] if isinstance(value, str) and value else None
