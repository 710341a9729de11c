"""What the code on the way to a read proves about it: an `isinstance` branch, an earlier torch call
that raises unless its argument is a tensor, `self.attr` just assigned a tensor."""

from __future__ import annotations

import textwrap
from typing import Optional

import libcst as cst
import pytest

from gradlint.analysis.narrowing import PARAMETER, TENSOR
from gradlint.analysis.tree import descendants
from gradlint.analysis.values import Grad, Kind
from gradlint.context import FileContext
from support import lint

PREAMBLE = """\
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
"""


def probed(source: str) -> tuple[FileContext, cst.BaseExpression, cst.CSTNode]:
    """The context, the receiver of the `.data` read on the line marked `# <-`, and its function."""
    text = PREAMBLE + textwrap.dedent(source)
    module = cst.parse_module(text)
    context = FileContext("probe.py", text, module)
    marked = next(number for number, line in enumerate(text.splitlines(), start=1) if line.rstrip().endswith("# <-"))
    for node in descendants(module):
        if isinstance(node, cst.Attribute) and node.attr.value == "data" and module.code_for_node(node) in text.splitlines()[marked - 1]:
            scope = context.nodes.enclosing_function(node) or module
            return context, node.value, scope
    raise AssertionError("no `.data` on the marked line")


def narrowed(source: str) -> Optional[str]:
    context, receiver, scope = probed(source)
    return context.values.narrowed(receiver, scope)


# -- isinstance ---------------------------------------------------------------------------------


def test_a_parameter_test_makes_the_name_a_parameter_in_its_branch():
    source = """
    def load(state, own):
        for name, param in state.items():
            if isinstance(param, nn.Parameter):
                param = param.data  # <-
            own[name].copy_(param)
    """
    assert narrowed(source) == PARAMETER
    context, receiver, scope = probed(source)
    found = context.values.record(receiver, scope)
    assert (found.kind, found.grad) == (Kind.PARAMETER, Grad.REQUIRES_GRAD)
    assert context.values.is_known_tensor(receiver, scope) and context.values.is_parameter(receiver, scope)


@pytest.mark.parametrize(
    "classes, kind",
    [
        ("torch.nn.Parameter", PARAMETER),
        ("(nn.Parameter, torch.nn.Parameter)", PARAMETER),
        ("torch.Tensor", TENSOR),
        ("(nn.Parameter, torch.Tensor)", TENSOR),
        ("torch.autograd.Variable", TENSOR),
    ],
)
def test_every_tensor_class_narrows(classes, kind):
    assert narrowed(f"def f(x):\n    if isinstance(x, {classes}):\n        return x.data  # <-\n") == kind


def test_one_operand_of_an_and_narrows_and_an_elif_does_too():
    assert narrowed("def f(x, y):\n    if y and isinstance(x, torch.Tensor) and x.dim() > 1:\n        return x.data  # <-\n") == TENSOR
    source = """
    def f(x, y):
        if y:
            pass
        elif isinstance(x, torch.Tensor):
            with torch.no_grad():
                for step in range(3):
                    y = x.data  # <-
    """
    assert narrowed(source) == TENSOR


@pytest.mark.parametrize(
    "source",
    [
        # the other branch, a negated test, an `or`
        "def f(x):\n    if isinstance(x, torch.Tensor):\n        pass\n    else:\n        return x.data  # <-\n",
        "def f(x):\n    if not isinstance(x, torch.Tensor):\n        return x.data  # <-\n",
        "def f(x, y):\n    if isinstance(x, torch.Tensor) or y:\n        return x.data  # <-\n",
        # after the `if`: the branch does not dominate the read
        "def f(x):\n    if isinstance(x, torch.Tensor):\n        pass\n    return x.data  # <-\n",
        # rebound in between, or by a later iteration of a loop inside the branch
        "def f(x, load):\n    if isinstance(x, torch.Tensor):\n        x = load(x)\n        return x.data  # <-\n",
        "def f(x, load):\n    if isinstance(x, torch.Tensor):\n        for i in range(2):\n            y = x.data  # <-\n            x = load(i)\n",
        "def f(x, load):\n    if isinstance(x, torch.Tensor):\n        with load() as x:\n            return x.data  # <-\n",
        # classes that are not tensors only
        "def f(x):\n    if isinstance(x, (torch.Tensor, np.ndarray)):\n        return x.data  # <-\n",
        "import tensorflow as tf\ndef f(x):\n    if isinstance(x, tf.Variable):\n        return x.data  # <-\n",
        # a read run later, a name another scope may rebind, a local `isinstance`
        "def f(x):\n    if isinstance(x, torch.Tensor):\n        return lambda: x.data  # <-\n",
        "def f():\n    if isinstance(W, torch.Tensor):\n        return W.data  # <-\n",
        "if isinstance(W, torch.Tensor):\n    y = W.data  # <-\n",
        "from checks import isinstance\ndef f(x):\n    if isinstance(x, torch.Tensor):\n        return x.data  # <-\n",
    ],
)
def test_look_alikes_of_an_isinstance_branch_prove_nothing(source):
    assert narrowed(source) is None


