"""The storage layer: durable appends, atomic rewrites, quarantine, refusal of planted links."""

from __future__ import annotations

import ast
import json
import os
import re
import signal
import time
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vm_memory_oracle.data_directory import initialize
from vm_memory_oracle.errors import ChangedMeanwhile, DataDirError, InvalidInputError
from vm_memory_oracle.model.activation import ActivationEntry
from vm_memory_oracle.model.fact import new_fact
from vm_memory_oracle.storage import files
from vm_memory_oracle.storage.layout import Layout
from vm_memory_oracle.storage.store import Store

from conftest import NOW, python_child


def make_fact(index: int) -> dict:
    return new_fact(
        {"subject": "user", "predicate": "visited", "object": f"city {index}"},
        created=NOW,
        default_source="user-stated",
    ).to_record()


def test_a_torn_last_line_is_quarantined_with_its_line_number(store):
    facts = [make_fact(i) for i in range(3)]
    store.append_records(store.layout.facts, "fact", facts)
    with open(store.layout.facts, "ab") as handle:
        handle.write(files.dumps_record(make_fact(99)).encode()[:40])  # power cut mid-line

    loaded = store.read_records(store.layout.facts, "fact", unique_key="id")

    assert [fact["id"] for fact in loaded] == [fact["id"] for fact in facts]
    quarantine = store.layout.graph_dir / "facts.quarantine.jsonl"
    entries = [json.loads(line) for line in quarantine.read_text().splitlines()]
    assert len(entries) == 1
    assert entries[0]["line"] == 4
    assert entries[0]["file"] == "knowledge-graph/facts.jsonl"
    assert "torn last line" in entries[0]["reason"]
    assert entries[0]["raw"] == files.dumps_record(make_fact(99))[:40]
    # The torn line left facts.jsonl, so the next append cannot be glued onto it.
    assert store.layout.facts.read_text().count("\n") == 3
    assert any("facts.jsonl:4" in warning for warning in store.warnings)


def test_invalid_lines_anywhere_are_quarantined_and_the_rest_loads(store):
    good = [make_fact(i) for i in range(4)]
    lines = [
        files.dumps_record(good[0]),
        "not json at all",
        files.dumps_record(good[1]),
        json.dumps({**good[2], "activation": 7}),
        files.dumps_record(good[3]),
        files.dumps_record(good[0]),
    ]
    store.layout.facts.write_text("\n".join(lines) + "\n")

    loaded = store.read_records(store.layout.facts, "fact", unique_key="id")

    assert [fact["id"] for fact in loaded] == [good[0]["id"], good[1]["id"], good[3]["id"]]
    entries = [
        json.loads(line)
        for line in (store.layout.graph_dir / "facts.quarantine.jsonl").read_text().splitlines()
    ]
    assert [(entry["line"], entry["reason"][:12]) for entry in entries] == [
        (2, "invalid JSON"),
        (4, "field 'activ"),
        (6, "duplicate id"),
    ]


