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
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..embed.base import Embedder
from ..errors import IndexCorrupt
from ..graph import KnowledgeGraph
from ..model.fact import Fact, vector_id
from ..storage import derived, snapshot, strict_json
from ..storage.packed import Texts, numbers_view, pack_texts
from . import segments
from .cache import EmbeddingCache, content_hash
from .segments import FactVectors, wanted_kind
from .vectors import FLAT, IVF, VectorIndex

DEFAULT_APPROXIMATE_MIN_FACTS = 20_000
# How a fact's vector is made from its texts; part of the id stored with each vector, so
# a change here rebuilds the index like a change of model.
VECTOR_RECIPE = "sentence-context-mean-v1"
FIRST_BUILD = "no vector index yet"
FORCED = "a rebuild was asked for"


class Wanted(NamedTuple):
    """What the index wants for one current fact: its id, the content hash of its texts,
    and the texts its vector is made from (indexed_texts)."""

    fact_id: str
    digest: str
    texts: tuple[str, ...]


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


def index_kind(count: int, approximate_min_facts: int) -> str:
    """Exact search for a memory of fewer than `approximate_min_facts` facts, else IVF (of
    each segment, by its own count: segments.wanted_kind)."""
    return wanted_kind(count, approximate_min_facts)


def indexed_texts(fact: Fact) -> tuple[str, ...]:
    """The texts a fact's vector is made from: its sentence, and its context if it has one."""
    sentence = fact.sentence
    context = fact.context
    return (sentence, context) if context and context != sentence else (sentence,)


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
    missing = cache.missing(wanted)
    lock = graph.store.refused(graph.layout.write_lock)
    report.embedded += _embed(graph, cache, embedder, missing, progress, writable=lock is None)
    if lock is not None:  # a memory that cannot be locked is read, never written
        report.warnings.append(
            f"{graph.layout.relative(lock.path)}: {lock.problem}; the "
            f"vector index was built for this command only ({lock.fix})"
        )
        vectors = FactVectors(embedder.dimension)
        _bring_in_step(vectors, {}, wanted, cache, embedder, report, approximate_min_facts, None)
        report.rebuilt = f"{graph.layout.relative(lock.path)} is refused"
        return SemanticIndex(vectors, _mapping(wanted)), report
    with graph.store.locked("index"):
        if snapshot.file_key(graph.layout.facts) != facts_key:
            wanted = _wanted(graph)  # the facts as they are now, not before the embedding
        vectors, known, reason = _load(graph, embedder, force, approximate_min_facts)
        report.rebuilt = reason
        write = _segment_writer(graph, embedder)
        fresh, stale, late = _bring_in_step(
            vectors, known, wanted, cache, embedder, report, approximate_min_facts, write
        )
        if fresh or stale or reason is not None:
            _save(graph, embedder, vectors, wanted)
        if missing or late or reason is not None or cache.problem is not None:
            facts = {content_hash(text) for _, _, texts in wanted.values() for text in texts}
            cache.keep(facts, also_cached() if also_cached is not None else None)
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


def _embed(
    graph: KnowledgeGraph,
    cache: EmbeddingCache,
    embedder: Embedder,
    texts: list[str],
    progress,
    *,
    writable: bool,
) -> int:
    """Embed `texts` into `cache`, EMBED_BATCH at a time; in a memory that can be locked
    (`writable`), its vectors written to the cache's files (under the lock, a moment each
    time) once it holds HELD_MAX of them. Returns how many."""
    for start in range(0, len(texts), EMBED_BATCH):
        if progress is not None:
            progress("embedding", start, len(texts))
        batch = texts[start : start + EMBED_BATCH]
        cache.add(batch, embedder.embed_passages(batch))
        if writable and cache.held >= HELD_MAX:
            with graph.store.locked("embedding cache"):
                cache.save(graph.store)
    if texts and progress is not None:
        progress("embedding", len(texts), len(texts))
    return len(texts)


