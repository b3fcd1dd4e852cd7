"""A forget racing the learners: forgets by `--query` and by `--session` run again and again
while live learning (`summarize --agent`), `summarize --all` and `consolidate` run beside
them, each command a process of its own on the same data directory, and new turns keep
arriving in an OpenClaw transcript database and in a session log the agent writes: new
statements of the owner's, a secret to forget in each round, and the words of those
forgotten back in every way (their very transcript rows and log line copied again, another
sender repeating them), before their forget too. Once the learners have caught up, nothing
else is lost and nothing forgotten is back: every kept and every new statement is
recalled, no forgotten word is recalled or kept anywhere but in the archive (and its
snapshot), nothing is left to read again, every file is valid, and no forget is left half
done. Real SQLite transcripts, real files and locks, the hashing embedder."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_openclaw_state import Transcript

from conftest import recall_results

SALARY = "My salary is 185,000 dollars a year, paid by the harbour authority."
# Told in OpenClaw sessions of their own (private-0, private-1, ...), each forgotten in its
# turn by --session (even) or by --query (odd).
THERAPISTS = ["Quinlan", "Okonkwo", "Lindqvist", "Moreau"]
FORGOTTEN_WORDS = ("185,000", "salary", "therapist", *THERAPISTS)
ARCHIVE = "knowledge-graph/archived-facts.jsonl"
ARCHIVE_CACHE = "state/cache/knowledge-graph__archived-facts.jsonl.marshal"
LOG = "2026-05-15-080000.jsonl"  # a session log the agent writes itself
BOB = {"origin": "untrusted", "chat": "group", "sender": "Bob"}

# What the owner said before the race, and keeps: (the statement, a word recall finds it by).
KEPT_IN_TRANSCRIPT = [
    ("I live in Porto, near the old cathedral.", "Porto"),
    ("I keep three beehives in the back garden.", "beehives"),
    ("I play the cello every Sunday morning.", "cello"),
    ("My sister Maya teaches chemistry in Braga.", "Maya"),
    ("I drive an old red Volvo estate.", "Volvo"),
]
KEPT_IN_LOG = [
    ("I am allergic to peanuts and to penicillin.", "penicillin"),
    ("My dog is a greyhound called Pixel.", "greyhound"),
    ("I work as a structural engineer on bridges.", "engineer"),
]
# What the owner says during the race, in the transcript and the log.
NEW = [
    ("I collect antique typewriters.", "typewriters"),
    ("My neighbour Ingrid breeds alpacas.", "alpacas"),
    ("I am learning to play the bagpipes.", "bagpipes"),
    ("My favourite dessert is pistachio gelato.", "pistachio"),
    ("I swim in the Douro river every summer.", "Douro"),
    ("My brother Tomas repairs vintage motorcycles.", "motorcycles"),
    ("I grow saffron crocuses on the balcony.", "saffron"),
    ("I bake sourdough bread on Saturdays.", "sourdough"),
]
LIVE = ("--action", "summarize", "--agent", "main")
NIGHTLY = ("--action", "summarize", "--all")
ROUND_SECONDS = 60  # a round's session not forgotten by then: the test fails


def therapist(number: int) -> str:
    return f"My therapist is Doctor {THERAPISTS[number]} and I see her every Tuesday evening."


def said_in(text: str, minute: int) -> dict:
    """A transcript event of the owner's, as Transcript.user writes it."""
    return {
        "type": "message",
        "timestamp": f"2026-05-15T13:{minute:02d}:00Z",
        "message": {"role": "user", "content": text},
    }


@pytest.fixture
def state(tmp_path) -> Path:
    path = tmp_path / "openclaw-state"
    path.mkdir()
    return path


def command(data_dir: Path, *args: str, now: str) -> subprocess.CompletedProcess:
    """One run of the tool as its own process (python -m vm_memory_oracle)."""
    return subprocess.run(
        [sys.executable, "-m", "vm_memory_oracle", "--data-path", str(data_dir), "--now", now]
        + list(args),
        capture_output=True,
        text=True,
        timeout=300,
    )


def holding(data_dir: Path, words=FORGOTTEN_WORDS) -> set[str]:
    """The files of the data directory holding any of `words` (grep -r)."""
    return {
        path.relative_to(data_dir).as_posix()
        for path in data_dir.rglob("*")
        if path.is_file() and any(word.encode() in path.read_bytes() for word in words)
    }


