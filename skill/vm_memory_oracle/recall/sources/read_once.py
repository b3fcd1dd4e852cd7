"""What a re-ranking source reads once of the facts of a snapshot, kept beside the snapshot
for as long as it is held: the queries of one recall meet many of the same candidates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar
from weakref import WeakKeyDictionary

Owner = TypeVar("Owner")
Read = TypeVar("Read")


class ReadOnce(Generic[Owner, Read]):
    """owner -> make(owner), made the first time it is asked and kept while the owner (a
    snapshot's tables, a corpus) lives."""

    def __init__(self, make: Callable[[Owner], Read]):
        self._make = make
        self._known: WeakKeyDictionary[Owner, Read] = WeakKeyDictionary()

    def __call__(self, owner: Owner) -> Read:
        read = self._known.get(owner)
        if read is None:
            read = self._known[owner] = self._make(owner)
        return read
