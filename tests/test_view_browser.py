"""The memory page in a real headless Chromium (Debian's package), scripts on, loaded from
the disk: the fixture memory's facts are there with their sources, the search box narrows
them, the charts are drawn, a forgotten fact is absent, facts beyond the first screens come
as the reader scrolls, a set-up half done and a consolidation's change to what came from
outside are shown, and no request leaves the page. One browser for the module; the
screenshot is kept as an artifact (its path is printed)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import test_view
from browser import Browser, chromium
from test_view import CONSOLIDATED, SECRET, half_set_up, remember_from_bob

from conftest import hash_embedder, remember_records

pytestmark = pytest.mark.slow

fixture_memory = test_view.fixture_memory  # the memory of the page's own tests

ARTIFACTS_ENV = "VM_MEMORY_ORACLE_ARTIFACTS"  # where the screenshot is kept, when set


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    executable, why = chromium()
    if executable is None:
        pytest.skip(f"no headless browser: {why}")
    opened = Browser(executable, tmp_path_factory.mktemp("chromium profile"))
    yield opened
    opened.close()


def settle(browser: Browser) -> None:
    """The page's pending timers and frames run (the search waits 60 ms for more typing)."""
    browser.evaluate("new Promise(done => setTimeout(() => requestAnimationFrame(done), 250))")


def shown(browser: Browser) -> list[str]:
    return browser.evaluate(
        "[...document.querySelectorAll('#facts .fact .sentence')].map(n => n.textContent)"
    )


def type_in_search(browser: Browser, text: str) -> None:
    browser.evaluate(
        "(() => { const box = document.getElementById('search'); box.focus();"
        f" box.value = {json.dumps(text)};"
        " box.dispatchEvent(new Event('input', {bubbles: true})); })()"
    )
    settle(browser)


def opened_page(cli, browser: Browser, path: Path, now: str) -> None:
    assert cli("--action", "view", "--to", str(path), now=now).code == 0
    browser.open(path.as_uri())
    assert browser.evaluate("document.body.dataset.ready") == "yes"


def test_the_page_shows_the_memory_with_its_sources_and_charts(
    cli, fixture_memory, browser, tmp_path
):
    opened_page(cli, browser, tmp_path / "my memory.html", CONSOLIDATED)
    assert sorted(shown(browser)) == sorted(
        [
            "user lives in Berlin",
            "user is allergic to peanuts",
            "用户喜欢喝绿茶",
            "user's sister Maya lives in Porto and teaches chemistry.",
        ]
    )
    sources = browser.evaluate(
        "[...document.querySelectorAll('#facts a.source')].map(a => [a.textContent, a.href])"
    )
    assert ["sessions/2026-05-14-090000.jsonl:1", (fixture_memory / "sessions").as_uri()] in [
        [text, href.rsplit("/", 1)[0]] for text, href in sources
    ]
    history = browser.evaluate("document.querySelector('.history s').textContent")
    assert history == "user lives in Lisbon"
    body = browser.evaluate("document.body.innerText")
    assert not [word for word in SECRET if word in body]
    assert "Made 2026-05-16T13:00:00Z" in body
    # The charts: a bar per day with facts, a curve of many points under the thresholds.
    assert browser.evaluate("document.querySelectorAll('#per-day-chart rect.day').length") == 2
    heights = browser.evaluate(
        "[...document.querySelectorAll('#per-day-chart rect.day')].map(r => r.getBBox().height)"
    )
    assert heights[0] > heights[1] > 0  # three facts the first day, one the second
    points = browser.evaluate(
        "document.querySelector('#curve-chart polyline.curve').getAttribute('points')"
    ).split()
    heights = [float(point.split(",")[1]) for point in points]
    assert len(points) > 50 and heights == sorted(heights)  # it only falls: y grows downward
    assert "below the search threshold in about" in browser.evaluate(
        "document.getElementById('curve-caption').textContent"
    )
    changes = browser.evaluate(
        "[...document.querySelectorAll('#changes tr.change td:nth-child(2)')]"
        ".map(n => n.textContent)"
    )
    assert {"forgotten", "archived", "learned"} <= set(changes)
    assert "Status: healthy" in body
    artifacts = Path(os.environ.get(ARTIFACTS_ENV) or tmp_path)
    artifacts.mkdir(parents=True, exist_ok=True)
    shot = browser.screenshot(artifacts / "view-page.png")
    assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 10_000
    print(f"screenshot: {shot}")
    # Nothing but the page itself was asked for.
    assert browser.requests() == [(tmp_path / "my memory.html").as_uri()]
    assert browser.blocked() == {}


