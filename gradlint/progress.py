"""A one-line progress bar on stderr for long runs in a terminal (never in CI or into a pipe)."""

from __future__ import annotations

import os
import sys
from typing import IO, Optional

# Fewer files than this finish before a bar would be worth reading.
MIN_FILES_FOR_PROGRESS = 300
BAR_WIDTH = 30


def wants_progress(stream: IO[str], output: IO[str], environ: Optional[dict] = None) -> bool:
    """A bar only for a person watching: both the bar's `stream` and the findings' `output` are a
    terminal (not piped into another program), and no CI system is running us."""
    environ = os.environ if environ is None else environ
    if environ.get("CI") or environ.get("GITHUB_ACTIONS") or environ.get("TERM") == "dumb":
        return False
    return _is_terminal(stream) and _is_terminal(output)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressBar:
    """`bar(done, total)` redraws the line; `bar.close()` erases it."""

    def __init__(self, stream: IO[str] = sys.stderr, minimum: int = MIN_FILES_FOR_PROGRESS) -> None:
        self.stream = stream
        self.minimum = minimum
        self.shown = False
        self.last_drawn = -1

    def __call__(self, done: int, total: int) -> None:
        if total < self.minimum:
            return
        filled = BAR_WIDTH * done // total
        if filled == self.last_drawn and done != total:
            return  # redraw only when the bar moves
        self.last_drawn = filled
        self.shown = True
        self.stream.write(f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total} files")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False
