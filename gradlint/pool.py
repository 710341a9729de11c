"""Map a function over per-file work items, in a process pool when there is enough work to pay for it."""

from __future__ import annotations

import os
import gc
from typing import Callable, Iterable, Optional, TypeVar

from gradlint.interrupts import quiet_worker

MIN_FILES_PER_WORKER = 8
Progress = Callable[[int, int], None]  # (files done, files to do)
T = TypeVar("T")
R = TypeVar("R")


def tune_garbage_collector() -> None:
    """Fewer, cheaper cyclic collections for a run. A LibCST tree is millions of small objects
    with hardly a reference cycle among them: at the default threshold (700 allocations) the
    collector runs tens of thousands of times per run and finds nearly nothing. The objects that
    exist now (modules, rule classes) are moved out of its sight for good."""
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def start_worker() -> None:
    """A worker's set-up: interrupts are the main process's to handle, and the collector is tuned."""
    quiet_worker()
    tune_garbage_collector()


def worker_count(jobs: int) -> int:
    return jobs if jobs > 0 else (os.cpu_count() or 1)


def map_in_pool(
    function: Callable[[T], R],
    work: list[T],
    jobs: int,
    progress: Optional[Progress] = None,
    weight: Optional[Callable[[T], int]] = None,
    prepare: Optional[Callable[[list[T]], None]] = None,
    crashed: Optional[Callable[[T], R]] = None,
) -> list[R]:
    """`[function(item) for item in work]`, in a process pool when there is enough work to pay for it
    (`jobs` 0 = all cores). `progress(done, total)` is called as results arrive. `weight` (an item's
    expected cost): the pool starts with the heaviest items, in small chunks, so that no worker is
    left with a large file while the others are done. `prepare(work)` runs here before a pool
    starts: what it imports, forked workers inherit instead of each importing it again.

    A worker that dies (LibCST's native parser aborts when memory runs out) does not take the run
    with it: the results that arrived are kept, the items left are run again one at a time in a
    fresh worker, and the item that kills its worker gets `crashed(item)` (without `crashed`, the
    pool's error is raised). The item is never run in this process, which it would kill too."""
    workers = min(worker_count(jobs), len(work) // MIN_FILES_PER_WORKER)
    if workers <= 1:
        return _collect((function(item) for item in work), len(work), progress)
    if prepare is not None:
        prepare(work)
    order = sorted(range(len(work)), key=lambda i: weight(work[i]), reverse=True) if weight is not None else list(range(len(work)))
    chunk = max(1, len(work) // (workers * (64 if weight is not None else 8)))
    results: dict[int, R] = {}
    counter = _Progress(len(work), progress)
    try:
        left = _run_pool(function, work, [order[i : i + chunk] for i in range(0, len(order), chunk)], workers, results, counter)
        while left:
            left = _run_isolated(function, work, left, results, counter, crashed)
    except OSError:
        return _collect((function(item) for item in work), len(work), progress)  # no processes here: stay correct
    return [results[position] for position in range(len(work))]


class _Progress:
    def __init__(self, total: int, report: Optional[Progress]) -> None:
        self.done, self.total, self.report = 0, total, report

    def add(self, count: int) -> None:
        self.done += count
        if self.report is not None:
            self.report(self.done, self.total)


def _apply(function: Callable[[T], R], items: list[T]) -> list[R]:
    return [function(item) for item in items]


def _run_pool(
    function: Callable[[T], R], work: list[T], chunks: list[list[int]], workers: int, results: dict[int, R], counter: _Progress
) -> list[int]:
    """Run `chunks` (positions in `work`) in a pool of `workers`, results into `results`; the
    positions left without a result when a worker died."""
    # Imported here: a run of one process, and a command that checks nothing, need no pool.
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(max_workers=workers, initializer=start_worker) as pool:
        futures = {pool.submit(_apply, function, [work[i] for i in positions]): positions for positions in chunks}
        for future in as_completed(futures):
            try:
                done = future.result()
            except BrokenProcessPool:
                break
            results.update(zip(futures[future], done))
            counter.add(len(done))
        for future, positions in futures.items():  # those that finished before the worker died
            if future.done() and not future.cancelled() and future.exception() is None and positions[0] not in results:
                results.update(zip(positions, future.result()))
                counter.add(len(positions))
    return [position for positions in chunks for position in positions if position not in results]


def _run_isolated(
    function: Callable[[T], R],
    work: list[T],
    left: list[int],
    results: dict[int, R],
    counter: _Progress,
    crashed: Optional[Callable[[T], R]],
) -> list[int]:
    """Run the items at `left` in order in one fresh worker until it dies: the item it was
    running then gets `crashed(item)`. The positions still to run."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(max_workers=1, initializer=start_worker) as pool:
        futures = [pool.submit(function, work[position]) for position in left]
        for number, (position, future) in enumerate(zip(left, futures)):
            try:
                results[position] = future.result()
            except BrokenProcessPool:
                if crashed is None:
                    raise
                results[position] = crashed(work[position])  # one worker, items in order: this one killed it
                counter.add(1)
                return left[number + 1 :]
            counter.add(1)
    return []


def _collect(results: Iterable[R], total: int, progress: Optional[Progress]) -> list[R]:
    if progress is None:
        return list(results)
    collected = []
    for result in results:
        collected.append(result)
        progress(len(collected), total)
    return collected
