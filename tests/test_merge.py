"""Near-duplicates merge at consolidation; contradictions do not (supersession resolves
them); the consolidation report lists every change, the same for a dry run on a copy."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from vm_memory_oracle.model.similarity import duplicate_reason, wording

from conftest import activation_state, data_files, fact_of, hash_embedder, write_jsonl

DAY1, DAY2, NIGHT = "2026-03-01T09:00:00Z", "2026-03-02T09:00:00Z", "2026-03-03T00:30:00Z"


def fact(text: str, subject: str = "user", predicate: str = "said", obj: str | None = None):
    return fact_of(
        {"subject": subject, "predicate": predicate, "object": obj or text, "text": text}
    )


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def remember(cli, *args: str, now: str) -> str:
    result = cli("--json", "--action", "remember", "--subject", "user", *args, now=now)
    assert result.code == 0, result.err
    return result.json()["ids"][0]


def consolidate(cli, now: str = NIGHT, **kwargs) -> dict:
    result = cli("--json", "--action", "consolidate", now=now, **kwargs)
    assert result.code == 0, result.err
    return result.json()


def said_in_sessions(data_dir) -> None:
    """The user says one thing in two wordings, a day apart."""
    sessions = data_dir / "sessions"
    write_jsonl(
        sessions / "2026-03-01-090000.jsonl",
        [{"ts": DAY1, "role": "user", "text": "I prefer dark mode in the editor."}],
    )
    write_jsonl(
        sessions / "2026-03-02-090000.jsonl",
        [{"ts": DAY2, "role": "user", "text": "I like the editor in dark mode."}],
    )


@pytest.mark.parametrize(
    "a, b",
    [
        (
            fact("User prefers dark mode in the editor"),
            fact("the user likes the editor in dark mode"),
        ),
        (
            fact(
                "User prefers dark mode in the editor",
                predicate="prefers",
                obj="dark mode in the editor",
            ),
            fact(
                "the user likes the editor in dark mode",
                predicate="likes",
                obj="the editor in dark mode",
            ),
        ),
        (fact("User's cat is named Pixel"), fact("The user has a cat called Pixel")),
        (fact("用户喜欢深色模式"), fact("用户偏好深色模式")),
    ],
)
def test_one_statement_in_other_words_is_a_duplicate(a, b):
    assert duplicate_reason(wording(a), wording(b)).startswith("same subject, ")


@pytest.mark.parametrize(
    "a, b",
    [
        (fact("user prefers dark mode"), fact("user prefers light mode")),  # other value
        (fact("用户喜欢深色模式"), fact("用户喜欢浅色模式")),
        (fact("user likes tea"), fact("user likes coffee")),  # two facts
        (
            fact("The user noted detail 5 about the garden"),
            fact("The user noted detail 7 about the garden"),
        ),
        (
            fact("user likes the editor in dark mode", predicate="likes"),
            fact("user dislikes the editor in dark mode", predicate="dislikes"),
        ),  # opposite sign
        (fact("user eats meat"), fact("user does not eat meat")),  # negated
        (
            fact("User prefers dark mode", subject="user"),
            fact("Sam prefers dark mode", subject="Sam"),
        ),  # another subject
    ],
)
def test_a_contradiction_or_another_fact_is_not_a_duplicate(a, b):
    assert duplicate_reason(
        wording(a), wording(b), cosine=0.999, threshold=0.99
    ) is None or "cosine" not in duplicate_reason(
        wording(a), wording(b), cosine=0.999, threshold=0.99
    )
    assert duplicate_reason(wording(a), wording(b)) is None


def test_one_preference_said_twice_in_other_words_becomes_one_fact(cli, data_dir):
    hash_embedder(cli)
    said_in_sessions(data_dir)
    report = consolidate(cli)
    [merge] = [step for step in report["steps"] if step["name"] == "merge"]
    assert merge["counts"] == {"merged": 1}
    active = [item for item in lines(data_dir / "knowledge-graph" / "facts.jsonl")]
    assert [item["text"] for item in active] == ["user likes the editor in dark mode"]
    [kept] = active
    assert kept["sources"] == ["sessions/2026-03-01-090000.jsonl:1"]  # the older one's
    assert kept["source"] == "sessions/2026-03-02-090000.jsonl:1"
    [gone] = lines(data_dir / "knowledge-graph" / "archived-facts.jsonl")
    assert gone["text"] == "user prefers dark mode in the editor"
    assert gone["merged_into"] == kept["id"]
    assert gone["archive_reason"].startswith(f"merged into {kept['id']}: same subject, ")
    # max, not sum: the kept fact has the higher of the two activations, below 1
    state = activation_state(data_dir)
    assert state[kept["id"]].activation == pytest.approx(
        max(gone["final_activation"], state[kept["id"]].activation)
    )
    assert gone["id"] not in state
    assert {row["target"] for row in report["changes"] if row["change"] == "merged"} == {gone["id"]}

    # Summarizing the first log again finds its line already known: nothing comes back.
    again = cli("--json", "--action", "summarize", "--date", "2026-03-01", now=NIGHT)
    assert again.code == 0, again.err
    assert len(lines(data_dir / "knowledge-graph" / "facts.jsonl")) == 1
    graph = {
        name: data
        for name, data in data_files(data_dir).items()
        if name.startswith("knowledge-graph/")
    }
    assert consolidate(cli, now="2026-03-04T00:30:00Z")["counts"]["merged"] == 0
    assert {
        name: data
        for name, data in data_files(data_dir).items()
        if name.startswith("knowledge-graph/")
    } == graph


def test_dark_and_light_mode_are_a_contradiction_the_newer_supersedes(cli, data_dir):
    hash_embedder(cli)
    dark = remember(cli, "--predicate", "prefers", "--object", "dark mode", now=DAY1)
    light = remember(cli, "--predicate", "prefers", "--object", "light mode", now=DAY2)
    tea = remember(cli, "--predicate", "prefers", "--object", "green tea", now=DAY2)
    report = consolidate(cli)
    steps = {step["name"]: step for step in report["steps"]}
    assert steps["merge"]["counts"] == {"merged": 0}
    assert steps["prune"]["counts"]["superseded"] == 1
    assert {item["id"] for item in lines(data_dir / "knowledge-graph" / "facts.jsonl")} == {
        light,
        tea,
    }
    [old] = lines(data_dir / "knowledge-graph" / "archived-facts.jsonl")
    assert old["id"] == dark and old["superseded_by"] == light and "merged_into" not in old


def test_a_pinned_fact_is_never_merged_away(cli, data_dir):
    hash_embedder(cli)
    pinned = remember(
        cli,
        "--predicate",
        "has",
        "--object",
        "a cat named Pixel",
        "--text",
        "User's cat is named Pixel",
        "--pin",
        now=DAY1,
    )
    newer = remember(cli, "--predicate", "has", "--object", "a cat called Pixel", now=DAY2)
    report = consolidate(cli)
    assert report["counts"]["merged"] == 1
    [kept] = lines(data_dir / "knowledge-graph" / "facts.jsonl")
    assert kept["id"] == pinned and kept["pinned"] is True
    [gone] = lines(data_dir / "knowledge-graph" / "archived-facts.jsonl")
    assert gone["id"] == newer and gone["merged_into"] == pinned

    # Two pinned duplicates: both stay.
    other = remember(
        cli,
        "--predicate",
        "has",
        "--object",
        "a cat that is called Pixel",
        "--pin",
        now="2026-03-04T09:00:00Z",
    )
    assert consolidate(cli, now="2026-03-05T00:30:00Z")["counts"]["merged"] == 0
    assert {item["id"] for item in lines(data_dir / "knowledge-graph" / "facts.jsonl")} == {
        pinned,
        other,
    }


@pytest.mark.slow
def test_the_embedding_merges_a_paraphrase_the_words_do_not_and_keeps_a_close_other_fact(
    cli, data_dir
):
    """The bundled model and its measured threshold (0.986): benchmarks/merge_threshold.py."""
    from vm_memory_oracle.embed.bundled import BundledEmbedder

    embedder = BundledEmbedder()
    vectors = embedder.embed_passages(
        ["用户每天早上喝咖啡", "用户每天早晨都会喝一杯咖啡", "用户住在上海", "用户在上海工作"]
    )
    # Stated margin: each pair's cosine is at least 0.003 from the threshold, far more than
    # the model's arithmetic differs between machines (the fourth decimal).
    assert float(vectors[0] @ vectors[1]) >= embedder.merge_similarity + 0.003
    assert float(vectors[2] @ vectors[3]) <= embedder.merge_similarity - 0.003
    coffee = remember(cli, "--predicate", "said", "--object", "用户每天早上喝咖啡", now=DAY1)
    also = remember(cli, "--predicate", "said", "--object", "用户每天早晨都会喝一杯咖啡", now=DAY2)
    home = remember(cli, "--predicate", "said", "--object", "用户住在上海", now=DAY1)
    work = remember(cli, "--predicate", "said", "--object", "用户在上海工作", now=DAY2)
    report = consolidate(cli)
    [row] = [row for row in report["changes"] if row["change"] == "merged"]
    assert row["target"] == coffee
    cosine = re.fullmatch(rf"into {also}: same subject, cosine (\d\.\d+)(?:\D.*)?", row["reason"])
    assert cosine is not None, row["reason"]
    assert float(cosine.group(1)) >= embedder.merge_similarity, row["reason"]
    assert {item["id"] for item in lines(data_dir / "knowledge-graph" / "facts.jsonl")} == {
        also,
        home,
        work,
    }


@pytest.mark.slow
def test_the_report_of_a_dry_run_on_a_copy_lists_the_changes_of_the_real_run(
    cli, data_dir, tmp_path
):
    hash_embedder(cli)
    said_in_sessions(data_dir)
    remember(cli, "--predicate", "prefers", "--object", "dark mode", now=DAY1)
    remember(cli, "--predicate", "prefers", "--object", "light mode", now=DAY2)
    remember(cli, "--predicate", "visited", "--object", "Oslo", now="2025-01-01T00:00:00Z")
    copy = tmp_path / "copy"
    shutil.copytree(data_dir, copy)
    before = data_files(copy)
    dry = cli("--action", "consolidate", "--dry-run", now=NIGHT, data=copy)
    dry_json = cli("--json", "--action", "consolidate", "--dry-run", now=NIGHT, data=copy)
    assert dry.code == 0 and dry_json.code == 0, dry.err + dry_json.err
    assert data_files(copy) == before
    real = consolidate(cli)

    assert dry_json.json()["changes"] == real["changes"]
    assert dry_json.json()["counts"] == real["counts"]
    assert {row["change"] for row in real["changes"]} >= {
        "merged",
        "archived",
        "summarized",
        "added to MEMORY.md",
    }
    assert real["counts"]["merged"] == 1 and real["counts"]["superseded"] == 1
    assert real["counts"]["pruned"] == 1 and real["counts"]["archived"] == 3

    written = (data_dir / real["report_file"]).read_text()
    assert real["report_file"] == "state/reports/2026-03-03T00-30-00Z.md"
    printed = [
        line.removeprefix("[DRY RUN] ").removeprefix("[DRY RUN]") for line in dry.out.splitlines()
    ]
    assert all(line.startswith("[DRY RUN]") for line in dry.out.splitlines())
    assert section(printed, "## Changes") == section(written.splitlines(), "## Changes")
    rows = [line for line in section(printed, "## Changes") if line.startswith("| ")]
    assert len(rows) == len(real["changes"]) + 1  # and the header
    assert "| archived | 3 |" in written and "| merged | 1 |" in written
    assert not (copy / "state" / "reports").exists()


def section(lines: list[str], heading: str) -> list[str]:
    start = next(n for n, line in enumerate(lines) if line.startswith(heading))
    end = next((n for n in range(start + 1, len(lines)) if lines[n].startswith("## ")), len(lines))
    return lines[start:end]


def test_reports_past_daily_retention_days_are_removed_by_the_clean_step(cli, data_dir):
    hash_embedder(cli)
    reports = data_dir / "state" / "reports"
    reports.mkdir(parents=True)
    (reports / "2025-03-02T00-30-00Z.md").write_text("# Consolidated 2025-03-02T00:30:00Z\n")
    (reports / "2025-03-03T00-30-00Z.md").write_text("# Consolidated 2025-03-03T00:30:00Z\n")
    (reports / "notes.md").write_text("mine\n")
    report = consolidate(cli)  # 2026-03-03: 366 and 365 days later
    assert [row for row in report["changes"] if row["step"] == "clean"] == [
        {
            "step": "clean",
            "change": "removed",
            "target": "state/reports/2025-03-02T00-30-00Z.md",
            "reason": "consolidation report older than 365 days",
        }
    ]
    assert sorted(path.name for path in reports.iterdir()) == [
        "2025-03-03T00-30-00Z.md",
        "2026-03-03T00-30-00Z.md",
        "notes.md",
    ]


def test_a_search_that_found_nothing_is_not_made_again_on_the_same_memory(
    cli, data_dir, monkeypatch
):
    from vm_memory_oracle.steps import merge as merge_step

    searches = []
    search = merge_step.find_duplicates
    monkeypatch.setattr(
        merge_step, "find_duplicates", lambda *a, **k: searches.append(1) or search(*a, **k)
    )
    hash_embedder(cli)
    remember(cli, "--predicate", "likes", "--object", "green tea", now=DAY1)
    assert consolidate(cli)["counts"]["merged"] == 0 and len(searches) == 1
    assert consolidate(cli, now="2026-03-04T00:30:00Z")["counts"]["merged"] == 0
    assert len(searches) == 1  # nothing changed: the memo answers
    # A new statement of the same thing changes facts.jsonl: searched again, and merged.
    remember(cli, "--predicate", "likes", "--object", "green tea very much", now=DAY2)
    assert consolidate(cli, now="2026-03-05T00:30:00Z")["counts"]["merged"] == 1
    assert len(searches) == 2
    # A threshold of its own is a search of its own.
    assert cli("--action", "config", "--set", "merge_similarity=0.9").code == 0
    consolidate(cli, now="2026-03-06T00:30:00Z")
    assert len(searches) == 3


def test_the_cosine_search_finds_the_same_pairs_whatever_rows_it_takes_at_once(monkeypatch):
    """The cosines of one subject's facts are computed a block of rows at a time, the block
    bounded by how many facts the subject has; the pairs found are the same for any block,
    with the same cosines (to float32's precision). A sentence the cache has no vector of
    is left out of the search."""
    import numpy as np
    from vm_memory_oracle.steps import merge as merge_step

    count = 300
    facts = [fact(f"note number {n}", obj=f"thing {n}") for n in range(count)]
    generator = np.random.default_rng(7)
    base = generator.normal(size=(count, 64)).astype(np.float32)
    base[1::2] = base[0::2] + 0.05 * generator.normal(size=(count // 2, 64)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    by_sentence = {f.sentence: base[n] for n, f in enumerate(facts)}
    without = facts[5].sentence

    def vectors(sentences):
        places = [n for n, sentence in enumerate(sentences) if sentence != without]
        return np.array([by_sentence[sentences[n]] for n in places]), np.array(places)

    found = []
    for rows, cells, fewest in ((1024, 4 * 1024 * 1024, 64), (64, 100, 7), (1, 1, 1)):
        monkeypatch.setattr(merge_step, "_ROWS", rows)
        monkeypatch.setattr(merge_step, "_CELLS", cells)
        monkeypatch.setattr(merge_step, "_FEWEST", fewest)
        found.append(merge_step._close_pairs(facts, list(range(count)), vectors, 0.9))
    whole = found[0]
    assert (0, 1) in whole and not any(5 in pair for pair in whole)
    assert len(whole) >= count // 4 and not np.any(np.abs(base @ base.T - 0.9) < 1e-3)
    for other in found[1:]:
        assert other.keys() == whole.keys()
        assert all(abs(other[pair] - whole[pair]) < 1e-5 for pair in whole)
