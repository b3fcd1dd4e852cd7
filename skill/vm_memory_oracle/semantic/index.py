"""The semantic index kept in step with the facts (consolidation step 3, and every recall).

Every current fact (not superseded) has one vector in embeddings/index.bin, under an id
derived from its fact id; embeddings/metadata.jsonl says which fact, model and text each
vector stands for. A fact extracted from a conversation carries the turn it came from
(`context`); its vector is the mean of the sentence's and the turn's, so its similarity
to a query is the mean of theirs and a fragment keeps the meaning of what was said around
it (measured on LoCoMo: better than either alone, and than a normalised mean).
Only new or changed facts are embedded, and embeddings are cached per
model (embeddings/cache-<model>.npz), so a rebuild with the same model embeds nothing. The
index is rebuilt when the model or dimension changed, when index and metadata disagree, or
when either is missing or unreadable; `force` rebuilds it anyway.
"""

from __future__ import annotations

import re
import sys
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from ..embed.base import Embedder
from ..errors import IndexCorrupt
from ..graph import KnowledgeGraph
from ..storage import derived, snapshot, strict_json
from ..storage.packed import Texts, numbers_view, pack_texts
from . import segments
from .cache import EmbeddingCache, content_hash
from .segments import FactVectors, wanted_kind
from .vectors import FLAT, IVF, VectorIndex
from .wanted import (
    KnownVectors,
    WantedVectors,
    changes,
    indexed_texts,
    known_vectors,
    remember_known,
    wanted_vectors,
)

DEFAULT_APPROXIMATE_MIN_FACTS = 20_000
# How a fact's vector is made from its texts; part of the id stored with each vector, so
# a change here rebuilds the index like a change of model.
VECTOR_RECIPE = "sentence-context-mean-v1"
FIRST_BUILD = "no vector index yet"
FORCED = "a rebuild was asked for"


@dataclass
class IndexReport:
    model_id: str
    vectors: int = 0
    embedded: int = 0  # texts run through the model in this call
    from_cache: int = 0  # vectors taken from the embedding cache instead
    added: int = 0
    removed: int = 0
    rebuilt: str | None = None  # why the index was built from scratch, if it was
    index_kind: str = FLAT
    nprobe: int | None = None  # IVF: how many of its groups a query scans
    measured_recall: float | None = None  # IVF, when built now: its top 10 against exact
    warnings: list[str] = field(default_factory=list)  # for the command's output

    @property
    def repaired(self) -> bool:
        """True when an index that should have been usable had to be built again."""
        return self.rebuilt not in (None, FIRST_BUILD, FORCED)


@dataclass
class SemanticIndex:
    """What recall needs: the index and which fact each vector stands for."""

    index: FactVectors | VectorIndex  # (the archive tier's is one VectorIndex)
    fact_of_vector: Mapping[int, str] = field(default_factory=dict)


def index_model_id(embedder: Embedder) -> str:
    return f"{embedder.model_id}+{VECTOR_RECIPE}"


EMBED_BATCH = 64
# Vectors embedded and held before they are written to the embedding cache's files.
HELD_MAX = 8192


