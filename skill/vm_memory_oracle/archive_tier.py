"""The archive's derived index: what recall searches the pruned facts with.

A fact that consolidation archived as pruned (its activation under prune_threshold, or the
memory over max_facts) is still the memory's: when the active facts do not answer a query,
recall searches the pruned facts too (recall/archive.py) by their words and their meaning,
as it searches the active ones. So the archive has its own lexical snapshot
(lexical/snapshot.py) and a vector for each pruned fact, made of the texts an active fact's
vector is made of (semantic/index.indexed_texts) with the same embedder.

Both are derived from knowledge-graph/archived-facts.jsonl and kept in state/cache/ while it
is unchanged (storage/derived.py): the snapshot with, for each fact, where its record's line
lies in the archive file, and the vectors in a FAISS index of their own
(`archive-tier.index`: exact below approximate_min_facts, IVF from there, as the active
facts' index is chosen). A recall that reaches the archive reads neither whole: the index is
mapped from its file (FAISS reads the lists a query scans), and a record is read from the
archive file, by its place, only for a fact recall looks at. The archive file is opened once
and checked to be the file the places were taken from; the index file, to be the one the
tier was made with; either changed, the tier is made again.

The vectors come from the embedding cache, which keeps the pruned facts' vectors beside the
active facts' (archive_digests): a fact was embedded while it was active, so bringing this
in step after a prune embeds nothing, and a restore (which rewrites the archive) only reads
them again. A record archived for another cause (forgotten, superseded, merged, stale) is
never searched. Its owner is indexes.py, which makes it on first use (Indexes.archive) and
has the facts' vector index, whose cache write keeps only the vectors still wanted, keep the
pruned facts' too.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from .errors import IndexCorrupt
from .lexical.snapshot import LexicalSnapshot, build_lexical_index, tables_of
from .model.archive import Archived, cause_of
from .model.fact import Fact, vector_id
from .semantic.cache import EmbeddingCache, content_hash
from .semantic.index import SemanticIndex, indexed_texts
from .semantic.segments import wanted_kind
from .semantic.vectors import VectorIndex
from .storage import derived, snapshot
from .storage.packed import Numbers, Texts

if TYPE_CHECKING:
    from .embed.base import Embedder
    from .graph import KnowledgeGraph

PRUNED = "pruned"


@dataclass
class ArchiveTier:
    """The pruned facts of the archive as recall searches them: their lexical snapshot,
    where each one's last archive record lies in the archive file (`places`: byte offsets,
    uint64, and `lengths`, uint32, in the snapshot's order) and the key of that file
    (`source`), and their vectors' index: [dimension, the key of the index file] (its key
    None when it is held in this process alone), None without a model."""

    snapshot: LexicalSnapshot
    places: bytes
    lengths: bytes
    source: tuple
    vectors: list | None
    embedded: int = 0  # texts the model embedded to make it (the cache had lost them)
    # What a process holds of it: the archive file open, the index, the records read.
    _file: IO[bytes] | None = field(default=None, repr=False, compare=False)
    _index: VectorIndex | None = field(default=None, repr=False, compare=False)
    _records: dict[str, dict] = field(default_factory=dict, repr=False, compare=False)
    _facts: dict[str, Fact] = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.snapshot.ids)

    @property
    def ids(self) -> Texts:
        return self.snapshot.ids

    @property
    def position(self) -> Numbers:
        """Each fact's number in the snapshot, by id."""
        return tables_of(self.snapshot).position

    def __contains__(self, fact_id: object) -> bool:
        return fact_id in self.position

    def record(self, fact_id: str) -> dict:
        """The archive record of one of its facts, read from the archive file by its place
        (the file the tier was made of: held open)."""
        held = self._records.get(fact_id)
        if held is None:
            assert self._file is not None, "the tier is read only once opened"
            number = self.position[fact_id]
            offset = int(np.frombuffer(self.places, dtype=np.uint64)[number])
            length = int(np.frombuffer(self.lengths, dtype=np.uint32)[number])
            # A read at its place, not a seek and a read: no position is shared.
            line = os.pread(self._file.fileno(), length, offset)
            held = self._records[fact_id] = json.loads(line)
        return held

    def fact(self, fact_id: str) -> Fact:
        """The fact an archive record holds, made once."""
        made = self._facts.get(fact_id)
        if made is None:
            made = self._facts[fact_id] = Fact.from_archived(self.record(fact_id))
        return made

    def archived(self, fact_id: str) -> Archived:
        """The archive record of one of its facts as an Archived."""
        return Archived.of(self.record(fact_id))

    @cached_property
    def vector_index(self) -> SemanticIndex:
        """Its vectors' index, with which fact each vector stands for (read from the
        snapshot's vector ids, not a dictionary of them all)."""
        assert self._index is not None, "the tier's index is read when it is opened"
        return SemanticIndex(self._index, _FactOfVector(self.snapshot))

    def opened(self, archive: Path, index_file: Path) -> bool:
        """Whether the tier can be read: the archive file opened (once) and found to be
        the one its places were taken from, and its vectors' index (once) the one it was
        made with. False when either changed since: it is made again."""
        if not len(self):  # nothing to read
            if self.vectors is not None and self._index is None:
                self._index = VectorIndex(self.vectors[0])
            return True
        if self._file is None:
            try:
                handle = archive.open("rb")
            except OSError:
                return False
            if _key_of(os.fstat(handle.fileno())) != self.source:
                handle.close()
                return False
            self._file = handle
        if self.vectors is not None and self._index is None:
            self._index = _mapped_index(index_file, self.vectors)
            if self._index is None:
                return False
        return True

    def plain(self) -> list:
        source, vectors = list(self.source), self.vectors
        return [self.snapshot.plain(), self.places, self.lengths, source, vectors]

    @classmethod
    def from_plain(cls, values: list) -> ArchiveTier:
        held, places, lengths, source, vectors = values
        return cls(LexicalSnapshot.from_plain(held), places, lengths, tuple(source), vectors)


