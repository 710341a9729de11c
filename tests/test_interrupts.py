"""SIGINT and SIGTERM at any point of `gradlint fix` over a tree of a few hundred legacy files.

Each run is a real process, stopped after a seeded random delay or as soon as it has written its
first file (the write phase), with one worker and with two, the signal sent to the process alone
or, as a terminal's Ctrl-C does, to its whole process group (the workers too). Afterwards every
file is byte-equal to its original or to what an uninterrupted run makes of it, and compiles;
the files whose fixes depend on each other are both old or both new; no temporary file is left;
the run ends with 130 (SIGINT) or 143 (SIGTERM) and the single line `gradlint: interrupted by
SIGINT` (or SIGTERM) on stderr, never a traceback. A run the signal reaches only after it has
finished ends as usual, with every file fixed.

SIGKILL cannot be caught: it may leave temporary files, and a later fix removes those old enough
not to belong to a fix in progress.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gradlint.files import STALE_SECONDS, TEMPORARY_SUFFIX
from gradlint.interrupts import quiet_worker
from support import ROOT, write

SEED = 1128
COPIES = 8  # of each legacy file below: 8 * 25 + 16 = 216 files
SMALLEST_FIXTURES = 24
MODEL = "import torch\nfrom torch.autograd import Variable\n\n\ndef make(t):\n    return Variable(t)\n"
TRAIN = "from model import *\n\nx = Variable(torch.ones(1))\n"
ARGUMENTS = ("fix", "--unsafe-fixes", "-q")


def legacy_files() -> list[Path]:
    """The smallest fixtures' bad files that compile (a large one takes seconds: this test runs
    many fixes)."""
    bad = [path for path in (ROOT / "fixtures").glob("GL*/bad.py") if _compiles(path.read_bytes())]
    return sorted(bad, key=lambda path: (path.stat().st_size, path.parent.name))[:SMALLEST_FIXTURES]


def _compiles(source: bytes) -> bool:
    try:
        compile(source, "<fixture>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def make_tree(root: Path) -> None:
    for copy in range(COPIES):
        folder = root / f"part{copy}"
        folder.mkdir(parents=True)
        for source in legacy_files():
            shutil.copyfile(source, folder / f"{source.parent.name.lower()}.py")
        shutil.copyfile(ROOT / "examples" / "legacy" / "regression.py", folder / "regression.py")
        (folder / "project").mkdir()
        (folder / "project" / "model.py").write_text(MODEL, encoding="utf-8")
        (folder / "project" / "train.py").write_text(TRAIN, encoding="utf-8")


def snapshot(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*.py"))}


def leftovers(root: Path) -> list[str]:
    return [path.name for path in root.rglob("*") if path.name.endswith((TEMPORARY_SUFFIX, ".tmp"))]


def start(root: Path, jobs: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "gradlint", *ARGUMENTS, "-j", str(jobs), "."],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "NO_COLOR": "1"},
        start_new_session=True,  # its own process group, for the signals sent to the whole group
    )


def wait_until_handled(process: subprocess.Popen) -> None:
    """Until gradlint handles SIGTERM (the first thing it does): earlier, a signal finds no
    gradlint yet, only Python starting."""
    status = Path(f"/proc/{process.pid}/status")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            lines = status.read_text().splitlines()
        except OSError:
            return  # it has just ended
        fields = dict(line.split(":\t", 1) for line in lines if ":\t" in line)
        if int(fields.get("SigCgt", "0"), 16) & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.005)


def inodes(root: Path) -> dict[Path, int]:
    return {path: path.stat().st_ino for path in root.rglob("*.py")}


def wait_for_first_write(before: dict[Path, int], process: subprocess.Popen) -> None:
    """Until some file was replaced (a rename gives it a new inode): the write phase has begun."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        if any(_inode(path) != inode for path, inode in before.items()):
            return
        time.sleep(0.002)


