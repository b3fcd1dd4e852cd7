"""The memory page as one self-contained HTML file: the template, style and script shipped
beside this module (page.html, page.css, page.js), inlined with the memory's record as
JSON. A Content-Security-Policy lets the page run its own script and style (by their
hashes) and load nothing at all, so no request leaves it. Written atomically, owner only,
as every file of the data directory: it holds the memory's contents."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..errors import InvalidInputError
from ..storage.files import write_atomic
from .records import ViewData

PAGE_NAME = "view.html"  # in the data directory, unless written elsewhere


@dataclass(frozen=True)
class Page:
    path: Path
    size: int  # bytes
    facts: int


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _hash(text: str) -> str:
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"
    )


def _json_in_script(value: object) -> str:
    """JSON that cannot end its <script> element or open a comment in it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render(data: ViewData) -> str:
    """The page's HTML."""
    script, style = _asset("page.js"), _asset("page.css")
    csp = (
        f"default-src 'none'; script-src {_hash(script)}; style-src {_hash(style)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    html = _asset("page.html")
    for name, value in (("__CSP__", csp), ("__CSS__", style), ("__JS__", script)):
        html = html.replace(name, value, 1)
    # The data last: its text is the memory's, and may hold any of the placeholders' names.
    return html.replace("__DATA__", _json_in_script(data.to_json()), 1)


def write_page(data: ViewData, path: Path) -> Page:
    """The page of `data` written to `path` (replaced atomically, owner only)."""
    if not path.parent.is_dir():
        raise InvalidInputError(f"{path}: its folder does not exist", source="--to")
    if path.is_dir():
        raise InvalidInputError(f"{path}: is a folder, not a file", source="--to")
    encoded = render(data).encode("utf-8")
    write_atomic(path, encoded, durable=False)
    return Page(path, len(encoded), len(data.facts))
