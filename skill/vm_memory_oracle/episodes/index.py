"""The episodes' vector and full-text indexes, derived from episodes/ and kept in step.

Episodes files only grow, so the indexes are brought in step by reading what each file
gained since they were last written: state/cache/episode-index.marshal records, for the
model they were made with, how far each file was read and where each episode's line is
(its vector id -> file and byte offset: recall reads only the lines of what it returns).
That record is kept through storage/derived.Derived: its key is the episodes files, the
index's own files and the model, and its layout a digest of the code that makes it, so a
record made by other code is never read as this code's.
state/cache/episode-vectors/ holds the vectors of the turns' openings, in segments (one
for each turn's first passage, Episode.embedded: episodes/vectors.py), state/cache/episode-text/
the terms of every passage (tantivy, BM25). Every file here is derived: when one is missing
or unreadable, when a recorded file shrank or disappeared, or when the model changed, both
indexes are built again from episodes/ (a repair, noted in the audit log, when it was not a first
build). Texts are embedded outside the lock, reusing the embedding cache (a short turn's
text is a fact's context, embedded once); the indexes are written under it. Episodes are
read, embedded and indexed CHUNK at a time, the vectors embedded written to the cache as
they are made (under the lock, a moment each time): an import of half a million turns
holds a chunk of them, never all.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import IndexCorrupt, TextIndexCorrupt
from ..model.text import tokens
from ..semantic.cache import EmbeddingCache, content_hash, digest_keys
from ..storage import derived, strict_json
from ..storage.text_index import TextIndex
from ..storage.validation import problem
from . import EPISODE_KIND, Episode, episode_files
from .places import Growing, Places
from .vectors import EpisodeVectors, remove_segments

FIRST_BUILD = "no episode index yet"
FORCED = "a rebuild was asked for"
# Other code made the record (an upgrade): built again, which is no repair.
OTHER_CODE = "the episode index was made by another version"
# The record is written last: indexes without one are a write cut short (or state/cache/
# cleared, which is allowed at any time), not damage.
INTERRUPTED = "its record is missing: its last write was cut short or state/cache/ was cleared"
# Episodes read, embedded and indexed at a time; the vectors the cache holds past it are
# written to its files.
CHUNK = 4096
READ_BLOCK = 1 << 22


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

    @property
    def repaired(self) -> bool:
        return self.rebuilt not in (None, FIRST_BUILD, FORCED, INTERRUPTED, OTHER_CODE)


@dataclass
class EpisodeIndex:
    """The episodes' indexes as one command reads them."""

    vectors: EpisodeVectors
    text: TextIndex | _NoText
    place_of: Places  # vector id -> (episodes file name, byte offset)
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


