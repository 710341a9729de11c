"""Which values a name is bound to inside one function (or module) body."""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Optional, Sequence

import libcst as cst

from gradlint.analysis.syntax import child_statements, dotted_name, suite_statements

Scope = cst.CSTNode  # a FunctionDef or the Module


def enclosing_scope(stack: Sequence[cst.CSTNode]) -> Scope:
    for node in reversed(stack):
        if isinstance(node, cst.FunctionDef):
            return node
    return stack[0]


class Bindings:
    """name -> the expressions assigned to it in one scope (nested functions excluded).

    Besides plain names: attributes (`self.w = v` under the key `self.w`), dict entries
    (`d["k"] = v`) and names unpacked from one value (`loss, acc = step(x)`).
    """

    def __init__(self, scope: Scope) -> None:
        self.values: dict[str, list[cst.BaseExpression]] = defaultdict(list)
        # Dotted targets: `self.w = v`, `self.opt.lr = v` -> "self.w", "self.opt.lr".
        self.attributes: dict[str, list[cst.BaseExpression]] = defaultdict(list)
        # `d["k"] = v`: ("d", "k") -> values (string keys of a name only).
        self.entries: dict[tuple[str, str], list[cst.BaseExpression]] = defaultdict(list)
        # `a, b = f(x)`: name -> (the unpacked value, position in the target).
        self.unpacked: dict[str, list[tuple[cst.BaseExpression, int]]] = defaultdict(list)
        # Names bound in ways whose value we cannot see (parameters, for/with targets, imports).
        self.opaque: set[str] = set()
        # Loop targets: name -> (iterable, position in a tuple target or None).
        self.loop_sources: dict[str, list[tuple[cst.BaseExpression, Optional[int]]]] = defaultdict(list)
        body = scope.body.body if isinstance(scope, cst.FunctionDef) else scope.body
        if isinstance(scope, cst.FunctionDef):
            self._parameters(scope.params)
        # id(value) -> the `with` statements around its assignment (to tell no_grad blocks).
        self.withs: dict[int, tuple[cst.With, ...]] = {}
        for statement, withs in _own_statements(body, ()):
            self._record(statement, withs)

    def _parameters(self, params: cst.Parameters) -> None:
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            self.opaque.add(param.name.value)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.opaque.add(star.name.value)

    def _record(self, statement: cst.CSTNode, withs: tuple[cst.With, ...]) -> None:
        value = getattr(statement, "value", None)
        if isinstance(value, cst.BaseExpression):
            self.withs[id(value)] = withs
        if isinstance(statement, cst.Assign):
            for target in statement.targets:
                if isinstance(target.target, cst.Name):
                    self.values[target.target.value].append(statement.value)
                elif self._member(target.target, statement.value):
                    continue
                elif not self._unpack(target.target, statement.value, withs):
                    self._opaque_targets(target.target)
                    self._unpacked_targets(target.target, statement.value)
        elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)):
            if isinstance(statement.target, cst.Name) and statement.value is not None:
                self.values[statement.target.value].append(statement.value)
            elif isinstance(statement, cst.AnnAssign) and statement.value is not None:
                self._member(statement.target, statement.value)
        elif isinstance(statement, cst.For):
            self._opaque_targets(statement.target)
            self._loop_targets(statement.target, statement.iter)
        elif isinstance(statement, cst.With):
            for item in statement.items:
                if item.asname is not None:
                    self._opaque_targets(item.asname.name)
        elif isinstance(statement, cst.Expr):
            self._registered(statement.value)

    def _registered(self, call: cst.BaseExpression) -> None:
        """`self.register_buffer("name", value)` binds `self.name` to value, as `self.name = value` would."""
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and len(call.args) >= 2):
            return
        if call.func.attr.value not in ("register_buffer", "register_parameter") or not isinstance(call.func.value, cst.Name):
            return
        name = call.args[0].value
        key = name.evaluated_value if isinstance(name, cst.SimpleString) and call.args[0].keyword is None else None
        if isinstance(key, str) and key.isidentifier():
            self.attributes[f"{call.func.value.value}.{key}"].append(call.args[1].value)

    def _unpack(self, target: cst.CSTNode, value: cst.BaseExpression, withs: tuple[cst.With, ...]) -> bool:
        """`a, b = x, y`: bind each name to its own element; False when the shapes do not match."""
        if not (isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))):
            return False
        names, elements = target.elements, value.elements
        if len(names) != len(elements) or any(isinstance(e, cst.StarredElement) for e in (*names, *elements)):
            return False
        if not all(isinstance(name.value, cst.Name) for name in names):
            return False
        for name, element in zip(names, elements):
            self.values[name.value.value].append(element.value)
            self.withs[id(element.value)] = withs
        return True

    def _member(self, target: cst.CSTNode, value: cst.BaseExpression) -> bool:
        """`obj.attr = value` or `d["k"] = value`: recorded under the attribute or entry."""
        if isinstance(target, cst.Attribute):
            key = dotted_name(target)
            if key is not None:
                self.attributes[key].append(value)
            return True
        entry = entry_key(target)
        if entry is not None:
            self.entries[entry].append(value)
            return True
        return False

    def _unpacked_targets(self, target: cst.CSTNode, value: cst.BaseExpression) -> None:
        if isinstance(target, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in target.elements):
            for position, element in enumerate(target.elements):
                if isinstance(element.value, cst.Name):
                    self.unpacked[element.value.value].append((value, position))

    def _opaque_targets(self, target: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self.opaque.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._opaque_targets(element.value)
        elif isinstance(target, cst.StarredElement):
            self._opaque_targets(target.value)

    def _loop_targets(self, target: cst.CSTNode, iterable: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.loop_sources[target.value].append((iterable, None))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for position, element in enumerate(target.elements):
                if isinstance(element.value, cst.Name):
                    self.loop_sources[element.value.value].append((iterable, position))
                elif position == 1 and len(target.elements) == 2 and _enumerated(iterable) is not None:
                    # `for i, (x, y) in enumerate(loader)`: `x` and `y` as in `for x, y in loader`.
                    self._loop_targets(element.value, _enumerated(iterable))

    def assigned(self, name: str) -> list[cst.BaseExpression]:
        return self.values.get(name, [])

    def plain_values(self, name: str) -> Optional[list[cst.BaseExpression]]:
        """The values assigned to `name` when assignments are its only bindings; None when it is
        also a parameter or otherwise opaque, unpacked from one value, or a loop target."""
        if name in self.opaque or name in self.unpacked or name in self.loop_sources:
            return None
        return self.assigned(name)

    def entries_of(self, name: str) -> list[cst.BaseExpression]:
        """Every value assigned to a string-keyed entry of `name` (`name["k"] = v`)."""
        return [value for (container, _), values in self.entries.items() if container == name for value in values]

    def alias_of(self, name: str) -> Optional[cst.BaseExpression]:
        """The name or attribute chain `name` stands for (`opt = self.optimizer`), when every
        binding of it in this scope is that same chain."""
        values = self.values.get(name)
        if not values or name in self.opaque or name in self.loop_sources or name in self.unpacked:
            return None
        keys = {dotted_name(value) for value in values}
        return values[0] if len(keys) == 1 and None not in keys else None

    def withs_around(self, value: cst.BaseExpression) -> tuple[cst.With, ...]:
        return self.withs.get(id(value), ())


def _own_statements(body: Sequence[cst.CSTNode], withs: tuple[cst.With, ...]):
    """(statement, enclosing withs) of a scope, not descending into nested functions or classes."""
    for statement in body:
        yield statement, withs
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                yield small, withs
        else:
            inner = (*withs, statement) if isinstance(statement, cst.With) else withs
            yield from _own_statements(child_statements(statement), inner)


def _enumerated(iterable: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """`loader` for `enumerate(loader)` (with or without a start)."""
    if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "enumerate"):
        return None
    first = iterable.args[0] if iterable.args else None
    return first.value if first is not None and first.keyword is None and not first.star else None


def dict_literal_member(literal: cst.BaseExpression, key: str) -> Optional[cst.BaseExpression]:
    """The value a dict literal gives the string `key`; None when it has none, for a `**` merge or
    for anything but a dict literal."""
    if not isinstance(literal, cst.Dict):
        return None
    member = None
    for element in literal.elements:
        if not isinstance(element, cst.DictElement):
            return None
        if isinstance(element.key, cst.SimpleString) and element.key.evaluated_value == key:
            member = element.value
    return member


def entry_key(node: cst.CSTNode) -> Optional[tuple[str, str]]:
    """("d", "k") for `d["k"]` or `d['k']`."""
    if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1):
        return None
    index = node.slice[0].slice
    if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
        key = index.value.evaluated_value
        if isinstance(key, str):
            return node.value.value, key
    return None


def self_name(function: cst.FunctionDef) -> Optional[str]:
    """The name of a method's first parameter (`self`), or None when it has none."""
    params = (*function.params.posonly_params, *function.params.params)
    return params[0].name.value if params else None


def class_methods(class_def: cst.ClassDef) -> list[cst.FunctionDef]:
    return [statement for statement in suite_statements(class_def.body) if isinstance(statement, cst.FunctionDef)]


class ScopeTable:
    """Lazily built Bindings per scope node, shared by every rule of a file."""

    def __init__(self, class_of: Optional[Callable[[cst.FunctionDef], Optional[cst.ClassDef]]] = None) -> None:
        self._bindings: dict[int, Bindings] = {}
        # method -> its class, to read attributes bound in the class's other methods
        self._class_of = class_of

    def of(self, scope: Scope) -> Bindings:
        found = self._bindings.get(id(scope))
        if found is None:
            found = self._bindings[id(scope)] = Bindings(scope)
        return found

    def entry_values(self, key: tuple[str, str], scope: Scope) -> list[cst.BaseExpression]:
        """The values `scope` binds to the entry `name["entry"]`: by item assignment, or as a
        member of a dict literal bound to the name (`d = {"entry": v}`)."""
        name, entry = key
        values = list(self.of(scope).entries.get(key, ()))
        for value in self.values_of(name, scope):
            member = dict_literal_member(value, entry)
            if member is not None:
                values.append(member)
        return values

    def values_of(self, name: str, scope: Optional[Scope]) -> list[cst.BaseExpression]:
        return self.of(scope).assigned(name) if scope is not None else []

    def loop_sources_of(self, name: str, scope: Optional[Scope]) -> list[tuple[cst.BaseExpression, Optional[int]]]:
        return self.of(scope).loop_sources.get(name, []) if scope is not None else []

    def instance_attribute_values(self, attribute: cst.Attribute, scope: Optional[Scope]) -> list[tuple[cst.BaseExpression, Scope]]:
        """For `self.w` read in a method: every value some method of the class binds to `self.w`
        (`__init__` and the others), each with the method it is assigned in."""
        if not isinstance(scope, cst.FunctionDef) or self._class_of is None or not isinstance(attribute.value, cst.Name):
            return []
        if attribute.value.value != self_name(scope):
            return []
        owner = self._class_of(scope)
        if owner is None:
            return []
        found = []
        for method in class_methods(owner):
            receiver = self_name(method)
            if receiver is not None:
                found.extend((value, method) for value in self.of(method).attributes.get(f"{receiver}.{attribute.attr.value}", ()))
        return found
