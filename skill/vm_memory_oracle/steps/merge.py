"""Step 4 of consolidation: merge near-duplicates.

Two current facts about one subject that say the same thing in other words (at least 60%
of significant words shared, or sentence embeddings closer than merge_similarity; never two
that disagree: model.similarity) become one. The newer wording stays; the older fact is
archived with `merged_into` and its sources are kept by the one that stays, which takes the
higher of the two activations. A pinned fact is never merged away: it is the one that
stays, and two pinned facts are both kept.

Finding the pairs is exact, not sampled: a pair the word check merges has one fact's
value words all among the other's words, so only the facts holding the rarest of them are
compared; the cosine check compares every pair of facts about the same subject.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import cache

import numpy as np

from ..clock import parse_iso
from ..graph import KnowledgeGraph
from ..model.fact import Fact, normalise
from ..model.similarity import MIN_OVERLAP, Wording, duplicate_reason, overlap, wording
from .report import StepReport

# Rows of the similarity matrix computed at once: at most _ROWS, and at most _CELLS cosines,
# which bounds its memory for a subject with many facts (1,024 rows of a subject of 100,000
# facts at a million were 400 MB, and their comparison with the threshold 100 MB more); but
# never fewer than _FEWEST, where the matrix product takes another way (BLAS's product of
# a few rows sums in another order, and a cosine at the threshold could fall either side).
_ROWS = 1024
_CELLS = 4 * 1024 * 1024
_FEWEST = 64
# What the merge step's memo holds when the search found nothing.
NO_DUPLICATE = "no duplicate"

# sentences -> (the unit vectors of those that have one, as the rows of a matrix; the place
# among the sentences of each row)
SentenceVectors = Callable[[list[str]], "tuple[np.ndarray, np.ndarray]"]


def find_duplicates(
    facts: list[Fact], *, vectors: SentenceVectors | None = None, threshold: float | None = None
) -> dict[str, tuple[str, str]]:
    """Id of each fact to merge away -> (id of the fact it merges into, why).

    `vectors(sentences)` gives each sentence's unit embedding (or None when it has none);
    without it, or without a threshold, only word overlap is checked.
    """
    current = [fact for fact in facts if fact.current]
    groups: dict[str, list[int]] = {}
    for position, fact in enumerate(current):
        groups.setdefault(normalise(fact.subject), []).append(position)  # (Wording.subject)
    reasons: dict[tuple[int, int], str] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        # The wordings of one subject's facts at a time: a million facts' took 1.7 GB.
        wordings = {position: wording(current[position]) for position in members}
        cosines = (
            _close_pairs(current, members, vectors, threshold)
            if vectors is not None and threshold is not None
            else {}
        )
        for pair in sorted(_overlapping_pairs(wordings, members) | set(cosines)):
            reason = duplicate_reason(
                wordings[pair[0]], wordings[pair[1]], cosines.get(pair), threshold
            )
            if reason is not None:
                reasons[pair] = reason
    return _choose(current, reasons)


def _overlapping_pairs(wordings: Mapping[int, Wording], members: list[int]) -> set[tuple[int, int]]:
    """Pairs (i < j) of `members` that the word check may merge: one's value words all
    among the other's words (else each names a value the other never mentions), so the
    other holds the rarest of them, and the two share MIN_OVERLAP of the smaller set."""
    postings: dict[str, list[int]] = {}
    for position in members:
        for word in wordings[position].words:
            postings.setdefault(word, []).append(position)
    pairs: set[tuple[int, int]] = set()
    for position in members:
        words, value = wordings[position].words, wordings[position].value
        if not words:
            continue
        # No value words (its object is its subject, or stop words): any fact sharing a word.
        probes = (
            [min(value, key=lambda word: (len(postings.get(word, ())), word))] if value else words
        )
        for word in probes:
            for other in postings.get(word, ()):
                if other == position or value - wordings[other].words:
                    continue
                if overlap(words, wordings[other].words) >= MIN_OVERLAP:
                    pairs.add((min(position, other), max(position, other)))
    return pairs


def _close_pairs(
    facts: list[Fact], members: list[int], vectors: SentenceVectors, threshold: float
) -> dict[tuple[int, int], float]:
    """Pairs (i < j) of `members` whose sentence vectors have cosine >= threshold."""
    matrix, places = vectors([facts[position].sentence for position in members])
    if len(places) < 2:
        return {}
    positions = [members[place] for place in places.tolist()]
    matrix = np.asarray(matrix, dtype=np.float32)
    close: dict[tuple[int, int], float] = {}
    rows = max(_FEWEST, min(_ROWS, _CELLS // len(matrix)))
    for start in range(0, len(matrix), rows):
        block = matrix[start : start + rows] @ matrix.T
        for row, column in zip(*np.nonzero(block >= threshold)):
            i, j = start + int(row), int(column)
            if i < j:
                close[(positions[i], positions[j])] = float(block[row, column])
    return close


def _choose(facts: list[Fact], reasons: dict[tuple[int, int], str]) -> dict[str, tuple[str, str]]:
    """Which fact of each duplicate pair stays: a pinned one, else the newer (later in the
    file when created at the same time). Facts are taken from the one that stays most
    surely; each absorbs its duplicates not taken yet, so a fact merges at most once."""
    partners: dict[int, list[tuple[int, str]]] = {}
    for (i, j), reason in reasons.items():
        partners.setdefault(i, []).append((j, reason))
        partners.setdefault(j, []).append((i, reason))

    def priority(position: int) -> tuple:
        fact = facts[position]
        return (fact.pinned, parse_iso(fact.created), position)

    merged: dict[str, tuple[str, str]] = {}
    taken: set[int] = set()
    for position in sorted(partners, key=priority, reverse=True):
        if position in taken:
            continue
        for other, reason in sorted(partners[position]):
            if other in taken or facts[other].pinned or priority(other) > priority(position):
                continue
            taken.add(other)
            merged[facts[other].id] = (facts[position].id, reason)
    return merged


def merge_duplicates(
    graph: KnowledgeGraph,
    now: datetime,
    *,
    vectors: Callable[[], SentenceVectors | None] | None = None,
    threshold: float | None = None,
    model_id: str = "",
) -> StepReport:
    """The step: find the duplicates among the active facts and merge them.

    `vectors()` gives the sentence vectors of `model_id` (called only when a search runs).
    A search that finds no duplicate is remembered with what it was made on (the facts
    file, the threshold, the model and its embedding cache): the same search is not made
    again while they are unchanged (a night with nothing new spent most of its time here
    at 100,000 facts)."""
    from ..semantic.cache import cache_files
    from ..storage import derived

    layout = graph.layout
    embeddings = cache_files(layout, model_id) if model_id else []
    memo: derived.Derived[str] = derived.Derived(
        layout.merge_search_cache,
        layout=_memo_layout(),
        sources=(layout.facts, *embeddings),
        made_with=(threshold, model_id),
        disk=graph.store.cache_usable(layout.merge_search_cache),
    )
    made_on = memo.key()
    if memo.held(made_on) == NO_DUPLICATE:
        return StepReport("merge", counts={"merged": 0})
    sentence_vectors = vectors() if vectors is not None else None
    pairs = find_duplicates(graph.facts(), vectors=sentence_vectors, threshold=threshold)
    if not pairs:
        memo.keep(made_on, NO_DUPLICATE)
    merged = graph.merge(pairs, now) if pairs else {}
    return StepReport(
        "merge",
        counts={"merged": len(merged)},
        changes=[
            {"fact": gone, "change": "merged", "reason": f"into {kept}: {why}"}
            for gone, (kept, why) in sorted(merged.items())
        ],
    )


@cache
def _memo_layout() -> int:
    """The duplicate rules the memo's search was made with: this module's code and the
    wording checks'."""
    from ..model import similarity
    from ..storage import derived

    return derived.layout_of(None, (sys.modules[__name__], similarity))