class _Reader:
    """Episodes read from the files, past the offsets the indexes were brought to, a chunk
    at a time; what it read to (each file's bytes), the lines it skipped and the files
    that end in a part of a line, once it has gone through."""

    def __init__(self, layout, start: dict[str, int], progress=None, label: str = ""):
        self.layout = layout
        self.start = start
        self.progress = progress  # told (label, MB read, MB to read) after each chunk
        self.label = label
        self.reached: dict[str, int] = {}  # file name -> bytes read
        self.skipped: list[str] = []
        self.torn: list[str] = []  # files ending in a part of a line

    def chunks(self, size: int = CHUNK) -> Iterator[list[tuple[Episode, str, int]]]:
        """Lists of (episode, file name, byte offset), at most `size` in each."""
        chunk: list[tuple[Episode, str, int]] = []
        paths = episode_files(self.layout)
        sizes = _file_sizes(self.layout)
        total = sum(max(0, sizes.get(p.name, 0) - self.start.get(p.name, 0)) for p in paths)
        for path in paths:
            for found in self._read(path):
                chunk.append(found)
                if len(chunk) >= size:
                    yield chunk
                    chunk = []
                    self._told(self._bytes_read(), total)
        if chunk:
            yield chunk
        if total:
            self._told(total, total)

    def _bytes_read(self) -> int:
        return sum(at - self.start.get(name, 0) for name, at in self.reached.items())

    def _told(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(self.label, done // 1_000_000, max(1, total // 1_000_000))

    def _read(self, path: Path) -> Iterator[tuple[Episode, str, int]]:
        layout, name = self.layout, path.name
        position = self.start.get(name, 0)
        self.reached[name] = position
        try:
            handle = open(path, "rb")  # noqa: SIM115  # closed below, read a block at a time
        except OSError as exc:
            self.skipped.append(f"{layout.relative(path)}: {exc.strerror or exc}")
            return
        with handle:
            try:
                # as long as it was when opened: what is appended meanwhile is read next time
                end = os.fstat(handle.fileno()).st_size
                handle.seek(position)
            except OSError as exc:
                self.skipped.append(f"{layout.relative(path)}: {exc.strerror or exc}")
                return
            rest = b""
            while position + len(rest) < end:
                block = handle.read(min(READ_BLOCK, end - position - len(rest)))
                if not block:
                    break
                data = rest + block
                cut = data.rfind(b"\n") + 1
                rest = data[cut:]
                for raw in data[:cut].splitlines(keepends=True):
                    found = self._episode(path, raw, position)
                    if found is not None:
                        yield found
                    position += len(raw)
                    self.reached[name] = position
            if rest:
                # episodes are appended whole under the lock: a part of a line is a torn one
                self.torn.append(name)

    def _episode(self, path: Path, raw: bytes, position: int):
        try:
            record = strict_json.loads(raw.decode("utf-8"))
            why = problem(EPISODE_KIND, record)
        except (UnicodeDecodeError, strict_json.JsonRefused) as exc:
            why = str(exc) or "not JSON"
        if why is None:
            return Episode.from_record(record), path.name, position
        self.skipped.append(f"{self.layout.relative(path)} at byte {position}: {why}")
        return None


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
    segments' stamps, each episodes file's key)."""
    layout = store.layout
    return derived.Derived(
        layout.episode_index_state,
        layout=_layout(),
        sources=episode_files(layout),
        made_with=(
            model,
            _stamps(layout.episode_text_dir, text=True),
            _stamps(layout.episode_vectors),
        ),
        required=0,
        disk=store.cache_usable(layout.episode_index_state),
    )


@cache
def _layout() -> int:
    """What the record and the indexes are made by: this module, the episodes' texts (what
    is embedded), the tokens they are found by, the segments and the packed places."""
    from ..model import text
    from . import __name__ as episodes
    from . import places, vectors

    modules = (sys.modules[__name__], sys.modules[episodes], text, vectors, places)
    return derived.layout_of(None, modules)


def _index_files_key(key: tuple) -> tuple:
    """The part of a record's key that names the index's own files (the full-text index's
    stamps and the vector file's key)."""
    return key[2:4]


def _stamps(directory: Path, *, text: bool = False) -> tuple:
    """Each file of an index directory with its [size, mtime], as a key."""
    from ..storage.text_index import file_stamps

    try:
        stamps = file_stamps(directory) if directory.is_dir() else {}
    except OSError:  # a writer replacing its files right now: not the files written
        stamps = {"": [-1, -1]}
    if not text:
        stamps = {name: stamp for name, stamp in stamps.items() if name.endswith(".bin")}
    return tuple(sorted((name, tuple(stamp)) for name, stamp in stamps.items()))


def _open(layout, dimension: int) -> tuple[EpisodeVectors, TextIndex] | None:
    try:
        return (
            EpisodeVectors.open(layout.episode_vectors, dimension),
            TextIndex.open(layout.episode_text_dir),
        )
    except (IndexCorrupt, TextIndexCorrupt, OSError):
        return None


def update_episode_index(
    graph, embedder, *, force: bool = False, progress=None
) -> tuple[EpisodeIndex, EpisodeIndexReport]:
    """The episodes' indexes in step with episodes/ for `embedder`; `force` builds them
    again from episodes/ (their vectors from the embedding cache). `progress(label, done,
    total)` is told, in MB of the episodes files, how the embedding and the indexing go."""
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
            if len(held_vectors) == len(state["digests"]) // 8:
                return _made(layout, held_vectors, held_text, state), _counted(report, state)
    other = held is None and not force and kept.other_layout()  # made by other code
    if not sizes and held is None and not other and not _stamps(layout.episode_vectors):
        # No episode yet (a memory of remembered facts only): nothing to index or write.
        return _empty(layout, embedder), report
    cache = EmbeddingCache.of(graph, embedder)
    lock = store.refused(layout.write_lock)
    if lock is not None:  # a memory that cannot be locked: indexes for this command only
        report.warnings.append(
            f"{layout.relative(lock.path)}: {lock.problem}; the episode index was built "
            f"for this command only ({lock.fix})"
        )
        base, _ = _base(store, model, None, sizes)
        return _written(graph, embedder, base, cache, report, write=False, progress=progress)
    base, reason = _base(store, model, held, sizes, other=other)
    if force:
        reason = FORCED
    read = _embedded(graph, embedder, cache, base.reached, report, progress)
    if read.skipped or read.torn:
        # Bad lines go to the file's quarantine (the store's way with every JSONL file), and
        # the files, rewritten without them, are indexed again.
        for path in episode_files(layout):
            store.read_records(path, EPISODE_KIND, copy=False)
        base, reason = _base(store, model, held, _file_sizes(layout), other=other)
    try:
        with store.locked("episode index"):
            again = _kept_state(store, model).written()
            if again != held and not force:  # another process brought them in step meanwhile
                base, reason = _base(store, model, again, _file_sizes(layout))
            report.rebuilt = reason
            return _written(graph, embedder, base, cache, report, write=True, progress=progress)
    except TextIndexCorrupt as exc:  # tantivy could not write (a full disk, for one)
        report.warnings.append(
            f"episode recall is off for this command: the episode index could not be "
            f"written ({exc})"
        )
        return _empty(layout, embedder), report


def _empty(layout, embedder) -> EpisodeIndex:
    vectors = EpisodeVectors(layout.episode_vectors, embedder.dimension)
    return EpisodeIndex(vectors, _NO_TEXT, Places.empty(), layout.episodes_dir)


def _counted(report: EpisodeIndexReport, state: dict) -> EpisodeIndexReport:
    report.episodes = len(Places.from_plain(state["places"]))
    return report


@dataclass(frozen=True, slots=True)
class _Base:
    """What an update of the indexes starts from: the record kept of them (model, how far
    each episodes file was read, the episodes' places, the digests of the texts embedded),
    or an empty start (`fresh`: the indexes are made anew)."""

    model: str
    reached: dict[str, int]
    places: Places
    digests: np.ndarray  # uint64: the keys of the texts' content hashes (digest_keys)
    fresh: bool = True


def _base(
    store, model: str, held, sizes: dict[str, int], *, other: bool = False
) -> tuple[_Base, str | None]:
    """What the indexes on disk hold, to extend, or an empty start and why it is one
    (`held`: the record kept, (key, state); `other`: the record was made by other code)."""
    layout = store.layout
    empty = _Base(model, {}, Places.empty(), np.zeros(0, dtype=np.uint64))
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
        Places.from_plain(state["places"]),
        np.frombuffer(state["digests"], dtype=np.uint64),
        fresh=False,
    ), None


