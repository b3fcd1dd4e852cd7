"""The memory page at scale: a memory of --facts generated facts (100,000 by default, a
tenth of them superseded, their source lines kept in session logs), the page written
(seconds, bytes), then opened in headless Chromium from the disk: the time to the page's
script having drawn the first screens (its own clock, from navigation), how many facts
that drew, and the time a search over all of them takes to show its matches (typing to
drawn, the page's 60 ms wait for more typing included). The goal: opened in under 3 s.

Chromium is Debian's package (tests/browser.py installs it where missing); without it the
page is still written and measured, the browser's figures left out, saying why."""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BUNDLE / "skill"))
sys.path.insert(0, str(BUNDLE / "tests"))

from browser import Browser, chromium  # noqa: E402
from vm_memory_oracle.clock import parse_iso  # noqa: E402
from vm_memory_oracle.config import Settings  # noqa: E402
from vm_memory_oracle.intake import facts_from_jsonl  # noqa: E402
from vm_memory_oracle.memory import Memory  # noqa: E402

from results import record  # noqa: E402
from synthetic import fact_lines  # noqa: E402

GOAL_OPEN_SECONDS = 3.0
STAMP = "2026-05-15T00:00:00Z"
LATER = "2026-05-20T00:00:00Z"
LOG = "sessions/2026-05-15-090000.jsonl"


def build(directory: Path, count: int) -> Memory:
    """`count` facts, each read from a line of one session log (its words kept, shown on
    demand), spread over a week; then a tenth of them said again with a new object of a
    single-valued predicate, superseding the first."""
    settings = Settings(lock_timeout_seconds=120)
    Memory.open(directory, settings).init()
    lines = fact_lines(count)
    (directory / LOG).write_text(
        "".join(
            json.dumps({"ts": STAMP, "role": "user", "text": f"{line['subject']} {line['object']}"})
            + "\n"
            for line in lines
        ),
        encoding="utf-8",
    )
    for number, line in enumerate(lines, 1):
        line["source"] = f"{LOG}:{number}"
        line["valid_from"] = f"2026-05-{9 + number % 7:02d}T09:00:00Z"
    memory = Memory.open(directory, settings, now=parse_iso(STAMP))
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    memory.remember(facts_from_jsonl(io.BytesIO(data), "synthetic", created=STAMP).facts)
    moved = [
        {"subject": f"person {n}", "predicate": "lives_in", "object": city}
        for n in range(count // 20)
        for city in ("Lisbon", "Berlin")
    ]
    for city in ("Lisbon", "Berlin"):
        said = "".join(json.dumps(line) + "\n" for line in moved if line["object"] == city)
        later = Memory.open(
            directory, settings, now=parse_iso(LATER if city == "Berlin" else STAMP)
        )
        later.remember(facts_from_jsonl(io.BytesIO(said.encode()), "moves", created=STAMP).facts)
    return Memory.open(directory, settings, now=parse_iso(LATER))


def opened(page: Path, workdir: Path, query: str) -> dict:
    executable, why = chromium()
    if executable is None:
        return {"skipped": why}
    browser = Browser(executable, workdir / "chromium profile")
    try:
        started = time.perf_counter()
        browser.open(page.as_uri())
        loaded = time.perf_counter() - started
        ready_ms = int(browser.evaluate("document.body.dataset.readyMs"))
        drawn = browser.evaluate("document.querySelectorAll('#facts .fact').length")
        search_ms = browser.evaluate(
            "new Promise(done => { const box = document.getElementById('search');"
            f" const start = performance.now(); box.value = {json.dumps(query)};"
            " box.dispatchEvent(new Event('input'));"
            " const wait = () => /match/.test(document.getElementById('count').textContent)"
            " ? done(performance.now() - start) : setTimeout(wait, 5); wait(); })"
        )
        matched = browser.evaluate("document.querySelectorAll('#facts .fact').length")
        left = [url for url in browser.requests() if not url.startswith("file:")]
    finally:
        browser.close()
    return {
        "ready_seconds": round(ready_ms / 1000, 3),
        "load_event_seconds": round(loaded, 3),
        "facts_drawn_first": drawn,
        "search_seconds": round(search_ms / 1000, 3),
        "search_matched": matched,
        "requests_leaving": left,
        "met": ready_ms / 1000 < GOAL_OPEN_SECONDS,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path, help="where the memory is made (kept)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        workdir = args.workdir or Path(scratch)
        directory = workdir / f"memory-{args.facts}"
        started = time.perf_counter()
        memory = build(directory, args.facts)
        built = time.perf_counter() - started
        started = time.perf_counter()
        page = memory.page()
        written = time.perf_counter() - started
        figures = {
            "facts": args.facts,
            "facts_shown": page.facts,
            "build_seconds": round(built, 1),
            "write_seconds": round(written, 2),
            "page_bytes": page.size,
            "browser": opened(page.path, workdir, f"item {args.facts // 2 + 1}"),
            "goal_open_seconds": GOAL_OPEN_SECONDS,
        }
    path = record(f"view_page-{args.facts}", figures)
    browser = figures["browser"]
    print(
        f"{args.facts} facts and {args.facts // 20} moves: {page.facts} current facts shown, "
        f"{args.facts // 20} superseded under them ({path})"
    )
    print(f"page written in {figures['write_seconds']} s, {page.size / 1e6:.1f} MB")
    if "skipped" in browser:
        print(f"not opened: {browser['skipped']}")
    else:
        print(
            f"opened in headless Chromium: ready in {browser['ready_seconds']} s "
            f"(goal under {GOAL_OPEN_SECONDS:g} s), {browser['facts_drawn_first']} facts drawn "
            f"first; a search shown in {browser['search_seconds']} s "
            f"({browser['search_matched']} match); "
            f"requests leaving: {len(browser['requests_leaving'])}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
