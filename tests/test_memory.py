"""The front door (memory.Memory): a memory opened by path is used as the command line uses
it, and what it does is what the command line does."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

import pytest
from vm_memory_oracle.config import Settings
from vm_memory_oracle.errors import DataDirError
from vm_memory_oracle.memory import Memory
from vm_memory_oracle.recall import Asked

from conftest import NOW, data_files, fact_of, hash_embedder, log_turns

AT = datetime(2026, 5, 15, 14, 30, tzinfo=timezone.utc)


def test_a_memory_opened_by_path_remembers_learns_and_recalls(tmp_path):
    memory = Memory.open(tmp_path / "memory", Settings(embedding_model="hash"), now=AT)
    assert memory.init().created
    remembered = memory.remember([fact_of({"subject": "user", "predicate": "lives_in",
                                           "object": "Porto"})])  # fmt: skip
    assert len(remembered.added) == 1
    log_turns(memory.data_path, [("user", "I'm allergic to peanuts.")], "2026-05-15-090000.jsonl")
    learned = memory.summarize()
    assert learned.session_files == ["sessions/2026-05-15-090000.jsonl"] and learned.added >= 1
    (found,) = memory.recall([Asked("What am I allergic to?", 3)], boost=False)
    assert "peanuts" in found.hits[0].text
    assert memory.warnings() == []


def test_it_reads_the_data_directorys_own_config_and_acts_as_the_command_line(cli, data_dir):
    assert cli("--action", "init").code == 0
    assert cli("--action", "config", "--set", "embedding_model=hash").code == 0
    memory = Memory.open(data_dir, now=AT)
    assert memory.settings.embedding_model == "hash"
    assert memory.settings.data_path == str(data_dir.absolute())
    log_turns(data_dir, [("user", "My sister Maya lives in Porto.")], "2026-05-14-090000.jsonl")
    twin = data_dir.parent / "twin"
    twin.mkdir()
    assert cli("--action", "init", data=twin).code == 0
    assert cli("--action", "config", "--set", "embedding_model=hash", data=twin).code == 0
    log_turns(twin, [("user", "My sister Maya lives in Porto.")], "2026-05-14-090000.jsonl")
    memory.summarize(all_pending=True)
    assert cli("--action", "summarize", "--all", data=twin, now=NOW).code == 0
    left_out = ("config.yaml", "audit.jsonl")
    assert data_files(data_dir, exclude=left_out) == data_files(twin, exclude=left_out)


def test_a_data_directory_that_is_not_a_memory_is_refused_before_anything_is_read(tmp_path):
    mine = tmp_path / "documents"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    with pytest.raises(DataDirError, match="holds no memory"):
        Memory.open(mine, now=AT)
    assert (mine / "notes.txt").read_text() == "mine" and len(list(mine.iterdir())) == 1


def test_settings_given_are_used_else_the_data_directorys_own(cli, data_dir):
    hash_embedder(cli)  # the data directory's config.yaml names the hashing embedder
    given = Settings(lock_timeout_seconds=5)
    opened = Memory.open(data_dir, given)
    assert opened.settings == replace(given, data_path=str(data_dir))
    assert opened.config_path is None
    assert opened.store().lock_timeout == 5
    own = Memory.open(data_dir)
    assert own.settings.embedding_model == "hash"
    assert own.config_path == data_dir / "config.yaml"
