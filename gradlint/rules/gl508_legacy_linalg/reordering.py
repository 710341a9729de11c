"""What a migration of the pre-`torch.linalg` functions needs to reorder their arguments
(`torch.solve(B, A)` -> `linalg.solve(A, B)`): which argument binds which parameter, and whether
evaluating them in another order can change anything. Their signatures and versions are in
`torch_api.legacy_linalg`."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.semantic.arguments import Signature, bind


def bind_arguments(
    call: cst.Call, parameters: tuple[str, ...], receiver: Optional[cst.BaseExpression] = None
) -> Optional[dict[str, cst.BaseExpression]]:
    """Parameter name -> argument expression of `call` (the method's receiver binds the first
    parameter); None when the call cannot be bound statically (`*args`, `**kwargs`, an unknown
    keyword, too many positional arguments, a parameter given twice)."""
    bound = bind(call, Signature.of_names(parameters), receiver)
    if bound.starred or not bound.fits:
        return None
    return bound.values()


_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


def evaluates_without_effects(node: cst.BaseExpression) -> bool:
    """True for expressions whose evaluation order cannot matter: names, attribute chains,
    subscripts by such expressions, literals and arithmetic of them (no calls, no walrus)."""
    if isinstance(node, (cst.Name, *_LITERALS)):
        return True
    if isinstance(node, cst.Attribute):
        return evaluates_without_effects(node.value)
    if isinstance(node, cst.UnaryOperation):
        return evaluates_without_effects(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return evaluates_without_effects(node.left) and evaluates_without_effects(node.right)
    if isinstance(node, cst.Subscript):
        return evaluates_without_effects(node.value) and all(_index_without_effects(element.slice) for element in node.slice)
    if isinstance(node, cst.Tuple):
        return all(evaluates_without_effects(element.value) for element in node.elements if isinstance(element, cst.Element))
    return False


def _index_without_effects(index: cst.BaseSlice) -> bool:
    if isinstance(index, cst.Index):
        return index.star is None and evaluates_without_effects(index.value)
    if isinstance(index, cst.Slice):
        return all(part is None or evaluates_without_effects(part) for part in (index.lower, index.upper, index.step))
    return False
