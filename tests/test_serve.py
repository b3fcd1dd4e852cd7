"""`--action serve`: the recall process that stays up (the OpenClaw plugin's), answering
JSON lines through the real entrypoint: searches as recall answers them, reads of the
memory's files, every fault a one-line error, the process alive after each."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import ENTRYPOINT, NOW, data_files, hash_embedder, log_turns, summarized_allergy


class Served:
    """One serve process on a data directory, asked one request at a time."""

    def __init__(self, data: Path, *extra: str):
        self.process = subprocess.Popen(
            [str(ENTRYPOINT), "--data-path", str(data), "--now", NOW, *extra, "--action", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ},
        )
        self.next_id = 0

    def ask(self, op: str | None = None, raw: str | None = None, **fields) -> dict:
        self.next_id += 1
        line = raw if raw is not None else json.dumps({"id": self.next_id, "op": op, **fields})
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if raw is None:
            assert answer["id"] == self.next_id
        return answer

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=60)


@pytest.fixture
def allergy_memory(cli, data_dir):
    hash_embedder(cli)
    log = summarized_allergy(cli, data_dir)
    return log


@contextmanager
def services(data: Path) -> Iterator[Callable[..., Served]]:
    """Starts serve processes, on `data` unless told another directory (more arguments go
    to the command line); each one still running at the end is stopped."""
    running: list[Served] = []

    def start(on: Path = data, *extra: str) -> Served:
        running.append(Served(on, *extra))
        return running[-1]

    try:
        yield start
    finally:
        for service in running:
            if service.process.poll() is None:
                service.process.kill()
                service.process.wait()


@pytest.fixture
def served(data_dir):
    with services(data_dir) as start:
        yield start


def test_a_search_answers_as_recall_does_citing_the_line_get_opens(allergy_memory, served):
    service = served()
    assert service.ask("ping")["result"]["pid"] == service.process.pid
    found = service.ask("search", query="What am I allergic to?", maxResults=5)
    assert found["ok"], found
    results = found["result"]["results"]
    assert results and "peanuts" in results[0]["snippet"]
    top = results[0]
    assert top["path"] == "sessions/2026-05-14-090000.jsonl" and top["startLine"] == 1
    assert top["citation"] == f"{top['path']}#L{top['startLine']}"
    assert found["result"]["provider"] == "vm-memory-oracle"

    opened = service.ask("get", path=top["path"], **{"from": top["startLine"], "lines": 1})
    assert opened["ok"] and opened["result"]["origin"] == "file"
    assert "allergic to peanuts" in opened["result"]["text"]
    assert "Porto" not in opened["result"]["text"]  # one line, as asked
    assert service.close() == 0


ASKED_BEFORE = [
    ("user", "Which allergies do I have?"),
    ("assistant", "I don't have a record of that yet."),
    ("user", "Which allergies should I mention to the new restaurant?"),
    ("assistant", "Tell them about any food you react to."),
    ("user", "By the way, I'm allergic to sesame."),
    ("assistant", "Noted!"),
    ("user", "Do my allergies matter for the menu?"),
]


def test_what_auto_recall_injects_leaves_out_the_turns_that_only_ask(cli, data_dir, served):
    """The owner's earlier questions share the topic and words of a new one, but tell the
    model nothing of the answer: a search for what goes into the prompt unasked (the plugin's
    auto-recall) leaves them out, and the statement takes their place."""
    hash_embedder(cli)
    log_turns(data_dir, ASKED_BEFORE, "2026-06-01-090000.jsonl")
    assert cli("--action", "summarize", "--all").code == 0
    service = served()
    question = "Which allergies should the menu avoid?"
    asked_only = {text for role, text in ASKED_BEFORE if role == "user" and "sesame" not in text}

    def found(**fields) -> list[str]:
        answer = service.ask("search", query=question, maxResults=3, **fields)
        assert answer["ok"], answer
        return [hit["snippet"] for hit in answer["result"]["results"]]

    def asks(snippets: list[str]) -> list[str]:
        return [snippet for snippet in snippets if any(text in snippet for text in asked_only)]

    # Asked for (memory_search), the earlier questions are found, as what was said.
    searched = found()
    assert len(asks(searched)) == 2, searched
    injected = found(injected=True, trustedOnly=True, boost=False)
    assert asks(injected) == [], injected
    assert any("sesame" in snippet for snippet in injected), injected
    refused = service.ask("search", query=question, injected="yes")
    assert not refused["ok"] and "injected must be true or false" in refused["error"]["message"]


def test_a_log_clean_removed_is_opened_from_its_turns_episodes(allergy_memory, served):
    allergy_memory.unlink()  # as clean does with an old log
    service = served()
    opened = service.ask("get", path="sessions/2026-05-14-090000.jsonl", **{"from": 3})
    assert opened["ok"] and opened["result"]["origin"] == "episodes"
    assert "Maya lives in Porto" in opened["result"]["text"]
    assert "peanuts" not in opened["result"]["text"]
    # However many lines are asked for, only the turns kept are read (no list of them made).
    whole = service.ask("get", path="sessions/2026-05-14-090000.jsonl", lines=10**12)
    assert whole["ok"] and len(whole["result"]["text"].splitlines()) == 3


def test_what_is_remembered_after_the_start_is_found_without_a_restart(allergy_memory, served, cli):
    service = served()
    assert not any(
        "Volvo" in hit["snippet"]
        for hit in service.ask("search", query="which car does the user drive")["result"]["results"]
    )
    remembered = cli(
        "--action", "remember", "--subject", "user", "--predicate", "drives",
        "--object", "a blue Volvo",
    )  # fmt: skip
    assert remembered.code == 0, remembered.err
    hits = service.ask("search", query="which car does the user drive")["result"]["results"]
    assert hits and "Volvo" in hits[0]["snippet"]
    line = hits[0]["startLine"]
    assert hits[0]["path"] == "knowledge-graph/facts.jsonl"
    opened = service.ask("get", path="knowledge-graph/facts.jsonl", **{"from": line, "lines": 1})
    assert json.loads(opened["result"]["text"])["id"] == hits[0]["id"]
    # The process keeps where each fact's line is while facts.jsonl is unchanged; a fact
    # remembered since is cited at its own line.
    more = cli("--action", "remember", "--subject", "user", "--predicate", "likes",
               "--object", "oolong tea")  # fmt: skip
    assert more.code == 0, more.err
    (tea,) = [
        hit
        for hit in service.ask("search", query="oolong tea")["result"]["results"]
        if "oolong" in hit["snippet"]
    ]
    assert tea["path"] == "knowledge-graph/facts.jsonl" and tea["startLine"] > line
    opened = service.ask(
        "get", path="knowledge-graph/facts.jsonl", **{"from": tea["startLine"], "lines": 1}
    )
    assert json.loads(opened["result"]["text"])["id"] == tea["id"]


def test_every_fault_is_a_one_line_error_and_the_process_answers_on(
    allergy_memory, served, data_dir
):
    before = data_files(data_dir)
    service = served()
    faults = {
        "not json": (service.ask(raw="{not json"), "invalid_input", "request is not JSON"),
        "not an object": (service.ask(raw="[1, 2]"), "invalid_input", "JSON object"),
        "unknown op": (service.ask("drop"), "usage", "'drop'"),
        "huge query": (service.ask("search", query="peanut " * 15_000), "invalid_input", "query"),
        "empty query": (service.ask("search", query="  "), "invalid_input", "query"),
        "query not text": (service.ask("search", query=7), "invalid_input", "query"),
        "no results": (
            service.ask("search", query="x", maxResults=0),
            "invalid_input",
            "maxResults",
        ),
        "bad floor": (service.ask("search", query="x", minScore=2), "invalid_input", "minScore"),
        "escape": (
            service.ask("get", path="../../etc/passwd"),
            "invalid_input",
            "../../etc/passwd",
        ),
        "absolute": (service.ask("get", path="/etc/passwd"), "invalid_input", "/etc/passwd"),
        "config": (service.ask("get", path="config.yaml"), "invalid_input", "config.yaml"),
        "missing": (service.ask("get", path="daily/1999-01-01.md"), "invalid_input", "1999-01-01"),
        "bad line": (service.ask("get", path="MEMORY.md", **{"from": -2}), "invalid_input", "from"),
    }
    for name, (answer, code, named) in faults.items():
        assert not answer["ok"], name
        error = answer["error"]
        assert error["code"] == code, (name, error)
        assert error["exit_code"] in (2, 3) and named in error["message"], (name, error)
        assert "\n" not in error["message"], name
    assert service.ask("ping")["ok"]
    assert service.close() == 0
    after = data_files(data_dir)
    assert after == before  # a refused request changes nothing on disk


def test_a_missing_data_directory_is_an_error_per_request_and_nothing_is_made(served, tmp_path):
    missing = tmp_path / "no-memory-here"
    service = served(missing)
    answer = service.ask("search", query="What am I allergic to?")
    assert not answer["ok"] and answer["error"]["code"] == "data_dir"
    assert str(missing) in answer["error"]["message"]
    assert not service.ask("get", path="MEMORY.md")["ok"]
    assert service.close() == 0
    assert not missing.exists()


def test_a_read_of_a_session_line_holding_a_secret_is_redacted(cli, data_dir, served):
    hash_embedder(cli)
    log = data_dir / "sessions" / "2026-05-14-100000.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    secret = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    log.write_text(
        json.dumps({"ts": "2026-05-14T10:00:00Z", "role": "user", "text": f"key {secret}"}) + "\n"
    )
    opened = served().ask("get", path="sessions/2026-05-14-100000.jsonl")
    assert opened["ok"] and secret not in opened["result"]["text"]
    assert "REDACTED" in opened["result"]["text"]


def test_a_bad_start_option_stops_the_process_with_its_exit_code(data_dir):
    started = subprocess.run(
        [str(ENTRYPOINT), "--data-path", str(data_dir), "--now", "yesterday", "--action", "serve"],
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert started.returncode == 2 and "--now" in started.stderr


def test_a_forget_is_previewed_then_done_and_refused_outside_the_owners_chat(
    allergy_memory, served, data_dir
):
    before = data_files(data_dir)
    service = served()
    group = "agent:main:telegram:group:-1001234567890"
    refused = {
        "group": service.ask("forget", query="peanuts", confirm=True, sessionKey=group),
        "not the owner": service.ask(
            "forget", query="peanuts", confirm=True, sessionKey="agent:main:main",
            senderIsOwner=False,
        ),
        "no owner signal": service.ask(
            "forget", query="peanuts", confirm=True, sessionKey="agent:main:main"
        ),
        "confirm not bool": service.ask("forget", query="peanuts", confirm="yes"),
        "ids not a list": service.ask("forget", ids="fact-1", confirm=True),
        "no selector": service.ask("forget", confirm=True),
        "two selectors": service.ask("forget", query="peanuts", sender="Maya", confirm=True),
    }  # fmt: skip
    named = {
        "group": "sessionKey",
        "not the owner": "senderIsOwner",
        "no owner signal": "senderIsOwner",
        "confirm not bool": "confirm",
        "ids not a list": "ids",
        "no selector": "selector",
        "two selectors": "--sender",
    }
    for name, answer in refused.items():
        assert not answer["ok"], name
        assert answer["error"]["code"] in ("invalid_input", "usage"), (name, answer)
        assert named[name] in answer["error"]["message"], (name, answer)
        assert "\n" not in answer["error"]["message"]
    preview = service.ask(
        "forget", query="peanuts", sessionKey="agent:main:main", senderIsOwner=True
    )
    assert preview["ok"] and preview["result"]["dry_run"] is True, preview
    assert any("peanuts" in fact["text"] for fact in preview["result"]["facts"])
    assert preview["result"]["forget"] is None
    assert data_files(data_dir) == before  # refusals and a preview change nothing

    done = service.ask(
        "forget", query="peanuts", confirm=True, sessionKey="agent:main:main", senderIsOwner=True
    )
    assert done["ok"] and done["result"]["dry_run"] is False, done
    assert done["result"]["forget"].startswith("fg-")
    assert [fact["id"] for fact in done["result"]["facts"]] == [
        fact["id"] for fact in preview["result"]["facts"]
    ]
    found = service.ask("search", query="What am I allergic to? peanuts")["result"]["results"]
    assert not any("peanut" in hit["snippet"] for hit in found), found
    stays = service.ask("search", query="Where does Maya live?")["result"]["results"]
    assert any("Porto" in hit["snippet"] for hit in stays)  # what was not asked for stays
    assert service.close() == 0
