"""The storage layer when the disk refuses a write, in-process: what each piece does so that
a full disk or an I/O error ends in one line naming the file, exit 8, and nothing torn."""

from __future__ import annotations

import errno
import json
import os

import numpy as np
import pytest
from vm_memory_oracle.errors import EXIT_STORAGE
from vm_memory_oracle.storage import files
from vm_memory_oracle.storage.store import Store

from conftest import NOW, hash_embedder

FULL = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def refuse(monkeypatch, name: str, *, when=lambda *args: True, after: int = 0):
    """Make os.<name> raise ENOSPC (EIO for fsync and replace) when `when(*args)`; a
    refused os.write first writes `after` bytes, as a filling disk does."""
    original = getattr(os, name)
    code = errno.ENOSPC if name == "write" else errno.EIO

    def refused(*args):
        if when(*args):
            if name == "write" and after:
                original(args[0], bytes(args[1][:after]))
            raise OSError(code, os.strerror(code))
        return original(*args)

    monkeypatch.setattr(os, name, refused)


def names(path):
    return lambda fd, *rest: os.readlink(f"/proc/self/fd/{fd}") == str(path)


@pytest.mark.parametrize("call, after", [("write", 0), ("write", 7), ("fsync", 0)])
def test_an_append_that_fails_is_cut_back_and_names_its_file(tmp_path, monkeypatch, call, after):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a":1}\n')
    refuse(monkeypatch, call, after=after)
    with pytest.raises(OSError) as raised:
        files.append_lines(path, ['{"a":2}', '{"a":3}'])
    assert raised.value.filename == str(path)
    monkeypatch.undo()
    assert path.read_bytes() == b'{"a":1}\n'


@pytest.mark.parametrize("call", ["write", "fsync", "replace"])
def test_a_rewrite_that_fails_leaves_the_file_names_it_and_no_temporary(
    tmp_path, monkeypatch, call
):
    folder = tmp_path / "graph"
    folder.mkdir()
    path = folder / "facts.jsonl"
    path.write_text("old\n")
    refuse(monkeypatch, call)
    with pytest.raises(OSError) as raised:
        files.write_lines_atomic(path, ["new"])
    assert raised.value.filename == str(path)  # not the temporary's name
    monkeypatch.undo()
    assert path.read_text() == "old\n"
    assert [child.name for child in folder.iterdir()] == ["facts.jsonl"]


def test_a_directory_fsync_that_fails_names_the_file_written(tmp_path, monkeypatch):
    path = tmp_path / "MEMORY.md"
    calls = []

    def fsync_directory_fails(fd):
        calls.append(fd)
        if len(calls) == 2:  # the file's own fsync passes, the directory's fails
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", fsync_directory_fails)
    with pytest.raises(OSError) as raised:
        files.write_atomic(path, b"new\n")
    assert (raised.value.errno, raised.value.filename) == (errno.EIO, str(path))


def test_an_audit_line_the_disk_refuses_does_not_hide_the_write_that_failed(store, monkeypatch):
    audit = store.layout.audit_log
    before = audit.read_bytes()
    refuse(monkeypatch, "write", when=names(audit))
    with pytest.raises(OSError) as raised:
        with store.locked("remember"):
            store.touched(store.layout.facts)  # an earlier write of the block went through
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(store.layout.facts))
    assert raised.value.filename == str(store.layout.facts)
    monkeypatch.undo()
    assert audit.read_bytes() == before


def test_the_lock_holder_note_is_best_effort_on_a_failing_disk(store, monkeypatch):
    holder = store.layout.state_dir / "memory.lock.holder"
    refuse(monkeypatch, "write", when=names(holder))
    with store.locked("remember"):
        pass  # neither taking nor releasing the lock fails


def test_every_disk_refusal_exits_8_and_other_os_errors_exit_1(cli, data_dir, monkeypatch):
    from vm_memory_oracle.graph import KnowledgeGraph

    hash_embedder(cli)
    for code, exit_code in (
        (errno.ENOSPC, EXIT_STORAGE),
        (errno.EDQUOT, EXIT_STORAGE),
        (errno.EROFS, EXIT_STORAGE),
        (errno.EIO, EXIT_STORAGE),
        (errno.EACCES, 1),
    ):

        def refused(self, *args, code=code, **kwargs):
            raise OSError(code, os.strerror(code), str(data_dir / "knowledge-graph/facts.jsonl"))

        monkeypatch.setattr(KnowledgeGraph, "remember", refused)
        result = cli("--action", "remember", "--subject", "a", "--predicate", "b", "--object", "c")
        assert result.code == exit_code
        assert result.err == f"Error: {data_dir}/knowledge-graph/facts.jsonl: {os.strerror(code)}\n"


