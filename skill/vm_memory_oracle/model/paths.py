"""The file and directory paths a fact names, and which of them may be checked.

Pure functions only: nothing here looks at the filesystem (steps/stale.py does, with lstat).

A path reference is an absolute path (`/etc/nginx/nginx.conf`, `/home/u/proj/`) or a
path in the home directory (`~/notes/todo.md`) that starts the text, or follows a space, a
quote, a backtick, an opening bracket or a CJK character, and has at least one character
after its root. So a URL (`https://a.b/c`), `and/or`, `1/2` and a date like `2026/11/21`
are not paths: their slash follows a letter or a digit. A path ends at a space, a quote, a
backtick, a closing bracket that it did not open, CJK punctuation, or a CJK character
right after a character that is not CJK (`~/笔记/待办.md里` names `~/笔记/待办.md`).
Sentence punctuation at its end (`.,;:!?`) and a `:line` or `:line:column` suffix are not
part of it. A relative path (`src/app.py`) has no base to be checked against, so it is not
a reference.
"""

from __future__ import annotations

import os
import re

from .fact import Fact

HOME_PREFIX = "~/"
# Ideographs, kana, hangul: letters of a CJK text.
_CJK_LETTER = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
# CJK punctuation and full-width forms (，。：！？「」（）...): they end a path.
_CJK_MARK = "\u3000-\u303f\uff00-\uffef"
_QUOTES = "'\"`\u2018\u2019\u201c\u201d"
_OPENERS = "([{<"
_CLOSERS = {")": "(", "]": "[", "}": "{"}
# A path starts where the character before it (if any) is one of these.
_START = re.compile(rf"(?<![^\s{_QUOTES}{re.escape(_OPENERS)}{_CJK_LETTER}{_CJK_MARK}])~?/")
_BODY = re.compile(rf"[^\s{_QUOTES}>{_CJK_MARK}]*")
_CJK_LETTER_CHAR = re.compile(f"[{_CJK_LETTER}]")
_LINE_SUFFIX = re.compile(r"(?::\d+){1,2}$")
_TRAILING = ".,;:!?"


def path_references(text: str) -> list[str]:
    """The paths `text` names, as written, in order, each once."""
    if "/" not in text:
        return []
    found: list[str] = []
    taken = 0  # a slash inside a path found already starts no other one
    for start in _START.finditer(text):
        if start.start() < taken:
            continue
        body = _BODY.match(text, start.end())  # always matches: the run may be empty
        assert body is not None
        path = _trimmed(start.group() + body.group())
        if path is None:
            continue
        taken = start.start() + len(path)
        if path not in found:
            found.append(path)
    return found


def fact_references(fact: Fact) -> list[str]:
    """The paths a fact's object and text name, as written, each once."""
    found = path_references(fact.object)
    for path in path_references(fact.text or ""):
        if path not in found:
            found.append(path)
    return found


def _trimmed(candidate: str) -> str | None:
    """`candidate` cut where the path ends, or None when no path is left."""
    root = HOME_PREFIX if candidate.startswith(HOME_PREFIX) else "/"
    depth: list[str] = []
    end = len(candidate)
    for index in range(len(root), len(candidate)):
        char = candidate[index]
        if char in _OPENERS[:3]:
            depth.append(char)
        elif char in _CLOSERS:
            if not depth or depth.pop() != _CLOSERS[char]:
                end = index
                break
        elif (
            _CJK_LETTER_CHAR.match(char)
            and candidate[index - 1] != "/"
            and not _CJK_LETTER_CHAR.match(candidate[index - 1])
        ):
            end = index
            break
    path = candidate[:end]
    while True:
        shorter = _LINE_SUFFIX.sub("", path.rstrip(_TRAILING))
        if shorter == path:
            break
        path = shorter
    rest = path[len(root) :]
    if not rest.strip("/") or rest.startswith("/"):
        return None  # a bare root, or `//host/...`
    return path


def expanded(reference: str, home: str | None) -> str | None:
    """The absolute, lexically normalised path of a reference (links are not followed);
    None for a home path when the home directory is unknown."""
    if reference.startswith(HOME_PREFIX):
        if home is None:
            return None
        reference = home.rstrip("/") + "/" + reference[len(HOME_PREFIX) :]
    return os.path.normpath(reference)


def allowed_roots(configured: tuple[str, ...], data_dir: str, home: str | None) -> list[str]:
    """The directories under which references may be checked: the data directory and the
    configured ones (`~` is the home directory), normalised, each once."""
    roots = [os.path.normpath(data_dir)]
    for root in configured:
        if root == "~" or root.startswith(HOME_PREFIX):
            if home is None:
                continue
            root = home + root[1:]
        root = os.path.normpath(root)
        if root not in roots:
            roots.append(root)
    return roots


def covering_root(path: str, roots: list[str]) -> str | None:
    """The deepest of `roots` that `path` is in (or is), or None."""
    best = None
    for root in roots:
        inside = path == root or path.startswith(root if root == "/" else root + "/")
        if inside and (best is None or len(root) > len(best)):
            best = root
    return best