def test_the_search_box_narrows_the_facts_as_you_type(cli, fixture_memory, browser, tmp_path):
    opened_page(cli, browser, tmp_path / "view.html", CONSOLIDATED)
    type_in_search(browser, "绿茶")
    assert shown(browser) == ["用户喜欢喝绿茶"]
    type_in_search(browser, "LISBON")  # what a fact replaced finds it too, in any case
    assert shown(browser) == ["user lives in Berlin"]
    type_in_search(browser, "peanuts maya")  # every word must be there
    assert shown(browser) == []
    type_in_search(browser, "salary")
    assert shown(browser) == []
    assert "0 of 4 facts match" in browser.evaluate("document.getElementById('count').textContent")
    type_in_search(browser, "")
    assert len(shown(browser)) == 4


def test_no_request_can_leave_the_page(cli, fixture_memory, browser, tmp_path):
    opened_page(cli, browser, tmp_path / "view.html", CONSOLIDATED)
    refused = browser.evaluate(
        "fetch('https://example.com/x').then(() => 'fetched', e => 'refused: ' + e.name)"
    )
    assert refused == "refused: TypeError"
    browser.evaluate(
        "(() => { const i = document.createElement('img'); i.src = 'https://example.com/p.png';"
        " document.body.appendChild(i); })()"
    )
    settle(browser)
    # Chromium announces the image's request, then refuses to send it by the page's policy.
    assert browser.blocked() == {"https://example.com/p.png": "csp"}
    assert [url for url in browser.requests() if not url.startswith("file:")] == [
        "https://example.com/p.png"
    ]


def test_facts_beyond_the_first_screens_come_as_the_reader_scrolls(
    cli, data_dir, browser, tmp_path
):
    hash_embedder(cli)
    records = [
        {"subject": f"project {n:04d}", "predicate": "uses", "object": f"tool {n:04d}"}
        for n in range(1200)
    ]
    remember_records(cli, tmp_path / "facts.jsonl", records, now=CONSOLIDATED)
    opened_page(cli, browser, tmp_path / "view.html", CONSOLIDATED)
    # A fact remembered from a file links to that file.
    links = browser.evaluate("[...document.querySelectorAll('#facts a.source')].map(a => a.href)")
    assert set(links) == {(tmp_path / "facts.jsonl").as_uri()}
    first = len(shown(browser))
    assert 0 < first < 1200
    for _ in range(40):
        browser.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        settle(browser)
        if len(shown(browser)) == 1200:
            break
    assert len(shown(browser)) == 1200
    type_in_search(browser, "tool 0777")
    assert shown(browser) == ["project 0777 uses tool 0777"]


def test_what_came_from_outside_is_flagged_on_the_page(cli, fixture_memory, browser, tmp_path):
    remember_from_bob(fixture_memory, CONSOLIDATED)
    opened_page(cli, browser, tmp_path / "view.html", CONSOLIDATED)
    flagged = browser.evaluate(
        "[...document.querySelectorAll('.fact')].filter(n => n.querySelector('.badge.untrusted'))"
        ".map(n => n.querySelector('.sentence').textContent)"
    )
    assert flagged == ["user uses a password manager"]
    assert browser.evaluate("document.querySelectorAll('#changes .flag').length") == 1
    assert "said by untrusted (Bob), interactive on telegram" in browser.evaluate(
        "document.body.innerText"
    )


def test_the_page_names_a_half_done_set_up_and_who_said_what_a_consolidation_changed(
    cli, fixture_memory, browser, tmp_path
):
    remember_from_bob(fixture_memory, CONSOLIDATED)
    half_set_up(cli, tmp_path)
    later = "2027-06-01T03:00:00Z"
    assert cli("--action", "consolidate", now=later).code == 0  # prunes, and checks health
    opened_page(cli, browser, tmp_path / "view.html", later)
    findings = browser.evaluate(
        "[...document.querySelectorAll('#health-body li')].map(n => n.textContent)"
    )
    half = [line for line in findings if line.startswith("OpenClaw's plugin is half set up: ")]
    assert [line.split(": ")[1].split(" is ")[0] for line in half] == [
        "plugins.entries.memory-core.enabled",
        "plugins.entries.vm-memory-oracle.hooks.allowConversationAccess",
        "tools.toolSearch",
    ]
    assert browser.evaluate("document.querySelector('#health-body p').textContent") == (
        "Status: degraded"
    )
    flagged = browser.evaluate(
        "[...document.querySelectorAll('#consolidations .reported-change.untrusted')]"
        ".map(n => [n.cells[2].textContent, n.cells[3].textContent])"
    )
    assert flagged == [["user uses a password manager", "untrustedfrom outside (untrusted)"]]
    heads = browser.evaluate(
        "[...document.querySelectorAll('#consolidations h3')].map(n => n.textContent)"
    )
    # the clean step took the year-old report away
    assert heads == [f"Consolidation of {later} (state/reports/2027-06-01T03-00-00Z.md)"]
