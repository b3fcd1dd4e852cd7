"""Lexical retrieval: the full-text (BM25) index kept in step with the facts, beside the
vector index (index), over the tantivy index of storage/text_index.py."""

from .index import (
    TextIndexReport,
    TextIndexState,
    document_body,
    document_text,
    text_index_state,
    update_text_index,
)

__all__ = [
    "TextIndexReport",
    "TextIndexState",
    "document_body",
    "document_text",
    "text_index_state",
    "update_text_index",
]
