"""The episodes' vector and full-text indexes, derived from episodes/ and kept in step.

Episodes files only grow, so the indexes are brought in step by reading what each file
gained since they were last written: state/cache/episode-index.marshal records, for the
model they were made with, how far each file was read and where each episode's line is
(its vector id -> file and byte offset: recall reads only the lines of what it returns).
That record is kept through storage/derived.Derived: its key is the episodes files, the
index's own files and the model, and its layout a digest of the code that makes it, so a
record made by other code is never read as this code's.
state/cache/episodes.bin holds the vectors of the turns' openings (a flat FAISS index: one
for each turn's first passage, Episode.embedded), state/cache/episode-text/ the terms of
every passage (tantivy, BM25). Every file here is derived: when one is missing or unreadable,
when a recorded file shrank or disappeared, or when the model changed, both indexes are
built again from episodes/ (a repair, noted in the audit log, when it was not a first
build). Texts are embedded outside the lock, reusing the embedding cache (a short turn's
text is a fact's context, embedded once); the indexes are written under it.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import IndexCorrupt, TextIndexCorrupt
from ..model.text import tokens
from ..semantic.cache import EmbeddingCache, content_hash
from ..semantic.vectors import VectorIndex
from ..storage import derived, strict_json
from ..storage.text_index import TextIndex
from ..storage.validation import problem
from . import EPISODE_KIND, Episode, episode_files

FIRST_BUILD = "no episode index yet"
FORCED = "a rebuild was asked for"
# Other code made the record (an upgrade): built again, which is no repair.
OTHER_CODE = "the episode index was made by another version"
# The record is written last: indexes without one are a write cut short (or state/cache/
# cleared, which is allowed at any time), not damage.
INTERRUPTED = "its record is missing: its last write was cut short or state/cache/ was cleared"


class _NoText:
    """The full-text index of no episode."""

    def search(self, terms, limit) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.float64)


_NO_TEXT = _NoText()


@dataclass
class EpisodeIndexReport:
    episodes: int = 0
    added: int = 0
    embedded: int = 0
    rebuilt: str | None = None
    skipped: list[str] = field(default_factory=list)  # bad lines: file:line and why
    warnings: list[str] = field(default_factory=list)  # for the command's output
    fresh: dict = field(default_factory=dict, repr=False)  # text -> vector, embedded now

    @property
    def repaired(self) -> bool:
        return self.rebuilt not in (None, FIRST_BUILD, FORCED, INTERRUPTED, OTHER_CODE)


@dataclass
class EpisodeIndex:
    """The episodes' indexes as one command reads them."""

    vectors: VectorIndex
    text: TextIndex | _NoText
    place_of: dict[int, tuple[str, int]]  # vector id -> (episodes file name, byte offset)
    directory: Path

    def __len__(self) -> int:
        return len(self.place_of)

    def episode(self, vector_id: int) -> Episode | None:
        """The episode of `vector_id`, read from its line (None if the line is gone)."""
        place = self.place_of.get(vector_id)
        if place is None:
            return None
        name, offset = place
        try:
            with open(self.directory / name, "rb") as handle:
                handle.seek(offset)
                line = handle.readline()
            record = strict_json.loads(line.decode("utf-8"))
        except (OSError, UnicodeDecodeError, strict_json.JsonRefused):
            return None
        if problem(EPISODE_KIND, record) is not None:
            return None
        return Episode.from_record(record)


def document_body(episode: Episode) -> str:
    """What an episode is found by in words: the terms of what was said (not who said it:
    "user" would match every query naming the user)."""
    return " ".join(tokens(episode.text))


@dataclass
class _Read:
    """Episodes read from the files, past the offsets the indexes were brought to."""

    episodes: list[tuple[Episode, str, int]] = field(default_factory=list)  # (ep, file, offset)
    reached: dict[str, int] = field(default_factory=dict)  # file name -> bytes read
    skipped: list[str] = field(default_factory=list)
    torn: list[str] = field(default_factory=list)  # files ending in a part of a line


