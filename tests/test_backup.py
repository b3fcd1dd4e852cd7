"""Backup and restore: a memory learning live is backed up, restored elsewhere, and answers
the same; a damaged or hostile archive is refused naming the member at fault, with nothing
written; a backup or a restore killed midway leaves nothing that looks complete."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from conftest import hash_embedder, log_turns

WRITER = r"""
import sys
from pathlib import Path
from vm_memory_oracle.cli import main
data, stop = sys.argv[1], Path(sys.argv[2])
number = 0
while not stop.exists():
    code = main(["--data-path", data, "--action", "remember", "--subject", "user",
                 "--predicate", "collects", "--object", f"stamp series {number}"])
    assert code == 0, code
    number += 1
"""

KILLED = r"""
import os, signal, sys
import vm_memory_oracle.{module} as module
kill_at, count = int(sys.argv[1]), 0
def counted(function):
    def call(*args, **kwargs):
        global count
        count += 1
        if count == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return function(*args, **kwargs)
    return call
{patch}
from vm_memory_oracle.cli import main
code = main(sys.argv[2:])
sys.stdout.write(f"\ncalls {{count}}\n")
sys.exit(code)
"""

QUERIES = ("peanuts", "where does the user live", "stamp series", "cello")


def build(cli, data_dir: Path) -> None:
    hash_embedder(cli)
    for subject, predicate, value in (
        ("user", "allergic_to", "peanuts"),
        ("user", "lives_in", "Lisbon"),
        ("user", "plays", "the cello on Sundays"),
    ):
        assert (
            cli(
                "--action",
                "remember",
                "--subject",
                subject,
                "--predicate",
                predicate,
                "--object",
                value,
            ).code
            == 0
        )
    log_turns(data_dir, [("user", "I practise the cello every Sunday.")], "2026-05-15-090000.jsonl")


def answers(cli, data: Path) -> tuple[list, dict]:
    """What each query recalls (without boosting) and the health check's findings."""
    recalled = []
    for query in QUERIES:
        result = cli("--json", "--action", "recall", "--query", query, "--no-boost", data=data)
        assert result.code == 0, result.err
        recalled.append([(item["id"], item["text"]) for item in result.json()["results"]])
    health = cli("--json", "--action", "health-check", data=data)
    assert health.code == 0, health.err
    report = health.json()
    return recalled, {
        key: report[key]
        for key in (
            "status",
            "warnings",
            "findings",
            "total_facts",
            "active_facts",
            "archived_facts",
            "pinned_facts",
            "daily_files_count",
            "session_files_count",
            "memory_md_lines",
        )
    }


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.slow
def test_a_memory_learning_live_is_backed_up_and_restored_elsewhere(cli, data_dir, tmp_path):
    build(cli, data_dir)
    stop = tmp_path / "stop"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(data_dir), str(stop)])
    try:
        facts = data_dir / "knowledge-graph" / "facts.jsonl"
        deadline = time.monotonic() + 120
        while len(lines(facts)) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        archives = []
        for number in range(3):  # each while the writer appends
            archive = tmp_path / f"live backup {number}.tar.gz"
            result = cli("--json", "--action", "backup", "--to", str(archive))
            assert result.code == 0, result.err
            archives.append(archive)
        written_during = len(lines(facts))
    finally:
        stop.touch()
        assert writer.wait(timeout=120) == 0
    assert written_during > 5  # the writer was learning all along

    for number, archive in enumerate(archives):
        target = tmp_path / "another VM" / f"restored {number}"
        result = cli("--json", "--action", "restore", "--from", str(archive), data=target)
        assert result.code == 0, result.err
        assert result.json()["health"] == "healthy"
        restored = lines(target / "knowledge-graph" / "facts.jsonl")
        assert {"peanuts", "Lisbon"} <= {fact["object"] for fact in restored}
        # Consistent: each fact the writer added is there with the audit line that added it
        # (one locked write made both), and nothing the audit log names is missing.
        audited = {
            fact_id
            for entry in lines(target / "state" / "audit.jsonl")
            if entry["action"] == "remember"
            for fact_id in entry.get("ids", [])
        }
        assert audited == {fact["id"] for fact in restored}
        assert (target / "embeddings" / "index.bin").exists()  # rebuilt by the restore

    # Once the writer has stopped, a backup restored on another path answers as the original.
    quiet = tmp_path / "quiet.tar.gz"
    assert cli("--action", "backup", "--to", str(quiet)).code == 0
    elsewhere = tmp_path / "another VM" / "the memory"
    assert cli("--action", "restore", "--from", str(quiet), data=elsewhere).code == 0
    assert answers(cli, elsewhere) == answers(cli, data_dir)
    assert (elsewhere / "sessions" / "2026-05-15-090000.jsonl").read_bytes() == (
        data_dir / "sessions" / "2026-05-15-090000.jsonl"
    ).read_bytes()


