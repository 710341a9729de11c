"""Which `torch.nn` layers a fresh construction gives parameters or a mode of their own
(`analysis.layers`), and which names and attributes the file binds only to module constructions
(`NnModuleEvidence.is_built_module`)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.analysis.layers import builds_parameters, called_only, drops_out, has_parameters, is_leaf_layer, is_parallel_wrapper, nn_layer
from gradlint.analysis.tree import descendants, iter_children
from gradlint.context import FileContext


def context_of(source: str) -> FileContext:
    source = "import torch\nfrom torch import nn\n" + textwrap.dedent(source)
    return FileContext("example.py", source, cst.parse_module(source))


def construction(code: str) -> tuple[cst.Call, str]:
    context = context_of(f"layer = {code}")
    call = context.module.body[-1].body[0].value
    return call, nn_layer(call, context.imports)


@pytest.mark.parametrize(
    "code, expected",
    [
        ("nn.Linear(4, 2)", True),
        ("torch.nn.Conv2d(3, 8, 3)", True),
        ("nn.BatchNorm1d(4)", True),
        ("nn.BatchNorm1d(4, affine=False)", False),
        ("nn.BatchNorm1d(4, 1e-5, 0.1, False)", False),
        ("nn.LayerNorm(8)", True),
        ("nn.LayerNorm(8, elementwise_affine=False)", False),
        ("nn.InstanceNorm2d(3)", False),
        ("nn.InstanceNorm2d(3, affine=True)", True),
        ("nn.GroupNorm(2, 8, affine=flag)", False),
        ("nn.ReLU()", False),
        ("nn.Dropout(0.5)", False),
    ],
)
def test_builds_parameters(code, expected):
    call, layer = construction(code)
    assert builds_parameters(call, layer) is expected


@pytest.mark.parametrize(
    "code, expected", [("nn.Dropout(0.5)", True), ("nn.Dropout()", True), ("nn.Dropout(p=0.0)", False), ("nn.Dropout2d(0)", False)]
)
def test_drops_out(code, expected):
    call, layer = construction(code)
    assert drops_out(call, layer) is expected


def test_nn_layer_names_torch_nn_classes_only():
    assert construction("nn.Linear(4, 2)")[1] == "Linear"
    assert construction("nn.utils.weight_norm(m)")[1] is None
    assert construction("Linear(4, 2)")[1] is None


def _function(source: str) -> cst.FunctionDef:
    return next(node for node in descendants(context_of(source).module) if isinstance(node, cst.FunctionDef))


def test_called_only():
    assert called_only("fc", _function("def forward(self, x):\n    fc = nn.Linear(4, 2)\n    return fc(x)\n"))
    assert not called_only("fc", _function("def forward(self, x):\n    fc = nn.Linear(4, 2)\n    self.fc = fc\n    return fc(x)\n"))
    assert not called_only("fc", _function("def forward(self, x):\n    fc = nn.Linear(4, 2)\n    return fc\n"))


def _receiver_stack(context: FileContext, code: str) -> tuple[cst.BaseExpression, list[cst.CSTNode]]:
    """The receiver of the `.forward` call whose receiver's source is `code`, with its ancestors."""
    found: list[tuple[cst.BaseExpression, list[cst.CSTNode]]] = []

    def walk(node: cst.CSTNode, path: list[cst.CSTNode]) -> None:
        path = [*path, node]
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and context.code_for(node.func.value) == code:
            found.append((node.func.value, path))
        for child in iter_children(node):
            walk(child, path)

    walk(context.module, [])
    return found[0]


SOURCE = """
class Net(nn.Module):
    def __init__(self, given):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.given = given
    def forward(self, x):
        return self.fc.forward(x) + self.given.forward(x)

def run(model, x):
    built = Net(None).to("cpu").eval()
    loaded = Net(None)
    loaded = torch.load("m.pt")
    return built.forward(x), loaded.forward(x), model.forward(x)
"""


@pytest.mark.parametrize(
    "receiver, expected", [("self.fc", True), ("self.given", False), ("built", True), ("loaded", False), ("model", False)]
)
def test_is_built_module(receiver, expected):
    context = context_of(SOURCE)
    node, stack = _receiver_stack(context, receiver)
    assert context.nn_modules.is_built_module(node, stack) is expected


@pytest.mark.parametrize(
    "code, expected",
    [
        ("nn.BatchNorm1d(4)", True),
        ("nn.Dropout(0.1)", True),
        ("nn.Sequential(nn.Linear(4, 2))", False),
        ("nn.MultiheadAttention(8, 2)", False),
    ],
)
def test_is_leaf_layer(code, expected):
    call, _ = construction(code)
    assert is_leaf_layer(call, context_of("").imports) is expected


def test_is_parallel_wrapper():
    context = context_of("from torch.nn.parallel import DistributedDataParallel as DDP\nwrapped = DDP(model)\nplain = nn.Linear(4, 2)\n")
    wrapped, plain = (statement.body[0].value for statement in context.module.body[-2:])
    assert is_parallel_wrapper(wrapped, context.imports)
    assert not is_parallel_wrapper(plain, context.imports)


def test_module_constructions_strip_the_methods_returning_the_module():
    context = context_of(SOURCE)
    node, stack = _receiver_stack(context, "built")
    assert [context.code_for(call) for call in context.nn_modules.module_constructions(node, stack)] == ["Net(None)"]


@pytest.mark.parametrize(
    "code, expected",
    [
        ("nn.Sequential(nn.Linear(4, 8), nn.ReLU())", True),
        ("nn.Sequential(nn.ReLU(), nn.Sequential(nn.Conv2d(3, 3, 1)))", True),
        ("nn.Sequential(nn.ReLU(), nn.Flatten())", False),
        ("nn.Sequential(*layers)", False),
        ("nn.Linear(4, 2)", True),
    ],
)
def test_has_parameters(code, expected):
    call, _ = construction(code)
    assert has_parameters(call, context_of("").imports) is expected