def update_index(
    graph: KnowledgeGraph,
    embedder: Embedder,
    *,
    force: bool = False,
    approximate_min_facts: int = DEFAULT_APPROXIMATE_MIN_FACTS,
    progress=None,
    also_cached: Callable[[], np.ndarray] | None = None,
) -> tuple[SemanticIndex, IndexReport]:
    """Bring the index in step with the facts; slow embedding happens outside the lock.

    `progress(label, done, total)`, when given, is told how the embedding goes.
    `also_cached()`: the keys (cache.digest_keys) of other texts whose vectors the embedding
    cache keeps beside the facts' (the episodes'), asked for only when the cache is written.
    The audit log's line of what changed is the caller's (indexes.py).
    """
    report = IndexReport(embedder.model_id)
    if not force:
        ready = _in_step(graph, embedder, approximate_min_facts)
        if ready is not None:
            report.vectors = len(ready.index)
            report.index_kind, report.nprobe = ready.index.kind, ready.index.nprobe
            return ready, report
    facts_key = snapshot.file_key(graph.layout.facts)
    wanted = _wanted(graph)
    cache = EmbeddingCache.of(graph, embedder)
    texts = _Texts.of(wanted)
    lock = graph.store.refused(graph.layout.write_lock)
    embedded = _embed(graph, cache, embedder, texts, wanted, progress, writable=lock is None)
    report.embedded += embedded
    if lock is not None:  # a memory that cannot be locked is read, never written
        report.warnings.append(
            f"{graph.layout.relative(lock.path)}: {lock.problem}; the "
            f"vector index was built for this command only ({lock.fix})"
        )
        vectors = FactVectors(embedder.dimension)
        _bring_in_step(
            vectors,
            _NOTHING_KNOWN,
            wanted,
            texts,
            cache,
            embedder,
            report,
            approximate_min_facts,
            None,
        )
        report.rebuilt = f"{graph.layout.relative(lock.path)} is refused"
        return SemanticIndex(vectors, _mapping(wanted)), report
    with graph.store.locked("index"):
        if snapshot.file_key(graph.layout.facts) != facts_key:
            wanted = _wanted(graph)  # the facts as they are now, not before the embedding
            texts = _Texts.of(wanted)
        vectors, known, reason = _load(graph, embedder, force, approximate_min_facts)
        report.rebuilt = reason
        write = _segment_writer(graph, embedder)
        fresh, stale, late = _bring_in_step(
            vectors, known, wanted, texts, cache, embedder, report, approximate_min_facts, write
        )
        if len(fresh) or len(stale) or reason is not None:
            _save(graph, embedder, vectors, wanted)
        if embedded or late or reason is not None or cache.problem is not None:
            also = also_cached() if also_cached is not None else None
            cache.keep((), texts.keys if also is None else np.concatenate([texts.keys, also]))
            cache.save(graph.store)
        cache.note_mended(graph.store)
        mapping = _mapping(wanted)
        memo = _in_step_memo(graph, embedder, approximate_min_facts)
        memo.keep(memo.key(), mapping)
    return SemanticIndex(vectors, mapping), report


def _segment_writer(graph: KnowledgeGraph, embedder: Embedder):
    """FactVectors.change's `write`: the segment saved, and read back mapped from its file as
    an index in step is (_in_step), so that the one built is let go before the next is
    made, and before recall makes its other tables (100,000 facts: 205 MB at 512
    dimensions); the built one when the file cannot be read back."""
    layout, store = graph.layout, graph.store

    def write(number: int, built: VectorIndex) -> VectorIndex:
        path = layout.index_segment(number)
        store.make_directory(layout.embeddings_dir)
        store.write_bytes(path, built.write_to)
        if not store.usable(path):
            return built
        try:
            mapped = VectorIndex.load(path, embedder.dimension, mapped=True)
        except IndexCorrupt:
            return built
        if len(mapped) != len(built):
            return built
        mapped.measured_recall = built.measured_recall
        return mapped

    return write


# The vectors whose uncached texts are found and embedded at a time: a first build of a
# million facts held every text to embed at once, 240 MB.
EMBEDDED_PLACES = 65_536


def _embed(
    graph: KnowledgeGraph,
    cache: EmbeddingCache,
    embedder: Embedder,
    texts: _Texts,
    wanted: WantedVectors,
    progress,
    *,
    writable: bool,
) -> int:
    """Embed into `cache` the texts of the `wanted` vectors it has no vector of, each once,
    those of EMBEDDED_PLACES vectors at a time, EMBED_BATCH texts a batch; in a memory that
    can be locked (`writable`), the vectors written to the cache's files (under the lock, a
    moment each time) once it holds HELD_MAX of them. Returns how many texts."""
    total = len(np.unique(texts.keys[~cache.holds(texts.keys)]))
    done = 0
    for first in range(0, len(wanted) if total else 0, EMBEDDED_PLACES):
        places = np.arange(first, min(first + EMBEDDED_PLACES, len(wanted)))
        missing = texts.uncached(cache, wanted, places)
        for start in range(0, len(missing), EMBED_BATCH):
            if progress is not None:
                progress("embedding", done, total)
            batch = missing[start : start + EMBED_BATCH]
            cache.add(batch, embedder.embed_passages(batch))
            done += len(batch)
            if writable and cache.held >= HELD_MAX:
                with graph.store.locked("embedding cache"):
                    cache.save(graph.store)
    if done and progress is not None:
        progress("embedding", done, max(done, total))
    return done