def _inode(path: Path) -> int:
    try:
        return path.stat().st_ino
    except OSError:
        return -1


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The tree, what an uninterrupted run makes of it, and how long that run took."""
    base = tmp_path_factory.mktemp("interrupts")
    make_tree(base / "original")
    assert len(snapshot(base / "original")) >= 200
    shutil.copytree(base / "original", base / "reference")
    began = time.monotonic()
    reference = start(base / "reference", jobs=2)
    _, stderr = reference.communicate(timeout=600)
    assert reference.returncode in (0, 1), stderr.decode()
    return snapshot(base / "original"), snapshot(base / "reference"), time.monotonic() - began, base / "original"


# (signal, workers, the whole process group or the process alone, when)
DELAYS = random.Random(SEED).sample([fraction / 20 for fraction in range(1, 19)], 4)
CASES = [
    (signal.SIGINT, 1, False, DELAYS[0]),
    (signal.SIGINT, 2, True, DELAYS[1]),
    (signal.SIGINT, 2, True, "write phase"),
    (signal.SIGTERM, 1, False, DELAYS[2]),
    (signal.SIGTERM, 2, True, DELAYS[3]),
    (signal.SIGTERM, 1, False, "write phase"),
]


@pytest.mark.parametrize(
    ("signum", "jobs", "group", "moment"), CASES, ids=[f"{s.name}-j{j}-{'group' if g else 'process'}-{m}" for s, j, g, m in CASES]
)
def test_an_interrupted_fix_leaves_every_file_old_or_fixed(corpus, tmp_path, signum, jobs, group, moment):
    original, fixed, duration, source = corpus
    assert original != fixed
    tree = tmp_path / "tree"
    shutil.copytree(source, tree)
    before = inodes(tree)
    process = start(tree, jobs)
    wait_until_handled(process)
    if moment == "write phase":
        wait_for_first_write(before, process)
    else:
        time.sleep(moment * duration)  # a share of an uninterrupted run's time: analysis, mostly
    try:
        if group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
    except ProcessLookupError:
        pass  # it has ended
    _, stderr = process.communicate(timeout=300)
    text = stderr.decode()
    assert "Traceback" not in text
    if process.returncode in (0, 1):  # finished before the signal came
        assert snapshot(tree) == fixed
    else:
        assert process.returncode == 128 + signum, text
        assert text.splitlines() == [f"gradlint: interrupted by {signal.Signals(signum).name}"]
    after = snapshot(tree)
    assert after.keys() == original.keys()
    for name, content in after.items():
        assert content in (original[name], fixed[name]), name
        compile(content, name, "exec")
    for copy in range(COPIES):
        pair = [f"part{copy}/project/{name}" for name in ("model.py", "train.py")]
        assert [after[name] == fixed[name] for name in pair] in ([True, True], [False, False]), pair
    assert leftovers(tree) == []


def age(path: Path, seconds: float) -> None:
    when = time.time() - seconds
    os.utime(path, (when, when))


def test_a_killed_fix_leaves_at_most_temporary_files_that_a_later_fix_removes(corpus, tmp_path):
    original, fixed, _, source = corpus
    tree = tmp_path / "tree"
    shutil.copytree(source, tree)
    before = inodes(tree)
    process = start(tree, 1)
    wait_until_handled(process)
    wait_for_first_write(before, process)
    process.kill()  # SIGKILL: nothing runs after it
    process.communicate(timeout=300)
    after = snapshot(tree)
    for name, content in after.items():
        assert content in (original[name], fixed[name]), name
    temporaries = [path for path in tree.rglob("*") if path.is_file() and not path.name.endswith(".py")]
    assert all(path.name.startswith(".") and path.name.endswith(TEMPORARY_SUFFIX) for path in temporaries)
    for path in temporaries:
        age(path, STALE_SECONDS + 60)
    rerun = start(tree, 1)
    _, stderr = rerun.communicate(timeout=300)
    assert rerun.returncode in (0, 1) and stderr == b""
    assert snapshot(tree) == fixed
    assert leftovers(tree) == []


def test_a_fix_removes_only_the_temporary_files_old_enough_to_be_left_by_a_killed_run(run_cli, tmp_path):
    write(tmp_path / "a.py", "from torch.autograd import Variable\nx = Variable(1)\n")
    stale = write(tmp_path / ".a.py.k1ll3d.gradlint-tmp", "x = 1\n")
    age(stale, STALE_SECONDS + 60)
    recent = write(tmp_path / ".a.py.runn1n.gradlint-tmp", "x = 1\n")  # perhaps a run in progress
    age(recent, STALE_SECONDS - 60)
    assert run_cli("fix", ".").exit_code == 0
    assert not stale.exists() and recent.exists()
    assert (tmp_path / "a.py").read_text() == "x = 1\n"


def test_a_check_removes_the_cache_temporary_files_old_enough_to_be_left_by_a_killed_run(run_cli, tmp_path):
    write(tmp_path / "a.py", "from torch.autograd import Variable\nx = Variable(1)\n")
    stale = write(tmp_path / ".gradlint_cache" / ".results-k1ll3d.tmp", "{")
    age(stale, STALE_SECONDS + 60)
    recent = write(tmp_path / ".gradlint_cache" / ".results-runn1n.tmp", "{")
    assert run_cli("check", ".").exit_code == 1
    assert not stale.exists() and recent.exists()


# -- pool workers -----------------------------------------------------------------------------------


def test_a_pool_worker_leaves_sigint_and_sigterm_to_its_main_process():
    child = os.fork()
    if child == 0:  # pragma: no cover - the forked worker
        code = 1
        try:
            quiet_worker()
            for signum in (signal.SIGINT, signal.SIGTERM):
                os.kill(os.getpid(), signum)
            time.sleep(0.05)  # time for the handlers to run
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_pool_worker_whose_main_process_is_gone_ends_on_sigterm():
    reading, writing = os.pipe()
    middle = os.fork()
    if middle == 0:  # pragma: no cover - the main process, which starts a worker and dies
        os.close(reading)
        if os.fork() == 0:  # the worker
            quiet_worker()
            parent = os.getppid()
            os.kill(parent, signal.SIGKILL)
            while os.getppid() == parent:
                time.sleep(0.01)
            os.write(writing, b"orphaned\n")
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            os.write(writing, b"survived\n")
            os._exit(0)
        time.sleep(120)
        os._exit(0)
    os.close(writing)
    os.waitpid(middle, 0)
    received = b""
    with os.fdopen(reading, "rb") as pipe:  # end of file once the worker is gone
        received = pipe.read()
    assert received == b"orphaned\n"


def test_the_temporary_files_of_a_linked_file_are_looked_for_beside_the_file_itself(run_cli, tmp_path):
    write(tmp_path / "real" / "a.py", "from torch.autograd import Variable\nx = Variable(1)\n")
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "a.py").symlink_to(tmp_path / "real" / "a.py")
    stale = write(tmp_path / "real" / ".a.py.k1ll3d.gradlint-tmp", "x = 1\n")
    age(stale, STALE_SECONDS + 60)
    assert run_cli("fix", "links/a.py").exit_code == 0
    assert not stale.exists()
    assert (tmp_path / "real" / "a.py").read_text() == "x = 1\n"


def test_an_interrupted_run_ends_its_process_without_the_interpreters_shutdown(tmp_path):
    """The analysis thread may be inside LibCST's native parser when the run is interrupted; the
    interpreter's shutdown would then sometimes abort (SIGABRT, exit -6) instead of exiting 130.
    Every clean-up has run by then, so the process ends at once (atexit handlers do not run)."""
    script = (
        "import atexit, gradlint.cli\n"
        "atexit.register(lambda: print('interpreter shut down', flush=True))\n"
        "def interrupted(**options): raise KeyboardInterrupt\n"
        "gradlint.cli.cli = interrupted\n"
        "print('partial output', end='')\n"
        "gradlint.cli.main()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (130, b"partial output", b"gradlint: interrupted by SIGINT\n")
