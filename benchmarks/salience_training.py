"""Train the salience models (skill/vm_memory_oracle/extract/salience.json): one for
conversations between people, on LoCoMo dev, one for a person talking with an assistant,
on LongMemEval dev.

Between people: every statement summarize would keep from the five LoCoMo development
conversations is a row: the cheap features of extract/salience.py and the bundled model's
passage embedding of the fact's sentence. Its label: 1 when its turn is the evidence of one
of LoCoMo's per-speaker observations or of a question of categories 1-4, else 0. A logistic
model with an L2 penalty is fitted by Newton's method (numpy only, deterministic).
Figures are leave-one-conversation-out: for each conversation, a model trained on the
other four picks the lines of a MEMORY.md the way consolidation does (the best statement
of a turn, most salient first, within 8,000 characters) and is scored on precision and
observation coverage there. The penalty is the one whose worst held-out conversation
comes nearest the goals (precision 0.90, coverage 0.35), one value for all conversations.

With an assistant: every statement summarize would keep from the answer sessions of the
LongMemEval development questions (the person's turns; each session read alone), labelled
1 when its turn is evidence (`has_answer`). Features alone: the embedding added nothing
held out there. Figures are held out in five folds of whole sessions: ROC AUC of the
evidence statements, pooled and per question type (a session counts for the types of the
questions it answers), beside the LoCoMo model's features-only AUC on the same rows. The
penalty is the one with the best pooled AUC.

The shipped weights are then trained on all the rows of their kind. Run:
    .venv/bin/python benchmarks/salience_training.py [--write] [--json]
--write rewrites salience.json (weights and figures); without it, figures only.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "skill"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vm_memory_oracle.clock import parse_iso  # noqa: E402
from vm_memory_oracle.config import Settings  # noqa: E402
from vm_memory_oracle.extract import salience  # noqa: E402
from vm_memory_oracle.extract.rules import (  # noqa: E402
    extract_statements,
    in_context,
    turn_fragments,
)
from vm_memory_oracle.model.fact import clean_text  # noqa: E402
from vm_memory_oracle.model.turn import Turn  # noqa: E402
from vm_memory_oracle.steps.memory_md.block import line_cost  # noqa: E402
from vm_memory_oracle.storage.sessions import read_session  # noqa: E402

import longmemeval  # noqa: E402
from locomo import load_dataset, write_sessions  # noqa: E402
from locomo_retrieval import KEPT_EMBEDDINGS  # noqa: E402
from memory_salience import observations  # noqa: E402

PENALTIES = (1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
FOLDS = 5  # of whole LongMemEval sessions, for the held-out figures
BUDGET = 8000
PRECISION_GOAL, COVERAGE_GOAL = 0.90, 0.35


@dataclass
class Rows:
    conversation: str
    texts: list[str]
    turns: list[str]  # the dia id of each row's turn
    features: np.ndarray
    labels: np.ndarray
    observations: list[set[str]]  # LoCoMo: each observation's evidence turns
    vectors: np.ndarray | None = None
    question_types: set[str] = field(default_factory=set)  # LongMemEval: what it answers


def logged_statements(sessions: Path) -> list:
    """(fact-input record, Statement) for what summarize keeps from the session logs in
    `sessions`, each log read alone."""
    settings = Settings()
    pairs = []
    for path in sorted(sessions.glob("*.jsonl")):
        _, contents = read_session(path)
        turns = [
            Turn(
                f"sessions/{path.name}",
                number,
                parse_iso(record["ts"]),
                record["role"],
                record["text"],
                record.get("speaker"),
            )
            for record, number in zip(contents.records, contents.line_numbers)
        ]
        pairs += turn_fragments(in_context(turns), frozenset(settings.extract_roles))
    return extract_statements(pairs, threshold=settings.extract_threshold)


def statements(sample: dict, scratch: Path) -> Rows:
    """The statements summarize keeps from one conversation, with their features."""
    sessions = scratch / sample["sample_id"]
    conversation = write_sessions(sample, sessions)
    dia_of = {source: dia for dia, source in conversation.turn_sources.items()}
    found = logged_statements(sessions)
    salient = {dia for qa in conversation.questions for dia in qa["evidence"]}
    shown = observations(sample)
    salient |= {dia for ids in shown for dia in ids}
    turns = [dia_of[fields.source] for fields, _ in found]
    # the sentence as summarize embeds it (and the index after it)
    return Rows(
        sample["sample_id"],
        [clean_text(fields.text) for fields, _ in found],
        turns,
        np.array([salience.features(statement) for _, statement in found]),
        np.array([float(dia in salient) for dia in turns]),
        shown,
    )


def assistant_statements(scratch: Path) -> list[Rows]:
    """The statements summarize keeps from each answer session of the LongMemEval dev
    questions (a Rows a session, its `question_types` those of the questions it answers)."""
    data = longmemeval.load_dataset()
    types: dict[str, set[str]] = {}
    for question in data["questions"]:
        for session in question["answer_session_ids"]:
            types.setdefault(session, set()).add(question["question_type"])
    found_rows = []
    for session in sorted(types):
        alone = {
            "haystack_session_ids": [session],
            "haystack_dates": ["2023/05/20 (Sat) 10:00"],
            "answer_session_ids": [session],
        }
        haystack = longmemeval.write_haystack(alone, data["sessions"], scratch / session)
        found = logged_statements(scratch / session)
        if not found:
            continue
        assert all(statement.kind == salience.ASSISTANT for _, statement in found)
        found_rows.append(
            Rows(
                session,
                [clean_text(fields.text) for fields, _ in found],
                [fields.source for fields, _ in found],
                np.array([salience.features(statement) for _, statement in found]),
                np.array([float(fields.source in haystack.evidence) for fields, _ in found]),
                [],
                question_types=types[session],
            )
        )
    return found_rows


def embed(rows: list[Rows]) -> None:
    """Each row's passage vector from the bundled model: from the embedding caches the
    LoCoMo benchmarks keep (the same texts, by the same hash), else embedded now."""
    from vm_memory_oracle.embed.bundled import MODEL_ID, BundledEmbedder
    from vm_memory_oracle.semantic import content_hash

    kept: dict[str, np.ndarray] = {}
    for path in sorted(KEPT_EMBEDDINGS.glob(f"*/cache-{MODEL_ID}.npz")):
        with np.load(path) as data:
            kept.update(zip(data["hashes"].tolist(), data["vectors"]))
    wanted = sorted({text for row in rows for text in row.texts})
    missing = [text for text in wanted if content_hash(text) not in kept]
    if missing:
        kept.update(zip(map(content_hash, missing), BundledEmbedder().embed_passages(missing)))
    for row in rows:
        row.vectors = np.vstack([kept[content_hash(text)] for text in row.texts])


def fit(x: np.ndarray, y: np.ndarray, penalty: float, steps: int = 30) -> tuple[np.ndarray, float]:
    """Logistic regression, L2 penalty on the weights (not the bias), Newton's method."""
    design = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(design.shape[1])
    ridge = np.full(design.shape[1], penalty)
    ridge[-1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(design @ w)))
        gradient = design.T @ (p - y) + ridge * w
        hessian = (
            (design * (p * (1 - p))[:, None]).T @ design + np.diag(ridge) + 1e-9 * np.eye(len(w))
        )
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w[:-1], float(w[-1])


