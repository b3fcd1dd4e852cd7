"""Texts and numbers packed as bytes, read where they lie: the lexical snapshot's ids, names
and terms and the postings of its terms, and the activation state as recall reads it.

A recall process holds both of every current fact: held as Python strings, lists and
dictionaries they took about 1 KB a fact at 100,000 facts; packed, a text
takes its own bytes and a 4-byte end, and a number 4 or 8 bytes. A text is made a string
only when it is looked at, and found by a sorted array of 63-bit hashes, each match
compared with the text itself (two texts may share a hash).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from operator import index
from typing import Literal, SupportsIndex, overload

import numpy as np

from ..model.fact import stable_hash, vector_id

# How many looked-up texts a lookup keeps (a recall looks at the same facts many times a
# query); past it, what it kept is let go.
KEPT_LOOKUPS = 100_000

# How many texts many_packed compares in one step (each step copies that many of them).
COMPARED_AT_ONCE = 65_536


def pack_texts(texts: Iterable[str]) -> tuple[bytes, bytes]:
    """(the texts' UTF-8 bytes one after the other, the end of each as uint32)."""
    packing = Packing()
    blob, ends = packing.blob, packing.ends  # the loop's own names: a million texts, 40 ms
    for text in texts:
        blob += text.encode("utf-8")
        ends.append(len(blob))
    return packing.packed()


class Packing:
    """Texts packed as pack_texts packs them, one added at a time: by a pass that packs a
    text of each of many records among other work (the facts' ids, a million of them, not
    held as strings)."""

    __slots__ = ("blob", "ends")

    def __init__(self) -> None:
        self.blob = bytearray()
        self.ends = array("I")

    def add(self, text: str) -> None:
        self.blob += text.encode("utf-8")
        self.ends.append(len(self.blob))

    def packed(self) -> tuple[bytes, bytes]:
        """(the texts' bytes, their ends), as pack_texts gives them."""
        return bytes(self.blob), self.ends.tobytes()


def joined_texts(first: tuple[bytes, bytes], second: tuple[bytes, bytes]) -> tuple[bytes, bytes]:
    """The packed texts of `first` followed by those of `second`."""
    ends = np.frombuffer(second[1], dtype=np.uint32) + np.uint32(len(first[0]))
    return first[0] + second[0], first[1] + ends.tobytes()


class Texts(Sequence[str]):
    """Texts packed by pack_texts, each made a string when it is read, and kept (up to
    KEPT_LOOKUPS of them): a recall reads the ids of the same candidates many times."""

    def __init__(self, blob: bytes, ends: bytes):
        self.blob = blob
        self.ends = ends
        self._ends = memoryview(ends).cast("B").cast("I")
        self._made: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, number: SupportsIndex) -> str: ...

    @overload
    def __getitem__(self, number: slice) -> list[str]: ...

    def __getitem__(self, number: SupportsIndex | slice) -> str | list[str]:
        if isinstance(number, slice):
            return [self[one] for one in range(*number.indices(len(self)))]
        number = index(number)
        made = self._made.get(number)
        if made is not None:
            return made
        if number < 0:
            number += len(self)
        if not 0 <= number < len(self):
            raise IndexError(number)
        start = self._ends[number - 1] if number else 0
        made = self.blob[start : self._ends[number]].decode("utf-8")
        if len(self._made) >= KEPT_LOOKUPS:
            self._made.clear()
        self._made[number] = made
        return made

    def __iter__(self) -> Iterator[str]:
        return (self[number] for number in range(len(self)))

    def text_at(self, number: int) -> str:
        """The `number`-th text (not negative), made and not kept: for a pass over many,
        which would only churn what is kept."""
        start = self._ends[number - 1] if number else 0
        return self.blob[start : self._ends[number]].decode("utf-8")


def texts_width(texts: Texts) -> int | None:
    """The length in bytes every one of `texts` has, None when they differ."""
    if not len(texts):
        return 0
    width = len(texts.blob) // len(texts)
    ends = np.frombuffer(texts.ends, dtype=np.uint32)
    if len(texts.blob) % len(texts) or ends[0] != width or np.any(np.diff(ends) != width):
        return None
    return width


def text_hash(text: str) -> int:
    """A stable 63-bit hash of a name or a term (model.fact.stable_hash)."""
    return stable_hash(text.encode("utf-8"))


def id_hash(fact_id: str) -> int:
    """A fact id's hash: its vector id (model.fact.vector_id); -1 for a text no fact id is
    (none is)."""
    try:
        return vector_id(fact_id)
    except ValueError:
        return -1


