"""The command line's options: the actions, their options, the exit codes, and parsing."""

from __future__ import annotations

import argparse
import math

from .. import __version__
from ..imports import FORMATS
from ..model.fact import CATEGORIES
from .context import CONFIG_ENV, DATA_PATH_ENV, NOW_ENV

ACTIONS = {
    "init": "create the data directory, config.yaml, canaries and MEMORY.md (idempotent)",
    "remember": "store facts: one from --subject/--predicate/--object, or JSONL --from FILE|-",
    "summarize": "extract facts from a day's session logs (--date, default today; or --all; "
    "or --agent ID: what is new of an OpenClaw agent) and write daily/YYYY-MM-DD.md",
    "recall": "find facts for --query TEXT (or JSONL --queries FILE) and boost them",
    "forget": "forget the facts --id FACT_ID (at once), or what --query, --session, --sender "
    "or --since/--until reach (previewed until --yes): gone from every answer, never learned "
    "again",
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
    "view": "write one self-contained HTML page of what the memory knows, from where, and "
    "what changed (--to FILE, default DATA/view.html; owner only, no network)",
    "config": "show the settings in force, or change one with --set KEY=VALUE",
    "backup": "write one archive (gzip tar with a manifest) of the memory's durable files "
    "to --to PATH, a new file outside the data directory, consistent while others write",
    "restore": "make the data directory, absent or empty, from the backup --from PATH "
    "(every hash and record checked; --dry-run: check only), rebuild the indexes, check "
    "health",
    "import": "learn another assistant's history --from PATH: --format chatgpt (an "
    "export's conversations.json), claude-code (~/.claude/projects) or codex "
    "(~/.codex/sessions); what was learned before is not learned again (--dry-run: count "
    "only)",
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
  8  storage: the disk refused a write (full, read-only, I/O error); fix it and retry
  9  archive: a backup archive is damaged, changed, or not a memory's backup (nothing
     is written)
 10  import: a history that is not of the --format given (nothing is written)"""


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


def _fact_options(group, source_default: str) -> None:
    """The options of a fact given on the command line (remember, propose)."""
    group.add_argument("--subject", help="who or what the fact is about, e.g. user")
    group.add_argument("--predicate", help="the relation, e.g. lives_in or 'prefers'")
    group.add_argument("--object", help="the value, e.g. Berlin")
    group.add_argument(
        "--source",
        help=f"provenance (default: {source_default}",
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


def _remember_options(group) -> None:
    _fact_options(group, "user-stated)")


def _propose_options(group) -> None:
    _fact_options(group, "subagent:NAME); the proposer and the proposal's id are added to it")
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


def _review_options(group) -> None:
    which = group.add_mutually_exclusive_group()
    which.add_argument("--accept", metavar="ID", help="remember the proposal's fact")
    which.add_argument("--reject", metavar="ID", help="drop the proposal")
    which.add_argument(
        "--accept-all-from",
        metavar="NAME",
        help="accept every pending proposal of this proposer",
    )


def _summarize_options(group) -> None:
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
    which.add_argument(
        "--agent",
        metavar="ID",
        help="the live path: what is new of this OpenClaw agent (from openclaw_state_dir), "
        "with the indexes brought in step",
    )


def _recall_options(group) -> None:
    group.add_argument("--query", help="what to look for")
    group.add_argument(
        "--queries",
        metavar="FILE|-",
        help='JSONL, one {"query": ...} a line; prints one JSON line each',
    )
    group.add_argument("--k", type=int, metavar="N", help="results per query (default: recall_k)")
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


def _forget_options(group) -> None:
    group.add_argument(
        "--id",
        dest="fact_ids",
        action="append",
        metavar="FACT_ID",
        help="a fact to forget, with the turns it was learned from (repeatable)",
    )
    group.add_argument("--query", help="forget the facts and episodes holding all its words")
    group.add_argument(
        "--session",
        metavar="NAME",
        help="forget a conversation: a session log (YYYY-MM-DD-HHMMSS.jsonl) or an OpenClaw "
        "session id or key",
    )
    group.add_argument("--sender", metavar="NAME", help="forget what this person said")
    group.add_argument("--since", metavar="ISO-8601", help="forget what was said from then on")
    group.add_argument("--until", metavar="ISO-8601", help="... and before then")
    group.add_argument("--reason", help="why, kept in the archive")
    group.add_argument(
        "--dry-run", action="store_true", help="list what would be forgotten; change nothing"
    )
    group.add_argument(
        "--yes", action="store_true", help="forget what --query, --session, ... reach"
    )
    group.add_argument(
        "--purge",
        action="store_true",
        help="also erase the forgotten facts' text from the archive (a tombstone stays)",
    )


def _fact_id_option(group) -> None:
    group.add_argument("--id", dest="fact_id", required=True, metavar="FACT_ID")


def _query_options(group) -> None:
    group.add_argument(
        "--jq",
        required=True,
        metavar="EXPR",
        help="jq program; its input is the array of active facts",
    )


def _consolidate_options(group) -> None:
    group.add_argument(
        "--dry-run",
        action="store_true",
        help="print what each step would change; write nothing",
    )


def _health_check_options(group) -> None:
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


def _config_options(group) -> None:
    group.add_argument(
        "--set",
        dest="assignment",
        metavar="KEY=VALUE",
        help="change one setting in the config file, keeping its comments",
    )


def _backup_options(group) -> None:
    group.add_argument(
        "--to",
        required=True,
        metavar="PATH",
        help="the archive to write (a new file, outside the data directory), or a directory "
        "to write memory-<time>.tar.gz into, keeping the newest backup_keep there",
    )


def _restore_options(group) -> None:
    group.add_argument(
        "--from", dest="archive", required=True, metavar="PATH", help="the backup archive"
    )
    group.add_argument(
        "--dry-run", action="store_true", help="check the archive only; write nothing"
    )


def _import_options(group) -> None:
    group.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="PATH",
        help="the history: a file, or a directory to read every transcript under",
    )
    group.add_argument(
        "--format",
        dest="history_format",
        required=True,
        choices=FORMATS,
        help="whose history it is",
    )
    group.add_argument(
        "--dry-run",
        action="store_true",
        help="count the conversations, turns and days it would learn; write nothing",
    )


def _view_options(group) -> None:
    group.add_argument(
        "--to",
        metavar="FILE",
        help="where to write the page (default: view.html in the data directory)",
    )


# Each action's own options (the others have none).
ACTION_OPTIONS = {
    "remember": _remember_options,
    "propose": _propose_options,
    "review": _review_options,
    "summarize": _summarize_options,
    "recall": _recall_options,
    "forget": _forget_options,
    "pin": _fact_id_option,
    "unpin": _fact_id_option,
    "query": _query_options,
    "consolidate": _consolidate_options,
    "health-check": _health_check_options,
    "config": _config_options,
    "backup": _backup_options,
    "restore": _restore_options,
    "import": _import_options,
    "view": _view_options,
}


def _action_options(parser: argparse.ArgumentParser, action: str) -> None:
    group = parser.add_argument_group(f"{action} options")
    options = ACTION_OPTIONS.get(action)
    if options is not None:
        options(group)


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
