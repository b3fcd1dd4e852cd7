"""Retrieval on the LongMemEval-S development split through the real pipeline, beside raw-turn
baselines measured in the same run on the same turns.

Each question's haystack (about 50 dated sessions of a person talking with an assistant) is
its own memory: every session a session log dated by `haystack_dates` (turns 30 seconds
apart), summarized, indexed, then recalled (no boost) at `question_date` with k=10 and k=5.
A result cites a turn by its source (sessions/<file>:<line>). Per question type:
- turn recall@k: the share of the evidence turns (`has_answer`) the results cite;
- session any@k / all@k: some / every answer session is cited;
- characters of result text a query returns (k=10), and ingest seconds (summarize + index).
The baselines rank the haystack's raw turns themselves: BM25 (bm25s, tantivy's k1 and b,
over the project's tokens), the bundled e5 model (a turn's vector against the query's), and
the two fused by reciprocal rank (60). Run:
    .venv/bin/python benchmarks/longmemeval.py [--sample N] [--types a,b] [--json]
--sample N takes N questions spread evenly over the question types (the first of each type
in question-id order, then the second, ...); without it, the whole split. --sessions N cuts
each haystack to its answer sessions and the first N others, in their order (a tiny run).
--workdir keeps the memories and each question's row as it is done (rows.jsonl); --resume
then takes the rows made there by the same code and runs only the other questions (a
whole split takes hours: it may span several runs), and --reuse recalls the kept memories
again without ingesting (for trying a change to recall; no ingest seconds are reported).
The data is read from ../shared/data/longmemeval/ beside the bundle (or $LONGMEMEVAL_PATH)
and never copied into the repository.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "skill"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from lexical_engines import BM25_B, BM25_K1  # noqa: E402
from vm_memory_oracle.config import Settings  # noqa: E402
from vm_memory_oracle.memory import Memory  # noqa: E402
from vm_memory_oracle.model.text import tokens  # noqa: E402
from vm_memory_oracle.recall import Asked, recall_many  # noqa: E402
from vm_memory_oracle.storage.layout import Layout  # noqa: E402

import results  # noqa: E402

BUNDLE = Path(__file__).resolve().parents[1]
DEFAULT_PATH = BUNDLE.parent / "shared" / "data" / "longmemeval" / "longmemeval-s-dev.json.gz"
TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)
KS = (10, 5)
PIPELINE = "memory"
BASELINES = ("bm25 turns", "e5 turns", "bm25+e5 turns")
BASELINE_RRF_K = 60


def dataset_path() -> Path:
    return Path(os.environ.get("LONGMEMEVAL_PATH", DEFAULT_PATH))


def load_dataset(path: Path | None = None) -> dict:
    with gzip.open(path or dataset_path(), "rt", encoding="utf-8") as handle:
        return json.load(handle)


def parse_date(text: str) -> datetime:
    """'2023/05/28 (Sun) 19:47' as a UTC datetime."""
    day, _, clock = text.split(" ")
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M").replace(tzinfo=timezone.utc)


def sampled(questions: list[dict], count: int | None, types=TYPES) -> list[dict]:
    """`count` questions spread evenly over `types` (all of them without a count)."""
    by_type = {
        kind: sorted(
            (q for q in questions if q["question_type"] == kind), key=lambda q: q["question_id"]
        )
        for kind in types
    }
    if count is None:
        return [q for kind in types for q in by_type[kind]]
    chosen: list[dict] = []
    for rank in range(max(len(listed) for listed in by_type.values())):
        for kind in types:
            if rank < len(by_type[kind]) and len(chosen) < count:
                chosen.append(by_type[kind][rank])
    return chosen


@dataclass
class Haystack:
    """A question's sessions written as session logs, and where each turn landed."""

    turns: list[tuple[str, str]] = field(default_factory=list)  # (source, text) of each turn
    session_of: dict[str, str] = field(default_factory=dict)  # session log file -> session id
    evidence: set[str] = field(default_factory=set)  # sources of the has_answer turns


def haystack_sessions(question: dict, others: int | None = None) -> list[tuple[str, str]]:
    """(session id, date) of the question's haystack, in order; with `others`, only its
    answer sessions and the first `others` of the rest."""
    pairs = list(zip(question["haystack_session_ids"], question["haystack_dates"]))
    if others is None:
        return pairs
    answers = set(question["answer_session_ids"])
    kept = {session for session, _ in pairs if session not in answers}
    kept = set(sorted(kept, key=[session for session, _ in pairs].index)[:others])
    return [(session, date) for session, date in pairs if session in answers or session in kept]


