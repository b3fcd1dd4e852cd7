"""The lexical snapshot: what recall reads of the current facts besides the full-text index.

For each current fact, numbered in facts.jsonl's order: its id and vector id, its exact
keys (exact_keys, as 63-bit hashes sorted with the fact number of each), the terms of its
lexical document (postings: which facts hold a term; a query's word coverage is counted
over them, while BM25 ranking is the full-text index's), the names its subject and object
are, the subjects' evidence terms and the aliases of each subject (a name it is known by),
and its own activation inputs (graph.columns). Numbers are packed as bytes, so a snapshot
of 10,000 facts loads in a few milliseconds; it is kept in state/cache/ (storage/snapshot)
while facts.jsonl is unchanged, and extended by the facts appended since when nothing else
changed (a remember). Tables decodes it once per process for the arrays recall reads.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from functools import cache, cached_property

import numpy as np

from ..graph import KnowledgeGraph
from ..graph.columns import FactColumns, fact_columns
from ..model.fact import NAME_PREDICATES, Fact, normalise, stable_hash, vector_id
from ..model.text import evidence_terms, tokens
from ..storage import derived, files
from . import index as lexical_documents
from .index import document_text

# In subject_name and object_name: an end that names nothing (an object too long to be a
# name, or a text with no evidence term).
NO_NAME = 0xFFFFFFFF

# An object longer than this is not read as a name (a said sentence is not one).
NAME_CHARS = 60


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
    file it was made of (`made_of`, set when it is kept)."""

    ids: list[str]
    vids: bytes
    id_order: bytes
    importance: bytes
    initial: bytes
    created: bytes
    pinned: bytes
    subjects: dict[str, list[list[str]]]
    aliases: list[list[list[str]]]
    names: list[str]
    subject_name: bytes
    object_name: bytes
    postings: dict[str, bytes]
    exact_hashes: bytes
    exact_numbers: bytes
    made_of: FactsPrefix | None = None

    @cached_property
    def tables(self) -> Tables:
        """Its arrays as recall reads them, made once: a snapshot is held (storage/derived)
        as one object for as long as the facts file it was made of is unchanged."""
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


def build_lexical_index(facts: list[Fact]) -> LexicalSnapshot:
    """Exact keys and term postings of facts, and what else recall reads of them.

    A fact's lexical document is lexical.document_text (its sentence, subject, predicate,
    object and the turn it came from); the postings say which facts hold a term (the word
    coverage of a query is counted over them; BM25 ranking is the full-text index's). Facts
    are numbered in `ids`, and `vids` holds each one's vector id. Numbers are stored packed
    as bytes (a snapshot of 10,000 facts then loads in a few milliseconds): a posting is
    the sorted fact numbers as uint32; the exact keys are
    a sorted array of 63-bit key hashes with the fact number of each; `id_order` is each
    fact's place when ids are sorted (ties in a ranking are broken by id). The facts' own
    activation inputs (importance, pinned, creation activation and time) come along, as
    columns in the same order (graph.columns).
    """
    ids: list[str] = []
    exact: list[tuple[int, int]] = []
    postings: dict[str, array] = {}
    vids = array("Q")
    names: dict[str, int] = {}
    read: dict[str, int] = {}
    subject_name, object_name = array("I"), array("I")
    for number, fact in enumerate(facts):
        ids.append(fact.id)
        vids.append(vector_id(fact.id))
        subject_name.append(_name_number(fact.subject, names, read))
        object_name.append(_name_number(fact.object, names, read))
        exact.extend((key_hash(key), number) for key in exact_keys(fact))
        for term in set(tokens(document_text(fact))):
            postings.setdefault(term, array("I")).append(number)
    exact.sort()
    columns = fact_columns(facts)
    return LexicalSnapshot(
        ids=ids,
        vids=vids.tobytes(),
        id_order=_id_order(ids),
        importance=columns.importance.tobytes(),
        initial=columns.initial.tobytes(),
        created=columns.created.tobytes(),
        pinned=columns.pinned.tobytes(),
        subjects=_subjects(facts),
        aliases=_aliases(facts),
        names=list(names),
        subject_name=subject_name.tobytes(),
        object_name=object_name.tobytes(),
        postings={term: posting.tobytes() for term, posting in postings.items()},
        exact_hashes=array("Q", [hashed for hashed, _ in exact]).tobytes(),
        exact_numbers=array("I", [number for _, number in exact]).tobytes(),
    )


