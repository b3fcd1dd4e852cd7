"""The actions that read the memory: recall, reindex and query."""

from __future__ import annotations

import json

from ..errors import (
    UsageError,
)
from ..memory import Memory
from ..progress import progress_bar
from ..recall.results import FoundEpisode
from .context import Output
from .memory import open_input


def action_recall(args, memory: Memory) -> Output:
    from ..intake import queries_from_jsonl
    from ..recall import Asked

    if (args.query is None) == (args.queries is None):
        raise UsageError("recall needs exactly one of --query TEXT or --queries FILE")
    if args.queries is not None:
        with open_input(args.queries) as (stream, name):
            queries = [
                Asked(item.query, item.k or args.k) for item in queries_from_jsonl(stream, name)
            ]
    else:
        queries = [Asked(args.query, args.k)]
    recalled = memory.recall(queries, boost=not args.no_boost, order=args.order)
    if args.queries is not None:
        documents = [result_set.to_json() for result_set in recalled]
        return Output(
            documents, [json.dumps(document, ensure_ascii=False) for document in documents]
        )
    (result_set,) = recalled
    lines = [
        f"{hit.score:.3f}  {hit.id}  {_untrusted(hit)}{hit.speaker} said: {hit.text}  "
        f"({hit.said_at[:10]}, source {hit.source})"
        if isinstance(hit, FoundEpisode)
        else f"{hit.score:.3f}  {hit.id}  {_untrusted(hit)}{hit.text}  "
        f"(activation {hit.activation:.2f}, source {hit.source})"
        for hit in result_set.hits
    ]
    return Output(result_set.to_json(), lines or ["No matching facts."])


def _ivf_note(report) -> str:
    """How an approximate index searches, and how close to exact it was measured to be."""
    if report.index_kind != "ivf":
        return ""
    measured = "" if report.measured_recall is None else f", recall@10 {report.measured_recall:.3f}"
    return f" (IVF index: nprobe {report.nprobe}{measured})"


def action_reindex(args, memory: Memory) -> Output:
    from dataclasses import asdict

    with progress_bar() as bar:
        indexes = memory.reindex(progress=bar)
    choice, report = indexes.choice, indexes.report.vectors
    text, episodes = indexes.report.text, indexes.report.episodes
    assert choice is not None and report is not None and text is not None and episodes is not None
    payload = {
        **{key: value for key, value in asdict(report).items() if key != "warnings"},
        "embedder": choice.embedder.model_id,
        **({"embedder_fallback": choice.note} if choice.note else {}),
        "documents": text.documents,
        "episodes": episodes.episodes,
        "episodes_embedded": episodes.embedded,
    }
    return Output(
        payload,
        [
            f"Rebuilt the semantic index with {report.model_id}: {report.vectors} "
            f"vectors, {report.embedded} embedded, {report.from_cache} from cache"
            + _ivf_note(report),
            f"Rebuilt the full-text index: {text.documents} documents",
            f"Rebuilt the episode index: {episodes.episodes} episodes, "
            f"{episodes.embedded} embedded",
        ],
    )


def action_query(args, memory: Memory) -> Output:
    outputs = memory.query(args.jq)
    return Output(outputs, [json.dumps(value, ensure_ascii=False) for value in outputs])


def _untrusted(hit) -> str:
    """The mark of a result neither the owner nor the agent said: "[untrusted: Alice, group
    on telegram] ", "[unknown] " (a fact made before origins were kept, whose source is
    gone); nothing for theirs, or for a turn of a log that records no origin."""
    provenance = hit.provenance
    if provenance is None or provenance.trusted:
        return ""
    return f"[{provenance.describe()}] "
