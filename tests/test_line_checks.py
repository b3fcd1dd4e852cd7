"""The consolidation's check of every line (quarantine_invalid_lines) and the health check
(check.findings) read each JSONL file a line at a time: a clean file leaves no record held,
in the process or on disk (at a million facts the records they held were gigabytes), and a
bad line in any file is found, quarantined and reported as when the files were read whole."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from vm_memory_oracle.check import Finding, findings
from vm_memory_oracle.config import Settings
from vm_memory_oracle.steps.clean import quarantine_invalid_lines
from vm_memory_oracle.steps.health import health_report
from vm_memory_oracle.storage import files, snapshot
from vm_memory_oracle.storage.layout import Layout
from vm_memory_oracle.storage.store import Store

from conftest import NOW, hash_embedder

# The files the check of every line reads (facts.jsonl aside: read at its places), by the
# Layout attribute naming each.
CHECKED = (
    "archive",
    "entities",
    "relations",
    "vector_metadata",
    "activation_journal",
    "audit_log",
    "probe_log",
    "pending_memories",
)


@pytest.fixture
def memory(cli, data_dir):
    """A memory with every file the check reads: facts, their index, a recall's boost in
    the journal, an archived fact, a probe and a proposal pending."""
    hash_embedder(cli)
    assert cli("--action", "remember", "--from", "assets/examples/facts.jsonl").code == 0
    forgotten = cli("--json", "--action", "recall", "--query", "allergic").json()  # the index
    assert forgotten["results"], forgotten
    fact_id = forgotten["results"][0]["id"]
    assert cli("--action", "forget", "--id", fact_id).code == 0  # archived
    assert cli("--action", "quality-probe").code == 0
    proposed = cli(
        "--action", "propose", "--proposer", "helper", "--confidence", "0.8",
        "--subject", "user", "--predicate", "lives in", "--object", "Berlin",
        "--text", "The user lives in Berlin.",
    )  # fmt: skip
    assert proposed.code == 0, proposed.err
    store = new_store(data_dir)
    state = store.read_activation()
    boosted = next(iter(state))
    with store.locked("a recall's boost"):  # a line in the journal, as a recall writes it
        store.write_activation(state, changed=[boosted])
    layout = Layout(data_dir)
    for name in CHECKED:
        path = getattr(layout, name)
        assert path.exists() and path.read_bytes().endswith(b"\n"), name
    return data_dir


def new_store(data_dir: Path) -> Store:
    """The store of a new process: nothing held of what an earlier one read."""
    snapshot.forget_memory()
    return Store(Layout(data_dir), lock_timeout=5, timestamp=NOW)


def found(data_dir: Path) -> list[Finding]:
    return findings(new_store(data_dir), Settings(data_path=str(data_dir), embedding_model="hash"))


def whole_reads(layout: Layout, monkeypatch) -> list[str]:
    """The files read whole from now on (files.read_jsonl), by their names in the memory,
    no snapshot of records left on disk to be read instead."""
    for kept in layout.cache_dir.glob("*.jsonl.marshal"):
        kept.unlink()
    read_whole: list[str] = []
    read_jsonl = files.read_jsonl

    def reading(path, check):
        read_whole.append(layout.relative(path))
        return read_jsonl(path, check)

    monkeypatch.setattr(files, "read_jsonl", reading)
    return read_whole


def test_a_check_of_every_line_of_a_clean_memory_holds_and_writes_no_records(memory, monkeypatch):
    layout = Layout(memory)
    read_whole = whole_reads(layout, monkeypatch)
    store = new_store(memory)
    quarantine_invalid_lines(store)
    assert store.warnings == []
    assert found(memory) == []
    checked = [getattr(layout, name) for name in CHECKED]
    # the activation state reads the journal whole (a few thousand lines at most)
    assert not {layout.relative(path) for path in checked} & set(read_whole) - {
        layout.relative(layout.activation_journal)
    }
    for path in checked:
        cache = layout.snapshot_for(path)
        assert not cache.exists(), path
        assert snapshot.load(cache, snapshot.file_key(path), disk=False) is None, path


def test_health_json_counts_the_vectors_of_the_metadata_read_a_line_at_a_time(memory, monkeypatch):
    layout = Layout(memory)
    read_whole = whole_reads(layout, monkeypatch)
    snapshot.forget_memory()
    settings = Settings(data_path=str(memory), embedding_model="hash")
    report = health_report(layout, settings, datetime.fromisoformat(NOW.replace("Z", "+00:00")))
    assert report.measured.index.consistent and report.measured.embedder.index_built_with
    assert layout.relative(layout.vector_metadata) not in read_whole
    assert not layout.snapshot_for(layout.vector_metadata).exists()


def test_a_snapshot_of_the_derived_files_an_earlier_version_left_is_removed(memory):
    layout = Layout(memory)
    store = new_store(memory)
    for path, kind in ((layout.entities, "entity"), (layout.relations, "relation")):
        store.read_records(path, kind)  # as the check of every line read them before
        assert layout.snapshot_for(path).exists()
    quarantine_invalid_lines(new_store(memory))
    assert not layout.snapshot_for(layout.entities).exists()
    assert not layout.snapshot_for(layout.relations).exists()


def spoilt(path: Path, line: bytes) -> int:
    """`line` written in the middle of `path`: its line number."""
    lines = path.read_bytes().splitlines(keepends=True)
    middle = len(lines) // 2
    path.write_bytes(b"".join([*lines[:middle], line, *lines[middle:]]))
    return middle + 1


@pytest.mark.parametrize("name", ("facts", *CHECKED))
def test_a_bad_line_in_each_file_is_found_then_quarantined_with_its_message(memory, name):
    layout = Layout(memory)
    path = getattr(layout, name)
    number, relative = spoilt(path, b"not json\n"), layout.relative(path)
    reason = "invalid JSON (Expecting value at column 1)"
    message = f"{relative}:{number}: {reason}"
    assert Finding("invalid_line", relative, message, True) in found(memory)

    store = new_store(memory)
    quarantine_invalid_lines(store)
    quarantine = layout.quarantine_for(path)
    assert store.warnings == [f"{message}; moved to {layout.relative(quarantine)}"]
    [entry] = [json.loads(line) for line in quarantine.read_text().splitlines()]
    assert (entry["file"], entry["line"], entry["reason"], entry["raw"]) == (
        relative,
        number,
        reason,
        "not json",
    )
    assert b"not json" not in path.read_bytes()
    audit = [json.loads(line) for line in layout.audit_log.read_text().splitlines()]
    assert audit[-1]["repairs"] == [f"quarantined 1 invalid line(s) of {relative}"]
    assert not [finding for finding in found(memory) if finding.path == relative]


@pytest.mark.parametrize("name", ("entities", "vector_metadata", "audit_log"))
def test_a_torn_last_line_is_found_and_quarantined(memory, name):
    layout = Layout(memory)
    path = getattr(layout, name)
    whole = path.read_bytes()
    number = whole.count(b"\n") + 1
    relative = layout.relative(path)
    path.write_bytes(whole + whole.splitlines()[0][:20])
    message = f"{relative}:{number}: invalid JSON ("
    [finding] = [finding for finding in found(memory) if finding.path == relative]
    assert finding.code == "invalid_line" and finding.message.startswith(message)
    assert finding.message.endswith("; torn last line")

    store = new_store(memory)
    quarantine_invalid_lines(store)
    [warning] = store.warnings
    assert warning.startswith(message) and "; torn last line; moved to " in warning
    kept = path.read_bytes()  # the audit log: and the quarantine's line
    assert kept == whole if path != layout.audit_log else kept.startswith(whole)
    assert kept.count(b"\n") == len(kept.splitlines())


def test_a_whole_last_record_without_its_newline_is_kept_and_reported(memory):
    layout = Layout(memory)
    path = layout.vector_metadata
    whole = path.read_bytes()
    path.write_bytes(whole[:-1])
    relative = layout.relative(path)
    assert found(memory) == [
        Finding("invalid_line", relative, f"{relative}: no newline at the end", False)
    ]
    store = new_store(memory)
    quarantine_invalid_lines(store)
    assert store.warnings == [] and path.read_bytes() == whole[:-1]
    assert not layout.quarantine_for(path).exists()


def test_a_repeated_id_of_a_proposal_is_found_and_quarantined(memory):
    layout = Layout(memory)
    path = layout.pending_memories
    [line] = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(line + line)
    proposal = json.loads(line)["id"]
    relative = layout.relative(path)
    message = f"{relative}:2: duplicate id {proposal!r}"
    assert Finding("invalid_line", relative, message, True) in found(memory)
    store = new_store(memory)
    quarantine_invalid_lines(store)
    assert store.warnings == [f"{message}; moved to {layout.relative(layout.quarantine_for(path))}"]
    assert path.read_bytes() == line


def test_the_derived_files_are_compared_with_what_the_facts_make_line_by_line(memory):
    layout = Layout(memory)
    path = layout.entities
    lines = path.read_bytes().splitlines(keepends=True)
    count = len(lines)
    # written otherwise, the same records: what the facts make
    spaced = [json.dumps(json.loads(line), ensure_ascii=False).encode() + b"\n" for line in lines]
    path.write_bytes(b"".join(spaced))
    assert found(memory) == []
    mismatch = f"{layout.relative(path)} is not what the facts make"
    for changed, records in (
        ([lines[1], lines[0], *lines[2:]], count),  # out of order
        (lines[:-1], count - 1),  # one missing
        ([*lines, lines[0]], count + 1),  # one more
        ([lines[0], b"\n", b"not json\n", *lines[1:]], count),  # a line that is not a record
    ):
        path.write_bytes(b"".join(changed))
        derived = [finding for finding in found(memory) if finding.code == "derived_mismatch"]
        if records == count and changed[0] == lines[0]:
            assert derived == []  # the bad line is reported as such, the records are in step
            continue
        assert [finding.message for finding in derived] == [
            f"{mismatch} ({records} records, the facts make {count})"
        ]


def test_the_vector_metadata_is_compared_with_what_the_facts_call_for(memory):
    layout = Layout(memory)
    path = layout.vector_metadata
    lines = path.read_bytes().splitlines(keepends=True)
    count = len(lines)
    records = [json.loads(line) for line in lines]
    changed = dict(records[0], content_hash="0" * 16)
    stale = dict(records[1], vector_id=12345, fact_id="fact-00000000-0000-4000-8000-000000000000")
    oversized = dict(records[1], vector_id=1 << 70)
    metadata = layout.relative(path)
    index = layout.relative(layout.index_file)
    different = f"{index} and {metadata} hold different ids"
    for written, message in (
        (
            [changed, *records[2:], stale],
            f"{count} vectors, the facts call for {count} (2 missing or changed, 1 stale)",
        ),
        ([*records, records[0]], None),  # the same record twice
        (
            [*records, oversized],
            f"{count + 1} vectors, the facts call for {count} (0 missing or changed, 1 stale)",
        ),
    ):
        path.write_bytes(b"".join(files.dumps_record(r).encode() + b"\n" for r in written))
        messages = [finding.message for finding in found(memory) if finding.path == index]
        assert messages == (
            [] if message is None else [f"{metadata} holds {message}", different]
        ), written
