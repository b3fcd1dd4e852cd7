"""The sources of recall's candidates: each ranks facts for a query its own way.

A source is a module with a NAME (it appears in a result's "matched"), a WEIGHT in the
fusion, a LEAD added to the score of every fact it finds, whether it RERANKS, and
`rank(query, candidates)`: the fact numbers it ranks, best first, or None when it has
nothing to say of this query (it is then left out of the scores' scale too). An independent
source searches the memory (exact, semantic, lexical); a re-ranking one reads what the
independent ones found, in the order fused so far (time, about, answer, graph). Adding a source is
one module and one line below. The episodes (episodes.py) are the source of turns: it
ranks episodes, not facts, for the same Query, and its lists are fused with the facts'
ranking after it is made (fusion.with_episodes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from . import about, answer, exact, graph, lexical, semantic, time

if TYPE_CHECKING:
    import numpy as np

    from ..candidates import Candidates
    from ..query import Query


class Source(Protocol):
    NAME: str
    WEIGHT: float
    LEAD: float
    RERANKS: bool

    def rank(self, query: Query, candidates: Candidates) -> np.ndarray | None: ...


# In the order their lists are fused and named in a result's "matched".
SOURCES: tuple[Source, ...] = (exact, semantic, lexical, time, about, answer, graph)