def extend_lexical_index(index: LexicalSnapshot, facts: list[Fact]) -> LexicalSnapshot:
    """The lexical index of `facts`, made from `index`, the index of the ones before them
    (facts appended to the file since): what build_lexical_index(facts) gives, with only
    the new facts' documents read."""
    held = len(index.ids)
    part = build_lexical_index(facts[held:])

    def shifted(packed: bytes) -> bytes:
        return (np.frombuffer(packed, dtype=np.uint32) + np.uint32(held)).tobytes()

    postings = dict(index.postings)
    for term, packed in part.postings.items():
        postings[term] = postings.get(term, b"") + shifted(packed)
    hashes = np.frombuffer(index.exact_hashes + part.exact_hashes, dtype=np.uint64)
    numbers = np.frombuffer(index.exact_numbers + shifted(part.exact_numbers), dtype=np.uint32)
    order = np.lexsort((numbers, hashes))
    ids = index.ids + part.ids
    names = list(index.names)
    number_of = {name: number for number, name in enumerate(names)}
    renumbered = np.full(len(part.names) + 1, NO_NAME, dtype=np.uint32)  # last: NO_NAME
    for number, name in enumerate(part.names):
        if name not in number_of:
            number_of[name] = len(names)
            names.append(name)
        renumbered[number] = number_of[name]

    def renamed(packed: bytes) -> bytes:
        own = np.frombuffer(packed, dtype=np.uint32)
        return renumbered[np.minimum(own, len(part.names))].tobytes()

    return LexicalSnapshot(
        ids=ids,
        vids=index.vids + part.vids,
        id_order=_id_order(ids),
        importance=index.importance + part.importance,
        initial=index.initial + part.initial,
        created=index.created + part.created,
        pinned=index.pinned + part.pinned,
        subjects=_subjects(facts),
        aliases=_aliases(facts),
        names=names,
        subject_name=index.subject_name + renamed(part.subject_name),
        object_name=index.object_name + renamed(part.object_name),
        postings=postings,
        exact_hashes=hashes[order].tobytes(),
        exact_numbers=numbers[order].tobytes(),
    )


def _subjects(facts: list[Fact]) -> dict[str, list[list[str]]]:
    """Each subject's evidence terms, by its first term, subjects in sorted order."""
    subjects: dict[str, list[list[str]]] = {}
    for subject in sorted({fact.subject for fact in facts}):
        terms = sorted(evidence_terms(subject))
        if terms:
            subjects.setdefault(terms[0], []).append(terms)
    return subjects


def _aliases(facts: list[Fact]) -> list[list[list[str]]]:
    """[a name's evidence terms, the subject's] for each name a subject is known by (a fact
    "user | name | Priya Raman"): a query naming any of them is about that subject."""
    aliases = set()
    for fact in facts:
        if fact.predicate in NAME_PREDICATES and fact.current:
            name = sorted(evidence_terms(fact.object))
            subject = sorted(evidence_terms(fact.subject))
            if name and subject and len(fact.object) <= NAME_CHARS:
                aliases.add((tuple(name), tuple(subject)))
    return [[list(name), list(subject)] for name, subject in sorted(aliases)]


def _name_number(text: str, names: dict[str, int], read: dict[str, int]) -> int:
    """The number in `names` (name_key -> number, grown as met) of the name a subject or
    object is, NO_NAME for one too long to be a name; `read`: the texts met."""
    number = read.get(text)
    if number is None:
        name = name_of(text)
        number = read[text] = names.setdefault(name, len(names)) if name else NO_NAME
    return number


def name_of(text: str) -> str:
    """The name a subject or object is, as a name_key; "" for a text too long to be a name
    (a said sentence)."""
    return name_key(sorted(evidence_terms(text))) if len(text) <= NAME_CHARS else ""