def _bring_in_step(
    vectors: FactVectors,
    known: dict,
    wanted: dict,
    cache,
    embedder: Embedder,
    report: IndexReport,
    approximate_min_facts: int,
    write,
) -> tuple[list[int], list[int], list[str]]:
    """Remove from `vectors` the vectors of facts gone or changed since it was made (`known`:
    vector id -> (fact id, digest)) and add those of the `wanted` facts it lacks, embedding
    the texts of facts remembered meanwhile, the segments written with `write`
    (FactVectors.change); the report says what was done. Returns the vector ids added and
    removed, and the texts embedded late."""
    stale, fresh = derived.changes(known, wanted, lambda want: (want.fact_id, want.digest))
    late = cache.unreadable(text for vid in fresh for text in wanted[vid].texts)
    if late:  # facts remembered while we were embedding
        cache.add(late, embedder.embed_passages(late))
        report.embedded += len(late)
    vectors.change(
        np.array(stale, dtype=np.int64),
        np.array(fresh, dtype=np.int64),
        lambda ids: cache.combined_rows([wanted[vid].texts for vid in ids.tolist()]),
        approximate_min_facts=approximate_min_facts,
        write=write,
    )
    fresh_texts = {text for vid in fresh for text in wanted[vid].texts}
    report.from_cache = max(0, len(fresh_texts) - report.embedded)
    report.added, report.removed, report.vectors = len(fresh), len(stale), len(vectors)
    report.index_kind, report.nprobe = vectors.kind, vectors.nprobe
    report.measured_recall = vectors.measured_recall
    return fresh, stale, late


def _mapping(wanted: dict) -> FactOfVector:
    """Which fact each vector stands for."""
    return FactOfVector.of((vid, fact_id) for vid, (fact_id, _, _) in wanted.items())


class FactOfVector(Mapping[int, str]):
    """Vector id -> fact id, packed: the vector ids sorted (uint64), and the fact ids in that
    order as packed texts (storage/packed.py). A million facts' map is 53 MB, not the
    400 MB of a dictionary of Python ints and strings; a recall reads a few of it."""

    def __init__(self, vids: bytes, ids: bytes, ends: bytes):
        self._vids = np.frombuffer(vids, dtype=np.uint64)
        self._sorted = numbers_view(self._vids, np.uint64, "Q")  # read by bisect
        self._ids = Texts(ids, ends)
        self._seen: dict[object, int] = {}  # the vector ids looked up and found: their numbers

    @classmethod
    def of(cls, pairs: Iterable[tuple[int, str]]) -> FactOfVector:
        ordered = sorted(pairs)
        vids = np.array([vid for vid, _ in ordered], dtype=np.uint64).tobytes()
        return cls(vids, *pack_texts(fact_id for _, fact_id in ordered))

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


def _wanted(graph: KnowledgeGraph) -> dict[int, Wanted]:
    return wanted_vectors(graph.facts(), graph.layout.facts)


# What wanted_vectors made of each Fact, by the Fact object (held, so its id is not reused).
_Made = dict[int, tuple[Fact, int, Wanted]]


def wanted_vectors(facts: list[Fact], facts_file: Path | None = None) -> dict[int, Wanted]:
    """vector id -> (fact id, content hash, texts) for every current fact of `facts`.

    With `facts_file`, the file `facts` were read from, what was made of each Fact is kept
    in memory (storage/derived.Derived) while the file is unchanged, and carried over to
    the Facts still held when it changed (facts appended): a consolidation asks for the
    same facts' vectors three times (index step, health check, index state), and hashing
    their texts cost a second each at 100,000 facts."""
    memo = None if facts_file is None else _wanted_memo(facts_file)
    key = None if memo is None else memo.key()
    # what was made for the file as it is, or as it was before (Derived.earlier gives both)
    earlier = None if memo is None else memo.earlier()
    held = {} if earlier is None else earlier[1]
    made: _Made = {}
    wanted = {}
    for fact in facts:
        if not fact.current:
            continue
        entry = held.get(id(fact))
        if entry is None or entry[0] is not fact:
            texts = indexed_texts(fact)
            entry = (
                fact,
                vector_id(fact.id),
                Wanted(fact.id, content_hash("\n".join(texts)), texts),
            )
        made[id(fact)] = entry
        wanted[entry[1]] = entry[2]
    if memo is not None:
        memo.keep(key, made)
    return wanted


