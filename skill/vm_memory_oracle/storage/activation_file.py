"""activation-metadata.json packed as it is read, a piece at a time, where it is in the
form this tool writes it: no record of it held as a dictionary.

Parsed whole, a million facts' file (120 MB) was 500 MB of dictionaries before it was
packed (80 MB). The writer's form is one line of compact JSON, its keys sorted:

    {"facts":{"<id>":{"access_count":N,"activation":X[,"heard":[...]],
    "last_accessed":"<time>"},...},"updated":"<time>"}

Each record is matched in it and packed as it comes. Its fields' patterns are those of
the schema (a fact id, a number in [0, 1], a count of at most 18 digits, an ISO time, a
list of at most 20 texts of 1 to 512 characters), and the ids ascend, so that none is
there twice: what matches is what the schema passes. Anything else, a file a person
edited or an older form, is not packed here (None), and is read whole and checked.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from . import files, strict_json
from .activation_packed import PackedActivation, Rows

_TIME = (
    rb"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?"
    rb"(?:Z|[+-][0-9]{2}:[0-9]{2})"
)
_TEXT = rb'"(?:[^"\\\x00-\x1f]|\\.)*"'
_RECORD = re.compile(
    rb'"(fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})":'
    rb'\{"access_count":(0|[1-9][0-9]{0,17}),'
    rb'"activation":(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?),'
    rb'(?:"heard":(\[(?:' + _TEXT + rb"(?:," + _TEXT + rb")*)?\]),)?"
    rb'"last_accessed":"(' + _TIME + rb')"\}'
)
_START = b'{"facts":{'
_END = re.compile(rb'\},"updated":"' + _TIME + rb'"\}\n?')
# A record is far shorter than this (its heard texts at their longest, escaped): text
# past it that matches none is not the writer's form.
_LONGEST_RECORD = 1 << 20


def packed_file(path: Path) -> PackedActivation | None:
    """The records of the file at `path` packed (as activation_packed.pack packs them), if
    it is in the writer's form; None if it is not, or is missing."""
    try:
        handle = open(path, "rb")  # noqa: SIM115  # read a piece at a time below
    except FileNotFoundError:
        return None
    with handle:
        return _packed(handle)


def _packed(handle) -> PackedActivation | None:
    piece = files.LINES_PIECE
    text = handle.read(max(piece, len(_START) + 1))
    if not text.startswith(_START):
        return None
    place, ended = len(_START), False
    rows = Rows()
    previous = b""
    if text[place : place + 1] == b"}":  # no records
        closing = place
    else:
        while True:
            match = _RECORD.match(text, place)
            if match is None or match.end() == len(text):  # cut off, or not the form
                if ended or len(text) - place > _LONGEST_RECORD:
                    return None
                more = handle.read(piece)
                ended = not more
                text, place = text[place:] + more, 0
                continue
            fact_id = match[1]
            if fact_id <= previous:  # not ascending: written otherwise, or twice
                return None
            previous = fact_id
            value = _activation(match[3])
            if value is None:
                return None
            sources = None if match[4] is None else _heard(match[4])
            if match[4] is not None and sources is None:
                return None
            try:
                rows.add(
                    fact_id.decode("ascii"),
                    value,
                    int(match[2]),
                    match[5].decode("ascii"),
                    sources,
                )
            except ValueError:  # a time the schema's pattern passes, but no date
                return None
            place = match.end() + 1
            separator = text[match.end() : place]
            if separator == b"}":
                closing = match.end()
                break
            if separator != b",":
                return None
    rest = text[closing:] + handle.read()
    if not _END.fullmatch(rest):
        return None
    return rows.packed()


def _activation(text: bytes) -> float | int | None:
    """The number `text` is, as JSON reads it, if it is one in [0, 1]."""
    value: float | int
    if any(mark in text for mark in b".eE"):
        value = float(text)
        if not math.isfinite(value):
            return None
    else:
        value = int(text)
    return value if 0 <= value <= 1 else None


def _heard(text: bytes) -> list[str] | None:
    """The list of sources `text` is, if the schema passes it."""
    try:
        sources = strict_json.loads(text.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if len(sources) > 20 or not all(1 <= len(source) <= 512 for source in sources):
        return None
    return sources