def write_haystack(
    question: dict, sessions: dict, sessions_dir: Path, others: int | None = None
) -> Haystack:
    sessions_dir.mkdir(parents=True, exist_ok=True)
    haystack = Haystack()
    used: set[str] = set()
    for session_id, date in haystack_sessions(question, others):
        start = parse_date(date)
        name = start.strftime("%Y-%m-%d-%H%M%S") + ".jsonl"
        while name in used:
            start += timedelta(seconds=1)
            name = start.strftime("%Y-%m-%d-%H%M%S") + ".jsonl"
        used.add(name)
        haystack.session_of[name] = session_id
        lines = []
        for index, turn in enumerate(sessions[session_id]):
            moment = start + timedelta(seconds=30 * index)
            lines.append(
                json.dumps(
                    {
                        "ts": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
                        "role": turn["role"],
                        "text": turn["content"],
                    },
                    ensure_ascii=False,
                )
            )
            source = f"sessions/{name}:{index + 1}"
            haystack.turns.append((source, turn["content"]))
            if turn.get("has_answer"):
                haystack.evidence.add(source)
        (sessions_dir / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return haystack


@dataclass
class Scored:
    """What one ranker returned for one question at one k."""

    cited: list[str]  # sources, best first
    chars: int = 0


def scores(scored: Scored, haystack: Haystack, answer_sessions: set[str]) -> dict:
    cited = set(scored.cited)
    sessions = {haystack.session_of[source.split(":")[0][len("sessions/") :]] for source in cited}
    evidence = haystack.evidence
    return {
        "turn_recall": len(cited & evidence) / len(evidence) if evidence else None,
        "session_any": float(bool(sessions & answer_sessions)),
        "session_all": float(answer_sessions <= sessions),
        "chars": scored.chars,
    }


class TurnRankers:
    """The raw-turn baselines. Turn vectors are kept by text for the whole run: haystacks
    share sessions, and the baselines' cost is not what is measured."""

    def __init__(self, kept: Path | None = None):
        from vm_memory_oracle.embed.bundled import BundledEmbedder

        self.embedder = BundledEmbedder()
        self.kept = kept  # a file the vectors are kept in between runs, when given
        self.vectors: dict[str, np.ndarray] = self._stored()

    def _stored(self) -> dict[str, np.ndarray]:
        """The vectors in the kept file, by text; none when there is no file yet."""
        if self.kept is None or not self.kept.is_file():
            return {}
        with np.load(self.kept, allow_pickle=False) as stored:
            return dict(zip(stored["texts"].tolist(), stored["vectors"]))

    def keep(self) -> None:
        """Write the vectors to the kept file, with those other runs kept there meanwhile:
        runs sharing the file take turns (a lock beside it), each adding to what is there."""
        if self.kept is None or not self.vectors:
            return
        import fcntl

        self.kept.parent.mkdir(parents=True, exist_ok=True)
        with open(self.kept.with_name(f"{self.kept.name}.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            for text, vector in self._stored().items():
                self.vectors.setdefault(text, vector)
            texts = list(self.vectors)
            # Written beside it, then renamed into place: a reader never sees a part.
            partial = self.kept.with_name(f"{self.kept.name}.{os.getpid()}.partial.npz")
            vectors = np.vstack([self.vectors[text] for text in texts])
            np.savez(partial, texts=np.array(texts), vectors=vectors)
            partial.replace(self.kept)

    def rank(self, haystack: Haystack, query: str) -> dict[str, list[str]]:
        """Each baseline's turns (sources), best first."""
        import bm25s

        sources = [source for source, _ in haystack.turns]
        texts = [text for _, text in haystack.turns]
        model = bm25s.BM25(k1=BM25_K1, b=BM25_B, method="lucene", backend="numpy")
        model.index([tokens(text) or ["\u2205"] for text in texts], show_progress=False)
        vocabulary = model.vocab_dict
        wanted = [vocabulary[term] for term in dict.fromkeys(tokens(query)) if term in vocabulary]
        lexical = model.get_scores_from_ids(wanted) if wanted else np.zeros(len(texts))
        missing = [text for text in dict.fromkeys(texts) if text not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.embedder.embed_passages(missing)))
        matrix = np.vstack([self.vectors[text] for text in texts])
        semantic = matrix @ self.embedder.embed_queries([query])[0]
        orders = {
            "bm25 turns": [i for i in np.argsort(-lexical, kind="stable") if lexical[i] > 0],
            "e5 turns": list(np.argsort(-semantic, kind="stable")),
        }
        fused: dict[int, float] = defaultdict(float)
        for order in orders.values():
            for rank, number in enumerate(order):
                fused[number] += 1.0 / (BASELINE_RRF_K + rank + 1)
        orders["bm25+e5 turns"] = sorted(fused, key=lambda number: (-fused[number], number))
        return {name: [sources[number] for number in order] for name, order in orders.items()}


def run_question(
    question: dict,
    sessions: dict,
    workdir: Path,
    turns: TurnRankers,
    others: int | None = None,
    reuse: bool = False,
) -> dict:
    """One question's row. With `reuse`, a memory an earlier run made in `workdir` is
    recalled again as it is (no ingest, none timed): for trying a change to recall."""
    layout = Layout(workdir / question["question_id"])
    made = reuse and layout.episode_index_state.is_file()
    now = parse_date(question["question_date"])
    settings = Settings(lock_timeout_seconds=60)
    if made:
        with tempfile.TemporaryDirectory() as scratch:
            haystack = write_haystack(question, sessions, Path(scratch), others)
    else:
        if layout.root.exists():  # a run stopped midway: made again, from nothing
            shutil.rmtree(layout.root)
        Memory.open(layout.root, settings).init()
        haystack = write_haystack(question, sessions, layout.sessions_dir, others)
    memory = Memory.open(layout.root, settings, now=now)
    graph = memory.graph()
    started = time.perf_counter()
    if not made:
        memory.summarize(all_pending=True)
    indexes = memory.indexes()
    choice = indexes.choice
    ingest = None if made else time.perf_counter() - started
    answer_sessions = set(question["answer_session_ids"])
    text_of = dict(haystack.turns)
    baselines = turns.rank(haystack, question["question"])
    results_at = recall_many(
        graph,
        [Asked(question["question"], k) for k in KS],
        now,
        boost=False,
        indexes=indexes,
    )
    row: dict = {
        "question_id": question["question_id"],
        "type": question["question_type"],
        "turns": len(haystack.turns),
        "facts": sum(1 for fact in graph.facts() if fact.current),
        "ingest_s": None if ingest is None else round(ingest, 2),
        "fallback": choice.note,
    }
    for k, result in zip(KS, results_at):
        hits = result.hits
        recalled = Scored(
            [hit.source for hit in hits if hit.source.startswith("sessions/")],
            sum(len(hit.text) for hit in hits),
        )
        row[f"{PIPELINE}@{k}"] = scores(recalled, haystack, answer_sessions)
        for name, order in baselines.items():
            cited = order[:k]
            scored = Scored(cited, sum(len(text_of[source]) for source in cited))
            row[f"{name}@{k}"] = scores(scored, haystack, answer_sessions)
    return row


ROWS = "rows.jsonl"  # in --workdir: each question's row, written as it is done


def code_fingerprint() -> str:
    """A digest of the bundle's code and shipped weights: rows made by other code are not
    resumed."""
    import hashlib

    digest = hashlib.sha256()
    package = BUNDLE / "skill" / "vm_memory_oracle"
    for path in sorted([*package.rglob("*.py"), *package.rglob("*.json")]):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def keep_row(workdir: Path, row: dict) -> None:
    with (workdir / ROWS).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def kept_rows(workdir: Path, code: str, sessions: int | None) -> dict[str, dict]:
    """The rows an earlier run of this code (and haystack cut) kept in `workdir`, by question."""
    path = workdir / ROWS
    if not path.is_file():
        return {}
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.pop("code", None) == code and row.pop("sessions", None) == sessions:
            rows[row["question_id"]] = row
    return rows


def summary(rows: list[dict]) -> dict:
    """Per question type (and overall): each ranker's mean of each figure at each k."""
    table: dict = {}
    groups = defaultdict(list)
    for row in rows:
        groups[row["type"]].append(row)
    groups["all"] = rows
    for kind, members in groups.items():
        timed = [row["ingest_s"] for row in members if row["ingest_s"] is not None]
        entry: dict = {
            "questions": len(members),
            "ingest_s_mean": round(statistics.mean(timed), 2) if timed else None,
            "turns_mean": round(statistics.mean(row["turns"] for row in members), 1),
        }
        for name in (PIPELINE, *BASELINES):
            for k in KS:
                cells = [row[f"{name}@{k}"] for row in members]
                recalls = [cell["turn_recall"] for cell in cells if cell["turn_recall"] is not None]
                entry[f"{name}@{k}"] = {
                    "turn_recall": round(statistics.mean(recalls), 4) if recalls else None,
                    "session_any": round(statistics.mean(c["session_any"] for c in cells), 4),
                    "session_all": round(statistics.mean(c["session_all"] for c in cells), 4),
                    "chars_mean": round(statistics.mean(c["chars"] for c in cells), 1),
                    "chars_max": max(c["chars"] for c in cells),
                }
        table[kind] = entry
    return table


def render(table: dict) -> str:
    lines = []
    for kind, entry in table.items():
        ingest = entry["ingest_s_mean"]
        lines.append(
            f"\n{kind}: {entry['questions']} questions, {entry['turns_mean']:.0f} turns, "
            + ("memories reused" if ingest is None else f"ingest {ingest:.1f} s a haystack")
        )
        lines.append(
            f"  {'ranker':<16}{'turn@10':>9}{'turn@5':>9}{'any@10':>9}{'all@10':>9}"
            f"{'any@5':>8}{'chars@10':>10}"
        )
        for name in (PIPELINE, *BASELINES):
            at10, at5 = entry[f"{name}@10"], entry[f"{name}@5"]
            lines.append(
                f"  {name:<16}{at10['turn_recall'] or 0:>9.3f}{at5['turn_recall'] or 0:>9.3f}"
                f"{at10['session_any']:>9.3f}{at10['session_all']:>9.3f}"
                f"{at5['session_any']:>8.3f}{at10['chars_mean']:>10.0f}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, help="questions, spread evenly over the types")
    parser.add_argument("--types", help="question types to take (comma-separated)")
    parser.add_argument("--sessions", type=int, help="non-answer sessions kept a haystack")
    parser.add_argument("--workdir", type=Path, help="where the memories are made (kept)")
    parser.add_argument("--json", action="store_true", help="print the JSON, not the table")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="recall again the memories an earlier run made in --workdir (no ingest)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the rows an earlier run of the same code wrote in --workdir",
    )
    parser.add_argument(
        "--turn-vectors",
        type=Path,
        help="an .npz file keeping the raw-turn baseline's vectors between runs",
    )
    args = parser.parse_args(argv)
    types = tuple(args.types.split(",")) if args.types else TYPES
    unknown = [kind for kind in types if kind not in TYPES]
    if unknown:
        parser.error(f"unknown question types {unknown}; known: {', '.join(TYPES)}")
    for flag in ("reuse", "resume"):
        if getattr(args, flag) and args.workdir is None:
            parser.error(f"--{flag} needs the --workdir of an earlier run")
    if args.reuse and args.resume:
        parser.error("--reuse and --resume exclude each other")
    data = load_dataset()
    questions = sampled(data["questions"], args.sample, types)
    turns = TurnRankers(args.turn_vectors)
    rows = []
    code = code_fingerprint()
    with tempfile.TemporaryDirectory() as scratch:
        workdir = args.workdir or Path(scratch)
        done = kept_rows(workdir, code, args.sessions) if args.resume else {}
        for number, question in enumerate(questions, 1):
            row = done.get(question["question_id"])
            if row is None:
                row = run_question(
                    question, data["sessions"], workdir, turns, args.sessions, args.reuse
                )
                if args.workdir is not None and not args.reuse:
                    keep_row(workdir, {**row, "code": code, "sessions": args.sessions})
            if number % 10 == 0:
                turns.keep()
            rows.append(row)
            if not args.json:
                print(
                    f"[{number}/{len(questions)}] {row['type']} {row['question_id']}: "
                    f"{row['turns']} turns, {row['facts']} facts, ingest {row['ingest_s']} s; "
                    f"turn@10 memory {row['memory@10']['turn_recall']}, best raw "
                    f"{max((row[f'{n}@10']['turn_recall'] or 0) for n in BASELINES)}",
                    flush=True,
                )
    turns.keep()
    table = summary(rows)
    whole = args.sample is None and args.types is None and args.sessions is None
    name = "longmemeval" if whole else "longmemeval-sample"
    path = results.record(name, {"questions": rows, "summary": table})
    if args.json:
        print(json.dumps({"summary": table, "questions": rows}, ensure_ascii=False))
    else:
        print(render(table))
        print(f"\nwritten to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