def _wanted_memo(facts_file: Path) -> derived.Derived[_Made]:
    return derived.Derived(
        facts_file.with_name(f"{facts_file.name} wanted vectors"),  # a name only: in memory
        layout=_memo_layout(),
        sources=(facts_file,),
        disk=False,
    )


def _load(
    graph: KnowledgeGraph, embedder: Embedder, force: bool, approximate_min_facts: int
) -> tuple[FactVectors, dict[int, tuple[str, str]], str | None]:
    """The index on disk (its segments mapped) with its metadata, or an empty one and the
    reason to build it again."""
    layout = graph.layout

    def fresh(reason: str):
        return FactVectors(embedder.dimension), {}, reason

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
    records = graph.store.read_records(layout.vector_metadata, "vector-metadata")
    models = {(record["model_id"], record["dimension"]) for record in records}
    if models and models != {(index_model_id(embedder), embedder.dimension)}:
        old = ", ".join(sorted(model for model, _ in models))
        return fresh(f"the embedding model changed from {old} to {index_model_id(embedder)}")
    try:
        vectors = FactVectors.open(layout, embedder.dimension)
    except IndexCorrupt as exc:
        return fresh(f"{layout.relative(layout.embeddings_dir)}/{exc}")
    known = {record["vector_id"]: (record["fact_id"], record["content_hash"]) for record in records}
    if set(vectors.ids().tolist()) != set(known):
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


def _save(
    graph: KnowledgeGraph, embedder: Embedder, vectors: FactVectors, wanted: dict[int, Wanted]
) -> None:
    """The metadata of the vectors just written, after their segments (a crash between
    leaves the two disagreeing, which builds the index again); segment files beyond the
    index's are removed (a build from the start that made fewer)."""
    layout, store = graph.layout, graph.store
    for path in layout.index_segments()[max(1, len(vectors.segments)) :]:
        store.delete(path)
    model_id = index_model_id(embedder)
    records = [
        {
            "vector_id": vid,
            "fact_id": fact_id,
            "model_id": model_id,
            "dimension": embedder.dimension,
            "content_hash": digest,
        }
        for vid, (fact_id, digest, _) in sorted(wanted.items())
    ]
    graph.store.rewrite_records(
        layout.vector_metadata,
        "vector-metadata",
        records,
        lines=metadata_lines(records, layout.relative(layout.vector_metadata)),
    )
    store.write_text(layout.index_built, f"{model_id} {len(records)} vectors\n")


def metadata_lines(records: list[dict], source: str) -> list[str]:
    """The lines of vector-metadata records as files.dumps_record writes them, each checked
    against the schema only in what differs between them: they share the model and the
    dimension (the first record is checked whole), and the rest is made here from a valid
    fact (its id, and the vector id and content hash made of it). Checking and encoding
    100,000 records one by one took two seconds of each recall after a remember."""
    from ..errors import InvalidInputError
    from ..storage.validation import problem

    if not records:
        return []
    first = records[0]
    fault = problem("vector-metadata", first)
    if fault:
        raise InvalidInputError(
            f"refusing to write an invalid vector-metadata record: {fault}", source=source
        )
    shared = f'"model_id":{strict_json.dumps(first["model_id"])},"dimension":{first["dimension"]}'
    lines = []
    for record in records:
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
        lines.append(
            f'{{"vector_id":{vid},"fact_id":"{fact_id}",{shared},"content_hash":"{digest}"}}'
        )
    return lines


# What a fact id or content hash is made of: nothing JSON escapes.
_PLAIN = re.compile(r"[a-z0-9-]{1,64}")


def cached_sentence_vectors(graph: KnowledgeGraph, embedder: Embedder):
    """sentences -> each one's vector from the embedding cache, or None when it has none
    (the index step has just cached every fact's sentence; nothing is embedded here)."""
    cache = EmbeddingCache.of(graph, embedder)

    def vectors(sentences: list[str]) -> list[np.ndarray | None]:
        readable = set(sentences) - set(cache.unreadable(sentences))
        found = [sentence for sentence in sentences if sentence in readable]
        rows = dict(zip(found, cache.vectors([content_hash(sentence) for sentence in found])))
        return [rows.get(sentence) for sentence in sentences]

    return vectors
