"""LoCoMo (development split) turned into session logs, for the extraction and recall benchmarks.

The data is read from ../shared/data/locomo/locomo-dev.json beside the bundle (or the path in
$LOCOMO_PATH) and never copied into the repository. Each conversation becomes its own data
directory; each of its sessions one sessions/YYYY-MM-DD-HHMMSS.jsonl whose turns are the
dialogue's, 30 seconds apart, role "user", speaker the person's name (an image a person
shares is appended as "[photo: caption]").
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
DEFAULT_PATH = BUNDLE.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
_DIA_ID = re.compile(r"^D(\d+):(\d+)$")


def dataset_path() -> Path:
    return Path(os.environ.get("LOCOMO_PATH", DEFAULT_PATH))


def load_dataset(path: Path | None = None) -> list[dict]:
    return json.loads((path or dataset_path()).read_text(encoding="utf-8"))


@dataclass
class Conversation:
    sample_id: str
    turn_sources: dict[str, str] = field(default_factory=dict)  # dia_id -> sessions/<f>:<line>
    questions: list[dict] = field(default_factory=list)  # categories 1-4, valid evidence
    last_time: datetime | None = None


def session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' as a UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def write_sessions(sample: dict, sessions_dir: Path) -> Conversation:
    """The conversation's sessions as session logs in `sessions_dir`; its evidence map."""
    sessions_dir.mkdir(parents=True, exist_ok=True)
    conversation = sample["conversation"]
    result = Conversation(sample["sample_id"])
    numbers = sorted(
        int(key.split("_")[1]) for key in conversation if re.fullmatch(r"session_\d+", key)
    )
    used: set[str] = set()
    for number in numbers:
        turns = conversation[f"session_{number}"]
        start = session_time(conversation[f"session_{number}_date_time"])
        name = start.strftime("%Y-%m-%d-%H%M%S") + ".jsonl"
        while name in used:
            start += timedelta(seconds=1)
            name = start.strftime("%Y-%m-%d-%H%M%S") + ".jsonl"
        used.add(name)
        lines = []
        for index, turn in enumerate(turns):
            text = turn["text"]
            if turn.get("blip_caption"):
                text = f"{text} [photo: {turn['blip_caption']}]"
            moment = start + timedelta(seconds=30 * index)
            lines.append(
                json.dumps(
                    {
                        "ts": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
                        "role": "user",
                        "text": text,
                        "speaker": turn["speaker"],
                    },
                    ensure_ascii=False,
                )
            )
            result.turn_sources[turn["dia_id"]] = f"sessions/{name}:{index + 1}"
            result.last_time = moment
        (sessions_dir / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    for qa in sample["qa"]:
        if qa.get("category") not in (1, 2, 3, 4):
            continue
        evidence = [
            item
            for item in qa.get("evidence", [])
            if _DIA_ID.match(item) and item in result.turn_sources
        ]
        if evidence:
            result.questions.append({**qa, "evidence": evidence})
    return result
