"""Whether an index is a uint8 mask, the 0.3 idiom torch 2.13 still accepts with a deprecation
warning (it indexes as the bool mask would): `x.byte()`, `x.to(torch.uint8)`, a factory with
`dtype=torch.uint8`, or a name bound only to those.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Bindings


_UINT8 = "torch.uint8"
_BYTE_TYPES = frozenset({"torch.ByteTensor", "torch.cuda.ByteTensor"})


def is_byte_tensor(node: cst.BaseExpression, imports: ImportMap, bindings: Optional[Bindings]) -> bool:
    """True when `node` evidently holds a uint8 tensor: `x.byte()`, `x.to(torch.uint8)`,
    `x.type(torch.ByteTensor)`, `torch.ByteTensor(...)`, a factory with `dtype=torch.uint8`, or a
    local name every binding of which is one of these."""
    if isinstance(node, cst.Name) and bindings is not None:
        return _name_is_byte_tensor(node.value, imports, bindings)
    if not isinstance(node, cst.Call):
        return False
    if any(arg.keyword is not None and arg.keyword.value == "dtype" and imports.qualified_name(arg.value) == _UINT8 for arg in node.args):
        return True
    func = node.func
    if imports.qualified_name(func) in _BYTE_TYPES:
        return True
    if not isinstance(func, cst.Attribute):
        return False
    if func.attr.value == "byte":
        return not node.args
    if func.attr.value in ("to", "type") and len(node.args) == 1 and node.args[0].keyword is None:
        return imports.qualified_name(node.args[0].value) in (_UINT8, *_BYTE_TYPES)
    return False


def is_byte_mask(node: cst.BaseExpression, bindings: Optional[Bindings]) -> bool:
    """True when `node` is `x.byte()`, or a local name every binding of which is: the 0.3 idiom for a
    mask (a torch method, so a torch tensor, unlike a uint8 array that numpy reads as indices)."""
    if isinstance(node, cst.Name) and bindings is not None:
        values = bindings.plain_values(node.value)
        return bool(values) and all(is_byte_mask(value, None) for value in values)
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "byte" and not node.args


def _name_is_byte_tensor(name: str, imports: ImportMap, bindings: Bindings) -> bool:
    values = bindings.plain_values(name)
    return bool(values) and all(is_byte_tensor(value, imports, None) for value in values)
