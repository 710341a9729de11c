"""`check --watch`: a run at start, another after a checked file changes, Ctrl-C exits 0."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time

from support import write

LEGACY = "from torch.autograd import Variable\nx = Variable(t)\n"
WATCHING = "Watching for file changes."
DEADLINE_SECONDS = 60  # a bound for a loaded machine; the run itself takes a second or two


def _lines_of(process: subprocess.Popen) -> "queue.Queue[str]":
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _until_watching(lines: "queue.Queue[str]", deadline: float) -> list[str]:
    """The lines of one run, up to the one saying the watch goes on."""
    seen = []
    while not seen or WATCHING not in seen[-1]:
        seen.append(lines.get(timeout=max(0.1, deadline - time.monotonic())))
    return seen


def test_watch_checks_again_after_a_change_and_ctrl_c_exits_zero(tmp_path):
    path = write(tmp_path / "a.py", LEGACY)
    env = {**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "gradlint", "check", "--watch", "--no-cache", "--output-format", "concise", "a.py"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + DEADLINE_SECONDS
        lines = _lines_of(process)
        first = _until_watching(lines, deadline)
        assert "Starting linter in watch mode..." in first[0]
        assert any(line.startswith("a.py:2:5: GL101") for line in first) and not any("a.py:3:" in line for line in first)
        path.write_text(LEGACY + "y = Variable(u)\n", encoding="utf-8")
        second = _until_watching(lines, deadline)
        assert "File change detected..." in second[0]
        assert any(line.startswith("a.py:3:5: GL101") for line in second)
        assert "\x1b[2J" not in "".join(first + second)  # the screen is cleared only on a terminal
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=max(1, deadline - time.monotonic())) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_watch_refuses_fixing_and_stdin(run_cli, tmp_path):
    write(tmp_path / "a.py", LEGACY)
    for options in (("--fix",), ("--fix-only",), ("--diff",), ("--add-noqa",)):
        result = run_cli("check", "--watch", *options, "a.py")
        assert result.exit_code == 2 and "--watch cannot be used with" in result.stderr, options
    result = run_cli("check", "--watch", "-", input=LEGACY)
    assert result.exit_code == 2 and "stdin" in result.stderr


def test_a_removed_or_added_file_is_a_change(tmp_path):
    from gradlint.watch import _stamps

    path = write(tmp_path / "a.py", LEGACY)
    os.utime(tmp_path, (0, 0))  # so that adding a file within the clock's tick still changes it
    before = _stamps([path, tmp_path])
    write(tmp_path / "b.py", LEGACY)  # a new file changes its folder
    assert _stamps(before) != before
    after = _stamps([path])
    path.unlink()
    assert _stamps(after) == {path: None} != after
