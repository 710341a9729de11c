"""What the project index asks of another file's syntax tree (`ast`, not LibCST: files of the run
are read without being analysed): a dotted name's spelling, the names a function rebinds or a
class body binds, and whether a class is plain enough that its attributes are only what its
own methods store."""

from __future__ import annotations

import ast
from typing import Optional, Union

Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]

# Methods through which an object decides its own attribute reads and writes.
_ATTRIBUTE_HOOKS = frozenset({"__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__slots__"})


def dotted(node: ast.expr) -> Optional[str]:
    """`torch.nn.Linear` for that attribute chain of names; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner is not None else None
    return None


def rebinds(function: Function, name: str) -> bool:
    """The function's own code binds `name` again, deletes it, or declares it global."""
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
    return False


def class_body_names(node: ast.ClassDef) -> set[str]:
    """The names a class body binds (methods, assignments, nested classes)."""
    names = set()
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names |= {inner.id for target in targets for inner in ast.walk(target) if isinstance(inner, ast.Name)}
        else:
            names |= {inner.id for inner in ast.walk(statement) if isinstance(inner, ast.Name) and not isinstance(inner.ctx, ast.Load)}
    return names


def is_plain_class(node: ast.ClassDef) -> bool:
    """No base but `object`, no metaclass or decorators, no attribute hooks or slots of its own,
    and no method rebinding its first parameter."""
    if node.keywords or node.decorator_list:
        return False
    if any(not (isinstance(base, ast.Name) and base.id == "object") for base in node.bases):
        return False
    methods = [member for member in node.body if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if any(rebinds(method, receiver.arg) for method in methods for receiver in [*method.args.posonlyargs, *method.args.args][:1]):
        return False  # a method's `self` may be another object
    return not _ATTRIBUTE_HOOKS & class_body_names(node)