def name_key(terms: Iterable[str]) -> str:
    """A name's sorted evidence terms as one string (a term holds no space). The snapshot
    keeps names so: a recall process reads a list of strings faster than one of lists."""
    return " ".join(terms)


def _id_order(ids: list[str]) -> bytes:
    """Each fact's place when the ids are sorted."""
    id_order = array("I", bytes(4 * len(ids)))
    for place, number in enumerate(sorted(range(len(ids)), key=ids.__getitem__)):
        id_order[number] = place
    return id_order.tobytes()


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


def lexical_index(graph: KnowledgeGraph) -> LexicalSnapshot:
    """The lexical snapshot of the current facts, made again only when facts.jsonl changed,
    and then only for the facts appended since when nothing else changed (a remember)."""
    path = graph.layout.facts
    cache = graph.layout.lexical_cache
    kept: derived.Derived[LexicalSnapshot] = derived.Derived(
        cache,
        layout=_layout(),
        sources=(path,),
        disk=graph.store.cache_usable(cache),
        encode=LexicalSnapshot.plain,
        decode=LexicalSnapshot.from_plain,
    )

    def make(key: tuple | None) -> LexicalSnapshot:
        facts = graph.facts()
        built = build_lexical_index([fact for fact in facts if fact.current])
        return replace(built, made_of=_made_of(path, key, len(facts)))

    def extend(
        old_key: tuple, earlier: LexicalSnapshot, key: tuple | None
    ) -> LexicalSnapshot | None:
        facts = graph.facts()
        if not _appended_to(old_key, earlier, key, path, len(facts)):
            return None
        extended = extend_lexical_index(earlier, [fact for fact in facts if fact.current])
        return replace(extended, made_of=_made_of(path, key, len(facts)))

    return derived.brought_in_step(kept, make, extend)


@cache
def _layout() -> int:
    """The snapshot's shape and the code that makes it: this module, the lexical documents,
    the terms of a text, a fact's keys and its activation inputs."""
    from ..graph import columns
    from ..model import fact, text

    makers = (sys.modules[__name__], lexical_documents, text, fact, columns)
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


class Tables:
    """A lexical index snapshot as numpy arrays, made once per snapshot in a process: fact
    numbers by id and by vector id, each fact id's place in sorted order (ties are broken by
    id), postings decoded on first use, the names and subjects, and the facts' own
    activation inputs."""

    def __init__(self, index: LexicalSnapshot):
        self.ids: list[str] = index.ids
        self.position = {fact_id: number for number, fact_id in enumerate(self.ids)}
        self.id_order = np.frombuffer(index.id_order, dtype=np.uint32)
        vids = np.frombuffer(index.vids, dtype=np.uint64)
        self._vid_order = np.argsort(vids, kind="stable")
        self.sorted_vids = vids[self._vid_order]
        self.packed: dict[str, bytes] = index.postings
        # Made once per snapshot: five keys a fact, 4 MB to copy at 100,000 facts.
        self.exact_hashes = array("Q", index.exact_hashes)
        self.exact_numbers = array("I", index.exact_numbers)
        self._decoded: dict[str, np.ndarray] = {}
        self.names: list[str] = index.names
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
    def name_number(self) -> dict[str, int]:
        """The number of each name (name_key) in subject_name and object_name, made when a
        query first names a subject."""
        return {name: number for number, name in enumerate(self.names)}

    def posting(self, term: str) -> np.ndarray:
        """The numbers of the facts holding `term`."""
        held = self._decoded.get(term)
        if held is None:
            packed = np.frombuffer(self.packed.get(term, b""), dtype=np.uint32)
            held = self._decoded[term] = packed.astype(np.intp)
        return held

    def numbers_of(self, vids: np.ndarray) -> np.ndarray:
        """The fact number of each vector id, -1 for one this snapshot does not hold."""
        if not len(self.sorted_vids):
            return np.full(len(vids), -1, dtype=np.intp)
        places = np.minimum(np.searchsorted(self.sorted_vids, vids), len(self.sorted_vids) - 1)
        found = self.sorted_vids[places] == vids
        return np.where(found, self._vid_order[places], -1).astype(np.intp)


def tables_of(index: LexicalSnapshot) -> Tables:
    return index.tables
