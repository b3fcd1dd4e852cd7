"""Live learning through the OpenClaw plugin: seconds from a turn's end to being found by
memory_search, and what learning a turn costs beside one pass of the bundled model over its
text, in one run.

Turns of LongMemEval dev conversations (a person talking with an assistant) are written, one
exchange at a time, to an OpenClaw transcript database as OpenClaw writes it; after each,
the plugin's agent_end hook runs (plugin_driver.mjs: the plugin's own code, run by Node as
OpenClaw's host runs it); once the learn it started is done (a search before cannot find
the turn), memory_search is asked for the person's first words, every --poll-ms, until a
result cites the exchange (a fact learned from it, or what was said, citing its line): the
seconds from the hook to that answer are the turn's time to be found. (Searching all along
instead would time the searches' own load: each boosts what it finds, under the lock.) The
memory starts with --preload earlier sessions of the same person already learned
(summarize and index), as a memory in use does. Beside it, in the same process and run, the
bundled model embeds each exchange's text once: a learn's own time (import, extraction,
episodes, the day's summary, the indexes, the lock and the writes) over that pass is the
learning cost. Goals: p50 at most 2 s and p95 at most 5 s to be found; a learn at most 1.5
times one model pass.

    .venv/bin/python benchmarks/live_learning.py [--turns 60] [--preload 10] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from plugin_search import DRIVER, node, percentile  # noqa: E402
from vm_memory_oracle.clock import format_iso  # noqa: E402
from vm_memory_oracle.config import Settings  # noqa: E402
from vm_memory_oracle.embed.bundled import BundledEmbedder  # noqa: E402
from vm_memory_oracle.memory import Memory  # noqa: E402
from vm_memory_oracle.storage.layout import Layout  # noqa: E402

from longmemeval import load_dataset, parse_date, write_haystack  # noqa: E402
from results import machine, record  # noqa: E402

BUNDLE = Path(__file__).resolve().parents[1]
GOAL_P50_S = 2.0
GOAL_P95_S = 5.0
GOAL_COST = 1.5
ASKED_WORDS = 12  # of the person's words, searched for
DEFAULT_QUESTION = "0977f2af"  # the haystack ingest_speed.py times


def exchanges(question: dict, sessions: dict, skip: int, count: int) -> list[dict]:
    """`count` exchanges (a person's turn and the assistant's answer) of the question's
    haystack, from its session `skip` on, each with its session id and date."""
    found: list[dict] = []
    pairs = list(zip(question["haystack_session_ids"], question["haystack_dates"]))[skip:]
    for session, date in pairs:
        turns = sessions[session]
        for first in range(0, len(turns) - 1, 2):
            user, assistant = turns[first], turns[first + 1]
            if user["role"] != "user" or assistant["role"] != "assistant":
                continue
            found.append({"session": session, "date": date, "user": user, "assistant": assistant})
            if len(found) == count:
                return found
    return found


def cited(turn: dict, place: int) -> list[str]:
    """The citations of a result learned from the exchange: the lines of its session's copy
    in sessions/ that hold the person's turn and the answer (the exchange is the session's
    `place`-th fed, 0 first; a copy is named after its first turn's time, and every turn
    of a LongMemEval session has the session's)."""
    name = parse_date(turn["date"]).strftime("%Y-%m-%d-%H%M%S") + ".jsonl"
    return [f"sessions/{name}#L{2 * place + 1}", f"sessions/{name}#L{2 * place + 2}"]


def asked(text: str) -> str:
    """The search for an exchange: the person's first words, as a person would ask (a
    query of a whole turn costs the search process a long embedding at every poll)."""
    return " ".join(text.split()[:ASKED_WORDS])


def preload(question: dict, sessions: dict, data: Path, count: int) -> float:
    """The question's first `count` sessions learned and indexed, as earlier days are."""
    layout = Layout(data)
    settings = Settings(lock_timeout_seconds=60)
    Memory.open(data, settings).init()
    trimmed = {
        **question,
        "haystack_session_ids": question["haystack_session_ids"][:count],
        "haystack_dates": question["haystack_dates"][:count],
        "answer_session_ids": [],
    }
    if not count:
        return 0.0
    write_haystack(trimmed, sessions, layout.sessions_dir)
    now = parse_date(trimmed["haystack_dates"][-1])
    begun = time.perf_counter()
    memory = Memory.open(data, settings, now=now)
    memory.summarize(all_pending=True)
    memory.indexes()
    return time.perf_counter() - begun


def event(role: str, text: str, date: str) -> dict:
    stamp = parse_date(date).strftime("%Y-%m-%dT%H:%M:%SZ")
    content = text if role == "user" else [{"type": "text", "text": text}]
    return {"type": "message", "timestamp": stamp, "message": {"role": role, "content": content}}