class _FactOfVector(Mapping):
    """Vector id -> fact id over a snapshot's ids, as a dictionary made of them in order
    would hold it (of two facts with one vector id, the later), without making one."""

    def __init__(self, held: LexicalSnapshot):
        self._ids = held.ids
        vids = np.frombuffer(held.vids, dtype=np.uint64)
        self._order = np.argsort(vids, kind="stable")
        self._sorted = vids[self._order]

    def _number(self, key: object) -> int:
        if not isinstance(key, int) or key < 0 or not len(self._sorted):
            return -1
        place = int(np.searchsorted(self._sorted, np.uint64(key), side="right")) - 1
        if place < 0 or int(self._sorted[place]) != key:
            return -1
        return int(self._order[place])

    def __getitem__(self, key: int) -> str:
        number = self._number(key)
        if number < 0:
            raise KeyError(key)
        return self._ids[number]

    def __contains__(self, key: object) -> bool:
        return self._number(key) >= 0

    def __iter__(self):
        return iter(dict.fromkeys(vector_id(fact_id) for fact_id in self._ids))

    def __len__(self) -> int:
        return len(np.unique(self._sorted))


def _key_of(stat: os.stat_result) -> tuple:
    """A file's key as storage.snapshot.file_key gives it, from its stat."""
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def _mapped_index(path: Path, vectors: list) -> VectorIndex | None:
    """The index file mapped, if it is the one the tier was made with (its key); None
    when it is missing, another or unreadable. Read through the descriptor it was checked
    with, so a file put in its place meanwhile is not the one read."""
    dimension, key = vectors
    if key is None:  # it was held in the process that made it alone
        return None
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        if _key_of(os.fstat(descriptor)) != tuple(key):
            return None
        return VectorIndex.load(Path(f"/proc/self/fd/{descriptor}"), dimension, mapped=True)
    except IndexCorrupt:
        return None
    finally:
        os.close(descriptor)  # a mapped index keeps its own mapping


def archive_tier(graph: KnowledgeGraph, embedder: Embedder | None) -> ArchiveTier:
    """The archive tier of `graph`'s memory, made again only when the archive changed;
    vectors with `embedder` (none without one)."""
    layout = graph.layout
    path, cache = layout.archive, layout.archive_tier_cache
    model = embedder.model_id if embedder is not None else None
    disk = graph.store.cache_usable(cache)
    kept: derived.Derived[ArchiveTier] = derived.Derived(
        cache,
        layout=derived.layout_of(ArchiveTier, [sys.modules[__name__]]),
        sources=(path,),
        made_with=(model, graph.settings.approximate_min_facts),
        required=0,
        disk=disk,
        encode=ArchiveTier.plain,
        decode=ArchiveTier.from_plain,
    )

    def make(key: tuple | None) -> ArchiveTier:
        return _made(graph, embedder, disk=disk)

    tier = derived.brought_in_step(kept, make)
    if tier.opened(path, layout.archive_tier_index):
        return tier
    # The archive, or the index file, changed since the tier was made: made again (a tier
    # made here holds the file it read and its index, so it opens).
    key = kept.key()
    tier = make(key)
    kept.keep(key, tier)
    tier.opened(path, layout.archive_tier_index)
    return tier


