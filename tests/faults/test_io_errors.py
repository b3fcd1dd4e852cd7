"""The disk refusing a write: a full disk (os.write writes what fits, then raises ENOSPC
once K bytes are written), and I/O errors from os.fsync or os.replace (EIO at their Nth
call).

Each trial copies one starting memory and runs one command in a child with the fault
armed, K or N drawn (seeded) from what an uninterrupted run of that command writes or
calls. The command must stop with exit 8 and one line, `Error: <file>: <reason>`, naming
the file of the data directory whose write was refused; unless the refused writes were
only those of the derived snapshots under state/cache/, which are best effort: then it
succeeds. Either way, right after it every line of every file is valid (an append that
failed is cut back: no torn line), no temporary file is left (a rewrite that failed
removes its own), and every fact held before is still there; then the
same command run again, and a health check, succeed and leave what an uninterrupted run
leaves (for a consolidation: the very same files).
"""

from __future__ import annotations

import errno
import os
import random
import re

import pytest

from checks import (  # noqa: F401
    NOW,
    copy,
    fact_ids,
    files_of,
    forker,
    invalid,
    long_run,
    run_again,
    seed,
    starting_runs,
    tally,
    temporaries,
)

FULL_DISK_OPERATIONS = ("remember", "remember --from", "summarize", "recall", "consolidate")
IO_ERROR_OPERATIONS = ("remember", "remember --from", "forget", "summarize", "consolidate")
POINTS = 4  # fault points per operation (and per call for I/O errors)
LONG_POINTS = 40
ERROR_LINE = re.compile(r"Error: (?P<file>/[^\n]+): (?P<reason>[^:\n]+)\n")


@pytest.fixture(scope="module")
def start(forker, tmp_path_factory):
    operations = dict.fromkeys(FULL_DISK_OPERATIONS + IO_ERROR_OPERATIONS)
    return starting_runs(forker, tmp_path_factory.mktemp("io-errors"), operations)


def refusal_problems(outcome, data, reason: str) -> list[str]:
    """What is wrong with how a command the disk refused ended."""
    if outcome.code == 0:
        return []  # only best-effort snapshot writes were refused
    match = ERROR_LINE.fullmatch(outcome.stderr)
    if outcome.code != 8 or match is None:
        return [f"exit {outcome.code} (expected 8), stderr {outcome.stderr!r}"]
    problems = []
    if match["reason"] != reason:
        problems.append(f"reason {match['reason']!r}, expected {reason!r}")
    if not match["file"].startswith(f"{data}{os.sep}") or ".tmp" in match["file"]:
        problems.append(f"names {match['file']}, not a file of the data directory")
    return problems


def trial_problems(forker, template, data, argv, operation, baseline, fault, reason) -> tuple:
    """Run one command with `fault`, check how it ended and what it left, run it again."""
    acknowledged = fact_ids(template)
    outcome = forker.run(data, *argv, now=NOW, fault=fault)
    problems = refusal_problems(outcome, data, reason)
    problems += invalid(data)
    problems += [f"temporary left behind: {name}" for name in temporaries(data)]
    problems += [f"lost {fact}" for fact in sorted(acknowledged - fact_ids(data))]
    return problems + run_again(forker, data, argv, operation, baseline), outcome


@pytest.mark.parametrize("operation", FULL_DISK_OPERATIONS)
def test_a_full_disk_stops_a_command_with_exit_8_and_the_next_run_completes_it(
    operation, start, forker, tmp_path, seed, long_run, tally
):
    template, runs = start
    argv, uninterrupted, baseline = runs[operation]
    rng = random.Random(f"{seed}-enospc-{operation}")
    # The disk fills during a write drawn from all the run's writes, at a byte drawn from
    # that write: small appends are hit as often as large rewrites.
    sizes = uninterrupted.sizes
    chosen = sorted(
        rng.sample(range(len(sizes)), min(len(sizes), (LONG_POINTS if long_run else POINTS) - 1))
    )
    limits = [0] + [sum(sizes[:index]) + rng.randrange(max(sizes[index], 1)) for index in chosen]
    print(
        f"fault seed {seed}; {operation} makes {len(sizes)} writes of {sum(sizes)} bytes; "
        f"full after {limits}"
    )
    for limit in limits:
        where = f"seed {seed}, {operation}, disk full after {limit} bytes"
        data = copy(template, tmp_path / f"full-{limit}")
        problems, outcome = trial_problems(
            forker,
            template,
            data,
            argv,
            operation,
            baseline,
            {"kind": "enospc", "after_bytes": limit},
            "No space left on device",
        )
        tally.update(
            {f"{operation} full-disk trials": 1, "ENOSPC injected": 1, "exit 8": outcome.code == 8}
        )
        assert problems == [], where


@pytest.mark.parametrize("call", ["fsync", "replace"])
@pytest.mark.parametrize("operation", IO_ERROR_OPERATIONS)
def test_an_fsync_or_rename_failing_stops_a_command_with_exit_8_and_the_next_run_completes_it(
    operation, call, start, forker, tmp_path, seed, long_run, tally
):
    template, runs = start
    argv, uninterrupted, baseline = runs[operation]
    count = uninterrupted.calls[call]
    rng = random.Random(f"{seed}-eio-{operation}-{call}")
    points = sorted(
        rng.sample(range(1, count + 1), min(count, LONG_POINTS if long_run else POINTS // 2))
    )
    print(f"fault seed {seed}; {operation} makes {count} {call} calls; EIO at {points}")
    for point in points:
        where = f"seed {seed}, {operation}, EIO at {call} #{point}"
        data = copy(template, tmp_path / f"{call}-{point}")
        problems, outcome = trial_problems(
            forker,
            template,
            data,
            argv,
            operation,
            baseline,
            {"kind": "error", "call": call, "at": point, "errno": errno.EIO},
            "Input/output error",
        )
        tally.update(
            {
                f"{operation} I/O error trials": 1,
                f"EIO from {call} injected": 1,
                "exit 8": outcome.code == 8,
            }
        )
        assert problems == [], where


@pytest.mark.parametrize(
    "fault",
    [
        {"kind": "enospc", "after_bytes": 0},
        {"kind": "enospc", "after_bytes": 100},
        {"kind": "error", "call": "fsync", "at": 1, "errno": errno.EIO},
    ],
    ids=["full", "full mid-line", "fsync fails"],
)
def test_a_remember_whose_append_fails_leaves_the_data_directory_as_it_was(
    fault, start, forker, tmp_path
):
    """The batch is all new facts, so its first write to the memory is the append to
    facts.jsonl; refused whole, or after its first 100 bytes were written, or its fsync
    failing, it is cut back and nothing of the memory changes."""
    template, runs = start
    argv, _, _ = runs["remember --from"]
    data = copy(template, tmp_path / "memory")
    facts = data / "knowledge-graph" / "facts.jsonl"
    if fault["kind"] == "enospc":
        fault = {**fault, "path": str(facts)}
    before = files_of(data)
    outcome = forker.run(data, *argv, now=NOW, fault=fault)
    assert outcome.code == 8
    assert ERROR_LINE.fullmatch(outcome.stderr)["file"] == str(facts)
    # cut back once; the lock's holder file is emptied with ftruncate too, at each release
    assert [path for path in outcome.truncated if not path.endswith(".holder")] == [str(facts)]
    assert files_of(data) == before
