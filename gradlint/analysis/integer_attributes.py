"""Which attributes of a project's classes only ever hold an integer tensor, read from another file.

`data.py`'s `Corpus.__init__` sets `self.train = self.tokenize(path)`, and `tokenize` returns
`ids`, bound only to `torch.LongTensor(tokens)` (filled in place item by item). An integer tensor
never carries autograd history (an in-place write casts to its dtype or raises, and it cannot
require grad), so `corpus.train` in `main.py` is history-free wherever `corpus = data.Corpus(...)`.

A class counts when it is a top-level plain class of its module (no base but `object`, no
decorator, metaclass, `__getattr__`, `__getattribute__` or `__setattr__`), the attribute is not
bound in its body, and every write of the attribute in the module is `self.<attribute> = value`
in one of its methods, with value an integer constructor (`torch.LongTensor(...)`...) or a call
`self.m(...)` of a plain method of the class whose every `return` gives a local name bound there
only to integer constructors. Writes from other files are the project index's to rule out.
"""

from __future__ import annotations

import ast
from typing import Callable, Iterator, Optional

from gradlint.analysis import torch_api
from gradlint.analysis.python_classes import dotted, is_plain_class

# Constructors whose result is an integer tensor whatever their arguments (not `torch.randint`,
# which takes a `dtype=`).
INTEGER_CONSTRUCTORS = frozenset(name for name in torch_api.functions("int") if name.rsplit(".", 1)[-1].endswith("Tensor"))

Outside = Callable[[str], Optional[str]]  # a module-level name of the module -> the outside name it imports


def integer_attributes(tree: ast.Module, outside: Outside) -> frozenset[tuple[str, str]]:
    """(class, attribute) for every attribute of a class of `tree` that only holds integer tensors."""
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef) and is_plain_class(node)]
    if not classes:
        return frozenset()
    writes = _attribute_writes(tree)
    return frozenset((owner.name, attribute) for owner in classes for attribute in _integer_attributes_of(owner, outside, writes))


def _attribute_writes(tree: ast.Module) -> dict[str, int]:
    """Attribute name -> how many times the module writes or deletes it (on any object)."""
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            counts[node.attr] = counts.get(node.attr, 0) + 1
    return counts


def _integer_attributes_of(owner: ast.ClassDef, outside: Outside, writes: dict[str, int]) -> Iterator[str]:
    methods = {s.name: s for s in owner.body if isinstance(s, ast.FunctionDef)}
    in_body = {name for s in owner.body for name in _bound_names(s)}
    values: dict[str, list[Optional[ast.expr]]] = {}
    for method in methods.values():
        receiver = _receiver(method)
        if receiver is None:
            continue
        plain: set[int] = set()  # the targets of `self.a = value`, met before their own node by the walk
        for node in ast.walk(method):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Attribute) and _is_name(target.value, receiver):
                    values.setdefault(target.attr, []).append(node.value)
                    plain.add(id(target))
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) and _is_name(node.value, receiver):
                if id(node) not in plain:
                    values.setdefault(node.attr, []).append(None)  # augmented, unpacked, a loop target, deleted
    for attribute, assigned in values.items():
        if attribute in in_body or writes.get(attribute, 0) != len(assigned):
            continue  # a class-level binding, or a write elsewhere in the module
        if all(value is not None and _integer(value, methods, outside) for value in assigned):
            yield attribute


def _integer(value: ast.expr, methods: dict[str, ast.FunctionDef], outside: Outside) -> bool:
    if _integer_constructor(value, outside):
        return True
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name)):
        return False
    method = methods.get(value.func.attr)
    if method is None or method.decorator_list or _receiver(method) != value.func.value.id:
        return False
    return _returns_integer_locals(method, outside)


def _returns_integer_locals(method: ast.FunctionDef, outside: Outside) -> bool:
    """Every `return` of `method` gives a local name bound in it only to integer constructors."""
    returns: list[Optional[ast.expr]] = []
    bindings: dict[str, list[ast.expr]] = {}
    plain_targets: set[int] = set()
    other: set[str] = set()  # names bound otherwise: loops, `with`, augmented assignments, unpacking...
    for node in ast.walk(method):
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal, ast.Lambda)) or (
            node is not method and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        ):
            return False
        if isinstance(node, ast.Return):
            returns.append(node.value)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            bindings.setdefault(node.targets[0].id, []).append(node.value)
            plain_targets.add(id(node.targets[0]))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in plain_targets:
            other.add(node.id)
    if not returns or not all(isinstance(value, ast.Name) for value in returns):
        return False
    names = {value.id for value in returns}
    parameters = {arg.arg for arg in (*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs)}
    return all(
        name not in other
        and name not in parameters
        and bindings.get(name)
        and all(_integer_constructor(value, outside) for value in bindings[name])
        for name in names
    )


def _integer_constructor(value: ast.expr, outside: Outside) -> bool:
    if not isinstance(value, ast.Call):
        return False
    spelled = dotted(value.func)
    if spelled is None:
        return False
    root, _, rest = spelled.partition(".")
    imported = outside(root)
    return imported is not None and (f"{imported}.{rest}" if rest else imported) in INTEGER_CONSTRUCTORS


def _receiver(method: ast.FunctionDef) -> Optional[str]:
    arguments = (*method.args.posonlyargs, *method.args.args)
    return arguments[0].arg if arguments and not method.decorator_list else None


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _bound_names(statement: ast.stmt) -> Iterator[str]:
    """The names a statement of a class body binds there (a method's own names are its own)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield statement.name
        return
    for node in ast.walk(statement):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            yield node.id
