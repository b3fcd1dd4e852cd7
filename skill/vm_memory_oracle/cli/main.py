"""The command line: parse, call one action, print, map errors to exit codes.

This is the only part of the package that prints results. Everything it does, a test can
do by calling the library directly."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

from ..errors import (
    EXIT_INVALID_INPUT,
    EXIT_USAGE,
    OracleError,
    os_failure,
)
from .carry import action_backup, action_import, action_restore
from .context import open_memory
from .forgetting import action_forget
from .memory import (
    action_config,
    action_init,
    action_pin,
    action_propose,
    action_remember,
    action_review,
    action_summarize,
)
from .options import parse_arguments
from .retrieval import action_query, action_recall, action_reindex
from .upkeep import action_consolidate, action_health_check, action_quality_probe
from .view import action_view

_SURROGATE = re.compile("[\ud800-\udfff]")


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
    "backup": action_backup,
    "restore": action_restore,
    "import": action_import,
    "view": action_view,
}


def _serve(args: argparse.Namespace) -> int:
    """The long-lived process: each request is answered as the command line would, with the
    global options the process was started with."""
    from .. import serve

    try:
        open_memory(args)  # a bad --now or config stops the start, as any action
    except OracleError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code
    try:
        return serve.run(lambda: open_memory(args))
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
        memory = open_memory(args)
        output = HANDLERS[args.action](args, memory)
    except OracleError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        code, message = os_failure(exc)
        print(f"Error: {message}", file=sys.stderr)
        return code
    except KeyboardInterrupt:
        print("Error: interrupted", file=sys.stderr)
        return 130
    warnings = memory.warnings()
    payload = output.payload
    for warning in warnings:
        print(f"Warning: {warning}", file=sys.stderr)
    line_per_value = args.action == "query" or (args.action == "recall" and args.queries)
    try:
        if args.json and not line_per_value:
            if warnings and isinstance(payload, dict):
                payload = {**payload, "warnings": warnings}
            print(json.dumps(payload, ensure_ascii=False))
        else:
            for line in output.lines:
                print(line)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped reading (`| head`): the action is done, its output is not wanted.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return output.exit_code
