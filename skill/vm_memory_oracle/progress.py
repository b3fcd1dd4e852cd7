"""The progress bar of long commands: one line on stderr, redrawn in place."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


class ProgressBar:
    """One line on stderr, redrawn in place: only on a terminal, so cron's mail and --json
    consumers never see it. Cleared before the command prints its result."""

    WIDTH = 30

    def __init__(self, stream):
        self.stream = stream
        self.drawn = False

    def __call__(self, label: str, done: int, total: int) -> None:
        filled = self.WIDTH if not total else int(self.WIDTH * min(done, total) / total)
        self.stream.write(
            f"\r{label[:28]:<28} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total}\x1b[K"
        )
        self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False


@contextmanager
def progress_bar() -> Iterator[ProgressBar | None]:
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    try:
        yield bar
    finally:
        if bar is not None:
            bar.clear()
