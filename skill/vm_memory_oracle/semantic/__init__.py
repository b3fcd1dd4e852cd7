"""Semantic retrieval: choosing the embedder (embedders), the embedding cache (cache), the
vector index kept in step with the facts (index, over the FAISS wrapper in vectors), and
the query side (search). Callers use `semantic_search` for an up-to-date index and its
embedder, and `update_index` to bring the index in step."""

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
from .search import Semantic, semantic_search

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
    "semantic_search",
    "update_index",
    "wanted_vectors",
]