@dataclass(frozen=True)
class _Texts:
    """Every text the wanted vectors are made of, as numbers: its content hash (a
    cache.digest_keys key), and the place in WantedVectors of the vector it is a text of
    (a fact's texts one after the other, in the facts' order)."""

    keys: np.ndarray  # uint64
    owners: np.ndarray  # int64

    @classmethod
    def of(cls, wanted: WantedVectors) -> _Texts:
        keys, owners = array("Q"), array("q")
        for place in range(len(wanted)):
            for text in indexed_texts(wanted.fact(place)):
                keys.append(int(content_hash(text), 16))
                owners.append(place)
        return cls(np.frombuffer(keys, dtype=np.uint64), np.frombuffer(owners, dtype=np.int64))

    def uncached(
        self,
        cache: EmbeddingCache,
        wanted: WantedVectors,
        places: np.ndarray | None = None,
        *,
        check: bool = False,
    ) -> list[str]:
        """The texts (each once) of the vectors at `places` (None: all) that the cache has
        no vector of (`check`: none it can read, cache.holds)."""
        chosen = slice(None) if places is None else np.isin(self.owners, places)
        keys, owners = self.keys[chosen], self.owners[chosen]
        lacking = ~cache.holds(keys, check=check)
        texts: dict[str, None] = {}
        for key, owner in zip(keys[lacking].tolist(), owners[lacking].tolist()):
            for text in indexed_texts(wanted.fact(owner)):
                if int(content_hash(text), 16) == key:
                    texts[text] = None
        return list(texts)


