"""The flake8 plugin, through the real flake8: same rows, flake8-convention columns."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from support import ROOT, write

FIXTURE_FILES = sorted(
    p for p in (ROOT / "fixtures").glob("GL[1-9]*/bad.py")
)


def flake8(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "GL", *args],
        capture_output=True, text=True, cwd=cwd, timeout=120,
    )


def gradlint_json(*paths) -> list[dict]:
    result = subprocess.run(
        [sys.executable, "-m", "gradlint", "check", "--output-format", "json", *map(str, paths)],
        capture_output=True, text=True, timeout=120,
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
    expected = {
        (f["filename"], f["location"]["row"], f["location"]["column"], f["code"])
        for f in gradlint_json(*FIXTURE_FILES)
    }
    assert expected
    assert flake8_rows == expected


def test_flake8_noqa_is_honoured_the_flake8_way(tmp_path):
    write(tmp_path / "a.py", "from torch.autograd import Variable\nx = Variable(t)  # noqa: GL101\ny = Variable(t)  # noqa:E501\n")
    result = flake8("a.py", cwd=tmp_path)
    assert re.findall(r"a\.py:(\d+):(\d+): (GL\d+)", result.stdout) == [("3", "5", "GL101")]
    assert result.returncode == 1
