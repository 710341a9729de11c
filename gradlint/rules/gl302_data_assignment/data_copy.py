"""When `x.copy_(expr)` can stand in for `x.data = expr`.

`copy_` writes into x's existing storage: it casts to x's dtype, moves to x's device, keeps x's
strides and broadcasts or rejects another shape. So it gives the values `.data =` gave only when
expr evidently has x's shape, dtype, device and layout: expr is computed from x itself (or from
x's gradient, which autograd keeps in x's layout) by element-wise steps with plain numbers. And
x must be a tensor some earlier code owns: a module built in the same function (a re-parameterised
or frozen copy) is meant to receive the new tensor itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.scopes import Scope
from gradlint.analysis.syntax import dotted_name

if TYPE_CHECKING:
    from gradlint.context import FileContext

# Methods whose result has the receiver's shape, dtype, device and (dense) strides.
_SAME_LAYOUT_METHODS = torch_api.methods("same-layout")
# The same when every argument is a plain number (a tensor argument could broadcast or promote).
_SCALAR_ARGUMENT_METHODS = torch_api.methods("elementwise")
# `torch.zeros_like(x)`: x's shape, dtype, device and layout unless a keyword says otherwise.
_LIKE_FACTORIES = torch_api.functions("like")
_FLOATING_ATTRIBUTES = frozenset({"weight", "bias", "grad"})
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)


def copy_can_replace(context: FileContext, target: cst.BaseExpression, value: cst.BaseExpression, scope: Scope) -> bool:
    """True when `target.copy_(value)` gives the values `target.data = value` gave (aliases aside)."""
    name = dotted_name(target)
    if name is None or constructed_in(context, name, scope):
        return False
    return _keeps_layout(context, value, name, scope, numbers=_is_floating(context, name, scope))


def constructed_in(context: FileContext, dotted: str, scope: Scope) -> bool:
    """`res` or `self.conv` (a prefix of `dotted`) is bound to a call result in `scope`."""
    bindings = context.scopes.of(scope)
    parts = dotted.split(".")
    for end in range(1, len(parts) + 1):
        prefix = ".".join(parts[:end])
        values = bindings.values.get(prefix, []) if end == 1 else bindings.attributes.get(prefix, [])
        if any(isinstance(value, cst.Call) for value in values):
            return True
    return False


def _is_floating(context: FileContext, dotted: str, scope: Scope) -> bool:
    """A parameter or gradient (`m.weight`, `p.grad`, `p` of `.parameters()`): arithmetic with a
    number keeps its dtype. A buffer or other tensor may hold integers, which `* 0.5` makes float."""
    if dotted.rsplit(".", 1)[-1] in _FLOATING_ATTRIBUTES:
        return True
    if "." in dotted:
        return False
    bindings = context.scopes.of(scope)
    values = bindings.values.get(dotted, [])
    if values and dotted not in bindings.opaque:
        return all(isinstance(value, cst.Attribute) and value.attr.value in _FLOATING_ATTRIBUTES for value in values)
    sources = bindings.loop_sources.get(dotted, [])
    return bool(sources) and all(_calls_method(iterable, ("parameters", "named_parameters")) for iterable, _ in sources)


def _calls_method(node: cst.BaseExpression, methods: tuple[str, ...]) -> bool:
    while isinstance(node, cst.Call):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in methods:
            return True
        node = node.args[0].value if node.args else node.func  # zip(...), list(...)
    return False


def _keeps_layout(context: FileContext, node: cst.BaseExpression, target: str, scope: Scope, numbers: bool) -> bool:
    """`node` has the layout of the tensor named `target` (`numbers`: plain numbers may enter)."""
    if isinstance(node, cst.Attribute) and node.attr.value == "data":
        return _keeps_layout(context, node.value, target, scope, numbers)
    if dotted_name(node) in (target, f"{target}.grad"):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _keeps_layout(context, node.expression, target, scope, numbers)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
        sides = (node.left, node.right)
        if not all(
            _keeps_layout(context, side, target, scope, numbers) or (numbers and _is_number(context, side, scope)) for side in sides
        ):
            return False
        return any(_keeps_layout(context, side, target, scope, numbers) for side in sides)
    if isinstance(node, cst.Call):
        return _call_keeps_layout(context, node, target, scope, numbers)
    return False


def _call_keeps_layout(context: FileContext, call: cst.Call, target: str, scope: Scope, numbers: bool) -> bool:
    if any(arg.keyword is not None or arg.star for arg in call.args):
        return False  # dtype=, device=, memory_format=, out=...
    if context.imports.qualified_name(call.func) in _LIKE_FACTORIES:
        first, *rest = call.args or (None,)
        return (
            first is not None
            and _keeps_layout(context, first.value, target, scope, numbers)
            and all(_is_number(context, arg.value, scope) for arg in rest)
        )
    if not isinstance(call.func, cst.Attribute) or not _keeps_layout(context, call.func.value, target, scope, numbers):
        return False
    method = call.func.attr.value
    if method in _SAME_LAYOUT_METHODS:
        return not call.args
    return (
        numbers
        and method in _SCALAR_ARGUMENT_METHODS
        and bool(call.args)
        and all(_is_number(context, arg.value, scope) for arg in call.args)
    )


def _is_number(context: FileContext, node: cst.BaseExpression, scope: Scope) -> bool:
    """A numeric literal, arithmetic on them, or a name only ever bound to one (`LR = 0.1`)."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return _is_number(context, node.expression, scope)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
        return _is_number(context, node.left, scope) and _is_number(context, node.right, scope)
    if isinstance(node, cst.Name):
        values = _bound_values(context, node.value, scope)
        return bool(values) and all(isinstance(value, (cst.Integer, cst.Float)) for value in values)
    return False


def _bound_values(context: FileContext, name: str, scope: Scope) -> Optional[list[cst.BaseExpression]]:
    """What `name` is bound to where it is read: the function's own bindings, else the module's."""
    bindings = context.scopes.of(scope)
    if name in bindings.values or name in bindings.opaque or scope is context.module:
        return None if name in bindings.opaque else bindings.values.get(name)
    module = context.scopes.of(context.module)
    return None if name in module.opaque else module.values.get(name)