def _read_from(layout, start: dict[str, int]) -> _Read:
    read = _Read()
    for path in episode_files(layout):
        offset = start.get(path.name, 0)
        try:
            with open(path, "rb") as handle:
                handle.seek(offset)
                data = handle.read()
        except OSError as exc:
            read.skipped.append(f"{layout.relative(path)}: {exc.strerror or exc}")
            read.reached[path.name] = offset
            continue
        if data and not data.endswith(b"\n"):
            # episodes are appended whole under the lock: a part of a line is a torn one
            read.torn.append(path.name)
        data = data[: data.rfind(b"\n") + 1]
        position = offset
        for raw in data.splitlines(keepends=True):
            try:
                record = strict_json.loads(raw.decode("utf-8"))
                why = problem(EPISODE_KIND, record)
            except (UnicodeDecodeError, strict_json.JsonRefused) as exc:
                why = str(exc) or "not JSON"
            if why is None:
                read.episodes.append((Episode.from_record(record), path.name, position))
            else:
                read.skipped.append(f"{layout.relative(path)} at byte {position}: {why}")
            position += len(raw)
        read.reached[path.name] = position
    return read


def _file_sizes(layout) -> dict[str, int]:
    sizes = {}
    for path in episode_files(layout):
        try:
            sizes[path.name] = os.stat(path).st_size
        except OSError:
            continue
    return sizes


def _kept_state(store, model: str) -> derived.Derived[dict[str, Any]]:
    """The record of the indexes (model, how far each file was read, the episodes' places,
    the digests of the texts embedded), for the episodes files and the index's own files
    as they are now. Its key: (layout, model, the full-text index's file stamps, the vector
    file's key, each episodes file's key)."""
    layout = store.layout
    return derived.Derived(
        layout.episode_index_state,
        layout=_layout(),
        sources=(layout.episode_vectors, *episode_files(layout)),
        made_with=(
            model,
            tuple(sorted((name, tuple(stamp)) for name, stamp in _text_files(layout).items())),
        ),
        required=0,
        disk=store.cache_usable(layout.episode_index_state),
    )


@cache
def _layout() -> int:
    """What the record and the indexes are made by: this module, the episodes' texts (what
    is embedded) and the tokens they are found by."""
    from ..model import text
    from . import __name__ as episodes

    return derived.layout_of(None, (sys.modules[__name__], sys.modules[episodes], text))


def _index_files_key(key: tuple) -> tuple:
    """The part of a record's key that names the index's own files (the full-text index's
    stamps and the vector file's key)."""
    return key[2:4]


def _text_files(layout) -> dict[str, list[int]]:
    from ..storage.text_index import file_stamps

    directory = layout.episode_text_dir
    try:
        return file_stamps(directory) if directory.is_dir() else {}
    except OSError:  # a writer replacing its files right now: not the files written
        return {"": [-1, -1]}


def _open(layout, dimension: int) -> tuple[VectorIndex, TextIndex] | None:
    try:
        return (
            VectorIndex.load(layout.episode_vectors, dimension),
            TextIndex.open(layout.episode_text_dir),
        )
    except (IndexCorrupt, TextIndexCorrupt, OSError):
        return None


