"""Small CST builders the fixes share (gradlint/fix/builders.py)."""

import libcst as cst
import pytest

from gradlint.fix.builders import with_keywords


def rendered(call: cst.Call) -> str:
    return cst.Module([]).code_for_node(call)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("f()", "f(dim=1)"),
        ("f(x)", "f(x, dim=1)"),
        ("f(x, y)", "f(x, y, dim=1)"),
        ("f(\n    x,\n    y,\n)", "f(\n    x,\n    y,\n    dim=1,\n)"),
    ],
)
def test_keywords_are_appended_laid_out_like_the_call(source, expected):
    assert rendered(with_keywords(cst.parse_expression(source), [("dim", cst.Integer("1"))])) == expected


def test_several_keywords_keep_their_order():
    call = with_keywords(cst.parse_expression("f(x)"), [("a", cst.Integer("1")), ("b", cst.Name("True"))])
    assert rendered(call) == "f(x, a=1, b=True)"
    compile(rendered(call), "<fix>", "eval")
