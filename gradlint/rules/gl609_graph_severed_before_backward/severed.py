"""Losses whose graph was severed and that were wrapped back into a tensor.

`torch.tensor(loss.item(), requires_grad=True)`, `torch.tensor(np_loss)` computed from
`out.detach().numpy()`, `torch.tensor(loss)`: the value was computed from the model's output,
but through a step that leaves autograd (a Python number, a numpy array, a detached copy), so the
new tensor is a leaf (or has no history at all) and backpropagating it never reaches the model.

Evidence only: the cut must be applied to a value with evident history (by the value model), and
everything else the wrapped value is computed from must bring no graph. Names are followed to the
assignment their read sees (`ScopeUses.reaching_assignment`), else to every visible assignment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.history import KEEPS_HISTORY
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope
from gradlint.analysis.semantic.scope import ScopeUsesTable
from gradlint.analysis.syntax import is_bool_literal, keyword_arg, positional_args
from gradlint.analysis.values import ValueModel

# Methods leaving autograd: a Python value, a numpy array, or a detached tensor.
LEAVES_AUTOGRAD = torch_api.methods("detaches")
# Constructors making a tensor from data: a new leaf, whatever the data's history.
TENSOR_CONSTRUCTORS = torch_api.functions("data") | torch_api.functions("legacy") | torch_api.functions("variable")
# Of those, the ones that copy a tensor argument (`torch.as_tensor(t)` and `Variable(t)` return `t`).
COPYING_CONSTRUCTORS = torch_api.functions("copies")
_NUMERIC_NAMESPACES = ("numpy.", "math.")
_MAX_DEPTH = 12


@dataclass(frozen=True)
class Rewrap:
    """A tensor built from a severed value: `wrap` is the constructor call, `cut` where the graph
    was left (`loss.item()`, `out.detach()`, or `torch.tensor(loss)` itself)."""

    wrap: cst.Call
    cut: cst.BaseExpression
    requires_grad: bool


class SeveredGraphs:
    def __init__(self, imports: ImportMap, values: ValueModel, scope_uses: ScopeUsesTable) -> None:
        self.imports = imports
        self.values = values
        self.scope_uses = scope_uses

    def rewrapped(self, node: cst.BaseExpression, scope: Scope) -> Optional[Rewrap]:
        """`node` (a value about to be backpropagated) is a tensor constructor over a severed
        value, or that tensor moved, reduced or scaled by values without evident history."""
        return self._rewrapped(node, scope, 0)

    def _rewrapped(self, node: cst.BaseExpression, scope: Scope, depth: int) -> Optional[Rewrap]:
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, cst.Name):
            value = self._reaching_value(node, scope)
            return self._rewrapped(value, scope, depth + 1) if value is not None else None
        if isinstance(node, cst.BinaryOperation):
            for part, other in ((node.left, node.right), (node.right, node.left)):
                found = self._rewrapped(part, scope, depth + 1)
                if found is not None and not self._carries(other, scope):
                    return found
            return None
        if not isinstance(node, cst.Call):
            return None
        qualified = self.imports.qualified_name(node.func)
        if qualified in TENSOR_CONSTRUCTORS:
            return self._wrap(node, qualified, scope, depth)
        func = node.func
        if qualified is None and isinstance(func, cst.Attribute) and func.attr.value in KEEPS_HISTORY:
            if not any(self._carries(arg.value, scope) for arg in node.args):
                return self._rewrapped(func.value, scope, depth + 1)
        return None

    def _wrap(self, call: cst.Call, qualified: str, scope: Scope, depth: int) -> Optional[Rewrap]:
        data = self._data_argument(call)
        if data is None:
            return None
        cut = self.cut_in(data, scope, depth + 1)
        if cut is None and qualified in COPYING_CONSTRUCTORS and self._carries(data, scope):
            cut = call
        if cut is None:
            return None
        flag = keyword_arg(call, "requires_grad")
        return Rewrap(call, cut, flag is not None and is_bool_literal(flag.value, True))

    @staticmethod
    def _data_argument(call: cst.Call) -> Optional[cst.BaseExpression]:
        positional = positional_args(call)
        if positional and positional[0].star == "":
            return positional[0].value
        data = keyword_arg(call, "data")
        return data.value if data is not None else None

    def cut_in(self, node: cst.BaseExpression, scope: Scope, depth: int = 0) -> Optional[cst.BaseExpression]:
        """Where `node`'s value left autograd (`loss.item()`, `float(loss)`, `out.detach()`...),
        when it is computed from a value with evident history through such a cut and from nothing
        else that may carry a graph; None otherwise."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, cst.Name):
            return self._cut_name(node, scope, depth)
        if isinstance(node, cst.Attribute):
            if node.attr.value == "data" and self.imports.qualified_name(node) is None and self._carries(node.value, scope):
                return node
            return None
        if isinstance(node, cst.Subscript):
            return self.cut_in(node.value, scope, depth + 1)
        if isinstance(node, cst.Call):
            return self._cut_call(node, scope, depth)
        parts = _operands(node)
        return self._cut_among(parts, scope, depth) if parts is not None else None

    def _cut_name(self, node: cst.Name, scope: Scope, depth: int) -> Optional[cst.BaseExpression]:
        value = self._reaching_value(node, scope)
        if value is not None:
            return self.cut_in(value, scope, depth + 1)
        bindings = self.values.scopes.of(scope)
        values = bindings.assigned(node.value)
        if not values or node.value in bindings.opaque or node.value in bindings.unpacked:
            return None
        cuts = [self.cut_in(value, scope, depth + 1) for value in values]
        return cuts[0] if all(cut is not None for cut in cuts) else None

    def _cut_call(self, call: cst.Call, scope: Scope, depth: int) -> Optional[cst.BaseExpression]:
        func = call.func
        qualified = self.imports.qualified_name(func)
        arguments = [arg.value for arg in call.args]
        if qualified is None and isinstance(func, cst.Attribute):
            receiver = func.value
            if func.attr.value in LEAVES_AUTOGRAD and self._carries(receiver, scope):
                return call
            # A method of a severed value (numpy's `.mean()`, `.astype(...)`, `.cpu()`) stays severed.
            return self._cut_among([receiver, *arguments], scope, depth, first=receiver)
        if isinstance(func, cst.Name) and qualified is None and func.value == "float" and len(arguments) == 1:
            return call if self._carries(arguments[0], scope) else self.cut_in(arguments[0], scope, depth + 1)
        if qualified is not None and (qualified.startswith(_NUMERIC_NAMESPACES) or qualified in TENSOR_CONSTRUCTORS):
            return self._cut_among(arguments, scope, depth)
        return None

    def _cut_among(
        self, parts: list[cst.BaseExpression], scope: Scope, depth: int, first: Optional[cst.BaseExpression] = None
    ) -> Optional[cst.BaseExpression]:
        """The cut of `first` (or of any part when `first` is None), when every other part is
        severed too or brings no graph."""
        candidates = [first] if first is not None else parts
        found = None
        for part in candidates:
            found = self.cut_in(part, scope, depth + 1)
            if found is not None:
                break
        if found is None:
            return None
        for part in parts:
            if self._carries(part, scope) and self.cut_in(part, scope, depth + 1) is None:
                return None
        return found

    def _reaching_value(self, node: cst.Name, scope: Scope) -> Optional[cst.BaseExpression]:
        """The value of the `name = value` statement the read `node` sees, when one does."""
        assignment = self.scope_uses.of(scope).reaching_assignment(node)
        return assignment.value if assignment is not None else None

    def _carries(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """`node` evidently has autograd history; a name by the assignment its read sees."""
        if isinstance(node, cst.Name):
            value = self._reaching_value(node, scope)
            if value is not None:
                return self.values.carries_grad(value, scope)
        return self.values.carries_grad(node, scope)


def _operands(node: cst.CSTNode) -> Optional[list[cst.BaseExpression]]:
    if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
        return [node.left, node.right]
    if isinstance(node, cst.UnaryOperation):
        return [node.expression]
    if isinstance(node, (cst.List, cst.Tuple)):
        return [element.value for element in node.elements]
    return None