def update_episode_index(
    graph, embedder, *, force: bool = False
) -> tuple[EpisodeIndex, EpisodeIndexReport]:
    """The episodes' indexes in step with episodes/ for `embedder`; `force` builds them
    again from episodes/ (their vectors from the embedding cache)."""
    layout, store = graph.layout, graph.store
    model = f"{embedder.model_id}/{embedder.dimension}"
    report = EpisodeIndexReport()
    sizes = _file_sizes(layout)
    kept = _kept_state(store, model)
    held = None if force else kept.earlier()
    if held is not None and held[0] == kept.key():
        state = held[1]
        opened = _open(layout, embedder.dimension)
        if isinstance(state, dict) and opened is not None:
            held_vectors, held_text = opened
            if len(held_vectors) == len(state["digests"]):
                return _made(layout, held_vectors, held_text, state), _counted(report, state)
    other = held is None and not force and kept.other_layout()  # made by other code
    if not sizes and held is None and not other and not layout.episode_vectors.exists():
        # No episode yet (a memory of remembered facts only): nothing to index or write.
        return _empty(layout, embedder), report
    lock = store.refused(layout.write_lock)
    if lock is not None:  # a memory that cannot be locked: indexes for this command only
        report.warnings.append(
            f"{layout.relative(lock.path)}: {lock.problem}; the episode index was built "
            f"for this command only ({lock.fix})"
        )
        base, _ = _base(store, model, None, sizes)
        read = _read_from(layout, {})
        vectors = _embedded(graph, embedder, [episode for episode, _, _ in read.episodes], report)
        return _written(graph, embedder, base, read, vectors, report, write=False)
    base, reason = _base(store, model, held, sizes, other=other)
    if force:
        reason = FORCED
    read = _read_from(layout, base.reached)
    if read.skipped or read.torn:
        # Bad lines go to the file's quarantine (the store's way with every JSONL file), and
        # the files, rewritten without them, are indexed again.
        for path in episode_files(layout):
            store.read_records(path, EPISODE_KIND, copy=False)
        sizes = _file_sizes(layout)
        base, reason = _base(store, model, held, sizes, other=other)
        read = _read_from(layout, base.reached)
    vectors = _embedded(graph, embedder, [episode for episode, _, _ in read.episodes], report)
    try:
        with store.locked("episode index"):
            again = _kept_state(store, model).written()
            if again != held and not force:  # another process brought them in step meanwhile
                base, reason = _base(store, model, again, _file_sizes(layout))
                read = _read_from(layout, base.reached)
                vectors = _embedded(
                    graph, embedder, [episode for episode, _, _ in read.episodes], report, vectors
                )
            report.rebuilt = reason
            return _written(graph, embedder, base, read, vectors, report, write=True)
    except TextIndexCorrupt as exc:  # tantivy could not write (a full disk, for one)
        report.warnings.append(
            f"episode recall is off for this command: the episode index could not be "
            f"written ({exc})"
        )
        return _empty(layout, embedder), report


def _empty(layout, embedder) -> EpisodeIndex:
    return EpisodeIndex(VectorIndex(embedder.dimension), _NO_TEXT, {}, layout.episodes_dir)


def _counted(report: EpisodeIndexReport, state: dict) -> EpisodeIndexReport:
    report.episodes = len(state["places"])
    return report


@dataclass(frozen=True, slots=True)
class _Base:
    """What an update of the indexes starts from: the record kept of them (model, how far
    each episodes file was read, the episodes' places, the digests of the texts embedded),
    or an empty start (`fresh`: the indexes are made anew)."""

    model: str
    reached: dict[str, int]
    places: dict[int, tuple[str, int]]
    digests: tuple[str, ...] = ()
    fresh: bool = True


def _base(
    store, model: str, held, sizes: dict[str, int], *, other: bool = False
) -> tuple[_Base, str | None]:
    """What the indexes on disk hold, to extend, or an empty start and why it is one
    (`held`: the record kept, (key, state); `other`: the record was made by other code)."""
    layout = store.layout
    empty = _Base(model, {}, {})
    if held is None:
        if other:
            return empty, OTHER_CODE
        if layout.episode_vectors.exists() or layout.episode_text_dir.exists():
            return empty, INTERRUPTED
        return empty, FIRST_BUILD
    key, state = held
    if not isinstance(state, dict) or state.get("model") != model:
        return empty, "the embedding model changed"
    for name, reached in state["reached"].items():
        if sizes.get(name, -1) < reached:
            return empty, f"episodes/{name} is shorter than when it was indexed"
    now = _kept_state(store, model).key() or ()
    if _index_files_key(key) != _index_files_key(now):
        return empty, "the episode index's files are not as they were written"
    return _Base(
        state["model"],
        state["reached"],
        state["places"],
        tuple(state.get("digests", ())),
        fresh=False,
    ), None