def _bring_in_step(
    vectors: FactVectors,
    known: KnownVectors,
    wanted: WantedVectors,
    texts: _Texts,
    cache,
    embedder: Embedder,
    report: IndexReport,
    approximate_min_facts: int,
    write,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Remove from `vectors` the vectors of facts gone or changed since it was made (`known`)
    and add those of the `wanted` facts it lacks, embedding the texts of facts remembered
    meanwhile, the segments written with `write` (FactVectors.change); the report says what
    was done. Returns the vector ids added and removed, and the texts embedded late."""
    gone, new = changes(known, wanted)
    stale, fresh = known.vids[gone], wanted.vids[new]
    late = texts.uncached(cache, wanted, new, check=True)
    if late:  # facts remembered while we were embedding
        cache.add(late, embedder.embed_passages(late))
        report.embedded += len(late)
    vectors.change(
        stale,
        fresh,
        lambda ids: cache.combined_rows(wanted.texts(wanted.places(ids))),
        approximate_min_facts=approximate_min_facts,
        write=write,
        order=lambda ids: ids[np.argsort(wanted.places(ids), kind="stable")],
    )
    fresh_texts = len(np.unique(texts.keys[np.isin(texts.owners, new)]))
    report.from_cache = max(0, fresh_texts - report.embedded)
    report.added, report.removed, report.vectors = len(fresh), len(stale), len(vectors)
    report.index_kind, report.nprobe = vectors.kind, vectors.nprobe
    report.measured_recall = vectors.measured_recall
    return fresh, stale, late


def _mapping(wanted: WantedVectors) -> FactOfVector:
    """Which fact each vector stands for."""
    order = wanted.sorted_places()
    return FactOfVector(
        wanted.vids[order].astype(np.uint64).tobytes(), *pack_texts(wanted.fact_ids(order))
    )


class FactOfVector(Mapping[int, str]):
    """Vector id -> fact id, packed: the vector ids sorted (uint64), and the fact ids in that
    order as packed texts (storage/packed.py). A million facts' map is 53 MB, not the
    400 MB of a dictionary of Python ints and strings; a recall reads a few of it."""

    def __init__(self, vids: bytes, ids: bytes, ends: bytes):
        self._vids = np.frombuffer(vids, dtype=np.uint64)
        self._sorted = numbers_view(self._vids, np.uint64, "Q")  # read by bisect
        self._ids = Texts(ids, ends)
        self._seen: dict[object, int] = {}  # the vector ids looked up and found: their numbers

    def plain(self) -> list:
        return [self._vids.tobytes(), self._ids.blob, self._ids.ends]

    @classmethod
    def from_plain(cls, values: list) -> FactOfVector:
        return cls(*values)

    def _number(self, key: int) -> int:
        if not 0 <= key < 2**64:
            return -1
        # bisect over the memoryview: a key at a time, eight times numpy's searchsorted
        place = bisect_left(self._sorted, key)
        if place == len(self._sorted) or self._sorted[place] != key:
            return -1
        return place

    def get(self, key: object, default: str | None = None) -> str | None:  # type: ignore[override]
        if isinstance(key, bool):
            return default
        number = self._seen.get(key)
        if number is None:
            if not isinstance(key, (int, np.integer)):
                return default
            number = self._number(int(key))
            if number < 0:
                return default
            self._seen[key] = number
        return self._ids[number]

    def __getitem__(self, key: int) -> str:
        fact_id = self.get(key)
        if fact_id is None:
            raise KeyError(key)
        return fact_id

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None

    def __iter__(self) -> Iterator[int]:
        return iter(self._vids.tolist())

    def __len__(self) -> int:
        return len(self._vids)


def _in_step_memo(
    graph: KnowledgeGraph, embedder: Embedder, approximate_min_facts: int
) -> derived.Derived[FactOfVector]:
    """What the index was last brought in step with (the facts, the index's two files, the
    model and approximate_min_facts), and its mapping then."""
    layout = graph.layout
    return derived.Derived(
        layout.index_state_cache,
        layout=_memo_layout(),
        sources=(layout.facts, layout.vector_metadata, *_segments(layout)),
        made_with=(index_model_id(embedder), approximate_min_facts),
        required=3,
        disk=graph.store.cache_usable(layout.index_state_cache),
        encode=FactOfVector.plain,
        decode=FactOfVector.from_plain,
    )


def _segments(layout) -> list[Path]:
    """The index's segment files (segments.py); index.bin alone when there is none."""
    return layout.index_segments() or [layout.index_file]


@cache
def _memo_layout() -> int:
    return derived.layout_of(None, (sys.modules[__name__],))


def _in_step(
    graph: KnowledgeGraph, embedder: Embedder, approximate_min_facts: int
) -> SemanticIndex | None:
    """The index as it is, when nothing changed since it was last brought in step."""
    memo = _in_step_memo(graph, embedder, approximate_min_facts)
    mapping = memo.held(memo.key())
    if mapping is None or not all(graph.store.usable(path) for path in _segments(graph.layout)):
        return None
    try:  # nothing is to change: read it from its files as the searches need it
        vectors = FactVectors.open(graph.layout, embedder.dimension)
    except IndexCorrupt:
        return None
    if not vectors.segments or len(vectors) != len(mapping):
        return None
    return SemanticIndex(vectors, mapping)


def _wanted(graph: KnowledgeGraph) -> WantedVectors:
    return wanted_vectors(graph.store.facts_passing(), graph.layout.facts)


def _load(
    graph: KnowledgeGraph, embedder: Embedder, force: bool, approximate_min_facts: int
) -> tuple[FactVectors, KnownVectors, str | None]:
    """The index on disk (its segments mapped) with its metadata, or an empty one and the
    reason to build it again."""
    layout = graph.layout

    def fresh(reason: str):
        return FactVectors(embedder.dimension), _NOTHING_KNOWN, reason

    if force:
        return fresh(FORCED)
    for path in (*_segments(layout), layout.vector_metadata):
        if not graph.store.usable(path):  # built in memory for this command, never saved
            return fresh(f"{layout.relative(path)} is refused")
    if not layout.index_file.exists():
        # The marker lives in state/, so deleting embeddings/ is told apart from a first build.
        if not layout.index_built.exists():
            return fresh(FIRST_BUILD)
        return fresh(f"{layout.relative(layout.index_file)} is missing")
    known = known_vectors(graph.store)
    if known.bad:  # read as records, which sets the bad lines aside (quarantined)
        with snapshot.only_while():
            graph.store.read_records(layout.vector_metadata, "vector-metadata", copy=False)
        known = known_vectors(graph.store)
    models = known.models
    if models and models != {(index_model_id(embedder), embedder.dimension)}:
        old = ", ".join(sorted(model for model, _ in models))
        return fresh(f"the embedding model changed from {old} to {index_model_id(embedder)}")
    try:
        vectors = FactVectors.open(layout, embedder.dimension)
    except IndexCorrupt as exc:
        return fresh(f"{layout.relative(layout.embeddings_dir)}/{exc}")
    if not np.array_equal(np.unique(vectors.ids()), np.unique(known.vids)):
        return fresh(
            f"{layout.relative(layout.index_file)} and "
            f"{layout.relative(layout.vector_metadata)} disagree"
        )
    for path, segment in zip(_segments(layout), vectors.segments):
        count = len(segment)
        if count > segments.SEGMENT_MAX:  # one file of every vector, as indexes were once made
            return fresh(
                f"{layout.relative(path)} holds {count} vectors, more than a segment's "
                f"{segments.SEGMENT_MAX}"
            )
        kind = wanted_kind(count, approximate_min_facts)
        if segment.kind != kind:
            return fresh(
                f"{count} facts call for {'an IVF' if kind == IVF else 'a flat'} index "
                f"(approximate_min_facts {approximate_min_facts})"
            )
    return vectors, known, None


_NOTHING_KNOWN = KnownVectors.empty()


# How many vectors' metadata records are made from their columns at once.
SAVED_AT_ONCE = 65_536


def _save(
    graph: KnowledgeGraph, embedder: Embedder, vectors: FactVectors, wanted: WantedVectors
) -> None:
    """The metadata of the vectors just written, after their segments (a crash between
    leaves the two disagreeing, which builds the index again); segment files beyond the
    index's are removed (a build from the start that made fewer)."""
    layout, store = graph.layout, graph.store
    for path in layout.index_segments()[max(1, len(vectors.segments)) :]:
        store.delete(path)
    model_id = index_model_id(embedder)
    order = wanted.sorted_places()

    def records() -> Iterator[dict]:
        # a block of vectors at a time: a million vector ids, fact places and content
        # hashes as Python ints at once took 110 MB
        for start in range(0, len(order), SAVED_AT_ONCE):
            places = order[start : start + SAVED_AT_ONCE]
            for vid, fact_id, digest in zip(
                wanted.vids[places].tolist(),
                wanted.fact_ids(places),
                wanted.digests[places].tolist(),
            ):
                yield {
                    "vector_id": vid,
                    "fact_id": fact_id,
                    "model_id": model_id,
                    "dimension": embedder.dimension,
                    "content_hash": f"{digest:016x}",
                }

    path = layout.vector_metadata
    lines = _metadata_lines(records(), layout.relative(path))
    graph.store.rewrite_records(path, "vector-metadata", (), lines=lines, kept=False)
    if store.usable(path):  # what it holds is known: the next command need not read it
        made = KnownVectors(
            wanted.vids[order], wanted.digests[order], frozenset({(model_id, embedder.dimension)})
        )
        remember_known(store, made)
    store.write_text(layout.index_built, f"{model_id} {len(wanted)} vectors\n")


def metadata_lines(records: list[dict], source: str) -> list[str]:
    """_metadata_lines of `records`, as a list."""
    return list(_metadata_lines(records, source))


def _metadata_lines(records: Iterable[dict], source: str) -> Iterator[str]:
    """The lines of vector-metadata records as files.dumps_record writes them, each checked
    against the schema only in what differs between them: they share the model and the
    dimension (the first record is checked whole), and the rest is made here from a valid
    fact (its id, and the vector id and content hash made of it). Checking and encoding
    100,000 records one by one took two seconds of each recall after a remember. Made as
    they are written: a million lines are not held (an invalid record stops the write,
    which then changes nothing)."""
    from ..errors import InvalidInputError
    from ..storage.validation import problem

    first = None
    shared = ""
    for record in records:
        if first is None:
            first = record
            fault = problem("vector-metadata", first)
            if fault:
                raise InvalidInputError(
                    f"refusing to write an invalid vector-metadata record: {fault}", source=source
                )
            model = strict_json.dumps(first["model_id"])
            shared = f'"model_id":{model},"dimension":{first["dimension"]}'
        vid, fact_id, digest = record["vector_id"], record["fact_id"], record["content_hash"]
        if not (
            type(vid) is int
            and 0 <= vid < 2**63
            and _PLAIN.fullmatch(fact_id)
            and _PLAIN.fullmatch(digest)
            and record["model_id"] == first["model_id"]
            and record["dimension"] == first["dimension"]
        ):
            raise InvalidInputError(
                f"refusing to write an invalid vector-metadata record: {record}", source=source
            )
        yield f'{{"vector_id":{vid},"fact_id":"{fact_id}",{shared},"content_hash":"{digest}"}}'


# What a fact id or content hash is made of: nothing JSON escapes.
_PLAIN = re.compile(r"[a-z0-9-]{1,64}")


def cached_sentence_vectors(graph: KnowledgeGraph, embedder: Embedder):
    """sentences -> the vectors the embedding cache holds of them, as the rows of a matrix,
    and the place among the sentences of each row; one it has none of has no row (the index
    step has just cached every fact's sentence; nothing is embedded here)."""
    cache = EmbeddingCache.of(graph, embedder)

    def vectors(sentences: list[str]) -> tuple[np.ndarray, np.ndarray]:
        unreadable = set(cache.unreadable(sentences))
        places = [place for place, sentence in enumerate(sentences) if sentence not in unreadable]
        rows = cache.vectors([content_hash(sentences[place]) for place in places])
        return rows, np.array(places, dtype=np.int64)

    return vectors
