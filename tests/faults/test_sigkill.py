"""A writer killed with SIGKILL at a random instant, then the same command run again.

Each trial copies one starting memory, runs one command in a child that SIGKILLs itself
just before its Nth call that changes a file (os.write, os.fsync, os.replace, os.unlink,
os.ftruncate), N drawn from 1 to the number of such calls an uninterrupted run makes; then
runs the same command again and a health check. Whatever the instant:

- right after the kill, every line of every file is whole and valid (a kill cannot tear
  a write: each append is one write, each rewrite a rename), and every fact the memory
  held before is still in facts.jsonl or the archive;
- the command run again succeeds (a forget finishes the one killed, from its journal, or
  finds its fact forgotten already), and so does the health check, which finds no invalid
  or quarantined line;
- the memory then holds exactly the facts an uninterrupted run leaves, entities.jsonl and
  relations.jsonl match the facts, and after a consolidation or a reindex the vector index
  matches them too; a consolidation also leaves no temporary file behind and ends with the
  very files an uninterrupted one writes.

The draws are seeded (--fault-seed, printed on failure); --long runs 1001 trials.
"""

from __future__ import annotations

import random

import pytest

from checks import (  # noqa: F401
    NOW,
    copy,
    fact_ids,
    forker,
    invalid,
    long_run,
    run_again,
    seed,
    starting_runs,
    tally,
)

TRIALS = 17  # per operation: 119 in the default run
LONG_TRIALS = 143  # per operation: 1001 with --long
OPERATIONS = (
    "remember",
    "remember --from",
    "forget",
    "forget --query",
    "summarize",
    "consolidate",
    "reindex",
)


@pytest.fixture(scope="module")
def start(forker, tmp_path_factory):
    return starting_runs(forker, tmp_path_factory.mktemp("sigkill"), OPERATIONS)


@pytest.mark.parametrize("operation", OPERATIONS)
def test_a_writer_killed_at_a_random_instant_loses_nothing_and_the_next_run_repairs(
    operation, start, forker, tmp_path, seed, long_run, tally
):
    template, runs = start
    argv, uninterrupted, baseline = runs[operation]
    calls = uninterrupted.total
    acknowledged = fact_ids(template)
    rng = random.Random(f"{seed}-{operation}")
    print(f"fault seed {seed}; {operation}: {calls} calls in an uninterrupted run")
    for trial in range(LONG_TRIALS if long_run else TRIALS):
        kill_at = rng.randint(1, calls)
        where = f"seed {seed}, {operation}, trial {trial}, killed before call {kill_at}"
        data = copy(template, tmp_path / f"trial-{trial}")

        killed = forker.run(data, *argv, now=NOW, fault={"kind": "kill", "at": kill_at})
        assert killed.killed, f"{where}: not killed ({killed.code}, {killed.stderr})"
        assert invalid(data) == [], where
        lost = acknowledged - fact_ids(data)
        tally.update(
            {
                f"{operation} trials": 1,
                "kills": 1,
                "facts acknowledged": len(acknowledged),
                "facts lost": len(lost),
            }
        )
        assert not lost, f"{where}: lost {lost}"

        assert run_again(forker, data, argv, operation, baseline) == [], where
