"""Evaluation loops and the grad mode around them: the facts GL611 (and GL602) decide on."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.analysis.evaluation import evaluation_name, is_test_file
from gradlint.model.project import ProjectFacts
from gradlint.context import FileContext
from support import lint


def context(source: str, project=None) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("f.py", source, cst.parse_module(source), project)


def loops(ctx: FileContext):
    return list(ctx.evaluation.all.values())


@pytest.mark.parametrize("name", ["evaluate", "validate", "test", "valid_epoch", "run_validation", "evalModel", "eval_one_epoch"])
def test_evaluation_names(name):
    assert evaluation_name(name)


@pytest.mark.parametrize("name", ["test_forward_shape", "train_and_evaluate", "predict", "fit", "latest", "contest"])
def test_not_evaluation_names(name):
    assert not evaluation_name(name)


@pytest.mark.parametrize(
    "header",
    ["for x, y in val_loader:", "for x, y in tqdm(self.test_dataloader):", "for batch in dataloaders['val']:", "for x, y in testloader:"],
)
def test_loops_over_evaluation_data(header):
    ctx = context(f"{header}\n    correct += (model(x).argmax(1) == y).sum().item()\n")
    assert [loop.by_data for loop in loops(ctx)] == [True]


@pytest.mark.parametrize(
    "body",
    [
        "    print(x)",  # no model
        "    model(x)",  # nothing scored or gathered
        "    loss = criterion(model(x), y)\n    loss.backward()",  # trains
        "    x.requires_grad_()\n    scores.append(model(x))",  # input gradients
        "    outputs.append(Model(x))",  # a constructor, not a forward pass
    ],
)
def test_not_evaluation_loops(body):
    assert loops(context(f"for x, y in val_loader:\n{body}\n")) == []


def test_grad_off_through_a_chain_of_callers():
    ctx = context(
        """
        import torch
        def evaluate(model, val_loader):
            for x in val_loader:
                outputs.append(model(x))
        def middle():
            evaluate(model, val_loader)
        def outer():
            with torch.no_grad():
                middle()
        """
    )
    (loop,) = loops(ctx)
    assert ctx.evaluation.function_runs_without_grad(loop.scope)


def test_one_caller_with_grad_on_is_enough():
    ctx = context(
        """
        import torch
        def evaluate(model, val_loader):
            for x in val_loader:
                outputs.append(model(x))
        with torch.no_grad():
            evaluate(model, val_loader)
        evaluate(model, val_loader)
        """
    )
    (loop,) = loops(ctx)
    assert not ctx.evaluation.function_runs_without_grad(loop.scope)


SOURCE = """
def evaluate(model, val_loader):
    correct = 0
    for x, y in val_loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct
"""


def test_function_another_file_calls_is_left_to_its_callers():
    elsewhere = context(SOURCE, ProjectFacts(called_elsewhere=frozenset({"evaluate"})))
    alone = context(SOURCE, ProjectFacts(called_elsewhere=frozenset()))
    (loop,) = loops(elsewhere)
    assert elsewhere.evaluation.may_be_called_elsewhere(loop.scope)
    assert not alone.evaluation.may_be_called_elsewhere(loops(alone)[0].scope)


def test_test_files_are_not_reported():
    assert is_test_file("pkg/tests/models.py") and is_test_file("test_model.py") and is_test_file("model_test.py")
    assert not is_test_file("test.py") and not is_test_file("latest_eval.py")
    assert [f.code for f in lint(SOURCE, "GL611")] == ["GL611"]
    assert lint(SOURCE, "GL611", path="tests/test_eval.py") == []


@pytest.mark.parametrize(
    "source, builds",
    [
        ("from torch import nn\nclass Net(nn.Module):\n    def __init__(self):\n        self.drop = nn.Dropout(0.1)\n", True),
        ("import torch.nn as nn\nm = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))\n", True),
        ("import torch.nn.functional as F\ndef f(x):\n    return F.dropout(x, 0.1)\n", True),
        ("import torchvision\nnet = torchvision.models.resnet18()\n", True),
        ("from torch import nn\nm = nn.Sequential(nn.Linear(2, 2), nn.ReLU())\n", False),
        ("import keras\nd = keras.layers.Dropout(0.5)\n", False),
    ],
)
def test_layers_that_depend_on_the_mode(source, builds):
    assert context(source).training_modes.builds_mode_layers is builds


@pytest.mark.parametrize(
    "call, switches",
    [
        ("model.eval()", True),
        ("model.train(False)", True),
        ("model.train(mode)", True),
        ("model.train()", False),
        ("model.train(True)", False),
    ],
)
def test_switches_to_evaluation_mode(call, switches):
    assert context(f"def f(model, mode):\n    {call}\n").training_modes.sets_evaluation_mode is switches


def test_mode_switches_are_followed_into_the_functions_a_loop_calls():
    ctx = context(
        """
        class Trainer:
            def train_epoch(self):
                self.model.train()
            def fit(self):
                for epoch in range(3):
                    self.train_epoch()
                    self.model.eval()
        """
    )
    loop = ctx.training.loops[0].owner
    fit = ctx.function_table.methods["fit"][0]
    assert [ctx.code_for(c) for c in ctx.training_modes.switches_mode(loop.body, fit, "train")] == ["self.model.train()"]
    assert [ctx.code_for(c) for c in ctx.training_modes.switches_mode(loop.body, fit, "eval")] == ["self.model.eval()"]


def test_a_test_module_is_named_as_pytest_collects_it():
    from gradlint.analysis.evaluation import is_test_module

    assert is_test_module("tests/distributed/test_bmuf.py") and is_test_module("pkg/model_test.py")
    assert not is_test_module("tests/data/legacy_scripts/train.py") and not is_test_module("latest_model.py")


@pytest.mark.parametrize("code", ["GL201", "GL401"])
def test_training_loops_of_a_test_module_are_left_alone(code):
    loop = "import torch\nlosses = []\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n    optimizer.step()\n    losses.append(loss)\n"
    assert code in {finding.code for finding in lint(loop, code, path="train.py")}
    assert not lint(loop, code, path="tests/test_training.py")
