"""bench/default_density.py on a tiny corpus: the lines it counts, the findings it splits by
severity and by default selection, and the figures its report states."""

from __future__ import annotations

import importlib.util
import json
import sys

from support import ROOT, write

spec = importlib.util.spec_from_file_location("default_density", ROOT / "bench" / "default_density.py")
default_density = importlib.util.module_from_spec(spec)
sys.modules["default_density"] = default_density  # dataclasses look their module up while the class is built
spec.loader.exec_module(default_density)

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# a title\n", "text\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": ["import torch\n", "x = 1\n"]},
    ],
    "metadata": {"language_info": {"name": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def test_lines_are_physical_lines_and_a_notebooks_code_cells(tmp_path):
    assert default_density.checked_lines(write(tmp_path / "a.py", "a = 1\n\nb = 2")) == 3
    assert default_density.checked_lines(write(tmp_path / "b.ipynb", json.dumps(NOTEBOOK))) == 2


def test_a_repository_is_measured_with_the_default_and_the_legacy_style_rules(tmp_path):
    repository = tmp_path / "owner+name"
    write(repository / "train.py", "import torch\nx = torch.FloatTensor(3)\nx.cuda()\nn = torch.norm(x)\n")
    measured = default_density.measure(repository, jobs=1)
    assert (measured.name, measured.files, measured.lines) == ("owner+name", 1, 4)
    assert measured.counts == {"GL507": 1, "GL508": 1, "GL610": 1}
    assert measured.findings == 1 and measured.by_severity("error") == 1 and measured.by_severity("warning") == 0


def test_the_report_states_both_figures():
    Repository = default_density.Repository
    severities = {"GL610": "error", "GL101": "warning", "GL303": "warning"}
    repositories = [
        Repository("a", files=2, lines=20_000, counts={"GL610": 2, "GL101": 2, "GL303": 10}, severities=severities),
        Repository("b", files=1, lines=5_000, counts={"GL101": 1}, severities=severities),
    ]
    report = default_density.report(repositories).splitlines()
    assert report[0] == "2 repositories, 3 files, 25000 lines"
    assert report[1] == "defaults: 5 findings (2 error, 3 warning), 2.00 per 10,000 lines"
    assert report[2] == "--fail-on error: 2 findings, 0.80 per 10,000 lines; 1 of 2 repositories pass"
    assert report[3] == "median repository: 2.00 findings, 0.50 errors per 10,000 lines"
    assert report[4].endswith("would add 10 warnings, 4.00 per 10,000 lines")
    assert "| GL303 | warning | 10 | 4.00 | no |" in report and "| GL610 | error | 2 | 0.80 | yes |" in report
