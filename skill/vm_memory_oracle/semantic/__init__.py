"""Semantic retrieval: choosing the embedder (embedders), the embedding cache (cache), the
vector index kept in step with the facts (index, over the FAISS wrapper in vectors), and
the query side (search). It knows vectors and the ids they stand for; indexes.py, the owner
of every derived index, brings it in step (`update_index`) and makes its query side
(`semantic_of`)."""

from .cache import EmbeddingCache, content_hash
from .embedders import Choice, choose_embedder, configured_embedder
from .index import (
    IndexReport,
    SemanticIndex,
    cached_sentence_vectors,
    indexed_texts,
    update_index,
    wanted_vectors,
)
from .search import Semantic, semantic_of

__all__ = [
    "Choice",
    "EmbeddingCache",
    "IndexReport",
    "Semantic",
    "SemanticIndex",
    "cached_sentence_vectors",
    "choose_embedder",
    "configured_embedder",
    "content_hash",
    "indexed_texts",
    "semantic_of",
    "update_index",
    "wanted_vectors",
]
