"""Stale references: a fact naming files or directories is checked at consolidation. Every
path gone: archived as stale; some gone: flagged and kept; nothing to check: evergreen.
Paths are only ever lstat'ed, and only under the data directory and path_check_roots."""

from __future__ import annotations

import builtins
import json
import os

import pytest

from conftest import data_files, hash_embedder

DAY0 = "2026-03-01T09:00:00Z"
DAY1 = "2026-03-02T00:30:00Z"
DAY2 = "2026-03-03T00:30:00Z"
HEALTH_MOVING = (
    "timestamp",
    "last_consolidation",
    "consolidation_duration_seconds",
    "disk_usage_percent",
    "disk_usage_bytes",
)  # the reports take room


def remember(cli, obj: str, *extra: str, predicate: str = "keeps_notes_in") -> str:
    result = cli(
        "--json",
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        predicate,
        "--object",
        obj,
        *extra,
        now=DAY0,
    )
    assert result.code == 0, result.err
    return result.json()["ids"][0]


def consolidate(cli, now: str) -> dict:
    result = cli("--json", "--action", "consolidate", now=now)
    assert result.code == 0, result.err
    return result.json()


def step(report: dict, name: str) -> dict:
    return next(item for item in report["steps"] if item["name"] == name)


def lines_of(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def active_ids(data_dir) -> set[str]:
    return {fact["id"] for fact in lines_of(data_dir / "knowledge-graph" / "facts.jsonl")}


def touch(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x")
    return path


# -- what counts as a path -------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, paths",
    [
        ("/etc/nginx/nginx.conf", ["/etc/nginx/nginx.conf"]),
        ("the project lives in /home/u/proj/ now", ["/home/u/proj/"]),
        ("todo list: ~/notes/todo.md.", ["~/notes/todo.md"]),
        ("see (/srv/app/run.sh), then `/opt/x/y.py`!", ["/srv/app/run.sh", "/opt/x/y.py"]),
        ('"/var/log/app.log"; and \u201c~/a b\u201d', ["/var/log/app.log", "~/a"]),
        ("error at /home/u/app.py:42:7, fixed", ["/home/u/app.py"]),
        ("[notes](~/notes/n.md) and ~/notes/n.md again", ["~/notes/n.md"]),
        ("/home/u/report(1).pdf", ["/home/u/report(1).pdf"]),
        ("我的笔记在~/笔记/待办.md里", ["~/笔记/待办.md"]),
        ("配置文件/etc/app/config.yaml已经删了", ["/etc/app/config.yaml"]),
        ("日志在「/var/log/app.log」，每天轮换。", ["/var/log/app.log"]),
    ],
)
def test_paths_are_found_where_a_path_can_start_and_cut_where_it_ends(text, paths):
    from vm_memory_oracle.model.paths import path_references

    assert path_references(text) == paths


@pytest.mark.parametrize(
    "text",
    [
        "https://example.com/docs/a.md",
        "and/or",
        "1/2 cup",
        "on 2026/11/21",
        "/",
        "a / b",
        "w/o sugar",
        "src/app/main.py",
        "x~/notes",
        "~",
        "~/",
        "//cdn.example.com/x",
        "/...",
        "path:/etc/x",
        "喜欢乌龙茶",
        "",
    ],
)
def test_urls_fractions_dates_and_relative_paths_are_not_references(text):
    from vm_memory_oracle.model.paths import path_references

    assert path_references(text) == []


def test_paths_are_normalised_lexically_and_checked_only_inside_an_allowed_root():
    from vm_memory_oracle.model.paths import allowed_roots, covering_root, expanded

    roots = allowed_roots(("~", "/srv/projects/"), "/data/memory", "/home/u")
    assert roots == ["/data/memory", "/home/u", "/srv/projects"]
    assert expanded("~/a/../b/", "/home/u") == "/home/u/b"
    assert expanded("~/a", None) is None
    assert covering_root("/home/u/b", roots) == "/home/u"
    assert covering_root(expanded("~/../v/x", "/home/u"), roots) is None
    assert covering_root("/home/user2/x", roots) is None  # a prefix is not a parent
    assert covering_root("/srv/projects", roots) == "/srv/projects"
    assert covering_root("/etc/passwd", roots) is None
    assert allowed_roots((), "/data/memory", "/home/u") == ["/data/memory"]
    assert (
        covering_root("/data/memory/a/b", allowed_roots(("/",), "/data/memory", None))
        == "/data/memory"
    )  # the deepest root: fewer components to walk


# -- at consolidation ------------------------------------------------------------------------
def test_a_fact_naming_a_file_then_deleted_is_archived_as_stale(cli, data_dir, isolated_home):
    hash_embedder(cli)
    todo = touch(isolated_home / "notes" / "todo.md")
    fact = remember(cli, "~/notes/todo.md")
    kept = remember(cli, "green tea", predicate="likes")
    first = consolidate(cli, DAY1)
    assert step(first, "stale")["counts"] == {
        "checked": 2,
        "evergreen": 1,
        "fresh": 1,
        "partially_stale": 0,
        "stale": 0,
        "archived": 0,
    }
    assert active_ids(data_dir) == {fact, kept}

    todo.unlink()
    report = consolidate(cli, DAY2)
    stale = step(report, "stale")
    assert stale["counts"]["stale"] == stale["counts"]["archived"] == 1
    assert stale["changes"] == [
        {
            "fact": fact,
            "change": "archived",
            "reason": "stale: every path it names is gone: ~/notes/todo.md",
            "origin": "owner",
        }
    ]
    assert active_ids(data_dir) == {kept}
    [archived] = lines_of(data_dir / "knowledge-graph" / "archived-facts.jsonl")
    assert archived["id"] == fact and archived["archived_at"] == DAY2
    assert archived["archive_reason"] == "stale: every path it names is gone: ~/notes/todo.md"
    vectors = lines_of(data_dir / "embeddings" / "metadata.jsonl")
    assert {record["fact_id"] for record in vectors} == {kept}  # prune took its vector out
    assert fact not in (data_dir / "MEMORY.md").read_text()
    steps = [item["name"] for item in report["steps"]]
    assert steps[steps.index("index") : steps.index("prune") + 1] == [
        "index",
        "merge",
        "stale",
        "prune",
    ]


def test_a_fact_naming_two_files_of_which_one_is_deleted_is_flagged_and_kept(
    cli, data_dir, isolated_home
):
    hash_embedder(cli)
    touch(isolated_home / "proj" / "plan.md")
    draft = touch(isolated_home / "proj" / "draft.md")
    fact = remember(
        cli,
        "the launch plan",
        "--text",
        "The launch plan is in ~/proj/plan.md, the notes in ~/proj/draft.md.",
        predicate="wrote",
    )
    draft.unlink()
    report = consolidate(cli, DAY1)
    stale = step(report, "stale")
    assert stale["counts"]["partially_stale"] == 1 and stale["counts"]["archived"] == 0
    reason = "partially stale: gone: ~/proj/draft.md; still there: ~/proj/plan.md"
    assert stale["changes"] == [
        {"fact": fact, "change": "flagged", "reason": reason, "origin": "owner"}
    ]
    assert fact in active_ids(data_dir)
    health = json.loads((data_dir / "health.json").read_text())
    assert health["stale_references"] == [
        {"fact": fact, "gone": ["~/proj/draft.md"], "present": ["~/proj/plan.md"], "unchecked": []}
    ]
    assert health["status"] == "healthy" and health["warnings"] == []

    text = cli("--action", "consolidate", now=DAY2).out
    assert f"| stale | flagged | {fact} | owner | {reason} |" in text
    checked = cli("--action", "health-check", "--strict", now=DAY2)
    assert checked.code == 0, checked.err  # a fact to review is not a fault
    assert f"  to review: {fact} names paths that are gone: ~/proj/draft.md" in checked.out
    touch(draft)
    again = cli("--json", "--action", "health-check", now=DAY2).json()
    assert again["stale_references"] == []


def test_a_pinned_fact_whose_files_are_all_gone_is_kept_and_flagged(cli, data_dir):
    hash_embedder(cli)
    fact = remember(cli, "~/vault/keys.txt", "--pin")
    report = consolidate(cli, DAY1)
    assert step(report, "stale")["changes"] == [
        {
            "fact": fact,
            "change": "flagged",
            "reason": "stale, kept because pinned: every path it names is gone: ~/vault/keys.txt",
            "origin": "owner",
        }
    ]
    assert active_ids(data_dir) == {fact}
    health = json.loads((data_dir / "health.json").read_text())
    assert [entry["fact"] for entry in health["stale_references"]] == [fact]


def test_a_rerun_changes_nothing(cli, data_dir, isolated_home):
    hash_embedder(cli)
    touch(isolated_home / "a.md")
    remember(cli, "~/a.md and ~/b.md")
    remember(cli, "~/c.md")
    report = consolidate(cli, DAY1)
    assert sorted(change["change"] for change in step(report, "stale")["changes"]) == [
        "archived",
        "flagged",
    ]
    before = data_files(data_dir)
    again = consolidate(cli, DAY1)
    after = data_files(data_dir)
    report = "state/reports/2026-03-02T00-30-00Z.md"  # this run's, written again
    assert {name for name in after if after[name] != before.get(name)} <= {"health.json", report}
    assert set(after) == set(before)
    old, new = (json.loads(files["health.json"]) for files in (before, after))
    assert {key: value for key, value in old.items() if key not in HEALTH_MOVING} == {
        key: value for key, value in new.items() if key not in HEALTH_MOVING
    }
    assert step(again, "stale")["counts"]["archived"] == 0
    assert [change["change"] for change in step(again, "stale")["changes"]] == ["flagged"]


def test_the_step_run_twice_at_the_same_clock_archives_once(cli, data_dir):
    """What a resumed consolidation does when the step was cut off after archiving."""
    from vm_memory_oracle.clock import parse_iso
    from vm_memory_oracle.config import Settings
    from vm_memory_oracle.memory import Memory
    from vm_memory_oracle.steps.stale import stale

    hash_embedder(cli)
    fact = remember(cli, "~/gone.md")
    settings = Settings(lock_timeout_seconds=5)
    graph = Memory.open(data_dir, settings, now=parse_iso(DAY1)).graph()
    assert stale(graph, parse_iso(DAY1)).counts["archived"] == 1
    before = data_files(data_dir)
    assert stale(graph, parse_iso(DAY1)).counts["archived"] == 0
    assert data_files(data_dir) == before
    assert [
        record["id"] for record in lines_of(data_dir / "knowledge-graph" / "archived-facts.jsonl")
    ] == [fact]


# -- what is checked, and how ----------------------------------------------------------------
def test_paths_outside_the_allowed_roots_are_never_looked_at(
    cli, data_dir, tmp_path, isolated_home, monkeypatch
):
    hash_embedder(cli)
    assert cli("--action", "config", "--set", "path_check_roots=[]").code == 0
    outside = tmp_path / "outside"
    home_file = isolated_home / "notes" / "gone.md"
    inside = data_dir / "attachments" / "kept.txt"
    touch(inside)
    evergreen = remember(cli, f"{outside}/gone.md and ~/notes/gone.md")
    fresh = remember(cli, str(inside))
    touched: list[str] = []

    def recorder(function):
        def call(path, *args, **kwargs):
            touched.append(
                os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else str(path)
            )
            return function(path, *args, **kwargs)

        return call

    for name in ("lstat", "stat", "open", "access", "listdir", "scandir"):
        monkeypatch.setattr(os, name, recorder(getattr(os, name)))
    monkeypatch.setattr(builtins, "open", recorder(builtins.open))
    report = consolidate(cli, DAY1)
    assert cli("--action", "health-check", now=DAY1).code == 0
    monkeypatch.undo()
    assert step(report, "stale")["counts"] == {
        "checked": 2,
        "evergreen": 1,
        "fresh": 1,
        "partially_stale": 0,
        "stale": 0,
        "archived": 0,
    }
    assert active_ids(data_dir) == {evergreen, fresh}
    assert str(inside) in touched  # the check did run, inside the data directory
    looked_at = [
        path for path in touched if path.startswith((str(outside), str(isolated_home / "notes")))
    ]
    assert looked_at == []
    assert str(home_file) not in touched


def test_a_path_through_a_symbolic_link_is_not_checked(cli, data_dir, tmp_path, isolated_home):
    hash_embedder(cli)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (isolated_home / "link").symlink_to(elsewhere)
    (isolated_home / "dangling").symlink_to(tmp_path / "nothing-here")
    through = remember(cli, "~/link/gone.md")
    dangling = remember(cli, "~/dangling")
    both = remember(cli, "~/link/x.md and ~/missing.md")
    stale = step(consolidate(cli, DAY1), "stale")
    assert stale["counts"] == {
        "checked": 3,
        "evergreen": 1,
        "fresh": 1,
        "partially_stale": 1,
        "stale": 0,
        "archived": 0,
    }
    assert active_ids(data_dir) == {through, dangling, both}
    assert stale["changes"] == [
        {
            "fact": both,
            "change": "flagged",
            "reason": "partially stale: gone: ~/missing.md; not checked: ~/link/x.md",
            "origin": "owner",
        }
    ]


def test_the_checker_stops_at_a_link_and_reads_nothing(tmp_path):
    from vm_memory_oracle.steps.stale import GONE, PRESENT, UNCHECKED, ReferenceChecker

    root = tmp_path / "root"
    touch(root / "dir" / "file.txt")
    (root / "link").symlink_to(root / "dir")
    (root / "plain").write_text("a file, not a directory")
    calls: list[str] = []

    def lstat(path):
        calls.append(path)
        return os.lstat(path)

    checker = ReferenceChecker([str(root)], home=None, lstat=lstat)
    assert checker.state(f"{root}/dir/file.txt") == PRESENT
    assert checker.state(f"{root}/dir/other.txt") == GONE
    assert checker.state(f"{root}/plain/below") == GONE  # ENOTDIR
    assert checker.state(f"{root}/link/file.txt") == UNCHECKED
    assert checker.state(f"{root}/link") == PRESENT  # the link itself is there
    assert checker.state(f"{root}/../outside") == UNCHECKED
    assert checker.state("~/anything") == UNCHECKED  # no home directory known
    assert f"{root}/link/file.txt" not in calls
    assert all(path == str(root) or path.startswith(f"{root}/") for path in calls)
    missing_root = ReferenceChecker([str(tmp_path / "unmounted")], home=None)
    assert missing_root.state(f"{tmp_path}/unmounted/a") == UNCHECKED


@pytest.mark.parametrize(
    "value, shown",
    [
        ("relative/dir", "'relative/dir'"),
        ("[notes]", "['notes']"),
        ("[1]", "[1]"),
        ("'~user/x'", "'~user/x'"),
        ("/srv", "'/srv'"),
    ],
)
def test_path_check_roots_must_be_a_list_of_absolute_or_home_paths(cli, data_dir, value, shown):
    hash_embedder(cli)
    before = data_files(data_dir)
    result = cli("--action", "config", "--set", f"path_check_roots={value}")
    assert result.code == 3
    assert result.err == (
        f"Error: {data_dir / 'config.yaml'}: memory_oracle.path_check_roots "
        "must be a list of directories, each absolute or starting with ~/, "
        f"got {shown}\n"
    )
    assert data_files(data_dir) == before
    accepted = cli("--json", "--action", "config", "--set", 'path_check_roots=["~", "/srv/x"]')
    assert accepted.code == 0, accepted.err
    assert accepted.json()["settings"]["path_check_roots"] == ["~", "/srv/x"]


def test_a_dry_run_finds_what_the_real_run_does_in_the_data_directory(cli, data_dir):
    hash_embedder(cli)
    assert cli("--action", "config", "--set", "path_check_roots=[]").code == 0
    touch(data_dir / "attachments" / "kept.txt")
    remember(cli, f"{data_dir}/attachments/gone.txt")
    remember(cli, f"{data_dir}/attachments/kept.txt and {data_dir}/attachments/old.txt")
    before = data_files(data_dir)
    dry = cli("--json", "--action", "consolidate", "--dry-run", now=DAY1)
    assert dry.code == 0, dry.err
    assert data_files(data_dir) == before
    real = consolidate(cli, DAY1)
    assert step(dry.json(), "stale")["changes"] == step(real, "stale")["changes"]
    assert sorted(change["change"] for change in step(real, "stale")["changes"]) == [
        "archived",
        "flagged",
    ]
