"""The live path killed mid-learn: `summarize --agent main` (what the plugin's learn runs when
an OpenClaw turn ends: the agent's new transcript rows copied into sessions/, learned with
the rest of their day, the indexes brought in step) SIGKILLed just before its Nth call that
changes a file, N drawn over an uninterrupted run's calls, then run again, as the next
turn's end or the nightly summarize would. Whatever the instant:

- every line of every file is whole and valid, and no fact the memory held is lost;
- run again, it succeeds, the health check finds nothing invalid or quarantined, and the
  memory holds what an uninterrupted run leaves: the same copies of the turns (none copied
  twice), the same facts, episodes and daily summary;
- the nightly summarize --all after it imports and learns nothing more.

The draws are seeded (--fault-seed); --long runs 167 trials.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from test_openclaw_state import Transcript

from checks import (  # noqa: F401
    NOW,
    copy,
    fact_ids,
    forker,
    invalid,
    long_run,
    run_again,
    seed,
    tally,
)

TRIALS = 17
LONG_TRIALS = 167
LIVE = ["--action", "summarize", "--agent", "main"]
KEPT = ("sessions", "knowledge-graph/facts.jsonl", "episodes", "daily")


@pytest.fixture(scope="module")
def start(forker, tmp_path_factory):
    """A memory connected to an OpenClaw state directory with a conversation not learned
    yet (read only by every trial), and the memory an uninterrupted live learn leaves."""
    folder = tmp_path_factory.mktemp("live-kill")
    state = folder / "openclaw-state"
    state.mkdir()
    transcript = Transcript(state)
    transcript.user("s1", "By the way, I'm severely allergic to peanuts.")
    transcript.assistant("s1", [{"type": "text", "text": "Noted: no peanuts."}], minute=1)
    transcript.user("s1", "My sister Ana lives in Madrid and teaches chemistry.", minute=2)
    transcript.user("s2", "I prefer green tea in the morning.", minute=3)
    template = folder / "template"
    first = "2026-07-01T00:00:00Z"
    forker.ok(template, "--action", "init", now=first)
    forker.ok(template, "--action", "config", "--set", "embedding_model=hash", now=first)
    forker.ok(template, "--action", "config", "--set", f"openclaw_state_dir={state}", now=first)
    forker.ok(template, "--action", "remember", "--subject", "user", "--predicate", "lives_in",
              "--object", "Porto", now=first)  # fmt: skip
    baseline = copy(template, folder / "uninterrupted")
    uninterrupted = forker.ok(baseline, *LIVE, now=NOW)
    forker.ok(baseline, "--action", "health-check", now=NOW)
    return template, baseline, uninterrupted


def kept(data: Path) -> dict[str, bytes]:
    """The files a learn writes that must come out as an uninterrupted run writes them (a
    rewrite's temporary file a kill left is not one: the nightly clean removes it)."""
    found = {}
    for name in KEPT:
        path = data / name
        for each in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if each.is_file() and not (each.name.startswith(".") and each.suffix == ".tmp"):
                found[each.relative_to(data).as_posix()] = each.read_bytes()
    return found


def test_a_live_learn_killed_at_a_random_instant_loses_nothing_and_doubles_nothing(
    start, forker, tmp_path, seed, long_run, tally
):
    template, baseline, uninterrupted = start
    calls = uninterrupted.total
    acknowledged = fact_ids(template)
    rng = random.Random(f"{seed}-live")
    print(f"fault seed {seed}; summarize --agent: {calls} calls in an uninterrupted run")
    for trial in range(LONG_TRIALS if long_run else TRIALS):
        kill_at = rng.randint(1, calls)
        where = f"seed {seed}, trial {trial}, killed before call {kill_at}"
        data = copy(template, tmp_path / f"trial-{trial}")

        killed = forker.run(data, *LIVE, now=NOW, fault={"kind": "kill", "at": kill_at})
        assert killed.killed, f"{where}: not killed ({killed.code}, {killed.stderr})"
        assert invalid(data) == [], where
        assert not acknowledged - fact_ids(data), where
        tally.update({"live learn trials": 1, "kills": 1})

        assert run_again(forker, data, LIVE, "summarize --agent", baseline) == [], where
        assert kept(data) == kept(baseline), where
        nightly = forker.ok(data, "--json", "--action", "summarize", "--all", now=NOW)
        report = json.loads(nightly.stdout)
        assert report["imported_turns"] == 0 and report["added"] == 0, where
        assert report["reinforced"] == 0 and report["episodes"] == 0, where
