"""What a literal `.format(...)` call shows as text: numeric fields read values, the others `str()`."""

from __future__ import annotations

import libcst as cst
import pytest

from gradlint.analysis.string_formats import literal_format_call, shown_arguments


def shown(expression: str):
    call = cst.parse_expression(expression)
    assert isinstance(call, cst.Call)
    found = shown_arguments(call)
    return None if found is None else [cst.Module([]).code_for_node(value) for value in found]


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("'{:.3f} {}'.format(loss, step)", ["step"]),
        ("'Test: [{0}/{1}]\\t' 'Loss {loss.val:.4f} ({loss.avg:.4f})'.format(i, n, loss=losses)", ["i", "n"]),
        ("'{0:d} {0}'.format(count)", ["count"]),
        ("'{x!r:.3f}'.format(x=out)", ["out"]),
        ("'{:>10}'.format(out)", ["out"]),
        ("'{:.2%}'.format(accuracy)", []),
        ("'{a[0]:.1e}'.format(a=values)", []),
    ],
)
def test_fields_written_as_text(expression, expected):
    assert shown(expression) == expected


@pytest.mark.parametrize(
    "expression",
    [
        "'{}'.format(*values)",
        "'{x}'.format(**row)",
        "'{2}'.format(a)",
        "'{missing}'.format(a=1)",
        "'{:{width}}'.format(x, width=3)",
        "'{'.format(x)",
    ],
)
def test_what_cannot_be_told(expression):
    assert shown(expression) is None


def test_only_literal_templates_count():
    assert literal_format_call(cst.parse_expression("'{}'.format(x)"))
    assert literal_format_call(cst.parse_expression("'a' 'b{}'.format(x)"))
    assert not literal_format_call(cst.parse_expression("template.format(x)"))
    assert not literal_format_call(cst.parse_expression("f'{x}'.format(y)"))
    assert not literal_format_call(cst.parse_expression("b'{}'.format(x)"))
