"""The benchmark scripts no other test runs, each run whole on tiny data so that none can rot:
lexical_engines.py (every engine, one LoCoMo conversation), million.py (a few hundred facts
through the entrypoint), recall_against.py and behaviour_against.py (this tree against
HEAD), recall_scaling.py
(memories of 100 and 300 facts through the command line), dormant_cost.py (200 facts and
200 archived), fading.py (one LongMemEval question, its haystack cut short), view_page.py
(the memory page of 300 facts, written and opened in headless Chromium) and import_scale.py
(a ChatGPT export of 50 kB, counted and learned) and ivf_agreement.py (3,000 synthetic
facts). Their figures at
size are in references/reliability.md; here only that each runs and reports what it
measured. Figures go to the test's own directory, not benchmarks/output/."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from conftest import run_benchmark  # noqa: E402
from locomo import dataset_path  # noqa: E402
from longmemeval import dataset_path as longmemeval_path  # noqa: E402


@pytest.mark.slow
@pytest.mark.skipif(not dataset_path().exists(), reason="LoCoMo data not found")
def test_lexical_engines_runs_on_tiny_data(tmp_path, locomo_embeddings):
    # The script finds the kept vectors in the test cache it is told of: under the test's
    # own HOME it would find none and embed the whole conversation again.
    assert locomo_embeddings.name == "locomo-embeddings"
    done = run_benchmark(
        tmp_path,
        "lexical_engines.py",
        *("--sizes", "300", "--queries", "5", "--repeats", "1", "--updates", "1"),
        *("--locomo-samples", "conv-26", "--workdir", str(tmp_path / "locomo"), "--json"),
        env={**os.environ, "VM_MEMORY_ORACLE_TEST_CACHE": str(locomo_embeddings.parent)},
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    engines = {row["engine"] for row in figures["speed"]}
    assert engines == {"project", "bm25s", "tantivy", "fts5-unicode61", "fts5-trigram"}
    for row in figures["speed"]:
        assert row["facts"] == 300 and row["query_ms_p50"] > 0, row
        assert row["update_visible"], row
    quality = figures["locomo"]
    assert set(quality["project"]["per_conversation"]) == {"conv-26"}
    for label, row in quality.items():
        assert 0 < row["recall"] <= 1, (label, row)
    assert (tmp_path / "output" / "lexical_engines.json").is_file()


@pytest.mark.slow
def test_million_runs_on_tiny_data(tmp_path):
    done = run_benchmark(
        tmp_path,
        "million.py",
        *("--count", "300", "--workdir", str(tmp_path / "million"), "--processes", "1"),
        *("--turns", "20"),
    )
    assert "recall process:" in done.stdout
    figures = json.loads((tmp_path / "output" / "million-300.json").read_text())["figures"]
    assert figures["facts"] == 300
    assert figures["remember_from"]["seconds"] > 0 and figures["first_recall"]["rss_mb"] > 0
    assert figures["in_process"]["p50_ms"] > 0 and figures["in_process"]["rounds"] == 10
    nightly = figures["consolidate_after_a_day"]
    assert nightly["turns"] == 20 and nightly["seconds"] > 0 and nightly["rss_mb"] > 0
    facts = tmp_path / "million" / "memory" / "knowledge-graph" / "facts.jsonl"
    assert len(facts.read_text().splitlines()) > 300  # the day's turns were learned from
    assert figures["disk_mb"]["total"] > 0


@pytest.mark.slow
def test_recall_against_runs_on_tiny_data(tmp_path):
    done = run_benchmark(
        tmp_path,
        "recall_against.py",
        *("--base", "HEAD", "--tries", "2", "--count", "300", "--rounds", "5"),
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "recall p50 at 300 facts, without query embedding or boost, 2 runs"
    for kind in ("plain", "time_named"):
        line = next(line for line in lines if line.strip().startswith(kind))
        assert "base HEAD:" in line and "ratio" in line, line
        runs = lines[lines.index(line) + 1]  # the second try read the memory the first made
        assert runs.count(",") == 2 and "base" in runs and "this" in runs, runs


@pytest.mark.slow
def test_recall_scaling_runs_on_tiny_data(tmp_path):
    done = run_benchmark(
        tmp_path,
        "recall_scaling.py",
        *("--sizes", "100,300", "--queries", "5", "--runs", "1"),
        *("--workdir", str(tmp_path / "scaling")),
    )
    assert "per-query cost at 300 / at 100" in done.stdout
    assert "marginal cost at 300 / at 100" in done.stdout
    figures = json.loads((tmp_path / "output" / "recall_scaling.json").read_text())["figures"]
    assert set(figures["sizes"]) == {"100", "300"} and figures["queries"] == 5
    for row in figures["sizes"].values():
        assert row["per_query_ms"] > 0 and row["peak_rss_mb"] > 0
        # per-query cost is the process's time over its 5 queries (each figure rounded)
        assert abs(row["queries_process_s"] - row["per_query_ms"] * 5 / 1000) < 0.002
    assert figures["per_query_ratio"]["300"] > 0 and "300" in figures["marginal_query_ratio"]
    assert all(row["rebuild_us_per_fact"] > 0 for row in figures["sizes"].values())
    assert figures["rebuild_ratio"] > 0 and "index rebuild (reindex) per fact" in done.stdout


@pytest.mark.slow
def test_dormant_cost_runs_on_tiny_data(tmp_path):
    done = run_benchmark(
        tmp_path, "dormant_cost.py", "--facts", "200", "--rounds", "2", "--commands", "1"
    )
    assert "| in a process holding the indexes |" in done.stdout
    figures = json.loads((tmp_path / "output" / "dormant_cost.json").read_text())["figures"]
    assert figures["facts"] == 200 and figures["archived"] == 200
    for part in ("in_process", "by_command"):
        assert figures[part]["ratio"] > 0, figures


@pytest.mark.slow
@pytest.mark.skipif(not longmemeval_path().exists(), reason="LongMemEval data not found")
def test_fading_runs_on_tiny_data(tmp_path):
    kept = tmp_path / "kept embeddings"
    tiny = ("--questions", "1", "--others", "2", "--horizons", "30,60")
    done = run_benchmark(
        tmp_path,
        "fading.py",
        *tiny,
        *("--workdir", str(tmp_path / "work"), "--kept-embeddings", str(kept)),
    )
    assert "goal met:" in done.stdout
    figures = json.loads((tmp_path / "output" / "fading.json").read_text())["figures"]
    entry = figures["table"]["all"]
    assert entry["questions"] == 1 and figures["horizons"] == [30, 60]
    for at in ("0", "30", "60"):
        assert 0 <= entry[f"turn@10@{at}"] <= 1 and entry[f"nothing@{at}"] in (0, 1)
    caches = sorted(path.name for path in kept.glob("*/cache-*.npz"))
    assert caches  # the question's texts, kept for the next run
    # a second run with the texts kept (and the questions the other way) scores the same
    again = run_benchmark(
        tmp_path,
        "fading.py",
        *tiny,
        *("--workdir", str(tmp_path / "again"), "--kept-embeddings", str(kept), "--reverse"),
    )
    assert "goal met:" in again.stdout
    second = json.loads((tmp_path / "output" / "fading.json").read_text())["figures"]
    assert second["table"] == figures["table"]
    assert sorted(path.name for path in kept.glob("*/cache-*.npz")) == caches


@pytest.mark.slow
@pytest.mark.skipif(not dataset_path().exists(), reason="LoCoMo data not found")
@pytest.mark.skipif(not longmemeval_path().exists(), reason="LongMemEval data not found")
def test_behaviour_against_runs_on_tiny_data(tmp_path):
    done = run_benchmark(
        tmp_path,
        "behaviour_against.py",
        *("--base", "HEAD", "--longmemeval", "1", "--locomo", "0", "--sessions", "0"),
        *("--embedder", "hash", "--without", "origin,provenance"),
    )
    lines = done.stdout.splitlines()
    assert lines[0] == (
        "behaviour of this tree against HEAD (hash embedder, without origin,provenance)"
    ), lines
    (line,) = [line for line in lines if line.startswith("  longmemeval:")]
    assert line.startswith("  longmemeval: 1 memories, ") and "; 2 result sets, " in line, line


def test_behaviour_against_leaves_out_the_keys_it_is_told_to():
    from behaviour_against import _without

    keys = frozenset({"origin", "provenance"})
    one = '{"id": "a", "origin": "owner", "results": [{"x": 1, "provenance": {"origin": "owner"}}]}'
    assert _without(one, keys) == '{"id": "a", "results": [{"x": 1}]}'
    lines = '{"id": "a", "provenance": {"origin": "owner"}}\n{"id": "b"}\n'
    assert _without(lines, keys) == '{"id": "a"}\n{"id": "b"}\n'
    assert _without(one, frozenset()) == one


@pytest.mark.slow
def test_view_page_runs_on_tiny_data(tmp_path):
    done = run_benchmark(tmp_path, "view_page.py", "--facts", "300", "--workdir", str(tmp_path))
    figures = json.loads((tmp_path / "output" / "view_page-300.json").read_text())["figures"]
    assert figures["facts_shown"] == 300 + 15 and figures["page_bytes"] > 100_000
    assert figures["write_seconds"] > 0
    browser = figures["browser"]
    if "skipped" not in browser:
        assert browser["ready_seconds"] > 0 and browser["facts_drawn_first"] == 150
        # "item 151": that fact, and any other with both words (its source line is 151)
        assert 1 <= browser["search_matched"] <= 3 and browser["requests_leaving"] == []
    assert "page written in" in done.stdout


@pytest.mark.slow
def test_import_scale_runs_on_tiny_data(tmp_path):
    workdir = tmp_path / "import scale"
    done = run_benchmark(
        tmp_path, "import_scale.py", "--size-mb", "0.05", "--learn", "--workdir", str(workdir)
    )
    assert "dry run:" in done.stdout and "learn:" in done.stdout
    figures = json.loads((tmp_path / "output" / "import_scale-0.05mb.json").read_text())["figures"]
    assert figures["size_mb"] >= 0.05 and figures["conversations"] > 1
    assert figures["turns"] > figures["conversations"] and figures["days"] > 0
    assert figures["dry_run"]["peak_rss_mb"] > 0 and figures["floor_peak_rss_mb"] > 0
    learned = figures["learn"]
    assert learned["turns"] == figures["turns"] and learned["commits"] == 1
    assert learned["facts_added"] > 0 and learned["peak_rss_mb"] > 0
    assert learned["recall_peak_rss_mb"] > 0
    assert learned["reindex"]["peak_rss_mb"] > 0 and learned["reindex"]["seconds"] > 0
    assert "a reindex of the memory it made (the build alone)" in done.stdout
    assert not workdir.exists()  # the export and the memory deleted afterwards


def test_ivf_agreement_runs_on_tiny_data(tmp_path):
    done = run_benchmark(tmp_path, "ivf_agreement.py", "--synthetic", "3000", "--sizes", "2000,0")
    assert (
        "| 2,000 | its top 10 alone |" in done.stdout
        and "| 3,000 | top 10 and top 100 |" in done.stdout
    )
    figures = json.loads((tmp_path / "output" / "ivf_agreement.json").read_text())["figures"]
    assert figures["questions"] == 200 and [row["vectors"] for row in figures["rows"]] == [
        2000,
        3000,
    ]
    for row in figures["rows"]:
        for calibrated in (row["top_10_alone"], row["now"]):
            assert 1 <= calibrated["nprobe"] <= calibrated["lists"]
            assert (
                0 < calibrated["agreement_at_10"] <= 1 and 0 < calibrated["agreement_at_100"] <= 1
            )
        # checking the top 100 too never scans fewer lists than the top 10 alone
        assert row["now"]["nprobe"] >= row["top_10_alone"]["nprobe"]
