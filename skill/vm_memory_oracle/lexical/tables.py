"""A lexical snapshot (lexical/snapshot.py) as recall reads it: its packed parts read where
they lie, made once per snapshot in a process."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..graph.columns import FactColumns
from ..storage import packed
from ..storage.packed import Texts, numbers_by_hash, numbers_in, text_hash

if TYPE_CHECKING:
    from .snapshot import LexicalSnapshot


class Tables:
    """A lexical index snapshot as recall reads it, made once per snapshot in a process: fact
    numbers by id (found by vector id) and by vector id, each fact id's place in sorted order
    (ties are broken by id), postings decoded on first use, the names and subjects, and the
    facts' own activation inputs; the packed parts are read where they lie, not copied."""

    def __init__(self, index: LexicalSnapshot):
        self.ids: Texts = index.ids
        self.id_order = np.frombuffer(index.id_order, dtype=np.uint32)
        vids = np.frombuffer(index.vids, dtype=np.uint64)
        self._vid_order = np.argsort(vids, kind="stable")
        self.sorted_vids = vids[self._vid_order]
        self.position = packed.Numbers(self.ids, self.sorted_vids, self._vid_order, packed.id_hash)
        self.terms = packed.Numbers(
            Texts(index.term_text, index.term_ends),
            np.frombuffer(index.term_hashes, dtype=np.uint64),
            None,
            text_hash,
        )
        self._posting_ends = memoryview(index.posting_ends).cast("B").cast("I")
        self._posting_numbers = np.frombuffer(index.posting_numbers, dtype=np.uint32)
        # Read as bisect reads them, one Python int at a time, where they lie.
        self.exact_hashes = memoryview(index.exact_hashes).cast("B").cast("Q")
        self.exact_numbers = memoryview(index.exact_numbers).cast("B").cast("I")
        self._decoded: dict[str, np.ndarray] = {}
        self.names: Texts = index.names
        self._name_hashes = np.frombuffer(index.name_hashes, dtype=np.uint64)
        self.subjects: dict[str, list[list[str]]] = index.subjects
        self.aliases: list[list[list[str]]] = index.aliases
        self.subject_name = np.frombuffer(index.subject_name, dtype=np.uint32)
        self.object_name = np.frombuffer(index.object_name, dtype=np.uint32)
        self.facts = FactColumns(
            np.frombuffer(index.importance, dtype=np.float64),
            np.frombuffer(index.pinned, dtype=np.bool_),
            np.frombuffer(index.created, dtype=np.int64),
            np.frombuffer(index.initial, dtype=np.float64),
        )

    @cached_property
    def name_number(self) -> packed.Numbers:
        """The number of each name (name_key) in subject_name and object_name, made when a
        query first names a subject."""
        return numbers_by_hash(self.names, self._name_hashes, text_hash)

    def posting(self, term: str) -> np.ndarray:
        """The numbers of the facts holding `term`."""
        held = self._decoded.get(term)
        if held is None:
            number = self.terms.get(term)
            if number is None:
                held = np.zeros(0, dtype=np.intp)
            else:
                start = self._posting_ends[number - 1] if number else 0
                held = self._posting_numbers[start : self._posting_ends[number]].astype(np.intp)
            self._decoded[term] = held
        return held

    def numbers_of(self, vids: np.ndarray) -> np.ndarray:
        """The fact number of each vector id, -1 for one this snapshot does not hold."""
        return numbers_in(self.sorted_vids, vids, self._vid_order)
