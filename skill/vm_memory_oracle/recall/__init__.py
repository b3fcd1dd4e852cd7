"""Recall: the facts and episodes of the memory that answer a query.

The rooms, in the order a query passes through them:
- query.py: the query, checked and read once (Query);
- corpus.py: the facts searchable now, and how they are matched (Corpus);
- gate.py: whether the query concerns the memory at all (else nothing is found);
- sources/: each source of candidates, one module each: of facts (exact, semantic,
  lexical, time, about, graph) and of episodes (episodes);
- candidates.py and fusion.py: the sources' lists fused by the one reciprocal rank into one
  ranking, one fact per turn first, then fused with the episodes;
- hollow.py: which episodes are no evidence of the answer though they match (an earlier
  asking of the question, the assistant not knowing, a pleasantry): listed last;
- archive.py: pruned facts restored when too few active ones hold the query's words;
- entries.py: what is shown of each hit (a fact's history, an episode's window);
- results.py: the records a recall returns (FoundFact, FoundEpisode, ResultSet, Recalled)
  and their JSON;
- pipeline.py: recall_many, which runs them.
"""

from .pipeline import recall_many
from .query import MAX_QUERY_CHARS, Asked, check_query
from .results import FoundEpisode, FoundFact, Recalled, ResultSet

__all__ = [
    "MAX_QUERY_CHARS",
    "Asked",
    "FoundEpisode",
    "FoundFact",
    "Recalled",
    "ResultSet",
    "check_query",
    "recall_many",
]