# -- torch calls that raise unless given a tensor -----------------------------------------------------


def test_a_loss_given_the_name_proves_a_tensor_after_it_and_nothing_about_history():
    source = """
    class Net(nn.Module):
        def train_(self, image, label):
            output = self(image)
            loss = F.nll_loss(output, label)
            loss.backward()
            pred = output.detach().max(1)[1]
            if pred.numel():
                correct = pred.eq(label.data).cpu().sum()  # <-
            return correct
    """
    assert narrowed(source) == TENSOR
    context, receiver, scope = probed(source)
    found = context.values.record(receiver, scope)
    assert (found.kind, found.grad) == (Kind.TENSOR, Grad.UNKNOWN)
    assert context.values.is_known_tensor(receiver, scope)


@pytest.mark.parametrize(
    "call",
    [
        "F.cross_entropy(output, target=label).backward()",
        "total = total + F.mse_loss(label, output)",
        "total += torch.nn.functional.binary_cross_entropy(F.relu(output), label, weight)",
        "F.relu(label)",
    ],
)
def test_every_demanding_argument_proves_a_tensor(call):
    assert narrowed(f"def f(output, label, weight, total):\n    {call}\n    return label.data  # <-\n") == TENSOR


@pytest.mark.parametrize(
    "source",
    [
        # another library's loss, a function not in the table, a parameter not demanded
        "from mylosses import nll_loss\ndef f(o, label):\n    loss = nll_loss(o, label)\n    return label.data  # <-\n",
        "def f(o, label):\n    p = F.softmax(label, 1)\n    return label.data  # <-\n",
        "def f(o, t, label):\n    loss = F.nll_loss(o, t, label)\n    return label.data  # <-\n",
        "def f(o, label, args):\n    loss = F.nll_loss(*args)\n    return label.data  # <-\n",
        # a call that does not run on every path to the read
        "def f(o, label, c):\n    if c:\n        loss = F.nll_loss(o, label)\n    return label.data  # <-\n",
        "def f(o, label, c):\n    loss = c and F.nll_loss(o, label)\n    return label.data  # <-\n",
        "def f(o, label, c):\n    loss = F.nll_loss(o, label) if c else 0\n    return label.data  # <-\n",
        "def f(o, label):\n    try:\n        loss = F.nll_loss(o, label)\n    except TypeError:\n        pass\n    return label.data  # <-\n",
        # a read before the call, or after a rebinding
        "def f(o, label):\n    y = label.data  # <-\n    loss = F.nll_loss(o, label)\n",
        "def f(o, label, other):\n    loss = F.nll_loss(o, label)\n    label = other\n    return label.data  # <-\n",
        "def f(o, label, other):\n    loss = F.nll_loss(o, label); label = other\n    return label.data  # <-\n",
        "def f(o, label, batches):\n    loss = F.nll_loss(o, label)\n    for label in batches:\n        y = label.data  # <-\n",
        "def f(o, label, other):\n    loss = F.nll_loss(o, label)\n    del label\n    label = other\n    return label.data  # <-\n",
    ],
)
def test_look_alikes_of_a_demanding_call_prove_nothing(source):
    assert narrowed(source) is None


def test_an_object_with_a_data_field_after_a_non_torch_loss_is_not_flagged():
    source = PREAMBLE + "from mylosses import nll_loss\ndef f(o, seq):\n    loss = nll_loss(o, seq)\n    return seq.data\n"
    assert lint(source, "GL303") == []


# -- `self.attr` just assigned a tensor ------------------------------------------------------------

_MODULE = """
class Coords(nn.Module):
    def __init__(self, args):
        super(Coords, self).__init__()
        self.fc = nn.Linear(2, 2)
        self.coord = torch.empty(args.batch_size, 25, 2, dtype=torch.float32)
        if args.cuda:
            self.coord = self.coord.cuda()
        array = np.zeros((args.batch_size, 25, 2))
        for i in range(25):
            array[:, i, :] = np.array(cvt(i))
        {between}
        self.coord.data.copy_(torch.from_numpy(array))  # <-
"""


def test_an_attribute_just_assigned_a_tensor_is_one():
    assert narrowed(_MODULE.format(between="pass")) == TENSOR


