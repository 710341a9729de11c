"""State a loop carries from one iteration to the next through a model call.

`out, h = rnn(x, h)` in a loop body: the next iteration feeds the `h` this one produced back to the
model, so unless something cuts it (`h = h.detach()`, `repackage_hidden(h)`, `h.detach_()`, a
fresh `h = init_hidden()`), every iteration's graph hangs off the previous one.

Evidence only: the call must be to a model (a name like `model`, `rnn`, `lstm`, `encoder`, a
`torch.nn` module built in the function), the state must be passed to it as a bare name (alone or in
a tuple) and bound back from its result, and no other statement of the loop may bind, detach or
delete that name. Calls under a no-grad block, and files whose own `forward` returns detached state,
are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Iterator, Optional

import libcst as cst

from gradlint.analysis.grad_mode import is_no_grad_with
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.roles import MODEL_CALLEE
from gradlint.analysis.scopes import Scope, ScopeTable
from gradlint.analysis.syntax import child_statements, dotted_name, suite_statements
from gradlint.analysis.tree import descendants

# Recurrent modules and model entry points, by the callee's last name: `self.lstm`, `rnn_cell`, `model.forward`.
_RECURRENT_CALLEE = re.compile(r"(rnn|lstm|gru|cell)", re.IGNORECASE)
# Methods that cut a tensor from its graph in place.
_DETACHES_IN_PLACE = frozenset({"detach_", "requires_grad_"})


@dataclass(frozen=True)
class CarriedState:
    names: tuple[str, ...]  # the state carried: `h`, or `h` and `c`
    assignment: cst.Assign  # `out, h = rnn(x, h)`
    call: cst.Call  # `rnn(x, h)`
    loop: cst.CSTNode  # the For / While whose iterations carry it


class CarriedStates:
    def __init__(self, module: cst.Module, imports: ImportMap, scopes: ScopeTable) -> None:
        self.module = module
        self.imports = imports
        self.scopes = scopes

    def of_loop(self, loop: cst.CSTNode, scope: Scope) -> list[CarriedState]:
        """The states `loop` (a For / While of `scope`) carries across its iterations with their graph."""
        if self._forward_detaches_state:
            return []
        statements = list(_own_statements(suite_statements(loop.body), False, self.imports))
        bindings: dict[str, list[cst.CSTNode]] = {}
        cut: set[str] = set()
        for statement, _ in statements:
            for name in _bound_names(statement):
                bindings.setdefault(name, []).append(statement)
            cut |= _detached_in_place(statement)
        # `for s in state: s.detach_()` cuts the tensors of `state` itself.
        cut |= {
            statement.iter.value
            for statement, _ in statements
            if isinstance(statement, cst.For) and isinstance(statement.iter, cst.Name) and _target_names(statement.target) & cut
        }
        if isinstance(loop, cst.For):
            cut |= _target_names(loop.target)
        found = []
        for statement, no_grad in statements:
            carried = self._recurrent(statement, scope) if not no_grad else None
            if carried is None:
                continue
            names = tuple(name for name in carried[1] if name not in cut and bindings.get(name) == [statement])
            if names and len(names) == len(carried[1]):
                found.append(CarriedState(names, statement, carried[0], loop))
        return found

    def _recurrent(self, statement: cst.CSTNode, scope: Scope) -> Optional[tuple[cst.Call, tuple[str, ...]]]:
        """`targets = model(..., state...)` where some target names are passed in as bare names."""
        if not (isinstance(statement, cst.Assign) and isinstance(statement.value, cst.Call) and len(statement.targets) == 1):
            return None
        call = statement.value
        if not self._is_model_call(call, scope):
            return None
        passed: list[str] = []
        for arg in call.args:
            passed.extend(_bare_names(arg.value))
        bound = _target_names(statement.targets[0].target)
        carried = tuple(name for name in passed if name in bound)
        return (call, carried) if carried else None

    def _is_model_call(self, call: cst.Call, scope: Scope) -> bool:
        name = dotted_name(call.func)
        if name is None or self.imports.qualified_name(call.func) is not None:
            return False
        parts = name.split(".")
        last = parts[-1]
        if last == "forward" and len(parts) > 1:
            last = parts[-2]
        if MODEL_CALLEE.match(last) or _RECURRENT_CALLEE.search(last):
            return True
        if isinstance(call.func, cst.Name):
            values = self.scopes.values_of(call.func.value, scope)
            return bool(values) and all(_builds_torch_module(value, self.imports) for value in values)
        return False

    @cached_property
    def _forward_detaches_state(self) -> bool:
        """A `forward` of this file returns detached (or `.data`) values: the model cuts its state itself."""
        for node in descendants(self.module):
            if isinstance(node, cst.FunctionDef) and node.name.value == "forward":
                for inner in descendants(node.body):
                    if isinstance(inner, cst.Return) and inner.value is not None and _mentions_cut(inner.value):
                        return True
        return False


def _mentions_cut(node: cst.CSTNode) -> bool:
    return any(
        (isinstance(n, cst.Attribute) and n.attr.value in ("detach", "data", "detach_"))
        or (isinstance(n, cst.Name) and n.value == "repackage_hidden")
        for n in descendants(node)
    )


def _builds_torch_module(value: cst.BaseExpression, imports: ImportMap) -> bool:
    if not isinstance(value, cst.Call):
        return False
    qualified = imports.qualified_name(value.func)
    return qualified is not None and qualified.startswith("torch.nn.") and qualified.rsplit(".", 1)[-1][:1].isupper()


def _own_statements(statements, no_grad: bool, imports: ImportMap) -> Iterator[tuple[cst.CSTNode, bool]]:
    """The small statements and compound statements of a loop body, nested blocks included (not
    nested functions or classes), each with whether it runs in a no-grad block."""
    for statement in statements:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                yield small, no_grad
            continue
        yield statement, no_grad
        inner = no_grad or is_no_grad_with(statement, imports)
        yield from _own_statements(child_statements(statement), inner, imports)


def _bound_names(statement: cst.CSTNode) -> set[str]:
    """Names a statement binds (assignment targets, loop and `with` targets, `del`, walrus inside)."""
    names: set[str] = set()
    if isinstance(statement, cst.Assign):
        for target in statement.targets:
            names |= _target_names(target.target)
    elif isinstance(statement, (cst.AugAssign, cst.AnnAssign)):
        names |= _target_names(statement.target)
    elif isinstance(statement, cst.For):
        names |= _target_names(statement.target)
    elif isinstance(statement, cst.With):
        for item in statement.items:
            if item.asname is not None:
                names |= _target_names(item.asname.name)
    elif isinstance(statement, cst.Del):
        names |= _target_names(statement.target)
    elif isinstance(statement, (cst.Global, cst.Nonlocal)):
        names |= {item.name.value for item in statement.names}
    if not isinstance(statement, cst.BaseCompoundStatement):
        names |= {n.target.value for n in descendants(statement) if isinstance(n, cst.NamedExpr) and isinstance(n.target, cst.Name)}
    return names


def _target_names(target: cst.CSTNode) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(*(_target_names(element.value) for element in target.elements))
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return set()


def _bare_names(value: cst.BaseExpression) -> list[str]:
    """`h` for `h`, `h, c` for `(h, c)`: the names an argument passes as they are."""
    if isinstance(value, cst.Name):
        return [value.value]
    if isinstance(value, (cst.Tuple, cst.List)):
        return [name for element in value.elements for name in _bare_names(element.value)]
    return []


def _detached_in_place(statement: cst.CSTNode) -> set[str]:
    """`h.detach_()`, `h.requires_grad_(...)`, `h[0].detach_()`: names cut from their graph in place."""
    if isinstance(statement, cst.BaseCompoundStatement):
        return set()
    found = set()
    for node in descendants(statement):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _DETACHES_IN_PLACE:
            receiver = node.func.value
            while isinstance(receiver, cst.Subscript):
                receiver = receiver.value
            if isinstance(receiver, cst.Name):
                found.add(receiver.value)
    return found
