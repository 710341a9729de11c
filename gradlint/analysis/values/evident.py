"""Tensors evident from how the file builds them: a public torch function's result, a tensor
method's result on such a value, a name every binding of which in its function is one, or an
operation of those and numbers. Stricter than the tensor evidence: no name, no model or criterion
call, no loop variable counts."""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.history import KEEPS_HISTORY
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable

# Namespaces of torch functions that return tensors (besides `torch.<function>` itself).
_TENSOR_NAMESPACES = ("torch.nn.functional.", "torch.linalg.", "torch.fft.", "torch.special.")
# Tensor methods whose result is a tensor when their receiver is one.
_TENSOR_METHODS = (KEEPS_HISTORY | torch_api.methods("same-values") | {"detach", "long", "int", "bool"}) - (
    torch_api.methods("tuple") | torch_api.methods("pair", without=("reduction",))
)
_MAX_DEPTH = 6


class EvidentTensors:
    def __init__(self, imports: ImportMap, scopes: ScopeTable, is_tensor: Callable[[cst.BaseExpression, Optional[Scope]], bool]) -> None:
        self.imports = imports
        self.scopes = scopes
        self.is_tensor = is_tensor  # the tensor evidence, which the public torch functions must also pass

    def is_evident(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int = 0) -> bool:
        """Built by a public torch function or a tensor method on such a value, directly or through
        names every binding of which is one, or an operation of those and numbers."""
        if depth > _MAX_DEPTH:
            return False
        if isinstance(node, cst.Name):
            if scope is None:
                return False
            bindings = self.scopes.of(scope)
            values = bindings.assigned(node.value)
            if not values or node.value in bindings.opaque or node.value in bindings.unpacked:
                return False
            return all(self.is_evident(value, scope, depth + 1) for value in values)
        if isinstance(node, cst.Call):
            return self._builds_tensor(node, scope, depth)
        if isinstance(node, cst.Subscript):
            return self.is_evident(node.value, scope, depth + 1)
        if isinstance(node, cst.UnaryOperation):
            return self.is_evident(node.expression, scope, depth + 1)
        if isinstance(node, (cst.BinaryOperation, cst.Comparison)):
            operands = (
                [node.left, node.right] if isinstance(node, cst.BinaryOperation) else [node.left, *(c.comparator for c in node.comparisons)]
            )
            tensors_among = [self.is_evident(operand, scope, depth + 1) for operand in operands]
            numbers = [isinstance(operand, (cst.Integer, cst.Float)) for operand in operands]
            return any(tensors_among) and all(t or n for t, n in zip(tensors_among, numbers))
        return False

    def constructs(self, call: cst.Call, scope: Optional[Scope]) -> bool:
        """`call` itself is a public torch function that makes a tensor (`torch.randn(2, 3)`)."""
        return self._torch_function_tensor(call, scope)

    def _builds_tensor(self, call: cst.Call, scope: Optional[Scope], depth: int) -> bool:
        if self.imports.qualified_name(call.func) is not None:
            return self._torch_function_tensor(call, scope)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _TENSOR_METHODS:
            return self.is_evident(call.func.value, scope, depth + 1)
        return False

    def _torch_function_tensor(self, call: cst.Call, scope: Optional[Scope]) -> bool:
        qualified = self.imports.qualified_name(call.func)
        if qualified is None:
            return False
        parts = qualified.split(".")
        public = all(not part.startswith("_") for part in parts)
        return public and (len(parts) == 2 or qualified.startswith(_TENSOR_NAMESPACES)) and self.is_tensor(call, scope)
