"""The PyTorch 0.3 constructs left in a source file, found by a plain AST walk.

This is the examples test's own yardstick, written independently of gradlint's rules: it knows
nothing about bindings, scopes or types beyond one function body, so it errs on the side of
reporting. It looks for the 0.3 API that torch 2.13 rejects, ignores with a warning, or answers
differently: `Variable`, `volatile`, `[0]` for a scalar, type tests against `Variable` or the
legacy tensor types, old-style autograd Functions. A `.data` read still means the same, and
deprecated APIs outside the migration (`clip_grad_norm`, `size_average=`, ...) are not its
business. Per-element class targets are a matter of shapes, which the runs check instead.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

LEGACY_TENSOR_TYPE = re.compile(r"^torch\.(cuda\.)?(Float|Double|Half|Byte|Char|Short|Int|Long)Tensor$")
FUNCTION_BASES = {"Function", "autograd.Function", "torch.autograd.Function"}


@dataclass(frozen=True, order=True)
class Construct:
    line: int
    kind: str


def dotted(node: ast.AST) -> str:
    """`torch.cuda.FloatTensor` for that attribute chain, "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def is_variable(node: ast.AST) -> bool:
    return dotted(node) in {"Variable", "autograd.Variable", "torch.autograd.Variable"}


def is_type_of(node: ast.AST) -> bool:
    """`type(x)` or `x.__class__`."""
    call = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"
    return call or (isinstance(node, ast.Attribute) and node.attr == "__class__")


def is_legacy_tensor_type(node: ast.AST) -> bool:
    if isinstance(node, ast.Tuple):
        return any(is_legacy_tensor_type(element) for element in node.elts)
    return bool(LEGACY_TENSOR_TYPE.match(dotted(node)))


def is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


def old_style_functions(tree: ast.Module) -> set[str]:
    """Classes deriving from autograd's Function whose `forward` is not a staticmethod."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(dotted(base) in FUNCTION_BASES for base in node.bases):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "forward":
                    if not any(dotted(decorator) == "staticmethod" for decorator in item.decorator_list):
                        found.add(node.name)
    return found


def running_sums(function: ast.AST) -> set[str]:
    """Names added to with `+=` in one body, other than by a list, tuple or string display
    (`total_loss += loss.data`: a one-element tensor in 0.3, read back as `total_loss[0]`)."""
    displays = (ast.List, ast.ListComp, ast.Tuple, ast.JoinedStr)
    return {
        node.target.id
        for node in ast.walk(function)
        if isinstance(node, ast.AugAssign)
        and isinstance(node.target, ast.Name)
        and isinstance(node.op, ast.Add)
        and not isinstance(node.value, displays)
        and not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))
    }


def legacy_constructs(source: str) -> list[Construct]:
    tree = ast.parse(source)
    old_functions = old_style_functions(tree)
    found: set[Construct] = set()

    def add(node: ast.AST, kind: str) -> None:
        found.add(Construct(node.lineno, kind))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("torch.autograd", "torch.autograd.variable"):
            if any(alias.name == "Variable" for alias in node.names):
                add(node, "Variable import")
        elif isinstance(node, ast.Call):
            if is_variable(node.func):
                add(node, "Variable(...) call")
            if any(keyword.arg == "volatile" for keyword in node.keywords):
                add(node, "volatile= argument")
            if dotted(node.func) == "isinstance" and len(node.args) == 2:
                if is_variable(node.args[1]):
                    add(node, "isinstance(x, Variable)")
                if is_legacy_tensor_type(node.args[1]):
                    add(node, "legacy tensor type check")
            if isinstance(node.func, ast.Call) and dotted(node.func.func) in old_functions:
                add(node, "old-style Function instance call")
        elif isinstance(node, ast.Attribute) and node.attr == "volatile":
            add(node, "volatile attribute")
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            if isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                sides = (node.left, node.comparators[0])
                if any(is_type_of(side) for side in sides):
                    if any(is_variable(side) for side in sides):
                        add(node, "type(x) == Variable")
                    if any(is_legacy_tensor_type(side) for side in sides):
                        add(node, "legacy tensor type check")
        elif isinstance(node, ast.Subscript) and is_zero(node.slice):
            value = node.value
            if isinstance(value, ast.Attribute) and value.attr == "data":
                add(node, ".data[0]")
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "numpy":
                add(node, ".numpy()[0]")
        elif isinstance(node, ast.ClassDef) and node.name in old_functions:
            add(node, "old-style Function")
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            sums = running_sums(function)
            for node in ast.walk(function):
                if isinstance(node, ast.Subscript) and is_zero(node.slice) and isinstance(node.value, ast.Name):
                    if node.value.id in sums:
                        add(node, "[0] of a running sum")
    return sorted(found)
