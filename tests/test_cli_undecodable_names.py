"""Names and notebook text that are not valid Unicode: each file gets its answer, and the run goes on.

On Linux a file name is bytes; Python gives one that is not UTF-8 as a string with surrogates
(`b"bad\\xff.py"` -> `"bad\\udcff.py"`), which no UTF-8 stream or hash input takes as it is. A
notebook is JSON, which can escape a lone surrogate (`"\\ud800"`) that no text holds.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gradlint.report import FORMATS
from support import write

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes on Linux only")

LEGACY = "import torch\nx = torch.autograd.Variable(torch.ones(1))\n"
BAD_NAME = os.fsdecode(b"bad\xff.py")


@pytest.fixture
def named(tmp_path: Path) -> Path:
    write(tmp_path / BAD_NAME, LEGACY)
    write(tmp_path / "good.py", LEGACY)
    return tmp_path


@pytest.mark.parametrize("output_format", sorted(FORMATS))
def test_a_file_name_that_is_not_utf8_is_checked_in_every_output_format(run_cli, named, output_format):
    result = run_cli("check", "--no-cache", "--output-format", output_format, ".")
    assert result.exit_code == 1, result.output
    assert "internal error" not in result.output
    assert "good" in result.output and "bad" in result.output


def test_json_gives_the_name_back_as_python_reads_it(run_cli, named):
    result = run_cli("check", "--output-format", "json", ".")
    names = {Path(finding["filename"]).name for finding in json.loads(result.stdout)}
    assert names == {"good.py", BAD_NAME}


def test_sarif_gives_the_name_s_bytes_in_its_uri(run_cli, named):
    result = run_cli("check", "--output-format", "sarif", ".")
    uris = {
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for result in json.loads(result.stdout)["runs"][0]["results"]
    }
    assert uris == {"good.py", "bad%FF.py"}


def test_a_terminal_shows_the_name_escaped_and_fix_writes_the_file(run_script, named):
    checked = run_script("check", "--no-cache", ".")
    assert checked.returncode == 1, checked.stderr
    assert b"bad\\udcff.py:2:5: GL101" in checked.stdout
    assert run_script("fix", ".").returncode == 0
    assert (named / BAD_NAME).read_text(encoding="utf-8") == "import torch\nx = torch.ones(1)\n"
    assert run_script("check", ".").returncode == 0  # the cached results of a name that is not UTF-8


def notebook(source: str) -> str:
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": source}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


@pytest.mark.parametrize("output_format", ["text", "json", "sarif"])
def test_a_notebook_cell_with_a_lone_surrogate_is_one_line_and_the_run_goes_on(run_cli, tmp_path, output_format):
    write(tmp_path / "surrogate.ipynb", notebook('import torch\ns = "\ud800"\nx = torch.autograd.Variable(torch.ones(1))\n'))
    write(tmp_path / "good.py", LEGACY)
    result = run_cli("check", "--no-cache", "--output-format", output_format, ".")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "gradlint: error: surrogate.ipynb: not a valid notebook: the `source` of cell 1 holds a lone surrogate \\ud800"
    ]
    assert "good.py" in result.stdout
