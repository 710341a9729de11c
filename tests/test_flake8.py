"""The flake8 plugin, through the real flake8: same rows, flake8-convention columns."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from gradlint.config import left_out_by_default
from support import ROOT, readme_block, write

# flake8 parses a file before running any plugin: a file Python cannot parse is flake8's E999.
ASYNC_KEYWORDS = ROOT / "fixtures" / "GL501_async_keyword_argument" / "bad.py"
FIXTURE_FILES = sorted(p for p in (ROOT / "fixtures").glob("GL[1-9]*/bad.py") if p != ASYNC_KEYWORDS)


def flake8(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "GL", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def gradlint_json(*paths) -> list[dict]:
    """`gradlint check` with every rule flake8 runs: the default selection and those it leaves out."""
    every_rule = ("--extend-select", ",".join(sorted(left_out_by_default() - {"GL900"})))
    result = subprocess.run(
        [sys.executable, "-m", "gradlint", "check", *every_rule, "--output-format", "json", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(result.stdout)


def test_plugin_is_registered():
    result = subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True)
    assert "gradlint" in result.stdout


def test_flake8_reports_the_same_findings_as_gradlint_on_the_fixtures():
    assert FIXTURE_FILES, "no fixtures to compare"
    result = flake8("--format", "%(path)s|%(row)d|%(col)d|%(code)s", *map(str, FIXTURE_FILES))
    flake8_rows = set()
    for line in result.stdout.splitlines():
        path, row, col, code = line.split("|")
        flake8_rows.add((str((ROOT / path).resolve()) if not path.startswith("/") else path, int(row), int(col), code))
    expected = {(f["filename"], f["location"]["row"], f["location"]["column"], f["code"]) for f in gradlint_json(*FIXTURE_FILES)}
    assert expected
    assert flake8_rows == expected


def test_async_keyword_file_is_flake8s_syntax_error_where_python_stops():
    result = flake8("--select", "GL,E999", "--format", "%(row)d|%(col)d|%(code)s", str(ASYNC_KEYWORDS))
    assert result.stdout.split() == ["9|30|E999"]


def test_flake8_noqa_is_honoured_the_flake8_way(tmp_path):
    write(tmp_path / "a.py", "from torch.autograd import Variable\nx = Variable(t)  # noqa: GL101\ny = Variable(t)  # noqa:E501\n")
    result = flake8("a.py", cwd=tmp_path)
    assert re.findall(r"a\.py:(\d+):(\d+): (GL\d+)", result.stdout) == [("3", "5", "GL101")]
    assert result.returncode == 1


def test_readme_flake8_command(tmp_path):
    command = readme_block("### flake8", "sh").split()
    assert command[:3] == ["flake8", "--select", "GL,E999"]
    write(
        tmp_path / "src" / "train.py",
        "from torch.autograd import Variable\nx = Variable(t)\nx = 1  # a long line is fine under --select GL" + " " * 80 + "\n",
    )
    result = subprocess.run([sys.executable, "-m", *command], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert re.findall(r"(GL\d+|E\d+)", result.stdout) == ["GL101"] and result.returncode == 1


def test_readme_flake8_command_fails_on_a_file_flake8_cannot_parse(tmp_path):
    """flake8 runs no plugin on `.cuda(async=True)` (a syntax error since Python 3.7): the gate
    must not pass it silently."""
    command = readme_block("### flake8", "sh").split()
    write(tmp_path / "src" / "train.py", "import torch\nx = torch.zeros(2).cuda(async=True)\n")
    result = subprocess.run([sys.executable, "-m", *command], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert re.findall(r"(GL\d+|E\d+)", result.stdout) == ["E999"] and result.returncode == 1


def test_readme_flake8_config_and_which_settings_win(tmp_path):
    """The README's `[flake8]` block: GL runs beside pycodestyle, flake8's per-file-ignores apply,
    and `[tool.gradlint]` does not (flake8 decides what it reports)."""
    write(tmp_path / "setup.cfg", readme_block("### flake8", "ini"))
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nignore = ["GL101"]\n')
    legacy = "from torch.autograd import Variable\nx = Variable(t)\n"
    write(tmp_path / "src" / "train.py", legacy)
    write(tmp_path / "tests" / "train_smoke.py", legacy + "for a in loader:\n    loss = f(a)\n    loss.backward()\n    opt.step()\n")
    write(tmp_path / "src" / "exempt.py", "# gradlint: noqa\n" + legacy)
    result = subprocess.run([sys.executable, "-m", "flake8", "src", "tests"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    reported = sorted(re.findall(r"^(\S+):\d+:\d+: (GL\d+)", result.stdout, re.M))
    assert reported == [("src/train.py", "GL101"), ("tests/train_smoke.py", "GL101")]  # GL201 ignored in tests/
    gradlint = subprocess.run(
        [sys.executable, "-m", "gradlint", "check", "--output-format", "concise", "src", "tests"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "GL101" not in gradlint.stdout and "GL201" in gradlint.stdout  # gradlint reads [tool.gradlint]


def test_a_named_notebook_is_reported_at_the_rows_of_its_json(tmp_path):
    """flake8 knows only the file's rows: each finding points at the line of the JSON that holds
    the cell's line, at its column (there are no escapes before it here)."""
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Training\n"]},
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": ["import torch\n", "from torch.autograd import Variable\n"],
        },
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": ["x = 1\n", "y = Variable(t)\n"]},
    ]
    data = {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(data, indent=1) + "\n"
    write(tmp_path / "train.ipynb", text)
    result = flake8("--format", "%(row)d|%(col)d|%(code)s", "train.ipynb", cwd=tmp_path)
    row = next(number for number, line in enumerate(text.splitlines(), 1) if "y = Variable(t)" in line)
    column = text.splitlines()[row - 1].index('"y = ') + 1 + len("y = ") + 1
    assert result.stdout.split() == [f"{row}|{column}|GL101"]


def test_a_file_gradlint_could_not_check_is_a_gl000_row_not_a_pass(tmp_path):
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "x = 1\n"}], "nbformat": 3}
    write(tmp_path / "old.ipynb", json.dumps(notebook))
    result = flake8("--format", "%(path)s|%(row)d|%(col)d|%(code)s|%(text)s", "old.ipynb", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "old.ipynb|1|1|GL000|gradlint: unsupported notebook format 3 (nbformat 4 expected; convert it with `jupyter nbconvert --to notebook`)",
    ]


def test_gradlint_errors_and_warnings_are_gl0xx_rows_on_the_first_line(monkeypatch):
    from gradlint import flake8_plugin
    from gradlint.pipeline import SourceResult

    def failing(source, name, codes, **options):
        return SourceResult(name, error="internal error: ValueError: boom", warning="not analysed: too large")

    monkeypatch.setattr(flake8_plugin, "check_source", failing)
    rows = list(flake8_plugin.GradlintPlugin(None, "train.py", ["x = 1\n"]).run())
    assert [row[:3] for row in rows] == [
        (1, 0, "GL000 gradlint: internal error: ValueError: boom"),
        (1, 0, "GL009 gradlint: not analysed: too large"),
    ]
