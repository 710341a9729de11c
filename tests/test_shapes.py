"""The static rank of tensor expressions (analysis/shapes.py), used to write softmax's legacy dim."""

import libcst as cst
import libcst.matchers as m
import pytest

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.shapes import legacy_softmax_dim, static_rank
from gradlint.analysis.scopes import ScopeTable


def rank_of_last_argument(source: str):
    """The rank of the first argument of the last `use(...)` call in `source`, in its function."""
    module = cst.parse_module(source)
    functions = m.findall(module, m.FunctionDef())
    scope = functions[-1] if functions else module
    call = m.findall(scope, m.Call(func=m.Name("use")))[-1]
    return static_rank(call.args[0].value, ImportMap.build(module), ScopeTable(), scope)


@pytest.mark.parametrize(
    "expression, rank",
    [
        ("torch.randn(4, 5)", 2),
        ("torch.zeros((2, 3, 4))", 3),
        ("torch.ones([7])", 1),
        ("torch.rand(())", 0),
        ("torch.empty(3, requires_grad=True)", 1),
        ("torch.tensor([[1.0, 2.0], [3.0, 4.0]])", 2),
        ("torch.tensor(-2.5)", 0),
        ("torch.randn(n)", None),  # an int or a tuple of sizes
        ("torch.randn(*shape)", None),
        ("torch.tensor([[1.0], 2.0])", None),
        ("torch.randn(size=(2, 3))", None),
        ("np.zeros((2, 3))", None),
    ],
)
def test_rank_of_expressions(expression, rank):
    assert rank_of_last_argument(f"import torch\nimport numpy as np\nuse({expression})\n") == rank


def test_a_name_bound_once_has_the_rank_of_its_value():
    source = "import torch\ndef f():\n    x = torch.randn(2, 3, 4)\n    use(x)\n"
    assert rank_of_last_argument(source) == 3


@pytest.mark.parametrize(
    "body",
    [
        "x = torch.randn(2, 3)\n    x = x.sum(0)",  # rebound to something else
        "x = torch.randn(2, 3)\n    x.unsqueeze_(0)",  # reshaped in place
        "x = torch.randn(2, 3)\n    x.data = torch.randn(4)",
        "for x in batches:\n        pass",
    ],
)
def test_a_name_whose_rank_may_change_is_unknown(body):
    source = f"import torch\ndef f(batches):\n    {body}\n    use(x)\n"
    assert rank_of_last_argument(source) is None


def test_a_parameter_is_unknown():
    assert rank_of_last_argument("import torch\ndef f(x):\n    use(x)\n") is None


def test_legacy_softmax_dim():
    assert [legacy_softmax_dim(rank) for rank in range(6)] == [0, 0, 1, 0, 1, 1]
