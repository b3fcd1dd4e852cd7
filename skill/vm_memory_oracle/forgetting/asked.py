"""A forget asked for by a caller other than a person at the command line: the recall
process's `forget` request (serve.py), which the OpenClaw plugin's memory_forget sends.

The request names what to forget as forget's options do (`ids`, `query`, `session`,
`sender`, `since`, `until`) and previews it unless `confirm` is true; its answer is what
`forget --json` prints. It is the owner's alone: a request asked in a group or channel chat
(its `sessionKey`, openclaw/visibility.py), or in a session whose sender is not the owner
(`senderIsOwner` not true), is refused and changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import InvalidInputError
from .carry import Forgot
from .selection import Selector

if TYPE_CHECKING:
    from ..memory import Memory

_NAMED = ("query", "session", "sender", "since", "until")


def payload(done: Forgot, previewing: bool) -> dict[str, Any]:
    """What a forget did (or, previewing, would do), as `forget --json` prints it."""
    answer = {
        "selector": done.selector.describe(),
        "dry_run": previewing,
        "forget": done.forget,
        "facts": done.facts,
        "archived": done.archived,
        "kept": done.kept,
        "turns": done.turns,
        "episodes": done.episodes,
        "purged": done.purged,
        "files": done.files,
        "warnings": done.warnings,
    }
    if done.finished_earlier:
        answer["finished_earlier"] = done.finished_earlier
    if len(done.selector.ids) == 1 and not previewing and done.at:
        # as forget --id has always said it
        answer.update(
            forgotten=done.selector.ids[0], archived_at=done.at, archive_reason=done.reason
        )
    return answer


def owners(request: dict[str, Any], settings: Any) -> None:
    """Nothing when the request may forget, else the refusal naming the key at fault: a
    forget asked in a group or channel chat, or for a sender who is not the owner."""
    from ..openclaw.visibility import viewer_of

    viewer = viewer_of(request, settings)
    if viewer.group is not None:
        raise InvalidInputError(
            f"sessionKey {request['sessionKey'][:120]!r} is a group chat: only the owner may "
            "forget, in their own chat; nothing was forgotten",
            key="sessionKey",
        )
    owner = request.get("senderIsOwner")
    if owner is not None and not isinstance(owner, bool):
        raise InvalidInputError(
            f"senderIsOwner must be true or false, got {owner!r}", key="senderIsOwner"
        )
    if owner is False or (owner is None and request.get("sessionKey") is not None):
        raise InvalidInputError(
            "senderIsOwner is not true: only the owner may forget; nothing was forgotten",
            key="senderIsOwner",
        )


def selector_of(request: dict[str, Any]) -> Selector:
    """The selector a request names, or the error naming the field at fault."""
    ids = request.get("ids")
    if ids is None:
        ids = []
    if not isinstance(ids, list) or not all(isinstance(ident, str) for ident in ids):
        raise InvalidInputError(f"ids must be a list of fact ids, got {ids!r:.120}", key="ids")
    named: dict[str, str | None] = {}
    for key in _NAMED:
        value = request.get(key)
        if value is not None and not isinstance(value, str):
            raise InvalidInputError(f"{key} must be a string, got {value!r:.120}", key=key)
        named[key] = value
    return Selector.of_options(ids, **named)


def forget_asked(memory: Memory, request: dict[str, Any]) -> dict[str, Any]:
    """The answer to a forget request: the preview, or with `confirm` true the forget."""
    confirm = request.get("confirm", False)
    if not isinstance(confirm, bool):
        raise InvalidInputError(f"confirm must be true or false, got {confirm!r}", key="confirm")
    owners(request, memory.settings)
    selector = selector_of(request)
    done = memory.forget(selector, reason=_reason(request), dry_run=not confirm)
    return payload(done, not confirm)


def _reason(request: dict[str, Any]) -> str | None:
    reason = request.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise InvalidInputError(f"reason must be a string, got {reason!r:.120}", key="reason")
    return reason
