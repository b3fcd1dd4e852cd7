"""What the vector index should hold (WantedVectors, of the facts) and what it says it holds
(KnownVectors, of embeddings/metadata.jsonl), both as columns of numbers: a million facts'
are 24 MB and 16 MB, where a dictionary of a tuple per vector held 550 MB and the metadata's
parsed records a gigabyte. The index is brought in step by comparing the two (changes).

A vector is known by its id (vector_id, from the fact id) and the content hash of the texts
it is made of; the hash is kept as its 64-bit number (the 16 hex digits content_hash gives).
"""

from __future__ import annotations

import json
import re
import sys
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..model.fact import Fact, vector_id
from ..storage import derived, files, snapshot
from ..storage.facts_places import FactsPassing
from ..storage.packed import Packing, Texts, numbers_in
from .cache import content_hash


class Wanted(NamedTuple):
    """What the index wants for one current fact: its id, the content hash of its texts,
    and the texts its vector is made from (indexed_texts)."""

    fact_id: str
    digest: str
    texts: tuple[str, ...]


def indexed_texts(fact: Fact) -> tuple[str, ...]:
    """The texts a fact's vector is made from: its sentence, and its context if it has one."""
    sentence = fact.sentence
    context = fact.context
    return (sentence, context) if context and context != sentence else (sentence,)


def text_digest(texts: tuple[str, ...]) -> int:
    """The content hash of a vector's texts, as a number."""
    return int(content_hash("\n".join(texts)), 16)


# The texts a WantedVectors of facts read as a pass goes keeps: those of a segment of the
# index (semantic/segments.SEGMENT_MAX), about 30 MB.
TEXTS_HELD = 131_072


class WantedVectors(Mapping[int, Wanted]):
    """vector id -> Wanted, for every current fact of `facts`, in their order: the vector
    ids and content hashes as arrays, and which Fact each is (its id and texts are read from
    it when asked). Of two facts with one vector id, the later is kept (as a dictionary
    keeps the value set last)."""

    def __init__(
        self,
        facts: Sequence[Fact],
        numbers: np.ndarray,
        vids: np.ndarray,
        digests,
        ids: Texts | None = None,
    ):
        last = derived.last_of_each(vids)
        self._facts = facts
        # the facts' ids, packed in the order of `numbers`, when the facts are read as a
        # pass goes: the ids are asked for in vector-id order, which is no order of the file
        self._ids, self._id_rows = ids, last
        # the texts read of facts read as a pass goes, by place (up to TEXTS_HELD): a
        # segment of the index asks for its vectors' rows four times as it is built
        self._texts: dict[int, tuple[str, ...]] | None = None if ids is None else {}
        self.numbers = numbers[last]  # of each vector, its fact's place in `facts`
        self.vids = vids[last]  # int64
        self.digests = digests[last]  # uint64
        self._order = np.argsort(self.vids, kind="stable")
        self._sorted = self.vids[self._order]

    def __len__(self) -> int:
        return len(self.vids)

    def __iter__(self) -> Iterator[int]:
        return iter(self.vids.tolist())

    def places(self, vids: np.ndarray) -> np.ndarray:
        """The place in the columns of each of `vids`, -1 for one not wanted."""
        return numbers_in(self._sorted, np.asarray(vids, dtype=np.int64), self._order)

    def fact(self, place: int) -> Fact:
        return self._facts[int(self.numbers[place])]

    def __getitem__(self, vid: object) -> Wanted:
        if not isinstance(vid, (int, np.integer)) or not 0 <= vid < 2**63:
            raise KeyError(vid)
        place = int(self.places(np.array([vid]))[0])
        if place < 0:
            raise KeyError(vid)
        fact = self.fact(place)
        return Wanted(fact.id, f"{int(self.digests[place]):016x}", indexed_texts(fact))

    def texts(self, places: np.ndarray) -> list[tuple[str, ...]]:
        """The texts of the vectors at `places`, their facts read in file order (facts read
        as a pass goes are read a block at a time: an index's calibration asks for rows in
        no order)."""
        texts: list[tuple[str, ...]] = [()] * len(places)
        order = np.argsort(places, kind="stable")
        held = self._texts
        for at, place in zip(order.tolist(), places[order].tolist()):
            made = None if held is None else held.get(place)
            if made is None:
                made = indexed_texts(self.fact(place))
                if held is not None:
                    if len(held) >= TEXTS_HELD:
                        held.clear()
                    held[place] = made
            texts[at] = made
        return texts

    def fact_ids(self, places: np.ndarray) -> Iterator[str]:
        ids = self._ids
        if ids is not None:
            return (ids[row] for row in self._id_rows[places].tolist())
        return (self.fact(place).id for place in places.tolist())

    def sorted_places(self) -> np.ndarray:
        """The places of the vectors by vector id."""
        return self._order