def test_what_is_written_after_the_lock_is_left_out_and_a_half_line_too(
    cli, data_dir, tmp_path, monkeypatch
):
    from vm_memory_oracle import backup

    build(cli, data_dir)
    log = data_dir / "sessions" / "2026-05-15-090000.jsonl"
    facts = data_dir / "knowledge-graph" / "facts.jsonl"
    before = {path: path.read_bytes() for path in (log, facts)}
    log.write_bytes(before[log] + b'{"role": "user", "content": "half a li')
    hold = backup._hold

    def then_written(layout, timeout):  # others write once the lock is released
        held = hold(layout, timeout)
        with open(log, "a", encoding="utf-8") as handle:
            handle.write('ne"}\n')
        replacement = facts.with_name("facts.new")
        replacement.write_bytes(b"")
        replacement.replace(facts)  # replaced whole: a new file renamed over the old
        (data_dir / "daily" / "2026-05-16.md").write_text("# later\n")
        return held

    monkeypatch.setattr(backup, "_hold", then_written)
    archive = tmp_path / "during.tar.gz"
    result = cli("--json", "--action", "backup", "--to", str(archive))
    assert result.code == 0, result.err
    assert result.json()["reads"] == 1
    with tarfile.open(archive) as tar:
        carried = {
            name: tar.extractfile(name).read()  # type: ignore[union-attr]
            for name in tar.getnames()
        }
    assert carried["data/sessions/2026-05-15-090000.jsonl"] == before[log]
    assert carried["data/knowledge-graph/facts.jsonl"] == before[facts]
    assert "data/daily/2026-05-16.md" not in carried


def test_the_derived_files_stay_out_and_every_durable_file_is_named(cli, data_dir, tmp_path):
    build(cli, data_dir)
    assert cli("--action", "reindex").code == 0
    assert cli("--action", "health-check").code == 0
    archive = tmp_path / "a.tar.gz"
    assert cli("--action", "backup", "--to", str(archive)).code == 0
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        manifest = json.load(tar.extractfile("manifest.json"))  # type: ignore[arg-type]
    assert names[-1] == "manifest.json"
    carried = [entry["path"] for entry in manifest["files"]]
    assert ["data/" + path for path in carried] == names[:-1]
    for durable in (
        "knowledge-graph/facts.jsonl",
        "config.yaml",
        "state/audit.jsonl",
        "MEMORY.md",
        "sessions/2026-05-15-090000.jsonl",
        "activation-metadata.json",
    ):
        assert durable in carried
    for derived in ("embeddings/index.bin", "health.json", "embeddings/metadata.jsonl"):
        assert (data_dir / derived).exists() and derived not in carried
    assert not any(path.startswith("state/cache/") for path in carried)
    assert set(manifest["schemas"]) >= {"fact", "episode", "audit-entry"}
    assert manifest["bundle_version"] and manifest["created"] == "2026-05-15T14:30:00Z"


