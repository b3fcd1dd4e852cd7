"""The lexical snapshot: what recall reads of the current facts besides the full-text index.

For each current fact, numbered in facts.jsonl's order: its id and vector id, its exact
keys (exact_keys, as 63-bit hashes sorted with the fact number of each), the terms of its
lexical document (postings: which facts hold a term; a query's word coverage is counted
over them, while BM25 ranking is the full-text index's), the names its subject and object
are, the subjects' evidence terms and the aliases of each subject (a name it is known by),
and its own activation inputs (graph.columns). Numbers are packed as bytes and texts (ids,
names, terms) as one text with the end of each (storage/packed.py), so a snapshot of 10,000
facts loads in a few milliseconds and a recall process holds about 270 bytes a fact of it
(benchmarks/million.py's facts), not the 650 that lists of ids and names, a dictionary of
ids and one of postings by term took; it is
kept in state/cache/ (storage/snapshot) while facts.jsonl is unchanged, and extended by
the facts appended since when nothing else changed (a remember). Tables reads it where it
lies, once per process: a fact's number by id and a term's posting found by their hashes.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from functools import cache, cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..graph import KnowledgeGraph
from ..graph.columns import FactColumns, fact_columns
from ..model.fact import Fact, normalise, stable_hash, vector_id
from ..model.text import evidence_terms, tokens
from ..storage import derived, files, packed
from ..storage.packed import (
    Packing,
    Texts,
    joined_texts,
    numbers_by_hash,
    pack_texts,
    text_hash,
    text_hashes,
)
from . import index as lexical_documents
from .index import document_text
from .subjects import NAME_CHARS, Subjects

if TYPE_CHECKING:
    from .tables import Tables

TEXTS_HELD = 1 << 16

# In subject_name and object_name: an end that names nothing (an object too long to be a
# name, or a text with no evidence term).
NO_NAME = 0xFFFFFFFF


@dataclass(frozen=True)
class FactsPrefix:
    """What the facts file was when a snapshot was made of its `records` facts: its size and
    the hash of those bytes, for the next snapshot to tell whether facts were only appended."""

    records: int
    size: int
    digest: str


@dataclass
class LexicalSnapshot:
    """The lexical snapshot of the current facts (see build_lexical_index), and the facts
    file it was made of (`made_of`, set when it is kept). Texts are packed (storage/packed.py):
    the ids, the names and the terms each as one UTF-8 text with the end of each."""

    id_text: bytes
    id_ends: bytes
    vids: bytes
    id_order: bytes
    importance: bytes
    initial: bytes
    created: bytes
    pinned: bytes
    subjects: dict[str, list[list[str]]]
    aliases: list[list[list[str]]]
    name_text: bytes
    name_ends: bytes
    name_hashes: bytes
    subject_name: bytes
    object_name: bytes
    term_text: bytes
    term_ends: bytes
    term_hashes: bytes
    posting_ends: bytes
    posting_numbers: bytes
    exact_hashes: bytes
    exact_numbers: bytes
    made_of: FactsPrefix | None = None

    @cached_property
    def ids(self) -> Texts:
        """Each fact's id, by its number."""
        return Texts(self.id_text, self.id_ends)

    @cached_property
    def names(self) -> Texts:
        """Each name (name_key) by its number in subject_name and object_name."""
        return Texts(self.name_text, self.name_ends)

    @cached_property
    def tables(self) -> Tables:
        """Its arrays as recall reads them, made once: a snapshot is held (storage/derived)
        as one object for as long as the facts file it was made of is unchanged."""
        from .tables import Tables

        return Tables(self)

    def plain(self) -> list:
        """Its fields in order, as plain data (marshal stores no class)."""
        values = [getattr(self, field.name) for field in fields(self)]
        values[-1] = None if self.made_of is None else list(vars(self.made_of).values())
        return values

    @classmethod
    def from_plain(cls, values: list) -> LexicalSnapshot:
        *held, made_of = values
        snapshot = cls(*held)
        snapshot.made_of = None if made_of is None else FactsPrefix(*made_of)
        return snapshot


