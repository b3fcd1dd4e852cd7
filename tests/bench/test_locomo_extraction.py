"""Extraction measured on the LoCoMo development split (read from ../shared, never copied).

Goal (issue: summarize): the extracted facts' sources cover at least 90% of the evidence
turns of the questions in categories 1-4.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from locomo_extraction import measure  # noqa: E402

from locomo import dataset_path  # noqa: E402


@pytest.mark.skipif(
    not dataset_path().exists(), reason=f"LoCoMo data not found at {dataset_path()}"
)
def test_extracted_facts_cover_the_locomo_evidence(tmp_path, capsys):
    result = measure(tmp_path)
    with capsys.disabled():
        print(
            f"\nLoCoMo dev extraction: {result.questions} questions, {result.turns} turns, "
            f"{result.facts} facts; evidence covered {result.question_coverage:.1%} per question, "
            f"{result.turn_coverage:.1%} of turns, in {result.seconds:.1f} s"
        )
    assert result.questions > 700
    assert result.question_coverage >= 0.90
    assert result.turn_coverage >= 0.90