def through_plugin(data: Path, state: Path, turns: list[dict], poll_ms: int, now: str) -> dict:
    """Each exchange written to the transcript, its turn end heard, then memory_search until
    a result quotes it; the driver's answers."""
    database = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    config = {"dataPath": str(data), "bundlePath": str(BUNDLE)}
    allowed = {"hooks": {"allowConversationAccess": True}}
    host = {"plugins": {"entries": {"vm-memory-oracle": allowed}}}
    steps: list[dict] = [{"tool": "memory_search", "params": {"query": "warm up"}}]
    fed: dict[str, int] = {}
    for turn in turns:
        place = fed[turn["session"]] = fed.get(turn["session"], -1) + 1
        said = turn["user"]["content"]
        steps += [
            {
                "transcript": {
                    "db": str(database),
                    "session": turn["session"],
                    "events": [
                        event("user", said, turn["date"]),
                        event("assistant", turn["assistant"]["content"], turn["date"]),
                    ],
                }
            },
            {
                "hook": "agent_end",
                "ctx": {"agentId": "main", "sessionId": turn["session"]},
                "stamped": True,
            },
            {"idle": True},  # the learn under way; a search before it ends cannot find it
            {
                "stamped": True,
                "until": {"tool": "memory_search", "params": {"query": asked(said)}},
                "contains": [f'"citation":"{line}"' for line in cited(turn, place)],
                "timeoutMs": 120_000,
                "everyMs": poll_ms,
            },
        ]
    steps.append({"idle": True})
    script = state.parent / "steps.json"
    script.write_text(json.dumps(steps))
    done = subprocess.run(
        [node(), str(DRIVER), json.dumps(config), f"@{script}", json.dumps(host)],
        capture_output=True,
        text=True,
        env={**os.environ, "MEMORY_ORACLE_NOW": now, "OPENCLAW_STATE_DIR": str(state)},
        timeout=7200,
    )
    if done.returncode != 0:
        raise SystemExit(f"Error: the plugin driver failed: {done.stderr.strip()[-2000:]}")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    ended, found = answers[2:-1:4], answers[4:-1:4]
    for end, answer in zip(ended, found):
        answer["ms"] = answer["at"] - end["at"]  # from the hook's return to the answer
    return {"found": found, "learned": answers[-1]["learned"]}


def model_passes(turns: list[dict]) -> list[float]:
    """Seconds of one pass of the bundled model over each exchange's text."""
    embedder = BundledEmbedder()
    embedder.embed_passages(["warm up the model"])
    seconds = []
    for turn in turns:
        begun = time.perf_counter()
        embedder.embed_passages([turn["user"]["content"], turn["assistant"]["content"]])
        seconds.append(time.perf_counter() - begun)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--question", default=DEFAULT_QUESTION, help="whose haystack is replayed")
    parser.add_argument("--turns", type=int, default=60, help="exchanges fed through the hook")
    parser.add_argument("--preload", type=int, default=10, help="sessions learned before")
    parser.add_argument("--poll-ms", type=int, default=200, help="how often memory_search asks")
    parser.add_argument("--workdir", type=Path, help="where the memory is made (kept)")
    args = parser.parse_args(argv)
    dataset = load_dataset()
    question = next(q for q in dataset["questions"] if q["question_id"] == args.question)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="live-learning-"))
    data, state = workdir / "memory", workdir / "openclaw-state"
    state.mkdir(parents=True, exist_ok=True)
    preloaded = preload(question, dataset["sessions"], data, args.preload)
    turns = [
        turn
        for turn in exchanges(question, dataset["sessions"], args.preload, args.turns * 2)
        if len(turn["user"]["content"].split()) >= 3  # a person's words to search for
    ][: args.turns]
    now = format_iso(parse_date(question["question_date"]))
    driven = through_plugin(data, state, turns, args.poll_ms, now)
    passes = model_passes(turns)
    found_s = [answer["ms"] / 1000 for answer in driven["found"]]
    learned = driven["learned"]
    learn_s = [answer["ms"] / 1000 for answer in learned]
    ratios = [learn / model for learn, model in zip(learn_s, passes)]
    figures = {
        "question": args.question,
        "preloaded_sessions": args.preload,
        "preload_s": round(preloaded, 1),
        "turns": len(turns),
        "found": sum(answer["found"] for answer in driven["found"]),
        "found_p50_s": round(statistics.median(found_s), 2),
        "found_p95_s": round(percentile(found_s, 0.95), 2),
        "found_max_s": round(max(found_s), 2),
        "learns": len(learned),  # many turns heard while one learns make one learn
        "learn_p50_s": round(statistics.median(learn_s), 3),
        "model_pass_p50_s": round(statistics.median(passes), 3),
        "cost_p50": round(statistics.median(ratios), 2) if ratios else None,
        "cost_total": round(sum(learn_s) / sum(passes[: len(learn_s)]), 2),
        "goals": {"found_p50_s": GOAL_P50_S, "found_p95_s": GOAL_P95_S, "cost": GOAL_COST},
        "machine": machine(),
    }
    figures["each"] = [
        {"found": answer["found"], "s": round(answer["ms"] / 1000, 2), "tries": answer["tries"]}
        for answer in driven["found"]
    ]
    path = record(f"live_learning-{len(turns)}", figures)
    print(
        f"{figures['turns']} turns ended, {figures['found']} found by memory_search: "
        f"p50 {figures['found_p50_s']} s, p95 {figures['found_p95_s']} s, max "
        f"{figures['found_max_s']} s (goals {GOAL_P50_S} s, {GOAL_P95_S} s); a learn "
        f"{figures['learn_p50_s']} s p50 against one model pass {figures['model_pass_p50_s']} s: "
        f"{figures['cost_p50']}x p50, {figures['cost_total']}x in all (goal {GOAL_COST}x) ({path})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
