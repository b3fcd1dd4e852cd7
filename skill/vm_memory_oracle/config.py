"""Settings: the `memory_oracle:` section of a YAML file, validated key by key.

Defaults are those of references/operations.md. An unknown key or a value out of range is
refused with a message naming the key; the file is read and written with ruamel.yaml's
round-trip mode so that a person's comments survive the tool changing a value.
"""

from __future__ import annotations

import io
import math
import os
import re
import shlex
import stat
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .model.characters import UNSAFE, UNSAFE_FOUND
from .model.fact import DEFAULT_SINGLE_VALUED, normalise_predicate
from .storage import files, snapshot

SECTION = "memory_oracle"
DEFAULT_DATA_PATH = "/data/memory"
INTERVALS = ("daily", "weekly", "monthly")
MAX_CONFIG_BYTES = 1 << 20
_DEVICE = re.compile(r"^(cpu|cuda(:\d+)?)$")


@dataclass(frozen=True)
class Settings:
    data_path: str = DEFAULT_DATA_PATH
    half_life_days: float = 30.0
    recall_boost: float = 0.3
    search_threshold: float = 0.15
    prune_threshold: float = 0.05
    max_facts: int = 10000
    session_retention_days: int = 30
    daily_retention_days: int = 365
    memory_md_max_lines: int = 200
    canary_check_interval: str = "weekly"
    embedding_model: str = "multilingual-e5-small"
    embedding_device: str = "cpu"
    embedding_pooling: str = "mean"
    embedding_query_prefix: str = "query: "
    embedding_passage_prefix: str = "passage: "
    approximate_min_facts: int = 20_000
    semantic_min_similarity: float | None = None
    merge_similarity: float | None = None
    recall_k: int = 10
    lock_timeout_seconds: float = 30.0
    backup_keep: int = 7
    single_valued_predicates: tuple[str, ...] = DEFAULT_SINGLE_VALUED
    extract_threshold: float = 0.35
    extract_roles: tuple[str, ...] = ("user",)
    extractor_command: tuple[str, ...] | None = None
    extractor_timeout_seconds: float = 120.0
    query_timeout_seconds: float = 10.0
    proposal_max_age_days: int = 14
    memory_md_max_chars: int = 8000
    openclaw_state_dir: str | None = None
    openclaw_sessions_dir: str | None = None
    openclaw_memory_dir: str | None = None
    path_check_roots: tuple[str, ...] = ("~",)
    exclude_channels: tuple[str, ...] = ()
    exclude_chat_types: tuple[str, ...] = ()
    exclude_hook_sources: tuple[str, ...] = ()
    share_direct_memories_in_groups: bool = False

    def single_valued(self) -> frozenset[str]:
        return frozenset(self.single_valued_predicates)

    def as_dict(self) -> dict[str, Any]:
        values = asdict(self)
        for key, value in values.items():
            if isinstance(value, tuple):
                values[key] = list(value)
        return values


KEYS = tuple(field.name for field in fields(Settings))


def _number(low: float, high: float, *, low_open: bool = False):
    def check(key: str, value: Any) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise ConfigError(f"{key} must be a number, got {value!r}", key=key)
        if value < low or value > high or (low_open and value == low):
            bracket = "(" if low_open else "["
            raise ConfigError(
                f"{key} must be in {bracket}{low:g}, {high:g}], got {value!r}", key=key
            )
        return float(value)

    return check


def _integer(low: int, high: int):
    def check(key: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key} must be a whole number, got {value!r}", key=key)
        if not low <= value <= high:
            raise ConfigError(f"{key} must be between {low} and {high}, got {value!r}", key=key)
        return value

    return check


