"""A worker process that dies (out of memory in LibCST's native parser) costs one file, not the run."""

from __future__ import annotations

import os

import pytest

from gradlint import runner
from gradlint.config import Overrides, load_settings
from gradlint.pool import MIN_FILES_PER_WORKER, map_in_pool

MAIN_PROCESS = os.getpid()  # forked workers inherit it
KILLER = 5


def double_or_die(item: int) -> int:
    if item == KILLER:
        if os.getpid() == MAIN_PROCESS:
            raise AssertionError("the item that kills its process was run in the main process")
        os._exit(1)  # as an abort on a failed allocation: no exception, no clean-up
    return 2 * item


def test_a_dying_worker_costs_only_its_item():
    work = list(range(4 * MIN_FILES_PER_WORKER))
    seen = []
    results = map_in_pool(double_or_die, work, jobs=2, progress=lambda done, total: seen.append((done, total)), crashed=lambda item: -item)
    assert results == [-item if item == KILLER else 2 * item for item in work]
    assert seen[-1] == (len(work), len(work))


def test_without_a_crash_result_the_pool_error_is_raised():
    from concurrent.futures.process import BrokenProcessPool

    with pytest.raises(BrokenProcessPool):
        map_in_pool(double_or_die, list(range(4 * MIN_FILES_PER_WORKER)), jobs=2)


def test_a_file_whose_worker_dies_gets_a_one_line_error(tmp_path, monkeypatch):
    for number in range(2 * MIN_FILES_PER_WORKER):
        (tmp_path / f"f{number}.py").write_text("import torch\nx = torch.autograd.Variable(t)\n" + ("# killer\n" if number == 3 else ""))
    monkeypatch.setattr(runner, "_check_item", _die_on_killer)
    settings = load_settings(None, Overrides(), cwd=tmp_path)
    summary = runner.check_paths([tmp_path], settings, jobs=2, use_cache=False)
    assert [(os.path.basename(path), error) for path, error in summary.errors] == [("f3.py", runner.WORKER_DIED)]
    assert sorted(os.path.basename(finding.path) for finding in summary.findings) == sorted(
        f"f{number}.py" for number in range(2 * MIN_FILES_PER_WORKER) if number != 3
    )


_original_check_item = runner._check_item


def _die_on_killer(item):
    if item.raw.endswith(b"# killer\n"):
        if os.getpid() == MAIN_PROCESS:
            raise AssertionError("the file that kills its process was run in the main process")
        os._exit(1)
    return _original_check_item(item)