def test_a_backup_is_refused_where_it_would_overwrite_or_sit_inside(cli, data_dir, tmp_path):
    build(cli, data_dir)
    existing = tmp_path / "taken.tar.gz"
    existing.write_bytes(b"keep me")
    for to, says in (
        (existing, "already exists"),
        (data_dir / "state" / "b.tar.gz", "is inside the data directory"),
        (tmp_path / "no such dir" / "b.tar.gz", "does not exist"),
    ):
        result = cli("--action", "backup", "--to", str(to))
        assert result.code == 3
        assert result.err.startswith(f"Error: {to}: ") and says in result.err
    assert existing.read_bytes() == b"keep me"
    assert not (data_dir / "state" / "b.tar.gz").exists()


def rewrite(archive: Path, out: Path, change) -> None:
    """`archive` copied to `out`, each member as `change(info, data)` returns it (None
    drops it); `change` may return extra members after the manifest."""
    with tarfile.open(archive) as source, tarfile.open(out, "w:gz") as tar:
        for info in source.getmembers():
            data = source.extractfile(info).read()  # type: ignore[union-attr]
            for new_info, new_data in change(info, data):
                tar.addfile(new_info, io.BytesIO(new_data) if new_info.isfile() else None)


def same(info, data):
    return [(info, data)]


def member(name: str, data: bytes = b"", kind=tarfile.REGTYPE, link: str = ""):
    info = tarfile.TarInfo(name)
    info.type, info.size, info.linkname = kind, len(data), link
    return info, data


def tampered(info, data):
    if info.name == "data/knowledge-graph/facts.jsonl":
        data = data.replace(b"peanuts", b"walnuts")
        info.size = len(data)
    return [(info, data)]


def invalid_record(info, data):
    if info.name == "data/knowledge-graph/facts.jsonl":
        data = data.replace(b'"subject":"user"', b'"subject":""', 1)
        info.size = len(data)
    return [(info, data)]


def before_manifest(extra):
    def change(info, data):
        return [extra, (info, data)] if info.name == "manifest.json" else [(info, data)]

    return change


def missing(info, data):
    return [] if info.name == "data/MEMORY.md" else [(info, data)]


@pytest.mark.parametrize(
    ("change", "at_fault", "says"),
    [
        (tampered, "data/knowledge-graph/facts.jsonl", "sha256 differs"),
        (invalid_record, "data/knowledge-graph/facts.jsonl:1", "subject"),
        (missing, "data/MEMORY.md", "missing from the archive"),
        (
            before_manifest(member("data/../../escaped.jsonl", b"{}\n")),
            "data/../../escaped.jsonl",
            "escapes the data directory",
        ),
        (
            before_manifest(member("data/daily/2026-05-15.md", kind=tarfile.SYMTYPE, link="/etc")),
            "data/daily/2026-05-15.md",
            "a link (to /etc)",
        ),
        (
            before_manifest(member("data/embeddings/index.bin", b"x")),
            "data/embeddings/index.bin",
            "not a durable file",
        ),
        (
            before_manifest(member("data/daily/2026-05-16.md", b"# a day\n")),
            "data/daily/2026-05-16.md",
            "not named in manifest.json",
        ),
    ],
    ids=["tampered", "invalid", "missing", "escape", "link", "derived", "unnamed"],
)
def test_a_damaged_archive_is_refused_naming_the_file(
    cli, data_dir, tmp_path, change, at_fault, says
):
    build(cli, data_dir)
    archive = tmp_path / "good.tar.gz"
    assert cli("--action", "backup", "--to", str(archive)).code == 0
    bad = tmp_path / "bad.tar.gz"
    rewrite(archive, bad, change)
    target = tmp_path / "restored"
    for dry in ((), ("--dry-run",)):
        result = cli("--action", "restore", "--from", str(bad), *dry, data=target)
        assert result.code == 9, result.err
        assert f"{bad}: {at_fault}" in result.err and says in result.err
        assert len(result.err.strip().splitlines()) == 1
        assert not target.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        ["bad.tar.gz", "good.tar.gz", "home", "memory"]
    )
    assert not (tmp_path / "escaped.jsonl").exists()


