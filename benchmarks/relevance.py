"""How recall tells a related fact from noise (embed/relevance.py), measured.

For each memory (the example facts, the test suite's five facts, the demo memory, and each
LoCoMo dev conversation) and the bundled model:
- unrelated queries (benchmarks/data/unrelated-calibration.txt, or --queries FILE): how many
  return anything, and the highest calibrated score of a neighbour that shares no word with
  the query, against the threshold for the memory's size;
- the documented recall examples: whether each returns its fact, and that fact's score;
- margin: whether any query's outcome changes when every similarity the index returns moves
  by -0.005 or +0.005.
Run:
    .venv/bin/python benchmarks/relevance.py [--queries FILE] [--workdir DIR] [--no-locomo]
    .venv/bin/python benchmarks/relevance.py --write   # the bundled model's background
--write computes the background passages' vectors with the bundled model and writes them
into the package (embed/background/<model id>.npz); run it after editing the passages.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

BUNDLE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BUNDLE / "skill"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vm_memory_oracle.cli import main as cli_main  # noqa: E402
from vm_memory_oracle.clock import parse_iso  # noqa: E402
from vm_memory_oracle.config import Settings  # noqa: E402
from vm_memory_oracle.embed.relevance import (  # noqa: E402
    Background,
    script_of,
    shipped_background_path,
)
from vm_memory_oracle.graph import KnowledgeGraph  # noqa: E402
from vm_memory_oracle.indexes import Indexes, bring_in_step  # noqa: E402
from vm_memory_oracle.lexical.snapshot import lexical_index  # noqa: E402
from vm_memory_oracle.memory import Memory  # noqa: E402
from vm_memory_oracle.recall import Asked, recall_many  # noqa: E402
from vm_memory_oracle.recall.corpus import Corpus  # noqa: E402
from vm_memory_oracle.recall.query import Query  # noqa: E402

CALIBRATION_QUERIES = BUNDLE / "benchmarks" / "data" / "unrelated-calibration.txt"
NOW = "2026-05-16T00:00:00Z"
SHIFT = 0.005
EXAMPLE_FACTS = BUNDLE / "assets" / "examples" / "facts.jsonl"
# The suite's recall tests remember these five (tests/test_recall.py).
SUITE_FACTS = [
    {
        "subject": "user",
        "predicate": "is allergic to",
        "object": "peanuts",
        "text": "The user is allergic to peanuts.",
        "category": "health",
    },
    {"subject": "user", "predicate": "lives in", "object": "Berlin"},
    {"subject": "user", "predicate": "prefers", "object": "dark mode in the editor"},
    {"subject": "用户", "predicate": "喜欢", "object": "乌龙茶", "text": "用户喜欢喝乌龙茶"},
    {"subject": "deployment project", "predicate": "started on", "object": "2026-05-15"},
]
# The cross-lingual tests' memories (tests/test_semantic.py).
ENGLISH_FACTS = [
    {
        "subject": "user",
        "predicate": "is allergic to",
        "object": "peanuts",
        "text": "the user is allergic to peanuts",
    },
    {
        "subject": "user",
        "predicate": "lives in",
        "object": "Berlin",
        "text": "the user lives in Berlin",
    },
    {
        "subject": "user",
        "predicate": "prefers",
        "object": "dark mode",
        "text": "the user prefers dark mode",
    },
    {
        "subject": "team",
        "predicate": "decided",
        "object": "to use PostgreSQL",
        "text": "the team decided to use PostgreSQL for billing",
    },
    {
        "subject": "user",
        "predicate": "plays",
        "object": "the violin",
        "text": "the user plays the violin",
    },
]
CHINESE_FACTS = [
    {"subject": "用户", "predicate": "对...过敏", "object": "花生", "text": "用户对花生过敏"},
    {"subject": "用户", "predicate": "住在", "object": "北京", "text": "用户住在北京"},
    {"subject": "用户", "predicate": "喜欢", "object": "乌龙茶", "text": "用户喜欢喝乌龙茶"},
    {"subject": "团队", "predicate": "决定", "object": "用Rust", "text": "团队决定用Rust重写服务"},
]
# (query, words of the fact it must return): the recall examples of README.md, SKILL.md and
# references/, and of the suite, on the memory they are shown with.
DOCUMENTED = {
    "example": [
        ("billing database", "PostgreSQL"),
        ("where does the user live", "Berlin"),
        ("深色模式", "dark mode"),
        ("部署项目什么时候开始", "fleet deployment"),
        ("automobile", "red car"),
        ("peanuts", "peanuts"),
        ("lives in", "Berlin"),
        ("What is the user allergic to?", "peanuts"),
    ],
    "english": [("用户对花生过敏", "allergic to peanuts")],
    "chinese": [("the user is allergic to peanuts", "用户对花生过敏")],
    "suite": [
        ("peanut allergy", "peanuts"),
        ("Berlin", "Berlin"),
        ("乌龙茶", "乌龙茶"),
        ("用户喜欢什么茶", "乌龙茶"),
        ("where does the user live", "Berlin"),
        ("dark mode", "dark mode"),
    ],
    "demo": [
        ("What is the user allergic to?", "peanuts"),
        ("深色模式", "dark mode"),
        ("where does the user live", "Shanghai"),
    ],
}


@dataclass
class MemoryFigures:
    name: str
    facts: int = 0
    threshold: float = 0.0
    unrelated: int = 0
    unrelated_answered: list[str] = field(default_factory=list)
    unrelated_best_score: float = float("-inf")  # best calibrated score sharing no word
    unrelated_best_query: str = ""
    documented: int = 0
    documented_missed: list[str] = field(default_factory=list)
    documented_lowest_score: float = float("inf")  # of a fact found by meaning alone
    documented_lowest_query: str = ""
    largest_score_move: float = 0.0  # of any score when the similarities move by SHIFT
    flipped: list[str] = field(default_factory=list)


def open_graph(data: Path) -> KnowledgeGraph:
    return Memory.open(data, Settings(lock_timeout_seconds=60), now=parse_iso(NOW)).graph()


def build_memories(workdir: Path) -> dict[str, Path]:
    """The example memory (the example facts and the red car of the troubleshooting guide),
    the suite's five facts, and the demo's memory, each in its own data directory."""
    example, suite, demo = workdir / "example", workdir / "suite", workdir / "demo"
    if not example.exists():
        _cli(example, "--action", "remember", "--from", str(EXAMPLE_FACTS))
        _cli(
            example,
            "--action",
            "remember",
            "--subject",
            "user",
            "--predicate",
            "drives",
            "--object",
            "a red car",
            "--text",
            "The user drives a red car.",
        )
    if not suite.exists():
        facts = workdir / "suite-facts.jsonl"
        facts.write_text(
            "".join(json.dumps(fact, ensure_ascii=False) + "\n" for fact in SUITE_FACTS),
            encoding="utf-8",
        )
        _cli(suite, "--action", "remember", "--from", str(facts))
    if not demo.exists():
        import subprocess

        subprocess.run(
            [str(BUNDLE / "scripts" / "demo"), str(demo)], check=True, capture_output=True
        )
    memories = {"example": example, "suite": suite, "demo": demo}
    for name, facts in (("english", ENGLISH_FACTS), ("chinese", CHINESE_FACTS)):
        memories[name] = workdir / name
        if not memories[name].exists():
            listed = workdir / f"{name}-facts.jsonl"
            listed.write_text(
                "".join(json.dumps(fact, ensure_ascii=False) + "\n" for fact in facts),
                encoding="utf-8",
            )
            _cli(memories[name], "--action", "remember", "--from", str(listed))
    return memories


def _cli(data: Path, *args: str) -> None:
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        code = cli_main(["--data-path", str(data), "--now", NOW, *args])
    if code != 0:
        raise SystemExit(f"vm-memory-oracle {' '.join(args)} failed with exit code {code}")


def unshared_scores(
    graph: KnowledgeGraph, semantic, query: str, shift: float = 0.0
) -> dict[str, float]:
    """The calibrated score of each of the query's neighbours that shares no word with it,
    by fact text, with every similarity moved by `shift`."""
    index = semantic.index.index
    vector = semantic.embedder.embed_queries([query])[0]
    records = {fact.id: fact for fact in graph.facts()}
    corpus = Corpus(_AllSearchable(records), 0.0, lexical_index(graph))
    sharing = Query(query, corpus).coverage
    found = [
        (vid, similarity)
        for vid, similarity in index.search(vector, 100)
        if semantic.index.fact_of_vector.get(vid) in records
        and semantic.index.fact_of_vector[vid] not in sharing
    ]
    if not found:
        return {}
    facts = [records[semantic.index.fact_of_vector[vid]] for vid, _ in found]
    scores = semantic.background.scores(
        vector,
        index.vectors(np.array([vid for vid, _ in found])),
        [script_of(fact.sentence) for fact in facts],
        np.array([similarity + shift for _, similarity in found]),
    )
    return {fact.sentence: float(score) for fact, score in zip(facts, scores)}


class _AllSearchable:
    def __init__(self, records):
        self.records = records

    def searchable(self, fact_id, threshold):
        return fact_id in self.records


def outcome(graph, indexes: Indexes, query: str, words: str | None, now) -> bool:
    """Unrelated query (words None): whether it returns nothing; documented: whether the
    fact holding `words` is among the results."""
    (result_set,) = recall_many(graph, [Asked(query, 10)], now, boost=False, indexes=indexes)
    if words is None:
        return not result_set.hits
    return any(words.lower() in hit.text.lower() for hit in result_set.hits)


def measure(
    name: str, graph: KnowledgeGraph, now, unrelated: list[str], documented: list[tuple[str, str]]
) -> MemoryFigures:
    indexes = bring_in_step(graph)
    semantic = indexes.semantic
    if semantic is None or semantic.background is None or semantic.scale is None:
        raise SystemExit(f"{graph.settings.embedding_model} has no measured relevance scale")
    figures = MemoryFigures(name, facts=len(semantic.index.index))
    figures.threshold = semantic.scale.threshold(figures.facts)
    cases = [(query, None) for query in unrelated] + list(documented)
    for query, words in cases:
        held = outcome(graph, indexes, query, words, now)
        for shift in (-SHIFT, SHIFT):
            moved = replace(indexes, semantic=replace(semantic, similarity_shift=shift))
            if outcome(graph, moved, query, words, now) != held:
                figures.flipped.append(f"{query} ({shift:+.3f})")
        scores = unshared_scores(graph, semantic, query)
        moved = unshared_scores(graph, semantic, query, SHIFT)
        figures.largest_score_move = max(
            [figures.largest_score_move] + [abs(moved[text] - scores[text]) for text in scores]
        )
        if words is None:
            figures.unrelated += 1
            if not held:
                figures.unrelated_answered.append(query)
            best = max(scores.values(), default=float("-inf"))
            if best > figures.unrelated_best_score:
                figures.unrelated_best_score, figures.unrelated_best_query = best, query
        else:
            figures.documented += 1
            if not held:
                figures.documented_missed.append(f"{query} -> {words}")
            own = [score for text, score in scores.items() if words.lower() in text.lower()]
            if own and own[0] < figures.documented_lowest_score:
                figures.documented_lowest_score, figures.documented_lowest_query = own[0], query
    return figures


def locomo_graphs(workdir: Path):
    """Each LoCoMo dev conversation summarized into its own memory, with the embedding
    caches of earlier runs (the retrieval benchmark's test keeps them) put back."""
    from locomo import dataset_path
    from locomo_retrieval import KEPT_EMBEDDINGS, prepare

    if not dataset_path().exists():
        return []
    prepared = prepare(workdir, kept=KEPT_EMBEDDINGS)
    return [(conversation.sample_id, graph, now) for graph, conversation, now in prepared]


def read_queries(path: Path) -> list[str]:
    return [
        line.strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]


def run(workdir: Path, queries: list[str], locomo: bool = True) -> list[MemoryFigures]:
    now = parse_iso(NOW)
    results = []
    for name, data in build_memories(workdir).items():
        results.append(measure(name, open_graph(data), now, queries, DOCUMENTED[name]))
    if locomo:
        for name, graph, at in locomo_graphs(workdir / "locomo"):
            results.append(measure(name, graph, at, queries, []))
    return results


def write_background() -> Path:
    from vm_memory_oracle.embed.bundled import BundledEmbedder
    from vm_memory_oracle.storage import files

    embedder = BundledEmbedder()
    path = shipped_background_path(embedder.model_id)
    files.write_atomic(path, Background.compute(embedder).to_bytes())
    path.chmod(0o644)  # package data, read by every user of the bundle
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=Path, default=CALIBRATION_QUERIES)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--no-locomo", action="store_true")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.write:
        print(f"wrote {write_background()}")
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        results = run(
            args.workdir or Path(scratch), read_queries(args.queries), locomo=not args.no_locomo
        )
    if args.json:
        print(json.dumps([result.__dict__ for result in results], ensure_ascii=False))
        return 0
    for r in results:
        print(
            f"{r.name:<8} {r.facts:>5} facts, threshold {r.threshold:.2f}: unrelated "
            f"{r.unrelated - len(r.unrelated_answered)}/{r.unrelated} return nothing "
            f"(best score sharing no word {r.unrelated_best_score:.2f}, "
            f"{r.unrelated_best_query!r}); documented {r.documented - len(r.documented_missed)}"
            f"/{r.documented} found"
            + (
                f" (lowest score of one found by meaning alone "
                f"{r.documented_lowest_score:.2f}, "
                f"{r.documented_lowest_query!r})"
                if r.documented_lowest_query
                else ""
            )
            + f"; a {SHIFT} move of the similarities moves a score by at most "
            f"{r.largest_score_move:.2f} and changes {len(r.flipped)} outcomes"
        )
        for line in r.unrelated_answered + r.documented_missed + r.flipped:
            print(f"    {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