def archive_digests(graph: KnowledgeGraph) -> frozenset[str]:
    """The content hashes of the pruned facts' texts: the embedding cache keeps their
    vectors (semantic/index.py), so the archive tier is made again without the model."""
    records = graph.store.read_records(graph.layout.archive, "archived-fact")
    last = {record["id"]: record for record in records if cause_of(record).code == PRUNED}
    return frozenset(
        content_hash(text)
        for record in last.values()
        for text in indexed_texts(Fact.from_archived(record))
    )


def _made(graph: KnowledgeGraph, embedder: Embedder | None, *, disk: bool) -> ArchiveTier:
    # The pruned facts, each by its last record (a fact archived, restored and archived
    # again has one record each time), found in the file this opens and keeps open.
    path = graph.layout.archive
    try:
        handle: IO[bytes] | None = path.open("rb")
    except FileNotFoundError:
        handle = None
    source = _key_of(os.fstat(handle.fileno())) if handle is not None else ()
    read = graph.store.read_records(path, "archived-fact")
    records = {record["id"]: record for record in read if cause_of(record).code == PRUNED}
    located = _located(handle, records) if handle is not None else {}
    # A record not found in the file opened was read from another version of it (it
    # changed meanwhile): left out of this tier, which is then not kept.
    records = {fact_id: record for fact_id, record in records.items() if fact_id in located}
    facts = [Fact.from_archived(record) for record in records.values()]
    held = build_lexical_index(facts)
    places = np.array([located[fact.id][0] for fact in facts], dtype=np.uint64).tobytes()
    lengths = np.array([located[fact.id][1] for fact in facts], dtype=np.uint32).tobytes()
    tier = ArchiveTier(held, places, lengths, source, None, _file=handle)
    if embedder is None:
        return tier
    kind = wanted_kind(len(facts), graph.settings.approximate_min_facts)
    index = VectorIndex(embedder.dimension, kind=kind)
    missing: list[str] = []
    if facts:  # the cache is opened only to find vectors (its million digests: 100 MB)
        groups = [indexed_texts(fact) for fact in facts]
        embeddings = EmbeddingCache.of(graph, embedder)
        missing = embeddings.unreadable(text for group in groups for text in group)
        if missing:
            embeddings.add(missing, embedder.embed_passages(missing))
        vids = np.array([vector_id(fact.id) for fact in facts], dtype=np.int64)
        # a block of rows at a time (VectorIndex.add_rows), not every vector at once
        index.add_rows(vids, lambda numbers: embeddings.combined_rows([groups[n] for n in numbers]))
    tier._index, tier.embedded = index, len(missing)
    tier.vectors = [embedder.dimension, _written(graph, index) if disk and facts else None]
    return tier


def _written(graph: KnowledgeGraph, index: VectorIndex) -> list | None:
    """The index written to its file (best effort: a cache); the key of the file written,
    None when it could not be."""
    path, store = graph.layout.archive_tier_index, graph.store
    if not store.usable(path):
        return None
    try:
        store.make_directory(path.parent)
        store.write_bytes(path, index.write_to)
    except (OSError, ValueError):
        return None
    key = snapshot.file_key(path)
    return list(key) if key is not None else None


def _located(handle: IO[bytes], records: dict[str, dict]) -> dict[str, tuple[int, int]]:
    """Where each of `records` (by fact id) lies in the file `handle` reads: the (offset,
    length) of the last line holding that record."""
    located: dict[str, tuple[int, int]] = {}
    handle.seek(0)
    offset = 0
    for line in handle:
        if b'"id"' in line:
            try:
                held: Any = json.loads(line)
            except ValueError:
                held = None
            fact_id = held.get("id") if isinstance(held, dict) else None
            if isinstance(fact_id, str) and records.get(fact_id) == held:
                located[fact_id] = (offset, len(line))
        offset += len(line)
    return located
