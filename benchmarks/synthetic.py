"""Synthetic memories of any size for the latency benchmarks.

Facts are generated (varied subjects, predicates and objects), ingested through the
library, and given vectors without running the model: vectors made from each fact's topic,
subject and predicate (cache_random_vectors) are written to the embedding cache under its
content hash, so building the index measures FAISS and the pipeline, not hours of
embedding. Queries are embedded by the real model.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "skill"))

from vm_memory_oracle.clock import parse_iso  # noqa: E402
from vm_memory_oracle.config import Settings  # noqa: E402
from vm_memory_oracle.graph import KnowledgeGraph  # noqa: E402
from vm_memory_oracle.intake import facts_from_jsonl  # noqa: E402
from vm_memory_oracle.memory import Memory  # noqa: E402
from vm_memory_oracle.semantic import EmbeddingCache, content_hash, indexed_texts  # noqa: E402

SUBJECTS = [
    "user",
    "team",
    "billing service",
    "deployment project",
    "用户",
    "Alice",
    "Bob",
    "the cluster",
    "the mobile app",
    "Carol",
]
# No "prefers": its objects here ("dark mode item 12", "... item 45") would be two values of
# one choice, and each would replace the last (scoring.md, "Supersession").
PREDICATES = [
    "mentioned",
    "likes",
    "worked on",
    "asked about",
    "喜欢",
    "decided",
    "visited",
    "fixed",
    "reviewed",
    "planned",
]
TOPICS = [
    "database migration",
    "dark mode",
    "oolong tea",
    "the Berlin office",
    "TLS renewal",
    "quarterly report",
    "hiking trip",
    "violin lessons",
    "peanut allergy",
    "Rust rewrite",
    "on-call rotation",
    "budget review",
    "新版本发布",
    "北京出差",
    "code review",
]
QUERIES = [
    "what does the user prefer",
    "which database migration was decided",
    "who reviewed the quarterly report",
    "用户喜欢什么茶",
    "when is the TLS renewal",
    "tell me about the hiking trip",
    "what did Alice work on",
    "北京出差的安排",
]


def fact_lines(count: int) -> list[dict]:
    return [
        {
            "subject": SUBJECTS[i % len(SUBJECTS)],
            "predicate": PREDICATES[(i // 3) % len(PREDICATES)],
            "object": f"{TOPICS[(i // 7) % len(TOPICS)]} item {i}",
            "importance": round((i % 10) / 10, 1),
        }
        for i in range(count)
    ]


def build_memory(
    directory: Path,
    count: int,
    *,
    dimension: int = 384,
    model_id: str,
    stamp: str = "2026-05-15T00:00:00Z",
) -> Memory:
    """The memory at `directory`: `count` generated facts remembered at `stamp`, a vector
    of each text in the embedding cache of `model_id`."""
    settings = Settings(lock_timeout_seconds=60)
    Memory.open(directory, settings).init()
    memory = Memory.open(directory, settings, now=parse_iso(stamp))
    data = "".join(json.dumps(line) + "\n" for line in fact_lines(count)).encode()
    memory.remember(facts_from_jsonl(io.BytesIO(data), "synthetic", created=stamp).facts)
    cache_random_vectors(memory.graph(), model_id=model_id, dimension=dimension)
    return memory


def cache_random_vectors(graph: KnowledgeGraph, *, model_id: str, dimension: int = 384) -> None:
    """File a vector under the content hash of every text of every fact, so that building
    the index embeds nothing. A fact's vector is made as an embedder's would be, from what
    its text says: a random direction for each topic, subject and predicate, summed (the
    topic weighing most) with noise of its own, and normalised. Facts on one topic are then
    near each other as real embeddings of a memory are; uniformly random vectors would
    have no neighbours at all, and make any approximate index scan everything."""
    rng = np.random.default_rng(0)
    directions: dict[str, np.ndarray] = {}

    def direction(name: str) -> np.ndarray:
        if name not in directions:
            vector = rng.normal(size=dimension)
            directions[name] = vector / np.linalg.norm(vector)
        return directions[name]

    texts: dict[str, np.ndarray] = {}
    for fact in graph.facts():
        topic = fact.object.rsplit(" item ", 1)[0]
        meaning = (
            direction(f"topic {topic}")
            + 0.5 * direction(f"subject {fact.subject}")
            + 0.5 * direction(f"predicate {fact.predicate}")
        )
        for text in indexed_texts(fact):
            if text not in texts:
                noise = rng.normal(size=dimension)
                vector = meaning + 0.8 * noise / np.linalg.norm(noise)
                texts[text] = (vector / np.linalg.norm(vector)).astype(np.float32)
    cache = EmbeddingCache(
        graph.layout.embedding_cache(model_id),
        dimension,
        {content_hash(text): vector for text, vector in texts.items()},
    )
    cache.save(graph.store)
