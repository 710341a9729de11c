"""What `self.batch_size` read in a method can hold: the values the class's methods assign to it,
when the project index found the attribute sealed (see `attribute_writes`: only the class's own
methods store it in the run, on their first parameter, and nothing reaches it by name).

Such a read, in an undecorated method of the class that never rebinds its first parameter, sees
one of those values or raises AttributeError (not assigned yet), whatever else the run does.
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from gradlint.analysis.scopes import Scope, ScopeTable, self_name


def sealed_attribute_values(
    node: cst.BaseExpression,
    scope: Optional[Scope],
    module: cst.Module,
    scopes: ScopeTable,
    class_of: Callable[[cst.FunctionDef], Optional[cst.ClassDef]],
    sealed: frozenset[str],
) -> Optional[list[tuple[cst.BaseExpression, Scope]]]:
    """Every value (with the method assigning it) that `self.<attribute>` read in `scope` may
    hold, when the attribute is sealed; None otherwise."""
    if not sealed or type(node) is not cst.Attribute or type(node.value) is not cst.Name or type(scope) is not cst.FunctionDef:
        return None
    owner = class_of(scope)
    if owner is None or f"{owner.name.value}.{node.attr.value}" not in sealed or not any(statement is owner for statement in module.body):
        return None
    receiver = node.value.value
    if scope.decorators or receiver != self_name(scope) or _rebound(receiver, scope, scopes):
        return None
    values = scopes.instance_attribute_values(node, scope)
    return values or None


def _rebound(name: str, function: cst.FunctionDef, scopes: ScopeTable) -> bool:
    bindings = scopes.of(function)
    return bool(bindings.assigned(name)) or name in bindings.unpacked or name in bindings.loop_sources
