"""The memory page's data (view/records.py) and its file (view/page.py): a fixture memory
learned from real session logs through the CLI, a fact superseded, one forgotten."""

from __future__ import annotations

import json
import stat
from dataclasses import asdict
from pathlib import Path

import pytest
from vm_memory_oracle.memory import Memory
from vm_memory_oracle.model.provenance import UNTRUSTED, Provenance
from vm_memory_oracle.view.records import change_kind

from conftest import hash_embedder, log_turns

FIRST_DAY, SECOND_DAY = "2026-05-14T12:00:00Z", "2026-05-16T12:00:00Z"
CONSOLIDATED = "2026-05-16T13:00:00Z"
SECRET = ("185,000", "salary")


@pytest.fixture
def fixture_memory(cli, data_dir) -> Path:
    """Four facts said on the first day (one in Chinese), a move to Berlin that supersedes
    Lisbon and a salary on the second, consolidated; then the salary forgotten."""
    hash_embedder(cli)
    log_turns(
        data_dir,
        [
            ("user", "I'm allergic to peanuts, so please keep that in mind."),
            ("assistant", "Noted."),
            ("user", "My sister Maya lives in Porto and teaches chemistry."),
            ("user", "I live in Lisbon."),
            ("user", "我喜欢喝绿茶。"),
        ],
        "2026-05-14-090000.jsonl",
    )
    assert cli("--action", "summarize", "--all", now=FIRST_DAY).code == 0
    log_turns(
        data_dir,
        [
            ("user", "I moved, I live in Berlin now."),
            ("user", "My salary is 185,000 dollars a year."),
        ],
        "2026-05-16-090000.jsonl",
    )
    assert cli("--action", "summarize", "--all", now=SECOND_DAY).code == 0
    assert cli("--action", "consolidate", now=CONSOLIDATED).code == 0
    forgot = cli("--action", "forget", "--query", "salary", "--yes", now=CONSOLIDATED)
    assert forgot.code == 0, forgot.err
    return data_dir


def test_the_data_holds_the_facts_by_subject_with_their_sources(fixture_memory):
    data = Memory.open(fixture_memory, now=_at(CONSOLIDATED)).view_data()
    assert data.subjects[0].person and data.subjects[0].name == "user"
    by_sentence = {fact.sentence: fact for fact in data.facts}
    assert set(by_sentence) == {
        "user is allergic to peanuts",
        "user lives in Berlin",
        "用户喜欢喝绿茶",
        "user's sister Maya lives in Porto and teaches chemistry.",
    }
    peanuts = by_sentence["user is allergic to peanuts"]
    assert peanuts.source == "sessions/2026-05-14-090000.jsonl:1"
    assert peanuts.turn == "I'm allergic to peanuts, so please keep that in mind."
    assert (peanuts.origin, peanuts.session, peanuts.learned) == ("owner", "interactive", FIRST_DAY)
    assert peanuts.in_memory_md and not peanuts.pinned
    assert 0 < peanuts.activation < peanuts.a0 == 1.0
    # Lisbon, superseded by Berlin and archived, is Berlin's history, not a fact of its own.
    berlin = by_sentence["user lives in Berlin"]
    assert [former.sentence for former in berlin.history] == ["user lives in Lisbon"]
    assert berlin.history[0].source == "sessions/2026-05-14-090000.jsonl:4"
    assert dict(data.per_day) == {"2026-05-14": 3, "2026-05-16": 1}


def test_nothing_forgotten_is_in_the_data(fixture_memory):
    data = Memory.open(fixture_memory).view_data()
    text = json.dumps(data.to_json(), ensure_ascii=False)
    assert not [word for word in SECRET if word in text]
    assert [change.kind for change in data.changes][0] == "forgotten"


def test_activation_and_pins_are_those_of_the_memory(cli, fixture_memory):
    memory = Memory.open(fixture_memory, now=_at(CONSOLIDATED))
    peanuts = next(f for f in memory.view_data().facts if "peanuts" in f.sentence)
    later = Memory.open(fixture_memory, now=_days_later(memory.now, 30)).view_data()
    faded = next(f for f in later.facts if f.id == peanuts.id)
    # importance 1 doubles the half-life (30 days): 30 days on, 2 ** -0.5 of it is left.
    assert faded.activation == pytest.approx(peanuts.activation * 2**-0.5, abs=2e-4)
    assert cli("--action", "pin", "--id", peanuts.id).code == 0
    pinned = next(f for f in Memory.open(fixture_memory).view_data().facts if f.id == peanuts.id)
    assert pinned.pinned


