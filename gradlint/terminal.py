"""What depends on a person watching a terminal: colour, and a one-line progress bar on stderr
for long runs (never in CI or into a pipe)."""

from __future__ import annotations

import os
import sys
from typing import IO, Optional

# Fewer files than this finish before a bar would be worth reading.
MIN_FILES_FOR_PROGRESS = 300
BAR_WIDTH = 30


def is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def use_color(stream: Optional[IO[str]] = None, environ: Optional[dict] = None) -> bool:
    """Colour on a terminal that is not `TERM=dumb`; `NO_COLOR` (any value) turns it off, `FORCE_COLOR`
    on (https://no-color.org)."""
    stream = sys.stdout if stream is None else stream
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    if environ.get("TERM") == "dumb":
        return False  # a terminal that shows escape codes as text (Emacs shells, some CI logs)
    return is_terminal(stream)


def wants_progress(stream: IO[str], output: IO[str], environ: Optional[dict] = None) -> bool:
    """A bar only for a person watching: both the bar's `stream` and the findings' `output` are a
    terminal (not piped into another program), and no CI system is running us."""
    environ = os.environ if environ is None else environ
    if environ.get("CI") or environ.get("GITHUB_ACTIONS") or environ.get("TERM") == "dumb":
        return False
    return is_terminal(stream) and is_terminal(output)


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
