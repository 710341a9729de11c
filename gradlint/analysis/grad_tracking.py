"""Does an expression evidently carry autograd history (a model output, a loss, ops on parameters)?

Conservative like the other analyses: unknown means no. Values assigned inside a no-grad block
carry none; `.detach()`, `.item()`, `.data`, comparisons and `argmax` end the history. Values are
followed through the file's bindings as the tensor evidence follows them: a function's or a method's
returns (whole, or one member of the tuples it returns), a lambda's result, an attribute of `self`,
a loop variable over values written out, a dict entry, a list filled by `append` and indexed.
`GeneratorOutputs` follows a GAN generator's output the same way. The other
direction, "provably carries none", is the history proof's (`history.HistoryEvidence`), and both
read the table's history properties from there. Also: whether a loss was computed from a value
whose history was cut (`cut_from_graph`), built without grad, or turned back on.
"""

from __future__ import annotations

from functools import cached_property
from typing import Callable, Iterable, Optional

import libcst as cst

from gradlint.analysis.grad_mode import disables_grad, grad_mode_of
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable, dict_literal_member, entry_key
from gradlint.analysis.syntax import is_bool_literal, is_integer_literal, is_none_literal, keyword_arg
from gradlint.analysis import torch_api
from gradlint.analysis.history import ENDS_HISTORY, ENDS_HISTORY_FUNCTIONS, INDEX_RESULTS, KEEPS_HISTORY, HistoryEvidence
from gradlint.analysis.tensors import CRITERION, TensorEvidence, iterates_parameters, shadows, tuple_member
from gradlint.analysis.roles import MODEL_CALLEE, MODULE_INSTANCE, Role, Roles
from gradlint.analysis.tree import descendants

REQUIRES_GRAD_FACTORIES = torch_api.functions("grad-flag")
_FUNCTIONAL_LOSSES = torch_api.short_names(torch_api.functions("loss"))


