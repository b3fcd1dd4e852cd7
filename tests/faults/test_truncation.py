"""Power-loss style truncation: each file of a populated memory cut at a random offset,
then the next nightly consolidation and a health check.

Bytes that a truncation destroys in a source-of-truth file (facts.jsonl, the archive, a
session log, MEMORY.md outside its block, the audit and probe logs) cannot be restored:
nothing else holds them. What must hold is that nothing else is lost with them: every
record whose whole line lies before the cut is still there (a fact in facts.jsonl or the
archive), the torn line is quarantined and counted in health.json, derived files
(entities, relations, the vector index and its metadata, the embedding cache, the
activation state, MEMORY.md's block) are rebuilt or the damage reported, and nothing
crashes. Files a person edits (config.yaml, canary-facts.json) and the ledger of what
summarize has read (state/summarized.json, whose loss would make summarize learn again
facts forgotten since) may instead stop the command that needs them with exit 3 and a
message naming the file, while health-check reports them under damaged_files.

Under the append+fsync protocol a power loss cannot truncate a file anywhere: a command
acknowledges (exits 0) only after its appends are fsynced, so at most the last append,
one no command acknowledged, can be torn. The second test makes exactly that happen to
each append-only file: the writer is killed at the fsync that follows its append, and the
file is cut inside the record just appended; then nothing acknowledged may be missing.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from checks import (  # noqa: F401
    active_ids,
    build_populated,
    copy,
    derived_problems,
    fact_id,
    fact_ids,
    forker,
    index_problems,
    invalid,
    jsonl_text,
    long_run,
    records,
    seed,
    tally,
)

RECOVERY = "2026-07-21T00:30:00Z"  # the next night
OFFSETS = 1
LONG_OFFSETS = 12
# Every file build_populated leaves, grouped by what recovery owes it.
SOURCES = ("knowledge-graph/facts.jsonl", "knowledge-graph/archived-facts.jsonl")
LOGS = ("state/audit.jsonl", "state/probe-log.jsonl", "sessions/2026-07-19-210000.jsonl")
DERIVED_JSONL = (
    "knowledge-graph/entities.jsonl",
    "knowledge-graph/relations.jsonl",
    "embeddings/metadata.jsonl",
    "state/activation-journal.jsonl",
)
DERIVED = (
    "embeddings/index.bin",
    "embeddings/cache-hash-ngram-v1-512.npz",
    "embeddings/cache-hash-ngram-v1-512.recent.npz",
    "activation-metadata.json",
    "MEMORY.md",
    "daily/2026-07-19.md",
    "daily/2026-06-01.md",
)
EDITED = ("config.yaml", "knowledge-graph/canary-facts.json", "state/summarized.json")
# What was said, turn by turn: kept like a log (no whole line before a cut is lost).
EPISODES = ("episodes/2026-07-19.jsonl", "episodes/2026-06-01.jsonl")
OTHERS = (
    "MEMORY.md.bak",
    "health.json",
    "state/index-built",
    "state/cache/*",
    "state/cache/text-index/*",
    "state/*.lock*",
    "state/reports/*",
)
FILES = SOURCES + LOGS + EPISODES + DERIVED_JSONL + DERIVED + EDITED + OTHERS


@pytest.fixture(scope="module")
def populated(forker, tmp_path_factory):
    """The populated memory, and the same after the next consolidation uncut."""
    folder = tmp_path_factory.mktemp("truncation")
    template = folder / "template"
    build_populated(forker, template)
    baseline = copy(template, folder / "baseline")
    forker.ok(baseline, "--action", "consolidate", now=RECOVERY)
    forker.ok(baseline, "--action", "health-check", now=RECOVERY)
    return template, baseline


def test_the_populated_memory_has_every_file_the_truncation_test_cuts(populated):
    template, _ = populated
    present = {
        path.relative_to(template).as_posix() for path in template.rglob("*") if path.is_file()
    }
    named = {name for name in FILES if "*" not in name}
    assert named <= present
    assert present - named == {
        name
        for name in present
        if name.startswith(("state/cache/", "state/reports/")) or ".lock" in name
    }


def lines_before(data: bytes, offset: int) -> list[bytes]:
    """The lines of `data` whose bytes, their newline aside, all lie before `offset`."""
    kept, start = [], 0
    for line in data.split(b"\n"):
        if line and start + len(line) <= offset:
            kept.append(line)
        start += len(line) + 1
    return kept


def torn(data: bytes, offset: int) -> bool:
    """Whether cutting `data` at `offset` leaves the start of a line without its end."""
    start = data.rfind(b"\n", 0, offset) + 1
    return data[start:offset].strip() != b"" and data[offset : offset + 1] != b"\n"


def damaged(whole: bytes, offset: int) -> bool:
    """Whether the cut took more than the final newline."""
    return offset < len(whole.rstrip(b"\n"))


@pytest.mark.parametrize("name", FILES)
def test_a_file_cut_at_a_random_offset_is_repaired_or_reported_and_nothing_else_is_lost(
    name, populated, forker, tmp_path, seed, long_run, tally
):
    template, baseline = populated
    rng = random.Random(f"{seed}-truncate-{name}")
    for trial in range(LONG_OFFSETS if long_run else OFFSETS):
        data = copy(template, tmp_path / f"cut-{trial}")
        cuts = {}
        for path in sorted(path for path in data.glob(name) if path.is_file()):
            whole = path.read_bytes()
            offset = rng.randrange(len(whole)) if whole else 0
            cuts[path.relative_to(data).as_posix()] = (whole, offset)
            with open(path, "r+b") as handle:
                handle.truncate(offset)
        where = f"seed {seed}, {name} cut at " + ", ".join(
            f"{cut} of {len(whole)}" for whole, cut in cuts.values()
        )
        tally.update({"files truncated": len(cuts), "truncation trials": 1})
        problems = recovery_problems(forker, data, baseline, template, cuts, name)
        tally.update(
            {
                "facts acknowledged": len(fact_ids(template)),
                "facts lost": sum(problem.startswith("lost fact-") for problem in problems),
            }
        )
        assert problems == [], where


def recovery_problems(
    forker, data: Path, baseline: Path, template: Path, cuts: dict, name: str
) -> list[str]:
    """Run the next consolidation and a health check on `data`, cut as `cuts` says
    (file -> (its bytes before, the offset)), and say what is wrong."""
    problems = []
    consolidated = forker.run(data, "--action", "consolidate", now=RECOVERY)
    checked = forker.run(data, "--action", "health-check", "--json", now=RECOVERY)
    if name in EDITED and consolidated.code == 3:
        # A file a person edits, or summarize's ledger: a clear error naming it, and
        # health-check, which needs neither, reports it.
        if (
            f"Error: {data / name}" not in consolidated.stderr
            and f"Error: {name}" not in consolidated.stderr
        ):
            problems.append(f"consolidate: {consolidated.stderr!r} does not name {name}")
        if name == "config.yaml":
            if checked.code != 3 or str(data / name) not in checked.stderr:
                problems.append(f"health-check: {checked.code} {checked.stderr!r}")
            return problems
    elif consolidated.code != 0:
        return [f"consolidate exited {consolidated.code}: {consolidated.stderr}"]
    if checked.code != 0:
        return problems + [f"health-check exited {checked.code}: {checked.stderr}"]
    report = checked.json()
    reported = {entry["file"] for entry in report["damaged_files"]}
    # A session log is input: its torn line stays (the lines after it keep their numbers)
    # and is copied to the sessions quarantine instead.
    copied = {entry["file"] for entry in records(data / "state" / "sessions.quarantine.jsonl")}
    problems += [
        problem for problem in invalid(data) if problem.split(":")[0] not in reported | copied
    ]

    # Nothing whole before the cut is lost.
    destroyed = set()
    for relative, (whole, offset) in cuts.items():
        before = lines_before(whole, offset)
        if relative in SOURCES:
            destroyed |= {record["id"] for record in records(template / relative)} - {
                json.loads(line)["id"] for line in before
            }
        elif relative in LOGS[:2] or relative in EPISODES:
            now = (data / relative).read_bytes().split(b"\n")
            problems += [f"{relative}: lost a line" for line in before if line not in now]
        elif relative.startswith("sessions/"):
            if not (data / relative).read_bytes() == whole[:offset]:
                problems.append(f"{relative} changed after the cut")
    problems += [f"lost {fact}" for fact in sorted(fact_ids(template) - destroyed - fact_ids(data))]

    # A torn line is quarantined and counted.
    for relative, (whole, offset) in cuts.items():
        if relative.endswith(".jsonl") and torn(whole, offset) and report["quarantined_lines"] < 1:
            problems.append(f"{relative}: torn line not counted in quarantined_lines")

    # Derived files are rebuilt, or their damage reported.
    problems += derived_problems(data)
    problems += index_problems(data)
    if not report["index"]["consistent"]:
        problems.append(f"health.json index: {report['index']}")
    if name == "activation-metadata.json":
        aside = list(data.glob("activation-metadata.json.corrupt-*"))
        if damaged(*cuts[name]) and not (
            aside
            and any(
                "set aside activation-metadata.json" in repair["repair"]
                for repair in report["repairs"]
            )
        ):
            problems.append("damaged activation-metadata.json neither set aside nor reported")
    if (
        name
        in (
            "embeddings/index.bin",
            "embeddings/metadata.jsonl",
            "embeddings/cache-hash-ngram-v1-512.npz",
            "embeddings/cache-hash-ngram-v1-512.recent.npz",
        )
        and damaged(*cuts[name])
        and not any("embeddings/" in repair["repair"] for repair in report["repairs"])
    ):
        problems.append(f"the rebuild after {name} was cut is not in health.json repairs")
    if name.startswith("daily/"):
        whole, _ = cuts[name]
        if (data / name).read_bytes() != whole and name not in reported:
            problems.append(f"{name} is damaged and not in damaged_files")
        if name == "daily/2026-07-19.md" and name in reported:
            # What the report advises, while the day's log is kept: summarize the day again.
            forker.ok(data, "--action", "summarize", "--date", "2026-07-19", now=RECOVERY)
            if (data / name).read_bytes() != whole:
                problems.append(f"summarize --date did not write {name} again")
    if "MEMORY.md" in cuts and "MEMORY.md" not in reported:
        from vm_memory_oracle.model.fact import Fact
        from vm_memory_oracle.steps.memory_md.block import BEGIN, END, block_fact_ids
        from vm_memory_oracle.steps.memory_md.data_file import FactCandidate

        text = (data / "MEMORY.md").read_text()
        facts = records(data / "knowledge-graph" / "facts.jsonl")
        known = [FactCandidate(Fact.from_record(fact), 0.0) for fact in facts]
        block = block_fact_ids(text, known)
        inside = text.split(BEGIN, 1)[-1].split(END, 1)[0]
        lines = [line for line in inside.splitlines() if line.startswith("- ")]
        # every line is an active fact's
        if set(block) - active_ids(data) or not block or len(block) != len(lines):
            problems.append(f"MEMORY.md block holds {block}")
    if (
        name in ("knowledge-graph/canary-facts.json", "state/summarized.json")
        and damaged(*cuts[name])
        and name not in reported
    ):
        problems.append(f"{name} is damaged and not in damaged_files")
    if name == "knowledge-graph/canary-facts.json" and damaged(*cuts[name]):
        probe = forker.run(data, "--action", "quality-probe", now=RECOVERY)
        if probe.code != 3 or not probe.stderr.startswith(f"Error: {name}: "):
            problems.append(f"quality-probe: {probe.code} {probe.stderr!r}")
    return problems


NOT_FSYNCED = {"state/activation-journal.jsonl"}
TORN_APPENDS = {
    "knowledge-graph/facts.jsonl": lambda data: [
        "--action",
        "remember",
        "--from",
        str(data.parent / "batch.jsonl"),
    ],
    "knowledge-graph/archived-facts.jsonl": lambda data: [
        "--action",
        "forget",
        "--id",
        fact_id(data, "chess"),
    ],
    "state/activation-journal.jsonl": lambda data: ["--action", "recall", "--query", "chess"],
    "state/audit.jsonl": lambda data: [
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "likes",
        "--object",
        "rain",
    ],
    "state/probe-log.jsonl": lambda data: ["--action", "quality-probe"],
    "sessions/2026-07-19-210000.jsonl": None,  # appended by the agent, not by this tool
}


@pytest.mark.parametrize("name", TORN_APPENDS)
def test_power_lost_during_an_append_tears_only_that_append_and_loses_nothing_acknowledged(
    name, populated, forker, tmp_path, seed, long_run, tally
):
    template, _ = populated
    rng = random.Random(f"{seed}-tear-{name}")
    for trial in range(LONG_OFFSETS if long_run else OFFSETS):
        data = copy(template, tmp_path / f"tear-{trial}" / "memory")
        (data.parent / "batch.jsonl").write_text(
            jsonl_text(
                [{"subject": "user", "predicate": "owns", "object": f"kayak {n}"} for n in range(3)]
            )
        )
        target = data / name
        acknowledged = target.read_bytes()
        if TORN_APPENDS[name] is None:
            with open(target, "ab") as handle:
                handle.write(
                    b'{"ts": "2026-07-20T22:00:00Z", "role": "user", '
                    b'"text": "I bought a red kayak."}\n'
                )
        else:
            # Killed at the fsync after its append: the record reached the file, and the
            # power fails before it is durable, so the command never acknowledged it. A
            # recall's boost is not fsynced (reliability.md, "Durability"): the recall
            # ends, and the power fails before the kernel wrote its lines back.
            argv = TORN_APPENDS[name](data)
            writer = forker.run(
                data, *argv, now="2026-07-20T20:00:00Z", fault={"kind": "tear", "path": str(target)}
            )
            finished = name in NOT_FSYNCED and writer.code == 0
            assert writer.killed or finished, f"{argv} did not append to {name}: {writer.stderr}"
        appended = target.read_bytes()
        assert appended.startswith(acknowledged) and len(appended) > len(acknowledged) + 1
        offset = rng.randrange(len(acknowledged) + 1, len(appended) - 1)
        with open(target, "r+b") as handle:
            handle.truncate(offset)
        where = (
            f"seed {seed}, {name}: append of {len(appended) - len(acknowledged)} bytes "
            f"cut at {offset - len(acknowledged)}"
        )
        tally.update({"torn appends": 1})

        consolidated = forker.run(data, "--action", "consolidate", now=RECOVERY)
        assert consolidated.code == 0, f"{where}: {consolidated.stderr}"
        checked = forker.run(data, "--action", "health-check", "--json", now=RECOVERY)
        assert checked.code == 0, f"{where}: {checked.stderr}"
        report = checked.json()
        # Cut inside a record, the record is quarantined; cut between two records of a
        # batch, the first stands whole (unacknowledged, but whole).
        assert (report["quarantined_lines"] >= 1) is torn(appended, offset), where
        copied = {entry["file"] for entry in records(data / "state" / "sessions.quarantine.jsonl")}
        assert [
            problem for problem in invalid(data) if problem.split(":")[0] not in copied
        ] == [], where
        lost = fact_ids(template) - fact_ids(data)
        tally.update({"facts acknowledged": len(fact_ids(template)), "facts lost": len(lost)})
        assert not lost, where
        now = target.read_bytes()
        for line in acknowledged.split(b"\n")[:-1]:
            if name == "state/activation-journal.jsonl":
                entry = json.loads(line)  # folded into activation-metadata.json
                state = json.loads((data / "activation-metadata.json").read_text())["facts"]
                assert state[entry["id"]]["access_count"] >= entry["access_count"], where
            elif name not in SOURCES:
                assert line in now.split(b"\n"), f"{where}: lost {line[:80]!r}"
