"""Is a value a new object, and can code tell it from another object sharing its storage?

`Variable(x)` is a new object; dropping it makes the result `x` itself. `is_fresh` tells when an
expression's value is a new object that nothing else references (also the result of a plain
function of the file every `return` of which builds one), and `identity_observed` when code
could tell two objects apart (flags, hooks, attribute writes, `is`, `id()`); `escapes` when a name
is stored where other code can reach it. Source order within a function answers three more
questions: whether a read is the last use of a new local (nothing can reach the object
afterwards), whether a name is read only by value with autograd off, and whether a loop's buffer
is resized only before its alias is bound; `rebinds_sole_attribute`, whether `self.a` alone holds
its object where it is rewrapped; `handed_over_exactly`, whether a call may give its argument's
object itself; and `hands_back_parameter`, whether a function returning its parameter may return
the object each of its (all known) callers handed over. Whether a value has autograd history is
asked of the history proof (`history.HistoryEvidence`).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.grad_mode import disables_grad
from gradlint.analysis.history import (
    FACTORY_METHODS,
    IDENTITY_METHODS,
    LEGACY_CONSTRUCTORS,
    SELF_RETURNING,
    VIEW_METHODS,
    HistoryEvidence,
    computes_torch_value,
    returns_receiver,
    returns_view,
    sizes_only,
)
from gradlint.analysis.legacy import GRAD_FACTORIES, OTHER_FRESH
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.semantic.scope import ScopeUses, is_binding_position, is_write_target
from gradlint.analysis.scopes import Scope, self_name
from gradlint.analysis.tensors import NON_TENSOR_ROOTS, root_name

# Arguments of a legacy constructor that make it build a new tensor: sizes and lists.
_LITERAL_ARGUMENTS = (cst.Integer, cst.Float, cst.List, cst.Tuple, cst.UnaryOperation)
_IDENTITY_FUNCTIONS = frozenset({"id", "hash", "setattr", "delattr"})
# Attributes that read metadata only (flags included).
_METADATA_ATTRIBUTES = torch_api.attributes("metadata") | torch_api.attributes("autograd")
# Attributes that read metadata a detached copy shares.
_VALUE_METADATA = torch_api.attributes("metadata")
# Methods that are not value reads: the result keeps a reference to the tensor object
# (`t.numpy()`'s array holds it), or they act on its graph.
_NOT_VALUE_METHODS = torch_api.methods("holds")
# Torch functions copying their tensor arguments into a new tensor (`torch.cat`), never returning one.
_COPIES = torch_api.functions("copies")
# `in` tries identity before equality.
_BY_IDENTITY = (cst.Is, cst.IsNot, cst.In, cst.NotIn)
# Calls that read a frame's locals by name.
_FRAME_READERS = frozenset({"locals", "vars", "eval", "exec"})


class IdentityEvidence:
    def __init__(self, history: HistoryEvidence) -> None:
        self.history = history
        self.imports = history.imports
        self.scopes = history.scopes
        self.scope_uses = history.scope_uses
        self._in_proof: set[int] = set()  # functions whose parameters or results are being followed

    def legacy_data_receiver(self, node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """`h` for `h.data` passed to `Variable(...)`: `h` was a Variable, and `h.data` its tensor.
        `Variable` rejected a Variable in 0.3 and anything but a tensor in 2.13, so `h.data` is a
        plain tensor there; not `self.data`, `dataset.data`, `args.data` or a module path."""
        if type(node) is not cst.Attribute or node.attr.value != "data" or self.imports.qualified_name(node) is not None:
            return None
        receiver = node.value
        root = root_name(receiver)
        if root in NON_TENSOR_ROOTS and (type(receiver) is not cst.Attribute or root not in ("self", "cls")):
            return None
        return receiver

    def is_fresh(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """`node` builds a new object that nothing else references: a factory, a constructor,
        `torch.from_numpy`, `x.detach()`, `x.data`, a view or slice, arithmetic, a value computed with
        autograd off; or a conversion of one of those (a conversion may return its receiver,
        which is then the new object)."""
        while type(node) is cst.Call and type(node.func) is cst.Attribute and returns_receiver(node.func.attr.value):
            node = node.func.value
        if type(node) is cst.Attribute:
            return self.history.is_tensor_data(node, scope)
        if type(node) is cst.Call:
            qualified = self.imports.qualified_name(node.func)
            if qualified is not None and self.history.computed_without_grad(node, scope):
                return True  # not a module or method of the program, which may return what it holds
            if qualified is not None:
                if qualified in LEGACY_CONSTRUCTORS:
                    # `torch.Tensor(t)` of a tensor may share more than storage: only sizes (several,
                    # or a Python int) and lists.
                    options = self.history.options
                    return sizes_only(node) or all(
                        type(arg.value) in _LITERAL_ARGUMENTS or options.is_int(arg.value, scope) for arg in node.args
                    )
                return qualified in GRAD_FACTORIES or qualified in OTHER_FRESH or qualified in _COPIES
            if type(node.func) is cst.Attribute:
                method = node.func.attr.value
                return method == "detach" or method in VIEW_METHODS or method in FACTORY_METHODS
            function = self._plain_function(node, scope)
            return function is not None and self._returns_fresh(function)
        return self._fresh_expression(node)

    def _fresh_expression(self, node: cst.BaseExpression) -> bool:
        if type(node) is cst.Subscript:
            # A slice of a tensor is a new view (a slice of a list, a new list that `Variable`
            # rejects); an item `batch[0]` may be an object the container holds.
            return any(type(element.slice) is cst.Slice for element in node.slice)
        return type(node) in (cst.BinaryOperation, cst.UnaryOperation)

    def _plain_function(self, call: cst.Call, scope: Scope) -> Optional[cst.FunctionDef]:
        """The module-level function of this file `call` runs by its name, when no decorator
        (but `@torch.no_grad()`) stands between the call and its body."""
        if type(call.func) is not cst.Name:
            return None
        function = self.history.calls.function_called(call, scope)
        if function is None or self.history.functions.module_level.get(call.func.value) is not function:
            return None
        if any(not disables_grad(d.decorator, self.imports) for d in function.decorators):
            return None  # a decorator may cache results or keep its arguments
        return function

    def _returns_fresh(self, function: cst.FunctionDef) -> bool:
        """Every `return` of `function` hands back an object it builds there
        (`return torch.cat(...)`): nothing else references it once the call returns."""
        if id(function) in self._in_proof:
            return False
        uses = self._uses_of(function)
        if uses.yields or function.asynchronous is not None or not uses.returns:
            return False
        self._in_proof.add(id(function))
        try:
            return all(value is not None and self.is_fresh(value, function) for value in uses.returns)
        finally:
            self._in_proof.discard(id(function))

    def object_names(self, node: cst.BaseExpression) -> list[str]:
        """The names whose object `node` may be, or hold: `x` for `x`, `x.cuda()`, `x.float()`,
        `batch[0]` (an item of a list)."""
        while True:
            if type(node) is cst.Call and type(node.func) is cst.Attribute and returns_receiver(node.func.attr.value):
                node = node.func.value
            elif type(node) is cst.Subscript:
                node = node.value
            else:
                break
        return [node.value] if type(node) is cst.Name else []

    def aliases(self, names: set[str], scope: Scope) -> set[str]:
        """`names` and every name of `scope` bound to one of their objects (`y = x`, `y = x.cuda()`)."""
        bindings = self.scopes.of(scope)
        found = set(names)
        changed = True
        while changed:
            changed = False
            for name, values in bindings.values.items():
                if name not in found and any(set(self.object_names(value)) & found for value in values):
                    found.add(name)
                    changed = True
        return found

    def identity_observed(self, names: set[str], scope: Scope) -> bool:
        """Somewhere in `scope` (nested functions included), code that tells the object of one
        of `names` from another sharing its storage: a flag or hook, a metadata change, an
        attribute write, `is`, `id()`."""
        uses = self._uses_of(scope)
        return any(_observes_identity(uses, chain_end(uses, occurrence)) for name in names for occurrence in uses.occurrences(name))

    def escapes(self, names: set[str], scope: Scope) -> bool:
        """One of `names` is stored where other code can reach it: an attribute, an entry, a
        container, a `return` or `yield`."""
        uses = self._uses_of(scope)
        return any(_escapes(uses, chain_end(uses, occurrence)) for name in names for occurrence in uses.occurrences(name))

    def result_observed(self, node: cst.CSTNode, scope: Scope) -> bool:
        """The value of the expression `node` has its identity observed right where it is made
        (`Variable(x).requires_grad_()`)."""
        uses = self._uses_of(scope)
        return _observes_identity(uses, chain_end(uses, node))

    def names_bound_to_result(self, node: cst.CSTNode, scope: Scope) -> set[str]:
        """The names the value of `node` may end up bound to through conversions that can return
        it (`x = Variable(t).cuda()` binds it to `x`)."""
        uses = self._uses_of(scope)
        end = chain_end(uses, node)
        parent = uses.parent(end)
        if end is node or type(parent) is not cst.Assign or parent.value is not end:
            return set()
        return {target.target.value for target in parent.targets if type(target.target) is cst.Name}

    def result_escapes(self, node: cst.CSTNode, scope: Scope) -> bool:
        """The value of the expression `node` is stored or returned right where it is made."""
        uses = self._uses_of(scope)
        return _escapes(uses, chain_end(uses, node))

    def is_last_use_of_fresh_local(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """`node` reads a local for the last time, and its object is new, without history and
        reachable only through that name: the binding that reaches `node` is `name = <fresh>`,
        the code between only fills the object in place or reads its values, and nothing reads
        the name afterwards (in a loop, nothing else in the loop reads it). Once `node` hands the
        object over, no other code can reach it, so it may be handed over itself instead of a
        copy (`return Variable(t)` as `return t`)."""
        if type(node) is not cst.Name or type(scope) is not cst.FunctionDef:
            return False
        uses = self._uses_of(scope)
        name = node.value
        if name in uses.hidden_bindings or _reads_frame(uses):
            return False
        assign = uses.reaching_assignment(node)
        if assign is None:
            return False
        history = self.history
        if not (self.is_fresh(assign.value, scope) and history.is_history_free(assign.value, scope)):
            return False
        target = assign.targets[0].target
        loops = uses.enclosing_loops(node)
        for occurrence in uses.occurrences(name):
            if occurrence is node or occurrence is target:
                continue
            if uses.in_nested_function(occurrence) or uses.comes_after(occurrence, node):
                return False  # a closure may read it later; a later read sees the handed-over object
            if uses.comes_after(occurrence, assign):
                if not self._consumes_values(uses, occurrence, history_free=True, scope=scope) or history.may_give_history(
                    occurrence, scope
                ):
                    return False
            elif any(uses.contains(loop, occurrence) for loop in loops):
                return False  # the next iteration would read the handed-over object
        return True

    def handed_over_exactly(self, call: cst.CSTNode, data: cst.BaseExpression, targets: Optional[set[str]], scope: Scope) -> bool:
        """`call` (`Variable(data)`, or a call of a function handing back its parameter's object)
        may give `data`'s object itself instead of a new one sharing its storage: nothing in
        `scope` tells the two apart (flags, hooks, `is`... on the names that may hold either, or
        on the result where it is made), and where `data`'s object stays reachable afterwards (by
        a name that the result does not rebind, or held by whatever it was read from), neither
        is stored away where other code could set a flag. `targets`: the names the result is
        bound to (None: the names the statement around it binds to it)."""
        if targets is None:
            targets = self._names_assigned(call, scope) or self.names_bound_to_result(call, scope) or None
        sources = set(self.object_names(data))
        names = self.aliases(sources | (targets or set()), scope)
        if self.identity_observed(names, scope) or (targets is None and self.result_observed(call, scope)):
            return False
        source_live = not sources or not sources <= (targets or set())
        escapes = self.escapes(names, scope) or (targets is None and self.result_escapes(call, scope))
        return not (source_live and escapes)

    def _names_assigned(self, node: cst.CSTNode, scope: Scope) -> set[str]:
        """The names `node` is the whole value of: `y = node`, or its element of `a, y = b, node`."""
        uses = self._uses_of(scope)
        parent = uses.parent(node)
        if type(parent) is cst.Assign and parent.value is node:
            return {target.target.value for target in parent.targets if type(target.target) is cst.Name}
        display = uses.parent(parent) if type(parent) is cst.Element else None
        assign = uses.parent(display) if type(display) is cst.Tuple else None
        if type(assign) is not cst.Assign or assign.value is not display or len(assign.targets) != 1:
            return set()
        target = assign.targets[0].target
        if type(target) is not cst.Tuple or len(target.elements) != len(display.elements):
            return set()
        position = next(index for index, element in enumerate(display.elements) if element is parent)
        element = target.elements[position].value
        return {element.value} if type(element) is cst.Name else set()

    def hands_back_parameter(self, call: cst.CSTNode, data: cst.BaseExpression, scope: Scope) -> bool:
        """`return Variable(x)` may return `x`'s object itself: `x` is a parameter of `scope`,
        bound there otherwise only to conversions of itself (`x = x.cuda()`), neither stored nor
        told apart from another object there, and every call of `scope` is known (see
        `LocalCalls`) and passes an object for `x` explicitly that it may get back itself
        (`handed_over_exactly` at the call, or a new local at its last use): the callers see the
        object they handed over where they saw a new one, and nothing of theirs tells."""
        uses = self._uses_of(scope) if type(scope) is cst.FunctionDef else None
        if uses is None or type(data) is not cst.Name or id(scope) in self._in_proof:
            return False
        end = chain_end(uses, call)
        statement = uses.parent(end)
        parameter = data.value
        if type(statement) is not cst.Return or statement.value is not end or parameter not in uses.parameters:
            return False
        if parameter in uses.hidden_bindings or parameter in uses.loop_targets or _reads_frame(uses):
            return False
        bindings = self.scopes.of(scope)
        if bindings.unpacked.get(parameter) or any(self.object_names(value) != [parameter] for value in bindings.assigned(parameter)):
            return False
        names = self.aliases({parameter}, scope)
        if self.identity_observed(names, scope) or self.escapes(names, scope):
            return False
        calls = self.history.known_calls(scope)
        if not calls:
            return False
        signature = Signature.of(scope)
        method = self.history.functions.class_of(scope) is not None
        if parameter not in signature.slots or (method and parameter == signature.slots[0]):
            return False
        self._in_proof.add(id(scope))
        try:
            for caller, caller_scope in calls:
                bound = bind(caller, signature, receiver=caller.func.value if method else None)
                argument = bound.argument(parameter)
                if bound.starred or argument is None:
                    return False  # a default is one object for every call
                value = argument.value
                if not (self.is_last_use_of_fresh_local(value, caller_scope) or self.is_fresh(value, caller_scope)):
                    if not self.handed_over_exactly(caller, value, None, caller_scope):
                        return False
            return True
        finally:
            self._in_proof.discard(id(scope))

    def identity_settled_before_binding(self, call: cst.CSTNode, source: str, alias: str, scope: Scope) -> bool:
        """`alias = Variable(source)` in a loop over a preallocated buffer (`input.resize_as_(x).copy_(x)`
        then `inputv = Variable(input)`): every operation telling `source`'s object from another
        (a resize, a flag...) is a resize in the loop body before the first binding of `alias`
        there, chained with a value write (which bumps the version counter both share, so a graph
        holding either object fails alike); `alias` is bound first directly in the loop body and
        read only after that, inside the loop; no other name holds either object, nothing stores
        them away or tells `alias` from another object. The alias then never lives through a
        metadata change of the buffer, so whether it is the buffer itself cannot be told. In a
        script's top level, neither name may be read by one of the module's functions."""
        if type(scope) not in (cst.FunctionDef, cst.Module):
            return False
        uses = self._uses_of(scope)
        if type(scope) is cst.Module and any(uses.in_nested_function(o) for name in (source, alias) for o in uses.occurrences(name)):
            return False  # a script's buffer: a function of the module could resize it at any call
        loops = uses.enclosing_loops(call)
        if not loops or {source, alias} & uses.hidden_bindings or {source, alias} & uses.parameters or _reads_frame(uses):
            return False
        body = loops[0].body
        first = uses.first_binding_statement(alias, body)
        if first is None:
            return False
        for occurrence in uses.occurrences(alias):
            if uses.in_nested_function(occurrence) or not uses.contains(body, occurrence):
                return False
            if uses.contains(first, occurrence) and not is_write_target(uses, occurrence):
                return False  # read by the binding itself: the previous iteration's object
            if not uses.contains(first, occurrence) and not uses.comes_after(occurrence, first):
                return False  # read before the binding: the previous iteration's object
        for occurrence in uses.occurrences(source):
            end = chain_end(uses, occurrence)
            if uses.in_nested_function(occurrence) or not _observes_identity(uses, end):
                continue
            if not (uses.contains(body, occurrence) and uses.comes_after(first, occurrence) and _resize_then_written(uses, end)):
                return False
        names = {source, alias}
        if self.aliases({source}, scope) != {source} or self.escapes(names, scope):
            return False
        return not self.identity_observed({alias}, scope)

    def rebinds_sole_attribute(self, call: cst.Call, scope: Scope) -> bool:
        """`self.a = Variable(self.a)` in a method, `self.a` holding an object nothing else
        references: outside any loop, every earlier write of `self.a` in the method made a new
        object or converted `self.a` itself (`self.a = self.a.cuda()`), the first of them before any
        read, and nothing between the first write and this one can reach `self.a` otherwise (no
        method of `self` called, `self` not handed over, no nested function using it). Whether
        `self.a` then keeps its object or gets a new one sharing its storage cannot be told."""
        if type(scope) is not cst.FunctionDef or not call.args or type(call.args[0].value) is not cst.Attribute:
            return False
        uses = self._uses_of(scope)
        source = call.args[0].value
        receiver = self_name(scope)
        statement = uses.parent(call)
        if (
            receiver is None
            or not _is_attribute_of(source, receiver)
            or type(statement) is not cst.Assign
            or len(statement.targets) != 1
            or not _is_attribute_of(statement.targets[0].target, receiver, source.attr.value)
            or _reads_frame(uses)
            or uses.enclosing_loops(call)
        ):
            return False
        earlier = [o for o in uses.attribute_occurrences(receiver, source.attr.value) if uses.comes_after(statement, o)]
        if not earlier or not is_write_target(uses, earlier[0]) or any(uses.enclosing_loops(o) for o in earlier):
            return False
        for occurrence in earlier:
            if uses.in_nested_function(occurrence) or not self._rebinding_without_other_reference(uses, occurrence, receiver, scope):
                return False
        return not any(self._may_reach_attributes(uses, o, earlier[0], statement) for o in uses.occurrences(receiver))

    def _rebinding_without_other_reference(self, uses: ScopeUses, occurrence: cst.Attribute, receiver: str, scope: Scope) -> bool:
        """`self.a = <new object>`, `self.a = self.a.cuda()`, or the `self.a` read by the latter."""
        if not is_write_target(uses, occurrence):
            end = chain_end(uses, occurrence)
            assign = uses.parent(end)
            return (
                type(assign) is cst.Assign
                and assign.value is end
                and len(assign.targets) == 1
                and _is_attribute_of(assign.targets[0].target, receiver, occurrence.attr.value)
            )
        statement = uses.parent(uses.parent(occurrence))
        if type(statement) is not cst.Assign or len(statement.targets) != 1:
            return False
        value = statement.value
        while type(value) is cst.Call and type(value.func) is cst.Attribute and returns_receiver(value.func.attr.value):
            value = value.func.value
        return _is_attribute_of(value, receiver, occurrence.attr.value) or self.is_fresh(statement.value, scope)

    @staticmethod
    def _may_reach_attributes(uses: ScopeUses, occurrence: cst.Name, first: cst.CSTNode, statement: cst.CSTNode) -> bool:
        """`self` between `first` and `statement` handed over, or its method called."""
        if not (uses.comes_after(occurrence, first) and uses.comes_after(statement, occurrence)):
            return False
        if uses.in_nested_function(occurrence):
            return True
        parent = uses.parent(occurrence)
        if type(parent) is not cst.Attribute or parent.value is not occurrence:
            return True
        call = uses.parent(parent)
        return type(call) is cst.Call and call.func is parent

    def read_only_by_value_without_grad(self, assign: cst.Assign, scope: Scope) -> bool:
        """`name = value` runs with autograd off, and every later read of `name` takes only its
        values, in the same `with` block and with autograd still off: arithmetic, reductions,
        comparisons, `.item()`, `.tolist()`, indexing and conversions consumed the same way.
        Whether `name` holds `value` itself (which may be a parameter requiring grad) or a
        detached copy then cannot be told: what is computed from either has the same values and
        no grad. Not `.numpy()`, printing or formatting the tensor, returning or storing it, its
        flags, in-place changes: a tensor requiring grad shows there."""
        if type(scope) is not cst.FunctionDef or len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
            return False
        uses = self._uses_of(scope)
        target = assign.targets[0].target
        name = target.value
        block = uses.enclosing_with(assign)
        history = self.history
        if block is None or not history.runs_without_grad(assign, scope) or name in uses.hidden_bindings or _reads_frame(uses):
            return False
        loops = uses.enclosing_loops(assign)
        for occurrence in uses.occurrences(name):
            if occurrence is target:
                continue
            if not uses.comes_after(occurrence, assign):
                if any(uses.contains(loop, occurrence) for loop in loops):
                    return False  # the next iteration would read this binding here
                continue
            if (
                uses.in_nested_function(occurrence)
                or not uses.contains(block, occurrence)
                or not history.runs_without_grad(occurrence, scope)
            ):
                return False
            if not self._consumes_values(uses, occurrence, history_free=False):
                return False
        return True

    def _consumes_values(self, uses: ScopeUses, node: cst.CSTNode, history_free: bool, scope: Optional[Scope] = None) -> bool:
        """What consumes `node`'s object reads its values and keeps no reference to it:
        arithmetic, comparisons, a new value made by a method or a torch function, a number or
        a list. Views and conversions (which may be the object itself) are followed to their own
        consumer. When the object is `history_free` (its flags are those of a detached copy),
        also an element write (`t[i] = v`), an in-place fill, formatting and reading its flags,
        and, given the `scope` of `node`, being passed to a function of the file that reads it so."""
        while True:
            parent = uses.parent(node)
            kind = type(parent)
            if kind is cst.Subscript and parent.value is node:
                if is_write_target(uses, parent):
                    return history_free  # `t[i] = v`
                node = parent
                continue
            if kind is cst.Attribute and parent.value is node:
                call = uses.parent(parent)
                attribute = parent.attr.value
                if type(call) is not cst.Call or call.func is not parent:
                    readable = _METADATA_ATTRIBUTES if history_free else _VALUE_METADATA
                    return attribute in readable and not is_write_target(uses, parent)
                if attribute in IDENTITY_METHODS or attribute.startswith(("register_", "_")) or attribute in _NOT_VALUE_METHODS:
                    return False
                if attribute.endswith("_") and not history_free:
                    return False
                if returns_receiver(attribute) or returns_view(attribute):
                    node = call  # the object itself, or a view of it
                    continue
                return True  # a new value
            if kind is cst.Expr:
                return history_free  # an in-place call whose result is dropped
            if kind is cst.BinaryOperation:
                return history_free or not (type(parent.operator) is cst.Modulo and parent.right is node)  # not `"%f" % t`
            if kind is cst.UnaryOperation:
                return True
            if kind in (cst.Comparison, cst.ComparisonTarget):
                comparison = parent if kind is cst.Comparison else uses.parent(parent)
                return type(comparison) is cst.Comparison and not any(type(t.operator) in _BY_IDENTITY for t in comparison.comparisons)
            if kind is cst.Arg:
                call = uses.parent(parent)
                if type(call) is not cst.Call:
                    return False
                if parent.keyword is None and self._makes_new_value(call):
                    return True
                return history_free and scope is not None and self._parameter_read_by_value(call, parent, scope)
            return False

    def _parameter_read_by_value(self, call: cst.Call, argument: cst.Arg, scope: Scope) -> bool:
        """`f(x)`, `f` a plain function of this file whose parameter receiving `x` is only read
        by value there (`return x.mm(w) + b`): the call keeps no reference to the object."""
        function = self._plain_function(call, scope)
        if function is None or id(function) in self._in_proof:
            return False
        bound = bind(call, Signature.of(function))
        if bound.starred or not bound.fits:
            return False
        parameter = next((name for name, arg in bound.named.items() if arg is argument), None)
        uses = self._uses_of(function)
        if parameter is None or parameter in uses.hidden_bindings or _reads_frame(uses):
            return False
        if self.scopes.of(function).assigned(parameter) or parameter in uses.loop_targets:
            return False  # rebound: later reads may be of another object
        self._in_proof.add(id(function))
        try:
            return all(
                not uses.in_nested_function(occurrence) and self._consumes_values(uses, occurrence, history_free=True, scope=function)
                for occurrence in uses.occurrences(parameter)
            )
        finally:
            self._in_proof.discard(id(function))

    def _makes_new_value(self, call: cst.Call) -> bool:
        """A torch function computing a new value from its arguments (not a view, not one that
        may return an argument, not a module, parameter or optimizer)."""
        qualified = self.imports.qualified_name(call.func)
        if qualified is None or not computes_torch_value(qualified):
            return False
        if qualified == "torch.save":
            return False  # writes the tensor, flags included
        name = qualified.rsplit(".", 1)[-1]
        return not returns_view(name) and not name.endswith("_") and not name.startswith("_")

    def _uses_of(self, scope: Scope) -> ScopeUses:
        return self.scope_uses.of(scope)


def _is_attribute_of(node: cst.CSTNode, receiver: str, attribute: Optional[str] = None) -> bool:
    """`receiver.attribute` (any attribute when None)."""
    return (
        type(node) is cst.Attribute
        and type(node.value) is cst.Name
        and node.value.value == receiver
        and (attribute is None or node.attr.value == attribute)
    )


def _reads_frame(uses: ScopeUses) -> bool:
    """`locals()`, `vars()`, `eval`, `exec`: code that may read any local by its name."""
    return any(uses.occurrences(name) for name in _FRAME_READERS)


def chain_end(uses: ScopeUses, node: cst.CSTNode) -> cst.CSTNode:
    """The outermost expression that may still be `node`'s object: through conversions that can
    return their receiver (`x.cuda()`, `x.float()`), in-place methods (`x.add_(1)`) and
    indexing (`batch[0]` of a list)."""
    while True:
        parent = uses.parent(node)
        if type(parent) is cst.Subscript and parent.value is node:
            node = parent  # an item of a container may be the object itself
            continue
        if type(parent) is cst.Attribute and parent.value is node:
            call = uses.parent(parent)
            method = parent.attr.value
            if (
                type(call) is cst.Call
                and call.func is parent
                and (method in SELF_RETURNING or method.endswith("_") and method not in IDENTITY_METHODS)
            ):
                node = call
                continue
        return node


def _observes_identity(uses: ScopeUses, node: cst.CSTNode) -> bool:
    parent = uses.parent(node)
    kind = type(parent)
    if kind is cst.Attribute and parent.value is node:
        call = uses.parent(parent)
        if type(call) is cst.Call and call.func is parent:
            return parent.attr.value in IDENTITY_METHODS or parent.attr.value.startswith("register_")
        return is_write_target(uses, parent)
    if kind is cst.ComparisonTarget:
        return type(parent.operator) in (cst.Is, cst.IsNot) or _compared_by_is(uses, parent, node)
    if kind is cst.Comparison:
        return any(type(target.operator) in (cst.Is, cst.IsNot) for target in parent.comparisons[:1])
    if kind is cst.Arg:
        call = uses.parent(parent)
        return type(call) is cst.Call and type(call.func) is cst.Name and call.func.value in _IDENTITY_FUNCTIONS
    return False


def _resize_then_written(uses: ScopeUses, node: cst.CSTNode) -> bool:
    """`node.resize_(...).fill_(v)` / `node.resize_as_(x).copy_(x)`: a resize whose result gets a
    value write at once."""
    method = uses.parent(node)
    resize = uses.parent(method)
    if type(method) is not cst.Attribute or method.attr.value not in ("resize_", "resize_as_") or type(resize) is not cst.Call:
        return False
    write = uses.parent(resize)
    call = uses.parent(write)
    if type(write) is not cst.Attribute or write.value is not resize or type(call) is not cst.Call or call.func is not write:
        return False
    return write.attr.value.endswith("_") and not write.attr.value.startswith("_") and write.attr.value not in IDENTITY_METHODS


def _compared_by_is(uses: ScopeUses, target: cst.ComparisonTarget, node: cst.CSTNode) -> bool:
    """`a is b`: the right operand `b` is in the ComparisonTarget of `is` itself (handled above);
    a following `is` compares `b` too (`a is b is c`)."""
    comparison = uses.parent(target)
    if type(comparison) is not cst.Comparison:
        return False
    targets = list(comparison.comparisons)
    index = next((i for i, t in enumerate(targets) if t is target), None)
    return index is not None and index + 1 < len(targets) and type(targets[index + 1].operator) in (cst.Is, cst.IsNot)


def _escapes(uses: ScopeUses, node: cst.CSTNode) -> bool:
    parent = uses.parent(node)
    kind = type(parent)
    if kind in (cst.Return, cst.Yield):
        return True
    if kind in (cst.Element, cst.DictElement, cst.StarredElement):
        return not is_binding_position(uses, node)
    if kind is cst.Assign and parent.value is node:
        return any(type(target.target) is not cst.Name for target in parent.targets)
    if kind is cst.Arg:
        call = uses.parent(parent)
        return (
            type(call) is cst.Call
            and type(call.func) is cst.Attribute
            and call.func.attr.value in ("append", "extend", "insert", "add", "setdefault", "update", "register_buffer")
        )
    return False