class GradEvidence:
    # What `TensorEvidence.follow` keys a function's result with history by (its own keys differ).
    RETURNS_KEY = " returns with history"

    def __init__(
        self,
        imports: ImportMap,
        scopes: ScopeTable,
        tensors: TensorEvidence,
        history: HistoryEvidence,
        backpropagated: Optional[Callable[[], Iterable[cst.Name]]] = None,
    ) -> None:
        self.imports = imports
        self.scopes = scopes
        self.tensors = tensors
        self.history = history
        # The names the file backpropagates (`loss` of `loss.backward()`, `accelerator.backward(loss)`),
        # asked for lazily: the training analysis finds them.
        self._backpropagated = backpropagated

    def carries_grad(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int = 0) -> bool:
        if depth > 10:
            return False
        if isinstance(node, cst.Call):
            return self._call(node, scope, depth)
        if isinstance(node, cst.Name):
            return self._name(node.value, scope, depth) or self._backpropagated_binding(node, scope)
        if isinstance(node, cst.Attribute):
            if node.attr.value in ("weight", "bias"):
                return self._is_parameter_attribute(node)
            return self._instance_attribute(node, scope, depth)
        if isinstance(node, cst.Subscript):
            inner = node.value
            if _is_index_result(inner, node):
                return False
            members = self._container_members(node, scope)
            if members is not None:
                return all(self.carries_grad(member, scope, depth + 1) for member in members)
            if self._list_member_carries(node, scope, depth):
                return True
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
        elif not isinstance(func, cst.Name):
            return False
        # A name says "loss" or "model"; the file's own function may say it returns a Python number.
        if self._is_source(call):
            return not self.tensors.returns_no_tensor(call, scope)
        if isinstance(func, cst.Name) and self._lambda_gives_history(func.value, scope, depth):
            return True
        return self._returns_history(call, scope, depth)

    def _backpropagated_binding(self, node: cst.Name, scope: Optional[Scope]) -> bool:
        """The read `node` sees the binding a backward call of the same scope backpropagates
        (`logits, loss = model(x)` ... `loss.backward()` ... `total += loss`): `backward()` raises on
        a value without history, so the value has one wherever that binding is read."""
        if not self._backpropagated_bindings or scope is None:
            return False
        binding = self.history.scope_uses.of(scope).reaching_binding(node)
        return binding is not None and (id(binding), node.value) in self._backpropagated_bindings

    @cached_property
    def _backpropagated_bindings(self) -> frozenset[tuple[int, str]]:
        """(id of the binding statement, name) for each name a backward call reads, once per file."""
        if self._backpropagated is None:
            return frozenset()
        table = self.history.scope_uses
        found = set()
        for read in self._backpropagated():
            scope = table.nodes.enclosing_function(read) or table.nodes.root
            binding = table.of(scope).reaching_binding(read)
            if binding is not None:
                found.add((id(binding), read.value))
        return frozenset(found)

    # -- where history starts: what `GeneratorOutputs` narrows to a generator's output ------------

    def _is_source(self, call: cst.Call) -> bool:
        """A call named like a loss or a model (`criterion(...)`, `model(x)`, `self.net(x)`)."""
        func = call.func
        if isinstance(func, cst.Attribute):
            return bool(MODEL_CALLEE.match(func.attr.value) or CRITERION.match(func.attr.value)) and _rooted_in_self(func.value)
        return isinstance(func, cst.Name) and bool(CRITERION.match(func.value) or MODEL_CALLEE.match(func.value))

    def _is_parameter_attribute(self, node: cst.Attribute) -> bool:
        """`layer.weight`, `self.fc.bias`: a parameter, not a module path."""
        return self.imports.qualified_name(node) is None

    def _loops_over_parameters(self, sources) -> bool:
        return any(iterates_parameters(source, position) for source, position in sources)

    def _torch_source(self, qualified: str, call: cst.Call) -> Optional[bool]:
        """Whether a torch call starts a history of its own (a factory given `requires_grad=True`,
        a functional loss), None when it only passes on its arguments' history."""
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
        return None

    def _torch_function(self, qualified: str, call: cst.Call, scope, depth: int) -> bool:
        starts = self._torch_source(qualified, call)
        if starts is not None:
            return starts
        return any(self._argument_carries(arg.value, scope, depth) for arg in call.args if arg.keyword is None)

    def _argument_carries(self, value: cst.BaseExpression, scope, depth: int) -> bool:
        if isinstance(value, (cst.List, cst.Tuple)):
            return any(self.carries_grad(e.value, scope, depth + 1) for e in value.elements)
        return self.carries_grad(value, scope, depth + 1)

    def _name(self, name: str, scope, depth: int) -> bool:
        if self.imports.is_imported(name):
            return False
        sources = self.scopes.loop_sources_of(name, scope)
        if self._loops_over_parameters(sources):
            return True
        bindings = self.scopes.of(scope) if scope is not None else None
        if bindings is None:
            return False
        values = bindings.assigned(name)
        if not values and sources:
            return name not in bindings.unpacked and self._loop_carries(sources, scope, depth)
        if not values:
            return self._unpacked_carries(name, scope, depth)
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
            return self._entry_values(literals, entry, scope)
        if isinstance(index.value, cst.Integer) and not self.scopes.of(scope).entries_of(node.value.value):
            found = [_sequence_member(literal, int(index.value.value)) for literal in literals]
            return None if any(member is None for member in found) else found
        return None

    def _entry_values(self, literals: list[cst.BaseExpression], entry: tuple[str, str], scope) -> Optional[list[cst.BaseExpression]]:
        """What `d["k"]` can hold: the literals' values for "k" (a dict literal without it, such as
        `{}`, gives none) and the entry's assignments in this scope; None when a literal is not a
        plain dict, when nothing binds the entry, or when an assignment runs without grad (its
        value then carries none whatever it is)."""
        found = []
        for literal in literals:
            if not isinstance(literal, cst.Dict) or not all(isinstance(element, cst.DictElement) for element in literal.elements):
                return None
            member = dict_literal_member(literal, entry[1])
            if member is not None:
                found.append(member)
        bindings = self.scopes.of(scope)
        later = bindings.entries.get(entry, [])
        if any(grad_mode_of(bindings.withs_around(value), self.imports) is False for value in later):
            return None
        members = [*found, *later]
        return members or None

    def _unpacked_carries(self, name: str, scope, depth: int) -> bool:
        """`w, b = pair` (`pair = (w0, b0)` bound in this scope) or `loss, out = step(x)` (a
        function of the file whose every `return` is a tuple): every value `name` is unpacked from
        gives it a member with history."""
        unpacked = self.scopes.of(scope).unpacked.get(name, []) if scope is not None else []
        return bool(unpacked) and all(self._unpacked_member_carries(value, position, scope, depth) for value, position in unpacked)

    def _unpacked_member_carries(self, value: cst.BaseExpression, position: int, scope, depth: int) -> bool:
        if grad_mode_of(self.scopes.of(scope).withs_around(value), self.imports) is False:
            return False
        if isinstance(value, cst.Call):
            return self._returned_member_carries(value, position, scope, depth)
        literals = self._literal_container(value.value, scope) if isinstance(value, cst.Name) else None
        found = [_sequence_member(literal, position) for literal in literals or ()]
        if not found or any(member is None for member in found):
            return False
        return all(self.carries_grad(member, scope, depth + 1) for member in found)

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
        """`self.w` where some method of the class binds `self.w` to a value with history and none
        binds it to one that has none (a detached value, a number, a value computed without grad);
        `self.w = None`, a placeholder until it is set, counts for neither."""
        values = [(value, method) for value, method in self.scopes.instance_attribute_values(node, scope) if not is_none_literal(value)]
        return any(
            self._assigned_with_grad(value, method) and self.carries_grad(value, method, depth + 1) for value, method in values
        ) and not any(
            not self._assigned_with_grad(value, method) or self.history.is_history_free(value, method) for value, method in values
        )

    def _assigned_with_grad(self, value: cst.BaseExpression, method: cst.FunctionDef) -> bool:
        """`value`, bound in `method`, is computed with grad on as far as the method says."""
        return (
            not _decorated_without_grad(method, self.imports)
            and grad_mode_of(self.scopes.of(method).withs_around(value), self.imports) is not False
        )

    # -- values followed through the file's functions, lambdas, loops and lists -------------------

    def _returns_history(self, call: cst.Call, scope, depth: int) -> bool:
        """`call` runs a plain function or method of this file (as the tensor evidence resolves it)
        whose every `return` gives a value with history, computed with grad on."""
        function, returns = self.tensors.returned_values(call, scope)
        if not returns or _decorated_without_grad(function, self.imports):
            return False
        return self.tensors.follow(
            (id(function), self.RETURNS_KEY), lambda: all(self._returned_carries(value, function, depth) for value in returns)
        )

    def _returned_member_carries(self, call: cst.Call, position: int, scope, depth: int) -> bool:
        """Member `position` of what `call` returns, when it runs a function of this file whose
        every `return` is a tuple written out with a value with history there."""
        function, returns = self.tensors.returned_values(call, scope)
        if not returns or _decorated_without_grad(function, self.imports):
            return False
        members = [tuple_member(returned, position) for returned in returns]
        if any(member is None for member in members):
            return False
        return self.tensors.follow(
            (id(function), f"{self.RETURNS_KEY}{position}"),
            lambda: all(self._returned_carries(member, function, depth, returned) for member, returned in zip(members, returns)),
        )

    def _returned_carries(
        self, value: cst.BaseExpression, function: cst.FunctionDef, depth: int, returned: Optional[cst.BaseExpression] = None
    ) -> bool:
        """A returned value (or a member of the `returned` tuple) carries history in `function`,
        and its `return` is not inside a no-grad block."""
        around = self.scopes.of(function).withs_around(returned if returned is not None else value)
        return grad_mode_of(around, self.imports) is not False and self.carries_grad(value, function, depth + 1)

    def _lambda_gives_history(self, name: str, scope, depth: int) -> bool:
        """`objective(x, y)` where `objective` is bound in this scope only to lambdas whose body,
        read where it is written, carries history (no parameter of the lambda shadows a name of
        the scope)."""
        if scope is None:
            return False
        bindings = self.scopes.of(scope)
        values = bindings.plain_values(name)
        if not values:
            return False
        return all(
            isinstance(value, cst.Lambda) and not shadows(value, bindings) and self.carries_grad(value.body, scope, depth + 1)
            for value in values
        )

    def _loop_carries(self, sources, scope, depth: int) -> bool:
        """A loop variable over tuples or lists written out (or names bound only to them), every
        element with history: `for out in (model(x), model(2 * x))`."""
        for source, position in sources:
            if position is not None:
                return False
            elements = self._sequence_elements(source, scope)
            if not elements or not all(self.carries_grad(element, scope, depth + 1) for element in elements):
                return False
        return True

    def _list_member_carries(self, node: cst.Subscript, scope, depth: int) -> bool:
        """`costs[-1]` (any index, not a slice) of a list or tuple bound in this scope whose every
        element, written out or appended, carries history."""
        if not isinstance(node.value, cst.Name) or len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return False
        if isinstance(node.slice[0].slice.value, (cst.SimpleString, cst.ConcatenatedString)):
            return False
        elements = self._sequence_elements(node.value, scope)
        return bool(elements) and all(self.carries_grad(element, scope, depth + 1) for element in elements)

    def _sequence_elements(self, node: cst.BaseExpression, scope) -> Optional[list[cst.BaseExpression]]:
        """The elements of the tuple or list `node` writes out, or of those a name of `scope` is
        bound to (with what `name.append(...)` adds); None when they are not all visible."""
        if isinstance(node, (cst.Tuple, cst.List)):
            return _written_out(node)
        if not isinstance(node, cst.Name) or scope is None:
            return None
        literals = self._literal_container(node.value, scope)
        if literals is None:
            return None
        bindings = self.scopes.of(scope)
        elements: list[cst.BaseExpression] = []
        for literal in literals:
            written = _written_out(literal)
            if written is None or grad_mode_of(bindings.withs_around(literal), self.imports) is False:
                return None
            elements.extend(written)
        if all(isinstance(literal, cst.Tuple) for literal in literals):
            return elements  # a tuple is never filled later
        appended = self._appended(node.value, scope)
        return None if appended is None else [*elements, *appended]

    def _reads_only(self, call: Optional[cst.CSTNode]) -> bool:
        """A call that reads the list it is given and keeps no hold on it: a torch function or a
        builtin such as `sum` or `len`."""
        if not isinstance(call, cst.Call):
            return False
        qualified = self.imports.qualified_name(call.func)
        if qualified is not None:
            return qualified.startswith("torch.")
        return isinstance(call.func, cst.Name) and call.func.value in _READING_BUILTINS

    def _appended(self, name: str, scope) -> Optional[list[cst.BaseExpression]]:
        """What `name.append(value)` statements (with grad on) add to the list `name`, when every
        other mention of `name` in `scope` binds it, reads an element or loops over it; None when it
        is used any other way (handed to a function, extended, written by index)."""
        uses = self.history.scope_uses.of(scope)
        bindings = self.scopes.of(scope)
        appended = []
        for occurrence in uses.occurrences(name):
            parent = uses.parent(occurrence)
            if isinstance(parent, cst.AssignTarget) or (isinstance(parent, cst.For) and parent.iter is occurrence):
                continue
            if isinstance(parent, cst.Subscript) and parent.value is occurrence and _is_read(parent, uses):
                continue
            if isinstance(parent, cst.Arg) and self._reads_only(uses.parent(parent)):
                continue  # `sum(terms)`, `torch.stack(outputs)`
            call = uses.parent(parent) if isinstance(parent, cst.Attribute) and parent.attr.value == "append" else None
            if not (isinstance(call, cst.Call) and call.func is parent and len(call.args) == 1 and call.args[0].keyword is None):
                return None
            if id(call) not in bindings.withs or grad_mode_of(bindings.withs_around(call), self.imports) is False:
                return None  # not a statement of this scope, or under no_grad
            appended.append(call.args[0].value)
        return appended

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