class Numbers(Mapping[str, int]):
    """Text -> its number in `texts`, found by `hashes` (the hash of each text by `hashed`,
    in ascending order) and `order` (the number of the text of each hash; None: the texts
    are in the order of their hashes). Of two equal
    texts, the later number is found, as a dictionary made of them in order would hold it.
    What is looked up is kept (up to KEPT_LOOKUPS texts)."""

    def __init__(
        self,
        texts: Texts,
        hashes: np.ndarray,
        order: np.ndarray | None,
        hashed: Callable[[str], int],
    ):
        self.texts = texts
        self._hashes = numbers_view(hashes, np.uint64, "Q")
        self._order = None if order is None else numbers_view(order, np.int64, "q")
        self._hashed = hashed
        self._kept: dict[str, int | None] = {}

    def get(self, text: object, default: object = None):
        number = self._number(text)
        return default if number is None else number

    def __getitem__(self, text: str) -> int:
        number = self._number(text)
        if number is None:
            raise KeyError(text)
        return number

    def __contains__(self, text: object) -> bool:
        return self._number(text) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.texts)

    def __len__(self) -> int:
        return len(self.texts)

    def many(self, texts: Sequence[str]) -> np.ndarray:
        """The number of each of `texts` (-1 for one not held), found together: what get
        gives each, without keeping them."""
        if not len(self._hashes):
            return np.full(len(texts), -1, dtype=np.int64)
        wanted = np.array([self._hashed(text) for text in texts], dtype=np.int64)
        hashes = np.frombuffer(self._hashes, dtype=np.uint64)
        places = np.searchsorted(hashes, wanted.astype(np.uint64))
        inside = np.minimum(places, len(hashes) - 1)
        found = (wanted >= 0) & (hashes[inside] == wanted.astype(np.uint64))
        if self._order is None:
            numbers = inside.astype(np.int64)
        else:
            numbers = np.frombuffer(self._order, dtype=np.int64)[inside]
        numbers = np.where(found, numbers, -1)
        shared = np.flatnonzero(found)
        if len(shared) and np.any(np.diff(hashes) == 0):  # a hash shared: one by one
            for place in shared.tolist():
                number = self._number(texts[place])
                numbers[place] = -1 if number is None else number
            return numbers
        for place in shared.tolist():  # each match compared with the text itself
            if self.texts[int(numbers[place])] != texts[place]:
                numbers[place] = -1
        return numbers

    def many_packed(self, texts: Texts, hashes: np.ndarray) -> np.ndarray:
        """many(texts), given the texts' hashes: where every text of both is as long as
        every other (fact ids), the matches are compared together, byte for byte."""
        width = texts_width(texts)
        if width is None or width != texts_width(self.texts) or not len(self._hashes):
            return self.many(texts)
        mine = np.frombuffer(self._hashes, dtype=np.uint64)
        inside = np.minimum(np.searchsorted(mine, hashes), len(mine) - 1)
        found = mine[inside] == hashes
        if np.any(np.diff(mine) == 0) or np.any(np.diff(np.sort(hashes)) == 0):
            return self.many(texts)  # a hash shared: one by one
        if self._order is None:
            numbers = inside.astype(np.int64)
        else:
            numbers = np.frombuffer(self._order, dtype=np.int64)[inside]
        numbers = np.where(found, numbers, -1)
        if width:
            theirs = np.frombuffer(texts.blob, dtype=f"V{width}")
            own = np.frombuffer(self.texts.blob, dtype=f"V{width}")
            matched = np.flatnonzero(found)
            for start in range(0, len(matched), COMPARED_AT_ONCE):  # a copy of a part at once
                part = matched[start : start + COMPARED_AT_ONCE]
                numbers[part[own[numbers[part]] != theirs[part]]] = -1
        return numbers

    def _number(self, text: object) -> int | None:
        if not isinstance(text, str):
            return None
        kept = self._kept.get(text, -1)
        if kept != -1:
            return kept
        hashed = self._hashed(text)
        found = None
        if hashed >= 0:
            place = bisect_left(self._hashes, hashed)
            while place < len(self._hashes) and self._hashes[place] == hashed:
                number = place if self._order is None else self._order[place]
                if self.texts[number] == text and (found is None or number > found):
                    found = number
                place += 1
        if len(self._kept) >= KEPT_LOOKUPS:
            self._kept.clear()
        self._kept[text] = found
        return found


def numbers_in(
    sorted_values: np.ndarray, keys: np.ndarray, order: np.ndarray | None = None
) -> np.ndarray:
    """For each of `keys`, its place in `sorted_values` (sorted), or, with `order`, the
    number `order` gives that place (the entry sorted there); -1 for a key not there."""
    if not len(sorted_values):
        return np.full(len(keys), -1, dtype=np.intp)
    places = np.minimum(np.searchsorted(sorted_values, keys), len(sorted_values) - 1)
    found = sorted_values[places] == keys
    return np.where(found, places if order is None else order[places], -1).astype(np.intp)


def numbers_view(values: np.ndarray, dtype: type, code: Literal["Q", "q"]) -> memoryview:
    """The numbers of `values` as a memoryview (read one at a time as Python ints, as
    bisect does, faster than from a numpy array)."""
    return np.ascontiguousarray(values, dtype=dtype).data.cast("B").cast(code)


def numbers_by_hash(texts: Texts, hashes: np.ndarray, hashed: Callable[[str], int]) -> Numbers:
    """Numbers of `texts` whose hashes (by `hashed`) are `hashes`, in the texts' order."""
    order = np.argsort(hashes, kind="stable")
    return Numbers(texts, hashes[order], order, hashed)


def text_hashes(texts: Iterable[str]) -> bytes:
    """text_hash of each text, as uint64."""
    return array("Q", [text_hash(text) for text in texts]).tobytes()
