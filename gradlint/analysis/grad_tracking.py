"""Does an expression evidently carry autograd history (a model output, a loss, ops on parameters)?

Conservative like the other analyses: unknown means no. Values assigned inside a no-grad block
carry none; `.detach()`, `.item()`, `.data`, comparisons and `argmax` end the history. The other
direction, "provably carries none", is the history proof's (`history.HistoryEvidence`), and both
read the table's history properties from there. Also: whether a loss was computed from a value
whose history was cut (`cut_from_graph`), built without grad, or turned back on.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.grad_mode import disables_grad, grad_mode_of
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable, dict_literal_member, entry_key
from gradlint.analysis.syntax import is_bool_literal, is_integer_literal, keyword_arg
from gradlint.analysis import torch_api
from gradlint.analysis.history import ENDS_HISTORY, ENDS_HISTORY_FUNCTIONS, INDEX_RESULTS, KEEPS_HISTORY, HistoryEvidence
from gradlint.analysis.tensors import CRITERION, TensorEvidence, iterates_parameters
from gradlint.analysis.roles import MODEL_CALLEE, MODULE_INSTANCE
from gradlint.analysis.tree import descendants

REQUIRES_GRAD_FACTORIES = torch_api.functions("grad-flag")
_FUNCTIONAL_LOSSES = torch_api.short_names(torch_api.functions("loss"))


class GradEvidence:
    def __init__(self, imports: ImportMap, scopes: ScopeTable, tensors: TensorEvidence, history: HistoryEvidence) -> None:
        self.imports = imports
        self.scopes = scopes
        self.tensors = tensors
        self.history = history

    def carries_grad(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int = 0) -> bool:
        if depth > 10:
            return False
        if isinstance(node, cst.Call):
            return self._call(node, scope, depth)
        if isinstance(node, cst.Name):
            return self._name(node.value, scope, depth)
        if isinstance(node, cst.Attribute):
            if node.attr.value in ("weight", "bias"):
                return self.imports.qualified_name(node) is None
            return self._instance_attribute(node, scope, depth)
        if isinstance(node, cst.Subscript):
            inner = node.value
            if _is_index_result(inner, node):
                return False
            members = self._container_members(node, scope)
            if members is not None:
                return all(self.carries_grad(member, scope, depth + 1) for member in members)
            return self.carries_grad(inner, scope, depth + 1)
        if isinstance(node, cst.BinaryOperation):
            return self.carries_grad(node.left, scope, depth + 1) or self.carries_grad(node.right, scope, depth + 1)
        if isinstance(node, cst.UnaryOperation):
            return self.carries_grad(node.expression, scope, depth + 1)
        return False

    def _call(self, call: cst.Call, scope, depth: int) -> bool:
        qualified = self.imports.qualified_name(call.func)
        if qualified is not None:
            return self._torch_function(qualified, call, scope, depth)
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in ENDS_HISTORY or method.endswith("_") and method != "squeeze_":
                return False
            if method in KEEPS_HISTORY:
                return self.carries_grad(func.value, scope, depth + 1)
            name = func.attr.value
            named = bool(MODEL_CALLEE.match(name) or CRITERION.match(name)) and _rooted_in_self(func.value)
        elif isinstance(func, cst.Name):
            named = bool(CRITERION.match(func.value) or MODEL_CALLEE.match(func.value))
        else:
            return False
        # A name says "loss" or "model"; the file's own function may say it returns a Python number.
        return named and not self.tensors.returns_number(call, scope)

    def _torch_function(self, qualified: str, call: cst.Call, scope, depth: int) -> bool:
        if qualified == "torch.autograd.Variable" or qualified in REQUIRES_GRAD_FACTORIES:
            flag = keyword_arg(call, "requires_grad")
            if flag is not None:
                return is_bool_literal(flag.value, True)
            if qualified == "torch.autograd.Variable" and len(call.args) > 1 and call.args[1].keyword is None:
                return is_bool_literal(call.args[1].value, True)
            return False
        if not qualified.startswith("torch.") or qualified in ENDS_HISTORY_FUNCTIONS:
            return False
        short = qualified.rsplit(".", 1)[-1]
        if qualified.startswith("torch.nn.functional.") and (short.endswith("loss") or short in _FUNCTIONAL_LOSSES):
            return True
        return any(self._argument_carries(arg.value, scope, depth) for arg in call.args if arg.keyword is None)

    def _argument_carries(self, value: cst.BaseExpression, scope, depth: int) -> bool:
        if isinstance(value, (cst.List, cst.Tuple)):
            return any(self.carries_grad(e.value, scope, depth + 1) for e in value.elements)
        return self.carries_grad(value, scope, depth + 1)

    def _name(self, name: str, scope, depth: int) -> bool:
        if self.imports.is_imported(name):
            return False
        if any(iterates_parameters(source, position) for source, position in self.scopes.loop_sources_of(name, scope)):
            return True
        bindings = self.scopes.of(scope) if scope is not None else None
        if bindings is None:
            return False
        values = bindings.assigned(name)
        if not values:
            members = self._unpacked_members(name, scope)
            return bool(members) and all(self.carries_grad(member, scope, depth + 1) for member in members)
        last = values[-1]
        if grad_mode_of(bindings.withs_around(last), self.imports) is False:
            return False
        return self.carries_grad(last, scope, depth + 1)

    def _container_members(self, node: cst.Subscript, scope) -> Optional[list[cst.BaseExpression]]:
        """What `params["w"]` or `pair[1]` can hold, when the container is a dict or tuple literal
        bound in this scope (with the entry's later assignments); None when that is not visible."""
        if scope is None or not isinstance(node.value, cst.Name) or len(node.slice) != 1:
            return None
        index = node.slice[0].slice
        if not isinstance(index, cst.Index):
            return None
        literals = self._literal_container(node.value.value, scope)
        if literals is None:
            return None
        entry = entry_key(node)
        if entry is not None:
            found = [dict_literal_member(literal, entry[1]) for literal in literals]
            later = self.scopes.of(scope).entries.get(entry, [])
            return None if any(member is None for member in found) else [*found, *later]
        if isinstance(index.value, cst.Integer) and not self.scopes.of(scope).entries_of(node.value.value):
            found = [_sequence_member(literal, int(index.value.value)) for literal in literals]
            return None if any(member is None for member in found) else found
        return None

    def _unpacked_members(self, name: str, scope) -> list[cst.BaseExpression]:
        """`w, b = pair` with `pair = (w0, b0)` bound in this scope: what `w` takes from it."""
        if scope is None:
            return []
        members = []
        for value, position in self.scopes.of(scope).unpacked.get(name, []):
            literals = self._literal_container(value.value, scope) if isinstance(value, cst.Name) else None
            found = [_sequence_member(literal, position) for literal in literals or ()]
            if not found or any(member is None for member in found):
                return []
            members.extend(found)
        return members

    def _literal_container(self, name: str, scope) -> Optional[list[cst.BaseExpression]]:
        """The dict, tuple or list literals `name` is bound to in `scope`, when those are all its bindings."""
        found = self._assigned_values(name, scope)
        if found is None:
            return None
        bindings, values = found
        if name in bindings.loop_sources or not all(isinstance(value, (cst.Dict, cst.Tuple, cst.List)) for value in values):
            return None
        return values

    def _instance_attribute(self, node: cst.Attribute, scope, depth: int) -> bool:
        """`self.w` where every value the class's methods bind to `self.w` carries history."""
        values = self.scopes.instance_attribute_values(node, scope)
        return bool(values) and all(
            not any(disables_grad(d.decorator, self.imports) for d in method.decorators)
            and grad_mode_of(self.scopes.of(method).withs_around(value), self.imports) is not False
            and self.carries_grad(value, method, depth + 1)
            for value, method in values
        )

    def _assigned_values(self, name: str, scope: Optional[Scope]):
        """The bindings of `scope` and the values `name` is assigned there, when they are all
        visible (not a parameter, a loop variable, an unpacked or an opaque binding); else None."""
        if scope is None:
            return None
        bindings = self.scopes.of(scope)
        values = bindings.assigned(name)
        if not values or name in bindings.opaque or name in bindings.unpacked:
            return None
        return bindings, values

    def built_without_grad(self, name: str, scope) -> bool:
        """Every assignment of `name` in `scope` is inside a no-grad block (or ends the history)."""
        if scope is None:
            return False
        bindings = self.scopes.of(scope)
        values = bindings.assigned(name)
        if not values or name in bindings.opaque:
            return False
        return all(grad_mode_of(bindings.withs_around(v), self.imports) is False or ends_history(v) for v in values)

    def cut_from_graph(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int = 0) -> bool:
        """`node` is computed from a value whose history was cut (`.detach()`, `.data`, `.item()`,
        a no-grad block) and from nothing that may carry a graph: `criterion(out.detach(), y)`,
        `loss.detach().mean()`. Only loss-like computations count (criteria, torch functions,
        arithmetic, history-keeping methods): `model(x.detach())` has a graph again."""
        if depth > 10:
            return False
        if ends_history(node):
            return True
        if isinstance(node, cst.Name):
            return self._cut_name(node.value, scope, depth)
        if isinstance(node, cst.BinaryOperation):
            parts = [node.left, node.right]
        elif isinstance(node, cst.UnaryOperation):
            parts = [node.expression]
        elif isinstance(node, cst.Call):
            parts = self._loss_inputs(node)
            if parts is None:
                return False
        else:
            return False
        return any(self.cut_from_graph(part, scope, depth + 1) for part in parts) and all(
            self.cut_from_graph(part, scope, depth + 1) or self._no_graph_input(part, scope) for part in parts
        )

    def _cut_name(self, name: str, scope: Optional[Scope], depth: int) -> bool:
        found = self._assigned_values(name, scope)
        if found is None:
            return False
        bindings, values = found
        return all(
            grad_mode_of(bindings.withs_around(value), self.imports) is False or self.cut_from_graph(value, scope, depth + 1)
            for value in values
        )

    def _loss_inputs(self, call: cst.Call) -> Optional[list[cst.BaseExpression]]:
        """The inputs of a loss-like call (`criterion(a, b)`, `F.mse_loss(a, b)`, `a.mean()`,
        `a.requires_grad_()`), None for other calls (models, unknown functions)."""
        func = call.func
        arguments = [arg.value for arg in call.args]
        if isinstance(func, cst.Attribute) and (func.attr.value in KEEPS_HISTORY or func.attr.value == "requires_grad_"):
            if self.imports.qualified_name(func) is None:
                return [func.value, *arguments]
        qualified = self.imports.qualified_name(func)
        if qualified is not None:
            return arguments if qualified.startswith("torch.") and not qualified.rsplit(".", 1)[-1][:1].isupper() else None
        callee = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        return arguments if CRITERION.match(callee) else None

    def _no_graph_input(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """An input that brings no graph of its own: a number, a target or index tensor (not a
        model, a parameter or a value with evidence of history)."""
        if self.history.is_history_free(node, scope if scope is not None else self.history.module):
            return True
        if isinstance(node, cst.Name):
            return not self.carries_grad(node, scope) and not MODEL_CALLEE.match(node.value) and not MODULE_INSTANCE.match(node.value)
        return False

    def reenables_grad(self, name: str, scope: Optional[Scope]) -> bool:
        """`name.requires_grad_()`, `name.requires_grad_(True)` or `name.requires_grad = True` in
        `scope`, or `name` bound to `... .requires_grad_()`."""
        if scope is None:
            return False
        bindings = self.scopes.of(scope)
        if any(is_bool_literal(value, True) for value in bindings.attributes.get(f"{name}.requires_grad", ())):
            return True
        if any(_requires_grad_call(value) for value in bindings.assigned(name)):
            return True
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        return any(
            _requires_grad_call(node) and isinstance(node.func.value, cst.Name) and node.func.value.value == name
            for node in descendants(body)
            if isinstance(node, cst.Call)
        )


def _sequence_member(literal: cst.BaseExpression, position: int) -> Optional[cst.BaseExpression]:
    """Element `position` of a tuple or list literal without starred elements."""
    if not isinstance(literal, (cst.Tuple, cst.List)) or any(isinstance(e, cst.StarredElement) for e in literal.elements):
        return None
    return literal.elements[position].value if -len(literal.elements) <= position < len(literal.elements) else None


def _requires_grad_call(node: cst.BaseExpression) -> bool:
    """`x.requires_grad_()` or `x.requires_grad_(True)`."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "requires_grad_"):
        return False
    return not node.args or is_bool_literal(node.args[0].value, True)


def ends_history(node: cst.BaseExpression) -> bool:
    """`x.detach()`, `x.data`, `x.item()`... at the end of the expression."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value in _DETACHES
    return isinstance(node, cst.Attribute) and node.attr.value == "data"


_DETACHES = torch_api.methods("detaches")


def _rooted_in_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def _is_index_result(inner: cst.BaseExpression, subscript: cst.Subscript) -> bool:
    """`x.max(1)[1]`: the indices of a (values, indices) result carry no history."""
    if not (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and inner.func.attr.value in INDEX_RESULTS):
        return False
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return False
    index = subscript.slice[0].slice.value
    return is_integer_literal(index, 1) or (isinstance(index, cst.Attribute) and index.attr.value == "indices")


def mentioned_names(node: cst.CSTNode) -> set[str]:
    return {current.value for current in descendants(node) if isinstance(current, cst.Name)}
