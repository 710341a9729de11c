"""The default text output: source line with carets, fixes as diffs, colour rules, statistics and the
progress bar."""

from __future__ import annotations

import io
import os
import pty
import re
import select
import subprocess
import sys

import pytest

from gradlint.terminal import ProgressBar, use_color, wants_progress
from gradlint.report.snippet import display_width
from support import ROOT, write

ANSI = re.compile(r"\x1b\[[0-9;]*m")
LEGACY = "import torch\nfrom torch.autograd import Variable\nx = Variable(torch.ones(2))\n"


@pytest.fixture(autouse=True)
def no_color_settings(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def caret_columns(output: str) -> list[tuple[int, int]]:
    """(first caret cell, caret count) of each caret line, in cells after the gutter."""
    found = []
    for line in output.splitlines():
        match = re.match(r"^\s*\| (\s*)(\^+) GL\d{3}$", line)
        if match:
            found.append((display_width(match.group(1)), len(match.group(2))))
    return found


def test_the_offending_line_is_shown_with_carets_under_the_span(run_cli, tmp_path):
    write(tmp_path / "a.py", LEGACY)
    output = run_cli("check", "a.py").output
    assert " | x = Variable(torch.ones(2))" in output
    assert caret_columns(output) == [(4, len("Variable(torch.ones(2))"))]
    assert "= safe fix: " in output
    assert " - x = Variable" not in output  # the diff only with --show-fixes


@pytest.mark.parametrize(
    "prefix, cells",
    [("y = 1; ", 7), ("s = '😀'; ", 10), ("s = '漢字'; ", 12), ("\t", 4), ("s = 'e\u0301'; ", 9)],
    ids=["ascii", "emoji", "cjk", "tab", "combining"],
)
def test_carets_line_up_with_wide_characters_and_tabs(run_cli, tmp_path, prefix, cells):
    body = f"if True:\n{prefix}x = Variable(t)\n" if prefix == "\t" else f"{prefix}x = Variable(t)\n"
    write(tmp_path / "a.py", "from torch.autograd import Variable\n" + body)
    output = run_cli("check", "a.py").output
    assert caret_columns(output) == [(cells + 4, len("Variable(t)"))]


def test_a_span_over_several_lines_is_marked_to_the_end_of_its_first_line(run_cli, tmp_path):
    write(tmp_path / "a.py", "from torch.autograd import Variable\nx = Variable(\n    t)\n")
    output = run_cli("check", "a.py").output
    assert caret_columns(output) == [(4, len("Variable("))]


def test_show_fixes_prints_the_fix_as_a_diff(run_cli, tmp_path):
    write(tmp_path / "a.py", LEGACY + "for a, b in loader:\n    loss = f(a)\n    loss.backward()\n    opt.step()\n")
    output = run_cli("check", "--show-fixes", "a.py").output
    assert "3 - x = Variable(torch.ones(2))\n3 + x = torch.ones(2)\n" in output
    assert "unsafe fix (--unsafe-fixes): " in output
    assert "6 -     loss.backward()\n6 +     opt.zero_grad()\n7 +     loss.backward()\n" in output


def test_show_fixes_matches_what_fix_writes(run_cli, tmp_path):
    """Every `+` line of the diff is a line of the fixed file."""
    write(tmp_path / "a.py", LEGACY + "print(loss.data[0])\n")
    output = run_cli("check", "--show-fixes", "a.py").output
    added = [line.split(" + ", 1)[1] for line in output.splitlines() if re.match(r"^\d+ \+ ", line)]
    assert added == ["x = torch.ones(2)", "print(loss.item())"]
    run_cli("fix", "a.py")
    fixed_lines = (tmp_path / "a.py").read_text(encoding="utf-8").splitlines()
    assert all(line in fixed_lines for line in added)


def test_stdin_findings_show_their_source(run_cli):
    output = run_cli("check", "-", "--stdin-filename", "t.py", input=LEGACY).output
    assert " | x = Variable(torch.ones(2))" in output


def test_no_color_when_piped_and_color_only_when_asked(run_cli, tmp_path, monkeypatch):
    write(tmp_path / "a.py", LEGACY)
    assert not ANSI.search(run_cli("check", "a.py").output)  # CliRunner's stdout is not a terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    coloured = run_cli("check", "a.py").output
    assert ANSI.search(coloured)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not ANSI.search(run_cli("check", "a.py").output)


def test_color_decision():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert use_color(Terminal(), {}) is True
    assert use_color(Terminal(), {"NO_COLOR": "1"}) is False
    assert use_color(io.StringIO(), {}) is False
    assert use_color(io.StringIO(), {"FORCE_COLOR": "1"}) is True
    assert use_color(Terminal(), {"TERM": "dumb"}) is False
    assert use_color(Terminal(), {"TERM": "dumb", "FORCE_COLOR": "1"}) is True
    assert use_color(io.StringIO(), {"FORCE_COLOR": "1", "NO_COLOR": "1"}) is False


def test_coloured_text_is_the_plain_text_with_styles(run_cli, tmp_path, monkeypatch):
    write(tmp_path / "a.py", LEGACY + "print(loss.data[0])\n")
    plain = run_cli("check", "--show-fixes", "a.py").output
    monkeypatch.setenv("FORCE_COLOR", "1")
    coloured = run_cli("check", "--show-fixes", "a.py").output
    assert coloured != plain and ANSI.sub("", coloured) == plain


def test_statistics_counts_per_code(run_cli, tmp_path):
    write(tmp_path / "a.py", LEGACY + "y = Variable(t)\nprint(loss.data[0])\n")
    rows = run_cli("check", "--statistics", "a.py").output.splitlines()
    assert [row.split("\t")[:3] for row in rows[:-2]] == [["    2", "GL101", "warning"], ["    1", "GL103", "error  "]]
    assert rows[-2:] == ["Found 3 errors (severity: 1 error, 2 warning).", "[*] 3 fixable with `gradlint fix`."]


def test_the_summary_counts_the_findings_by_severity(run_cli, tmp_path):
    write(tmp_path / "a.py", LEGACY + "print(loss.data[0])\n")
    lines = run_cli("check", "a.py").output.splitlines()
    message = "`Variable(...)` is a no-op wrapper since PyTorch 0.4; use the tensor (`.detach()` keeps the exact meaning)"
    assert lines[0] == f"a.py:3:5: GL101 [*] {message}"  # the line of conventions.md, unchanged
    assert "Found 2 errors (severity: 1 error, 1 warning)." in lines


def test_codes_are_coloured_by_severity(run_cli, tmp_path, monkeypatch):
    """An error's code red, a warning's yellow: on the finding's line, under its carets, in the
    statistics and the summary."""
    write(tmp_path / "a.py", LEGACY + "print(loss.data[0])\n")
    monkeypatch.setenv("FORCE_COLOR", "1")
    red, yellow = "\x1b[31m", "\x1b[33m"
    text = run_cli("check", "a.py").output
    finding_lines = [line for line in text.splitlines() if ": GL1" in ANSI.sub("", line)]
    assert yellow + "\x1b[1mGL101" in finding_lines[0] and red + "\x1b[1mGL103" in finding_lines[1]
    assert re.search(re.escape(yellow) + r"\x1b\[1m\^+ GL101", text) and re.search(re.escape(red) + r"\x1b\[1m\^+ GL103", text)
    assert f"1 {red}error" in text and f"1 {yellow}warning" in text
    statistics = run_cli("check", "--statistics", "a.py").output
    assert yellow + "\x1b[1mGL101" in statistics and red + "\x1b[1mGL103" in statistics
    concise = run_cli("check", "--output-format", "concise", "a.py").output
    assert yellow + "\x1b[1mGL101" in concise


def test_progress_bar_only_for_a_person_at_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert wants_progress(Terminal(), Terminal(), {})
    assert not wants_progress(Terminal(), Terminal(), {"CI": "true"})
    assert not wants_progress(Terminal(), Terminal(), {"GITHUB_ACTIONS": "true"})
    assert not wants_progress(io.StringIO(), Terminal(), {})
    assert not wants_progress(Terminal(), io.StringIO(), {})  # findings piped into another program


def test_progress_bar_draws_and_erases_itself():
    stream = io.StringIO()
    bar = ProgressBar(stream, minimum=300)
    for done in range(1, 401):
        bar(done, 400)
    assert "400/400 files" in stream.getvalue() and "[" + "#" * 30 + "]" in stream.getvalue()
    assert stream.getvalue().count("\r") <= 32  # redrawn when the bar moves, not per file
    bar.close()
    assert stream.getvalue().endswith("\r\x1b[K")
    quiet = io.StringIO()
    small = ProgressBar(quiet, minimum=300)
    small(10, 10)
    small.close()
    assert quiet.getvalue() == ""


def _read_all(descriptor: int, process: subprocess.Popen) -> bytes:
    data = b""
    while True:
        ready, _, _ = select.select([descriptor], [], [], 120)
        if not ready:
            process.kill()
            raise AssertionError("gradlint did not finish")
        try:
            chunk = os.read(descriptor, 65536)
        except OSError:  # the terminal closed: the process is done
            return data
        if not chunk:
            return data
        data += chunk


def _run_on_terminals(args: list[str], cwd, env: dict, stdout_terminal: bool) -> tuple[bytes, bytes, int]:
    """Run gradlint with stderr on a pseudo-terminal, and stdout on another one or on a pipe."""
    error_side, error_terminal = pty.openpty()
    if stdout_terminal:
        output_side, output_terminal = pty.openpty()
    else:
        output_side, output_terminal = os.pipe()
    process = subprocess.Popen([sys.executable, "-m", "gradlint", *args], cwd=cwd, env=env, stdout=output_terminal, stderr=error_terminal)
    os.close(error_terminal)
    os.close(output_terminal)
    stdout = _read_all(output_side, process)  # small output: fits the buffers, no interleaving needed
    stderr = _read_all(error_side, process)
    process.wait(timeout=60)
    os.close(error_side)
    os.close(output_side)
    return stdout, stderr, process.returncode


@pytest.mark.parametrize("situation", ["terminal", "ci", "piped"])
def test_progress_bar_on_a_terminal_in_a_real_run(tmp_path, situation):
    for number in range(320):
        write(tmp_path / "pkg" / f"m{number}.py", f"import torch\nx{number} = torch.ones({number})\n")
    write(tmp_path / "pkg" / "bad.py", LEGACY)
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR", "TERM")}
    env["NO_COLOR"] = "1"
    if situation == "ci":
        env["CI"] = "true"
    stdout, stderr, code = _run_on_terminals(["check", "--no-cache", "pkg"], tmp_path, env, stdout_terminal=situation != "piped")
    assert code == 1
    assert b"files" not in stdout and b"GL101" in stdout  # findings on stdout, never the bar
    if situation == "terminal":
        assert b"/321 files" in stderr and stderr.endswith(b"\r\x1b[K")
    else:
        assert b"files" not in stderr


def test_readme_sample_output_is_what_check_prints(run_cli, tmp_path):
    """The output block of README's "Checking" section, for tests/data/readme/train.py."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Checking\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)
    (sample,) = [text for language, text in blocks if not language]
    write(tmp_path / "train.py", (ROOT / "tests" / "data" / "readme" / "train.py").read_text(encoding="utf-8"))
    assert run_cli("check", "train.py").output == sample
