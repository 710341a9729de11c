"""Linting never imports torch (users lint on machines without it) nor the code it checks."""

from __future__ import annotations

import subprocess
import sys

from support import write

PROBE = """
import sys
from pathlib import Path
from gradlint.config import Overrides, load_settings
from gradlint.runner import check_paths, fix_paths
settings = load_settings(None, Overrides(unsafe_fixes=True))
summary = check_paths([Path(sys.argv[1])], settings)
assert summary.findings, "expected findings"
fix_paths([Path(sys.argv[1])], settings, diff=True)
loaded = sorted(name for name in sys.modules if name == "torch" or name.startswith("torch."))
print("loaded:", loaded)
print("side effect:", Path(sys.argv[1], "touched").exists())
"""


def test_lint_and_fix_never_import_torch_or_the_checked_code(tmp_path):
    write(
        tmp_path / "train.py",
        "import torch\nfrom torch.autograd import Variable\n"
        "open(__file__.replace('train.py', 'touched'), 'w').write('ran')\n"
        "x = Variable(torch.zeros(3))\ntotal += loss.data[0]\n",
    )
    result = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "loaded: []" in result.stdout
    assert "side effect: False" in result.stdout
