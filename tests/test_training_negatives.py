"""Look-alikes of the training-loop and detach mistakes that are correct code: no rule may fire.

Each file in tests/data/training_negatives is a pattern real projects use (gradient accumulation,
LBFGS closures, AMP, RL environments, schedulers, frozen GAN generators, look-alike `.data` and
`Variable` names). The torch-only ones are also executed, to prove they are working code.
"""

from __future__ import annotations

import runpy

import pytest

from gradlint.engine import lint_bytes
from gradlint.rules import all_codes
from support import ROOT

CORPUS = ROOT / "tests" / "data" / "training_negatives"
FILES = sorted(CORPUS.glob("*.py"))
# Files that need something besides torch and numpy to run (an environment, accelerate, TensorFlow).
NOT_RUNNABLE = {"accelerate_backward.py", "rl_env_step.py", "look_alike_names.py", "data_attribute_look_alikes.py"}


def test_corpus_is_not_empty():
    assert len(FILES) >= 15


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_no_finding(path):
    result = lint_bytes(path.read_bytes(), str(path), frozenset(all_codes()))
    assert result.error is None
    assert [(f.location.row, f.code, f.message) for f in result.findings] == []


@pytest.mark.parametrize("path", [p for p in FILES if p.name not in NOT_RUNNABLE], ids=lambda p: p.stem)
def test_runs_under_torch(path):
    namespace = runpy.run_path(str(path), run_name="negative")
    assert namespace  # executed to the end without raising
