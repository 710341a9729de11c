"""The language server's worker: a process that checks and fixes documents, one call at a time.

A process, not a thread: LibCST's parser holds the GIL for the whole parse, which would stall every
answer of the server behind it. And a process can be killed: a check of a text that the editor has
changed since is stopped mid-call instead of delaying the check of the new text. New processes come
from a fork server that has imported gradlint (fast, and never forked from the server's threads,
whose locks a forked child could inherit held).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Optional

# What a call came to: "ok" (value: the result), "error" (value: the exception and its traceback,
# as text), "killed" (by `kill`), or "died" (the process ended on its own: out of memory, a crash).
OK, ERROR, KILLED, DIED = "ok", "error", "killed", "died"


@dataclass(frozen=True)
class Outcome:
    kind: str
    value: Any = None


class Worker:
    def __init__(self, niceness: int = 0) -> None:
        self.niceness = niceness  # added to the process's nice value: a background worker yields the CPU
        self._process: Optional[multiprocessing.process.BaseProcess] = None
        self._connection: Optional[Any] = None
        self._turn: Optional[asyncio.Lock] = None
        self._killed = False
        self._starting = threading.Lock()
        self.running: Optional[object] = None  # the tag of the call in progress
        self.generation = 0  # how many processes have been started: what one knows dies with it

    def start(self) -> None:
        """Start the process now, so that the first check does not wait for it. This blocks until
        the fork server has imported gradlint (seconds, the first time): `started` does it on a thread."""
        with self._starting:
            if self._process is None:
                context = _context()
                ours, theirs = context.Pipe()
                process = context.Process(target=_serve, args=(theirs, self.niceness), name="gradlint-worker", daemon=True)
                process.start()
                self.generation += 1
                theirs.close()  # so that the end of the process is the end of the pipe here
                self._process, self._connection = process, ours

    async def started(self) -> None:
        """`start` without blocking the event loop: the server answers meanwhile."""
        if self._process is None:
            await asyncio.get_running_loop().run_in_executor(None, self.start)

    async def call(self, tag: object, function: Callable[..., Any], *args: object, wanted: Callable[[], bool] = lambda: True) -> Outcome:
        """`function(*args)` in the process, after the calls before it; `tag` names it for `kill`.
        A call no longer `wanted` when its turn comes is not made (it comes to KILLED)."""
        if self._turn is None:
            self._turn = asyncio.Lock()
        async with self._turn:
            if not wanted():
                return Outcome(KILLED)
            await self.started()
            self.running, self._killed = tag, False
            try:
                self._connection.send((function, args))
                received = await _received(self._connection)
            except (OSError, ValueError):  # the process had already ended
                received = None
            finally:
                self.running = None
            if received is None:
                self._forget()
                return Outcome(KILLED if self._killed else DIED)
            return Outcome(*received)

    def kill(self) -> None:
        """End the call in progress (it comes to KILLED); the next call starts a new process."""
        if self._process is not None and self.running is not None:
            self._killed = True
            self._process.kill()

    def stop(self) -> None:
        with self._starting:  # a start under way finishes first
            if self._process is not None:
                self._process.kill()
                self._forget()

    def _forget(self) -> None:
        self._process.join(timeout=5)
        self._connection.close()
        self._process = self._connection = None


def _received(connection: Any) -> "asyncio.Future[Optional[tuple]]":
    """The next message from the process, read on a daemon thread (an exit never waits for a
    check); None when the process has ended."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future = loop.create_future()

    def receive() -> None:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            message = None
        try:
            loop.call_soon_threadsafe(_settle, future, message)
        except RuntimeError:  # the server has stopped
            pass

    threading.Thread(target=receive, name="gradlint-worker-reader", daemon=True).start()
    return future


def _settle(future: asyncio.Future, message: Optional[tuple]) -> None:
    if not future.done():
        future.set_result(message)


def _context() -> Any:
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["gradlint.server", "gradlint.server_preload"])
    return context


def _serve(connection: Any, niceness: int = 0) -> None:
    """The process: run each call it receives and send back (kind, value), until the server has
    gone (its end of the pipe closes)."""
    if niceness and hasattr(os, "nice"):
        try:
            os.nice(niceness)
        except OSError:
            pass
    # Keep off the client's stdin and stdout: a stray print would corrupt the protocol stream, and
    # a pipe held open here would hide the end of the session from the client.
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)
    while True:
        try:
            function, args = connection.recv()
        except (EOFError, OSError):
            return
        try:
            message = (OK, function(*args))
        except Exception as error:
            message = (ERROR, f"{type(error).__name__}: {error}\n{traceback.format_exc()}")
        connection.send(message)
