"""Old-style `torch.autograd.Function` subclasses (PyTorch <= 0.3): an instance with a non-static
`forward(self, ...)` served as its own context, and was called as `Fn()(x)`.

What a mechanical migration to `@staticmethod forward(ctx, ...)` and `Fn.apply(x)` needs: every
use of `self` in `forward` / `backward` is a member of the context API, and every use of the class
name in the file is an instantiation without arguments (or already `Fn.apply`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional, Union

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.semantic.nodes import NodeIndex
from gradlint.analysis.syntax import suite_statements
from gradlint.analysis.tree import iter_children

AUTOGRAD_FUNCTION = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
# What the instance of an old-style Function offered that the `ctx` of a new-style one still has.
CONTEXT_MEMBERS = frozenset(
    {
        "save_for_backward",
        "saved_tensors",
        "saved_variables",
        "needs_input_grad",
        "mark_dirty",
        "mark_non_differentiable",
        "set_materialize_grads",
    }
)
RENAMED_MEMBERS = {"saved_variables": "saved_tensors"}  # deprecated spelling -> current one
_METHODS = ("forward", "backward")


@dataclass(frozen=True)
class InstanceVariable:
    statement: cst.SimpleStatementLine  # `fn = Fn()`, alone on its line
    callees: tuple[cst.Name, ...]  # `fn` of each `fn(...)`


@dataclass
class LegacyFunction:
    """An old-style Function class and what migrating it touches (or why it cannot be)."""

    class_def: cst.ClassDef
    methods: list[cst.FunctionDef] = field(default_factory=list)  # forward / backward to make static
    receivers: list[cst.Name] = field(default_factory=list)  # `self` parameters and their uses
    renamed: list[cst.Name] = field(default_factory=list)  # `saved_variables` attribute names
    trivial_init: Optional[cst.FunctionDef] = None  # `__init__` that only calls the base class
    instantiations: list[cst.Call] = field(default_factory=list)  # `Fn()` anywhere in the module
    # `fn = Fn()` in a function whose only other uses of `fn` are calls: `fn(x)` becomes `Fn.apply(x)`
    instance_variables: list[InstanceVariable] = field(default_factory=list)
    obstacle: Optional[str] = None  # why the class needs a person, as guidance


def legacy_function(class_def: cst.ClassDef, module: cst.Module, imports: ImportMap, nodes: NodeIndex) -> Optional[LegacyFunction]:
    """The old-style Function defined by `class_def`, or None when it is not one."""
    if not any(imports.qualified_name(base.value) in AUTOGRAD_FUNCTION for base in class_def.bases):
        return None
    members = suite_statements(class_def.body)
    forward = _method(members, "forward")
    if forward is None or _is_static(forward):
        return None
    found = LegacyFunction(class_def)
    found.obstacle = _class_body_obstacle(found, members) or _methods_obstacle(found, members) or _uses_obstacle(found, module, nodes)
    return found


def _method(members, name: str) -> Optional[cst.FunctionDef]:
    return next((m for m in members if isinstance(m, cst.FunctionDef) and m.name.value == name), None)


def _is_static(function: cst.FunctionDef) -> bool:
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod") for d in function.decorators)


def _class_body_obstacle(found: LegacyFunction, members) -> Optional[str]:
    for member in members:
        if isinstance(member, cst.FunctionDef):
            name = member.name.value
            if name == "__init__":
                if not _is_trivial_init(member, found.class_def.name.value):
                    return "its `__init__` keeps state: pass those values to `forward` (returning None for them from `backward`)"
                found.trivial_init = member
            elif name not in _METHODS:
                return f"it defines `{name}`: make it a static method or a function"
        elif not _is_inert(member):
            return "its class body holds more than `forward` and `backward`"
    return None


def _methods_obstacle(found: LegacyFunction, members) -> Optional[str]:
    for member in members:
        if not (isinstance(member, cst.FunctionDef) and member.name.value in _METHODS):
            continue
        if member.decorators or member.asynchronous:
            return f"`{member.name.value}` is decorated: migrate it by hand"
        params = member.params
        if params.posonly_params or not params.params or params.params[0].default is not None:
            return f"`{member.name.value}` has no plain first parameter"
        receiver = params.params[0].name
        uses = list(_names(member.body, receiver.value))
        if any(not isinstance(parent, cst.Attribute) for _, parent in uses):
            return f"`{member.name.value}` uses `{receiver.value}` as a value: keep state on `ctx` only"
        for _, attribute in uses:
            member_name = attribute.attr.value
            if member_name not in CONTEXT_MEMBERS:
                return f"it keeps state on the instance (`{receiver.value}.{member_name}`): store it on `ctx` in `forward`"
            if member_name in RENAMED_MEMBERS:
                found.renamed.append(attribute.attr)
        if receiver.value != "ctx" and any(True for _ in _names(member, "ctx")):
            return f"`{member.name.value}` already uses the name `ctx`"
        found.methods.append(member)
        found.receivers.append(receiver)
        found.receivers.extend(name for name, _ in uses)
    return None


def _uses_obstacle(found: LegacyFunction, module: cst.Module, nodes: NodeIndex) -> Optional[str]:
    class_name = found.class_def.name.value
    for name, parent in _names(module, class_name):
        if name is found.class_def.name or _inside(name, found.trivial_init):
            continue
        if isinstance(parent, cst.Call) and parent.func is name:
            if parent.args:
                return f"`{class_name}(...)` is given arguments: pass them to `forward`"
            found.instantiations.append(parent)
        elif not (isinstance(parent, cst.Attribute) and parent.attr.value == "apply"):
            return f"`{class_name}` is used as a value: call `{class_name}.apply(...)` there"
    if found.instantiations:
        _inline_instance_variables(found, nodes)
    return None


def _inline_instance_variables(found: LegacyFunction, nodes: NodeIndex) -> None:
    """Move each `fn = Fn()` whose variable is only ever called from `instantiations` to
    `instance_variables`. Only in functions: a module-level instance may be imported elsewhere."""
    kept = []
    for call in found.instantiations:
        variable = _instance_variable(call, nodes)
        if variable is None:
            kept.append(call)
        else:
            found.instance_variables.append(variable)
    found.instantiations = kept


def _instance_variable(call: cst.Call, nodes: NodeIndex) -> Optional[InstanceVariable]:
    assign = nodes.parent(call)
    if not (isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1):
        return None
    target = assign.targets[0].target
    statement = nodes.parent(assign)
    if not (isinstance(target, cst.Name) and isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    scope = nodes.enclosing(statement, (cst.FunctionDef, cst.ClassDef))
    if not isinstance(scope, cst.FunctionDef):
        return None
    callees = []
    for name, parent in _names(scope.body, target.value):
        if name is target:
            continue
        if not isinstance(parent, cst.Call):
            return None  # another binding of the name, or a use of the instance other than a call
        callees.append(name)
    return InstanceVariable(statement, tuple(callees))


_Parent = Union[cst.Attribute, cst.Call, None]


def _names(root: cst.CSTNode, value: str) -> Iterator[tuple[cst.Name, _Parent]]:
    """Each reference to the name `value` under `root`, with its parent when that is an attribute
    access on it (`self.x`) or a call of it (`Fn()`), else None. Attribute names, keywords and
    parameter names are not references."""
    pending: list[tuple[cst.CSTNode, Optional[cst.CSTNode]]] = [(root, None)]
    while pending:
        node, parent = pending.pop()
        if isinstance(node, cst.Name):
            if node.value == value and not _is_label(node, parent):
                yield node, parent if isinstance(parent, (cst.Attribute, cst.Call)) and _holds(parent, node) else None
            continue
        pending.extend((child, node) for child in iter_children(node))


def _is_label(name: cst.Name, parent: Optional[cst.CSTNode]) -> bool:
    """A name that does not refer to a binding: `x.name`, `f(name=...)`, `def f(name)`."""
    if isinstance(parent, cst.Attribute):
        return parent.attr is name
    if isinstance(parent, cst.Arg):
        return parent.keyword is name
    return isinstance(parent, (cst.Param, cst.FunctionDef, cst.ClassDef, cst.ImportAlias, cst.AsName))


def _holds(parent: cst.CSTNode, name: cst.Name) -> bool:
    return parent.value is name if isinstance(parent, cst.Attribute) else parent.func is name


def _inside(node: cst.CSTNode, root: Optional[cst.CSTNode]) -> bool:
    return root is not None and any(found is node for found, _ in _names(root, node.value))


def _is_trivial_init(init: cst.FunctionDef, class_name: str) -> bool:
    """`def __init__(self): super(Fn, self).__init__()` (or `Function.__init__(self)`, or `pass`)."""
    params = init.params
    if (
        params.posonly_params
        or len(params.params) != 1
        or isinstance(params.star_arg, cst.Param)
        or params.kwonly_params
        or params.star_kwarg
    ):
        return False
    return all(_is_inert(statement) or _is_base_init_call(statement) for statement in suite_statements(init.body))


def _is_base_init_call(statement: cst.CSTNode) -> bool:
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and isinstance(statement.body[0], cst.Expr)):
        return False
    call = statement.body[0].value
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "__init__"
        and len(call.args) <= 1
        and (
            isinstance(call.func.value, cst.Call)
            and isinstance(call.func.value.func, cst.Name)
            and call.func.value.func.value == "super"
            or len(call.args) == 1
        )
    )


def _is_inert(statement: cst.CSTNode) -> bool:
    """`pass` or a docstring."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    return all(
        isinstance(small, cst.Pass) or isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
        for small in statement.body
    )
