"""Whole-corpus run: gradlint checks and fixes real-world code without crashing or corrupting it.

The corpus is the `.py` files of the installed torch package and of the rest of this
environment's site-packages (sympy, numpy, networkx, pip, pygments, libcst, setuptools, hypothesis,
pytest...). Every file is checked with every rule (`pipeline.check_source`, as `gradlint check`
does) and, when a finding has a fix, fixed with every fix enabled, unsafe included (`pipeline.fix_source`, in memory,
as `gradlint fix --unsafe-fixes --diff` does: nothing is ever written to site-packages). Fixing a
file without a fixable finding would return it unchanged, so it is not run.

Sample: a fixed sixth of the `.py` files of torch (about 1,150 files) and of the rest of
site-packages (about 2,300 files), chosen by a checksum of each file's path below its root,
so every run sees the same files; `GRADLINT_FULL_CORPUS=1` runs every file. One process pool,
largest files first.

Properties: no exception escapes, no `FileResult.error` and no fixer error (both mean an internal
error), the findings (locations and fix edits) are the same when every position comes from
LibCST's whole-module PositionProvider instead of gradlint's per-statement resolution, every fixed
file compiles with `compile()`, and fixing it again changes nothing.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import sysconfig
import time
import traceback
import warnings
import zlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from gradlint.positions import LazyPositions
from gradlint.rules import all_codes
from gradlint.pipeline import check_source, fix_source

ALL = frozenset(all_codes())


def torch_directory() -> Path:
    """Where torch is installed, found without importing it."""
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.submodule_search_locations, "torch is not installed"
    return Path(list(spec.submodule_search_locations)[0])


SAMPLE_ONE_IN = 1 if os.environ.get("GRADLINT_FULL_CORPUS") else 6


def sampled(path: Path, root: Path) -> bool:
    """The same files on every machine: a checksum of the path below its root."""
    return zlib.crc32(path.relative_to(root).as_posix().encode()) % SAMPLE_ONE_IN == 0


def corpus() -> tuple[list[Path], list[Path]]:
    """(torch's files, the other files of this environment's site-packages), sampled."""
    torch_dir = torch_directory()
    site = torch_dir.parent
    torch_files = sorted(path for path in torch_dir.rglob("*.py") if path.is_file() and sampled(path, site))
    roots = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}
    others = {
        path
        for root in roots
        for path in root.rglob("*.py")
        if path.is_file() and torch_dir.resolve() not in path.resolve().parents and sampled(path, root)
    }
    return torch_files, sorted(others)


def check_and_fix(path: str) -> dict:
    """The outcome for one file: problems found (if any), fixes applied, seconds spent."""
    started = time.perf_counter()
    outcome = {"path": path, "problems": [], "applied": 0, "findings": 0}
    try:
        raw = Path(path).read_bytes()
        result = check_source(raw, path, ALL)  # what `gradlint check` runs on each file
        outcome["findings"] = len(result.findings)
        if result.error is not None:
            outcome["problems"].append(f"check: {result.error}")
        if result.findings:
            # Positions are resolved statement by statement (or class member by class member);
            # LibCST's whole-module provider is the oracle.
            lookup = LazyPositions.lookup
            LazyPositions.lookup = lambda self, node, hint=None: self._whole()[node]
            try:
                expected = check_source(raw, path, ALL)
            finally:
                LazyPositions.lookup = lookup
            if expected.findings != result.findings:
                outcome["problems"].append("lazy positions differ from the whole-module ones")
        if any(finding.fix is not None for finding in result.findings):
            first = fix_source(raw, path, ALL, unsafe=True)  # what `gradlint fix --unsafe-fixes --diff` runs
            fixed = first.fixed
            outcome["problems"] += [f"fix: {first.error}"] if first.error is not None else []
            outcome["applied"] = first.applied
            if fixed is not None and fixed != raw:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        compile(fixed, path, "exec", dont_inherit=True)
                    except SyntaxError as error:
                        outcome["problems"].append(f"fixed text does not compile: {error}")
                again = fix_source(fixed, path, ALL, unsafe=True)
                if again.fixed != fixed or again.error is not None:
                    outcome["problems"].append(f"a second fix changed the file ({again.error})")
    except BaseException:  # noqa: B036 - anything escaping is the bug this test is for
        outcome["problems"].append("exception: " + traceback.format_exc())
    outcome["seconds"] = time.perf_counter() - started
    return outcome


def run_all(paths: list[Path]) -> list[dict]:
    work = sorted((str(path) for path in paths), key=lambda p: -os.path.getsize(p))  # big files first
    workers = os.cpu_count() or 1
    context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return list(pool.map(check_and_fix, work, chunksize=1))


@pytest.mark.slow
def test_corpus_checks_and_fixes_without_crash_or_corruption():
    torch_files, others = corpus()
    assert len(torch_files) > 1000 // SAMPLE_ONE_IN and len(others) > 500 // SAMPLE_ONE_IN
    started = time.perf_counter()
    outcomes = run_all(torch_files + others)
    elapsed = time.perf_counter() - started
    problems = [f"{outcome['path']}: {problem}" for outcome in outcomes for problem in outcome["problems"]]
    assert not problems, "\n".join(problems)
    fixed = [outcome for outcome in outcomes if outcome["applied"]]
    slowest = max(outcomes, key=lambda outcome: outcome["seconds"])
    print(
        f"\n{len(outcomes)} files ({len(torch_files)} torch) in {elapsed:.0f}s; "
        f"{sum(o['findings'] for o in outcomes)} findings; {len(fixed)} files fixed in memory; "
        f"slowest {slowest['path']} ({slowest['seconds']:.1f}s)"
    )
    assert len(fixed) >= 10  # the fixer really ran on real code
