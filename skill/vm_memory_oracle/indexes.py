"""The memory's derived indexes, brought in step by one call.

Every index made from the memory's files is brought in step here, and only here: the
episodes' vector and full-text indexes (episodes/index.py), the facts' vector index
(semantic/index.py) and the facts' full-text index (lexical/index.py); the tables recall
reads (the lexical snapshot and the activation columns) are made on first use from the same
owner (Indexes.lexical, Indexes.activations), as is the archive's pruned facts' snapshot
and vectors (Indexes.archive), whose vectors the embedding cache keeps. Each index decides
for itself, through storage/derived.py, whether what it holds is in step, can be extended,
or must be made again; this module runs them in one order, writes one line in the audit
log for all they changed (with a repair for each that had to be built again though it
should have been usable, so health.json reports it), and returns one list of warnings for
the command to show. Recall, reindex, consolidate, check(fix=True) and the long-lived
recall process all call `bring_in_step`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datetime import datetime

    from .archive_tier import ArchiveTier
    from .episodes.index import EpisodeIndex, EpisodeIndexReport
    from .graph import KnowledgeGraph
    from .graph.columns import ActivationsAt
    from .lexical.index import TextIndexReport
    from .lexical.snapshot import LexicalSnapshot
    from .semantic import Choice, IndexReport, Semantic
    from .storage.text_index import TextIndex

# The indexes, by the name a rebuild asks for them with.
EPISODES = "episodes"
VECTORS = "vectors"
TEXT = "full text"
ALL = frozenset({EPISODES, VECTORS, TEXT})


@dataclass
class InStepReport:
    """What bringing the indexes in step did: each index's own report (None for one not
    brought in step by this call) and the warnings for the command's output."""

    vectors: IndexReport | None = None
    episodes: EpisodeIndexReport | None = None
    text: TextIndexReport | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class Indexes:
    """The memory's derived indexes as one command reads them: the embedder with the facts'
    vector index and how to tell a related neighbour (`semantic`, None when vectors were not
    asked for), the episodes' indexes, and the facts' full-text index (None when there is no
    usable one: the report's warnings say why)."""

    graph: KnowledgeGraph
    semantic: Semantic | None
    episodes: EpisodeIndex | None
    text: TextIndex | None
    choice: Choice | None
    report: InStepReport

    @property
    def warnings(self) -> list[str]:
        return self.report.warnings

    @cached_property
    def lexical(self) -> LexicalSnapshot:
        """The facts' lexical snapshot (lexical/snapshot.py), made or read once."""
        from .lexical.snapshot import lexical_index

        return lexical_index(self.graph)

    def activations(self, now: datetime) -> ActivationsAt:
        """The facts' activation at `now`, in the lexical snapshot's numbering: the
        activation columns (graph/columns.py), kept while activation-metadata.json and its
        journal are unchanged, with the formula applied over them."""
        from .lexical.snapshot import tables_of

        tables = tables_of(self.lexical)
        return self.graph.activations(tables.position, tables.facts, now)

    @cached_property
    def archive(self) -> ArchiveTier:
        """The archive's pruned facts as recall searches them (archive_tier.py), made or
        read once, with vectors when vectors were asked for."""
        from .archive_tier import archive_tier

        return archive_tier(self.graph, self.semantic.embedder if self.semantic else None)


