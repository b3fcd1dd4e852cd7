"""Live learning through the long-lived process: `learn` (what the OpenClaw plugin sends when
a turn ends) copies the agent's new transcript rows into sessions/ and learns them as
summarize does, indexes included, so that the next search finds them; every turn is
learned once, whether live, by the nightly summarize, or both; and each bad input or fault
leaves the memory whole. Real SQLite transcripts, the real entrypoint, real locks."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from test_openclaw_state import Transcript
from test_serve import Served
from vm_memory_oracle.storage.sessions import MAX_TURN_CHARS

from conftest import BUNDLE, NOW, data_files


@pytest.fixture
def state(tmp_path) -> Path:
    path = tmp_path / "openclaw-state"
    path.mkdir()
    return path


@pytest.fixture
def memory(cli, data_dir):
    """A memory with the hashing embedder, not connected to OpenClaw in its config: the
    plugin names the state directory in each learn."""
    assert cli("--action", "init").code == 0
    assert cli("--action", "config", "--set", "embedding_model=hash").code == 0
    return data_dir


@pytest.fixture
def served(memory):
    running: list[Served] = []

    def start(*extra: str) -> Served:
        running.append(Served(memory, *extra))
        return running[-1]

    yield start
    for service in running:
        if service.process.poll() is None:
            service.process.kill()
            service.process.wait()


def facts_of(data_dir: Path) -> list[dict]:
    path = data_dir / "knowledge-graph" / "facts.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def copied_lines(data_dir: Path) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((data_dir / "sessions").glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]


def learn(service: Served, state: Path, agent: str = "main", session: str = "s1") -> dict:
    answer = service.ask("learn", agent=agent, session=session, stateDir=str(state))
    assert answer["ok"], answer
    return answer["result"]


def search(service: Served, query: str) -> list[dict]:
    answer = service.ask("search", query=query, maxResults=3)
    assert answer["ok"], answer
    return answer["result"]["results"]


def test_a_turn_is_found_by_the_next_search_once_learned_and_learned_once(
    served, state, memory, cli
):
    transcript = Transcript(state)
    said = transcript.user("s1", "By the way, I'm severely allergic to peanuts.")
    transcript.assistant("s1", [{"type": "text", "text": "Noted, no peanuts."}])
    searcher, learner = served(), served()
    assert search(searcher, "What am I allergic to?") == []  # the process is up, and blind

    learned = learn(learner, state)
    assert learned["importedTurns"] == 2 and learned["added"] >= 1
    assert learned["days"] == ["2026-05-15"]
    top = search(searcher, "What am I allergic to?")[0]  # the other process sees it at once
    assert "peanuts" in top["snippet"]

    again = learn(learner, state)
    assert again["importedTurns"] == 0 and again["added"] == 0 and again["episodes"] == 0
    before = data_files(memory, exclude=("audit.jsonl",))
    nightly = cli("--json", "--action", "summarize", "--all").json()
    assert nightly["imported_turns"] == 0 and nightly["added"] == 0
    assert nightly["reinforced"] == 0 and nightly["episodes"] == 0
    assert data_files(memory, exclude=("audit.jsonl",)) == before  # nothing doubled
    peanuts = [fact for fact in facts_of(memory) if "peanut" in fact["object"]]
    assert len(peanuts) == 1
    assert peanuts[0]["sources"] == [f"openclaw:main/s1#{said}"]
    assert [line["text"] for line in copied_lines(memory)].count(
        "By the way, I'm severely allergic to peanuts."
    ) == 1


def test_a_turn_the_live_path_missed_is_learned_by_the_nightly_summarize(
    served, state, memory, cli
):
    transcript = Transcript(state)
    transcript.user("s1", "I live in Porto.")
    learn(served(), state)
    transcript.user("s1", "I drive a red car.", minute=3)  # its turn end was never heard
    assert cli("--action", "config", "--set", f"openclaw_state_dir={state}").code == 0
    nightly = cli("--json", "--action", "summarize", "--all").json()
    assert nightly["imported_turns"] == 1 and nightly["added"] >= 1
    texts = [line["text"] for line in copied_lines(memory)]
    assert texts == ["I live in Porto.", "I drive a red car."]


def test_the_state_directory_spelled_another_way_copies_nothing_twice(
    served, state, memory, cli, tmp_path
):
    transcript = Transcript(state)
    transcript.user("s1", "I live in Porto.")
    link = tmp_path / "linked-state"
    link.symlink_to(state)
    learn(served(), Path(f"{link}/"))  # the plugin's spelling
    # The nightly run's spelling, in the memory's config, reads the same database.
    assert cli("--action", "config", "--set", f"openclaw_state_dir={state}").code == 0
    assert cli("--json", "--action", "summarize", "--all").json()["imported_turns"] == 0
    assert [line["text"] for line in copied_lines(memory)] == ["I live in Porto."]


def test_each_agent_learns_its_own_turns_attributed_as_summarize_attributes_them(
    served, state, memory
):
    Transcript(state, "main").user("s1", "My sister Ana lives in Madrid.")
    Transcript(state, "work").user("w1", "The team deploys on Fridays.", minute=2)
    learner = served()
    first = learn(learner, state, agent="work", session="w1")
    assert first["importedTurns"] == 1
    assert [line["origin"] for line in copied_lines(memory)] == ["openclaw:work/w1#0"]
    learn(learner, state, agent="main")
    origins = sorted(line["origin"] for line in copied_lines(memory))
    assert origins == ["openclaw:main/s1#0", "openclaw:work/w1#0"]
    by_origin = {fact["sources"][0]: fact for fact in facts_of(memory)}
    assert "Madrid" in by_origin["openclaw:main/s1#0"]["object"]


def test_a_secret_in_a_turn_is_redacted_before_anything_is_written(served, state, memory):
    secret = "sk-abcdefghijklmnopqrstuvwx1234"
    Transcript(state).user("s1", f"My api key is {secret}, and I prefer tea.")
    learner = served()
    learn(learner, state)
    assert "[REDACTED:openai-key]" in copied_lines(memory)[0]["text"]
    assert not [
        name for name, data in data_files(memory).items() if secret.encode() in data
    ]  # not in a copy, a fact, an episode, an index or the audit log


def test_a_turn_of_a_megabyte_is_learned_within_summarizes_bounds(served, state, memory):
    pasted = "I prefer green tea in the morning. " + ("The log line repeats itself. " * 35_000)
    assert len(pasted.encode()) > 1_000_000
    Transcript(state).user("s1", [{"type": "text", "text": pasted}])
    learner = served()
    begun = time.monotonic()
    learned = learn(learner, state)
    assert learned["importedTurns"] == 1
    assert time.monotonic() - begun < 300  # bounded work, not a hang (a guard, not a goal)
    [cut] = [warning for warning in learned["warnings"] if "characters, the first" in warning]
    assert "openclaw:main/s1#0" in cut and "the first 100,000 kept" in cut
    [copied] = copied_lines(memory)
    assert len(copied["text"]) == MAX_TURN_CHARS  # the schema's bound on a turn
    assert "green tea" in search(learner, "green tea in the morning")[0]["snippet"]


def test_the_bound_on_a_copied_turn_is_the_session_schemas():
    schema = BUNDLE / "skill/vm_memory_oracle/storage/schemas/session-turn.schema.json"
    text = json.loads(schema.read_text())["properties"]["text"]
    assert text["maxLength"] == MAX_TURN_CHARS


def test_a_turn_without_text_is_no_turn_and_no_fault(served, state, memory):
    transcript = Transcript(state)
    transcript.user("s1", [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}])
    transcript.add(
        "s1",
        {
            "type": "message",
            "message": {
                "role": "toolResult",
                "toolCallId": "c1",
                "content": [{"type": "text", "text": "total 0"}],
            },
        },
    )
    learned = learn(served(), state)
    assert learned["importedTurns"] == 0 and learned["turns"] == 0
    assert facts_of(memory) == [] and copied_lines(memory) == []


def test_bad_learn_requests_are_one_line_errors_and_change_nothing(served, state, memory):
    Transcript(state).user("s1", "I live in Porto.")
    learner = served()
    before = data_files(memory)
    for fields, wanted in (
        ({"session": "s1", "stateDir": str(state)}, "agent must be an OpenClaw id"),
        ({"agent": "../x", "stateDir": str(state)}, "agent must be an OpenClaw id"),
        ({"agent": "main"}, "learn needs OpenClaw's state directory"),
    ):
        answer = learner.ask("learn", **fields)
        assert not answer["ok"] and wanted in answer["error"]["message"], answer
        assert "\n" not in answer["error"]["message"]
    missing = learner.ask("learn", agent="main", stateDir=str(state / "nowhere"))
    assert missing["ok"]  # a state directory that is gone is a warning, as for summarize
    assert any("state directory not found" in w for w in missing["result"]["warnings"])
    assert data_files(memory, exclude=("audit.jsonl",)) == {
        name: data for name, data in before.items() if name != "state/audit.jsonl"
    }


def test_a_learn_waits_for_the_lock_and_a_caller_that_left_is_still_learned_for(state, memory, cli):
    """The memory locked by a consolidation: the learn waits for the lock (here longer than
    its timeout: a lock_timeout answer, nothing written, learned by the next learn). A
    caller whose process ended before the answer (OpenClaw run as a command) still has its
    learn done."""
    from vm_memory_oracle.storage.layout import Layout
    from vm_memory_oracle.storage.store import Store

    assert cli("--action", "config", "--set", "lock_timeout_seconds=1").code == 0
    transcript = Transcript(state)
    transcript.user("s1", "I live in Porto.")
    learner = Served(memory)
    try:
        with Store(Layout(memory), lock_timeout=5, timestamp=NOW).locked("consolidate"):
            refused = learner.ask("learn", agent="main", stateDir=str(state))
            assert not refused["ok"] and refused["error"]["code"] == "lock_timeout"
            assert copied_lines(memory) == []
        assert learn(learner, state)["importedTurns"] == 1
    finally:
        learner.close()

    transcript.user("s1", "I drive a red car.", minute=4)
    gone = Served(memory)
    assert gone.process.stdin is not None and gone.process.stdout is not None
    gone.process.stdout.close()  # the caller went away before any answer
    gone.process.stdin.write(json.dumps({"id": 1, "op": "learn", "agent": "main",
                                         "stateDir": str(state)}) + "\n")  # fmt: skip
    gone.process.stdin.close()
    assert gone.process.wait(timeout=120) == 0
    assert [line["text"] for line in copied_lines(memory)] == [
        "I live in Porto.",
        "I drive a red car.",
    ]
    assert any("red car" in fact["object"] for fact in facts_of(memory))


def test_the_serve_entrypoint_learns_with_the_real_lock_held_by_another_process(state, memory):
    """Two learners of one memory at once (two OpenClaw processes): each turn copied and
    learned once."""
    transcript = Transcript(state)
    for minute in range(6):
        transcript.user("s1", f"Fact number {minute}: I own {minute + 2} bicycles.", minute=minute)
    first, second = Served(memory), Served(memory)
    try:
        for service in (first, second):
            assert service.process.stdin is not None
            service.process.stdin.write(
                json.dumps({"id": 1, "op": "learn", "agent": "main", "stateDir": str(state)}) + "\n"
            )
            service.process.stdin.flush()
        answers = [json.loads(service.process.stdout.readline()) for service in (first, second)]
    finally:
        first.close(), second.close()
    assert all(answer["ok"] for answer in answers), answers
    assert sum(answer["result"]["importedTurns"] for answer in answers) == 6
    texts = [line["text"] for line in copied_lines(memory)]
    assert len(texts) == 6 and len(set(texts)) == 6
    sources = [fact["source"] for fact in facts_of(memory)]
    assert len(sources) == len(set(sources))


def test_summarize_agent_is_the_live_path_from_the_command_line(memory, state, cli):
    transcript = Transcript(state)
    transcript.user("s1", "I live in Porto.")
    before = data_files(memory)
    unconnected = cli("--action", "summarize", "--agent", "main")
    assert unconnected.code == 2 and "set openclaw_state_dir first" in unconnected.err
    assert cli("--action", "config", "--set", f"openclaw_state_dir={state}").code == 0
    bad = cli("--action", "summarize", "--agent", "../main")
    assert bad.code == 2 and "--agent must be an OpenClaw agent id" in bad.err
    assert {
        k: v for k, v in data_files(memory).items() if k not in ("config.yaml", "state/audit.jsonl")
    } == {k: v for k, v in before.items() if k not in ("config.yaml", "state/audit.jsonl")}
    learned = cli("--json", "--action", "summarize", "--agent", "main").json()
    assert learned["imported_turns"] == 1 and learned["added"] >= 1
    assert cli("--json", "--action", "recall", "--query", "Porto").json()["results"]
    assert "nothing new of agent main" in cli("--action", "summarize", "--agent", "main").out


def test_a_live_learn_is_one_commit_under_one_hold_of_the_lock(memory, state, cli, monkeypatch):
    """A turn learned live (summarize --agent, the plugin's learn from the command line)
    takes the store's lock once and writes one audit line naming every file it changed:
    the copy of the turn, the import ledger, the facts, the episodes, the day's summary, the
    summarize ledger and the derived indexes, brought in step in the same commit."""
    from vm_memory_oracle.storage import locks, store

    transcript = Transcript(state)
    transcript.user("s1", "I live in Porto and I keep three beehives.")
    assert cli("--action", "config", "--set", f"openclaw_state_dir={state}").code == 0
    audit = memory / "state" / "audit.jsonl"
    before = audit.read_text().splitlines()
    holds: list[str] = []
    real = locks.exclusive

    def counted(lock_path, timeout, purpose, **options):
        holds.append(purpose)
        return real(lock_path, timeout, purpose, **options)

    monkeypatch.setattr(store.locks, "exclusive", counted)
    learned = cli("--json", "--action", "summarize", "--agent", "main").json()
    assert learned["imported_turns"] == 1 and learned["added"] >= 1
    assert holds == ["learn"]
    (line,) = [json.loads(text) for text in audit.read_text().splitlines()[len(before) :]]
    assert line["step"] == "learn" and line["action"] == "summarize"
    files = set(line["files"])
    (copy,) = [name for name in files if name.startswith("sessions/")]
    assert {
        "state/imports.json",
        "knowledge-graph/facts.jsonl",
        "state/summarized.json",
        "daily/2026-05-15.md",
    } <= files, files
    assert any(name.startswith("episodes/") for name in files), files
    assert {"embeddings/index.bin", "state/cache/text-index"} <= files, files
    for said in ("imported 1 OpenClaw turn(s)", "wrote the daily summary", "vector index"):
        assert said in line["change"], line["change"]
    assert copy in learned["imported"][0]
