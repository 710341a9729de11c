"""Is an expression evidently a torch tensor? Conservative: 'unknown' counts as 'no'.

Evidence: results of torch functions, tensor-only methods, criterion and model calls, `.grad`,
`Variable(...)`, and names bound (in the same function) to any of those or named like a loss.
Look-alikes that are not tensors: `self.data`, `dataset.data`, `args.data`, numpy, pandas,
containers and module paths such as `torch.utils.data`.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.roles import CRITERION, MODEL_CALL, TENSOR_VALUE, is_batch_source_name, is_loader_name
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.scopes import Scope, ScopeTable

# Methods that exist on tensors and (almost) nowhere else, so `x.method(...)` is a tensor.
TENSOR_ONLY_METHODS = frozenset(
    {
        "cuda",
        "detach",
        "requires_grad_",
        "view",
        "view_as",
        "expand_as",
        "unsqueeze",
        "squeeze",
        "contiguous",
        "masked_fill",
        "index_select",
        "gather",
        "scatter",
        "softmax",
        "log_softmax",
        "matmul",
        "mm",
        "bmm",
        "t",
        "permute",
        "narrow",
        "float",
        "double",
        "half",
        "long",
        "int",
        "byte",
        "sigmoid",
        "tanh",
        "relu",
        "clamp",
        "exp",
        "log",
        "pow",
        "abs",
        "neg",
        "sqrt",
        "norm",
        "eq",
        "ne",
        "lt",
        "gt",
        "le",
        "ge",
        "topk",
        "argmax",
        "argmin",
        "numel",
        "clone",
        "type_as",
        "new_zeros",
        "new_ones",
        "new_empty",
        "new_full",
        "new_tensor",
    }
)
# Reductions: a tensor when the receiver is one (numpy has the same names).
TENSOR_PRESERVING_METHODS = frozenset({"sum", "mean", "max", "min", "prod", "std", "var", "cpu", "to", "add", "mul", "sub", "div"})
TENSOR_ATTRIBUTES = frozenset({"grad", "weight", "bias"})
NOT_TENSOR_MODULES = (
    "torch.utils",
    "torch.nn.Module",
    "torch.optim",
    "torch.cuda",
    "torch.backends",
    "torch.distributed",
    "torch.device",
    "torch.dtype",
    "torch.Size",
)
NON_TENSOR_ROOTS = frozenset(
    {
        "self",
        "cls",
        "args",
        "opt",
        "opts",
        "config",
        "cfg",
        "dataset",
        "np",
        "numpy",
        "pd",
        "tf",
        "df",
        "os",
        "sys",
        "math",
        "json",
        "kwargs",
        "params",
        "hparams",
        "flags",
        "FLAGS",
    }
)


class TensorEvidence:
    def __init__(self, imports: ImportMap, scopes: ScopeTable) -> None:
        self.imports = imports
        self.scopes = scopes

    def is_tensor(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int = 0) -> bool:
        if depth > 8:
            return False
        if isinstance(node, cst.Call):
            return self._call_is_tensor(node, scope, depth)
        if isinstance(node, cst.Attribute):
            if node.attr.value in TENSOR_ATTRIBUTES:
                return not self._is_module_path(node.value)
            return self._instance_attribute_is_tensor(node, scope, depth)
        if isinstance(node, cst.Subscript):
            return self.is_tensor(node.value, scope, depth + 1)
        if isinstance(node, cst.BinaryOperation):
            return self.is_tensor(node.left, scope, depth + 1) or self.is_tensor(node.right, scope, depth + 1)
        if isinstance(node, cst.Name):
            return self._name_is_tensor(node.value, scope, depth)
        return False

    def _call_is_tensor(self, call: cst.Call, scope: Optional[Scope], depth: int) -> bool:
        qualified = self.imports.qualified_name(call.func)
        if qualified is not None:
            return qualified.startswith("torch.") and not qualified.startswith(NOT_TENSOR_MODULES) and not _is_class_name(qualified)
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in TENSOR_ONLY_METHODS:
                return not self._is_module_path(func.value) and not _rooted_in(func.value, NON_TENSOR_ROOTS)
            if method in TENSOR_PRESERVING_METHODS:
                return self.is_tensor(func.value, scope, depth + 1)
            return False
        if isinstance(func, cst.Name):
            return bool(CRITERION.match(func.value) or MODEL_CALL.match(func.value))
        return False

    def _name_is_tensor(self, name: str, scope: Optional[Scope], depth: int) -> bool:
        if name in NON_TENSOR_ROOTS or self.imports.is_imported(name):
            return False
        if any(iterates_parameters(source, position) for source, position in self.scopes.loop_sources_of(name, scope)):
            return True
        if any(position is not None and _is_loader(source) for source, position in self.scopes.loop_sources_of(name, scope)):
            return True  # `for x, y in loader`: a batch's parts
        if scope is not None and any(_is_batch_call(value) for value, _ in self.scopes.of(scope).unpacked.get(name, ())):
            return True  # `x, y = get_batch(...)`
        values = self.scopes.values_of(name, scope)
        if any(_is_non_tensor_value(value) for value in values):
            return False
        if any(self.is_tensor(value, scope, depth + 1) for value in values):
            return True
        return bool(TENSOR_VALUE.search(name))

    def _instance_attribute_is_tensor(self, node: cst.Attribute, scope: Optional[Scope], depth: int) -> bool:
        """`self.w` where every value the class's methods bind to `self.w` is a tensor."""
        values = self.scopes.instance_attribute_values(node, scope)
        return bool(values) and all(self.is_tensor(value, method, depth + 1) for value, method in values)

    def _is_module_path(self, node: cst.BaseExpression) -> bool:
        qualified = self.imports.qualified_name(node)
        return qualified is not None


def _is_loader(iterable: cst.BaseExpression) -> bool:
    dotted = dotted_name(iterable)
    return dotted is not None and is_loader_name(dotted.rsplit(".", 1)[-1])


def _is_batch_call(value: cst.BaseExpression) -> bool:
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
    return name is not None and is_batch_source_name(name)


def iterates_parameters(iterable: cst.BaseExpression, position: Optional[int]) -> bool:
    """`for p in model.parameters()`, `for name, p in m.named_parameters()`, `zip(a.parameters(), ...)`."""
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute):
        method = iterable.func.attr.value
        if method in ("parameters", "buffers"):
            return position is None
        if method in ("named_parameters", "named_buffers"):
            return position == 1
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "zip":
        if position is not None and position < len(iterable.args):
            return iterates_parameters(iterable.args[position].value, None)
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "list" and iterable.args:
        return iterates_parameters(iterable.args[0].value, position)
    return False


def _is_class_name(qualified: str) -> bool:
    return qualified.rsplit(".", 1)[-1][:1].isupper() and not qualified.endswith(("Tensor", "Variable"))


def _rooted_in(node: cst.BaseExpression, roots: frozenset[str]) -> bool:
    while isinstance(node, (cst.Attribute, cst.Call, cst.Subscript)):
        node = node.value if not isinstance(node, cst.Call) else node.func
    return isinstance(node, cst.Name) and node.value in roots


def _is_non_tensor_value(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.List, cst.Dict, cst.Set, cst.Tuple, cst.ListComp, cst.DictComp, cst.SimpleString, cst.FormattedString))


def root_name(node: cst.BaseExpression) -> Optional[str]:
    """`a` for `a.b[0].c()`."""
    while isinstance(node, (cst.Attribute, cst.Call, cst.Subscript)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else None
