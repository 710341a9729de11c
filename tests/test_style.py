"""The code is linted and formatted by ruff (configured in pyproject.toml), as part of the tests."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support import ROOT

CHECKED = ("gradlint", "tests", "bench")


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args, *CHECKED], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.parametrize("command", [("check", "--no-fix"), ("format", "--check")], ids=["lint", "format"])
def test_ruff_is_clean(command):
    completed = _ruff(*command)
    assert completed.returncode == 0, completed.stdout + completed.stderr