# Builtins that read a list they are given without changing it or keeping it.
_READING_BUILTINS = frozenset({"sum", "len", "min", "max", "sorted", "reversed", "enumerate", "zip", "any", "all", "tuple"})


def _decorated_without_grad(function: cst.FunctionDef, imports: ImportMap) -> bool:
    return any(disables_grad(d.decorator, imports) for d in function.decorators)


def _written_out(literal: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    """The elements of a tuple or list literal without starred elements; None otherwise."""
    if not isinstance(literal, (cst.Tuple, cst.List)) or any(isinstance(e, cst.StarredElement) for e in literal.elements):
        return None
    return [element.value for element in literal.elements]


def _is_read(subscript: cst.Subscript, uses) -> bool:
    """`costs[i]` read, not written (`costs[i] = v`, `costs[i] += v`) nor deleted."""
    parent = uses.parent(subscript)
    if isinstance(parent, cst.AssignTarget) or isinstance(parent, cst.Del):
        return False
    return not (isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is subscript)


def _sequence_member(literal: cst.BaseExpression, position: int) -> Optional[cst.BaseExpression]:
    """Element `position` of a tuple or list literal without starred elements."""
    elements = _written_out(literal)
    if elements is None:
        return None
    return elements[position] if -len(elements) <= position < len(elements) else None


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


class GeneratorOutputs(GradEvidence):
    """Is an expression a GAN generator's output that still carries the generator's graph: `G(z)`
    followed through the same bindings as any history (helper and method returns, tuple members,
    attributes, loop variables, dict entries, lists, lambdas) and through the torch operations and
    history-keeping methods applied to it. Other sources of history (losses, other networks,
    parameters, tensors made with `requires_grad=True`) do not count."""

    RETURNS_KEY = " returns a generator's output"

    def __init__(self, imports: ImportMap, scopes: ScopeTable, tensors: TensorEvidence, history: HistoryEvidence, roles: Roles) -> None:
        super().__init__(imports, scopes, tensors, history)
        self.roles = roles

    def _is_source(self, call: cst.Call) -> bool:
        return self.roles.gan_output(call) is Role.GENERATOR

    def _is_parameter_attribute(self, node: cst.Attribute) -> bool:
        return False

    def _loops_over_parameters(self, sources) -> bool:
        return False

    def _torch_source(self, qualified: str, call: cst.Call) -> Optional[bool]:
        if not qualified.startswith("torch.") or qualified in ENDS_HISTORY_FUNCTIONS or qualified in REQUIRES_GRAD_FACTORIES:
            return False
        short = qualified.rsplit(".", 1)[-1]
        return False if short.endswith("loss") or short in _FUNCTIONAL_LOSSES or short[:1].isupper() else None
