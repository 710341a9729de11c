"""The pre-`torch.linalg` linear-algebra functions: their signatures, status and versions, and the
argument binding a migration needs to reorder them (`torch.solve(B, A)` -> `linalg.solve(A, B)`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from gradlint.analysis.semantic.arguments import Signature, bind


@dataclass(frozen=True)
class LegacyLinalg:
    """A legacy function of `torch` (and method of `Tensor`) that `torch.linalg` replaces."""

    name: str
    parameters: tuple[str, ...]  # in legacy positional order; the first is the tensor (the receiver of the method)
    deprecated: str  # the torch version that deprecated it
    removed: Optional[str] = None  # the torch version since which it raises
    method: bool = True  # `Tensor.<name>` exists with the same meaning

    @property
    def status(self) -> str:
        if self.removed is not None:
            return f"removed in torch {self.removed}"
        return f"deprecated in torch {self.deprecated}"


LEGACY_LINALG: dict[str, LegacyLinalg] = {
    api.name: api
    for api in (
        LegacyLinalg("solve", ("input", "A"), "1.9", "1.13"),
        LegacyLinalg("symeig", ("input", "eigenvectors", "upper"), "1.9", "1.13"),
        LegacyLinalg("eig", ("input", "eigenvectors"), "1.9", "1.13"),
        LegacyLinalg("lstsq", ("input", "A"), "1.9", "1.13"),
        LegacyLinalg("matrix_rank", ("input", "tol", "symmetric"), "1.9", "1.13", method=False),
        LegacyLinalg("qr", ("input", "some"), "1.9"),
        LegacyLinalg("cholesky", ("input", "upper"), "1.9"),
        LegacyLinalg("chain_matmul", (), "1.9", method=False),
        LegacyLinalg("triangular_solve", ("input", "A", "upper", "transpose", "unitriangular"), "1.11"),
        LegacyLinalg("lu", ("A", "pivot", "get_infos"), "1.13"),
        LegacyLinalg("lu_solve", ("input", "LU_data", "LU_pivots"), "1.13"),
        # Deprecated in the documentation only (no warning), and common as methods: functions only.
        LegacyLinalg("svd", ("input", "some", "compute_uv"), "1.9", method=False),
        LegacyLinalg("norm", ("input", "p", "dim", "keepdim", "out", "dtype"), "1.9", method=False),
    )
}


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
