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
) -> list[R]:
    """`[function(item) for item in work]`, in a process pool when there is enough work to pay for it
    (`jobs` 0 = all cores). `progress(done, total)` is called as results arrive. `weight` (an item's
    expected cost): the pool starts with the heaviest items, in small chunks, so that no worker is
    left with a large file while the others are done. `prepare(work)` runs here before a pool
    starts: what it imports, forked workers inherit instead of each importing it again."""
    workers = min(worker_count(jobs), len(work) // MIN_FILES_PER_WORKER)
    if workers <= 1:
        return _collect((function(item) for item in work), len(work), progress)
    if prepare is not None:
        prepare(work)
    # Imported here: a run of one process, and a command that checks nothing, need no pool.
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    order = sorted(range(len(work)), key=lambda i: weight(work[i]), reverse=True) if weight is not None else list(range(len(work)))
    chunk = max(1, len(work) // (workers * (64 if weight is not None else 8)))
    try:
        with ProcessPoolExecutor(max_workers=workers, initializer=start_worker) as pool:
            done = _collect(pool.map(function, [work[i] for i in order], chunksize=chunk), len(work), progress)
    except (OSError, BrokenProcessPool):
        return _collect((function(item) for item in work), len(work), progress)  # no processes here: stay correct
    results: list[R] = [None] * len(work)  # type: ignore[list-item]
    for position, result in zip(order, done):
        results[position] = result
    return results


def _collect(results: Iterable[R], total: int, progress: Optional[Progress]) -> list[R]:
    if progress is None:
        return list(results)
    collected = []
    for result in results:
        collected.append(result)
        progress(len(collected), total)
    return collected