@pytest.mark.parametrize("written", ["as bytes", "by its producer"])
def test_a_vector_index_the_disk_refuses_is_an_os_error_naming_it(tmp_path, monkeypatch, written):
    from vm_memory_oracle.semantic.vectors import VectorIndex
    from vm_memory_oracle.storage.layout import Layout
    from vm_memory_oracle.storage.store import Store

    index = VectorIndex(8)
    index.add(np.arange(50), np.random.default_rng(1).random((50, 8)))
    store = Store(Layout(tmp_path), lock_timeout=1, timestamp="2026-07-20T00:00:00Z")
    folder = tmp_path / "embeddings"
    folder.mkdir()
    path = folder / "index.bin"
    data = (lambda: index.to_bytes()) if written == "as bytes" else (lambda: index.write_to)
    refuse(monkeypatch, "write", after=100)
    with pytest.raises(OSError) as raised:
        store.write_bytes(path, data())
    assert (raised.value.errno, raised.value.filename) == (errno.ENOSPC, str(path))
    monkeypatch.undo()
    assert list(folder.iterdir()) == []
    store.write_bytes(path, data())
    assert len(VectorIndex.load(path, 8)) == 50


def test_a_consolidation_removes_temporaries_left_in_state_cache_and_health_lists_it(cli, data_dir):
    hash_embedder(cli)
    assert cli("--action", "remember", "--from", "assets/examples/facts.jsonl").code == 0
    left = data_dir / "state" / "cache" / ".knowledge-graph__facts.jsonl.marshal.ab12cd34.tmp"
    left.write_bytes(b"half a snapshot")
    result = cli("--action", "consolidate")
    assert result.code == 0, result.err
    assert not left.exists()
    assert "state/cache/.knowledge-graph__facts.jsonl.marshal.ab12cd34.tmp" in result.err
    repairs = json.loads((data_dir / "health.json").read_text())["repairs"]
    assert repairs == [
        {
            "at": NOW,
            "action": "consolidate",
            "repair": "removed 1 temporary file(s) of an interrupted write",
        }
    ]


def test_a_forget_cut_off_between_archive_and_rewrite_is_finished_by_its_retry(
    cli, data_dir, monkeypatch
):
    hash_embedder(cli)
    assert (
        cli(
            "--action", "remember", "--subject", "user", "--predicate", "plays", "--object", "chess"
        ).code
        == 0
    )
    fact = json.loads((data_dir / "knowledge-graph" / "facts.jsonl").read_text())["id"]
    original = Store.rewrite_records

    def disk_fails_on_facts(self, path, kind, records, **options):
        if path == self.layout.facts:
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(path))
        return original(self, path, kind, records, **options)

    monkeypatch.setattr(Store, "rewrite_records", disk_fails_on_facts)
    assert cli("--action", "forget", "--id", fact).code == EXIT_STORAGE
    monkeypatch.undo()
    retried = cli("--json", "--action", "forget", "--id", fact)
    assert retried.code == 0, retried.err
    assert retried.json()["forgotten"] == fact
    archive = (data_dir / "knowledge-graph" / "archived-facts.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in archive] == [fact]
    assert (data_dir / "knowledge-graph" / "facts.jsonl").read_text() == ""


def test_damage_no_command_mends_is_listed_in_health_json_with_a_finding(cli, data_dir):
    from vm_memory_oracle.learning.daily import render_daily_summary

    hash_embedder(cli)
    summary = render_daily_summary(
        "2026-05-14",
        ["2026-05-14-090000.jsonl"],
        [
            {
                "section": section,
                "text": f"a {section} entry",
                "id": f"fact-{n:08d}-0000-5000-8000-000000000000",
                "source": f"sessions/2026-05-14-090000.jsonl:{n}",
            }
            for n, section in enumerate(["facts", "actions", "actions"], start=1)
        ],
    )
    (data_dir / "daily" / "2026-05-14.md").write_text(summary)
    (data_dir / "daily" / "2026-05-13.md").write_text(summary.replace("14", "13")[:150])
    (data_dir / "MEMORY.md").write_text("# MEMORY\n\n<!-- vm-memory-oracle:begin -->\n- a fa")
    (data_dir / "knowledge-graph" / "canary-facts.json").write_text('[{"query": "x"')
    report = cli("--json", "--action", "health-check").json()
    assert report["damaged_files"] == [
        {
            "file": "knowledge-graph/canary-facts.json",
            "problem": "invalid JSON (Expecting ',' delimiter at column 15)",
        },
        {
            "file": "MEMORY.md",
            "problem": "a begin marker without an end marker; the managed "
            "block is left as it is until the file is fixed by hand",
        },
        {
            "file": "daily/2026-05-13.md",
            "problem": "section 'Facts Learned' is cut short or "
            "holds a line summarize did not write; summarize --date 2026-05-13 writes it again "
            "while the day's session logs are kept",
        },
    ]
    assert [finding["code"] for finding in report["findings"]] == ["damaged_file"] * 3
    assert report["status"] == "degraded"
