"""Fixes that depend on each other across files are written all or none.

`model.py` imports `Variable` and `train.py` uses it through `from model import *`. Fixing both
drops the import from `model.py`, which is right only once `train.py` no longer uses `Variable`:
written alone, `model.py` would break `train.py` (NameError). So the two are staged together (each
new content written and flushed beside its file, each file checked unchanged) before either is
replaced; when one cannot be written (read-only, refused by the system, changed on disk, disk
full, an interrupt) neither is, and both are reported. Files that depend on no other are written
on their own, as before.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gradlint import files, runner
from gradlint.config import Settings
from gradlint.runner import fix_paths
from support import write

MODEL = "import torch\nfrom torch.autograd import Variable\n\n\ndef make(t):\n    return Variable(t)\n"
TRAIN = "from model import *\n\nt = torch.ones(1)\nx = Variable(t)\n"
OTHER = "from torch.autograd import Variable\nx = Variable(1)\n"
FIXED = {
    "model.py": "import torch\n\n\ndef make(t):\n    return t.detach()\n",
    "train.py": "from model import *\n\nt = torch.ones(1)\nx = t\n",
    "other.py": "x = 1\n",
}
ORIGINAL = {"model.py": MODEL, "train.py": TRAIN, "other.py": OTHER}


def project(root: Path) -> Path:
    for name, text in ORIGINAL.items():
        write(root / name, text)
    return root


def contents(root: Path) -> dict[str, str]:
    return {name: (root / name).read_text(encoding="utf-8") for name in ORIGINAL}


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("gradlint: error:")]


def leftovers(root: Path) -> list[str]:
    return [path.name for path in root.rglob(f"*{files.TEMPORARY_SUFFIX}")]


def train_runs(root: Path) -> bool:
    """Whether `python train.py` runs (the NameError a half-written group gives fails it)."""
    return subprocess.run([sys.executable, "train.py"], cwd=root, capture_output=True, timeout=120).returncode == 0


def temporary_names(monkeypatch) -> dict[int, str]:
    """The temporary file behind each descriptor `mkstemp` opened, as the writes make them."""
    opened: dict[int, str] = {}
    real = tempfile.mkstemp

    def spy(*args, **kwargs):
        handle, name = real(*args, **kwargs)
        opened[handle] = name
        return handle, name

    monkeypatch.setattr(tempfile, "mkstemp", spy)
    return opened


def fail_for_train(monkeypatch, error: BaseException) -> None:
    """Creating `train.py`'s temporary file fails with `error`."""
    real = tempfile.mkstemp

    def refuse(*args, prefix="", **kwargs):
        if prefix.startswith(".train.py."):
            raise error
        return real(*args, prefix=prefix, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", refuse)


def read_only(root: Path, monkeypatch) -> str:
    (root / "train.py").chmod(0o444)  # refused by gradlint itself, for root too
    return "read-only; not overwritten"


def refused_by_the_system(root: Path, monkeypatch) -> str:
    fail_for_train(monkeypatch, PermissionError(errno.EACCES, "Permission denied"))  # what a folder we may not write gives
    return "could not write: permission denied"


def changed_during_the_run(root: Path, monkeypatch) -> str:
    real = runner.fix_source

    def meanwhile(raw, name, *args, **kwargs):
        fixed = real(raw, name, *args, **kwargs)
        if name.endswith("train.py"):
            Path(name).write_text(TRAIN + "print(Variable)\n")  # saved by an editor; still uses `Variable`
        return fixed

    monkeypatch.setattr(runner, "fix_source", meanwhile)
    return "changed on disk since it was read; not overwritten"


def disk_full_at_the_flush(root: Path, monkeypatch) -> str:
    opened = temporary_names(monkeypatch)
    real = os.fsync

    def full(descriptor):
        if ".train.py." in opened.get(descriptor, ""):
            raise OSError(errno.ENOSPC, "No space left on device")  # where a full disk shows
        return real(descriptor)

    monkeypatch.setattr(files.os, "fsync", full)
    return "could not write: no space left on device"


class FullDisk:
    """A file being written on a full disk."""

    def __init__(self, out) -> None:
        self.out = out

    def __enter__(self):
        return self

    def __exit__(self, *exception) -> None:
        self.out.close()

    def write(self, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name: str):
        return getattr(self.out, name)


def disk_full_while_writing(root: Path, monkeypatch) -> str:
    opened = temporary_names(monkeypatch)
    real = os.fdopen

    def fdopen(handle, *args, **kwargs):
        out = real(handle, *args, **kwargs)
        return FullDisk(out) if ".train.py." in opened.get(handle, "") else out

    monkeypatch.setattr(files.os, "fdopen", fdopen)
    return "could not write: no space left on device"


def disk_full_at_the_rename(root: Path, monkeypatch) -> str:
    real = os.replace

    def full(source, target):
        if Path(target).name == "train.py":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(source, target)

    monkeypatch.setattr(files.os, "replace", full)  # after model.py was replaced: it is put back
    return "could not write: no space left on device"


@pytest.mark.parametrize(
    "failure",
    [read_only, refused_by_the_system, changed_during_the_run, disk_full_while_writing, disk_full_at_the_flush, disk_full_at_the_rename],
    ids=lambda f: f.__name__,
)
def test_a_file_that_cannot_be_written_keeps_the_files_whose_fix_depends_on_it_unwritten(run_cli, tmp_path, monkeypatch, failure):
    project(tmp_path)
    reason = failure(tmp_path, monkeypatch)
    result = run_cli("fix", ".")
    assert error_lines(result.output) == [
        "gradlint: error: model.py: not written: train.py could not be written",
        f"gradlint: error: train.py: {reason}",
    ]
    assert "Traceback" not in result.output
    after = contents(tmp_path)
    assert after["model.py"] == MODEL
    assert after["train.py"] in (TRAIN, TRAIN + "print(Variable)\n")
    assert after["other.py"] == FIXED["other.py"]  # on its own: written as before
    assert leftovers(tmp_path) == []
    assert result.exit_code == 2
    # Both files not written are reported as what a check finds in them.
    assert "Fixed 1 error, 2 remaining" in result.output
    (tmp_path / "train.py").chmod(0o644)
    monkeypatch.undo()
    assert train_runs(tmp_path)


def test_the_group_is_written_when_nothing_fails(run_cli, tmp_path):
    project(tmp_path)
    result = run_cli("fix", ".")
    assert (result.exit_code, error_lines(result.output)) == (0, [])
    assert contents(tmp_path) == FIXED
    assert train_runs(tmp_path)


def test_an_interrupt_while_a_group_is_staged_writes_none_of_it(run_cli, tmp_path, monkeypatch):
    project(tmp_path)
    fail_for_train(monkeypatch, KeyboardInterrupt())  # model.py's new content is already beside it
    result = run_cli("fix", ".")
    assert result.exit_code == 130
    assert result.output.splitlines()[-1] == "gradlint: interrupted by SIGINT"
    after = contents(tmp_path)
    assert (after["model.py"], after["train.py"]) == (MODEL, TRAIN)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_a_groups_renames_takes_effect_after_the_whole_group(run_cli, tmp_path, monkeypatch, signum):
    from gradlint.interrupts import handle_termination

    previous = signal.getsignal(signal.SIGTERM)
    handle_termination()  # as the command line does
    handlers = [signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)]
    project(tmp_path)
    real = os.replace
    renamed = []

    def signalled(source, target):
        if not renamed:
            os.kill(os.getpid(), signum)  # arrives between the group's first and second rename
        renamed.append(Path(target).name)
        return real(source, target)

    monkeypatch.setattr(files.os, "replace", signalled)
    try:
        result = run_cli("fix", ".")
        assert [signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)] == handlers  # put back
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert result.exit_code == 128 + signum
    assert result.output.splitlines()[-1] == f"gradlint: interrupted by {signal.Signals(signum).name}"
    assert renamed == ["model.py", "train.py"]  # the group, then the interrupt: other.py is not reached
    assert contents(tmp_path) == {**FIXED, "other.py": OTHER}
    assert leftovers(tmp_path) == []


