"""The LongMemEval benchmark (benchmarks/longmemeval.py) on tiny data: the first question of
two types, each haystack cut to its answer sessions alone, through the whole
pipeline and the raw-turn baselines (the types differ only in the data). Here, that it
runs, scores what it should, and keeps results short."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from conftest import run_benchmark  # noqa: E402
from longmemeval import (  # noqa: E402
    BASELINES,
    PIPELINE,
    TYPES,
    Haystack,
    Scored,
    dataset_path,
    haystack_sessions,
    load_dataset,
    sampled,
    scores,
)

needs_data = pytest.mark.skipif(
    not dataset_path().exists(), reason=f"LongMemEval data not found at {dataset_path()}"
)


def test_a_turn_and_its_session_are_scored_by_their_source():
    haystack = Haystack(
        session_of={"a.jsonl": "s1", "b.jsonl": "s2"},
        evidence={"sessions/a.jsonl:2", "sessions/b.jsonl:1"},
    )
    one = scores(Scored(["sessions/a.jsonl:2", "sessions/a.jsonl:3"], 40), haystack, {"s1", "s2"})
    assert one == {"turn_recall": 0.5, "session_any": 1.0, "session_all": 0.0, "chars": 40}
    both = scores(Scored(["sessions/b.jsonl:1", "sessions/a.jsonl:2"]), haystack, {"s1", "s2"})
    assert both["turn_recall"] == 1.0 and both["session_all"] == 1.0
    none = scores(Scored([]), haystack, {"s1"})
    assert none == {"turn_recall": 0.0, "session_any": 0.0, "session_all": 0.0, "chars": 0}


@needs_data
def test_a_sample_is_spread_over_the_types_and_a_cut_haystack_keeps_its_answers():
    data = load_dataset()
    chosen = sampled(data["questions"], 8)
    assert [q["question_type"] for q in chosen[:6]] == list(TYPES)
    assert len(chosen) == 8 and len({q["question_id"] for q in chosen}) == 8
    assert len(sampled(data["questions"], None)) == len(data["questions"])
    question = chosen[0]
    cut = haystack_sessions(question, 2)
    answers = set(question["answer_session_ids"])
    assert answers <= {session for session, _ in cut}
    assert len(cut) == len(answers) + 2
    whole = haystack_sessions(question)
    assert [pair for pair in whole if pair in cut] == cut  # the haystack's order is kept


CUT_TYPES = "single-session-user,single-session-assistant"


@pytest.fixture(scope="module")
def cut_run(tmp_path_factory) -> tuple[Path, dict]:
    """The benchmark run once on the first question of two types, each haystack cut to its
    answer sessions (its directory, and its report): what the tests below read, and the
    rows they resume from."""
    tmp_path = tmp_path_factory.mktemp("longmemeval")
    done = run_benchmark(
        tmp_path,
        "longmemeval.py",
        *("--sample", "2", "--sessions", "0", "--types", CUT_TYPES),
        *("--workdir", str(tmp_path / "memories"), "--json"),
        *("--turn-vectors", str(tmp_path / "turn-vectors.npz")),
    )
    return tmp_path, json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@needs_data
def test_the_benchmark_runs_on_cut_haystacks(cut_run):
    types = CUT_TYPES
    tmp_path, report = cut_run
    assert set(report["summary"]) == {*types.split(","), "all"}
    for row in report["questions"]:
        assert row["fallback"] is None and row["ingest_s"] > 0 and row["facts"] > 0, row
        for name in (PIPELINE, *BASELINES):
            for k in (10, 5):
                cell = row[f"{name}@{k}"]
                assert cell["turn_recall"] is None or 0 <= cell["turn_recall"] <= 1
                assert cell["session_all"] <= cell["session_any"]
        assert row[f"{PIPELINE}@10"]["chars"] <= 2000, row
    # A haystack of its answer sessions alone: every ranker that cites a turn cites one of
    # them, and the fused baseline cites some.
    assert report["summary"]["all"]["bm25+e5 turns@10"]["session_any"] == 1.0
    assert (tmp_path / "output" / "longmemeval-sample.json").is_file()
    # the raw turns' vectors are kept for the next run, one for each turn of the haystacks
    with np.load(tmp_path / "turn-vectors.npz") as kept:
        assert len(kept["texts"]) == len(kept["vectors"]) > 0
        assert kept["vectors"].shape[1] == 384
    # --reuse recalls the same memories again without ingesting them: the same figures
    again = run_benchmark(
        tmp_path,
        "longmemeval.py",
        *("--sample", "2", "--sessions", "0", "--types", types),
        *("--workdir", str(tmp_path / "memories"), "--json", "--reuse"),
        *("--turn-vectors", str(tmp_path / "turn-vectors.npz")),
    )
    reused = json.loads(again.stdout.strip().splitlines()[-1])
    for first, second in zip(report["questions"], reused["questions"]):
        assert second["ingest_s"] is None and second["facts"] == first["facts"]
        assert second[f"{PIPELINE}@10"] == first[f"{PIPELINE}@10"]
    assert reused["summary"]["all"]["ingest_s_mean"] is None


@pytest.mark.slow
@needs_data
def test_a_run_resumes_with_the_rows_the_same_code_kept(cut_run, tmp_path):
    """--resume takes the rows kept in --workdir by the same code and runs the rest."""
    import longmemeval

    # The rows the cut run kept, one for each of its questions (the first of each type),
    # in a workdir of this test's own.
    cut, report = cut_run
    (tmp_path / "m").mkdir()
    shutil.copy(cut / "memories" / longmemeval.ROWS, tmp_path / "m" / longmemeval.ROWS)
    [row] = [row for row in report["questions"] if row["type"] == "single-session-user"]
    kept = (tmp_path / "m" / longmemeval.ROWS).read_text().splitlines()
    assert len(kept) == 2 and {json.loads(line)["question_id"] for line in kept} == {
        row["question_id"] for row in report["questions"]
    }
    assert all(json.loads(line)["code"] == longmemeval.code_fingerprint() for line in kept)
    kind = "single-session-user"
    args = ("--sessions", "0", "--types", kind, "--workdir", str(tmp_path / "m"), "--json")
    second = run_benchmark(tmp_path, "longmemeval.py", "--sample", "2", "--resume", *args)
    rows = json.loads(second.stdout.strip().splitlines()[-1])["questions"]
    assert rows[0] == row  # taken as it was kept, not run again
    assert rows[1]["question_id"] != row["question_id"]
    assert len((tmp_path / "m" / longmemeval.ROWS).read_text().splitlines()) == 3
    # a row kept by other code is run again
    stale = [json.loads(line) for line in (tmp_path / "m" / longmemeval.ROWS).open()]
    (tmp_path / "m" / longmemeval.ROWS).write_text(
        "".join(json.dumps({**r, "code": "other"}) + "\n" for r in stale)
    )
    assert longmemeval.kept_rows(tmp_path / "m", longmemeval.code_fingerprint(), 0) == {}


def test_runs_sharing_a_turn_vector_file_each_add_to_it(tmp_path):
    """Two runs keep their turn vectors in one file, the second unaware of what the first
    kept after it began: the file holds both runs' vectors."""
    import longmemeval

    kept = tmp_path / "turns.npz"
    first, second = (object.__new__(longmemeval.TurnRankers) for _ in range(2))
    for run, text in ((first, "the first run's turn"), (second, "the second run's turn")):
        run.kept, run.vectors = kept, {text: np.full(4, len(text), dtype=np.float32)}
    first.keep()
    second.keep()
    with np.load(kept, allow_pickle=False) as stored:
        held = dict(zip(stored["texts"].tolist(), stored["vectors"].tolist()))
    assert held == {"the first run's turn": [20.0] * 4, "the second run's turn": [21.0] * 4}
    assert [path.name for path in tmp_path.iterdir() if "partial" in path.name] == []


@pytest.mark.slow
@needs_data
def test_the_ingest_speed_benchmark_runs_on_one_session(tmp_path):
    """benchmarks/ingest_speed.py on a haystack cut to its answer session and one other, and a
    day of 20 turns: it times ingest beside the model's one pass, and no text is embedded
    twice across summarize, index, the consolidation and a recall."""
    done = run_benchmark(
        tmp_path, "ingest_speed.py", "--sessions", "1", "--day-turns", "20", "--json"
    )
    figures = json.loads(done.stdout.strip().splitlines()[0])
    haystack = figures["haystack"]
    assert haystack["embedded_texts"] > 0 and haystack["floor_s"] > 0 and haystack["ratio"] > 0
    assert haystack["embedded_by_phase"].get("consolidate", 0) == 0  # all in the cache
    assert haystack["embedded_twice"] == 0
    assert figures["day"]["turns"] == 20 and figures["day"]["consolidate_s"] > 0
    assert (tmp_path / "output" / "ingest_speed.json").is_file()
