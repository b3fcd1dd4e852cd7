"""Evidence recall@k on LoCoMo through the real pipeline: session logs -> summarize -> index.

Every question of categories 1-4 is recalled (k=10, no boost); a question scores the share
of its evidence turns that are the source of a returned fact (LoCoMo's recall_acc). Figures
overall and per category, for each embedder and for lexical matching alone. Run:
    .venv/bin/python benchmarks/locomo_retrieval.py [--embedders hash,multilingual-e5-small]
        [--workdir DIR] [--json] [--embed-ahead]
A --workdir kept between runs keeps the embedding caches, so a second run embeds nothing;
--embed-ahead only fills the kept caches the tests restore.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "skill"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vm_memory_oracle.config import Settings  # noqa: E402
from vm_memory_oracle.graph import KnowledgeGraph  # noqa: E402
from vm_memory_oracle.indexes import bring_in_step  # noqa: E402
from vm_memory_oracle.memory import Memory  # noqa: E402
from vm_memory_oracle.recall import Asked, recall_many  # noqa: E402
from vm_memory_oracle.storage.layout import Layout  # noqa: E402

from locomo import load_dataset, write_sessions  # noqa: E402
from results import TEST_CACHE  # noqa: E402

LEXICAL = "lexical-only"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


@dataclass
class Scores:
    embedder: str
    model_id: str = ""
    questions: int = 0
    recall: float = 0.0
    per_category: dict = field(default_factory=dict)
    seconds_index: float = 0.0
    seconds_queries: float = 0.0
    fallback: str | None = None
    per_conversation: dict = field(default_factory=dict)
    # Characters of result text (the facts' sentences) a query returns: the most, and the mean.
    max_result_chars: int = 0
    mean_result_chars: float = 0.0


def prepare(
    workdir: Path, samples: tuple[str, ...] | None = None, kept: Path | None = None
) -> list[tuple[KnowledgeGraph, object, object]]:
    """Each conversation (or those named) summarized into its own data directory (reused
    when present). `kept`: embedding caches of earlier runs (see restore_embeddings), put in
    place before summarizing, so that neither summarize nor the index embeds a text twice."""
    prepared = []
    settings = Settings(lock_timeout_seconds=60)
    for sample in load_dataset():
        if samples is not None and sample["sample_id"] not in samples:
            continue
        layout = Layout(workdir / sample["sample_id"])
        fresh = not layout.facts.exists()
        Memory.open(layout.root, settings).init()
        if kept is not None:
            restore_embeddings(workdir, kept, samples=(sample["sample_id"],))
        conversation = write_sessions(sample, layout.sessions_dir)
        now = conversation.last_time + timedelta(hours=1)
        memory = Memory.open(layout.root, settings, now=now)
        if fresh:
            memory.summarize(all_pending=True)
        prepared.append((memory.graph(), conversation, now))
    return prepared


# Where the retrieval test keeps the conversations' embedding caches between runs.
KEPT_EMBEDDINGS = TEST_CACHE / "locomo-embeddings"


def restore_embeddings(
    workdir: Path, kept: Path | None = None, samples: tuple[str, ...] | None = None
) -> None:
    """Put back the conversations' embedding caches an earlier run kept (the retrieval
    benchmark's test keeps them in `kept`), so that nothing is embedded again."""
    import shutil

    kept = kept or KEPT_EMBEDDINGS
    for sample in kept.iterdir() if kept.is_dir() else []:
        if samples is not None and sample.name not in samples:
            continue
        target = workdir / sample.name / "embeddings"
        if target.parent.is_dir():
            target.mkdir(exist_ok=True)
            for cache in sample.glob("cache-*.npz"):
                if not (target / cache.name).exists():
                    shutil.copy2(cache, target / cache.name)


def keep_embeddings(workdir: Path, kept: Path | None = None) -> None:
    """Keep the conversations' embedding caches of `workdir` in `kept` for later runs. Each
    file is written beside its place and renamed into it, so a run reading `kept` at the
    same time sees the old file or the new, never a part."""
    import os
    import shutil

    kept = kept or KEPT_EMBEDDINGS
    for cache in sorted(workdir.glob("*/embeddings/cache-*.npz")):
        target = kept / cache.parent.parent.name / cache.name
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.{os.getpid()}")
        shutil.copy2(cache, partial)
        os.replace(partial, target)


