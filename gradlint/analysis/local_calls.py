"""Which function of this file does a call run, and which calls run a function or a method?

A call runs a `def` of this file when it names a function, `self.method`, or the method of an
object built from a class of this file (`digits = Digits(); digits.batch()`). The calls of a
module-level function are all known when it is called only by name in this file, never handed
over as a value, decorated (but for `@torch.no_grad()`, which passes the arguments on),
redefined or async, and no other file of the run mentions it (`used_elsewhere`; unknown in a
partial run).

The calls of a method are all known when every read of its name in the file is a call
`self.m(...)` in a method of its own class, written in that method's own body (not in a nested
function, lambda or comprehension); the method is a plain one (not decorated, async, a dunder or
name-mangled), bound once in its class and not read by its name in the class body; the class is a top-level plain class (no base but
`object`, no decorator, metaclass or `__getattr__`), bound once and subclassed nowhere; no string
of the file spells the name, and no file of the run spells it elsewhere, subclasses the class or
reads attributes by a computed name (`reached_elsewhere`, from the project index; unknown in a
partial run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Optional

import libcst as cst

from gradlint.analysis.functions import FunctionTable
from gradlint.analysis.grad_mode import disables_grad
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable, class_methods, self_name
from gradlint.analysis.semantic.nodes import NodeIndex
from gradlint.analysis.semantic.scope import ScopeUses, ScopeUsesTable, target_paths
from gradlint.analysis.syntax import suite_statements
from gradlint.analysis.tree import descendants

# Where a call's arguments are evaluated in another scope than the enclosing `def`'s own body.
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_WORD = re.compile(r"[^\W\d]\w*")


class LocalCalls:
    def __init__(
        self,
        module: cst.Module,
        imports: ImportMap,
        scopes: ScopeTable,
        functions: FunctionTable,
        scope_uses: ScopeUsesTable,
        used_elsewhere: Optional[frozenset[str]],
        reached_elsewhere: Optional[frozenset[str]] = None,
    ) -> None:
        self.module = module
        self.imports = imports
        self.scopes = scopes
        self.functions = functions
        self.scope_uses = scope_uses
        # The names of this module other files of the run import; None when not known (a run
        # of part of the project): then no caller of this file's functions is known for sure.
        self.used_elsewhere = used_elsewhere
        # What may reach this file's methods from other files (see `ProjectFacts.reached_elsewhere`);
        # None when not known: then no method's callers are known for sure.
        self.reached_elsewhere = reached_elsewhere
        self._method_calls: dict[int, Optional[list[tuple[cst.Call, cst.FunctionDef]]]] = {}

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

    def all_calls_of_method(self, method: cst.FunctionDef) -> Optional[list[tuple[cst.Call, cst.FunctionDef]]]:
        """Every call of `method` (a method of a class of this file), each `self.m(...)` with the
        method of its class it is written in, when those are all the ways it runs (see the module's
        docstring); None otherwise, or when nothing calls it."""
        key = id(method)
        if key not in self._method_calls:
            self._method_calls[key] = self._calls_of_method(method)
        return self._method_calls[key]

    def _calls_of_method(self, method: cst.FunctionDef) -> Optional[list[tuple[cst.Call, cst.FunctionDef]]]:
        reached = self.reached_elsewhere
        owner = self.functions.class_of(method)
        name = method.name.value
        if reached is None or owner is None or "*" in reached or name in reached or owner.name.value in reached:
            return None
        if not self._plain_method(method, owner) or not self._plain_class(owner):
            return None
        names = self._file_names
        if name in names.strings or owner.name.value in names.bases:
            return None
        reads = names.attributes.get(name, [])
        calls = [self._self_call(read, owner) for read in reads]
        if not calls or any(call is None for call in calls):
            return None
        return calls

    def _plain_method(self, method: cst.FunctionDef, owner: cst.ClassDef) -> bool:
        """A method of `owner`'s own body that runs with its arguments as called: not decorated
        (which may change how it is bound or called), async, a dunder (called by Python itself)
        or name-mangled (spelled otherwise outside), and the only binding of its name in the class."""
        name = method.name.value
        if method.decorators or method.asynchronous is not None or name.startswith("__"):
            return False
        if self_name(method) is None:
            return False
        body = suite_statements(owner.body)
        if sum(name in names_bound_by(statement) for statement in body) != 1:
            return False
        # Read by its name in the class body (`alias = m`, `@m` on another method): another name for it.
        read_in_body = [
            part
            for statement in body
            for part in ([d.decorator for d in statement.decorators] if type(statement) is cst.FunctionDef else [statement])
        ]
        return not any(type(node) is cst.Name and node.value == name for part in read_in_body for node in descendants(part))

    def _plain_class(self, owner: cst.ClassDef) -> bool:
        """A top-level class bound once, built as written: no base but `object` (a base class may
        call the method by its name), no decorator, metaclass or `__getattr__`."""
        bound = self._names_bound_by_statement
        if not any(statement is owner for statement in self.module.body) or sum(owner.name.value in names for names in bound) != 1:
            return False
        if any("*" in names for names in bound):
            return False  # a star import may rebind the class's name
        if owner.decorators or owner.keywords or any(not _is_object(base.value) for base in owner.bases):
            return False
        defined = {statement.name.value for statement in class_methods(owner)}
        return not defined & {"__getattr__", "__getattribute__"}

    def _self_call(self, read: cst.Attribute, owner: cst.ClassDef) -> Optional[tuple[cst.Call, cst.FunctionDef]]:
        """The call `self.m(...)` whose callee is `read`, with the method of `owner` whose own body
        it is written in, where `self` is that method's first parameter, never rebound."""
        nodes = self.scope_uses.nodes
        call = nodes.parent(read)
        if type(call) is not cst.Call or call.func is not read or type(read.value) is not cst.Name:
            return None
        parent = nodes.parent(call)
        while parent is not None and type(parent) not in _SCOPES:
            parent = nodes.parent(parent)
        if type(parent) is not cst.FunctionDef or self.functions.class_of(parent) is not owner:
            return None
        receiver = self_name(parent)
        if receiver != read.value.value:
            return None
        if parent.decorators or receiver in self.scope_uses.of(parent).hidden_bindings or self.scopes.of(parent).assigned(receiver):
            return None  # a staticmethod's or classmethod's first parameter is not the instance
        return call, parent

    @cached_property
    def _file_names(self) -> "_FileNames":
        return _FileNames.of(self.module, self.scope_uses.nodes)

    @cached_property
    def _names_bound_by_statement(self) -> list[set[str]]:
        """The names each module-level statement binds, in order."""
        return [names_bound_by(statement) for statement in self.module.body]

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


