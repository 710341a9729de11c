"""Whole-corpus run: gradlint checks and fixes real-world code without crashing or corrupting it.

The corpus is the `.py` files of the installed torch package and of the rest of this
environment's site-packages (sympy, numpy, networkx, pip, pygments, libcst, setuptools, hypothesis,
pytest...). Every file is checked with every rule (`lint_bytes`, as `gradlint check` does) and,
when a finding has a fix, fixed with every fix enabled, unsafe included (`fix_text`, in memory,
as `gradlint fix --unsafe-fixes --diff` does: nothing is ever written to site-packages). Fixing a
file without a fixable finding would return it unchanged, so it is not run.

Sample (deterministic, to stay within a few minutes on two cores):

* torch: every `.py` file (about 2,300 files, 46 MB).
* the rest of site-packages: the files whose SHA-1 of the path relative to site-packages starts
  with a hex digit in `OTHER_SAMPLE` (a quarter of them) and that are at most `OTHER_MAX_BYTES`
  large.

Properties: no exception escapes, no `FileResult.error` and no fixer error (both mean an internal
error), every fixed file compiles with `compile()`, and fixing it again changes nothing.
"""

from __future__ import annotations

import hashlib
import importlib.util
import multiprocessing
import os
import time
import traceback
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from gradlint.engine import lint_bytes
from gradlint.fixer import fix_text
from gradlint.rules import all_codes
from gradlint.source import UndecodableSource, decode_source

ALL = frozenset(all_codes())
OTHER_SAMPLE = "0123"  # first hex digit of sha1(relative path): 4 of 16
OTHER_MAX_BYTES = 150_000


def torch_directory() -> Path:
    """Where torch is installed, found without importing it."""
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.submodule_search_locations, "torch is not installed"
    return Path(list(spec.submodule_search_locations)[0])


def corpus() -> tuple[list[Path], list[Path]]:
    torch_dir = torch_directory()
    site = torch_dir.parent
    torch_files = sorted(torch_dir.rglob("*.py"))
    others = []
    for path in sorted(site.rglob("*.py")):
        relative = path.relative_to(site).as_posix()
        if relative.startswith("torch/") or not path.is_file():
            continue
        if hashlib.sha1(relative.encode()).hexdigest()[0] in OTHER_SAMPLE and path.stat().st_size <= OTHER_MAX_BYTES:
            others.append(path)
    return torch_files, others


def check_and_fix(path: str) -> dict:
    """The outcome for one file: problems found (if any), fixes applied, seconds spent."""
    started = time.perf_counter()
    outcome = {"path": path, "problems": [], "applied": 0, "findings": 0}
    try:
        raw = Path(path).read_bytes()
        result = lint_bytes(raw, path, ALL)
        outcome["findings"] = len(result.findings)
        if result.error is not None:
            outcome["problems"].append(f"check: {result.error}")
        if any(finding.fix is not None for finding in result.findings):
            text, _ = decode_source(raw)
            fixed = fix_text(text, path, ALL, unsafe=True)
            if fixed.error is not None:
                outcome["problems"].append(f"fix: {fixed.error}")
            outcome["applied"] = fixed.applied
            if fixed.text != text:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        compile(fixed.text, path, "exec", dont_inherit=True)
                    except SyntaxError as error:
                        outcome["problems"].append(f"fixed text does not compile: {error}")
                again = fix_text(fixed.text, path, ALL, unsafe=True)
                if again.text != fixed.text or again.error is not None:
                    outcome["problems"].append(f"a second fix changed the text ({again.error})")
    except UndecodableSource:
        pass  # reported as GL002 by lint_bytes; nothing to fix
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
    assert len(torch_files) > 1000 and len(others) > 500
    started = time.perf_counter()
    outcomes = run_all(torch_files + others)
    elapsed = time.perf_counter() - started
    problems = [f"{outcome['path']}: {problem}" for outcome in outcomes for problem in outcome["problems"]]
    assert not problems, "\n".join(problems)
    fixed = [outcome for outcome in outcomes if outcome["applied"]]
    slowest = max(outcomes, key=lambda outcome: outcome["seconds"])
    print(f"\n{len(outcomes)} files ({len(torch_files)} torch) in {elapsed:.0f}s; "
          f"{sum(o['findings'] for o in outcomes)} findings; {len(fixed)} files fixed in memory; "
          f"slowest {slowest['path']} ({slowest['seconds']:.1f}s)")
    assert len(fixed) >= 10  # the fixer really ran on real code
