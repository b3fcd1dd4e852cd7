"""Retrieval measured on the LoCoMo development split (read from ../shared, never copied).

Goal (issue: semantic recall): evidence recall@10 of at least 0.70 with the default model,
through the real pipeline (session logs -> summarize -> index -> recall). Figures for each
embedder and per category are printed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from locomo import dataset_path  # noqa: E402
from locomo_retrieval import LEXICAL, evaluate, prepare  # noqa: E402

from vm_memory_oracle.config import Settings  # noqa: E402


@pytest.mark.skipif(not dataset_path().exists(), reason=f"LoCoMo data not found at {dataset_path()}")
def test_recall_at_10_on_locomo(tmp_path, capsys):
    prepared = prepare(tmp_path)
    default = Settings().embedding_model
    results = {name: evaluate(prepared, name) for name in (LEXICAL, "hash", default)}
    with capsys.disabled():
        print()
        for name, scores in results.items():
            categories = ", ".join(f"{key} {value:.3f}" for key, value in scores.per_category.items())
            print(f"LoCoMo dev recall@10 {name}: {scores.recall:.3f} over {scores.questions} "
                  f"questions ({categories}); index {scores.seconds_index} s, "
                  f"queries {scores.seconds_queries} s")
    best = results[default]
    assert best.fallback is None, best.fallback
    assert best.questions > 700
    assert best.recall >= 0.70
    assert best.recall > results[LEXICAL].recall
