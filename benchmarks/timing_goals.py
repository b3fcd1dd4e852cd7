"""The timing goals, checked for a person to read: each is measured, and measured again (up to
--tries times) while it is missed, since a timing depends on what else the machine is doing.
The benchmark suite only reports these figures; this command says whether each goal holds.

    .venv/bin/python benchmarks/timing_goals.py [--tries 3] [--only NAME]

Goals (on this project's 2-core machine):
  recall-process   the `recall` process at 10,000 facts: at most 2.0 x `python -c "import
                   numpy, faiss"`, medians of 21 alternating runs
  remember-10k     `remember --from` of 10,000 facts: under 10 s
  consolidate-10k  `consolidate` of 10,000 facts with nothing new: under 5 s
Exit status 0 when every goal held in one of its tries, 1 otherwise; the figures of every try
go to benchmarks/output/timing_goals.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vm_memory_oracle.clock import format_iso  # noqa: E402
from vm_memory_oracle.embed.bundled import MODEL_ID  # noqa: E402

import recall_process  # noqa: E402
from results import record  # noqa: E402
from synthetic import build_memory  # noqa: E402

ENTRYPOINT = recall_process.ENTRYPOINT


def _stamp() -> str:
    return format_iso(datetime.now(timezone.utc).replace(microsecond=0))


def _timed(*args: str) -> float:
    begun = time.perf_counter()
    done = subprocess.run([str(ENTRYPOINT), *args], capture_output=True, text=True)
    took = time.perf_counter() - begun
    if done.returncode != 0:
        raise RuntimeError(f"vm-memory-oracle {' '.join(args)}: {done.stderr.strip()}")
    return took


def recall_process_ratio(workdir: Path) -> tuple[float, str]:
    data = workdir / "recall-10k"
    if not data.exists():
        build_memory(data, 10_000, model_id=MODEL_ID, stamp=_stamp())
    figures = recall_process.measure(data)
    return figures.ratio, (
        f"recall {figures.recall_median_s:.3f} s, import numpy+faiss "
        f"{figures.import_median_s:.3f} s"
    )


def remember_10k(workdir: Path) -> tuple[float, str]:
    source = workdir / "facts-10k.jsonl"
    if not source.exists():
        source.write_text(
            "".join(
                json.dumps(
                    {
                        "subject": "user",
                        "predicate": "mentioned",
                        "object": f"topic number {i}",
                        "text": f"user mentioned topic number {i}",
                    }
                )
                + "\n"
                for i in range(10_000)
            )
        )
    data = workdir / f"remember-{time.monotonic_ns()}"
    took = _timed("--data-path", str(data), "--action", "remember", "--from", str(source))
    return took, f"{took:.2f} s"


def consolidate_10k(workdir: Path) -> tuple[float, str]:
    data = workdir / "consolidate-10k"
    if not data.exists():
        build_memory(data, 10_000, model_id=MODEL_ID, stamp=_stamp())
        _timed("--data-path", str(data), "--action", "consolidate")
    took = _timed("--data-path", str(data), "--action", "consolidate")
    return took, f"{took:.2f} s"


GOALS = {
    "recall-process": (recall_process_ratio, 2.0, "x"),
    "remember-10k": (remember_10k, 10.0, "s"),
    "consolidate-10k": (consolidate_10k, 5.0, "s"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=3)
    parser.add_argument("--only", choices=sorted(GOALS))
    args = parser.parse_args(argv)
    report, missed = {}, []
    with tempfile.TemporaryDirectory() as scratch:
        for name, (measure, limit, unit) in GOALS.items():
            if args.only and name != args.only:
                continue
            tries = []
            for attempt in range(1, args.tries + 1):
                value, detail = measure(Path(scratch))
                tries.append({"value": round(value, 3), "detail": detail})
                print(
                    f"{name}: try {attempt}: {value:.2f} {unit} (goal at most {limit} {unit}; "
                    f"{detail})",
                    flush=True,
                )
                if value <= limit:
                    break
            held = tries[-1]["value"] <= limit
            report[name] = {"goal_at_most": limit, "unit": unit, "held": held, "tries": tries}
            print(f"{name}: {'held' if held else 'MISSED'}")
            if not held:
                missed.append(name)
    print(f"wrote {record('timing_goals', report)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
