"""The PyTorch 0.3 `Variable` API: its name and how a call's arguments map to its parameters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.syntax import is_bool_literal

VARIABLE = "torch.autograd.Variable"
# Positional order of the legacy constructor's parameters.
_PARAMETERS = ("data", "requires_grad", "volatile")

# torch factories that accept `requires_grad=` and return a fresh leaf that does not require grad.
GRAD_FACTORIES = torch_api.functions("grad-flag")
# Fresh tensors from other sources (no `requires_grad=` parameter).
OTHER_FRESH = torch_api.functions("factory", without=("grad-flag",))
# Conversions that keep a fresh, grad-free tensor fresh and grad-free.
FRESH_CONVERSIONS = torch_api.methods("self")


@dataclass(frozen=True)
class VariableArguments:
    data: Optional[cst.BaseExpression]
    requires_grad: Optional[cst.BaseExpression]
    volatile: Optional[cst.Arg]


def is_variable(node: cst.CSTNode, imports: ImportMap) -> bool:
    return imports.qualified_name(node) == VARIABLE


_SIGNATURE = Signature.of_names(_PARAMETERS)  # `Variable(data, requires_grad, volatile)`


def variable_arguments(call: cst.Call) -> Optional[VariableArguments]:
    """Map the call's arguments to data / requires_grad / volatile, or None if anything else is passed."""
    bound = bind(call, _SIGNATURE)
    if bound.starred or not bound.fits:
        return None
    return VariableArguments(bound.passed("data"), bound.passed("requires_grad"), bound.argument("volatile"))


def volatile_argument(call: cst.Call) -> Optional[cst.Arg]:
    return bind(call, _SIGNATURE).argument("volatile")


def fresh_tensor_call(node: cst.BaseExpression, imports: ImportMap) -> Optional[cst.Call]:
    """The factory call at the root of `node` when node is a fresh tensor that does not require grad.

    Fresh means: created right here, referenced by nothing else, so unwrapping `Variable(...)`
    around it cannot change identity, aliasing or autograd history.
    """
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and not node.lpar:
        if node.func.attr.value not in FRESH_CONVERSIONS or imports.qualified_name(node.func) is not None:
            break
        node = node.func.value
    if not isinstance(node, cst.Call) or any(arg.star for arg in node.args):
        return None
    qualified = imports.qualified_name(node.func)
    if qualified not in GRAD_FACTORIES and qualified not in OTHER_FRESH:
        return None
    for arg in node.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "out" or (keyword == "requires_grad" and not is_bool_literal(arg.value, False)):
            return None
    return node


def is_direct_grad_factory(node: cst.BaseExpression, imports: ImportMap) -> bool:
    """`torch.randn(...)` itself (no conversion chain), which can take `requires_grad=True`."""
    return isinstance(node, cst.Call) and fresh_tensor_call(node, imports) is node and imports.qualified_name(node.func) in GRAD_FACTORIES


def literal_flag(node: cst.BaseExpression) -> Optional[bool]:
    """The value of a literal `Variable` flag: True / False, or an int literal 0..255 (which the
    constructor reads as a bool); None for anything else."""
    if is_bool_literal(node, True) or is_bool_literal(node, False):
        return is_bool_literal(node, True)
    if isinstance(node, cst.Integer) and 0 <= node.evaluated_value <= 255:
        return node.evaluated_value != 0
    return None


# Pre-0.4 typed constructors that `torch.tensor(list, dtype=...)` reproduces bitwise from numeric
# literals: the dtype to spell out (None: the default dtype, as `torch.Tensor` uses) and whether
# float literals are allowed (an integer type truncates them).
_LITERAL_DTYPES = (None, "float32", "float64", "int64", "int32")
_LITERAL_CONSTRUCTORS = {
    name: (row.value("dtype"), not row.has("int"))
    for name, row in torch_api.FUNCTIONS.items()
    if row.has("legacy") and not name.startswith("torch.cuda.") and row.value("dtype") in _LITERAL_DTYPES
}
_EXACT_INTEGERS = 2**53  # ints a float64 holds exactly: `1` and `1.0` convert to the same value


def literal_tensor(node: cst.BaseExpression, imports: ImportMap) -> Optional[cst.Call]:
    """`torch.tensor(...)` for `torch.FloatTensor([1, 2])` and its cousins built from a list of
    numeric literals, with the exact dtype: `torch.Tensor([1, 2])` -> `torch.tensor([1.0, 2.0])`
    (the default dtype, like `torch.Tensor`), `torch.FloatTensor([1.5])` ->
    `torch.tensor([1.5], dtype=torch.float32)` (float32 whatever the default dtype),
    `torch.LongTensor([1, 2])` -> `torch.tensor([1, 2])` (int64 is what ints infer). None for
    sizes (`torch.Tensor(3, 4)` is uninitialised memory) and any other argument."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and len(node.args) == 1):
        return None
    arg = node.args[0]
    spec = _LITERAL_CONSTRUCTORS.get(imports.qualified_name(node.func) or "")
    if spec is None or arg.keyword is not None or arg.star or not isinstance(arg.value, (cst.List, cst.Tuple)):
        return None
    if imports.qualified_name(node.func.value) != "torch":
        return None
    dtype, floats_allowed = spec
    numbers = _literal_numbers(arg.value)
    if numbers is None or (not floats_allowed and any(isinstance(n, cst.Float) for n in numbers)):
        return None
    if any(isinstance(n, cst.Integer) and abs(n.evaluated_value) >= _EXACT_INTEGERS for n in numbers):
        return None
    data = arg.value
    if dtype is None:
        # The default dtype: what `torch.tensor` infers from float literals only.
        data = data.visit(_IntegersAsFloats())
    elif dtype == "int64":
        dtype = None  # what `torch.tensor` infers from int literals only
    args = [cst.Arg(data)]
    if dtype is not None:
        args[0] = args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(
            cst.Arg(
                cst.Attribute(node.func.value, cst.Name(dtype)),
                keyword=cst.Name("dtype"),
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
            )
        )
    return cst.Call(func=node.func.with_changes(attr=cst.Name("tensor")), args=args)


def _literal_numbers(node: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    """The Integer / Float literals of a nested list or tuple of signed numbers, else None."""
    if isinstance(node, (cst.List, cst.Tuple)):
        found = []
        for element in node.elements:
            if not isinstance(element, cst.Element):
                return None
            inner = _literal_numbers(element.value)
            if inner is None:
                return None
            found.extend(inner)
        return found
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return [node] if isinstance(node, (cst.Integer, cst.Float)) else None


class _IntegersAsFloats(cst.CSTTransformer):
    def leave_Integer(self, original: cst.Integer, updated: cst.Integer) -> cst.BaseExpression:
        return cst.Float(f"{original.evaluated_value}.0")