def _embedded(graph, embedder, cache: EmbeddingCache, reached, report, progress) -> _Reader:
    """Embed the texts of the episodes past `reached` that `cache` lacks, outside the lock,
    a chunk at a time; what the cache holds past a chunk is written to its files under the
    lock, a moment each time. Returns the reader (the lines it skipped, the files torn)."""
    read = _Reader(graph.layout, reached, progress, "embedding episodes, MB")
    for chunk in read.chunks():
        _embed(embedder, cache, [episode for episode, _, _ in chunk], report)
        if cache.held >= CHUNK:
            with graph.store.locked("episode vectors"):
                cache.save(graph.store)
    return read


def _embed(embedder, cache: EmbeddingCache, episodes: list[Episode], report) -> list[str]:
    """The texts of `episodes` to embed, each once, embedded into `cache` when it lacks
    them (or its file of them turns out damaged); returns the texts."""
    texts = [episode.embedded for episode in episodes if episode.embedded is not None]
    missing = cache.unreadable(texts)
    if missing:
        cache.add(missing, embedder.embed_passages(missing))
        report.embedded += len(missing)
    return texts


def episode_digests(graph) -> np.ndarray:
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
        return np.zeros(0, dtype=np.uint64)
    return np.frombuffer(held[1]["digests"], dtype=np.uint64)