@dataclass(frozen=True)
class _Made:
    """What wanted_vectors made of a list of Facts: the list (held, so that no id() of its
    Facts is reused), the id() of each current Fact, sorted, and each one's vector id and
    content hash in that order."""

    facts: Sequence[Fact]
    objects: np.ndarray  # uint64, sorted
    vids: np.ndarray
    digests: np.ndarray


def wanted_vectors(facts: Sequence[Fact], facts_file: Path | None = None) -> WantedVectors:
    """The vectors the current facts of `facts` want.

    With `facts_file`, the file `facts` were read from, what was made of each Fact is kept
    in memory (storage/derived.Derived) while the file is unchanged, and carried over to
    the Facts still held when it changed: a consolidation asks for the same facts' vectors
    three times (index step, health check, index state), and hashing their texts cost a
    second each at 100,000 facts."""
    if isinstance(facts, FactsPassing):
        return _wanted_in_one_pass(facts)
    memo = None if facts_file is None else _memo(facts_file)
    key = None if memo is None else memo.key()
    earlier = None if memo is None else memo.earlier()
    numbers = np.fromiter(
        (number for number, fact in enumerate(facts) if fact.current), dtype=np.int64
    )
    # each Fact's id() as an array, not a Python int of each number (a million: 34 MB)
    objects = np.fromiter(map(id, facts), dtype=np.uint64, count=len(facts))[numbers]
    vids = np.zeros(len(numbers), dtype=np.int64)
    digests = np.zeros(len(numbers), dtype=np.uint64)
    found = np.zeros(len(numbers), dtype=bool)
    if earlier is not None:
        made = earlier[1]
        at = numbers_in(made.objects, objects)
        found = at >= 0
        vids[found], digests[found] = made.vids[at[found]], made.digests[at[found]]
    for place in np.flatnonzero(~found).tolist():
        fact = facts[int(numbers[place])]
        vids[place] = vector_id(fact.id)
        digests[place] = text_digest(indexed_texts(fact))
    if memo is not None:
        order = np.argsort(objects, kind="stable")
        memo.keep(key, _Made(facts, objects[order], vids[order], digests[order]))
    return WantedVectors(facts, numbers, vids, digests)


def _wanted_in_one_pass(facts: Sequence[Fact]) -> WantedVectors:
    """wanted_vectors of facts read as a pass goes (storage/facts_places.FactsPassing): one
    pass, which packs the current facts' ids as it goes; nothing is kept by Fact (the
    Facts are not held, so another could take one's place in memory)."""
    numbers, vids, digests = array("q"), array("q"), array("Q")
    ids = Packing()
    for number, fact in enumerate(facts):
        if not fact.current:
            continue
        numbers.append(number)
        vids.append(vector_id(fact.id))
        digests.append(text_digest(indexed_texts(fact)))
        ids.add(fact.id)
    return WantedVectors(
        facts,
        np.frombuffer(numbers, dtype=np.int64),
        np.frombuffer(vids, dtype=np.int64),
        np.frombuffer(digests, dtype=np.uint64),
        Texts(*ids.packed()),
    )


def let_go_of_wanted(facts_file: Path) -> None:
    """Hold no longer what wanted_vectors made of the Facts of `facts_file` (and the Facts:
    see _Made)."""
    snapshot.let_go(_memo(facts_file).cache)


def _memo(facts_file: Path) -> derived.Derived[_Made]:
    return derived.Derived(
        facts_file.with_name(f"{facts_file.name} wanted vectors"),  # a name only: in memory
        layout=_memo_layout(),
        sources=(facts_file,),
        disk=False,
    )


@cache
def _memo_layout() -> int:
    return derived.layout_of(None, (sys.modules[__name__],))


