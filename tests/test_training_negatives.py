"""Look-alikes of the training-loop and detach mistakes that are correct code: no rule may fire.

Each file in tests/data/training_negatives is a pattern real projects use (gradient accumulation,
LBFGS closures, AMP, RL environments, schedulers, frozen GAN generators, adversarial inputs,
rotated loops, look-alike `.data`, `requires_grad` and `Variable` names). The torch-only ones are
also executed, and those that step a torch optimizer must really train: the first step and most
later ones move a parameter.
"""

from __future__ import annotations

import runpy

import pytest
import torch
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

from gradlint.engine import lint_bytes
from gradlint.rules import all_codes
from support import ROOT

CORPUS = ROOT / "tests" / "data" / "training_negatives"
FILES = sorted(CORPUS.glob("*.py"))
# Files that need something besides torch and numpy to run (an environment, accelerate, TensorFlow,
# MXNet, a helper module of their own project).
NOT_RUNNABLE = {
    "accelerate_backward.py",
    "rl_env_step.py",
    "look_alike_names.py",
    "data_attribute_look_alikes.py",
    "mxnet_gluon_trainer.py",
    "zero_grad_imported_helper.py",
}
RUNNABLE = [p for p in FILES if p.name not in NOT_RUNNABLE]
# The runnable files that step a torch optimizer.
TRAINING = [p for p in RUNNABLE if "torch.optim" in p.read_text(encoding="utf-8") and "step(" in p.read_text(encoding="utf-8")]
# A look-alike that steps a scheduler first may make torch warn about that order.
pytestmark = pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)` before:UserWarning")


def test_corpus_is_not_empty():
    assert len(FILES) >= 25
    assert len(TRAINING) >= 15


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_compiles(path):
    compile(path.read_bytes(), str(path), "exec")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_no_finding(path):
    result = lint_bytes(path.read_bytes(), str(path), frozenset(all_codes()))
    assert result.error is None
    assert [(f.location.row, f.code, f.message) for f in result.findings] == []


@pytest.mark.parametrize("path", RUNNABLE, ids=lambda p: p.stem)
def test_runs_under_torch(path):
    namespace = runpy.run_path(str(path), run_name="negative")
    assert namespace  # executed to the end without raising


@pytest.mark.parametrize("path", TRAINING, ids=lambda p: p.stem)
def test_every_optimizer_step_moves_parameters(path):
    """The look-alikes are working training code, not loops that silently never train."""
    before, moved = {}, []

    def snapshot(optimizer, args, kwargs):
        before[id(optimizer)] = [p.detach().clone() for group in optimizer.param_groups for p in group["params"]]

    def compare(optimizer, args, kwargs):
        after = [p.detach() for group in optimizer.param_groups for p in group["params"]]
        moved.append(any(not torch.equal(a, b) for a, b in zip(before.pop(id(optimizer)), after)))

    handles = [register_optimizer_step_pre_hook(snapshot), register_optimizer_step_post_hook(compare)]
    try:
        torch.manual_seed(0)
        runpy.run_path(str(path), run_name="negative")
    finally:
        for handle in handles:
            handle.remove()
    assert moved, "no optimizer step ran"
    assert moved[0], "the first step left every parameter unchanged (no gradient yet, or it was cleared)"
    # Most steps move (LBFGS may converge early on these tiny least-squares problems).
    assert moved.count(True) > len(moved) / 2, f"{moved.count(False)} of {len(moved)} steps left every parameter unchanged"
