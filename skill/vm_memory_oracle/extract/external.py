"""An optional external extractor: a model that reads the fragments and says which facts they state.

The configured command gets {"fragments": [...]} as JSON on stdin and prints
{"facts": [...]} as JSON on stdout. Its output is schema-checked, and every fact must cite
the source of a fragment it was given; anything else is a failure, and the caller falls
back to the rules.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import asdict

from ..errors import ExtractorFailed
from ..storage import strict_json
from ..storage.validation import problem
from .redact import redact_value
from .rules import FragmentRecord, JsonObject


def run_extractor(
    command: list[str], records: list[FragmentRecord], *, timeout: float
) -> list[JsonObject]:
    payload = json.dumps({"fragments": [asdict(record) for record in records]}, ensure_ascii=False)
    try:
        completed = subprocess.run(
            command,
            input=payload.encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise ExtractorFailed(f"extractor command not found: {command[0]}") from None
    except PermissionError:
        raise ExtractorFailed(f"extractor command not executable: {command[0]}") from None
    except subprocess.TimeoutExpired:
        raise ExtractorFailed(f"extractor timed out after {timeout:g}s") from None
    if completed.returncode != 0:
        detail = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ExtractorFailed(
            f"extractor exited {completed.returncode}" + (f": {detail[-1][:200]}" if detail else "")
        )
    try:
        output = strict_json.loads(completed.stdout.decode("utf-8"))
    except (UnicodeDecodeError, strict_json.JsonRefused) as exc:
        raise ExtractorFailed(f"extractor output is not JSON ({exc})") from None
    fault = problem("extractor-output", output)
    if fault:
        raise ExtractorFailed(f"extractor output does not match its schema: {fault}")
    sources = {record.source for record in records}
    for index, fact in enumerate(output["facts"], start=1):
        if fact["source"] not in sources:
            raise ExtractorFailed(
                f"extractor fact {index} cites {fact['source']!r}, "
                "which is not the source of any fragment it was given"
            )
    # The extractor saw redacted text, but a model may still invent something key-shaped.
    facts, _ = redact_value(output["facts"])
    return facts
