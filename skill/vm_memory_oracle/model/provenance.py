"""Who said a thing, and in what kind of session: set by code from what the host recorded,
never read from the words themselves.

An origin is one of a closed set:

- `owner`: the person the memory belongs to, in a session of theirs;
- `agent`: the assistant answering the owner, from the owner's words alone;
- `untrusted`: what came from outside: a web page, a file or a command's output the
  assistant repeated, another person in a group, another session's message, an email or
  webhook;
- `system`: scaffolding: a heartbeat poll, a cron preamble, the host's own context;
- `unknown`: a memory made before origins were kept, whose source can no longer be read.

Only `owner` and `agent` are trusted: they alone reach MEMORY.md and auto-recall. What
cannot be placed is `untrusted` when it came from outside and `system` when it is
scaffolding; it is never `owner` by default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

OWNER, AGENT, UNTRUSTED, SYSTEM, UNKNOWN = "owner", "agent", "untrusted", "system", "unknown"
ORIGINS = (OWNER, AGENT, UNTRUSTED, SYSTEM, UNKNOWN)
TRUSTED = frozenset({OWNER, AGENT})

# The kinds of session a turn was said in.
INTERACTIVE, HEARTBEAT, CRON, SUBAGENT, INTER_SESSION, HOOK = (
    "interactive",
    "heartbeat",
    "cron",
    "subagent",
    "inter_session",
    "hook",
)
SESSION_KINDS = (INTERACTIVE, HEARTBEAT, CRON, SUBAGENT, INTER_SESSION, HOOK)


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where one turn, fact or episode came from."""

    origin: str  # one of ORIGINS
    session: str = INTERACTIVE  # one of SESSION_KINDS
    chat: str | None = None  # direct, group, channel: the host's chat type
    channel: str | None = None  # telegram, discord, ...: the host's channel
    sender: str | None = None  # the sender's name or id, when it is not the owner
    group: str | None = None  # the group or channel chat it was said in (group_of)

    def __post_init__(self):
        if self.origin not in ORIGINS:
            raise ValueError(f"unknown origin {self.origin!r}")
        if self.session not in SESSION_KINDS:
            raise ValueError(f"unknown session kind {self.session!r}")

    @property
    def trusted(self) -> bool:
        """Whether it may reach MEMORY.md and be injected without being asked for."""
        return self.origin in TRUSTED

    @classmethod
    def of(cls, record: Any) -> Provenance | None:
        """The provenance a record holds (its JSON object), or None when it holds none or
        one that is not valid."""
        if not isinstance(record, dict):
            return None
        fields = {
            key: record.get(key)
            for key in ("origin", "session", "chat", "channel", "sender", "group")
        }
        if not all(value is None or isinstance(value, str) for value in fields.values()):
            return None
        if fields["session"] is None:
            fields["session"] = INTERACTIVE
        try:
            return cls(**fields)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return None

    def to_json(self) -> dict[str, str]:
        """Its JSON object, the unknown parts left out."""
        fields = {
            "origin": self.origin,
            "session": self.session,
            "chat": self.chat,
            "channel": self.channel,
            "sender": self.sender,
            "group": self.group,
        }
        return {key: value for key, value in fields.items() if value is not None}

    def describe(self) -> str:
        """In words, for a summary or a report: "untrusted: Alice, group on telegram"."""
        parts = [part for part in (self.sender, self.session) if part and part != INTERACTIVE]
        where = " on ".join(part for part in (self.chat, self.channel) if part)
        return f"{self.origin}: {', '.join([*parts, where] if where else parts)}".rstrip(": ")


OWNER_SAID = Provenance(OWNER)

GROUP_CHATS = frozenset(("group", "channel"))  # the host's chat types of a shared chat

# A session key of a group or channel chat: agent:<agent>:<channel>:group:<id> (OpenClaw
# 2026.9), its conversation part being the chat's identity. A forum topic or a thread of
# the chat is a session of its own (`:topic:<id>`, `:thread:<id>` after the chat), but its
# members are the chat's: it is the same group.
_GROUP_KEY = re.compile(
    r"agent:[^:]{1,128}:((?:[^:]{1,64}:)?(?:group|channel):.{1,256}?)"
    r"(?::(?:topic|thread):[^:]{1,128})*"
)


def group_of(session_key: object) -> str | None:
    """The group or channel chat a session key names ("telegram:group:-100", the same for
    its topics and threads), or None for a direct chat, the main session or a key that
    names none."""
    if not isinstance(session_key, str):
        return None
    match = _GROUP_KEY.fullmatch(session_key)
    return match.group(1) if match else None


@dataclass(frozen=True)
class Viewer:
    """Who a search answers: the session it is asked in (its group, None in a direct chat)
    and whether the owner's direct memories may be shown in a group."""

    group: str | None = None
    share_direct: bool = False

    def sees(self, provenance: Provenance | None) -> bool:
        """Whether a memory said as `provenance` says may be shown: everything in a direct
        chat; in a group, what was said in that group, and what was said in no group only
        when the owner allows it (another group's never, nor what may be another group's)."""
        if self.group is None:
            return True
        said_in = provenance.group if provenance is not None else None
        if said_in is not None:
            return said_in == self.group
        if provenance is not None and (
            provenance.chat in GROUP_CHATS or provenance.origin == UNKNOWN
        ):
            # A group's placed before the group was kept, or said where nobody knows: it may
            # be another group's.
            return False
        return self.share_direct


AGENT_SAID = Provenance(AGENT)


def by_role(role: str) -> Provenance:
    """The provenance of a session log's line that names none: the owner's when the user
    speaks, the agent's when the assistant does (a log another tool wrote is the owner's
    conversation), scaffolding otherwise."""
    if role == "user":
        return OWNER_SAID
    if role == "assistant":
        return AGENT_SAID
    return Provenance(SYSTEM)
