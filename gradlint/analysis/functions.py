"""The functions and methods of a file, read from its syntax: which `def` a call runs
(module-level names, `self.method` of the caller's own class, nested defs), where each function is
called and with which grad mode, the function or class around a node, parameter names and the
argument a call gives one. What a function does for its callers is `summaries.FunctionSummaries`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import libcst as cst

from gradlint.analysis.grad_mode import disables_grad, grad_mode_of
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.syntax import child_statements, dotted_name, suite_statements
from gradlint.analysis.tree import descendants, iter_children


class FunctionTable:
    """Every `def` of a file, and which one a call runs when that is evident."""

    def __init__(self) -> None:
        self.all: list[cst.FunctionDef] = []
        self.module_level: dict[str, cst.FunctionDef] = {}
        self.methods: dict[str, list[cst.FunctionDef]] = {}
        self.nested: dict[int, dict[str, cst.FunctionDef]] = {}
        self.owner_class: dict[int, cst.ClassDef] = {}  # method -> its class
        self._holders: dict[int, cst.FunctionDef] = {}  # compound statement -> the def whose body runs it

    @classmethod
    def build(cls, module: cst.Module) -> "FunctionTable":
        table = cls()
        table._visit(module.body, None)
        return table

    def _visit(self, body: Sequence[cst.CSTNode], owner: Optional[cst.CSTNode]) -> None:
        for statement in body:
            if isinstance(statement, cst.FunctionDef):
                self.all.append(statement)
                if owner is None:
                    self.module_level[statement.name.value] = statement
                elif isinstance(owner, cst.ClassDef):
                    self.methods.setdefault(statement.name.value, []).append(statement)
                    self.owner_class[id(statement)] = owner
                else:
                    self.nested.setdefault(id(owner), {})[statement.name.value] = statement
                self._visit(suite_statements(statement.body), statement)
            elif isinstance(statement, cst.ClassDef):
                self._visit(suite_statements(statement.body), statement)
            elif not isinstance(statement, cst.SimpleStatementLine):
                if isinstance(owner, cst.FunctionDef):
                    self._holders[id(statement)] = owner
                self._visit(child_statements(statement), owner)

    def named(self, name: str, scope: Optional[cst.CSTNode]) -> Optional[cst.FunctionDef]:
        """The function `name` means inside `scope` (a nested def of the scope, else a module-level one)."""
        if scope is not None and id(scope) in self.nested and name in self.nested[id(scope)]:
            return self.nested[id(scope)][name]
        return self.module_level.get(name)

    def resolve(self, call: cst.Call, scope: Optional[cst.CSTNode]) -> Optional[cst.FunctionDef]:
        """The `def` that `call` (written in `scope`, None for the module) runs, or None when unknown."""
        func = call.func
        if isinstance(func, cst.Name):
            return self.named(func.value, scope)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            candidates = self.methods.get(func.attr.value, [])
            if len(candidates) > 1 and scope is not None:  # the same name in several classes: the caller's own
                owner = self.owner_class.get(id(scope))
                candidates = [c for c in candidates if owner is not None and self.owner_class.get(id(c)) is owner]
            return candidates[0] if len(candidates) == 1 else None
        return None

    def function_holding(self, statement: cst.BaseCompoundStatement) -> Optional[cst.FunctionDef]:
        """The def whose own body runs the compound statement (a loop, an `if`...): None at module
        level and in a class body."""
        return self._holders.get(id(statement))

    def class_of(self, function: cst.FunctionDef) -> Optional[cst.ClassDef]:
        """The class a method is defined in (None for functions and nested defs)."""
        return self.owner_class.get(id(function))


@dataclass(frozen=True)
class CallSite:
    call: cst.Call
    scope: Optional[cst.FunctionDef]  # the function the call is written in (None: module level)
    without_grad: bool  # the call runs with autograd off (a no-grad block or a no-grad caller)


def call_sites(module: cst.Module, table: FunctionTable, imports: ImportMap) -> dict[int, list[CallSite]]:
    """id(function) -> its calls in `module` that `table` resolves, with the grad mode each runs in."""
    sites: dict[int, list[CallSite]] = {}
    pending: list[tuple[cst.CSTNode, Optional[cst.FunctionDef], bool]] = [(module, None, False)]
    while pending:
        node, scope, off = pending.pop()
        if isinstance(node, cst.Call):
            function = table.resolve(node, scope)
            if function is not None:
                sites.setdefault(id(function), []).append(CallSite(node, scope, off))
        if isinstance(node, cst.FunctionDef):
            # Decorators run where the `def` is; the body runs with its own grad mode.
            pending.extend((decorator, scope, off) for decorator in node.decorators)
            inner = any(disables_grad(d.decorator, imports) for d in node.decorators)
            pending.extend((child, node, inner) for child in iter_children(node) if not isinstance(child, cst.Decorator))
            continue
        if isinstance(node, cst.Lambda):
            off = False  # runs where it is called, which is unknown
        elif isinstance(node, cst.With):
            mode = grad_mode_of([node], imports)
            off = off if mode is None else not mode
        pending.extend((child, scope, off) for child in iter_children(node))
    return sites


def only_called(module: cst.Module, function: cst.FunctionDef, sites: Sequence[CallSite]) -> bool:
    """Every mention of the function's name in the module is the callee of one of `sites`: it is
    not passed around, rebound, or called through another name."""
    name = function.name.value
    allowed = {id(site.call.func) for site in sites} | {id(function.name)}
    for node in descendants(module):
        if isinstance(node, cst.Attribute):
            allowed.add(id(node.attr))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            allowed.add(id(node.keyword))
    return all(id(node) in allowed for node in descendants(module) if isinstance(node, cst.Name) and node.value == name)


def argument_for(call: cst.Call, function: cst.FunctionDef, parameter: str) -> Optional[cst.BaseExpression]:
    """The value `call` gives the parameter of `function` named `parameter`: the argument passed,
    or the default when the call does not pass it; None when it cannot be told (`*args`, no default)."""
    bound = bind(call, Signature.of(function))
    argument = bound.argument(parameter)
    if bound.starred and (argument is None or _after_unpacking(call, argument)):
        return None  # the unpacked values could be anything: not followed
    return argument.value if argument is not None else bound.signature.defaults.get(parameter)


def _after_unpacking(call: cst.Call, argument: cst.Arg) -> bool:
    """`argument` comes after a `*args` or `**kwargs` in `call`."""
    for arg in call.args:
        if arg is argument:
            return False
        if arg.star:
            return True
    return False


def enclosing_function(stack: Sequence[cst.CSTNode]) -> Optional[cst.FunctionDef]:
    for node in reversed(stack):
        if isinstance(node, cst.FunctionDef):
            return node
    return None


def enclosing_class(stack: Sequence[cst.CSTNode]) -> Optional[cst.ClassDef]:
    for node in reversed(stack):
        if isinstance(node, cst.ClassDef):
            return node
    return None


def mentioned_keys(node: cst.CSTNode) -> set[str]:
    """Names and dotted names (`self.losses`) read in `node`: `self.scaler.scale(loss)` mentions
    `self`, `self.scaler`, `self.scaler.scale` and `loss`, but not `self.losses`."""
    keys: set[str] = set()
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, cst.Attribute):
            key = dotted_name(current)
            if key is not None:
                keys.add(key)
            pending.append(current.value)
            continue
        if isinstance(current, cst.Name):
            keys.add(current.value)
        pending.extend(iter_children(current))
    return keys
