"""The actions that change what the memory holds: init, remember, propose and review,
summarize, forget, pin and unpin, config; and the reading of their input files."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date
from typing import BinaryIO

from ..clock import format_iso
from ..config import set_setting
from ..errors import (
    InvalidInputError,
    UsageError,
)
from ..memory import Memory
from ..model.fact import Fact
from ..model.provenance import AGENT_SAID, OWNER_SAID, Provenance
from ..progress import progress_bar
from .context import Output


def action_init(args, memory: Memory) -> Output:
    report = memory.init()
    lines = (
        [f"Initialized {report.root}: created {', '.join(report.created)}"]
        if report.created
        else [f"Already initialized: {report.root}"]
    )
    return Output({"data_path": str(report.root), "created": report.created}, lines)


@dataclass
class _FactsGiven:
    """The facts of a remember or propose command line, checked, with what was redacted;
    `lines` holds the input line of each fact given with --from (None for the flags)."""

    facts: list[Fact]
    redactions: int
    where: str
    lines: list[int | None]


def _given_facts(
    args,
    memory: Memory,
    *,
    default_source: str | None,
    extra: dict | None = None,
    provenance: Provenance = OWNER_SAID,
) -> _FactsGiven:
    """The facts given by --subject/--predicate/--object and the other flags, or by --from,
    said by whom `provenance` names (the owner, who runs the command or asks the agent to).

    `extra` fields (a proposal's confidence) go into the flags' fact, and into each --from
    line that does not set them itself.
    """
    from ..intake import candidate_fact, facts_from_jsonl

    created = format_iso(memory.now)
    single = [args.subject, args.predicate, args.object]
    if args.from_file is not None:
        per_fact = single + [args.text, args.importance, args.category, args.pin or None]
        if any(value is not None for value in per_fact):
            raise UsageError(
                "--from takes facts from a file; give subject, predicate, object, "
                "text, importance, category and pinned in its lines, not as flags"
            )
        with open_input(args.from_file) as (stream, name):
            batch = facts_from_jsonl(
                stream,
                name,
                created=created,
                default_source=default_source,
                defaults=extra,
                provenance=provenance,
            )
        return _FactsGiven(batch.facts, batch.redactions, name, list(batch.lines))
    missing = [
        flag
        for flag, value in zip(("--subject", "--predicate", "--object"), single)
        if value is None
    ]
    if missing:
        raise UsageError(f"{args.action} needs {', '.join(missing)} (or --from FILE)")
    fields = {
        "subject": args.subject,
        "predicate": args.predicate,
        "object": args.object,
        **(extra or {}),
    }
    for key in ("source", "text", "category", "importance"):
        if getattr(args, key) is not None:
            fields[key] = getattr(args, key)
    if args.pin:
        fields["pinned"] = True
    fact, redactions = candidate_fact(
        fields,
        created=created,
        default_source=default_source or "user-stated",
        source="arguments",
        provenance=provenance,
    )
    return _FactsGiven([fact], redactions, "arguments", [None])


def action_remember(args, memory: Memory) -> Output:
    given = _given_facts(
        args, memory, default_source=(args.source if args.from_file is not None else "user-stated")
    )
    candidates, redactions = given.facts, given.redactions
    report = memory.remember(candidates, redactions=redactions)
    payload = {
        "added": len(report.added),
        "reinforced": len(report.reinforced),
        "superseded": [{"old": old, "new": new} for old, new in report.superseded],
        "ids": [candidate.id for candidate in candidates],
        "redactions": redactions,
    }
    if len(candidates) == 1:
        status = "new" if report.added else "reinforced" if report.reinforced else "already known"
        stored = report.stored[0]
        lines = [f"Remembered {stored.id} ({status}): {stored.sentence}"]
    else:
        lines = [
            f"Remembered {len(candidates)} facts: {len(report.added)} new, "
            f"{len(report.reinforced)} reinforced, {len(report.superseded)} superseding "
            "an older fact"
        ]
    lines += [f"  {new} supersedes {old}" for old, new in report.superseded]
    if redactions:
        lines.append(f"  {redactions} secret(s) redacted before storing")
    return Output(payload, lines)


def action_propose(args, memory: Memory) -> Output:
    from ..proposals import DEFAULT_CONFIDENCE, check_confidence, check_proposer, proposed_by

    proposer = check_proposer(args.proposer)
    confidence = (
        DEFAULT_CONFIDENCE if args.confidence is None else check_confidence(args.confidence)
    )
    if args.actor == "cli":  # so that the audit log names the sub-agent that proposed
        memory.actor = proposed_by(proposer)
    given = _given_facts(
        args,
        memory,
        default_source=args.source or proposed_by(proposer),
        extra={"confidence": confidence},
        provenance=AGENT_SAID,  # an agent proposes; the owner's review decides
    )
    proposals, report = memory.propose(
        given.facts,
        given.lines,
        proposer=proposer,
        where=given.where,
        redactions=given.redactions,
    )
    payload = {
        "proposer": proposer,
        "proposed": [proposal.id for proposal in report.proposed],
        "already_pending": [proposal.id for proposal in report.already_pending],
        "ids": [proposal.id for proposal in proposals],
        "fact_ids": [proposal.fact.id for proposal in proposals],
        "redactions": given.redactions,
    }
    if len(proposals) == 1:
        [proposal] = report.proposed or report.already_pending
        done = "Proposed" if report.proposed else "Already pending:"
        lines = [
            f"{done} {proposal.id} (confidence {proposal.confidence:g}): {proposal.fact.sentence}"
        ]
    else:
        lines = [
            f"Proposed {len(proposals)} facts: {len(report.proposed)} new, "
            f"{len(report.already_pending)} already pending"
        ]
    them = "it" if len(proposals) == 1 else "them"
    lines.append(
        f"  waiting for review (--action review); recall does not see {them} until accepted"
    )
    if given.redactions:
        lines.append(f"  {given.redactions} secret(s) redacted before storing")
    return Output(payload, lines)


def action_review(args, memory: Memory) -> Output:
    from ..proposals import check_proposer

    pending = memory.pending()
    if args.accept is None and args.reject is None and args.accept_all_from is None:
        view = pending.review_view()
        lines = [f"{len(view)} pending proposal(s):"] if view else ["No pending proposals."]
        for entry in view:
            proposal = entry.proposal
            lines.append(
                f"{proposal.id}  from {proposal.proposer} at {proposal.proposed_at}, "
                f"confidence {proposal.confidence:g}: {entry.text}"
            )
            if entry.known:
                lines.append(f"    already known as {proposal.fact.id}")
            if entry.would_supersede is not None:
                older_id, older_text = entry.would_supersede
                lines.append(f"    would supersede {older_id}: {older_text}")
        return Output({"pending": [entry.to_json() for entry in view]}, lines)
    if args.reject is not None:
        decisions = [pending.reject(args.reject)]
    elif args.accept is not None:
        decisions = [pending.accept(args.accept, memory.now)]
    else:
        name = check_proposer(args.accept_all_from, source="--accept-all-from")
        decisions = pending.accept_all_from(name, memory.now)
        if not decisions:
            return Output({"accepted": [], "rejected": []}, [f"No pending proposals from {name}."])
    payload: dict = {"accepted": [], "rejected": []}
    lines = []
    for decision in decisions:
        proposal = decision.proposal
        entry = {"proposal": proposal.id, "proposer": proposal.proposer, "fact": proposal.fact.id}
        if decision.remembered is None:
            payload["rejected"].append(entry)
            lines.append(
                f"Rejected {proposal.id} from {proposal.proposer}: {proposal.fact.sentence}"
            )
            continue
        remembered = decision.remembered
        stored = remembered.stored[0]
        status = (
            "new"
            if remembered.added
            else "reinforced"
            if remembered.reinforced
            else "already known, in the archive"
            if stored.id in remembered.archived
            else "already known"
        )
        entry.update(
            status=status,
            superseded=[{"old": old, "new": new} for old, new in remembered.superseded],
        )
        payload["accepted"].append(entry)
        lines.append(
            f"Accepted {proposal.id} from {proposal.proposer}: remembered "
            f"{stored.id} ({status}): {stored.sentence}"
        )
        lines += [f"  {new} supersedes {old}" for old, new in remembered.superseded]
    return Output(payload, lines)


def action_summarize(args, memory: Memory) -> Output:
    day = None
    if args.date is not None:
        try:
            if len(args.date) != 10:
                raise ValueError(args.date)
            day = date.fromisoformat(args.date).isoformat()
        except ValueError:
            raise UsageError(f"--date must be YYYY-MM-DD, got {args.date!r}") from None
    if args.agent is not None:
        report = _summarize_agent(memory, args.agent)
    else:
        with progress_bar() as bar:
            report = memory.summarize(day=day, all_pending=args.all_pending, progress=bar)
    payload = report.to_json()
    imported = (
        [f"Imported {report.imported_turns} OpenClaw turn(s) into {', '.join(report.imported)}"]
        if report.imported_turns
        else []
    )
    if not report.session_files:
        which = (
            f"nothing new of agent {args.agent}"
            if args.agent is not None
            else "pending"
            if args.all_pending
            else (day or memory.now.date().isoformat())
        )
        return Output(payload, imported + [f"No session logs to summarize ({which})."])
    lines = imported + [
        f"Summarized {len(report.session_files)} session log(s) of {', '.join(report.days)}: "
        f"{report.turns} turns, {report.fragments} fragments, {report.facts_extracted} facts "
        f"({report.added} new, {report.reinforced} reinforced, {report.superseded} "
        f"superseding an older fact) by {report.extractor}"
    ]
    if report.chatter:
        lines.append(
            f"  {report.chatter} fragment(s) of chatter or questions kept out of the "
            "facts (the session logs keep them)"
        )
    if report.redactions:
        lines.append(f"  {report.redactions} secret(s) redacted")
    lines += [f"  wrote {name}" for name in report.daily_written]
    lines += [f"  unchanged {name}" for name in report.daily_unchanged]
    return Output(payload, lines)


def _summarize_agent(memory: Memory, agent: str):
    """summarize --agent: the live path of the plugin's learn, from the command line."""
    from ..model.turn import OPENCLAW_ID

    if not OPENCLAW_ID.fullmatch(agent):
        raise UsageError(f"--agent must be an OpenClaw agent id, got {agent[:80]!r}")
    state_dir = memory.settings.openclaw_state_dir
    if not state_dir:
        raise UsageError(
            "summarize --agent reads OpenClaw's transcripts: set openclaw_state_dir first "
            "(config --set openclaw_state_dir=DIR)"
        )
    return memory.learn_agent(agent, state_dir)


def action_pin(args, memory: Memory) -> Output:
    pinned = args.action == "pin"
    fact, changed = memory.pin(args.fact_id, pinned)
    done = (
        ("Pinned" if pinned else "Unpinned")
        if changed
        else ("Already pinned:" if pinned else "Not pinned:")
    )
    return Output(
        {"id": fact.id, "pinned": pinned, "changed": changed},
        [f"{done} {fact.id}: {fact.sentence}"],
    )


def action_config(args, memory: Memory) -> Output:
    settings = memory.settings
    target = memory.config_path or memory.data_path / "config.yaml"
    if args.assignment is not None:
        key, sep, value = args.assignment.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--set takes KEY=VALUE, got {args.assignment!r}")
        if not target.is_file():
            raise InvalidInputError(
                "config file does not exist (run --action init)", source=str(target)
            )
        inside = memory.layout().exists() and target.parent == memory.data_path
        settings = set_setting(
            target,
            key.strip(),
            value,
            store=memory.store() if inside else None,
            data_dir=memory.data_path,
        )
        settings = replace(settings, data_path=str(memory.data_path))
    values = settings.as_dict()
    payload = {
        "config_file": str(target) if target.is_file() else None,
        "data_path": str(memory.data_path),
        "settings": values,
    }
    lines = [f"# {payload['config_file'] or 'defaults (no config file)'}"]
    lines += [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in values.items()]
    return Output(payload, lines)


@contextmanager
def open_input(name: str) -> Iterator[tuple[BinaryIO, str]]:
    if name == "-":
        yield sys.stdin.buffer, "-"
        return
    try:
        handle = open(name, "rb")
    except FileNotFoundError:
        raise InvalidInputError("file not found", source=name) from None
    except IsADirectoryError:
        raise InvalidInputError("is a directory, not a file", source=name) from None
    except PermissionError:
        raise InvalidInputError("permission denied", source=name) from None
    with handle:
        yield handle, name