@pytest.mark.parametrize(
    "between",
    [
        "self.coord = load(args)",  # rebound
        "register(self)",  # handed to a call
        "self.reset()",  # a method of self
        "self.fc.reset_parameters()",  # something reached through self, called
        "super().__init__()",
        "setattr(self, 'coord', None)",
        "self.__dict__['coord'] = None",
    ],
)
def test_an_attribute_that_code_between_may_rebind_is_not_narrowed(between):
    assert narrowed(_MODULE.format(between=between)) is None


@pytest.mark.parametrize(
    "source",
    [
        # assigned only in a branch
        "class M(nn.Module):\n    def f(self, c):\n        if c:\n            self.w = torch.zeros(2)\n        self.w.data.zero_()  # <-\n",
        # rebound by a later iteration of the loop around the read
        "class M(nn.Module):\n    def f(self, xs):\n        self.w = torch.zeros(2)\n        for x in xs:\n"
        "            self.w.data.add_(x)  # <-\n            self.w = x\n",
        # a value that is a tensor by its name only
        "class M(nn.Module):\n    def f(self, x):\n        self.output = compute(x)\n        return self.output.data  # <-\n",
        # a class whose attribute assignment may store something else, or of another file
        "class M(nn.Module):\n    def __setattr__(self, name, value):\n        pass\n    def f(self):\n"
        "        self.w = torch.zeros(2)\n        return self.w.data  # <-\n",
        "from base import Base\nclass M(Base):\n    def f(self):\n        self.w = torch.zeros(2)\n        return self.w.data  # <-\n",
        "class M(nn.Module):\n    w = property(lambda self: None, lambda self, v: None)\n    def f(self):\n"
        "        self.w = torch.zeros(2)\n        return self.w.data  # <-\n",
        # an alias of self made before the assignment, written through in between
        "class M(nn.Module):\n    def f(self):\n        me = self\n        self.w = torch.zeros(2)\n        me.w = None\n"
        "        return self.w.data  # <-\n",
        "class M(nn.Module):\n    def f(self, keep):\n        keep.append(self)\n        self.w = torch.zeros(2)\n"
        "        keep.clear()\n        return self.w.data  # <-\n",
        # a generator, and a function capturing self that may run in between
        "class M(nn.Module):\n    def f(self):\n        self.w = torch.zeros(2)\n        yield\n        return self.w.data  # <-\n",
        "class M(nn.Module):\n    def f(self, run):\n        self.w = torch.zeros(2)\n        reset = lambda: setattr(self, 'w', 0)\n"
        "        run(reset)\n        return self.w.data  # <-\n",
    ],
)
def test_look_alikes_of_an_assigned_attribute_prove_nothing(source):
    assert narrowed(source) is None


def test_self_data_is_never_a_tensor_read():
    source = PREAMBLE + "class Box:\n    def __init__(self):\n        self.data = torch.zeros(2)\n        self.data.zero_()\n"
    assert lint(source, "GL301", "GL303") == []


# -- what GL303 writes for the reads these facts reach ----------------------------------------------


def _fixed_reads(source: str) -> list[str]:
    return [finding.fix.edits[0].content for finding in lint(PREAMBLE + textwrap.dedent(source), "GL303") if finding.fix]


def test_a_comparison_operand_needs_no_detach_whatever_it_carries():
    source = """
    def train(model, image, label):
        output = model(image)
        loss = F.nll_loss(output, label)
        pred = output.detach().max(1)[1]
        return pred.eq(label.data).sum(), pred.add(label.data)
    """
    assert _fixed_reads(source) == ["label", "label.detach()"]


def test_a_comparison_method_of_something_else_keeps_the_detach():
    source = """
    import pandas as pd
    def train(model, image, label, frame):
        loss = F.nll_loss(model(image), label)
        return pd.DataFrame(frame).eq(label.data)
    """
    assert _fixed_reads(source) == ["label.detach()"]


def test_a_target_holds_the_value_assigned_not_the_one_tested():
    source = "def f(x):\n    if isinstance(x, torch.Tensor):\n        x = x.tolist()\n"
    context = FileContext("probe.py", PREAMBLE + source, cst.parse_module(PREAMBLE + source))
    function = next(node for node in context.module.body if isinstance(node, cst.FunctionDef))
    target = function.body.body[0].body.body[0].body[0].targets[0].target
    assert context.values.narrowed(target, function) is None
    source = "class M(nn.Module):\n    def f(self):\n        self.w = torch.zeros(2)\n        self.w = self.w.tolist()\n"
    context = FileContext("probe.py", PREAMBLE + source, cst.parse_module(PREAMBLE + source))
    method = next(node for node in context.module.body if isinstance(node, cst.ClassDef)).body.body[0]
    target = method.body.body[1].body[0].targets[0].target
    assert context.values.narrowed(target, method) is None
