"""Knowledge that lasts: LongMemEval dev questions asked at their date and again after months
of silence, with consolidate every 30 days as cron runs it, in one run.

Each question's haystack is learned as `summarize` learns it (or a memory an earlier run
kept is used, --memories DIR/<question id>/), then the question is asked at its date
(recall, no boost, k=10 and k=5). A copy of the memory is then consolidated every 30 days
from that date, nothing said meanwhile, and the question is asked again at each horizon
(--horizons, days after its date), the consolidation of that day run first, as the
nightly job would have. The memory's own copy at its date is never changed.

Reported per question type and horizon: turn recall@10 and @5 (benchmarks/longmemeval.py:
the share of the haystack's has_answer turns that the cited results hold), and how many
questions got no result at all though they found evidence at their date. Goals: at 180 and
365 days, turn recall@10 at least that at the date minus 0.05 on every type, and no
question answered with nothing.

Embedding the haystacks is most of a run's time: with --kept-embeddings DIR, each
question's embedding caches are put back before it is learned and kept after it is asked,
so texts an earlier run embedded are not embedded again. Two runs (a change and its base)
sharing DIR, one with --reverse (the questions last to first), embed each text once.

    .venv/bin/python benchmarks/fading.py [--questions N] [--memories DIR] [--workdir DIR]
        [--kept-embeddings DIR] [--reverse]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vm_memory_oracle.config import Settings  # noqa: E402
from vm_memory_oracle.memory import Memory  # noqa: E402
from vm_memory_oracle.recall import Asked  # noqa: E402
from vm_memory_oracle.storage.layout import Layout  # noqa: E402

import longmemeval as lme  # noqa: E402
from locomo_retrieval import keep_embeddings, restore_embeddings  # noqa: E402
from results import record  # noqa: E402

HORIZONS = (90, 180, 365)
EVERY_DAYS = 30
GOAL_DROP = 0.05
GOAL_HORIZONS = (180, 365)


def memory_at(root: Path, now) -> Memory:
    return Memory.open(root, Settings(lock_timeout_seconds=60), now=now)


def asked(root: Path, question: dict, haystack: lme.Haystack, now) -> dict:
    """Turn recall at each k of the question asked of the memory at `root` at `now`, and
    how many results it got."""
    sets = memory_at(root, now).recall(
        [Asked(question["question"], k) for k in lme.KS], boost=False
    )
    answers = set(question["answer_session_ids"])
    found: dict = {"results": len(sets.sets[0].hits)}
    for k, result in zip(lme.KS, sets):
        cited = [hit.source for hit in result.hits if hit.source.startswith("sessions/")]
        found[f"turn@{k}"] = lme.scores(lme.Scored(cited), haystack, answers)["turn_recall"]
    return found


def learned(
    question: dict,
    sessions: dict,
    root: Path,
    kept: Path | None,
    others: int | None,
    embeddings: Path | None = None,
) -> lme.Haystack:
    """The question's memory at `root`: a copy of the kept one, else its haystack learned
    (its answer sessions and `others` of the rest, all without `others`), with the
    embedding caches kept in `embeddings` put back first."""
    if kept is not None and (kept / "done").exists():
        shutil.copytree(kept, root, ignore=shutil.ignore_patterns("question.json", "done"))
        with tempfile.TemporaryDirectory() as scratch:
            return lme.write_haystack(question, sessions, Path(scratch))
    layout = Layout(root)
    Memory.open(root, Settings()).init()
    if embeddings is not None:
        restore_embeddings(root.parent, embeddings, samples=(root.name,))
    haystack = lme.write_haystack(question, sessions, layout.sessions_dir, others)
    now = lme.parse_date(question["question_date"])
    memory_at(root, now).summarize(all_pending=True)
    return haystack


def run_question(
    question: dict,
    sessions: dict,
    workdir: Path,
    kept: Path | None,
    horizons,
    others=None,
    embeddings: Path | None = None,
) -> dict:
    root = workdir / question["question_id"]
    if root.exists():
        shutil.rmtree(root)
    haystack = learned(question, sessions, root, kept, others, embeddings)
    date = lme.parse_date(question["question_date"])
    row = {"id": question["question_id"], "type": question["question_type"]}
    row["0"] = asked(root, question, haystack, date)  # the first recall embeds the haystack
    if embeddings is not None:
        keep_embeddings(workdir, embeddings)
    day = 0
    for horizon in sorted(horizons):
        while day < horizon:
            day = min(day + EVERY_DAYS, horizon)
            Memory.open(root, Settings(), now=date + timedelta(days=day, hours=-1)).consolidate()
        row[str(horizon)] = asked(root, question, haystack, date + timedelta(days=horizon))
    shutil.rmtree(root)
    return row


def summary(rows: list[dict], horizons) -> dict:
    """Per type and horizon: mean turn recall at each k, and the questions left with no
    result though they found evidence at their date."""
    table: dict = {}
    by_type = defaultdict(list)
    for row in rows:
        by_type[row["type"]].append(row)
    by_type["all"] = rows
    for kind, held in by_type.items():
        entry: dict = {"questions": len(held)}
        for at in ("0", *map(str, horizons)):
            for k in lme.KS:
                values = [row[at][f"turn@{k}"] for row in held if row[at][f"turn@{k}"] is not None]
                entry[f"turn@{k}@{at}"] = round(sum(values) / len(values), 3) if values else None
            entry[f"nothing@{at}"] = sum(
                1 for row in held if row[at]["results"] == 0 and (row["0"]["turn@10"] or 0) > 0
            )
        table[kind] = entry
    return table


def met(table: dict) -> bool:
    for entry in table.values():
        at_date = entry["turn@10@0"]
        for horizon in GOAL_HORIZONS:
            later = entry.get(f"turn@10@{horizon}")
            if later is None:
                continue
            if at_date is not None and later < at_date - GOAL_DROP:
                return False
            if entry[f"nothing@{horizon}"]:
                return False
    return True


def render(table: dict, horizons) -> str:
    heads = ["type", "questions", "@10 at date", *(f"@10 +{h} d" for h in horizons)]
    heads += [f"nothing +{h} d" for h in horizons]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for kind in [*lme.TYPES, "all"]:
        entry = table.get(kind)
        if entry is None:
            continue
        cells = [kind, str(entry["questions"]), str(entry["turn@10@0"])]
        cells += [str(entry[f"turn@10@{h}"]) for h in horizons]
        cells += [str(entry[f"nothing@{h}"]) for h in horizons]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, help="a sample of this many, every type")
    parser.add_argument("--horizons", default=",".join(map(str, HORIZONS)))
    parser.add_argument("--memories", type=Path, help="memories kept by an earlier run")
    parser.add_argument("--others", type=int, help="sessions besides the answer's (all)")
    parser.add_argument("--workdir", type=Path, help="where rows.jsonl is kept")
    parser.add_argument("--path", type=Path, help="the LongMemEval dev file")
    parser.add_argument("--kept-embeddings", type=Path, help="embedding caches kept between runs")
    parser.add_argument("--reverse", action="store_true", help="the questions last to first")
    args = parser.parse_args(argv)
    horizons = tuple(int(value) for value in args.horizons.split(","))
    data = lme.load_dataset(args.path)
    questions = lme.sampled(data["questions"], args.questions)
    order = list(reversed(questions)) if args.reverse else questions
    with tempfile.TemporaryDirectory() as scratch:
        workdir = args.workdir or Path(scratch)
        workdir.mkdir(parents=True, exist_ok=True)
        rows_file = workdir / "fading-rows.jsonl"
        done = {}
        if rows_file.exists():
            done = {row["id"]: row for row in map(json.loads, rows_file.read_text().splitlines())}
        rows = []
        for number, question in enumerate(order, 1):
            row = done.get(question["question_id"])
            if row is None:
                kept = args.memories / question["question_id"] if args.memories else None
                row = run_question(
                    question,
                    data["sessions"],
                    workdir / "memories",
                    kept,
                    horizons,
                    args.others,
                    args.kept_embeddings,
                )
                with rows_file.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(row) + "\n")
            rows.append(row)
            print(f"[{number}/{len(questions)}] {row['id']} {row['type']} "
                  + " ".join(f"{at}:{row[at]['turn@10']}" for at in ("0", *map(str, horizons))),
                  flush=True)  # fmt: skip
    table = summary(rows, horizons)
    figures = {"horizons": horizons, "every_days": EVERY_DAYS, "table": table, "met": met(table)}
    path = record("fading", figures)
    print(render(table, horizons))
    print(f"goal met: {figures['met']} ({path})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
