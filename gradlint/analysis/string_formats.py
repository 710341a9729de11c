"""What a `"...".format(...)` call shows as text.

A replacement field with a numeric presentation type (`{loss.val:.4f}`, `{0:d}`, `{:.2%}`) writes
a number: a Python number, or a one-element tensor through `Tensor.__format__`, which reads the
value and not the autograd state. Any other field writes the argument's `str()`, which for a
tensor spells its `grad_fn`.
"""

from __future__ import annotations

import string
from typing import Optional

import libcst as cst

_NUMERIC_TYPES = frozenset("bcdoxXneEfFgG%")


def literal_format_call(call: cst.Call) -> bool:
    """`call` is `"<literal>".format(...)`."""
    func = call.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value == "format"
        and isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString))
        and _template(func.value) is not None
    )


def shown_arguments(call: cst.Call) -> Optional[list[cst.BaseExpression]]:
    """The arguments of a literal `.format(...)` call written as text rather than as numbers;
    None when that cannot be told (`*args`, `**kwargs`, a field naming no argument, a nested
    field in a format spec, a template that does not parse)."""
    template = _template(call.func.value) if isinstance(call.func, cst.Attribute) else None
    if template is None or any(arg.star for arg in call.args):
        return None
    positional = [arg.value for arg in call.args if arg.keyword is None]
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    try:
        fields = [(name, spec, conversion) for _, name, spec, conversion in string.Formatter().parse(template) if name is not None]
    except ValueError:
        return None
    shown: list[cst.BaseExpression] = []
    automatic = 0
    for name, spec, conversion in fields:
        if "{" in spec:
            return None
        head = name.split(".", 1)[0].split("[", 1)[0]
        if head == "":
            head, automatic = str(automatic), automatic + 1
        argument = positional[int(head)] if head.isdigit() and int(head) < len(positional) else keywords.get(head)
        if argument is None:
            return None
        if conversion is not None or not spec or spec[-1] not in _NUMERIC_TYPES:
            shown.append(argument)
    return shown


def _template(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        left, right = _template(node.left), _template(node.right)
        return left + right if left is not None and right is not None else None
    return None
