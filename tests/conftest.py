from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradlint.cli import cli


@pytest.fixture
def run_cli(tmp_path, monkeypatch):
    """Invoke the click command in-process with `tmp_path` as the working directory."""
    monkeypatch.chdir(tmp_path)

    def invoke(*args: str, input: bytes | str | None = None):
        return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)

    return invoke


@pytest.fixture
def run_script(tmp_path):
    """Run the installed console script in a subprocess (as a user would)."""

    def invoke(*args: str, cwd: Path | None = None, input: bytes | None = None):
        env = {**os.environ, "NO_COLOR": "1"}
        return subprocess.run(
            [sys.executable, "-m", "gradlint", *args],
            cwd=cwd or tmp_path,
            input=input,
            capture_output=True,
            env=env,
            timeout=120,
        )

    return invoke


@pytest.fixture(scope="module")
def one_torch_thread():
    """Scripts of a few tiny steps run faster on one thread: on a busy machine, starting torch's
    thread pool costs more than the arithmetic. Modules that run such scripts use it."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# Hypothesis profiles. The default profile is hypothesis's own; each fuzz test in test_fuzz.py
# draws a bounded, derandomized number of examples under it. `pytest --hypothesis-profile=long`
# lets every fuzz test draw thousands of randomized examples (failures are kept in .hypothesis/).
from hypothesis import HealthCheck, settings as hypothesis_settings  # noqa: E402

hypothesis_settings.register_profile("long", max_examples=3000, deadline=None, derandomize=False, suppress_health_check=list(HealthCheck))