def test_a_cut_archive_or_another_file_is_refused(cli, data_dir, tmp_path):
    build(cli, data_dir)
    archive = tmp_path / "good.tar.gz"
    assert cli("--action", "backup", "--to", str(archive)).code == 0
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    other = tmp_path / "notes.txt"
    other.write_text("not an archive\n")
    for path in (cut, other):
        result = cli("--action", "restore", "--from", str(path), data=tmp_path / "restored")
        assert result.code == 9 and f"Error: {path}: " in result.err
        assert not (tmp_path / "restored").exists()


def test_a_restore_fills_only_an_empty_directory(cli, data_dir, tmp_path):
    build(cli, data_dir)
    archive = tmp_path / "good.tar.gz"
    assert cli("--action", "backup", "--to", str(archive)).code == 0
    result = cli("--action", "restore", "--from", str(archive))  # into the memory itself
    assert result.code == 5 and "is not empty" in result.err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli("--action", "restore", "--from", str(archive), "--dry-run", data=empty).code == 0
    assert list(empty.iterdir()) == []
    assert cli("--action", "restore", "--from", str(archive), data=empty).code == 0
    assert (empty / "knowledge-graph" / "facts.jsonl").read_bytes() == (
        data_dir / "knowledge-graph" / "facts.jsonl"
    ).read_bytes()


def run_killed(module: str, patch: str, kill_at: int, *argv: str) -> subprocess.CompletedProcess:
    code = KILLED.format(module=module, patch=patch)
    return subprocess.run(
        [sys.executable, "-c", code, str(kill_at), *argv],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_a_backup_killed_midway_leaves_no_archive(cli, data_dir, tmp_path):
    build(cli, data_dir)
    # Killed before each file is added, before the archive is synced, and before it is named.
    patch = (
        "module._add = counted(module._add)\n"
        "module.os.fsync = counted(module.os.fsync)\n"
        "module.os.link = counted(module.os.link)"
    )
    argv = ("--data-path", str(data_dir), "--action", "backup")
    whole = run_killed("backup", patch, 0, *argv, "--to", str(tmp_path / "whole.tar.gz"))
    assert whole.returncode == 0, whole.stderr
    calls = int(whole.stdout.split("calls ")[-1])
    assert calls > 10
    for kill_at in range(1, calls + 1):
        archive = tmp_path / "backups" / f"killed at {kill_at}.tar.gz"
        archive.parent.mkdir(exist_ok=True)
        killed = run_killed("backup", patch, kill_at, *argv, "--to", str(archive))
        assert killed.returncode == -signal.SIGKILL
        if archive.exists():  # killed once it had its name: only in the directory's fsync
            assert kill_at == calls
            check = cli(
                "--action", "restore", "--from", str(archive), "--dry-run", data=tmp_path / "check"
            )
            assert check.code == 0, check.err
        # Only a hidden partial file may be left, never under the archive's name.
        assert {path.name for path in archive.parent.iterdir() if path.name[0] != "."} <= {
            f"killed at {calls}.tar.gz"
        }
    # What the killed backups left, the next backup of each name deletes.
    left = {path.name for path in archive.parent.iterdir() if path.name[0] == "."}
    assert left
    again = cli("--json", "--action", "backup", "--to", str(archive.parent / "killed at 1.tar.gz"))
    assert again.code == 0, again.err
    cleared = again.json()["cleared"]
    assert cleared == [name for name in sorted(left) if name.startswith(".killed at 1.tar.gz.")]
    assert cleared and not {path.name for path in archive.parent.iterdir()} & set(cleared)
    again = tmp_path / "backups" / "again.tar.gz"
    assert cli("--action", "backup", "--to", str(again)).code == 0
    assert (
        cli("--action", "restore", "--from", str(again), "--dry-run", data=tmp_path / "check").code
        == 0
    )


@pytest.mark.slow
def test_a_restore_killed_midway_leaves_the_target_absent_or_empty(cli, data_dir, tmp_path):
    build(cli, data_dir)
    archive = tmp_path / "good.tar.gz"
    assert cli("--action", "backup", "--to", str(archive)).code == 0
    patch = (
        "module._write_new = counted(module._write_new)\n"
        "module.os.rename = counted(module.os.rename)"
    )
    target = tmp_path / "restored"
    argv = ("--action", "restore", "--from", str(archive))
    whole = run_killed("restore", patch, 0, "--data-path", str(tmp_path / "whole"), *argv)
    assert whole.returncode == 0, whole.stderr
    calls = int(whole.stdout.split("calls ")[-1])
    assert calls > 5
    argv = ("--data-path", str(target), *argv)
    for kill_at in range(1, calls + 1):
        if kill_at % 2:
            target.mkdir()  # an empty directory given, or none
        killed = run_killed("restore", patch, kill_at, *argv)
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        assert not target.exists() or list(target.iterdir()) == []
        if target.exists():
            target.rmdir()
    # The next restore clears what the killed ones left beside the target, then restores.
    assert cli("--action", "restore", "--from", str(archive), data=target).code == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "good.tar.gz",
        "home",
        "memory",
        "restored",
        "whole",
    ]


