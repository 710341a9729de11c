"""Run a function on a thread with a large stack and a high recursion limit.

Code nested as deeply as CPython itself accepts (about 3,000 levels of `a + b + ...` or
`x.a.b...`) is then analysed instead of failing with RecursionError in LibCST or in a rule.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from dataclasses import dataclass
from typing import Callable, Optional, TypeVar

ANALYSIS_RECURSION_LIMIT = 20_000
ANALYSIS_STACK_BYTES = 256 * 1024 * 1024
R = TypeVar("R")


def run_deep(function: Callable[[], R], recursion_limit: int = ANALYSIS_RECURSION_LIMIT) -> R:
    """`function()` on a thread with a large stack, under `recursion_limit` (counted from that
    thread's base, so the result does not depend on how deep the caller is; the previous limit is
    restored afterwards). Exceptions propagate. Runs in place when no such thread can be made."""
    return _DEEP_THREAD.run(function, recursion_limit)


class _DeepThread:
    """One long-lived thread per process with a large stack. A fresh thread per file cost about
    20 % of the parse time (a new stack and allocator arena to fault in for every file)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None
        self._tasks: "queue.SimpleQueue[tuple[Callable[[], object], int, list, threading.Event]]" = queue.SimpleQueue()

    def run(self, function: Callable[[], R], recursion_limit: int) -> R:
        if threading.current_thread() is self._thread:
            return _under_limit(function, recursion_limit)  # already here (a nested call)
        if not self._started():
            return function()  # no thread (resource limits): the caller's stack will do
        outcome: list = []
        done = threading.Event()
        self._tasks.put((function, recursion_limit, outcome, done))
        done.wait()
        (result,) = outcome
        if isinstance(result, _Raised):
            raise result.error
        return result

    def forget(self) -> None:
        """After fork: the child has no such thread, whatever the parent had."""
        self._lock = threading.Lock()
        self._thread = None
        self._tasks = queue.SimpleQueue()

    def _started(self) -> bool:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return True
            try:
                previous_stack = threading.stack_size(ANALYSIS_STACK_BYTES)
            except (ValueError, RuntimeError):
                return False
            try:
                thread = threading.Thread(target=self._serve, name="gradlint-analysis", daemon=True)
                thread.start()
            except RuntimeError:
                return False
            finally:
                threading.stack_size(previous_stack)
            self._thread = thread
            return True

    def _serve(self) -> None:
        while True:
            function, recursion_limit, outcome, done = self._tasks.get()
            try:
                outcome.append(_under_limit(function, recursion_limit))
            except BaseException as error:  # re-raised in the caller
                outcome.append(_Raised(error))
            finally:
                done.set()


@dataclass(frozen=True)
class _Raised:
    error: BaseException


def _under_limit(function: Callable[[], R], recursion_limit: int) -> R:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(recursion_limit)
    try:
        return function()
    finally:
        sys.setrecursionlimit(previous)


_DEEP_THREAD = _DeepThread()
os.register_at_fork(after_in_child=_DEEP_THREAD.forget)