def embed_ahead(workdir: Path, kept: Path | None = None) -> None:
    """Embed every conversation's texts with the default model (what summarize and the index
    embed) and keep them in `kept`: a later run that restores them embeds nothing."""
    kept = kept or KEPT_EMBEDDINGS
    for graph, _, _ in prepare(workdir, kept=kept):
        graph.settings = Settings()
        bring_in_step(graph)
    keep_embeddings(workdir, kept)


def evaluate(prepared, embedder: str, k: int = 10) -> Scores:
    scores = Scores(embedder)
    per_question: list[tuple[int, float]] = []
    result_chars: list[int] = []
    for graph, conversation, now in prepared:
        settings = replace(Settings(), embedding_model=embedder if embedder != LEXICAL else "hash")
        graph.settings = settings
        started = time.perf_counter()
        indexes = bring_in_step(graph, vectors=embedder != LEXICAL)
        choice = indexes.choice
        if choice is not None:
            scores.model_id = choice.embedder.model_id
            scores.fallback = choice.note
        scores.seconds_index += time.perf_counter() - started
        dia_of_source = {source: dia for dia, source in conversation.turn_sources.items()}
        started = time.perf_counter()
        queries = [Asked(qa["question"], k) for qa in conversation.questions]
        results = recall_many(graph, queries, now, boost=False, indexes=indexes)
        scores.seconds_queries += time.perf_counter() - started
        own = []
        for qa, result in zip(conversation.questions, results):
            found = {dia_of_source.get(hit.source) for hit in result.hits}
            own.append((qa["category"], len(found & set(qa["evidence"])) / len(qa["evidence"])))
            result_chars.append(sum(len(hit.text) for hit in result.hits))
        per_question += own
        scores.per_conversation[conversation.sample_id] = (
            round(sum(value for _, value in own) / len(own), 4) if own else 0.0
        )
    scores.questions = len(per_question)
    scores.recall = round(sum(value for _, value in per_question) / len(per_question), 4)
    for category, name in CATEGORIES.items():
        values = [value for cat, value in per_question if cat == category]
        if values:
            scores.per_category[f"{category} {name}"] = round(sum(values) / len(values), 4)
    scores.max_result_chars = max(result_chars, default=0)
    scores.mean_result_chars = round(sum(result_chars) / max(len(result_chars), 1), 1)
    scores.seconds_index = round(scores.seconds_index, 1)
    scores.seconds_queries = round(scores.seconds_queries, 1)
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", default=f"{LEXICAL},hash,multilingual-e5-small")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--embed-ahead",
        action="store_true",
        help=f"only embed the conversations with the default model and keep the vectors in "
        f"{KEPT_EMBEDDINGS} for later runs (the test suite does this in the background)",
    )
    args = parser.parse_args(argv)
    if args.embed_ahead:
        with tempfile.TemporaryDirectory() as scratch:
            embed_ahead(args.workdir or Path(scratch))
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        prepared = prepare(args.workdir or Path(scratch), kept=KEPT_EMBEDDINGS)
        results = [evaluate(prepared, name) for name in args.embedders.split(",")]
    if args.json:
        print(json.dumps([result.__dict__ for result in results]))
        return 0
    for result in results:
        categories = ", ".join(f"{name} {value:.3f}" for name, value in result.per_category.items())
        print(
            f"{result.embedder:<22} recall@10 {result.recall:.3f} over {result.questions} "
            f"questions ({categories}); index {result.seconds_index:.1f} s, queries "
            f"{result.seconds_queries:.1f} s; result text at most {result.max_result_chars} "
            f"characters a query (mean {result.mean_result_chars:.0f})"
            + (f"; {result.fallback}" if result.fallback else "")
        )
        print(
            "    per conversation: "
            + ", ".join(f"{name} {value:.3f}" for name, value in result.per_conversation.items())
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