@dataclass(frozen=True)
class KnownVectors:
    """What embeddings/metadata.jsonl says the index holds: each valid line's vector id and
    content hash (in the file's order), the (model, dimension) pairs named, and how many
    lines are not valid records."""

    vids: np.ndarray  # int64
    digests: np.ndarray  # uint64
    models: frozenset[tuple[str, int]]
    bad: int = 0

    @classmethod
    def empty(cls) -> KnownVectors:
        return cls(np.zeros(0, np.int64), np.zeros(0, np.uint64), frozenset())

    def __len__(self) -> int:
        return len(self.vids)


class KnownColumns:
    """KnownVectors gathered a valid record at a time: by read_known, and by the check,
    which reads the metadata's lines for a pass of its own."""

    def __init__(self) -> None:
        self.vids, self.digests = array("q"), array("Q")
        self.models: set[tuple[str, int]] = set()
        self.bad = 0

    def add(self, vid: int, digest: int, model: str, dimension: int) -> bool:
        """Keep one record's vector; False, keeping nothing, for a vector id past int64,
        which no fact's vector has."""
        if vid >= 2**63:
            return False
        self.vids.append(vid)
        self.digests.append(digest)
        self.models.add((model, dimension))
        return True

    def known(self) -> KnownVectors:
        return KnownVectors(
            np.frombuffer(self.vids, dtype=np.int64),
            np.frombuffer(self.digests, dtype=np.uint64),
            frozenset(self.models),
            self.bad,
        )


# A line as metadata_lines writes it; any other is parsed and checked against the schema.
_LINE = re.compile(
    rb'\{"vector_id":(0|[1-9][0-9]{0,18}),'
    rb'"fact_id":"fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",'
    rb'"model_id":"([^"\\\x00-\x1f]{1,256})","dimension":([1-9][0-9]{0,4}),'
    rb'"content_hash":"([0-9a-f]{16})"\}'
)


def read_known(path: Path) -> KnownVectors:
    """The metadata file read a line at a time, no record of it held."""
    from ..storage.validation import problem

    gathered = KnownColumns()
    for _, raw in files.each_line(path):
        line = raw.rstrip(b"\n")
        if not line.strip():
            continue
        match = _LINE.fullmatch(line)
        if match is not None and int(match[3]) <= 65536:
            model = match[2].decode("utf-8", "replace")
            if not gathered.add(int(match[1]), int(match[4], 16), model, int(match[3])):
                gathered.bad += 1
            continue
        try:
            record = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            gathered.bad += 1
            continue
        if problem("vector-metadata", record) or not gathered.add(
            record["vector_id"],
            int(record["content_hash"], 16),
            record["model_id"],
            record["dimension"],
        ):
            gathered.bad += 1
    return gathered.known()


def known_vectors(store, *, save: bool = True) -> KnownVectors:
    """read_known of the store's embeddings/metadata.jsonl, kept in memory and in
    state/cache/known-vectors.marshal while the file is unchanged (none for a refused
    file); `save` False: what was kept is read, and what is read is kept in memory only
    (a check writes nothing)."""
    layout = store.layout
    path, cache = layout.vector_metadata, layout.known_vectors_cache
    if store.refused(path) is not None:
        return KnownVectors.empty()
    key = snapshot.file_key(path)
    disk = store.cache_usable(cache)
    held = snapshot.load(cache, key, disk=disk)
    if held is not None:
        vids, digests, models, bad = held
        return KnownVectors(
            np.frombuffer(vids, dtype=np.int64),
            np.frombuffer(digests, dtype=np.uint64),
            frozenset((model, dimension) for model, dimension in models),
            bad,
        )
    known = read_known(path)
    _keep(cache, key, known, disk=disk and save)
    return known


def remember_known(store, known: KnownVectors) -> None:
    """Keep `known` as what the store's metadata.jsonl holds now (its writer knows it)."""
    cache = store.layout.known_vectors_cache
    key = snapshot.file_key(store.layout.vector_metadata)
    _keep(cache, key, known, disk=store.cache_usable(cache))


def _keep(cache: Path, key: tuple | None, known: KnownVectors, *, disk: bool) -> None:
    if key is not None:
        plain = (known.vids.tobytes(), known.digests.tobytes(), sorted(known.models), known.bad)
        snapshot.save(cache, key, plain, disk=disk)


def changes(known: KnownVectors, wanted: WantedVectors) -> tuple[np.ndarray, np.ndarray]:
    """(the places in `known` of the vectors to remove: gone, or made of other texts now;
    the places in `wanted` of those to add), each in its own order."""
    return derived.column_changes(known.vids, known.digests, wanted.vids, wanted.digests)