def test_append_after_a_torn_tail_keeps_new_records_whole(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2, "b"')
    files.append_lines(path, ['{"a": 3}'])
    contents = files.read_jsonl(path, lambda record: None)
    assert contents.records == [{"a": 1}, {"a": 3}]
    assert [bad.line for bad in contents.bad] == [2]


def test_lines_are_written_a_piece_at_a_time_and_a_full_disk_cuts_the_append_back(
    tmp_path, monkeypatch
):
    """Many lines go out a piece at a time, never joined whole; the disk filling up on a
    later piece leaves the file as it was before the append, nothing torn."""
    monkeypatch.setattr(files, "LINES_PIECE", 64)
    lines = [
        json.dumps({"n": number, "text": "茶" * (number % 7)}, ensure_ascii=False)
        for number in range(40)
    ]
    longest = max(len(line.encode("utf-8")) + 1 for line in lines)
    pieces = list(files.encoded_lines(lines))
    assert len(pieces) > 5 and all(len(piece) < 64 + longest for piece in pieces)
    assert b"".join(pieces).decode("utf-8") == "".join(line + "\n" for line in lines)
    assert list(files.encoded_lines([])) == []

    path = tmp_path / "log.jsonl"
    files.append_lines(path, lines[:3])
    files.append_lines(path, lines[3:])
    assert path.read_text(encoding="utf-8").splitlines() == lines
    before = path.read_bytes()
    written = []
    real_write = os.write

    def filling(fd, data):
        if len(written) == 2:
            raise OSError(28, "No space left on device")
        written.append(len(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", filling)
    with pytest.raises(OSError):
        files.append_lines(path, lines)
    assert len(written) == 2 and path.read_bytes() == before


def test_a_failed_rename_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    folder = tmp_path / "graph"
    folder.mkdir()
    path = folder / "facts.jsonl"
    path.write_text("old\n")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        files.write_lines_atomic(path, ["new"])
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in folder.iterdir()) == ["facts.jsonl"]


def test_an_invalid_record_is_refused_before_anything_is_written(store):
    store.append_records(store.layout.facts, "fact", [make_fact(1)])
    before = store.layout.facts.read_bytes()
    bad = {**make_fact(2), "activation": "high"}
    with pytest.raises(InvalidInputError, match="activation"):
        store.append_records(store.layout.facts, "fact", [make_fact(3), bad])
    with pytest.raises(InvalidInputError, match="activation"):
        store.rewrite_records(store.layout.facts, "fact", [bad])
    assert store.layout.facts.read_bytes() == before


def test_corrupt_activation_metadata_is_set_aside_not_lost(store):
    store.layout.activation.write_text("{ this is not json")
    assert store.read_activation() == {}
    aside = list(store.layout.root.glob("activation-metadata.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_text() == "{ this is not json"
    assert any("activation-metadata.json" in warning for warning in store.warnings)


def test_symlinks_planted_in_the_data_directory_are_refused(store, tmp_path):
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text("")
    store.layout.facts.unlink()
    store.layout.facts.symlink_to(outside)
    [refusal] = store.layout.check()
    assert refusal.path == store.layout.facts
    assert refusal.message == (
        f"{store.layout.facts}: is a symlink; refusing to follow links "
        f"inside the data directory; remove it (rm {store.layout.facts}) "
        "and put the real file or directory there"
    )
    fresh = Store(store.layout, lock_timeout=5, timestamp=NOW)
    # a file no command can do without stops the command that needs it, before any write
    with pytest.raises(DataDirError, match="facts.jsonl: is a symlink"):
        fresh.read_records(store.layout.facts, "fact")
    with pytest.raises(DataDirError, match="facts.jsonl: is a symlink"):
        with fresh.locked("remember"):
            pass
    with fresh.locked("health", needs=[store.layout.health]):  # what needs no facts works
        fresh.write_text(store.layout.health, "{}")
    assert outside.read_text() == "" and store.layout.facts.is_symlink()


def test_a_planted_link_that_can_be_done_without_is_skipped_with_a_warning(store, tmp_path):
    layout = store.layout
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "2026-05-15-120000.jsonl").write_text(
        '{"ts": "2026-05-15T12:00:00Z", "role": "user", "text": "hunter2"}\n'
    )
    (layout.sessions_dir / "2026-05-16-090000.jsonl").write_text("")
    (layout.sessions_dir / "2026-05-15-120000.jsonl").symlink_to(
        outside / "2026-05-15-120000.jsonl"
    )
    layout.daily_dir.rmdir()
    layout.daily_dir.symlink_to(outside)
    fresh = Store(layout, lock_timeout=5, timestamp=NOW)
    assert fresh.session_files() == [layout.sessions_dir / "2026-05-16-090000.jsonl"]
    with fresh.locked("summarize"):
        fresh.write_text(layout.daily_summary("2026-05-15"), "# 2026-05-15\n")
        fresh.append_records(layout.facts, "fact", [make_fact(1)])
    assert [path.name for path in outside.iterdir()] == ["2026-05-15-120000.jsonl"]
    assert len(fresh.read_records(layout.facts, "fact")) == 1
    assert fresh.warnings == [
        "sessions/2026-05-15-120000.jsonl: is a symlink; refusing to follow links inside the "
        f"data directory; skipped (remove it (rm {layout.sessions_dir}/2026-05-15-120000.jsonl)"
        " and put the real file or directory there)",
        "daily: is a symlink; refusing to follow links inside the data directory; skipped "
        f"(remove it (rm {layout.daily_dir}) and put the real file or directory there)",
    ]


def test_a_data_directory_that_is_a_symlink_is_refused_naming_its_target(tmp_path):
    real = tmp_path / "real"
    link = tmp_path / "link"
    initialize(Layout(real))
    link.symlink_to(real)
    with pytest.raises(
        DataDirError, match=f"link: is a symlink .*give the directory it points to, {real}"
    ):
        Layout(link).check()
    Layout(real).check()


def test_a_file_where_the_data_directory_should_be_is_refused(tmp_path):
    blocker = tmp_path / "memory"
    blocker.write_text("")
    with pytest.raises(DataDirError, match="not a directory"):
        initialize(Layout(blocker))


WRITER = """
import sys, time
sys.path.insert(0, sys.argv[2])
from vm_memory_oracle.model.fact import new_fact
from vm_memory_oracle.storage.layout import Layout
from vm_memory_oracle.storage.store import Store
store = Store(Layout(__import__("pathlib").Path(sys.argv[1])), lock_timeout=30,
              timestamp="2026-05-15T14:30:00Z")
i = 0
print("ready", flush=True)
while True:
    batch = [new_fact({"subject": "user", "predicate": "visited",
                       "object": f"place {sys.argv[3]}-{i}-{j}",
                       "text": "x" * 1500}, created="2026-05-15T14:30:00Z",
                      default_source="user-stated").to_record() for j in range(50)]
    with store.locked("writer"):
        store.append_records(store.layout.facts, "fact", batch)
    i += 1
"""


@pytest.mark.slow
def test_killing_a_writer_mid_write_loses_nothing_already_written(store):
    package = str(Path(__file__).resolve().parents[1] / "skill")
    for attempt in range(3):
        child = python_child(WRITER, str(store.layout.root), package, str(attempt))
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.3 + 0.2 * attempt)
        child.send_signal(signal.SIGKILL)
        child.wait()
    raw_lines = store.layout.facts.read_bytes().split(b"\n")
    loaded = store.read_records(store.layout.facts, "fact", unique_key="id")
    # Every whole line written by a killed writer is still a valid fact; at most the line
    # being written at the kill is set aside, and the file ends clean for the next append.
    assert len(loaded) >= 50
    assert len(loaded) >= len([line for line in raw_lines if line.strip()]) - 3
    assert store.layout.facts.read_bytes().endswith(b"\n")
    store.append_records(store.layout.facts, "fact", [make_fact(10**6)])
    assert len(store.read_records(store.layout.facts, "fact", unique_key="id")) == len(loaded) + 1


def test_replace_if_unchanged_refuses_when_another_writer_appended(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text("one\n")
    seen = path.stat()
    with open(path, "a") as handle:  # the agent appends between our read and our replace
        handle.write("two\n")
    with pytest.raises(ChangedMeanwhile):
        files.replace_if_unchanged(path, b"ONE\n", size=seen.st_size, mtime_ns=seen.st_mtime_ns)
    assert path.read_text() == "one\ntwo\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "home") == ["log.jsonl"]
    now = path.stat()
    files.replace_if_unchanged(path, b"ONE\nTWO\n", size=now.st_size, mtime_ns=now.st_mtime_ns)
    assert path.read_text() == "ONE\nTWO\n"


def test_recall_boosts_go_to_the_journal_and_fold_into_the_file(store):
    state = {"fact-00000000-0000-5000-8000-00000000000a": ActivationEntry(0.5, NOW, 0)}
    store.write_activation(state)
    fact_id = next(iter(state))
    for count in range(1, 4):
        state[fact_id] = ActivationEntry(0.5 + count / 10, NOW, count)
        store.write_activation(state, changed=[fact_id], journal_limit=3)
    file_state = json.loads(store.layout.activation.read_text())["facts"]
    # Two boosts went to the journal; the third reached the limit and folded everything in.
    assert file_state[fact_id]["access_count"] == 3
    assert store.layout.activation_journal.read_text() == ""
    state[fact_id] = ActivationEntry(1.0, NOW, 4)
    store.write_activation(state, changed=[fact_id], journal_limit=3)
    assert json.loads(store.layout.activation.read_text())["facts"][fact_id]["access_count"] == 3
    fresh = Store(store.layout, lock_timeout=5, timestamp=NOW)
    assert fresh.read_activation()[fact_id].access_count == 4


def test_the_journal_view_follows_appends_and_folds_as_a_fresh_read_gives_it(store):
    """The journal's state is kept between reads and extended by what this process appends;
    it must always equal what another process reading the files makes of them, and a view
    handed out before an append must not change under its holder."""
    ids = [f"fact-00000000-0000-5000-8000-{number:012x}" for number in range(1, 5)]
    state = {fact_id: ActivationEntry(0.5, NOW, 0) for fact_id in ids}
    store.write_activation(state)
    views = []
    for round_number in range(1, 9):
        fact_id = ids[round_number % len(ids)]
        state[fact_id] = ActivationEntry(round(0.5 + round_number / 20, 3), NOW, round_number)
        # A limit of 5: the fifth boost folds the four journal lines into the file.
        store.write_activation(state, changed=[fact_id], journal_limit=5)
        view = store.activation_view()
        views.append((dict(view), view))
        fresh = Store(store.layout, lock_timeout=5, timestamp=NOW)
        assert dict(view) == fresh.read_activation() == state
        assert store.activation_entries({fact_id, ids[0]}) == {
            fact_id: state[fact_id],
            ids[0]: state[ids[0]],
        }
    assert store.layout.activation_journal.read_text().count("\n") == 3  # folded once
    for copied, view in views:
        assert dict(view) == copied


def test_the_store_writes_inside_its_data_directory_only(store, tmp_path):
    outside = tmp_path / "elsewhere.txt"
    for write in (
        lambda: store.write_text(outside, "x"),
        lambda: store.delete(outside),
        lambda: store.append_lines(outside, ["{}"]),
        lambda: store.create_file(outside, b"x"),
    ):
        with pytest.raises(ValueError, match="outside the data directory"):
            write()
    assert not outside.exists()


def test_whole_file_writes_are_audited_but_derived_caches_are_not(store):
    layout = store.layout
    with store.locked("test"):
        store.write_text(layout.daily_summary("2026-07-01"), "# 2026-07-01\n")
        store.make_directory(layout.cache_dir)
        store.write_bytes(layout.cache_dir / "something.marshal", b"derived")
        store.write_bytes(layout.embedding_cache("hash-256"), b"vectors")
    with store.locked("test: remove"):
        assert store.delete(layout.daily_summary("2026-07-01"))
        assert not store.delete(layout.daily_summary("2026-07-01"))
    entries = [json.loads(line) for line in layout.audit_log.read_text().splitlines()]
    assert [entry["files"] for entry in entries[-2:]] == [
        ["daily/2026-07-01.md"],
        ["daily/2026-07-01.md"],
    ]


# The modules that write a file themselves, and why: each writes outside the data
# directory, where the store has no say.
WRITERS_OUTSIDE = {
    "config.py": "a config file of the user's own, given with --config, outside any memory",
    "steps/memory_md/workspaces.py": "OpenClaw's workspace MEMORY.md files",
    "backup.py": "the backup archive, refused inside the data directory",
    "restore.py": "a restored data directory's files, unpacked beside it before it is a "
    "memory (no store, no lock yet) and renamed into place whole",
}
_WRITES = re.compile(
    r"\bfiles\.(?:write_atomic|write_lines_atomic|append_lines|create_file|"
    r"replace_if_unchanged|make_directory|write_json_atomic)\(|\bos\.(?:unlink|replace|"
    r"remove|rename|makedirs|mkdir)\(|(?<!store)\.(?:write_text|write_bytes|unlink|mkdir)\(|"
    r"\bshutil\.(?:copy|copy2|copyfile|move|rmtree)\(|\bopen\([^)]*[\"'][wax]b?[\"']"
)


def test_no_module_but_the_store_writes_in_the_data_directory():
    package = Path(__file__).resolve().parents[1] / "skill" / "vm_memory_oracle"
    writers = set()
    for path in package.rglob("*.py"):
        name = path.relative_to(package).as_posix()
        if name.startswith("storage/"):
            continue
        if any(
            _WRITES.search(line)
            for line in path.read_text().splitlines()
            if not line.lstrip().startswith("#")
        ):
            writers.add(name)
    assert writers == set(WRITERS_OUTSIDE)


def _code_strings(tree: ast.AST) -> list[str]:
    """The string constants of a module's code (docstrings, which only describe, left out)."""
    described = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in described
    ]


@pytest.mark.slow
def test_the_layout_alone_names_the_files_of_the_state_directory():
    package = Path(__file__).resolve().parents[1] / "skill" / "vm_memory_oracle"
    names = (
        "summarized.json",
        "imports.json",
        "index-built",
        "lexical-index.marshal",
        "index-state.marshal",
        "sessions.quarantine.jsonl",
        "audit.jsonl",
    )
    spelled = {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        for text in _code_strings(ast.parse(path.read_text()))
        if text == "cache" or any(name in text for name in names)
    }
    assert spelled == {"storage/layout.py"}


def test_the_command_line_is_a_thin_door_that_neither_locks_nor_writes():
    cli = Path(__file__).resolve().parents[1] / "skill" / "vm_memory_oracle" / "cli"
    code = [
        line
        for module in sorted(cli.glob("*.py"))
        for line in module.read_text().splitlines()
        if not line.lstrip().startswith("#")
    ]
    assert len(code) > 500  # the whole command line was read
    doors = re.compile(
        r"\.(?:locked|write_\w+|append_\w+|rewrite_records|delete|create_file|"
        r"replace_if_unchanged|make_directory)\("
    )
    assert [line.strip() for line in code if doors.search(line)] == []


def test_facts_are_written_unchecked_only_when_known_to_pass_the_schema(store):
    """A Fact read from the file, or checked by intake, is written without a second schema
    check; any change makes it unchecked again, and an invalid one is refused."""
    from vm_memory_oracle.model.fact import Fact

    fact = Fact.from_record(make_fact(1))
    assert not fact.checked
    store.append_facts([fact.mark_checked()])
    [read] = store.read_facts()
    assert read.checked
    assert not read.changed(importance=0.5).checked
    broken = read.changed(activation=7.0)  # fact.schema.json: activation at most 1
    with pytest.raises(InvalidInputError, match="refusing to write an invalid fact record"):
        store.rewrite_facts([broken])
    with pytest.raises(InvalidInputError, match="refusing to write an invalid fact record"):
        store.append_facts([Fact.from_record(make_fact(2)).changed(activation=-1.0)])
    before = store.layout.facts.read_bytes()
    valid = Fact.from_record(make_fact(3))  # unchecked, and before the invalid one
    with pytest.raises(InvalidInputError, match="refusing to write an invalid fact record"):
        store.append_facts([valid, broken.changed(id=make_fact(4)["id"])])
    with pytest.raises(InvalidInputError, match="refusing to write an invalid fact record"):
        store.rewrite_facts([read, valid, broken])
    assert store.layout.facts.read_bytes() == before
    assert [fact.id for fact in store.read_facts()] == [read.id]


def test_a_whole_activation_write_checks_every_entry_not_read_from_the_file(store):
    """Entries kept as read from activation-metadata.json are not checked again; a new or
    changed one is, and an invalid one is refused with nothing written."""
    good = ActivationEntry(0.5, NOW, 0)
    ids = [f"fact-00000000-0000-5000-8000-{number:012x}" for number in range(1, 4)]
    store.write_activation({fact_id: good for fact_id in ids})
    before = store.layout.activation.read_bytes()
    state = store.read_activation()
    state[ids[0]] = replace(good, activation=5.0)  # above 1
    with pytest.raises(InvalidInputError, match="refusing to write an invalid"):
        store.write_activation(state)
    assert store.layout.activation.read_bytes() == before
    state[ids[0]] = replace(good, access_count=2)
    state["not-a-fact-id"] = good
    with pytest.raises(InvalidInputError, match="refusing to write an invalid"):
        store.write_activation(state)
    del state["not-a-fact-id"]
    store.write_activation(state)
    assert Store(store.layout, lock_timeout=5, timestamp=NOW).read_activation() == state


def test_a_file_digest_is_blake2b_of_its_bytes_or_of_their_beginning(tmp_path):
    import hashlib

    path = tmp_path / "facts.jsonl"
    data = bytes(range(256)) * 9000  # more than one megabyte: read in pieces
    path.write_bytes(data)

    def blake(content: bytes) -> str:
        return hashlib.blake2b(content, digest_size=16).hexdigest()

    assert files.file_digest(path) == blake(data)
    assert files.file_digest(path, 1_500_000) == blake(data[:1_500_000])
    assert files.file_digest(path, 0) == blake(b"")
    assert files.file_digest(path, len(data) + 1) is None  # shorter than asked
    assert files.file_digest(tmp_path / "missing") is None


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(value=st.dictionaries(st.text(max_size=4), _JSON_VALUES, max_size=12))
def test_a_compact_document_is_written_in_pieces_that_join_to_its_whole_text(value):
    from vm_memory_oracle.storage import strict_json

    whole = strict_json.dumps(value, sort_keys=True, separators=(",", ":"))
    original = files.JSON_BLOCK
    files.JSON_BLOCK = 2  # every object of more than two entries written in blocks
    try:
        pieces = list(files.compact_pieces(value))
    finally:
        files.JSON_BLOCK = original
    assert "".join(pieces) == whole
    assert len(value) <= 2 or len(pieces) > 1


def test_the_activation_state_is_written_a_block_at_a_time_as_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "JSON_BLOCK", 3)
    monkeypatch.setattr(files, "LINES_PIECE", 64)
    document = {
        "updated": "2026-05-15T00:00:00Z",
        "facts": {f"fact-{n}": {"activation": 1.0, "access_count": n} for n in range(10)},
    }
    path = tmp_path / "activation-metadata.json"
    made: list[str] = []  # the pieces made so far
    written: list[int] = []  # how many had been made at each write
    compact_pieces, write_atomic = files.compact_pieces, files.write_atomic

    def counted(value):
        for piece in compact_pieces(value):
            made.append(piece)
            yield piece

    def watched(target, produce, **options):
        def writing(write):
            produce(lambda piece: (written.append(len(made)), write(piece)))

        write_atomic(target, writing, **options)

    monkeypatch.setattr(files, "compact_pieces", counted)
    monkeypatch.setattr(files, "write_atomic", watched)
    files.write_json_atomic(path, document, compact=True)
    text = path.read_text(encoding="utf-8")
    assert text == json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n"
    assert len(written) > 1 and written[0] < len(made)  # written while it is made
    with pytest.raises(ValueError, match="cannot be written as JSON"):
        files.write_json_atomic(path, {"facts": {"a": float("nan")}}, compact=True)
    assert path.read_text(encoding="utf-8") == text  # a refused document changes nothing
