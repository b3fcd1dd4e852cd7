"""Measures the cosine threshold of near-duplicate merging (merge_similarity).

Each pair of benchmarks/data/merge_pairs.jsonl is two statements about the user, labelled
"same" (one statement in other words, English, Chinese or one of each) or not (a different
statement about a related thing, the hard case). Each becomes a fact (subject "user") and
goes through the merge step's checks (model.similarity): the disagreement guards, the 60%
word overlap, and the cosine of the two sentences' embeddings.

Printed: every pair with its overlap and cosine, then, for candidate thresholds, how many
"same" pairs merge and how many different ones would (false merges). The threshold chosen
is the highest cosine of a different pair that only the cosine could merge, plus a
margin of 0.005.

    .venv/bin/python benchmarks/merge_threshold.py [--embedder bundled|hash] [--json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from vm_memory_oracle.model.fact import Fact, new_fact
from vm_memory_oracle.model.similarity import duplicate_reason, overlap, wording

PAIRS = Path(__file__).resolve().parent / "data" / "merge_pairs.jsonl"
MARGIN = 0.005


def load_pairs(path: Path = PAIRS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def fact(sentence: str) -> Fact:
    return new_fact(
        {"subject": "user", "predicate": "said", "object": sentence, "text": sentence},
        created="2026-05-15T00:00:00Z",
        default_source="benchmark",
    )


def measure(pairs: list[dict], embedder) -> dict:
    sentences = sorted({pair[side] for pair in pairs for side in ("a", "b")})
    vectors = dict(zip(sentences, embedder.embed_passages(sentences)))
    rows = []
    for pair in pairs:
        a, b = wording(fact(pair["a"])), wording(fact(pair["b"]))
        by_words = duplicate_reason(a, b) is not None
        rows.append(
            {
                **pair,
                "overlap": round(overlap(a.words, b.words), 3),
                "cosine": round(float(np.dot(vectors[pair["a"]], vectors[pair["b"]])), 4),
                "by_words": by_words,
                # cosine decides: the words do not, and no guard refuses the pair
                "open_to_cosine": not by_words
                and duplicate_reason(a, b, cosine=1.0, threshold=0.0) is not None,
            }
        )
    worst = max(
        (row["cosine"] for row in rows if row["open_to_cosine"] and not row["same"]), default=0.0
    )
    chosen = round(worst + MARGIN, 3)
    table = []
    for threshold in sorted({chosen, *np.round(np.arange(0.90, 1.0, 0.01), 2).tolist()}):
        merged = [
            row
            for row in rows
            if row["by_words"] or (row["open_to_cosine"] and row["cosine"] >= threshold)
        ]
        table.append(
            {
                "threshold": threshold,
                "same_merged": sum(row["same"] for row in merged),
                "false_merges": sum(not row["same"] for row in merged),
            }
        )
    return {
        "model": embedder.model_id,
        "pairs": len(rows),
        "same": sum(row["same"] for row in rows),
        "same_by_words": sum(row["same"] and row["by_words"] for row in rows),
        "different_by_words": sum(not row["same"] and row["by_words"] for row in rows),
        "open_to_cosine": sum(row["open_to_cosine"] for row in rows),
        "highest_cosine_of_a_different_pair_open_to_cosine": worst,
        "chosen_threshold": chosen,
        "table": table,
        "rows": rows,
    }


def embedder_named(name: str):
    if name == "hash":
        from vm_memory_oracle.embed.hashing import HashEmbedder

        return HashEmbedder()
    from vm_memory_oracle.embed.bundled import BundledEmbedder

    return BundledEmbedder()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", choices=("bundled", "hash"), default="bundled")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(load_pairs(), embedder_named(args.embedder))
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return
    for row in result["rows"]:
        verdict = (
            "words" if row["by_words"] else "cosine decides" if row["open_to_cosine"] else "refused"
        )
        print(
            f"{'same' if row['same'] else 'diff'}  overlap {row['overlap']:.2f}  "
            f"cosine {row['cosine']:.4f}  {verdict:<14}  {row['a']} | {row['b']}"
        )
    print(f"\nmodel {result['model']}: {result['pairs']} pairs, {result['same']} the same")
    print(
        f"merged by word overlap: {result['same_by_words']} same, "
        f"{result['different_by_words']} different; left to the cosine: "
        f"{result['open_to_cosine']} pairs"
    )
    print(
        f"highest cosine of a different pair the guards let through: "
        f"{result['highest_cosine_of_a_different_pair_open_to_cosine']:.4f}"
    )
    for row in result["table"]:
        print(
            f"  threshold {row['threshold']:.3f}: {row['same_merged']} of {result['same']} "
            f"same pairs merged, {row['false_merges']} false merges"
        )
    print(f"chosen: {result['chosen_threshold']:.3f}")


if __name__ == "__main__":
    main()
