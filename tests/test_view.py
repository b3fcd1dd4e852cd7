"""The memory page's data (view/records.py) and its file (view/page.py): a fixture memory
learned from real session logs through the CLI, a fact superseded, one forgotten."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from vm_memory_oracle.memory import Memory
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