def design(rows: list[Rows], mean, scale, embedded: bool) -> np.ndarray:
    x = np.vstack([row.features for row in rows])
    x = (x - mean) / scale
    if embedded:
        x = np.hstack([x, np.vstack([row.vectors for row in rows])])
    return x


def memory_pick(row: Rows, scores: np.ndarray, budget: int = BUDGET) -> tuple[float, float, int]:
    """(precision, observation coverage, lines) of the lines a MEMORY.md would show: the
    best statement of each turn, most salient first, while they fit in `budget`."""
    best: dict[str, int] = {}
    for index, turn in enumerate(row.turns):
        if turn not in best or scores[index] > scores[best[turn]]:
            best[turn] = index
    used, picked = 0, []
    for index in sorted(best.values(), key=lambda i: -scores[i]):
        cost = line_cost(row.texts[index])
        if used + cost <= budget:
            used += cost
            picked.append(index)
    shown = {row.turns[i] for i in picked}
    precision = float(np.mean([row.labels[i] for i in picked])) if picked else 0.0
    coverage = sum(1 for ids in row.observations if ids & shown) / len(row.observations)
    return round(precision, 3), round(coverage, 3), len(picked)


def goal_share(figures) -> float:
    """How near the worst held-out conversation comes to the goals (1: both met): the least
    of precision / 0.90 and coverage / 0.35 over the conversations."""
    return min(
        min(precision / PRECISION_GOAL, coverage / COVERAGE_GOAL)
        for precision, coverage, _ in figures
    )