def build_lexical_index(facts: Iterable[Fact]) -> LexicalSnapshot:
    """Exact keys and term postings of facts, and what else recall reads of them.

    A fact's lexical document is lexical.document_text (its sentence, subject, predicate,
    object and the turn it came from); the postings say which facts hold a term (the word
    coverage of a query is counted over them; BM25 ranking is the full-text index's). Facts
    are numbered in `ids`, and `vids` holds each one's vector id. Numbers are stored packed
    as bytes and texts as one text with the end of each (storage/packed.py): the terms are in
    the order of their hashes (then of themselves), a term's posting the sorted fact
    numbers (uint32) between its end and the one before; the exact keys are
    a sorted array of 63-bit key hashes with the fact number of each; `id_order` is each
    fact's place when ids are sorted (ties in a ranking are broken by id). The facts' own
    activation inputs (importance, pinned, creation activation and time) come along, as
    columns in the same order (graph.columns). The facts are gone through once, and none
    is held: they may be read as the pass goes (store.facts_passing).
    """
    ids = Packing()  # the facts' ids packed as they come, not held as a million strings
    # the exact keys' hashes and fact numbers as two columns (a million facts' four million
    # keys as tuples of Python ints held 460 MB)
    exact_hashes, exact_owners = array("Q"), array("I")
    # Each term's number as met, and the term and fact numbers of each posting as two
    # columns: a million facts' postings as an array a term, their terms as tuples with
    # their hashes, held 300 MB.
    term_numbers: dict[str, int] = {}
    posted_terms, posted_facts = array("I"), array("I")
    vids = array("Q")
    names: dict[str, int] = {}
    read: dict[str, int] = {}
    subject_name, object_name = array("I"), array("I")
    subjects = Subjects()
    columns: list[FactColumns] = []  # those of each block of facts
    block: list[Fact] = []
    for number, fact in enumerate(facts):
        subjects.add(fact)
        block.append(fact)
        if len(block) == COLUMNS_BLOCK:
            columns.append(fact_columns(block))
            block = []
        ids.add(fact.id)
        vids.append(vector_id(fact.id))
        subject_name.append(_name_number(fact.subject, names, read))
        object_name.append(_name_number(fact.object, names, read))
        for key in exact_keys(fact):
            exact_hashes.append(key_hash(key))
            exact_owners.append(number)
        for term in set(tokens(document_text(fact))):
            posted_terms.append(term_numbers.setdefault(term, len(term_numbers)))
            posted_facts.append(number)
    read.clear()
    columns.append(fact_columns(block))
    del block
    # Each part is made, and what it was made of let go, before the next, those held as
    # many small objects first: a million facts' parts and all they were made of, held to
    # the end, were 200 MB more; the exact keys sorted first, 80 MB more at the peak.
    name_text, name_ends = pack_texts(names)
    name_hashes = text_hashes(names)
    names.clear()
    id_text, id_ends = ids.packed()
    del ids
    id_order = _id_order(Texts(id_text, id_ends))
    terms = list(term_numbers)
    term_numbers.clear()
    term_order, term_hashes = _by_hash(terms)
    term_text, term_ends = pack_texts(terms[place] for place in term_order.tolist())
    del terms
    keys = _posting_keys(
        term_order,
        np.frombuffer(posted_terms, dtype=np.uint32),
        np.frombuffer(posted_facts, dtype=np.uint32),
    )
    del posted_terms, posted_facts
    numbers, ends = _grouped(keys, len(term_order))
    del keys, term_order
    exact = _exact(exact_hashes, exact_owners)
    del exact_hashes, exact_owners
    return LexicalSnapshot(
        id_text=id_text,
        id_ends=id_ends,
        vids=vids.tobytes(),
        id_order=id_order,
        importance=_column(columns, "importance"),
        initial=_column(columns, "initial"),
        created=_column(columns, "created"),
        pinned=_column(columns, "pinned"),
        subjects=subjects.by_term(),
        aliases=subjects.aliases(),
        name_text=name_text,
        name_ends=name_ends,
        name_hashes=name_hashes,
        subject_name=subject_name.tobytes(),
        object_name=object_name.tobytes(),
        term_text=term_text,
        term_ends=term_ends,
        term_hashes=term_hashes.tobytes(),
        posting_ends=ends.tobytes(),
        posting_numbers=numbers.tobytes(),
        exact_hashes=exact[0],
        exact_numbers=exact[1],
    )


