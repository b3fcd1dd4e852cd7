"""`query --jq`: a jq program over the active facts, each with its live activation.

A jq program can loop forever (`def f: f; f`) or print without end (`repeat(1)`), and the
jq library cannot be interrupted from Python. So the program runs in a forked child that
is killed when it overruns its time or its output limit.
"""

from __future__ import annotations

import os
import select
import signal
import time
from datetime import datetime

from .errors import InvalidInputError
from .graph import KnowledgeGraph
from .storage import strict_json

MAX_OUTPUT_BYTES = 64 << 20


def run_jq(
    graph: KnowledgeGraph,
    program: str,
    now: datetime,
    *,
    timeout: float,
    max_output_bytes: int = MAX_OUTPUT_BYTES,
) -> list:
    """Every value `program` outputs when given the array of active facts (like `jq -s`).

    Each fact carries its record fields plus text, activation (now), last_accessed and
    access_count; superseded facts are included with their superseded_by field. A program
    still running after `timeout` seconds, or printing more than `max_output_bytes`, is
    stopped and refused.
    """
    import jq

    try:
        compiled = jq.compile(program)
    except ValueError as exc:
        raise InvalidInputError(f"invalid jq program: {_first_line(exc)}", source="--jq") from None
    facts = [fact.as_dict() for fact in graph.live_facts(now)]
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        # Whatever happens, the child must never return into the caller's code.
        code = 1
        try:
            os.close(read_end)
            code = _run_in_child(compiled, facts, write_end, max_output_bytes)
        finally:
            os._exit(code)
    os.close(write_end)
    finished = False
    try:
        output, finished = _collect(read_end, timeout, max_output_bytes)
    finally:
        os.close(read_end)
        if not finished:
            os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    if not finished:
        raise InvalidInputError(
            f"jq program did not finish within {timeout:g}s (query_timeout_seconds)", source="--jq"
        )
    return _values(output, max_output_bytes)


def _run_in_child(compiled, facts: list, fd: int, max_output_bytes: int) -> int:
    written = 0
    with os.fdopen(fd, "wb") as out:
        try:
            for value in compiled.input_value(facts):
                line = b"v" + strict_json.dumps(value).encode("utf-8") + b"\n"
                written += len(line)
                if written > max_output_bytes:
                    out.write(b"x\n")
                    return 0
                out.write(line)
        except (ValueError, UnicodeEncodeError) as exc:
            out.write(b"e" + _first_line(exc).encode("utf-8", "replace") + b"\n")
    return 0


def _collect(fd: int, timeout: float, max_output_bytes: int) -> tuple[bytes, bool]:
    """What the child wrote until it closed its end (True) or the time ran out (False)."""
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return b"".join(chunks), False
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
        if size > max_output_bytes + 4096:  # the child stops itself before this
            return b"".join(chunks), True


def _values(output: bytes, max_output_bytes: int) -> list:
    values = []
    for line in output.splitlines():
        tag, body = line[:1], line[1:].decode("utf-8")
        if tag == b"e":
            raise InvalidInputError(f"jq program failed: {body}", source="--jq")
        if tag == b"x":
            raise InvalidInputError(
                f"jq program printed more than {max_output_bytes >> 20} MiB", source="--jq"
            )
        values.append(strict_json.loads(body))
    return values


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
