"""What MEMORY.md holds, scored against LoCoMo's own annotations, per dev conversation.

Each conversation goes through summarize (every session) and one consolidation, as the
nightly job would run them; then each line of MEMORY.md's managed block is traced to the
turn its fact was learned from. A line is salient when that turn is the evidence of one of
LoCoMo's per-speaker observations or of a question of categories 1-4. Reported per
conversation: lines, characters, precision (salient lines / lines) and observation
coverage (observations whose evidence turn some line shows / observations).

Goals (what deserves remembering): precision at least 0.90 in every conversation, coverage
at least 0.35, at most 8,000 characters. Run:
    .venv/bin/python benchmarks/memory_salience.py [--workdir DIR] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "skill"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vm_memory_oracle.cli import main as cli_main  # noqa: E402
from vm_memory_oracle.steps.memory_md.block import BEGIN, END, fact_line  # noqa: E402
from vm_memory_oracle.steps.memory_md.data_file import FactCandidate  # noqa: E402

from locomo import load_dataset  # noqa: E402
from locomo_retrieval import KEPT_EMBEDDINGS, prepare  # noqa: E402

_DIA = re.compile(r"^D\d+:\d+$")


@dataclass
class Salience:
    conversation: str
    lines: int = 0
    chars: int = 0
    salient: int = 0
    observations: int = 0
    observations_shown: int = 0
    examples: list[str] = field(default_factory=list)  # a few lines that are not salient

    @property
    def precision(self) -> float:
        return round(self.salient / self.lines, 3) if self.lines else 0.0

    @property
    def coverage(self) -> float:
        return round(self.observations_shown / self.observations, 3) if self.observations else 0.0


def observations(sample: dict) -> list[set[str]]:
    """The evidence turns of each of LoCoMo's per-speaker observations."""
    found = []
    for session in sample.get("observation", {}).values():
        for items in session.values():
            for item in items:
                evidence = item[1] if len(item) > 1 else []
                ids = [evidence] if isinstance(evidence, str) else list(evidence)
                ids = {dia for dia in ids if isinstance(dia, str) and _DIA.match(dia)}
                if ids:
                    found.append(ids)
    return found


def score(workdir: Path, caches: Path | None = None) -> list[Salience]:
    """`caches`: where earlier runs kept the conversations' embedding caches (default: the
    retrieval benchmark's test's, ~/.cache/vm-memory-oracle-tests/locomo-embeddings)."""
    samples = {sample["sample_id"]: sample for sample in load_dataset()}
    prepared = prepare(workdir, kept=caches or KEPT_EMBEDDINGS)
    results = []
    for graph, conversation, now in prepared:
        data = graph.layout.root
        stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = cli_main(["--data-path", str(data), "--now", stamp, "--action", "consolidate"])
        if code != 0:
            raise SystemExit(f"consolidate of {conversation.sample_id} failed (exit {code})")
        sample = samples[conversation.sample_id]
        salient_turns = {dia for qa in conversation.questions for dia in qa["evidence"]}
        shown_observations = observations(sample)
        salient_turns |= {dia for ids in shown_observations for dia in ids}
        dia_of_source = {source: dia for dia, source in conversation.turn_sources.items()}
        # A line of the block is known by its text, as consolidation knows it.
        facts = {fact_line(FactCandidate(fact, 0.0)): fact for fact in graph.facts()}
        text = (data / "MEMORY.md").read_text(encoding="utf-8")
        result = Salience(conversation.sample_id, chars=len(text))
        shown: set[str] = set()
        lines = text.splitlines()
        for line in lines[lines.index(BEGIN) + 1 : lines.index(END)]:
            if not line.startswith("- "):
                continue
            result.lines += 1
            fact = facts.get(line)
            dia = dia_of_source.get(fact.source) if fact else None
            if dia in salient_turns:
                result.salient += 1
            elif len(result.examples) < 5:
                result.examples.append(line)
            if dia:
                shown.add(dia)
        result.observations = len(shown_observations)
        result.observations_shown = sum(1 for ids in shown_observations if ids & shown)
        results.append(result)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        results = score(args.workdir or Path(scratch))
    if args.json:
        print(
            json.dumps(
                [
                    {**result.__dict__, "precision": result.precision, "coverage": result.coverage}
                    for result in results
                ],
                ensure_ascii=False,
            )
        )
        return 0
    for r in results:
        print(
            f"{r.conversation}: {r.lines} lines, {r.chars} characters, precision "
            f"{r.precision:.3f} ({r.salient} salient), observation coverage {r.coverage:.3f} "
            f"({r.observations_shown} of {r.observations})"
        )
        for example in r.examples:
            print(f"    not salient: {example}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
