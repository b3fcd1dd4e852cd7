"""Who may hear a memory: what the recall process shows in the session a request comes from.

The plugin names the session it asks in (`sessionKey`). In a direct chat, or with no
session named (the command line: the owner at the machine), everything is shown. In a group
or channel chat (model/provenance.group_of), a memory said in that group is shown; one said
in no group (the owner's direct chats, a session log of their own, the command line) only
when `share_direct_memories_in_groups` allows it, off by default as OpenClaw keeps
MEMORY.md out of groups; another group's never, nor MEMORY.md and the daily summaries,
which gather every chat's. Auto-recall asks for trusted memories only (`trustedOnly`): what
the owner or the agent said.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..errors import InvalidInputError
from ..model.provenance import Provenance, Viewer, group_of


def viewer_of(request: dict, settings: Any) -> Viewer:
    """The viewer a request names (its `sessionKey`), or an error naming the key."""
    key = request.get("sessionKey")
    if key is not None and not isinstance(key, str):
        raise InvalidInputError(f"sessionKey must be a string, got {key!r}", key="sessionKey")
    return Viewer(group_of(key), settings.share_direct_memories_in_groups)


def trusted_only(request: dict) -> bool:
    value = request.get("trustedOnly", False)
    if not isinstance(value, bool):
        raise InvalidInputError(
            f"trustedOnly must be true or false, got {value!r}", key="trustedOnly"
        )
    return value


def shown_to(request: dict, settings: Any) -> Callable[[Provenance | None], bool] | None:
    """Which memories a search request may be answered with, by who said them (None: all):
    those its session may see, and with `trustedOnly` only what the owner or the agent said
    (a turn of a log that records no origin is the owner's)."""
    viewer = viewer_of(request, settings)
    trusted = trusted_only(request)
    if viewer.group is None and not trusted:
        return None

    def shown(provenance: Provenance | None) -> bool:
        return viewer.sees(provenance) and (not trusted or provenance is None or provenance.trusted)

    return shown


def visible_lines(viewer: Viewer, path: str, text: str) -> str:
    """The lines of a file of the memory `viewer` may see, read from the first: a session
    log's or the facts' lines up to the first said where it may not hear (so the line
    numbers stay those asked for), the owner's notes only when the owner shares them, and
    MEMORY.md and the daily summaries never in a group: they gather every chat's memories,
    other groups' among them. Refused when not even the first line may be seen."""
    if viewer.group is None:
        return text
    if path.startswith("sessions/") or path == "knowledge-graph/facts.jsonl":
        shown: list[str] = []
        for line in text.split("\n"):
            if line.strip() and not viewer.sees(_provenance_of(line)):
                break
            shown.append(line)
        if shown or not text:
            return "\n".join(shown)
    elif viewer.share_direct and not _gathered(path):
        return text
    raise InvalidInputError("not shown in this group chat", source=path)


def _gathered(path: str) -> bool:
    """Whether a file of the memory is written from every chat's memories."""
    return path == "MEMORY.md" or path.startswith("daily/")


def _provenance_of(line: str) -> Provenance | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    marked = record.get("provenance") if isinstance(record, dict) else None
    return None if marked is None else Provenance.of(marked)