def _exact(hashes: array, owners: array) -> tuple[bytes, bytes]:
    """The exact keys' hashes and fact numbers, sorted by hash, then by fact number."""
    key_hashes = np.frombuffer(hashes, dtype=np.uint64)
    key_owners = np.frombuffer(owners, dtype=np.uint32)
    order = np.lexsort((key_owners, key_hashes))
    return key_hashes[order].tobytes(), key_owners[order].tobytes()


def _by_hash(terms: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The order of `terms` by their hashes, then (for a hash shared) by themselves, and
    their hashes in that order."""
    hashes = np.fromiter(map(text_hash, terms), dtype=np.uint64, count=len(terms))
    order = _hash_order(hashes, lambda: terms)
    return order, hashes[order]


def _hash_order(hashes: np.ndarray, texts: Callable[[], Sequence[str]]) -> np.ndarray:
    """The order of texts by their `hashes`, then (for a hash shared) by the texts
    themselves, which `texts()` gives only then."""
    order = np.argsort(hashes, kind="stable")
    if len(order) and np.any(np.diff(hashes[order]) == 0):
        every = texts()
        order = np.array(
            sorted(range(len(every)), key=lambda place: (int(hashes[place]), every[place])),
            dtype=np.int64,
        )
    return order


def _postings(
    term_order: np.ndarray, posted_terms: np.ndarray, posted_facts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The fact numbers of each term's posting one after another, the terms in
    `term_order`, each term's in the order they were posted (`posted_terms[n]` the term of
    the n-th fact number posted, `posted_facts[n]`), which is ascending: a term is posted
    once a fact, the facts in their order; and the end of each term's (uint32 both)."""
    return _grouped(_posting_keys(term_order, posted_terms, posted_facts), len(term_order))


def _posting_keys(
    term_order: np.ndarray, posted_terms: np.ndarray, posted_facts: np.ndarray
) -> np.ndarray:
    """Each posting as one 64-bit key, its term's place in `term_order` above its fact
    number, sorted (in place: a million facts' six million postings grouped by a stable
    argsort took 180 MB at once)."""
    slot = np.empty(len(term_order), dtype=np.uint64)
    slot[term_order] = np.arange(len(term_order), dtype=np.uint64)
    keys = slot[posted_terms]
    del slot
    np.left_shift(keys, np.uint64(32), out=keys)
    np.bitwise_or(keys, posted_facts, out=keys, casting="unsafe")
    keys.sort()
    return keys


def _grouped(keys: np.ndarray, terms: int) -> tuple[np.ndarray, np.ndarray]:
    """The fact numbers of sorted posting keys (_posting_keys), and the end of each of the
    `terms` terms' (uint32 both)."""
    low = 0 if sys.byteorder == "little" else 1  # the fact number's half of each key
    numbers = np.ascontiguousarray(keys.view(np.uint32)[low::2])
    firsts = np.arange(1, terms + 1, dtype=np.uint64) << np.uint64(32)
    return numbers, np.searchsorted(keys, firsts).astype(np.uint32)


def extend_lexical_index(index: LexicalSnapshot, facts: Iterable[Fact]) -> LexicalSnapshot:
    """The lexical index of `facts`, made from `index`, the index of the ones before them
    (facts appended to the file since): what build_lexical_index(facts) gives, with only
    the new facts' documents read. The facts are gone through once; only the new ones
    are held."""
    held = len(index.ids)
    subjects = Subjects()
    new = []
    for number, fact in enumerate(facts):
        subjects.add(fact)
        if number >= held:
            new.append(fact)
    part = build_lexical_index(new)
    del new

    def shifted(packed: bytes) -> bytes:
        return (np.frombuffer(packed, dtype=np.uint32) + np.uint32(held)).tobytes()

    hashes = np.frombuffer(index.exact_hashes + part.exact_hashes, dtype=np.uint64)
    numbers = np.frombuffer(index.exact_numbers + shifted(part.exact_numbers), dtype=np.uint32)
    order = np.lexsort((numbers, hashes))
    id_text, id_ends = joined_texts((index.id_text, index.id_ends), (part.id_text, part.id_ends))
    names = index.names
    number_of = numbers_by_hash(
        names, np.frombuffer(index.name_hashes, dtype=np.uint64), packed.text_hash
    )
    added: list[str] = []
    renumbered = np.full(len(part.names) + 1, NO_NAME, dtype=np.uint32)  # last: NO_NAME
    new_number: dict[str, int] = {}
    for number, name in enumerate(part.names):
        known = number_of.get(name)
        if known is None:
            known = new_number.get(name)
        if known is None:
            known = new_number[name] = len(names) + len(added)
            added.append(name)
        renumbered[number] = known
    name_text, name_ends = joined_texts((index.name_text, index.name_ends), pack_texts(added))

    def renamed(packed: bytes) -> bytes:
        own = np.frombuffer(packed, dtype=np.uint32)
        return renumbered[np.minimum(own, len(part.names))].tobytes()

    postings = _merged_postings(index, part, held)
    return LexicalSnapshot(
        id_text=id_text,
        id_ends=id_ends,
        vids=index.vids + part.vids,
        id_order=_id_order(Texts(id_text, id_ends)),
        importance=index.importance + part.importance,
        initial=index.initial + part.initial,
        created=index.created + part.created,
        pinned=index.pinned + part.pinned,
        subjects=subjects.by_term(),
        aliases=subjects.aliases(),
        name_text=name_text,
        name_ends=name_ends,
        name_hashes=index.name_hashes + text_hashes(added),
        subject_name=index.subject_name + renamed(part.subject_name),
        object_name=index.object_name + renamed(part.object_name),
        term_text=postings[0],
        term_ends=postings[1],
        term_hashes=postings[2],
        posting_ends=postings[3],
        posting_numbers=postings[4],
        exact_hashes=hashes[order].tobytes(),
        exact_numbers=numbers[order].tobytes(),
    )


def _merged_postings(
    index: LexicalSnapshot, part: LexicalSnapshot, held: int
) -> tuple[bytes, bytes, bytes, bytes, bytes]:
    """The packed terms and postings (term_text, term_ends, term_hashes, posting_ends,
    posting_numbers) of `index` with those of `part`, the snapshot of the `held`-th fact on,
    merged: each term once, in the order build_lexical_index gives them."""
    old_hashes = np.frombuffer(index.term_hashes, dtype=np.uint64)
    old_terms = Texts(index.term_text, index.term_ends)
    old_of = packed.Numbers(old_terms, old_hashes, None, packed.text_hash)
    part_terms = Texts(part.term_text, part.term_ends)
    part_hashes = np.frombuffer(part.term_hashes, dtype=np.uint64)
    # Each of part's terms: its place among the old terms, or after them among the new.
    found = np.array([old_of.get(term, -1) for term in part_terms], dtype=np.int64)
    new = np.flatnonzero(found < 0)
    found[new] = len(old_terms) + np.arange(len(new))
    every_hash = np.concatenate((old_hashes, part_hashes[new]))
    blob, ends = joined_texts(
        (index.term_text, index.term_ends), _reordered(part.term_text, part.term_ends, new)
    )
    order = _hash_order(every_hash, lambda: Texts(blob, ends))
    old_lengths, part_lengths = _lengths(index.posting_ends), _lengths(part.posting_ends)
    # Each posting's term, among the merged ones (a term's old numbers, then its new ones).
    posted_terms = np.concatenate(
        (np.repeat(np.arange(len(old_terms)), old_lengths), np.repeat(found, part_lengths))
    )
    posted_facts = np.concatenate(
        (
            np.frombuffer(index.posting_numbers, dtype=np.uint32),
            np.frombuffer(part.posting_numbers, dtype=np.uint32) + np.uint32(held),
        )
    )
    numbers, posting_ends = _postings(order, posted_terms, posted_facts)
    term_text, term_ends = _reordered(blob, ends, order)
    return (
        term_text,
        term_ends,
        every_hash[order].tobytes(),
        posting_ends.tobytes(),
        numbers.tobytes(),
    )


def _lengths(ends: bytes) -> np.ndarray:
    """The length of each part of a packed whole from the end of each (uint32)."""
    own_ends = np.frombuffer(ends, dtype=np.uint32).astype(np.int64)
    starts = np.concatenate((np.zeros(1, dtype=np.int64), own_ends[:-1]))
    return np.subtract(own_ends, starts, dtype=np.int64)


def _reordered(blob: bytes, ends: bytes, order: np.ndarray) -> tuple[bytes, bytes]:
    """Packed texts (blob, ends) taken in `order` (the numbers of the texts to take)."""
    every = _lengths(ends)
    starts = np.frombuffer(ends, dtype=np.uint32).astype(np.int64) - every
    lengths = every[order]
    new_ends = np.cumsum(lengths, dtype=np.int64)
    if not len(new_ends) or not new_ends[-1]:
        return b"", new_ends.astype(np.uint32).tobytes()
    at = np.arange(new_ends[-1], dtype=np.int64) + np.repeat(
        starts[order] - (new_ends - lengths), lengths
    )
    return np.frombuffer(blob, dtype=np.uint8)[at].tobytes(), new_ends.astype(np.uint32).tobytes()


# The facts whose activation columns are made at a time.
COLUMNS_BLOCK = 4096


def _column(parts: list[FactColumns], name: str) -> bytes:
    """One activation column of every fact, its blocks' parts one after the other."""
    return np.concatenate([getattr(part, name) for part in parts]).tobytes()


def _name_number(text: str, names: dict[str, int], read: dict[str, int]) -> int:
    """The number in `names` (name_key -> number, grown as met) of the name a subject or
    object is, NO_NAME for one too long to be a name; `read`: the first TEXTS_HELD texts
    met (a subject is met a thousand times; a million facts each with its own object would
    keep a million)."""
    number = read.get(text)
    if number is None:
        name = name_of(text)
        number = names.setdefault(name, len(names)) if name else NO_NAME
        if len(read) < TEXTS_HELD:
            read[text] = number
    return number


def name_of(text: str) -> str:
    """The name a subject or object is, as a name_key; "" for a text too long to be a name
    (a said sentence)."""
    return name_key(sorted(evidence_terms(text))) if len(text) <= NAME_CHARS else ""


def name_key(terms: Iterable[str]) -> str:
    """A name's sorted evidence terms as one string (a term holds no space). The snapshot
    keeps names so: a recall process reads a list of strings faster than one of lists."""
    return " ".join(terms)


def _id_order(ids: Sequence[str]) -> bytes:
    """Each fact's place when the ids are sorted (of equal ids, the first first). Packed
    ids of one length in ASCII (the tool's are) are sorted as their bytes, which sort as
    the strings do, not made a million strings (90 MB)."""
    if isinstance(ids, Texts) and len(ids):
        lengths = np.diff(np.frombuffer(ids.ends, dtype=np.uint32), prepend=np.uint32(0))
        width = int(lengths[0])
        if width and (lengths == width).all() and ids.blob.isascii():
            fixed = np.frombuffer(ids.blob, dtype=f"S{width}")
            return _places_when_sorted(np.argsort(fixed, kind="stable"))
    held = np.empty(len(ids), dtype=object)
    held[:] = ids
    return _places_when_sorted(np.argsort(held, kind="stable"))


def _places_when_sorted(order: np.ndarray) -> bytes:
    """Each one's place in `order` (uint32)."""
    places = np.empty(len(order), dtype=np.uint32)
    places[order] = np.arange(len(order), dtype=np.uint32)
    return places.tobytes()


def exact_keys(fact: Fact) -> set[str]:
    """What a query must equal to match a fact exactly: its id, subject, object, sentence or
    "subject predicate", normalised."""
    predicate = fact.predicate.replace("_", " ")
    return {
        fact.id,
        normalise(fact.subject),
        normalise(fact.object),
        normalise(fact.sentence),
        normalise(f"{fact.subject} {predicate}"),
    }


def key_hash(key: str) -> int:
    return stable_hash(key.encode("utf-8"))


def _kept(graph: KnowledgeGraph) -> derived.Derived[LexicalSnapshot]:
    cache = graph.layout.lexical_cache
    return derived.Derived(
        cache,
        layout=_layout(),
        sources=(graph.layout.facts,),
        disk=graph.store.cache_usable(cache),
        streamed=True,
        encode=LexicalSnapshot.plain,
        decode=LexicalSnapshot.from_plain,
    )


def lexical_index_saved(graph: KnowledgeGraph) -> None:
    """The lexical snapshot of the current facts brought in step and kept for the next
    recall, not read when the one kept is in step (a consolidation with nothing new read
    the snapshot of a million facts, 240 MB, only to find it so)."""
    kept = _kept(graph)
    if not kept.saved(kept.key()):
        lexical_index(graph)


def lexical_index(graph: KnowledgeGraph) -> LexicalSnapshot:
    """The lexical snapshot of the current facts, made again only when facts.jsonl changed,
    and then only for the facts appended since when nothing else changed (a remember)."""
    path = graph.layout.facts
    kept = _kept(graph)

    def make(key: tuple | None) -> LexicalSnapshot:
        facts = graph.store.facts_passing()
        built = build_lexical_index(fact for fact in facts if fact.current)
        return replace(built, made_of=_made_of(path, key, len(facts)))

    def extend(
        old_key: tuple, earlier: LexicalSnapshot, key: tuple | None
    ) -> LexicalSnapshot | None:
        facts = graph.store.facts_passing()
        if not _appended_to(old_key, earlier, key, path, len(facts)):
            return None
        extended = extend_lexical_index(earlier, (fact for fact in facts if fact.current))
        return replace(extended, made_of=_made_of(path, key, len(facts)))

    return derived.brought_in_step(kept, make, extend, _may_be_appended_to)


@cache
def _layout() -> int:
    """The snapshot's shape and the code that makes it: this module, the lexical documents,
    the subjects and their names, the terms of a text, a fact's keys and its activation
    inputs."""
    from ..graph import columns
    from ..model import fact, text
    from . import subjects

    makers = (sys.modules[__name__], lexical_documents, subjects, text, fact, columns)
    return derived.layout_of(LexicalSnapshot, makers)


# A snapshot's key is (layout, the facts file's key): (inode, size, mtime, ctime).
_FILE, _INODE, _SIZE = 1, 0, 1


def _made_of(path, key: tuple | None, records: int) -> FactsPrefix | None:
    """The facts file a snapshot of its `records` facts was made of (key: its key)."""
    if key is None:
        return None
    size = key[_FILE][_SIZE]
    digest = files.file_digest(path, size)
    return None if digest is None else FactsPrefix(records, size, digest)


def _may_be_appended_to(old_key: tuple, key: tuple | None) -> bool:
    """Whether the facts file may be the one a snapshot of `old_key` was made of with facts
    appended (_appended_to tells it for sure): the same file (inode), grown."""
    if key is None or len(old_key) <= _FILE or len(old_key[_FILE] or ()) <= _SIZE:
        return False
    earlier, now = old_key[_FILE], key[_FILE]
    return earlier[_INODE] == now[_INODE] and earlier[_SIZE] < now[_SIZE]


def _appended_to(
    old_key: tuple, earlier: LexicalSnapshot, key: tuple | None, path, records: int
) -> bool:
    """Whether the facts file is the file `earlier` was made of with facts appended and
    nothing else changed: the same file (inode), its first bytes those the snapshot was
    made of, more facts after them. Else the snapshot is made whole."""
    made_of = earlier.made_of
    if key is None or made_of is None or old_key[_FILE][_INODE] != key[_FILE][_INODE]:
        return False
    if not made_of.size < key[_FILE][_SIZE] or not made_of.records <= records:
        return False
    return files.file_digest(path, made_of.size) == made_of.digest


def tables_of(index: LexicalSnapshot) -> Tables:
    return index.tables
