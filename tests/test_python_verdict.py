"""A program the running CPython refuses is GL001, never fixed, even where LibCST's grammar takes it.

LibCST parses some programs CPython rejects only after parsing, when it builds the symbol table or
the bytecode (`return` outside a function, `nonlocal` without a binding, `break` outside a loop).
Their findings would be "fixed" into a program that still does not run; the file is reported as
CPython reports it instead, and left as it is.
"""

from __future__ import annotations

import json

import pytest
from support import write

HEADER = "import torch\nfrom torch.autograd import Variable\nx = Variable(t)\n"
REFUSED = {
    "return_outside.py": ("return 5\n", 4, "'return' outside function"),
    "nonlocal_unbound.py": ("def f():\n    nonlocal q\n", 5, "no binding for nonlocal 'q' found"),
    "break_outside.py": ("break\n", 4, "'break' outside loop"),
    "yield_outside.py": ("y = yield 1\n", 4, "'yield' outside function"),
    "duplicate_parameter.py": ("def f(a, a):\n    pass\n", 4, "duplicate argument 'a' in function definition"),
}


def check_json(run_cli, *args: str) -> list[dict]:
    result = run_cli("check", "--no-cache", "--output-format", "json", *args)
    assert "Traceback" not in result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_program_cpython_refuses_is_gl001_at_cpython_row(run_cli, tmp_path, name):
    tail, row, message = REFUSED[name]
    write(tmp_path / name, HEADER + tail)
    findings = check_json(run_cli, name)
    assert [(finding["code"], finding["location"]["row"]) for finding in findings] == [("GL001", row)]
    assert message in findings[0]["message"]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_program_cpython_refuses_is_not_fixed(run_cli, tmp_path, name):
    tail, _, _ = REFUSED[name]
    path = write(tmp_path / name, HEADER + tail)
    before = path.read_bytes()
    result = run_cli("fix", "--unsafe-fixes", name)
    assert "Traceback" not in result.output
    assert path.read_bytes() == before
    assert result.exit_code == 1


def test_gl001_deselected_still_leaves_the_file_unfixed(run_cli, tmp_path):
    path = write(tmp_path / "refused.py", HEADER + "return 5\n")
    before = path.read_bytes()
    run_cli("fix", "--ignore", "GL001", "refused.py")
    assert path.read_bytes() == before
    assert check_json(run_cli, "--ignore", "GL001", "refused.py") == []


def test_async_keyword_calls_are_still_analysed_and_fixed(run_cli, tmp_path):
    """`x.cuda(async=True)` does not compile since Python 3.7: GL501 exists to fix it."""
    path = write(tmp_path / "legacy.py", "import torch\nx = torch.zeros(2)\ny = x.cuda(async=True)\n")
    assert [finding["code"] for finding in check_json(run_cli, "legacy.py")] == ["GL501"]
    run_cli("fix", "legacy.py")
    assert "non_blocking=True" in path.read_text()


def test_a_notebook_cell_may_await_at_top_level(run_cli, tmp_path):
    """IPython runs top-level `await` in a cell: the notebook is analysed, not refused."""
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": HEADER + "await f()\n"}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    write(tmp_path / "nb.ipynb", json.dumps(notebook))
    assert [finding["code"] for finding in check_json(run_cli, "nb.ipynb")] == ["GL101"]
