"""forget: what a selector reaches, previewed, then forgotten (forgetting/)."""

from __future__ import annotations

from ..forgetting.asked import payload as _payload
from ..forgetting.carry import Forgot
from ..forgetting.selection import Selector
from ..memory import Memory
from .context import Output

SHOWN_CHARS = 100  # of an episode's text, in a preview's line


def action_forget(args, memory: Memory) -> Output:
    """--id forgets at once (an id is exact); a query, a session, a sender or a span of
    time is previewed until --yes; --dry-run previews any."""
    selector = Selector.of_options(
        args.fact_ids or (),
        args.query,
        args.session,
        args.sender,
        args.since,
        args.until,
    )
    previewing = args.dry_run or (not selector.ids and not args.yes)
    done = memory.forget(selector, reason=args.reason, purge=args.purge, dry_run=previewing)
    payload = _payload(done, previewing)
    if done.nothing:
        return Output(
            payload,
            [f"Nothing to forget: no fact, episode or session line matches {selector.describe()}"],
        )
    layout = memory.layout()
    lines = [_headline(done, previewing)]
    lines += [f"  {fact['id']}  {fact['text']}" for fact in done.facts]
    lines += [f"  {fact_id}  (archived, made forgotten)" for fact_id in done.archived]
    lines += [
        f"  {episode['id']}  {episode['source']}  {_opening(episode['text'])}"
        for episode in done.episodes
    ]
    lines += [f"  {fact_id}  (purged)" for fact_id in done.purged]
    if done.files:
        lines.append(("Would change: " if previewing else "Changed: ") + ", ".join(done.files))
    if previewing and not args.dry_run:
        lines.append("Nothing is forgotten yet: run again with --yes to forget these.")
    elif not previewing:
        archive = layout.relative(layout.archive)
        lines.append(
            f"The archive ({archive}) keeps their facts as tombstones, no word of them."
            if args.purge
            else f"The archive ({archive}) still keeps their facts, never searched; "
            "--purge erases them there too."
        )
    if done.finished_earlier:
        lines.append(f"First finished the forget {done.finished_earlier}, which was interrupted.")
    return Output(payload, lines + [f"warning: {warning}" for warning in done.warnings])


def _headline(done: Forgot, previewing: bool) -> str:
    counts = (
        f"{len(done.facts)} fact(s), {len(done.episodes)} episode(s) and "
        f"{len(done.turns)} session line(s)"
    )
    if done.archived:
        counts += f", {len(done.archived)} archived fact(s)"
    if done.purged and not (done.facts or done.archived or done.turns or done.episodes):
        verb = "Would purge" if previewing else "Purged"
        return f"{verb} {len(done.purged)} fact(s) forgotten before ({done.selector.describe()}):"
    verb = "Would forget" if previewing else "Forgot"
    return f"{verb} {counts} ({done.selector.describe()}):"


def _opening(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"