def recalled(cli, query: str) -> str:
    return json.dumps(recall_results(cli, query, now="2026-05-16T12:00:00Z"))


class Race:
    """Commands run by threads, each command a process, until the race is over; every
    run kept (its arguments and what it did)."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self.over = threading.Event()
        self.clock = itertools.count()
        self.runs: list[tuple[tuple[str, ...], subprocess.CompletedProcess]] = []
        self.begun: dict[tuple[str, ...], list[float]] = {}  # when each run of each began
        self.ended: dict[tuple[str, ...], float] = {}  # when the last run of each ended
        self.threads: list[threading.Thread] = []

    def run(self, *args: str) -> subprocess.CompletedProcess:
        second = next(self.clock)  # a moment of its own (a forget's id is made of it)
        self.begun.setdefault(args, []).append(time.monotonic())
        done = command(
            self.data_dir, *args, now=f"2026-05-15T15:{second // 60:02d}:{second % 60:02d}Z"
        )
        self.runs.append((args, done))
        self.ended[args] = time.monotonic()
        return done

    def caught_up(self, since: float, *commands: tuple[str, ...]) -> bool:
        """Whether each of `commands` has run whole since `since`."""
        return all(
            any(
                since <= begun <= self.ended.get(args, since - 1)
                for begun in self.begun.get(args, ())
            )
            for args in commands
        )

    def start(self, work) -> None:
        self.threads.append(threading.Thread(target=work))
        self.threads[-1].start()

    def loop(self, *commands: tuple[str, ...]) -> None:
        def work() -> None:
            for args in itertools.cycle(commands):
                if self.over.is_set():
                    return
                self.run(*args)

        self.start(work)

    def finish(self) -> None:
        self.over.set()
        for thread in self.threads:
            thread.join(timeout=600)


@pytest.mark.slow
def test_a_forget_racing_the_learners_loses_nothing_else_and_lets_nothing_back(
    cli, data_dir, state
):
    assert cli("--action", "init").code == 0
    for setting in (
        "embedding_model=hash",
        f"openclaw_state_dir={state}",
        "lock_timeout_seconds=120",
    ):
        assert cli("--action", "config", "--set", setting).code == 0
    transcript = Transcript(state)
    for minute, (text, _) in enumerate(KEPT_IN_TRANSCRIPT[:3]):
        transcript.user("s1", text, minute=minute)
    transcript.user("s1", SALARY, minute=3)
    for minute, (text, _) in enumerate(KEPT_IN_TRANSCRIPT[3:], start=4):
        transcript.user("s1", text, minute=minute)
    transcript.user("private-0", therapist(0), minute=10)
    log = data_dir / "sessions" / LOG
    log.write_text(
        "".join(
            json.dumps({"ts": f"2026-05-15T08:0{n}:00Z", "role": "user", "text": text}) + "\n"
            for n, (text, _) in enumerate(KEPT_IN_LOG)
        )
    )
    assert cli("--action", "summarize", "--all").code == 0
    for text, word in [*KEPT_IN_TRANSCRIPT, *KEPT_IN_LOG]:
        assert word in recalled(cli, word), text
    assert "185,000" in recalled(cli, "what is my salary")
    assert "Quinlan" in recalled(cli, "therapist Quinlan")
    (copied,) = [
        line
        for path in sorted((data_dir / "sessions").glob("*.jsonl"))
        for line in path.read_text().splitlines()
        if json.loads(line)["text"] == SALARY
    ]

    def append(record: dict) -> None:
        with log.open("a") as handle:
            handle.write(json.dumps(record) + "\n")

    said_at = itertools.count()

    def bob(text: str) -> None:
        """Bob, in a group chat of the agent's, repeating `text` (each at a second of its
        own)."""
        second = next(said_at)
        at = f"2026-05-15T09:{second // 60:02d}:{second % 60:02d}Z"
        said = f"Guess what Bob heard: {text}"
        append({"ts": at, "role": "user", "text": said, "speaker": "Bob", "provenance": BOB})

    # Said before the race and not learned yet: the first learners read them while the
    # first forget runs.
    transcript.add("s1", said_in(SALARY, 3))  # the very row, again
    (data_dir / "sessions" / "2026-05-16-090000.jsonl").write_text(copied + "\n")
    bob(SALARY)

    race = Race(data_dir)
    forgotten = [threading.Event() for _ in THERAPISTS]

    def selector(number: int) -> list[str]:
        if number % 2:
            return ["--query", THERAPISTS[number]]
        return ["--session", f"private-{number}"]

    def took_the_owners(run: subprocess.CompletedProcess) -> bool:
        """Whether a forget took the owner's turn (not only Bob's, in the agent's log)."""
        taken = json.loads(run.stdout)["turns"] if run.returncode == 0 else []
        return any(not turn.startswith(f"sessions/{LOG}:") for turn in taken)

    def forgetting() -> None:
        """The salary forgotten by query, then each therapist in turn (again and again
        until a learner has copied the owner's words and the forget takes them), then
        forgets of both kinds until the race is over."""
        race.run("--action", "forget", "--query", "salary", "--yes")
        for number, event in enumerate(forgotten):
            given_up = time.monotonic() + ROUND_SECONDS
            forget = ["--json", "--action", "forget", *selector(number), "--yes"]
            while not took_the_owners(race.run(*forget)):
                if time.monotonic() > given_up:
                    return
            event.set()
        while not race.over.is_set():
            race.run("--action", "forget", "--query", "salary", "--yes")
            race.run("--action", "forget", *selector(len(THERAPISTS) - 1), "--yes")

    race.loop(LIVE)
    race.loop(NIGHTLY, ("--action", "consolidate"))
    race.start(forgetting)
    try:
        # The agent, the owner and Bob talk meanwhile: new statements, a therapist to
        # forget, and the words of those forgotten back in every way, over and over while
        # a forget is awaited (Bob repeating one to be forgotten by query even before it
        # is; the very row of one to be forgotten by session).
        for number in range(len(THERAPISTS)):
            if number:
                transcript.user(f"private-{number}", therapist(number), minute=10 + number)
                first, second = NEW[2 * number - 2][0], NEW[2 * number - 1][0]
                transcript.user("s1", first, minute=20 + number)
                append({"ts": f"2026-05-15T08:{20 + number}:00Z", "role": "user", "text": second})
            given_up = time.monotonic() + ROUND_SECONDS
            while not forgotten[number].wait(0.1) and time.monotonic() < given_up:
                if number % 2:
                    bob(therapist(number))
                else:
                    transcript.add(f"private-{number}", said_in(therapist(number), 10 + number))
            assert forgotten[number].is_set(), number
            transcript.add(f"private-{number}", said_in(therapist(number), 10 + number))
            transcript.add("s1", said_in(SALARY, 3))
            (data_dir / "sessions" / f"2026-05-16-0900{number:02d}.jsonl").write_text(copied + "\n")
            bob(therapist(number))
            bob(SALARY)
        for text, _ in NEW[6:]:
            transcript.user("s1", text, minute=30)
        said_last = time.monotonic()
        given_up = said_last + ROUND_SECONDS
        while not race.caught_up(said_last, LIVE, NIGHTLY) and time.monotonic() < given_up:
            time.sleep(0.1)
    finally:
        race.finish()

    failed = [
        (args, run.returncode, run.stderr[-2000:]) for args, run in race.runs if run.returncode
    ]
    assert not failed, failed
    # The learners caught up with the last words said, forgetting or not: the nightly jobs
    # find nothing left to read (each log is, to its end, what the ledger says was read).
    nightly = cli("--json", "--action", "summarize", "--all", now="2026-05-16T03:00:00Z")
    assert nightly.code == 0, nightly.err
    assert nightly.json()["imported_turns"] == 0 and nightly.json()["turns"] == 0, nightly.out
    assert cli("--action", "consolidate", now="2026-05-16T03:00:00Z").code == 0

    for text, word in [*KEPT_IN_TRANSCRIPT, *KEPT_IN_LOG, *NEW]:
        assert word in recalled(cli, word), text
    for query in ("what is my salary", "185,000 dollars", "therapist", *THERAPISTS):
        found = recalled(cli, query)
        assert not any(word in found for word in FORGOTTEN_WORDS), (query, found)
    assert holding(data_dir) <= {ARCHIVE, ARCHIVE_CACHE}, holding(data_dir)

    from vm_memory_oracle.check import check

    assert check(data_dir) == []
    health = cli("--json", "--action", "health-check", now="2026-05-16T03:00:00Z")
    assert health.code == 0 and health.json()["problems"] == [], health.out
    assert not (data_dir / "state" / "forgetting.json").exists()
    assert not list(data_dir.rglob("*.quarantine.jsonl"))
