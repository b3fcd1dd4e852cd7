"""The command line: parse, call one library function, print, map errors to exit codes.

This is the only module that prints. Everything it does, a test can do by calling the
library directly.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from . import __version__
from .clock import format_iso, parse_iso, utc_now
from .config import Settings, check_embedding_model, load_settings, set_setting
from .errors import (
    EXIT_DEGRADED,
    EXIT_FAILURE,
    EXIT_INVALID_INPUT,
    EXIT_OK,
    EXIT_STORAGE,
    EXIT_UNHEALTHY,
    EXIT_USAGE,
    STORAGE_ERRNOS,
    DataDirError,
    InvalidInputError,
    OracleError,
    UsageError,
)
from .model.fact import CATEGORIES, Fact
from .progress import progress_bar
from .storage.layout import Layout

if TYPE_CHECKING:
    from .semantic import Semantic
    from .storage.store import Store

DATA_PATH_ENV = "MEMORY_ORACLE_DATA_PATH"
NOW_ENV = "MEMORY_ORACLE_NOW"  # the default of --now: a replay, a demo or a test at one time
CONFIG_ENV = "MEMORY_ORACLE_CONFIG"
_SURROGATE = re.compile("[\ud800-\udfff]")

ACTIONS = {
    "init": "create the data directory, config.yaml, canaries and MEMORY.md (idempotent)",
    "remember": "store facts: one from --subject/--predicate/--object, or JSONL --from FILE|-",
    "summarize": "extract facts from a day's session logs (--date, default today; or --all) "
    "and write daily/YYYY-MM-DD.md",
    "recall": "find facts for --query TEXT (or JSONL --queries FILE) and boost them",
    "forget": "move the fact --id FACT_ID to the archive",
    "pin": "put the fact --id FACT_ID in the vault: it never decays, is never pruned, and "
    "comes first in MEMORY.md as far as its budget allows",
    "unpin": "take the fact --id FACT_ID out of the vault: it decays like any other again",
    "propose": "a sub-agent proposes facts (as remember takes them, plus --proposer NAME); "
    "they wait, unseen by recall, for review",
    "review": "list the pending proposals, or --accept ID, --reject ID, --accept-all-from NAME",
    "reindex": "rebuild the semantic index from the facts (embeddings are reused from cache)",
    "query": "run a jq program over the active facts (with live activation)",
    "consolidate": "the nightly pipeline: summarize, decay, index, merge, stale, prune, "
    "MEMORY.md, clean, health; prints and keeps a report (--dry-run: report "
    "only)",
    "health-check": "write health.json and print the status (--strict: exit 6 if degraded, "
    "7 if unhealthy)",
    "quality-probe": "ask recall each canary of knowledge-graph/canary-facts.json, log the "
    "accuracy, update health.json",
    "config": "show the settings in force, or change one with --set KEY=VALUE",
    "serve": "answer recall and reads as JSON lines on stdin until it closes (the process "
    "the OpenClaw plugin keeps up; see references/openclaw.md)",
}

EXIT_CODES = """exit codes:
  0  success
  1  anything else (an unexpected failure)
  2  usage: unknown action, missing or conflicting options
  3  invalid input: a malformed fact, query, config value or file (nothing is written)
  4  lock timeout: another process held the data directory's lock too long
  5  data directory problem: missing, not writable, a symlink, owned by another user or
     writable by others; or a file the command needs inside it is one of those
  6  health-check --strict: the memory is degraded (see the warnings)
  7  health-check --strict: the memory is unhealthy
  8  storage: the disk refused a write (full, read-only, I/O error); fix it and retry"""


def _global_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--action", choices=list(ACTIONS), metavar="ACTION", help="one of: " + ", ".join(ACTIONS)
    )
    parser.add_argument(
        "--data-path",
        metavar="DIR",
        help=f"data directory (else ${DATA_PATH_ENV}, else the config's "
        "data_path, else /data/memory)",
    )
    parser.add_argument(
        "--config", metavar="FILE", help=f"settings file (else ${CONFIG_ENV}, else DIR/config.yaml)"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--now",
        metavar="ISO-8601",
        help=f"the time to act at (tests, replaying old logs); default: ${NOW_ENV}, else now",
    )
    parser.add_argument(
        "--actor",
        default="cli",
        metavar="NAME",
        help="who is acting, for the audit log (cron jobs pass --actor cron)",
    )
    parser.add_argument("--version", action="version", version=f"vm-memory-oracle {__version__}")


def _action_options(parser: argparse.ArgumentParser, action: str) -> None:
    group = parser.add_argument_group(f"{action} options")
    if action in ("remember", "propose"):
        group.add_argument("--subject", help="who or what the fact is about, e.g. user")
        group.add_argument("--predicate", help="the relation, e.g. lives_in or 'prefers'")
        group.add_argument("--object", help="the value, e.g. Berlin")
        group.add_argument(
            "--source",
            help="provenance (default: "
            + (
                "user-stated)"
                if action == "remember"
                else "subagent:NAME); the proposer and the proposal's id are added to it"
            ),
        )
        group.add_argument(
            "--importance",
            type=_finite_number,
            metavar="X",
            help="0-1; important facts decay slower (default: from --category)",
        )
        group.add_argument("--category", choices=CATEGORIES, help="kind of fact")
        group.add_argument("--text", help="the fact as one natural sentence")
        group.add_argument("--pin", action="store_true", help="never decay, never prune")
        group.add_argument(
            "--from",
            dest="from_file",
            metavar="FILE|-",
            help="JSONL, one fact object a line (subject, predicate, object, ...)",
        )
    if action == "propose":
        group.add_argument(
            "--proposer",
            required=True,
            metavar="NAME",
            help="the sub-agent proposing (a printable name, at most 48 characters)",
        )
        group.add_argument(
            "--confidence",
            type=_finite_number,
            metavar="X",
            help="0-1, how sure the proposer is (default: 0.5; a --from line may give its own)",
        )
    elif action == "review":
        which = group.add_mutually_exclusive_group()
        which.add_argument("--accept", metavar="ID", help="remember the proposal's fact")
        which.add_argument("--reject", metavar="ID", help="drop the proposal")
        which.add_argument(
            "--accept-all-from",
            metavar="NAME",
            help="accept every pending proposal of this proposer",
        )
    elif action == "summarize":
        which = group.add_mutually_exclusive_group()
        which.add_argument(
            "--date", metavar="YYYY-MM-DD", help="the day to summarize (UTC; default today)"
        )
        which.add_argument(
            "--all",
            dest="all_pending",
            action="store_true",
            help="every session log not summarized yet",
        )
    elif action == "recall":
        group.add_argument("--query", help="what to look for")
        group.add_argument(
            "--queries",
            metavar="FILE|-",
            help='JSONL, one {"query": ...} a line; prints one JSON line each',
        )
        group.add_argument(
            "--k", type=int, metavar="N", help="results per query (default: recall_k)"
        )
        group.add_argument(
            "--no-boost",
            action="store_true",
            help="do not raise the activation of what is returned",
        )
        group.add_argument(
            "--order",
            choices=["relevance", "activation"],
            default="relevance",
            help="relevance (default) or pure activation order (most active first)",
        )
    elif action == "forget":
        group.add_argument("--id", dest="fact_id", required=True, metavar="FACT_ID")
        group.add_argument("--reason", help="why, kept in the archive")
    elif action in ("pin", "unpin"):
        group.add_argument("--id", dest="fact_id", required=True, metavar="FACT_ID")
    elif action == "query":
        group.add_argument(
            "--jq",
            required=True,
            metavar="EXPR",
            help="jq program; its input is the array of active facts",
        )
    elif action == "consolidate":
        group.add_argument(
            "--dry-run",
            action="store_true",
            help="print what each step would change; write nothing",
        )
    elif action == "health-check":
        group.add_argument(
            "--strict",
            action="store_true",
            help="exit 6 when degraded, 7 when unhealthy (default: 0 either way)",
        )
        group.add_argument(
            "--repair",
            action="store_true",
            help="first repair what can be repaired safely (derived state, "
            "orphan state, invalid lines, modes), each an audit line",
        )
    elif action == "config":
        group.add_argument(
            "--set",
            dest="assignment",
            metavar="KEY=VALUE",
            help="change one setting in the config file, keeping its comments",
        )


def _finite_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def build_parser(action: str | None) -> argparse.ArgumentParser:
    actions = "\n".join(f"  {name:<9} {text}" for name, text in ACTIONS.items())
    parser = argparse.ArgumentParser(
        prog="vm-memory-oracle",
        usage="vm-memory-oracle [--data-path DIR] [--config FILE] [--json] [--now ISO-8601] "
        "[--actor NAME] "
        "--action ACTION [options]",
        description="Durable long-term memory for an agent, as plain local files.",
        epilog=f"actions (see --action ACTION --help):\n{actions}\n\n{EXIT_CODES}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _global_options(parser)
    if action in ACTIONS:
        _action_options(parser, action)
    return parser


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    peek = argparse.ArgumentParser(add_help=False)
    peek.add_argument("--action")
    known, _ = peek.parse_known_args(argv)
    parser = build_parser(known.action)
    args = parser.parse_args(argv)
    if args.action is None:
        parser.error("--action is required")
    return args


# -- context --------------------------------------------------------------------------------
@dataclass
class Context:
    settings: Settings
    data_path: Path
    config_path: Path | None
    now: datetime
    as_json: bool
    actor: str = "cli"
    action: str | None = None
    exit_code: int = EXIT_OK
    checked: bool = False  # the data directory passed Layout.check in this command
    refusals: list | None = None  # what that check refused inside (storage.layout.Refusal)
    _store: Store | None = field(default=None, repr=False)

    def layout(self):
        return Layout(self.data_path)

    def checked_layout(self):
        """The data directory's layout, checked once per command: Layout.check walks every
        entry, and resolve_context has usually done it before the config was read."""
        layout = self.layout()
        if not self.checked:
            self.refusals = layout.check()
            self.checked = True
        return layout

    def store(self):
        """One store per command, so its warnings reach the output whatever the action."""
        from .storage.store import Store

        if self._store is None:
            self._store = Store(
                self.layout(),
                lock_timeout=self.settings.lock_timeout_seconds,
                timestamp=format_iso(self.now),
                actor=self.actor,
                action=self.action,
                refusals=self.refusals if self.checked else None,
            )
        return self._store

    def warnings(self) -> list[str]:
        return list(self._store.warnings) if self._store is not None else []

    def graph(self, *, create: bool = False):
        from .graph import KnowledgeGraph

        if create and not self.layout().is_made():
            from .workspace import ensure_layout

            ensure_layout(
                self.layout(),
                actor=self.actor,
                at=format_iso(self.now),
                action=self.action or "init",
            )
        else:
            self.checked_layout()
        return KnowledgeGraph(self.store(), self.settings)


def resolve_context(args: argparse.Namespace, environ=os.environ) -> Context:
    """The time (--now, else $MEMORY_ORACLE_NOW, else the clock), settings and data path
    (--data-path, else $MEMORY_ORACLE_DATA_PATH, else the config, else the default)."""
    try:
        if args.now:
            now = parse_iso(args.now, what="--now")
        elif environ.get(NOW_ENV):
            now = parse_iso(environ[NOW_ENV], what=f"${NOW_ENV}")
        else:
            now = utc_now()
    except InvalidInputError as exc:
        raise UsageError(str(exc)) from None
    config_path = (
        Path(args.config or environ.get(CONFIG_ENV) or "")
        if (args.config or environ.get(CONFIG_ENV))
        else None
    )
    settings = load_settings(config_path) if config_path else Settings()
    explicit = args.data_path or environ.get(DATA_PATH_ENV)
    if explicit:
        data_path = Path(explicit)
    elif config_path:
        data_path = Path(settings.data_path)
    else:
        data_path = Path(Settings().data_path)
    checked = os.path.lexists(data_path)
    refusals, uncached = None, False
    if checked:
        # Before anything in it is read: its config.yaml could be a planted link.
        layout = Layout(data_path.expanduser().absolute())
        refusals = layout.check()
        refused = {refusal.path: refusal for refusal in refusals}
        for path in (layout.config, layout.state_dir):
            if path in refused:  # every command reads it: none can go on without it
                raise refused[path].error()
        uncached = layout.cache_dir in refused
    if config_path is None and (data_path / "config.yaml").is_file():
        # The data directory's own config sets everything but where the data directory is.
        config_path = data_path / "config.yaml"
        cache_dir = Layout(data_path).cache_dir
        # A dry run writes nothing, not even the settings' snapshot.
        cacheable = (
            cache_dir.parent.is_dir() and not getattr(args, "dry_run", False) and not uncached
        )
        settings = load_settings(config_path, cache_dir if cacheable else None)
    data_path = data_path.expanduser().absolute()
    if args.action != "config":  # config --set is how a refused name is put right
        check_embedding_model(settings, data_path, source=str(config_path or "defaults"))
    actor = args.actor.strip()
    if not actor or len(actor) > 64 or not actor.isprintable():
        raise UsageError(f"--actor must be a short printable name, got {args.actor!r}")
    return Context(
        replace(settings, data_path=str(data_path)),
        data_path,
        config_path,
        now,
        args.json,
        actor,
        args.action,
        checked=checked,
        refusals=refusals,
    )


# -- actions --------------------------------------------------------------------------------
def action_init(args, context: Context) -> tuple[dict, list[str]]:
    from .workspace import initialize

    report = initialize(context.layout(), actor=context.actor, at=format_iso(context.now))
    context.store().warnings.extend(
        f"{context.layout().relative(refusal.path)}: {refusal.problem}; left as it is "
        f"({refusal.fix})"
        for refusal in report.refused
    )
    lines = (
        [f"Initialized {report.root}: created {', '.join(report.created)}"]
        if report.created
        else [f"Already initialized: {report.root}"]
    )
    return {"data_path": str(report.root), "created": report.created}, lines


@dataclass
class _Given:
    """The facts of a remember or propose command line, checked, with what was redacted;
    `lines` holds the input line of each fact given with --from (None for the flags)."""

    facts: list[Fact]
    redactions: int
    where: str
    lines: list[int | None]


def _given_facts(
    args, context: Context, *, default_source: str | None, extra: dict | None = None
) -> _Given:
    """The facts given by --subject/--predicate/--object and the other flags, or by --from.

    `extra` fields (a proposal's confidence) go into the flags' fact, and into each --from
    line that does not set them itself.
    """
    from .intake import candidate_fact, facts_from_jsonl

    created = format_iso(context.now)
    single = [args.subject, args.predicate, args.object]
    if args.from_file is not None:
        per_fact = single + [args.text, args.importance, args.category, args.pin or None]
        if any(value is not None for value in per_fact):
            raise UsageError(
                "--from takes facts from a file; give subject, predicate, object, "
                "text, importance, category and pinned in its lines, not as flags"
            )
        with _open_input(args.from_file) as (stream, name):
            batch = facts_from_jsonl(
                stream, name, created=created, default_source=default_source, defaults=extra
            )
        return _Given(batch.facts, batch.redactions, name, list(batch.lines))
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
        fields, created=created, default_source=default_source or "user-stated", source="arguments"
    )
    return _Given([fact], redactions, "arguments", [None])


def _note_redactions(context: Context, redactions: int) -> None:
    if redactions:  # counted in the audit line of the write that follows
        context.store().note(
            f"redacted {redactions} secret(s) before storing", redactions=redactions
        )


def action_remember(args, context: Context) -> tuple[dict, list[str]]:
    given = _given_facts(
        args, context, default_source=(args.source if args.from_file is not None else "user-stated")
    )
    candidates, redactions = given.facts, given.redactions
    graph = context.graph(create=True)
    _note_redactions(context, redactions)
    report = graph.remember(candidates, context.now)
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
    return payload, lines


def action_propose(args, context: Context) -> tuple[dict, list[str]]:
    from .proposals import (
        DEFAULT_CONFIDENCE,
        check_confidence,
        check_proposer,
        propose_facts,
        proposed_by,
    )

    proposer = check_proposer(args.proposer)
    confidence = (
        DEFAULT_CONFIDENCE if args.confidence is None else check_confidence(args.confidence)
    )
    if args.actor == "cli":  # so that the audit log names the sub-agent that proposed
        context.actor = proposed_by(proposer)
    given = _given_facts(
        args,
        context,
        default_source=args.source or proposed_by(proposer),
        extra={"confidence": confidence},
    )
    graph = context.graph(create=True)
    _note_redactions(context, given.redactions)
    proposals, report = propose_facts(
        graph, given.facts, given.lines, proposer=proposer, where=given.where, now=context.now
    )
    payload = {
        "proposer": proposer,
        "proposed": [proposal["id"] for proposal in report.proposed],
        "already_pending": [proposal["id"] for proposal in report.already_pending],
        "ids": [proposal["id"] for proposal in proposals],
        "fact_ids": [proposal["fact"]["id"] for proposal in proposals],
        "redactions": given.redactions,
    }
    if len(proposals) == 1:
        [proposal] = report.proposed or report.already_pending
        done = "Proposed" if report.proposed else "Already pending:"
        lines = [
            f"{done} {proposal['id']} (confidence {proposal['confidence']:g}): "
            f"{_sentence(proposal['fact'])}"
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
    return payload, lines


def action_review(args, context: Context) -> tuple[dict, list[str]]:
    from .proposals import PendingMemories, check_proposer

    graph = context.graph()
    box = PendingMemories(graph)
    if args.accept is None and args.reject is None and args.accept_all_from is None:
        view = box.review_view()
        lines = [f"{len(view)} pending proposal(s):"] if view else ["No pending proposals."]
        for entry in view:
            lines.append(
                f"{entry['id']}  from {entry['proposer']} at {entry['proposed_at']}, "
                f"confidence {entry['confidence']:g}: {entry['text']}"
            )
            if entry["known"]:
                lines.append(f"    already known as {entry['fact']['id']}")
            if "would_supersede" in entry:
                older = entry["would_supersede"]
                lines.append(f"    would supersede {older['id']}: {older['text']}")
        return {"pending": view}, lines
    if args.reject is not None:
        decisions = [box.reject(args.reject)]
    elif args.accept is not None:
        decisions = [box.accept(args.accept, context.now)]
    else:
        name = check_proposer(args.accept_all_from, source="--accept-all-from")
        decisions = box.accept_all_from(name, context.now)
        if not decisions:
            return {"accepted": [], "rejected": []}, [f"No pending proposals from {name}."]
    payload: dict = {"accepted": [], "rejected": []}
    lines = []
    for decision in decisions:
        proposal = decision.proposal
        entry = {
            "proposal": proposal["id"],
            "proposer": proposal["proposer"],
            "fact": proposal["fact"]["id"],
        }
        if decision.remembered is None:
            payload["rejected"].append(entry)
            lines.append(
                f"Rejected {proposal['id']} from {proposal['proposer']}: "
                f"{_sentence(proposal['fact'])}"
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
            f"Accepted {proposal['id']} from {proposal['proposer']}: remembered "
            f"{stored.id} ({status}): {stored.sentence}"
        )
        lines += [f"  {new} supersedes {old}" for old, new in remembered.superseded]
    return payload, lines


def action_summarize(args, context: Context) -> tuple[dict, list[str]]:
    from dataclasses import asdict

    from .steps.summarize import summarize

    day = None
    if args.date is not None:
        try:
            if len(args.date) != 10:
                raise ValueError(args.date)
            day = date.fromisoformat(args.date).isoformat()
        except ValueError:
            raise UsageError(f"--date must be YYYY-MM-DD, got {args.date!r}") from None
    graph = context.graph(create=True)
    with progress_bar() as bar:
        report = summarize(
            graph,
            context.settings,
            context.now,
            day=day,
            all_pending=args.all_pending,
            progress=bar,
        )
    context.store().warnings.extend(report.warnings)
    payload = {key: value for key, value in asdict(report).items() if key != "warnings"}
    imported = (
        [f"Imported {report.imported_turns} OpenClaw turn(s) into {', '.join(report.imported)}"]
        if report.imported_turns
        else []
    )
    if not report.session_files:
        which = "pending" if args.all_pending else (day or context.now.date().isoformat())
        return payload, imported + [f"No session logs to summarize ({which})."]
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
    return payload, lines


def action_recall(args, context: Context) -> tuple[dict | list, list[str]]:
    from .intake import queries_from_jsonl
    from .recall import check_query, recall_many

    if (args.query is None) == (args.queries is None):
        raise UsageError("recall needs exactly one of --query TEXT or --queries FILE")
    if args.k is not None and not 1 <= args.k <= 1000:
        raise UsageError(f"--k must be from 1 to 1000, got {args.k}")
    if args.queries is not None:
        with _open_input(args.queries) as (stream, name):
            queries = queries_from_jsonl(stream, name)
        for item in queries:
            item["k"] = item["k"] or args.k
    else:
        queries = [{"query": args.query, "k": args.k}]
    for item in queries:  # before the index is brought up to date: a refusal writes nothing
        check_query(item["query"])
    graph = context.graph()
    semantic = _semantic(context, graph)
    result_sets = recall_many(
        graph,
        queries,
        context.now,
        boost=not args.no_boost,
        order=args.order,
        semantic=semantic.search,
    )
    if args.queries is not None:
        for result in result_sets:
            result.update(semantic.payload)
        return result_sets, [json.dumps(result, ensure_ascii=False) for result in result_sets]
    results = result_sets[0]["results"]
    result_sets[0].update(semantic.payload)
    lines = [
        f"{hit['score']:.3f}  {hit['id']}  {hit['speaker']} said: {hit['text']}  "
        f"({hit['said_at'][:10]}, source {hit['source']})"
        if hit.get("kind") == "episode"
        else f"{hit['score']:.3f}  {hit['id']}  {hit['text']}  "
        f"(activation {hit['activation']:.2f}, source {hit['source']})"
        for hit in results
    ]
    return result_sets[0], lines or ["No matching facts."]


@dataclass
class _SemanticState:
    search: Semantic | None
    payload: dict


def _semantic(context: Context, graph) -> _SemanticState:
    """The semantic side of recall, with its warnings: a fallback model, a repaired index."""
    from .semantic import semantic_search

    search, report, choice = semantic_search(graph, context.settings)
    store = context.store()
    if choice.note:
        store.warnings.append(choice.note)
    if report.repaired:
        store.warnings.append(
            f"vector index rebuilt: {report.rebuilt} "
            f"({report.vectors} vectors, {report.embedded} embedded)"
        )
    return _SemanticState(search, _embedder_payload(choice))


def _embedder_payload(choice) -> dict:
    """The embedder in use for --json output, and the fallback note when there was one."""
    payload = {"embedder": choice.embedder.model_id}
    if choice.note:
        payload["embedder_fallback"] = choice.note
    return payload


def _ivf_note(report) -> str:
    """How an approximate index searches, and how close to exact it was measured to be."""
    if report.index_kind != "ivf":
        return ""
    measured = "" if report.measured_recall is None else f", recall@10 {report.measured_recall:.3f}"
    return f" (IVF index: nprobe {report.nprobe}{measured})"


def action_reindex(args, context: Context) -> tuple[dict, list[str]]:
    from dataclasses import asdict

    from .lexical import update_text_index
    from .semantic import semantic_search

    graph = context.graph()
    graph.store.require([graph.layout.write_lock])  # its work is the indexes it writes
    with progress_bar() as bar:
        _, report, choice = semantic_search(graph, context.settings, force=True, progress=bar)
    if choice.note:
        context.store().warnings.append(choice.note)
    _, text = update_text_index(graph, force=True)
    if text.problem is not None:
        context.store().warnings.append(f"lexical recall is off: {text.problem}")
    episodes = report.episodes
    payload = {
        **{key: value for key, value in asdict(report).items() if key != "episodes"},
        **_embedder_payload(choice),
        "documents": text.documents,
        "episodes": episodes.episodes,
        "episodes_embedded": episodes.embedded,
    }
    return payload, [
        f"Rebuilt the semantic index with {report.model_id}: {report.vectors} "
        f"vectors, {report.embedded} embedded, {report.from_cache} from cache" + _ivf_note(report),
        f"Rebuilt the full-text index: {text.documents} documents",
        f"Rebuilt the episode index: {episodes.episodes} episodes, {episodes.embedded} embedded",
    ]


def action_forget(args, context: Context) -> tuple[dict, list[str]]:
    graph = context.graph()
    archived = graph.forget(args.fact_id, args.reason, context.now)
    payload = {
        "forgotten": archived["id"],
        "archived_at": archived["archived_at"],
        "archive_reason": archived["archive_reason"],
    }
    lines = [
        f"Forgot {archived['id']}: {_sentence(archived)} "
        f"(kept in {graph.layout.relative(graph.layout.archive)})"
    ]
    return payload, lines


def action_pin(args, context: Context) -> tuple[dict, list[str]]:
    pinned = args.action == "pin"
    fact, changed = context.graph().set_pinned(args.fact_id, pinned, context.now)
    done = (
        ("Pinned" if pinned else "Unpinned")
        if changed
        else ("Already pinned:" if pinned else "Not pinned:")
    )
    return (
        {"id": fact.id, "pinned": pinned, "changed": changed},
        [f"{done} {fact.id}: {fact.sentence}"],
    )


def action_query(args, context: Context) -> tuple[list, list[str]]:
    from .query import run_jq

    graph = context.graph()
    outputs = run_jq(graph, args.jq, context.now, timeout=context.settings.query_timeout_seconds)
    return outputs, [json.dumps(value, ensure_ascii=False) for value in outputs]


def action_config(args, context: Context) -> tuple[dict, list[str]]:
    settings = context.settings
    target = context.config_path or context.data_path / "config.yaml"
    if args.assignment is not None:
        key, sep, value = args.assignment.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--set takes KEY=VALUE, got {args.assignment!r}")
        if not target.is_file():
            raise InvalidInputError(
                "config file does not exist (run --action init)", source=str(target)
            )
        inside = context.layout().exists() and target.parent == context.data_path
        settings = set_setting(
            target,
            key.strip(),
            value,
            store=context.store() if inside else None,
            data_dir=context.data_path,
        )
        settings = replace(settings, data_path=str(context.data_path))
    values = settings.as_dict()
    payload = {
        "config_file": str(target) if target.is_file() else None,
        "data_path": str(context.data_path),
        "settings": values,
    }
    lines = [f"# {payload['config_file'] or 'defaults (no config file)'}"]
    lines += [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in values.items()]
    return payload, lines


def action_consolidate(args, context: Context) -> tuple[dict, list[str]]:
    from dataclasses import asdict

    from .consolidate import consolidate, dry_run

    layout = context.checked_layout()  # a missing data directory is an error, not made here
    if not args.dry_run and not layout.is_made():
        from .workspace import ensure_layout

        ensure_layout(layout, actor=context.actor, at=format_iso(context.now), action="consolidate")
    elif not layout.graph_dir.is_dir():
        raise DataDirError(layout.root, "not initialized (run --action init)")
    run = dry_run if args.dry_run else consolidate
    with progress_bar() as bar:
        report = run(layout, context.settings, context.now, actor=context.actor, progress=bar)
    context.store().warnings.extend(report.warnings)
    return {
        **asdict(report),
        "steps": [step.as_dict() for step in report.steps],
    }, consolidation_lines(report)


MAX_CHANGES_SHOWN = 50


def consolidation_lines(report) -> list[str]:
    """The consolidation report (steps/report.py); a dry run's lines say so each."""
    from .steps.report import render

    more = f"all in {report.report_file}" if report.report_file else "--json lists them all"
    lines = render(report, max_changes=MAX_CHANGES_SHOWN, more=more)
    if report.report_file:
        lines += ["", f"Written to {report.report_file}."]
    if report.dry_run:
        lines = ["No file was changed. Run without --dry-run to apply these changes.", "", *lines]
        return [f"[DRY RUN] {line}".rstrip() for line in lines]
    return lines


def action_health_check(args, context: Context) -> tuple[dict, list[str]]:
    from .steps.health import run_health_check

    layout = context.checked_layout()
    if not layout.state_dir.is_dir():
        raise DataDirError(layout.root, "not initialized (run --action init)")
    document, repaired = run_health_check(
        context.store(), context.settings, context.now, repair=args.repair
    )
    lines = [f"repaired: {finding.message}" for finding in repaired]
    lines += [
        f"{document['status']}: {document['active_facts']} active facts, "
        f"{document['archived_facts']} archived, MEMORY.md {document['memory_md_lines']} "
        f"lines, disk {document['disk_usage_percent']}% used (written to "
        f"{layout.relative(layout.health)})"
    ]
    lines += [f"  warning: {warning}" for warning in document["warnings"]]
    stale = document["stale_references"]
    lines += [
        f"  to review: {entry['fact']} names paths that are gone: {', '.join(entry['gone'])}"
        for entry in stale[:MAX_CHANGES_SHOWN]
    ]
    if len(stale) > MAX_CHANGES_SHOWN:
        lines.append(
            f"  ... and {len(stale) - MAX_CHANGES_SHOWN} more to review "
            "(health.json's stale_references lists them all)"
        )
    if args.strict and document["status"] != "healthy":
        context.exit_code = EXIT_DEGRADED if document["status"] == "degraded" else EXIT_UNHEALTHY
    return document, lines


def action_quality_probe(args, context: Context) -> tuple[dict, list[str]]:
    from .steps.health import run_health_check
    from .steps.probe import quality_probe

    graph = context.graph()
    semantic = _semantic(context, graph)
    record = quality_probe(
        graph, context.now, semantic=semantic.search, embedder_id=semantic.payload["embedder"]
    )
    document, _ = run_health_check(
        context.store(), context.settings, context.now, purpose="quality-probe: health"
    )
    if not record["total"]:
        return record, [
            f"No canaries in {graph.layout.relative(graph.layout.canaries)}: add "
            '[{"query": ..., "expected_contains": ...}] entries to measure recall'
        ]
    lines = [
        f"Quality probe: {record['passed']} of {record['total']} canaries passed "
        f"({record['accuracy']:.0%}); health {document['status']}"
    ]
    for failure in record["failures"]:
        top = "; ".join(failure["top"]) or "nothing"
        lines.append(
            f"  failed: {failure['query']!r} expected {failure['expected_contains']!r}, got: {top}"
        )
    return record, lines


HANDLERS = {
    "init": action_init,
    "remember": action_remember,
    "summarize": action_summarize,
    "recall": action_recall,
    "reindex": action_reindex,
    "forget": action_forget,
    "pin": action_pin,
    "unpin": action_pin,
    "propose": action_propose,
    "review": action_review,
    "query": action_query,
    "config": action_config,
    "consolidate": action_consolidate,
    "health-check": action_health_check,
    "quality-probe": action_quality_probe,
}


# -- helpers --------------------------------------------------------------------------------
@contextmanager
def _open_input(name: str) -> Iterator[tuple[BinaryIO, str]]:
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


def _sentence(record: dict) -> str:
    """The sentence of a fact kept as a record (a proposal's, an archived one)."""
    return Fact.from_archived(record).sentence


def _serve(args: argparse.Namespace) -> int:
    """The long-lived process: each request is answered as the command line would, with the
    global options the process was started with."""
    from . import serve

    try:
        resolve_context(args)  # a bad --now or config stops the start, as any action
    except OracleError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code
    given = {"--data-path": args.data_path, "--config": args.config, "--now": args.now}
    prefix = [part for option, value in given.items() if value for part in (option, value)]
    if args.actor:
        prefix += ["--actor", args.actor]

    def context(options: list[str]) -> tuple[argparse.Namespace, Context]:
        request = parse_arguments([*prefix, "--action", "recall", *options])
        return request, resolve_context(request)

    try:
        return serve.run(serve.CommandLine(context, action_recall))
    except KeyboardInterrupt:
        return 130


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    undecodable = next((arg for arg in argv if _SURROGATE.search(arg)), None)
    if undecodable is not None:  # invalid UTF-8 bytes, decoded by Python as lone surrogates
        raw = undecodable.encode("utf-8", "surrogateescape")
        print(f"Error: command-line argument {raw!r} is not valid UTF-8", file=sys.stderr)
        return EXIT_INVALID_INPUT
    try:
        args = parse_arguments(argv)
    except SystemExit as exc:  # argparse: --help, --version, or a usage error
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.action == "serve":
        return _serve(args)
    try:
        context = resolve_context(args)
        payload, lines = HANDLERS[args.action](args, context)
    except OracleError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"Error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_STORAGE if exc.errno in STORAGE_ERRNOS else EXIT_FAILURE
    except KeyboardInterrupt:
        print("Error: interrupted", file=sys.stderr)
        return 130
    warnings = context.warnings()
    for warning in warnings:
        print(f"Warning: {warning}", file=sys.stderr)
    line_per_value = args.action == "query" or (args.action == "recall" and args.queries)
    try:
        if context.as_json and not line_per_value:
            if warnings and isinstance(payload, dict):
                payload = {**payload, "warnings": warnings}
            print(json.dumps(payload, ensure_ascii=False))
        else:
            for line in lines:
                print(line)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped reading (`| head`): the action is done, its output is not wanted.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return context.exit_code