def test_a_backup_into_a_directory_keeps_the_newest_backup_keep(cli, data_dir, tmp_path):
    build(cli, data_dir)
    assert cli("--action", "config", "--set", "backup_keep=2").code == 0
    backups = tmp_path / "memory-backups"
    backups.mkdir()
    (backups / "notes.txt").write_text("the user's own file\n")
    for day in ("2026-05-16", "2026-05-17", "2026-05-18"):
        result = cli("--action", "backup", "--to", str(backups), now=f"{day}T01:45:00Z")
        assert result.code == 0, result.err
        assert f"to {backups / f'memory-{day}T01-45-00Z.tar.gz'}" in result.out
    assert "Deleted 1 older archive(s), keeping the newest 2: " in result.out
    assert sorted(path.name for path in backups.iterdir()) == [
        "memory-2026-05-17T01-45-00Z.tar.gz",
        "memory-2026-05-18T01-45-00Z.tar.gz",
        "notes.txt",
    ]
    again = cli("--action", "backup", "--to", str(backups), now="2026-05-18T01:45:00Z")
    assert again.code == 3 and "already exists" in again.err


def gone_pid() -> int:
    """The process id of a process that has exited."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_the_partial_files_of_killed_backups_are_deleted_by_the_next(cli, data_dir, tmp_path):
    build(cli, data_dir)
    backups = tmp_path / "memory-backups"
    backups.mkdir()
    dead, alive = gone_pid(), os.getpid()
    killed = f".memory-2026-05-16T01-45-00Z.tar.gz.{dead}.partial"
    running = f".memory-2026-05-17T01-45-00Z.tar.gz.{alive}.partial"
    others = f".notes.txt.{dead}.partial"  # not an archive's: the user's own
    for name in (killed, running, others):
        (backups / name).write_bytes(b"\x1f\x8b cut short")
    result = cli("--json", "--action", "backup", "--to", str(backups), now="2026-05-18T01:45:00Z")
    assert result.code == 0, result.err
    assert result.json()["cleared"] == [killed]
    assert sorted(path.name for path in backups.iterdir()) == sorted(
        [running, others, "memory-2026-05-18T01-45-00Z.tar.gz"]
    )
    # A backup to a file name clears only what a killed backup of that name left.
    named = tmp_path / "memory.tar.gz"
    left = [tmp_path / f".memory.tar.gz.{dead}.partial", tmp_path / f".other.tar.gz.{dead}.partial"]
    for path in left:
        path.write_bytes(b"cut short")
    result = cli("--action", "backup", "--to", str(named))
    assert result.code == 0, result.err
    assert (
        f"Deleted 1 partial file(s) of backups killed before they finished: {left[0].name}"
        in result.out
    )
    assert not left[0].exists() and left[1].exists() and named.exists()
