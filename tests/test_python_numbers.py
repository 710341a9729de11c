"""Python numbers in the tensor evidence and the function summaries: what returns a float is no tensor."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.context import FileContext


def context_of(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("example.py", source, cst.parse_module(source))


def last_value(context: FileContext) -> cst.BaseExpression:
    """The value of the file's last statement, `result = <value>`."""
    statement = context.module.body[-1].body[0]
    return statement.value


def is_number(source: str) -> bool:
    context = context_of(source)
    return context.tensors.is_python_number(last_value(context), context.module)


def summary(source: str, name: str):
    context = context_of(source)
    (function,) = [f for f in context.function_table.all if f.name.value == name]
    return context.functions.of(function)


@pytest.mark.parametrize(
    "source",
    [
        "result = 0.5",
        "result = -3",
        "result = loss.item()",
        "result = float(loss)",
        "result = int(out.argmax())",
        "result = len(loader)",
        "import math\nresult = math.sqrt(2.0)",
        "import time\nend = time.time()\nresult = time.time() - end",
        "from time import perf_counter\nresult = perf_counter()",
        "result = sum(l.item() for l in losses)",
        "result = sum([a.item(), 1.0])",
        "result = round(loss.item(), 3)",
        "result = 0.9 * loss.item() + 0.1",
        "result = 1.0 if flag else loss.item()",
        "total = 0.0\nfor x in data:\n    total += f(x).item()\nresult = total",
        "total = 0\nfor x in data:\n    total = total + len(x)\nresult = total",
        "for i in range(3):\n    pass\nresult = i",
        "result = loss.item() * x.size(0)",
        "result = x.numel() + x.dim()",
        "result = x.shape[0] * x.shape[-1]",
        "def mean_loss(losses):\n    total = 0.0\n    for l in losses:\n        total += l.item()\n    return total / len(losses)\nresult = mean_loss(ls)",
    ],
)
def test_python_numbers(source):
    assert is_number(source)


@pytest.mark.parametrize(
    "source",
    [
        "result = loss",
        "result = criterion(out, y)",
        "result = sum(losses)",
        "result = sum(l for l in losses)",
        "result = abs(loss)",
        "result = 2 * loss",
        "result = x @ y",
        "total = 0\nfor x in data:\n    total += criterion(x)\nresult = total",
        "import numpy as np\nresult = np.mean(values)",
        "import mytime as time\nresult = time.time()",
        "from torch import tensor\nresult = tensor(1.0)",
        "def loss_fn(x):\n    return criterion(x)\nresult = loss_fn(x)",
        "def loss_fn(x):\n    if x:\n        return 0.0\n    return criterion(x)\nresult = loss_fn(x)",
        "def gen():\n    yield 1.0\n    return 2.0\nresult = gen()",
        "import functools\n@functools.wraps(f)\ndef loss_fn(x):\n    return 1.0\nresult = loss_fn(x)",
        "def loss_fn(n):\n    return loss_fn(n - 1)\nresult = loss_fn(3)",
        "a, b = pair\nresult = a",
        "result = x.size()",
        "result = x.shape",
    ],
)
def test_not_python_numbers(source):
    assert not is_number(source)


def test_summary_says_a_function_returns_a_number():
    source = """
        import torch

        def epoch_loss(model, loader):
            total = 0.0
            for x, y in loader:
                total += criterion(model(x), y).item()
            return total

        class Trainer:
            @torch.no_grad()
            def validation_loss(self, x, y):
                return float(self.criterion(self.model(x), y))

            @staticmethod
            def count(batches):
                return sum(len(b) for b in batches)

        def train_loss(model, x, y):
            return criterion(model(x), y)
    """
    assert summary(source, "epoch_loss").returns_number
    assert summary(source, "validation_loss").returns_number
    assert summary(source, "count").returns_number
    assert not summary(source, "train_loss").returns_number


def test_a_number_outweighs_a_name_that_says_tensor():
    """`loss = epoch_loss(...)` is a float: neither a tensor, nor a 0-dim one, nor a graph."""
    context = context_of(
        """
        import torch

        def epoch_loss(model, loader):
            total = 0.0
            for x, y in loader:
                total += criterion(model(x), y).item()
            return total

        loss = epoch_loss(model, loader)
        result = loss
        """
    )
    value, scope = last_value(context), context.module
    assert not context.tensors.is_tensor(value, scope)
    assert not context.scalars.is_scalar(value, scope)
    assert not context.grads.carries_grad(value, scope)
    assert context.tensors.contradicts_tensor(value, scope)


def test_known_tensor_needs_torch_code():
    torch_file = context_of("import torch\noutput = model(x)\nresult = output")
    plain_file = context_of("output = model(x)\nresult = output")
    other_framework = context_of("import torch\nimport tensorflow as tf\noutput = model(x)\nresult = output")
    assert torch_file.tensors.is_known_tensor(last_value(torch_file), torch_file.module)
    for context in (plain_file, other_framework):
        assert context.tensors.is_tensor(last_value(context), context.module)  # the finding's evidence stands
        assert not context.tensors.is_known_tensor(last_value(context), context.module)  # not enough for a safe fix