def names_bound_by(statement: cst.CSTNode) -> set[str]:
    """The names a statement of a module or class body binds (defs, classes, assignments, imports...)."""
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


def _is_object(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Name and node.value == "object"


@dataclass(frozen=True)
class _FileNames:
    """How the file reaches attributes, from one pass over the node index: each attribute name's
    reads (`obj.name`, written or read), the words of its strings (`getattr(self, "name")`; a
    docstring or other bare string statement does nothing) and the names its `class` statements
    list among their bases. Reads by a computed name (`getattr(self, name)`) are the project
    index's to find, in this file as in the others."""

    attributes: dict[str, list[cst.Attribute]]
    strings: frozenset[str]
    bases: frozenset[str]

    @classmethod
    def of(cls, module: cst.Module, nodes: NodeIndex) -> "_FileNames":
        attributes: dict[str, list[cst.Attribute]] = {}
        strings: set[str] = set()
        bases: set[str] = set()
        for node in nodes.subtree(module):
            kind = type(node)
            if kind is cst.Attribute:
                attributes.setdefault(node.attr.value, []).append(node)
            elif kind in (cst.SimpleString, cst.FormattedStringText) and not _bare_string(node, nodes):
                strings.update(_WORD.findall(node.value))
            elif kind is cst.ClassDef:
                bases.update(name.value for base in node.bases for name in descendants(base.value) if type(name) is cst.Name)
        return cls(attributes, frozenset(strings), frozenset(bases))


def _bare_string(node: cst.CSTNode, nodes: NodeIndex) -> bool:
    """A string that is a whole expression statement (a docstring): it reaches nothing."""
    parent = nodes.parent(node)
    return type(parent) is cst.Expr and parent.value is node
