"""`check --watch`: run again whenever a watched file changes, as ruff's watch mode does.

It polls the modification times of the files a run checks (no file-system notification library
is needed): a change, a new file (its folder changes) or a removed one starts a new run.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Callable, Optional

import click

POLL_SECONDS = 0.5
CLEAR_SCREEN = "\x1b[2J\x1b[H"  # erase the terminal, cursor to the top left

Stamp = tuple[int, int]  # (mtime in nanoseconds, size)


def watch(run_once: Callable[[], int], watched: Callable[[], list[Path]], *, clear: bool, poll_seconds: float = POLL_SECONDS) -> int:
    """Run `run_once`, then again each time a path of `watched()` (asked anew after each run)
    changes; returns 0 on Ctrl-C, as ruff does."""
    message = "Starting linter in watch mode..."
    # Ctrl-C is the way out, even when the process was started with SIGINT ignored (a background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        while True:
            stamps = _stamps(watched())  # taken before the run: a change during it starts the next one
            if clear:
                click.echo(CLEAR_SCREEN, nl=False)
            click.echo(f"[{datetime.now():%H:%M:%S}] {message}")
            run_once()
            click.echo(f"[{datetime.now():%H:%M:%S}] Watching for file changes.")
            sys.stdout.flush()
            _wait_for_change(stamps, poll_seconds)
            message = "File change detected..."
    except KeyboardInterrupt:
        return 0


def _wait_for_change(stamps: dict[Path, Optional[Stamp]], poll_seconds: float) -> None:
    while _stamps(stamps) == stamps:
        time.sleep(poll_seconds)


def _stamps(paths) -> dict[Path, Optional[Stamp]]:
    return {path: _stamp(path) for path in paths}


def _stamp(path: Path) -> Optional[Stamp]:
    try:
        status = os.stat(path)
    except OSError:
        return None  # removed (or unreadable): that it comes back is a change too
    return status.st_mtime_ns, status.st_size
