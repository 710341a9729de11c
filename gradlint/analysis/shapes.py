"""The shape of a tensor expression, where the code states it: a factory called with its sizes
(`torch.randn(4, 3)`), a nested list literal (`torch.tensor([[1.0, 2.0]])`), or a name every
binding of which, in the same function, is such an expression. A size the code does not spell as
an integer literal is None; the rank (the length of the shape) is still known."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable
from gradlint.analysis.tree import descendants

Shape = tuple[Optional[int], ...]

# Factories whose positional arguments are the sizes: `f(2, 3)` or `f((2, 3))`.
_SIZED_FACTORIES = torch_api.functions("sized")
_DATA_FACTORIES = torch_api.functions("list", without=("legacy",))
_RESHAPING_IN_PLACE = torch_api.methods("reshapes")
_MAX_DEPTH = 4


def static_rank(node: cst.BaseExpression, imports: ImportMap, scopes: ScopeTable, scope: Optional[Scope]) -> Optional[int]:
    """The number of dimensions of `node`, or None when the code does not say it."""
    shape = static_shape(node, imports, scopes, scope)
    return None if shape is None else len(shape)


def static_shape(node: cst.BaseExpression, imports: ImportMap, scopes: ScopeTable, scope: Optional[Scope]) -> Optional[Shape]:
    """The shape of the tensor `node` evaluates to, or None when the code does not say it."""
    return _shape(node, imports, scopes, scope, 0)


def _shape(node: cst.BaseExpression, imports: ImportMap, scopes: ScopeTable, scope: Optional[Scope], depth: int) -> Optional[Shape]:
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, cst.Call):
        return _call_shape(node, imports)
    if isinstance(node, cst.Name) and scope is not None:
        bindings = scopes.of(scope)
        name = node.value
        values = bindings.assigned(name)
        if not values or name in bindings.opaque or name in bindings.loop_sources or name in bindings.unpacked:
            return None
        if _reshaped_in_place(scope, name):
            return None
        shapes = {_shape(value, imports, scopes, scope, depth + 1) for value in values}
        return shapes.pop() if len(shapes) == 1 else None
    return None


def _reshaped_in_place(scope: Scope, name: str) -> bool:
    """`x.unsqueeze_(0)`, `x.resize_(...)` or `x.data = ...` somewhere in the scope."""
    for node in descendants(scope):
        kind = type(node)  # exact types: see analysis/syntax.py
        if kind is cst.Attribute and _is_name(node.value, name) and node.attr.value in _RESHAPING_IN_PLACE:
            return True
        if kind is cst.AssignTarget and type(node.target) is cst.Attribute and _is_name(node.target.value, name):
            if node.target.attr.value == "data":
                return True
    return False


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return type(node) is cst.Name and node.value == name


def _call_shape(call: cst.Call, imports: ImportMap) -> Optional[Shape]:
    if any(arg.star for arg in call.args):
        return None
    qualified = imports.qualified_name(call.func)
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if qualified in _SIZED_FACTORIES:
        return _sizes(positional)
    if qualified in _DATA_FACTORIES and positional:
        return _data_shape(positional[0])
    return None


def _sizes(sizes: list[cst.BaseExpression]) -> Optional[Shape]:
    if not sizes:
        return None
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        elements = sizes[0].elements
        if any(isinstance(element, cst.StarredElement) for element in elements):
            return None
        sizes = [element.value for element in elements]
    elif len(sizes) == 1 and not isinstance(sizes[0], cst.Integer):
        return None  # `torch.randn(n)`: n may be an int or a whole shape
    # Each size is an int (torch raises otherwise): one dimension each.
    return tuple(_integer(size) for size in sizes)


def _integer(node: cst.BaseExpression) -> Optional[int]:
    return int(node.value) if isinstance(node, cst.Integer) and node.value.isdigit() else None


def _data_shape(data: cst.BaseExpression) -> Optional[Shape]:
    """The shape of a list literal of numbers, when it is rectangular."""
    if isinstance(data, (cst.Integer, cst.Float)) or (
        isinstance(data, cst.UnaryOperation) and isinstance(data.expression, (cst.Integer, cst.Float))
    ):
        return ()
    if not isinstance(data, (cst.List, cst.Tuple)) or not data.elements:
        return None
    if any(isinstance(element, cst.StarredElement) for element in data.elements):
        return None
    inner = {_data_shape(element.value) for element in data.elements}
    if len(inner) != 1 or None in inner:
        return None
    return (len(data.elements), *inner.pop())


def legacy_softmax_dim(rank: int) -> int:
    """The dimension `softmax` and its kin pick without `dim` (torch.nn.functional._get_softmax_dim):
    0 for 0-, 1- and 3-D input, 1 otherwise. Measured under torch 2.13 for ranks 0 to 4."""
    return 0 if rank in (0, 1, 3) else 1
