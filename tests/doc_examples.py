"""The examples the documents show with their output, run as the documents show them.

An example with its output is a fenced ```console block: each command on a line starting
with "$ " (a line ending in a backslash goes on to the next), and below it what the command
prints, stdout then stderr, as printed. A block the tests cannot run (it needs OpenClaw, a
schedule, the user's own files) begins with a line "# not run: <why>", and is only shown.

The blocks of one document run in its order, in one scratch directory laid out like the
bundle (scripts/, assets/ and tests/fixtures/ linked in), as the documents' commands
expect: with MEMORY_ORACLE_NOW at NOW, HOME in the scratch directory, /tmp/ paths moved
into it, {baseDir} standing for the bundle, and MEMORY_ORACLE_DATA_PATH (the data path of
a command that names none) a fresh memory holding the example facts
(assets/examples/facts.jsonl), remembered at NOW.

Printed and documented text are compared after normalising what differs between runs and
machines only: fact ids (fact-<uuid>), absolute paths, durations ("0.42 s", "12 ms"), and
the share of the disk in use that health-check reports (the machine's, not the memory's).

Run as a script to see what each block of a document prints now:
    .venv/bin/python tests/doc_examples.py README.md [SKILL.md ...]
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
NOW = "2026-06-20T09:00:00Z"
NOT_RUN = "# not run:"
DOCUMENTS = ("README.md", "SKILL.md", "references/*.md")

_FACT_ID = re.compile(r"fact-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_PATH = re.compile(r"(?<![\w.~])/(?:[\w.@+-]+/)*[\w.@+-]+/?")
_DISK_USE = re.compile(r"\bdisk \d+(?:\.\d+)?% used")
_DURATION = re.compile(r"\b\d+(?:\.\d+)?(?: ?(?:ms|s|seconds?|minutes?))\b")


@dataclass
class Command:
    text: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Example:
    document: str
    line: int  # of the block's opening fence, 1-based
    commands: list[Command]
    not_run: str | None = None


def documents() -> list[Path]:
    found: list[Path] = []
    for pattern in DOCUMENTS:
        found.extend(sorted(BUNDLE.glob(pattern)))
    return found


def fenced_blocks(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line of the opening fence, 1-based; language; lines inside) of each fenced block of
    `path`, in order."""
    blocks: list[tuple[int, str, list[str]]] = []
    inside: list[str] | None = None
    language, opened = "", 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            if inside is None:
                inside, language, opened = [], line[3:].strip(), number
            else:
                blocks.append((opened, language, inside))
                inside = None
        elif inside is not None:
            inside.append(line)
    return blocks


def examples(path: Path) -> list[Example]:
    """The console blocks of `path`, each parsed into its commands and their output."""
    name = str(path.relative_to(BUNDLE))
    return [
        parse_block(name, opened, body)
        for opened, language, body in fenced_blocks(path)
        if language == "console"
    ]


def parse_block(document: str, line: int, body: list[str]) -> Example:
    """A console block's lines (between its fences) as an Example."""
    not_run = None
    if body and body[0].startswith(NOT_RUN):
        not_run = body[0][len(NOT_RUN) :].strip()
        body = body[1:]
    commands: list[Command] = []
    continued = False
    for text in body:
        if continued:
            commands[-1].text += "\n" + text
            continued = text.endswith("\\")
        elif text.startswith("$ "):
            commands.append(Command(text[2:]))
            continued = text.endswith("\\")
        elif commands:
            commands[-1].expected.append(text)
        elif text.strip():
            raise ValueError(f"{document}:{line}: output before the first '$ ' command")
    return Example(document, line, commands, not_run)


def normalised(lines: list[str]) -> list[str]:
    result = []
    for line in lines:
        # The bundle's own path first, whole: it may hold spaces, which end a path below.
        line = line.replace(str(BUNDLE), "/bundle")
        line = _FACT_ID.sub("fact-ID", line)
        line = _DURATION.sub("N s", line)
        line = _DISK_USE.sub("disk N% used", line)
        line = _PATH.sub("PATH", line)
        result.append(line.rstrip())
    while result and not result[-1]:
        result.pop()
    while result and not result[0]:
        result.pop(0)
    return result


def bundle_like(root: Path) -> Path:
    """root/bundle, a directory that looks like the bundle's own (scripts/, assets/ and
    tests/fixtures/ linked in), so that the documents' relative paths work and what their
    commands create (./memory-example) lands under `root`."""
    workdir = root / "bundle"
    (workdir / "tests").mkdir(parents=True)
    for name in ("scripts", "assets"):
        (workdir / name).symlink_to(BUNDLE / name)
    (workdir / "tests" / "fixtures").symlink_to(BUNDLE / "tests" / "fixtures")
    return workdir


class Scratch:
    """A directory laid out like the bundle where a document's examples run, in order."""

    def __init__(self, root: Path):
        self.root = root
        self.workdir = bundle_like(root)
        self.memory = root / "memory"
        self.env = {
            **os.environ,
            "HOME": str(root),
            "MEMORY_ORACLE_NOW": NOW,
            "MEMORY_ORACLE_DATA_PATH": str(self.memory),
        }
        self.env.pop("MEMORY_ORACLE_CONFIG", None)
        seeded = self.run(
            f"{shlex.quote(str(self.workdir / 'scripts' / 'vm-memory-oracle'))} --action "
            f"remember --from {shlex.quote(str(self.workdir / 'assets/examples/facts.jsonl'))}"
        )
        if seeded.returncode != 0:
            raise RuntimeError(f"seeding the example facts failed: {seeded.stderr}")

    def documented(self, command: str) -> str:
        """A document's command as it runs here: its /tmp/ paths moved into the scratch
        directory and {baseDir} standing for the bundle-like directory. Only the document's
        own text is rewritten, so where the bundle lives (under /tmp too) does not matter."""
        return command.replace("/tmp/", f"{self.root}/tmp-").replace(
            "{baseDir}", shlex.quote(str(self.workdir))
        )

    def run(self, command: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["bash", "-o", "pipefail", "-c", command],
            cwd=self.workdir,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=900,
        )

    def printed(self, command: Command) -> list[str]:
        done = self.run(self.documented(command.text))
        return (done.stdout + done.stderr).splitlines()


def run_document(path: Path):
    """(example, command, documented lines, printed lines) for each command of each example
    of `path` that is run, in order, all in one scratch directory."""
    runnable = [example for example in examples(path) if example.not_run is None]
    if not runnable:
        return
    with tempfile.TemporaryDirectory() as root:
        scratch = Scratch(Path(root))
        for example in runnable:
            for command in example.commands:
                yield example, command, command.expected, scratch.printed(command)


def main(argv: list[str]) -> int:
    for name in argv or [str(path.relative_to(BUNDLE)) for path in documents()]:
        for example, command, expected, printed in run_document(BUNDLE / name):
            same = normalised(expected) == normalised(printed)
            print(f"--- {example.document}:{example.line} {'same' if same else 'DIFFERS'}")
            print("$ " + command.text)
            print("\n".join(printed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
