"""The facts GL508 builds on: binding legacy arguments, which arguments may change places, and
whether a module reads `_`."""

from __future__ import annotations

import libcst as cst
import pytest

from gradlint.analysis.torch_api.legacy_linalg import LEGACY_LINALG
from gradlint.rules.gl508_legacy_linalg.name_reads import is_never_read
from gradlint.rules.gl508_legacy_linalg.reordering import bind_arguments, evaluates_without_effects


def call(source: str) -> cst.Call:
    return cst.parse_expression(source)


def bound_sources(source: str, name: str, receiver: bool = False):
    node = call(source)
    api = LEGACY_LINALG[name]
    bound = bind_arguments(node, api.parameters, node.func.value if receiver else None)
    return None if bound is None else {key: cst.Module([]).code_for_node(value) for key, value in bound.items()}


def test_positional_and_keyword_arguments_bind_to_the_legacy_signature():
    assert bound_sources("torch.triangular_solve(b, A, False, transpose=t)", "triangular_solve") == {
        "input": "b",
        "A": "A",
        "upper": "False",
        "transpose": "t",
    }
    assert bound_sources("B.solve(A)", "solve", receiver=True) == {"input": "B", "A": "A"}


@pytest.mark.parametrize(
    "source",
    ["torch.qr(*args)", "torch.qr(A, **flags)", "torch.qr(A, True, False)", "torch.qr(A, mode='r')", "torch.qr(A, True, some=True)"],
)
def test_calls_that_cannot_be_bound_statically(source):
    assert bound_sources(source, "qr") is None


@pytest.mark.parametrize("source", ["x", "self.lu[0]", "-a.b", "A[:, 1:n]", "2 * x", "(a, b)"])
def test_expressions_without_effects(source):
    assert evaluates_without_effects(cst.parse_expression(source))


@pytest.mark.parametrize("source", ["load()", "x[f()]", "(y := x)", "a + g()", "[x]"])
def test_expressions_whose_order_may_matter(source):
    assert not evaluates_without_effects(cst.parse_expression(source))


@pytest.mark.parametrize(
    ("source", "never_read"),
    [
        ("x, _ = f()\nfor _ in range(3):\n    pass\n", True),
        ("y = 1\n", True),
        ("x, _ = f()\nprint(_)\n", False),
        ("def f(_):\n    return 1\n", False),
        ("from gettext import gettext as _\n", False),
        ("x, _ = f()\n_ += 1\n", False),
    ],
)
def test_is_never_read(source, never_read):
    assert is_never_read(cst.parse_module(source), "_") is never_read
