"""The front door (memory.Memory): the settings a memory is opened with."""

from __future__ import annotations

from dataclasses import replace

from vm_memory_oracle.config import Settings
from vm_memory_oracle.memory import Memory

from conftest import hash_embedder


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
