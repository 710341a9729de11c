"""SIGINT and SIGTERM: where they may land, and how the command line ends on them.

Both end a run the same way: SIGINT raises KeyboardInterrupt (Python's own handler) and SIGTERM
raises `Terminated` (installed by the command line), so that the clean-up of a write in progress
runs; the command line then exits 128 + the signal's number with one line. Around the renames of
files that must be written together, both wait (`deferred`), so that a run ends before or after
the whole group, never within it.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Iterator, NoReturn, Optional

HANDLED = (signal.SIGINT, signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the run is (a KeyboardInterrupt, so every clean-up for Ctrl-C runs)."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated()


def handle_termination() -> None:
    """SIGTERM ends the run as Ctrl-C does, instead of killing the process in the middle of a write."""
    signal.signal(signal.SIGTERM, _raise_terminated)


class InterruptedExit(SystemExit):
    """The exit of a run SIGINT or SIGTERM stopped (its code is 130 or 143)."""


def exit_interrupted(interrupt: KeyboardInterrupt) -> NoReturn:
    """End the run on SIGINT or SIGTERM: one line, and 128 + the signal's number (130, 143), the
    code a shell reports for a process the signal ended."""
    number = signal.SIGTERM if isinstance(interrupt, Terminated) else signal.SIGINT
    sys.stderr.write(f"gradlint: interrupted by {number.name}\n")
    sys.stderr.flush()
    raise InterruptedExit(128 + number)


def end_process(done: InterruptedExit) -> NoReturn:
    """End the process of an interrupted run at once. Every clean-up has run on the way here (the
    interrupt unwound the run); what is left is the interpreter's shutdown, which a file still being
    analysed on the analysis thread (in LibCST's native parser) can turn into an abort (SIGABRT)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(done.code if isinstance(done.code, int) else 1)


def ignore_after_the_run() -> None:
    """The run is over and what it reports is written: SIGINT and SIGTERM have nothing left to
    stop. Arriving during the interpreter's shutdown (the pool's workers joined, threads ended),
    they would end the process by the signal (-2, -15) instead of with the run's exit code."""
    for signum in HANDLED:
        signal.signal(signum, signal.SIG_IGN)


def quiet_worker() -> None:
    """A pool worker leaves SIGINT and SIGTERM (a terminal's Ctrl-C, or a `kill` of the whole process
    group, reaches it too) to the main process, which stops the run and shuts the pool down: a
    worker that stopped itself would print a traceback, and its pool one more. A worker whose main
    process is gone (killed outright) ends on SIGTERM: nothing else will end it."""
    parent = os.getppid()

    def end_if_orphaned(signum: int, frame: object) -> None:
        if os.getppid() != parent:
            os._exit(128 + signum)

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, end_if_orphaned)


@contextmanager
def deferred() -> Iterator[None]:
    """SIGINT and SIGTERM received inside the block take effect when it ends (each is delivered
    again then, to the handler it would have reached). Only the main thread handles signals: in
    another thread the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def remember(signum: int, frame: object) -> None:
        received.append(signum)

    previous: dict[int, Optional[object]] = {}
    try:
        for signum in HANDLED:
            previous[signum] = signal.signal(signum, remember)
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        for signum in dict.fromkeys(received):
            signal.raise_signal(signum)
