"""Losses rebuilt from a severed value: the shared analysis, and the boundary between GL402
(a value detached or built without grad, a cut loss turned back on) and GL609 (a tensor
constructor over a cut value): every backward of these forms is reported by exactly one."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.context import FileContext
from gradlint.rules.gl609_graph_severed_before_backward.rule import GraphSeveredBeforeBackward
from support import lint

FORMS = {
    "turned back on": ("loss = torch.tensor(criterion(model(x), y).item())\nloss.requires_grad_()", "GL402"),
    "built under no_grad": (
        "with torch.no_grad():\n    loss = torch.tensor(criterion(model(x), y).item(), requires_grad=True)",
        "GL402",
    ),
    "detached": ("loss = criterion(model(x), y).detach()", "GL402"),
    "rebuilt from item": ("loss = torch.tensor(criterion(model(x), y).item(), requires_grad=True)", "GL609"),
    "rebuilt from a detached loss": ("loss = criterion(model(x), y).detach()\nloss = torch.tensor(loss, requires_grad=True)", "GL609"),
    "copied": ("loss = criterion(model(x), y)\nloss = torch.tensor(loss)", "GL609"),
}


@pytest.mark.parametrize("name", FORMS)
def test_each_form_is_reported_by_one_rule(name):
    body, code = FORMS[name]
    source = "import torch\n" + body + "\nloss.backward()\n"
    found = [f.code for f in lint(source, "GL402", "GL609")]
    assert found == [code]


def _rewrap(source: str):
    module = cst.parse_module(textwrap.dedent(source))
    context = FileContext("example.py", module.code, module)
    backward = module.body[-1].body[0].value
    return context, GraphSeveredBeforeBackward(context).severed.rewrapped(backward.func.value, module)


def test_rewrap_names_the_cut_and_the_flag():
    context, found = _rewrap(
        """
        import torch
        out = model(x)
        value = float(criterion(out, y))
        loss = torch.tensor(value).cuda() * 2
        loss.backward()
        """
    )
    assert found is not None and not found.requires_grad
    assert context.code_for(found.cut) == "float(criterion(out, y))"
    assert context.code_for(found.wrap) == "torch.tensor(value)"


@pytest.mark.parametrize(
    "source",
    [
        # the data has no evident history (a batch, a constant)
        "import torch\nloss = torch.tensor(batch.numpy(), requires_grad=True)\nloss.backward()\n",
        "import torch\nloss = torch.tensor(0.0, requires_grad=True)\nloss.backward()\n",
        # combined with a value that keeps its graph
        "import torch\nloss = torch.tensor(model(x).item()) + criterion(model(x), y)\nloss.backward()\n",
        # the name is rebound by a loop before the read: the binding it sees is not known
        "import torch\nloss = torch.tensor(model(x).item(), requires_grad=True)\nfor loss in losses:\n    pass\nloss.backward()\n",
    ],
)
def test_no_rewrap_without_evidence(source):
    assert _rewrap(source)[1] is None
