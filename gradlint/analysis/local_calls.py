"""Which function of this file does a call run, and which calls run a module-level function?

A call runs a `def` of this file when it names a function, `self.method`, or the method of an
object built from a class of this file (`digits = Digits(); digits.batch()`). The calls of a
module-level function are all known when it is called only by name in this file, never handed
over as a value, decorated (but for `@torch.no_grad()`, which passes the arguments on),
redefined or async, and no other file of the run mentions it (`used_elsewhere`; unknown in a
partial run).
"""

from __future__ import annotations

from functools import cached_property
from typing import Optional

import libcst as cst

from gradlint.analysis.functions import FunctionTable
from gradlint.analysis.grad_mode import disables_grad
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable
from gradlint.analysis.semantic.scope import ScopeUses, ScopeUsesTable, target_paths
from gradlint.analysis.tree import descendants


class LocalCalls:
    def __init__(
        self,
        module: cst.Module,
        imports: ImportMap,
        scopes: ScopeTable,
        functions: FunctionTable,
        scope_uses: ScopeUsesTable,
        used_elsewhere: Optional[frozenset[str]],
    ) -> None:
        self.module = module
        self.imports = imports
        self.scopes = scopes
        self.functions = functions
        self.scope_uses = scope_uses
        # The names of this module other files of the run import; None when not known (a run
        # of part of the project): then no caller of this file's functions is known for sure.
        self.used_elsewhere = used_elsewhere

    def function_called(self, call: cst.Call, scope: Scope) -> Optional[cst.FunctionDef]:
        """The `def` of this file that `call` runs: a function, `self.method`, or the method of an
        object built from a class of this file (`digits = Digits(); digits.batch()`)."""
        function = self.functions.resolve(call, scope if isinstance(scope, cst.FunctionDef) else None)
        if function is not None or type(call.func) is not cst.Attribute or type(call.func.value) is not cst.Name:
            return function
        values = self.scopes.of(scope).assigned(call.func.value.value)
        classes = {local_class(self.module, value) for value in values}
        if len(classes) != 1 or None in classes:
            return None
        owner = classes.pop()
        methods = [m for m in self.functions.methods.get(call.func.attr.value, []) if self.functions.class_of(m) is owner]
        return methods[0] if len(methods) == 1 else None

    def all_calls_of(self, function: cst.FunctionDef) -> Optional[list[tuple[cst.Call, Scope]]]:
        """Every call of the module-level `function`, with the function (or module) it is written
        in, when those are all the ways it runs; None when other code may call it too, or
        nothing calls it."""
        name = function.name.value
        if self.used_elsewhere is None or name in self.used_elsewhere or "*" in self.used_elsewhere:
            return None
        # A decorator could call the function with anything, except `@torch.no_grad()`, which passes the arguments on.
        decorated = any(not disables_grad(d.decorator, self.imports) for d in function.decorators)
        if decorated or function.asynchronous is not None or self.functions.module_level.get(name) is not function:
            return None
        bound = self._names_bound_by_statement
        if sum(1 for names in bound if name in names) != 1 or any("*" in names for names in bound):
            return None
        module_uses = self.scope_uses.of(self.module)
        calls = [self._call_of(module_uses, occurrence) for occurrence in module_uses.occurrences(name)]
        if not calls or any(call is None for call in calls):
            return None
        return calls

    @cached_property
    def _names_bound_by_statement(self) -> list[set[str]]:
        """The names each module-level statement binds, in order."""
        return [_names_bound_by(statement) for statement in self.module.body]

    def _call_of(self, uses: ScopeUses, occurrence: cst.Name) -> Optional[tuple[cst.Call, Scope]]:
        """The call `occurrence` is the callee of, with the function (or module) it is written in."""
        call = uses.parent(occurrence)
        if type(call) is not cst.Call or call.func is not occurrence:
            return None
        scope: cst.CSTNode = self.module
        parent = uses.parent(call)
        while parent is not None:
            if type(parent) is cst.Lambda or type(parent) is cst.ClassDef:
                return None
            if type(parent) is cst.FunctionDef:
                scope = parent
                break
            parent = uses.parent(parent)
        resolved = self.functions.resolve(call, scope if scope is not self.module else None)
        return (call, scope) if resolved is not None and resolved.name.value == occurrence.value else None


def _names_bound_by(statement: cst.CSTNode) -> set[str]:
    """The names a module-level statement binds (defs, classes, assignments, imports...)."""
    if type(statement) in (cst.FunctionDef, cst.ClassDef):
        return {statement.name.value}
    names: set[str] = set()
    for node in descendants(statement):
        if type(node) in (cst.AssignTarget, cst.For, cst.AugAssign, cst.AnnAssign):
            names.update(name for name, _ in target_paths(node.target, ()))
        elif type(node) in (cst.FunctionDef, cst.ClassDef):
            names.add(node.name.value)
        elif type(node) in (cst.Import, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                local = alias.asname.name if alias.asname is not None else alias.name
                while type(local) is cst.Attribute:
                    local = local.value
                if type(local) is cst.Name:
                    names.add(local.value)
        elif type(node) is cst.ImportFrom:
            names.add("*")
        elif type(node) is cst.Global:
            names.update(item.name.value for item in node.names)
    return names


def local_class(module: cst.Module, value: cst.BaseExpression) -> Optional[cst.ClassDef]:
    """The class of this file (top level) that `value`, a call `Name(...)`, instantiates."""
    if type(value) is not cst.Call or type(value.func) is not cst.Name:
        return None
    found = [s for s in module.body if type(s) is cst.ClassDef and s.name.value == value.func.value]
    return found[0] if len(found) == 1 else None