def test_a_failed_group_puts_back_a_hard_linked_file_it_rewrote_in_place(run_cli, tmp_path, monkeypatch):
    project(tmp_path)
    os.link(tmp_path / "train.py", tmp_path / "train_link.txt")

    def full(source, target):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "replace", full)  # model.py's rename, after train.py was rewritten in place
    result = run_cli("fix", "model.py", "train.py")
    assert error_lines(result.output) == [
        "gradlint: error: model.py: could not write: no space left on device",
        "gradlint: error: train.py: not written: model.py could not be written",
    ]
    assert (tmp_path / "train.py").read_text() == (tmp_path / "train_link.txt").read_text() == TRAIN
    assert (tmp_path / "model.py").read_text() == MODEL
    assert leftovers(tmp_path) == []


def test_files_are_grouped_by_the_imports_their_fixes_drop_for_each_other(tmp_path, monkeypatch):
    project(tmp_path)
    write(tmp_path / "chain" / "base.py", "from torch.autograd import Variable\n")
    write(tmp_path / "chain" / "middle.py", "from base import *\n")
    write(tmp_path / "chain" / "top.py", "from middle import *\nx = Variable(1)\n")
    write(tmp_path / "alone.py", "import model\nx = model.make(1)\n")  # uses model.py, not what it drops
    groups = []
    real = runner.written_together

    def spy(paths, originals, results, roots, changed):
        found = real(paths, originals, results, roots, changed)
        groups.extend(sorted(Path(paths[index]).relative_to(tmp_path).as_posix() for index in group) for group in found)
        return found

    monkeypatch.setattr(runner, "written_together", spy)
    summary = fix_paths([tmp_path], Settings(root=tmp_path), diff=False, jobs=1)
    assert summary.errors == []
    assert sorted(groups) == [["chain/base.py", "chain/top.py"], ["model.py", "train.py"], ["other.py"]]