def bring_in_step(
    graph: KnowledgeGraph,
    *,
    rebuild: Iterable[str] = (),
    vectors: bool = True,
    progress: Any = None,
    choice: Choice | None = None,
) -> Indexes:
    """Every derived index of `graph`'s memory in step with its files; those named in
        `rebuild` (EPISODES, VECTORS, TEXT) built again from the files. `vectors=False` leaves
        the model and the vector indexes alone, where they were never built (a prune of a memory
        never indexed). `progress(label, done, total)` is told how the embedding goes; `choice`:
    the embedder chosen already (semantic.configured_embedder), else it is chosen here."""
    import numpy as np

    from .archive_tier import archive_digests
    from .episodes.index import episode_digests, update_episode_index
    from .lexical import update_text_index
    from .semantic import configured_embedder, semantic_of, update_index
    from .semantic.cache import digest_keys

    rebuild = frozenset(rebuild)
    unknown = rebuild - ALL
    if unknown:
        raise ValueError(f"no such index: {', '.join(sorted(unknown))}")
    settings = graph.settings
    report = InStepReport()
    semantic = episodes = None
    if not vectors:
        choice = None
    else:
        choice = choice or configured_embedder(graph, settings)
        if choice.note:
            report.warnings.append(choice.note)
        # The episodes first: a fact's context that is a turn's text is then in the cache.
        episodes, report.episodes = update_episode_index(
            graph, choice.embedder, force=EPISODES in rebuild, progress=progress
        )
        index, report.vectors = update_index(
            graph,
            choice.embedder,
            force=VECTORS in rebuild,
            approximate_min_facts=settings.approximate_min_facts,
            progress=progress,
            also_cached=lambda: np.concatenate(
                [episode_digests(graph), digest_keys(archive_digests(graph))]
            ),
        )
        semantic = semantic_of(graph, choice.embedder, index)
        report.warnings += report.episodes.warnings + report.vectors.warnings
    text = None
    if _has_text(graph) or TEXT in rebuild:
        text, report.text = update_text_index(graph, force=TEXT in rebuild)
        report.warnings += report.text.warnings
    report.warnings += _rebuilt(report)
    _note(graph, report)
    return Indexes(graph, semantic, episodes, text, choice, report)


def _has_text(graph: KnowledgeGraph) -> bool:
    """Whether the full-text index has anything to hold or mend: a fact, or an index made
    before (a memory of no fact gets none, and a recall of it writes nothing)."""
    layout = graph.layout
    if layout.text_index_dir.exists() or layout.text_index_state.exists():
        return True
    return any(fact.current for fact in graph.store.facts_passing())


def _rebuilt(report: InStepReport) -> list[str]:
    """The warnings of indexes that had to be built again though they should have been
    usable, and of a full-text index that cannot be used."""
    warnings = []
    vectors, episodes, text = report.vectors, report.episodes, report.text
    if vectors is not None and vectors.repaired:
        warnings.append(
            f"vector index rebuilt: {vectors.rebuilt} "
            f"({vectors.vectors} vectors, {vectors.embedded} embedded)"
        )
    if episodes is not None and episodes.repaired:
        warnings.append(
            f"episode index rebuilt: {episodes.rebuilt} "
            f"({episodes.episodes} episodes, {episodes.embedded} embedded)"
        )
    if text is not None and text.problem is not None:
        warnings.append(
            f"lexical recall is off: {text.problem}; recall uses exact and semantic matches only"
        )
    elif text is not None and text.repaired:
        warnings.append(f"full-text index rebuilt: {text.rebuilt} ({text.documents} documents)")
    return warnings


def _note(graph: KnowledgeGraph, report: InStepReport) -> None:
    """One line in the audit log for what the indexes changed, each index's change a note
    of it (a repair, which health.json lists, where the index had to be built again though
    it should have been usable); no line when none changed. A memory whose lock is refused
    is read, never written: its indexes were made for this command only, and said so."""
    changes = []
    layout = graph.layout
    parts = (
        ("episode index", report.episodes, layout.episode_vectors),
        ("vector index", report.vectors, layout.index_file),
        ("full-text index", report.text, layout.text_index_dir),
    )
    for name, part, path in parts:
        if part is None:
            continue
        # The episodes files only grow: their index never removes an entry.
        added, removed = part.added, getattr(part, "removed", 0)
        if part.rebuilt is None and not added and not removed:
            continue
        change = f"{name}: {added} added, {removed} removed"
        if part.rebuilt is not None:
            change += f", rebuilt because {part.rebuilt}"
        changes.append((change, path, part.repaired))
    if not changes or graph.store.refused(graph.layout.write_lock) is not None:
        return
    with graph.store.locked("index"):
        for change, path, repaired in changes:
            graph.store.touched(path)  # derived files are unaudited, but what changed is told
            graph.store.note(change, repair=repaired)
