"""The archive's derived index: what recall searches the pruned facts with.

A fact that consolidation archived as pruned (its activation under prune_threshold, or the
memory over max_facts) is still the memory's: when the active facts do not answer a query,
recall searches the pruned facts too (recall/archive.py) by their words and their meaning,
as it searches the active ones. So the archive has its own lexical snapshot
(lexical/snapshot.py) and a vector for each pruned fact, made of the texts an active fact's
vector is made of (semantic/index.indexed_texts) with the same embedder.

Both are derived from knowledge-graph/archived-facts.jsonl and kept in state/cache/ while it
is unchanged (storage/derived.py). The vectors come from the embedding cache, which keeps
the pruned facts' vectors beside the active facts' (archive_digests): a fact was embedded
while it was active, so bringing this in step after a prune embeds nothing, and a restore
(which rewrites the archive) only reads them again. A record archived for another cause
(forgotten, superseded, merged, stale) is never searched. Its owner is indexes.py, which
makes it on first use (Indexes.archive) and has the facts' vector index, whose cache write
keeps only the vectors still wanted, keep the pruned facts' too.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .lexical.snapshot import LexicalSnapshot, build_lexical_index
from .model.archive import Archived, cause_of
from .model.fact import Fact, vector_id
from .semantic.cache import EmbeddingCache, content_hash
from .semantic.index import SemanticIndex, indexed_texts
from .semantic.vectors import FLAT, VectorIndex
from .storage import derived

if TYPE_CHECKING:
    from .embed.base import Embedder
    from .graph import KnowledgeGraph

PRUNED = "pruned"


@dataclass
class ArchiveTier:
    """The pruned facts of the archive as recall searches them: each one's last archive
    record by id, their lexical snapshot, and their vectors in the snapshot's order (None
    without a model)."""

    records: dict[str, dict]
    snapshot: LexicalSnapshot
    vectors: np.ndarray | None
    embedded: int = 0  # texts the model embedded to make it (the cache had lost them)

    def __len__(self) -> int:
        return len(self.records)

    def archived(self, fact_id: str) -> Archived:
        """The archive record of one of its facts (the tier keeps them as read)."""
        return Archived.of(self.records[fact_id])

    @cached_property
    def vector_index(self) -> SemanticIndex:
        """An exact vector index of its vectors, made once (a few milliseconds at 10,000)."""
        assert self.vectors is not None
        ids = self.snapshot.ids
        vids = np.array([vector_id(fact_id) for fact_id in ids], dtype=np.int64)
        index = VectorIndex(self.vectors.shape[1], kind=FLAT)
        if len(ids):
            index.add(vids, np.ascontiguousarray(self.vectors, dtype=np.float32))
        return SemanticIndex(index, dict(zip(vids.tolist(), ids)))

    def plain(self) -> list:
        vectors = None
        if self.vectors is not None:
            vectors = [self.vectors.shape[1], self.vectors.astype(np.float32).tobytes()]
        return [list(self.records.values()), self.snapshot.plain(), vectors]

    @classmethod
    def from_plain(cls, values: list) -> ArchiveTier:
        records, snapshot, held = values
        vectors = None
        if held is not None:
            dimension, raw = held
            vectors = np.frombuffer(raw, dtype=np.float32).reshape(-1, dimension)
        by_id = {record["id"]: record for record in records}
        return cls(by_id, LexicalSnapshot.from_plain(snapshot), vectors)


def archive_tier(graph: KnowledgeGraph, embedder: Embedder | None) -> ArchiveTier:
    """The archive tier of `graph`'s memory, made again only when the archive changed;
    vectors with `embedder` (none without one)."""
    path = graph.layout.archive
    model = embedder.model_id if embedder is not None else None
    cache = graph.layout.archive_tier_cache
    kept: derived.Derived[ArchiveTier] = derived.Derived(
        cache,
        layout=derived.layout_of(ArchiveTier, [sys.modules[__name__]]),
        sources=(path,),
        made_with=(model,),
        required=0,
        disk=graph.store.cache_usable(cache),
        encode=ArchiveTier.plain,
        decode=ArchiveTier.from_plain,
    )
    return derived.brought_in_step(kept, lambda key: _made(graph, embedder))


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


def _made(graph: KnowledgeGraph, embedder: Embedder | None) -> ArchiveTier:
    # The pruned facts, each by its last record (a fact archived, restored and archived
    # again has one record each time), kept as read: the tier holds up to 100,000 and
    # reads one as an Archived only when recall finds it.
    read = graph.store.read_records(graph.layout.archive, "archived-fact")
    records = {record["id"]: record for record in read if cause_of(record).code == PRUNED}
    facts = [Fact.from_archived(record) for record in records.values()]
    snapshot = build_lexical_index(facts)
    if embedder is None:
        return ArchiveTier(records, snapshot, None)
    groups = [indexed_texts(fact) for fact in facts]
    embeddings = EmbeddingCache.of(graph, embedder)
    missing = embeddings.unreadable(text for group in groups for text in group)
    if missing:
        embeddings.add(missing, embedder.embed_passages(missing))
    vectors = embeddings.combined_rows(groups)
    return ArchiveTier(records, snapshot, vectors, embedded=len(missing))
