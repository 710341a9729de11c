"""The number of dimensions of a tensor expression, where the code states it: a factory called
with its sizes (`torch.randn(4, 3)`), a nested list literal (`torch.tensor([[1.0, 2.0]])`), or a
name every binding of which is such an expression in the same function."""

from __future__ import annotations

from typing import Optional

import libcst as cst
import libcst.matchers as m

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable

# Factories whose positional arguments are the sizes: `f(2, 3)` or `f((2, 3))`.
_SIZED_FACTORIES = frozenset({"torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty"})
_RESHAPING_IN_PLACE = ("unsqueeze_", "squeeze_", "resize_", "resize_as_", "set_", "as_strided_")
_DATA_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor"})


def static_rank(node: cst.BaseExpression, imports: ImportMap, scopes: ScopeTable, scope: Optional[Scope], depth: int = 0) -> Optional[int]:
    """The rank of the tensor `node` evaluates to, or None when the code does not say it."""
    if depth > 4:
        return None
    if isinstance(node, cst.Call):
        return _call_rank(node, imports)
    if isinstance(node, cst.Name) and scope is not None:
        bindings = scopes.of(scope)
        name = node.value
        values = bindings.assigned(name)
        if not values or name in bindings.opaque or name in bindings.loop_sources or name in bindings.unpacked:
            return None
        if _reshaped_in_place(scope, name):
            return None
        ranks = {static_rank(value, imports, scopes, scope, depth + 1) for value in values}
        return ranks.pop() if len(ranks) == 1 else None
    return None


def _reshaped_in_place(scope: Scope, name: str) -> bool:
    """`x.unsqueeze_(0)`, `x.resize_(...)` or `x.data = ...` somewhere in the scope."""
    receiver = m.Name(name)
    mutation = m.Attribute(value=receiver, attr=m.OneOf(*(m.Name(method) for method in _RESHAPING_IN_PLACE)))
    replaced = m.AssignTarget(target=m.Attribute(value=receiver, attr=m.Name("data")))
    return bool(m.findall(scope, mutation | replaced))


def _call_rank(call: cst.Call, imports: ImportMap) -> Optional[int]:
    qualified = imports.qualified_name(call.func)
    if any(arg.star for arg in call.args):
        return None
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if qualified in _SIZED_FACTORIES:
        return _sizes_rank(positional)
    if qualified in _DATA_FACTORIES and positional:
        return _data_rank(positional[0])
    return None


def _sizes_rank(sizes: list[cst.BaseExpression]) -> Optional[int]:
    if len(sizes) == 1:
        (size,) = sizes
        if isinstance(size, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in size.elements):
            return len(size.elements)
        return 1 if isinstance(size, cst.Integer) else None
    # Several sizes: each one is an int (torch raises otherwise), one dimension each.
    return len(sizes) if sizes else None


def _data_rank(data: cst.BaseExpression) -> Optional[int]:
    """The nesting depth of a list literal of numbers, when every branch has the same depth."""
    if isinstance(data, (cst.Integer, cst.Float)) or (
        isinstance(data, cst.UnaryOperation) and isinstance(data.expression, (cst.Integer, cst.Float))
    ):
        return 0
    if not isinstance(data, (cst.List, cst.Tuple)) or not data.elements:
        return None
    if any(isinstance(element, cst.StarredElement) for element in data.elements):
        return None
    inner = {_data_rank(element.value) for element in data.elements}
    if len(inner) != 1 or None in inner:
        return None
    return inner.pop() + 1


def legacy_softmax_dim(rank: int) -> int:
    """The dimension `softmax` and its kin pick without `dim` (torch.nn.functional._get_softmax_dim):
    0 for 0-, 1- and 3-D input, 1 otherwise. Measured under torch 2.13 for ranks 0 to 4."""
    return 0 if rank in (0, 1, 3) else 1