def standardizer(rows: list[Rows]) -> tuple[np.ndarray, np.ndarray]:
    x = np.vstack([row.features for row in rows])
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    return x.mean(axis=0), scale


def held_out(rows: list[Rows], penalty: float, embedded: bool) -> dict[str, tuple]:
    figures = {}
    for row in rows:
        train = [other for other in rows if other is not row]
        mean, scale = standardizer(train)
        w, b = fit(
            design(train, mean, scale, embedded),
            np.concatenate([other.labels for other in train]),
            penalty,
        )
        scores = design([row], mean, scale, embedded) @ w + b
        figures[row.conversation] = memory_pick(row, scores)
    return figures


def auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """ROC AUC: the chance that a salient row scores above one that is not (ties: half)."""
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    for value in np.unique(scores):  # tied scores share their mean rank
        tied = scores == value
        ranks[tied] = ranks[tied].mean()
    positive = labels == 1
    n1, n0 = int(positive.sum()), int((~positive).sum())
    return float((ranks[positive].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def held_out_sessions(rows: list[Rows], penalty: float) -> list[np.ndarray]:
    """Each session's scores from a features-only model trained on the other folds."""
    scores: list[np.ndarray] = [np.zeros(0)] * len(rows)
    for fold in range(FOLDS):
        train_rows = [row for i, row in enumerate(rows) if i % FOLDS != fold]
        mean, scale = standardizer(train_rows)
        w, b = fit(
            design(train_rows, mean, scale, False),
            np.concatenate([row.labels for row in train_rows]),
            penalty,
        )
        for i in range(fold, len(rows), FOLDS):
            scores[i] = design([rows[i]], mean, scale, False) @ w + b
    return scores


def auc_report(rows: list[Rows], scores: list[np.ndarray]) -> dict:
    """Pooled and per-question-type AUC of `scores` (one array a session)."""
    report = {
        "all": round(auc(np.concatenate([r.labels for r in rows]), np.concatenate(scores)), 3)
    }
    for kind in longmemeval.TYPES:
        chosen = [i for i, row in enumerate(rows) if kind in row.question_types]
        labels = np.concatenate([rows[i].labels for i in chosen])
        report[kind] = round(auc(labels, np.concatenate([scores[i] for i in chosen])), 3)
    return report


def kind_document(rows: list[Rows], models: list[dict]) -> dict:
    mean, scale = standardizer(rows)
    return {
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "models": models,
    }


def model_entry(rows: list[Rows], model_id: str | None, penalty: float) -> dict:
    mean, scale = standardizer(rows)
    w, b = fit(
        design(rows, mean, scale, model_id is not None),
        np.concatenate([row.labels for row in rows]),
        penalty,
    )
    return {
        "model_id": model_id,
        "penalty": penalty,
        "weights": [round(float(v), 6) for v in w],
        "bias": round(b, 6),
    }


def train_people(rows: list[Rows]) -> tuple[dict, dict]:
    """(the PEOPLE kind's document, its report) from the LoCoMo rows."""
    from vm_memory_oracle.embed.bundled import MODEL_ID

    embed(rows)
    report: dict = {
        "rows": int(sum(len(row.labels) for row in rows)),
        "salient_share": round(float(np.mean(np.concatenate([row.labels for row in rows]))), 3),
    }
    models = []
    for model_id, embedded in ((MODEL_ID, True), (None, False)):
        trials = {penalty: held_out(rows, penalty, embedded) for penalty in PENALTIES}
        chosen = max(PENALTIES, key=lambda p: goal_share(trials[p].values()))
        report[model_id or "features only"] = {
            "penalty": chosen,
            "goal_share": round(goal_share(trials[chosen].values()), 3),
            "held_out": {
                conversation: {"precision": f[0], "observation_coverage": f[1], "lines": f[2]}
                for conversation, f in trials[chosen].items()
            },
        }
        models.append(model_entry(rows, model_id, chosen))
    return kind_document(rows, models), report


def train_assistant(rows: list[Rows], people: list[Rows]) -> tuple[dict, dict]:
    """(the ASSISTANT kind's document, its report) from the LongMemEval rows; the LoCoMo
    rows give the comparison: what the PEOPLE kind's features-only model scores them."""
    trials = {penalty: held_out_sessions(rows, penalty) for penalty in PENALTIES}
    pooled = {
        penalty: auc(np.concatenate([r.labels for r in rows]), np.concatenate(scores))
        for penalty, scores in trials.items()
    }
    chosen = max(PENALTIES, key=lambda p: pooled[p])
    mean, scale = standardizer(people)
    w, b = fit(
        design(people, mean, scale, False),
        np.concatenate([row.labels for row in people]),
        PENALTIES[0],
    )
    theirs = [design([row], mean, scale, False) @ w + b for row in rows]
    report = {
        "rows": int(sum(len(row.labels) for row in rows)),
        "sessions": len(rows),
        "salient_share": round(float(np.mean(np.concatenate([row.labels for row in rows]))), 3),
        "features only": {
            "penalty": chosen,
            "held_out_auc": auc_report(rows, trials[chosen]),
            "people_model_auc": auc_report(rows, theirs),
        },
    }
    return kind_document(rows, [model_entry(rows, None, chosen)]), report


def train() -> dict:
    """The salience.json document: each kind's weights trained on all its rows, and the
    held-out figures (report)."""
    with tempfile.TemporaryDirectory() as scratch:
        people = [statements(sample, Path(scratch)) for sample in load_dataset()]
        assistant = assistant_statements(Path(scratch))
    people_document, people_report = train_people(people)
    assistant_document, assistant_report = train_assistant(assistant, people)
    return {
        "features": list(salience.FEATURES),
        "kinds": {salience.PEOPLE: people_document, salience.ASSISTANT: assistant_document},
        "training": {salience.PEOPLE: people_report, salience.ASSISTANT: assistant_report},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from vm_memory_oracle.embed.bundled import MODEL_ID

    document = train()
    report = document["training"]
    if args.write:
        salience.WEIGHTS.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    people = report[salience.PEOPLE]
    print(f"between people: {people['rows']} statements, {people['salient_share']:.1%} salient")
    for name in (MODEL_ID, "features only"):
        print(
            f"{name} (penalty {people[name]['penalty']}, worst conversation at "
            f"{people[name]['goal_share']:.0%} of the goals), held out:"
        )
        for conversation, f in people[name]["held_out"].items():
            print(
                f"  {conversation}: precision {f['precision']:.3f}, observation "
                f"coverage {f['observation_coverage']:.3f}, {f['lines']} lines"
            )
    assistant = report[salience.ASSISTANT]
    alone = assistant["features only"]
    print(
        f"with an assistant: {assistant['rows']} statements of {assistant['sessions']} "
        f"sessions, {assistant['salient_share']:.1%} salient; features only (penalty "
        f"{alone['penalty']}), held-out AUC against the people model's:"
    )
    for kind, value in alone["held_out_auc"].items():
        print(f"  {kind}: {value:.3f} against {alone['people_model_auc'][kind]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
