"""Train the salience model (skill/vm_memory_oracle/extract/salience.json) on LoCoMo dev.

Every statement summarize would keep from the five development conversations is a row:
the cheap features of extract/salience.py and the bundled model's passage embedding of
the fact's sentence. Its label: 1 when its turn is the evidence of one of LoCoMo's
per-speaker observations or of a question of categories 1-4, else 0. A logistic model
with an L2 penalty is fitted by Newton's method (numpy only, deterministic).

Figures are leave-one-conversation-out: for each conversation, a model trained on the
other four picks the lines of a MEMORY.md the way consolidation does (the best statement
of a turn, most salient first, within 8,000 characters) and is scored on precision and
observation coverage there. The penalty is the one with the best mean over the five held
out conversations (one value for all, never one per conversation): the one whose worst
conversation comes nearest the goals (precision 0.90, coverage 0.35). The shipped weights
are then trained on all five. Run:
    .venv/bin/python benchmarks/salience_training.py [--write] [--json]
--write rewrites salience.json (weights and figures); without it, figures only.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "skill"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vm_memory_oracle.clock import parse_iso  # noqa: E402
from vm_memory_oracle.config import Settings  # noqa: E402
from vm_memory_oracle.extract import salience  # noqa: E402
from vm_memory_oracle.extract.rules import (  # noqa: E402
    Turn,
    extract_statements,
    in_context,
    turn_fragments,
)
from vm_memory_oracle.model.fact import clean_text  # noqa: E402
from vm_memory_oracle.steps.memory_md import line_cost  # noqa: E402
from vm_memory_oracle.storage.sessions import read_session  # noqa: E402

from locomo import load_dataset, write_sessions  # noqa: E402
from locomo_retrieval import KEPT_EMBEDDINGS  # noqa: E402
from memory_salience import observations  # noqa: E402

PENALTIES = (1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
BUDGET = 8000
PRECISION_GOAL, COVERAGE_GOAL = 0.90, 0.35


@dataclass
class Rows:
    conversation: str
    texts: list[str]
    turns: list[str]  # the dia id of each row's turn
    features: np.ndarray
    labels: np.ndarray
    observations: list[set[str]]
    vectors: np.ndarray | None = None


def statements(sample: dict, scratch: Path) -> Rows:
    """The statements summarize keeps from one conversation, with their features."""
    sessions = scratch / sample["sample_id"]
    conversation = write_sessions(sample, sessions)
    dia_of = {source: dia for dia, source in conversation.turn_sources.items()}
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
    found = extract_statements(pairs, threshold=settings.extract_threshold)
    salient = {dia for qa in conversation.questions for dia in qa["evidence"]}
    shown = observations(sample)
    salient |= {dia for ids in shown for dia in ids}
    turns = [dia_of[fields["source"]] for fields, _ in found]
    # the sentence as summarize embeds it (and the index after it)
    return Rows(
        sample["sample_id"],
        [clean_text(fields["text"]) for fields, _ in found],
        turns,
        np.array([salience.features(statement) for _, statement in found]),
        np.array([float(dia in salient) for dia in turns]),
        shown,
    )


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


def train() -> dict:
    """The salience.json document: weights trained on all five conversations, and the
    held-out figures (report)."""
    from vm_memory_oracle.embed.bundled import MODEL_ID

    with tempfile.TemporaryDirectory() as scratch:
        rows = [statements(sample, Path(scratch)) for sample in load_dataset()]
    embed(rows)
    report: dict = {
        "rows": int(sum(len(row.labels) for row in rows)),
        "salient_share": round(float(np.mean(np.concatenate([row.labels for row in rows]))), 3),
    }
    models = []
    mean, scale = standardizer(rows)
    for model_id, embedded in ((MODEL_ID, True), (None, False)):
        trials = {penalty: held_out(rows, penalty, embedded) for penalty in PENALTIES}
        chosen = max(PENALTIES, key=lambda p: goal_share(trials[p].values()))
        w, b = fit(
            design(rows, mean, scale, embedded),
            np.concatenate([row.labels for row in rows]),
            chosen,
        )
        name = model_id or "features only"
        report[name] = {
            "penalty": chosen,
            "goal_share": round(goal_share(trials[chosen].values()), 3),
            "held_out": {
                conversation: {"precision": f[0], "observation_coverage": f[1], "lines": f[2]}
                for conversation, f in trials[chosen].items()
            },
        }
        models.append(
            {
                "model_id": model_id,
                "penalty": chosen,
                "weights": [round(float(v), 6) for v in w],
                "bias": round(b, 6),
            }
        )
    return {
        "features": list(salience.FEATURES),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "models": models,
        "training": report,
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
    else:
        print(f"{report['rows']} statements, {report['salient_share']:.1%} salient")
        for name in (MODEL_ID, "features only"):
            print(
                f"{name} (penalty {report[name]['penalty']}, worst conversation at "
                f"{report[name]['goal_share']:.0%} of the goals), held out:"
            )
            for conversation, f in report[name]["held_out"].items():
                print(
                    f"  {conversation}: precision {f['precision']:.3f}, observation "
                    f"coverage {f['observation_coverage']:.3f}, {f['lines']} lines"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