def _text(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{key} must be a non-empty string, got {value!r}", key=key)
    if UNSAFE.search(value):
        raise ConfigError(f"{key} {UNSAFE_FOUND}: {value!r}", key=key)
    return value.strip()


def _choice(options: tuple[str, ...]):
    def check(key: str, value: Any) -> str:
        if value not in options:
            raise ConfigError(f"{key} must be one of {', '.join(options)}, got {value!r}", key=key)
        return value

    return check


def _optional_number(low: float, high: float):
    check_number = _number(low, high)

    def check(key: str, value: Any) -> float | None:
        return None if value is None else check_number(key, value)

    return check


def _prefix(key: str, value: Any) -> str:
    if not isinstance(value, str) or len(value) > 64:
        raise ConfigError(
            f"{key} must be a string of at most 64 characters, got {value!r}", key=key
        )
    return value


def _device(key: str, value: Any) -> str:
    if not isinstance(value, str) or not _DEVICE.match(value):
        raise ConfigError(f"{key} must be cpu, cuda or cuda:N, got {value!r}", key=key)
    return value


def _predicates(key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(
        isinstance(item, str) and item.strip() for item in value
    ):
        raise ConfigError(f"{key} must be a list of predicate names", key=key)
    return tuple(normalise_predicate(item) for item in value)


ROLES = ("user", "assistant", "system", "tool")


def _roles(key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or any(item not in ROLES for item in value):
        raise ConfigError(
            f"{key} must be a non-empty list of {', '.join(ROLES)}, got {value!r}", key=key
        )
    return tuple(value)


def _command(key: str, value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip():
        return tuple(shlex.split(value))
    if isinstance(value, list) and value and all(isinstance(item, str) and item for item in value):
        return tuple(value)
    raise ConfigError(
        f"{key} must be a command line (a string or a list of strings), got {value!r}", key=key
    )


def _optional_directory(key: str, value: Any) -> str | None:
    if value is None:
        return None
    return _text(key, value)


def _roots(key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(
        isinstance(item, str) and (item == "~" or item.startswith(("/", "~/"))) for item in value
    ):
        raise ConfigError(
            f"{key} must be a list of directories, each absolute or starting "
            f"with ~/, got {value!r}",
            key=key,
        )
    for item in value:
        if UNSAFE.search(item):
            raise ConfigError(f"{key} {UNSAFE_FOUND}: {item!r}", key=key)
    return tuple(value)


def _flag(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false, got {value!r}", key=key)
    return value


_NAME = re.compile(r"[\w.:-]{1,64}")


def _names(key: str, value: Any) -> tuple[str, ...]:
    """A list of OpenClaw names (a channel, a chat type, a hook source), compared without
    case: what admission leaves out."""
    if not isinstance(value, list) or not all(
        isinstance(item, str) and _NAME.fullmatch(item) for item in value
    ):
        raise ConfigError(
            f"{key} must be a list of names (letters, digits, '.', ':', '_' or '-'), got {value!r}",
            key=key,
        )
    return tuple(dict.fromkeys(item.lower() for item in value))


CHECKS = {
    "data_path": _text,
    "half_life_days": _number(0, 3650, low_open=True),
    "recall_boost": _number(0, 1),
    "search_threshold": _number(0, 1),
    "prune_threshold": _number(0, 1),
    "max_facts": _integer(1, 10_000_000),
    "session_retention_days": _integer(1, 36500),
    "daily_retention_days": _integer(1, 36500),
    "memory_md_max_lines": _integer(20, 100_000),
    "canary_check_interval": _choice(INTERVALS),
    "embedding_model": _text,
    "embedding_device": _device,
    "embedding_pooling": _choice(("mean", "cls")),
    "embedding_query_prefix": _prefix,
    "embedding_passage_prefix": _prefix,
    "approximate_min_facts": _integer(1, 100_000_000),
    "semantic_min_similarity": _optional_number(-1, 1),
    "merge_similarity": _optional_number(0, 1),
    "recall_k": _integer(1, 1000),
    "lock_timeout_seconds": _number(0, 3600, low_open=True),
    "backup_keep": _integer(1, 10_000),
    "single_valued_predicates": _predicates,
    "extract_threshold": _number(0, 1),
    "extract_roles": _roles,
    "extractor_command": _command,
    "extractor_timeout_seconds": _number(0, 3600, low_open=True),
    "query_timeout_seconds": _number(0, 3600, low_open=True),
    "proposal_max_age_days": _integer(1, 36500),
    "memory_md_max_chars": _integer(1000, 20_000),
    "openclaw_state_dir": _optional_directory,
    "openclaw_sessions_dir": _optional_directory,
    "openclaw_memory_dir": _optional_directory,
    "path_check_roots": _roots,
    "exclude_channels": _names,
    "exclude_chat_types": _names,
    "exclude_hook_sources": _names,
    "share_direct_memories_in_groups": _flag,
}
assert set(CHECKS) == set(KEYS)


# Keys of earlier versions, read as the key that replaced them (a config file written then
# keeps working). The index above the threshold was an HNSW graph; it is an IVF index now.
FORMER_KEYS = {"hnsw_min_facts": "approximate_min_facts"}


def settings_from_mapping(values: dict[str, Any], *, source: str = "config") -> Settings:
    """Validate a `memory_oracle:` mapping; the error names the first bad key."""
    checked: dict[str, Any] = {}
    for former, key in FORMER_KEYS.items():
        if former in values:
            values = {key: values[former], **values}
            del values[former]
    for key, value in values.items():
        if key not in CHECKS:
            raise ConfigError(
                f"unknown key {SECTION}.{key} (known: {', '.join(KEYS)})", source=source, key=key
            )
        try:
            checked[key] = CHECKS[key](key, value)
        except ConfigError as exc:
            raise ConfigError(f"{SECTION}.{exc}", source=source, key=key) from None
    settings = Settings(**checked)
    if settings.prune_threshold > settings.search_threshold:
        raise ConfigError(
            f"{SECTION}.prune_threshold ({settings.prune_threshold:g}) must not "
            f"exceed search_threshold ({settings.search_threshold:g})",
            source=source,
            key="prune_threshold",
        )
    return settings


def _yaml():
    from ruamel.yaml import YAML

    yaml = YAML()  # round-trip: comments and key order are kept
    yaml.preserve_quotes = True
    # Write None as `null`, as a person would, not as an empty value.
    yaml.representer.add_representer(
        type(None),
        lambda representer, _: representer.represent_scalar("tag:yaml.org,2002:null", "null"),
    )
    return yaml


def _read_document(path: Path):

    try:
        with open(path, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise ConfigError("config file is not a regular file", source=str(path))
            data = handle.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(
                f"config file is larger than {MAX_CONFIG_BYTES} bytes", source=str(path)
            )
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise ConfigError("config file does not exist", source=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file ({exc})", source=str(path)) from None
    return _parse_document(text, path)


def check_config_text(data: bytes, source: str) -> Settings:
    """The settings a config file holding `data` sets, or ConfigError naming `source`:
    a config read from elsewhere than a file (a backup archive's)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read config file ({exc})", source=source) from None
    document = _parse_document(text, Path(source))
    return settings_from_mapping(dict(document.get(SECTION) or {}), source=source)


def _parse_document(text: str, path: Path):
    from ruamel.yaml.error import YAMLError

    try:
        document = _yaml().load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ConfigError(f"invalid YAML: {problem}", source=str(path), line=line) from None
    except RecursionError:
        raise ConfigError("invalid YAML: nested too deeply", source=str(path)) from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise ConfigError(
            "top level must be a mapping with a memory_oracle: section", source=str(path)
        )
    section = document.get(SECTION)
    if section is not None and not isinstance(section, dict):
        raise ConfigError(
            f"{SECTION}: must be a mapping of settings", source=str(path), key=SECTION
        )
    return document


def load_settings(path: Path | None, cache_dir: Path | None = None) -> Settings:
    """Settings from `path` (defaults for every key it does not set); defaults when None.

    With `cache_dir`, the validated settings are kept as a snapshot while the file is
    unchanged, so a command does not parse YAML every time it starts.
    """
    if path is None:
        return Settings()
    cache = key = None
    if cache_dir is not None:
        cache = cache_dir / f"settings-{_slug(path)}.marshal"
        key = snapshot.file_key(path)
        held = snapshot.load(cache, key)
        if held is not None:
            return settings_from_mapping(held, source=str(path))
    document = _read_document(path)
    section = dict(document.get(SECTION) or {})
    settings = settings_from_mapping(section, source=str(path))
    if cache is not None:
        snapshot.save(cache, key, {name: _plain(value) for name, value in section.items()})
    return settings


def _slug(path: Path) -> str:
    import hashlib

    return hashlib.sha256(str(path.absolute()).encode("utf-8")).hexdigest()[:12]


def _plain(value: Any) -> Any:
    """ruamel's round-trip types as plain data (the snapshot format stores only plain data)."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return str(value)


def set_setting(
    path: Path, key: str, raw_value: str, store=None, *, data_dir: Path | None = None
) -> Settings:
    """Change one key of the file at `path`, keeping its comments; refuse an invalid value.
    With `store` (the file is the data directory's config.yaml), the file is read and
    written under the store's lock, and the change recorded in the audit log; without, the
    file is the user's own, outside any data directory. `data_dir` is the data directory
    the settings serve (where an embedding model's name is looked up). A key's former name
    sets the key under its name now, which wins over the former one still in the file."""
    key = FORMER_KEYS.get(key, key)
    if store is None:
        settings, data = _with_setting(path, key, raw_value)
        check_embedding_model(settings, data_dir, source=str(path))
        files.write_atomic(path, data)
        return settings
    with store.locked("config --set", needs=[path]):
        settings, data = _with_setting(path, key, raw_value)
        check_embedding_model(settings, data_dir or store.layout.root, source=str(path))
        store.write_bytes(path, data)
        store.note(f"set {key} = {raw_value}")
    return settings


def check_embedding_model(
    settings: Settings, data_dir: Path | None, *, source: str = "config"
) -> None:
    """Refuse an `embedding_model` that names no embedder (a misspelt name would otherwise
    run on the bundled model), naming the valid ones."""
    from .embed.names import unknown_model_problem

    root = data_dir if data_dir is not None else Path(settings.data_path).expanduser()
    problem = unknown_model_problem(settings.embedding_model, root)
    if problem is not None:
        raise ConfigError(
            f"{SECTION}.embedding_model: {problem}", source=source, key="embedding_model"
        )


def _with_setting(path: Path, key: str, raw_value: str) -> tuple[Settings, bytes]:
    """The settings and the bytes of the file at `path` with `key` set to `raw_value`."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError

    document = _read_document(path)
    if not isinstance(document, CommentedMap):
        document = CommentedMap(document)
    section = document.get(SECTION)
    if section is None:
        section = document[SECTION] = CommentedMap()
    try:
        value = _yaml().load(raw_value) if raw_value.strip() else raw_value
    except YAMLError as exc:
        raise ConfigError(
            f"invalid YAML value for {key}: {getattr(exc, 'problem', None) or exc}",
            source="--set",
            key=key,
        ) from None
    except RecursionError:
        raise ConfigError(
            f"invalid YAML value for {key}: nested too deeply", source="--set", key=key
        ) from None
    settings = settings_from_mapping({**dict(section), key: value}, source=str(path))
    section[key] = value
    buffer = io.StringIO()
    _yaml().dump(document, buffer)
    return settings, buffer.getvalue().encode("utf-8")