def test_changes_and_health_come_from_the_audit_log_and_health_json(fixture_memory):
    data = Memory.open(fixture_memory).view_data()
    kinds = {change.kind for change in data.changes}
    assert {"learned", "archived", "forgotten"} <= kinds
    assert data.health.status == "healthy"
    assert data.health.figures["active_facts"] == 5  # as health.json said before the forget


@pytest.mark.parametrize(
    ("action", "step", "change", "kind"),
    [
        ("forget", "forget", "forgot by --id: 1 fact(s)", "forgotten"),
        ("consolidate", "consolidate: merge", "merged 2 fact(s)", "merged"),
        ("consolidate", "consolidate: prune", "archived 1 fact(s)", "archived"),
        ("restore", "restore", "restored 1 fact(s)", "restored"),
        ("summarize", "summarize", "remembered 3 new fact(s)", "learned"),
        ("config", "config", "set half_life_days", "other"),
        (
            "init",
            "init",
            "created memory/, knowledge-graph/archived-facts.jsonl, MEMORY.md",
            "other",
        ),
        ("consolidate", "consolidate: MEMORY.md", "MEMORY.md: 5 added, 0 removed", "memory-md"),
        ("consolidate", "consolidate: index", "vector index: 5 added, 0 removed", "other"),
    ],
)
def test_change_kinds(action, step, change, kind):
    assert change_kind(action, step, change) == kind


def _at(stamp: str):
    from vm_memory_oracle.clock import parse_iso

    return parse_iso(stamp)


def _days_later(moment, days: float):
    from datetime import timedelta

    return moment + timedelta(days=days)


def owner_only(path: Path) -> bool:
    return stat.S_IMODE(path.stat().st_mode) & 0o077 == 0


def page_data(html: str) -> dict:
    """The memory's record the page carries."""
    start = html.index('<script type="application/json" id="memory-data">') + len(
        '<script type="application/json" id="memory-data">'
    )
    return json.loads(html[start : html.index("</script>", start)])


def test_view_writes_one_private_self_contained_page(cli, fixture_memory):
    result = cli("--json", "--action", "view", now=CONSOLIDATED)
    assert result.code == 0, result.err
    page = fixture_memory / "view.html"
    assert result.json() == {"path": str(page), "bytes": page.stat().st_size, "facts": 4}
    assert owner_only(page)
    html = page.read_text(encoding="utf-8")
    assert not [word for word in SECRET if word in html]
    # Nothing is loaded from anywhere: no src or stylesheet, and the policy forbids any.
    assert "src=" not in html and "<link" not in html and "@import" not in html
    assert "default-src 'none'" in html and "script-src 'sha256-" in html
    assert page_data(html)["made"] == CONSOLIDATED
    assert "user is allergic to peanuts" in html and "用户喜欢喝绿茶" in html


def test_the_page_says_when_it_was_made_and_a_forget_takes_a_fact_out(cli, fixture_memory):
    assert cli("--action", "view", now=CONSOLIDATED).code == 0
    page = fixture_memory / "view.html"
    peanuts = next(
        f
        for f in page_data(page.read_text(encoding="utf-8"))["subjects"][0]["facts"]
        if "peanuts" in f["sentence"]
    )
    later = "2026-05-17T09:00:00Z"
    forgot = cli("--action", "forget", "--id", peanuts["id"], now=later)
    assert forgot.code == 0 and "view.html" in forgot.out
    assert not page.exists()  # the page that showed it went with it
    assert cli("--action", "view", now=later).code == 0
    html = page.read_text(encoding="utf-8")
    assert page_data(html)["made"] == later
    assert "peanuts" not in html


def test_memory_text_cannot_end_the_data_script(cli, data_dir, tmp_path):
    hash_embedder(cli)
    said = "</script><script>alert(1)</script><!--"
    remembered = cli(
        "--action", "remember", "--subject", "user", "--predicate", "likes", "--object", said
    )
    assert remembered.code == 0, remembered.err
    assert cli("--action", "view", "--to", str(tmp_path / "a page.html"), now=FIRST_DAY).code == 0
    html = (tmp_path / "a page.html").read_text(encoding="utf-8")
    assert html.count("</script>") == 2  # the data's and the page's own
    assert "<!--" not in html
    assert [f["sentence"] for f in page_data(html)["subjects"][0]["facts"]] == [
        f"user likes {said}"
    ]