def _written(graph, embedder, base, cache: EmbeddingCache, report, *, write: bool, progress=None):
    """The indexes brought from `base` to the episodes files' ends, a chunk at a time:
    places and digests recorded, vectors (from `cache`, or embedded now) added to the
    segments, terms to the full-text index; with `write`, each written as it goes and the
    record last, else all held for this command."""
    layout, store = graph.layout, graph.store
    places = Growing(base.places)
    digests = [base.digests]
    if base.fresh:
        if write:
            remove_segments(store, layout.episode_vectors)
            store.delete(layout.cache_dir / "episodes.bin")  # the one file of an older layout
        index = EpisodeVectors(layout.episode_vectors, embedder.dimension)
        text = store.new_text_index(layout.episode_text_dir) if write else TextIndex.create(None)
    else:
        opened = _open(layout, embedder.dimension)
        assert opened is not None  # checked by _base through the files' stamps
        index, text = opened
    read = _Reader(layout, base.reached, progress, "indexing episodes, MB")
    added = 0
    for chunk in read.chunks():
        new = places.new((episode.vector_id, name, offset) for episode, name, offset in chunk)
        fresh = [episode for (episode, _, _), is_new in zip(chunk, new) if is_new]
        embedded = [episode for episode in fresh if episode.embedded is not None]
        texts = _embed(embedder, cache, embedded, report)
        if embedded:
            digested = [content_hash(text) for text in texts]
            digests.append(digest_keys(digested))
            ids = np.array([episode.vector_id for episode in embedded], dtype=np.int64)
            index.add(ids, cache.vectors(digested), store if write else None)
        if fresh:
            bodies = [(episode.vector_id, document_body(episode)) for episode in fresh]
            if write:
                store.write_text_index(text, [], bodies)
            else:
                text.write([], bodies)
        added += len(fresh)
        if write and cache.held >= CHUNK:
            cache.save(store)
    report.skipped = read.skipped
    report.warnings.extend(f"episode skipped: {line}" for line in read.skipped)
    reached = {**base.reached, **read.reached}
    held = places.places()
    report.added, report.episodes = added, len(held)
    state = {
        "model": base.model,
        "reached": reached,
        "places": held.plain(),
        "digests": np.concatenate(digests).tobytes(),
    }
    if write and (cache.held or cache.problem is not None):
        cache.save(store)
        store.touched(cache.path)
        cache.note_mended(store)
    index.save(store if write else None)
    if write and (added or base.fresh or reached != base.reached):
        kept = _kept_state(store, base.model)
        kept.keep(kept.key(), state)
    return _made(layout, index, text, state), report


def _made(layout, vectors: EpisodeVectors, text: TextIndex, state: dict) -> EpisodeIndex:
    return EpisodeIndex(vectors, text, Places.from_plain(state["places"]), layout.episodes_dir)