def _embedded(
    graph, embedder, episodes: list[Episode], report, known=None
) -> dict[str, np.ndarray]:
    """text -> vector of every episode of `episodes`: from `known`, the embedding cache, or
    the model (outside the lock). What the model embedded is also kept in report.fresh,
    for the cache."""
    known = dict(known or {})
    texts = sorted(
        {episode.embedded for episode in episodes if episode.embedded is not None} - set(known)
    )
    if not texts:
        return known
    cache = EmbeddingCache.of(graph, embedder)
    missing = sorted(set(cache.unreadable(texts)))
    if missing:
        vectors = embedder.embed_passages(missing)
        known.update(zip(missing, vectors))
        report.fresh.update(zip(missing, vectors))
        report.embedded += len(missing)
    for text in texts:
        if text not in known:
            known[text] = cache.vector(content_hash(text))
    return known


def episode_digests(graph) -> frozenset[str]:
    """The content hashes of the texts the episodes' index holds: the embedding cache keeps
    their vectors beside the facts' (semantic/index.py), so a rebuild embeds nothing."""
    held: tuple[tuple, dict] | None = derived.Derived(
        graph.layout.episode_index_state,
        layout=_layout(),
        sources=(),
        required=0,
        disk=graph.store.cache_usable(graph.layout.episode_index_state),
    ).earlier()
    if held is None or not isinstance(held[1], dict):
        return frozenset()
    return frozenset(held[1].get("digests", ()))


def _written(graph, embedder, base, read: _Read, vectors, report, *, write: bool):
    layout, store = graph.layout, graph.store
    places = dict(base.places)
    digests = list(base.digests)
    fresh = []
    for episode, name, offset in read.episodes:
        vid = episode.vector_id
        if vid not in places:
            places[vid] = (name, offset)
            fresh.append(episode)
            if episode.embedded is not None:
                digests.append(content_hash(episode.embedded))
    report.skipped = read.skipped
    report.warnings.extend(f"episode skipped: {line}" for line in read.skipped)
    reached = {**base.reached, **read.reached}
    if base.fresh:
        index = VectorIndex(embedder.dimension)
        text = store.new_text_index(layout.episode_text_dir) if write else TextIndex.create(None)
    else:
        opened = _open(layout, embedder.dimension)
        assert opened is not None  # checked by _base through the files' stamps
        index, text = opened
    embedded = [episode for episode in fresh if episode.embedded is not None]
    if embedded:
        ids = np.array([episode.vector_id for episode in embedded], dtype=np.int64)
        index.add(ids, np.vstack([vectors[episode.embedded] for episode in embedded]))
    if fresh:
        added = [(episode.vector_id, document_body(episode)) for episode in fresh]
        if write:
            store.write_text_index(text, [], added)
        else:
            text.write([], added)
    report.added, report.episodes = len(fresh), len(places)
    state = {"model": base.model, "reached": reached, "places": places, "digests": digests}
    if write and report.fresh:
        cache = EmbeddingCache.of(graph, embedder)
        cache.add(list(report.fresh), np.vstack(list(report.fresh.values())))
        cache.save(store)
        store.touched(cache.path)
        cache.note_mended(store)
    if write and (fresh or base.fresh or reached != base.reached):
        store.make_directory(layout.cache_dir)
        store.write_bytes(layout.episode_vectors, index.write_to)
        kept = _kept_state(store, base.model)
        kept.keep(kept.key(), state)
    return _made(layout, index, text, state), report


def _made(layout, vectors: VectorIndex, text: TextIndex, state: dict) -> EpisodeIndex:
    return EpisodeIndex(vectors, text, dict(state["places"]), layout.episodes_dir)