@pytest.mark.parametrize("where", ["missing/page.html", "."])
def test_a_page_that_cannot_be_written_there_is_an_error_naming_it(cli, fixture_memory, where):
    target = fixture_memory / where
    before = sorted(p.name for p in fixture_memory.iterdir())
    result = cli("--action", "view", "--to", str(target), now=CONSOLIDATED)
    assert result.code == 3
    assert result.err.startswith(f"Error: --to: {target.absolute()}")
    assert sorted(p.name for p in fixture_memory.iterdir()) == before


def test_view_of_no_memory_is_an_error(cli, data_dir):
    result = cli("--action", "view")
    assert result.code == 5
    assert result.err == f"Error: {data_dir}: data directory does not exist (run --action init)\n"
    assert not data_dir.exists()


def remember_from_bob(data_dir: Path, now: str) -> None:
    """Bob, a stranger in a Telegram group, says the user uses a password manager."""
    import io

    from vm_memory_oracle.intake import facts_from_jsonl

    said = b'{"subject": "user", "predicate": "uses", "object": "a password manager"}\n'
    outside = Provenance(UNTRUSTED, chat="group", channel="telegram", sender="Bob")
    Memory.open(data_dir, now=_at(now)).remember(
        facts_from_jsonl(io.BytesIO(said), "group", created=CONSOLIDATED, provenance=outside).facts
    )


def half_set_up(cli, tmp_path: Path) -> None:
    """The memory pointed at an OpenClaw state where the plugin is only installed."""
    from test_openclaw_setup import FIXTURES

    state = tmp_path / "openclaw-state"
    (state / "workspace").mkdir(parents=True)
    (state / "openclaw.json").write_text((FIXTURES / "plugins-install-only.json5").read_text())
    assert cli("--action", "config", "--set", f"openclaw_state_dir={state}").code == 0


def test_what_came_from_outside_is_flagged(cli, fixture_memory):
    remember_from_bob(fixture_memory, "2026-05-17T09:00:00Z")
    data = Memory.open(fixture_memory, now=_at("2026-05-17T09:00:00Z")).view_data()
    [fact] = [f for f in data.facts if f.origin == UNTRUSTED]
    assert (fact.sentence, fact.sender, fact.channel, fact.trusted) == (
        "user uses a password manager",
        "Bob",
        "telegram",
        False,
    )
    assert all(f.trusted for f in data.facts if f is not fact)
    latest = data.changes[0]
    assert (latest.kind, latest.ids, latest.untrusted) == ("learned", 1, 1)
    assert all(change.untrusted == 0 for change in data.changes[1:])


def test_the_consolidations_list_each_change_with_who_said_the_fact(cli, fixture_memory):
    data = Memory.open(fixture_memory).view_data()
    [run] = data.consolidations
    assert (run.started_at, run.report, run.more) == (
        CONSOLIDATED,
        "state/reports/2026-05-16T13-00-00Z.md",
        0,
    )
    lisbon = next(change for change in run.changes if change.sentence == "user lives in Lisbon")
    assert (lisbon.step, lisbon.change, lisbon.said_by, lisbon.untrusted) == (
        "prune",
        "archived",
        "owner",
        False,
    )
    assert {change.said_by for change in run.changes} == {"owner"}
    # the forgotten salary's line went with it, and no change is left without its fact
    assert all(change.sentence for change in run.changes)
    assert not any(SECRET[1] in json.dumps(asdict(change)) for change in run.changes)


def test_a_consolidations_change_to_what_came_from_outside_is_flagged(cli, fixture_memory):
    remember_from_bob(fixture_memory, "2026-05-17T09:00:00Z")
    assert cli("--action", "consolidate", now="2027-06-01T03:00:00Z").code == 0
    latest = Memory.open(fixture_memory).view_data().consolidations[0]
    assert latest.started_at == "2027-06-01T03:00:00Z"
    flagged = [change for change in latest.changes if change.untrusted]
    assert [(c.sentence, c.said_by) for c in flagged] == [
        ("user uses a password manager", UNTRUSTED)
    ]
    assert any(change.said_by == "owner" and not change.untrusted for change in latest.changes)


def test_a_half_done_set_up_is_named_as_the_health_check_names_it(cli, fixture_memory, tmp_path):
    half_set_up(cli, tmp_path)
    checked = cli("--json", "--action", "health-check", now="2026-05-17T09:00:00Z")
    named = [f["message"] for f in checked.json()["findings"] if f["code"] == "openclaw_setup"]
    assert len(named) == 3 and all("half set up" in message for message in named)
    health = Memory.open(fixture_memory).view_data().health
    assert health.status == "degraded"
    assert [finding for finding in health.findings if "half set up" in finding] == named
