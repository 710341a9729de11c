"""Does an expression provably carry no autograd history?

History-free means: the value does not require grad and has no `grad_fn`, and nothing in the
function makes it so later. Unknown means "may carry history" (the opposite default of
`grad_tracking`, which asks whether a value evidently carries history): a rewrite that drops a
`.detach()` must be sure.

Evidence: literals, torch factories and constructors, `torch.from_numpy`, numpy, batches from
iterating a data loader, `.data` / `.detach()` / `.item()` of anything, values computed only
from those (torch functions, tensor methods, operators, indexing), and values computed with
autograd off (a call or operator under `torch.no_grad()`; not a bare name, view or conversion,
which may be a leaf requiring grad). A name is history-free when every binding of it in its
function is, and no in-place change or flag change in the function can give it history (writes
under no_grad or into an integer tensor cannot).

Known limit: a module or function of the program called under no_grad with history-free
arguments is taken to compute its result there, not to return a tensor it holds.

Identity: `Variable(x)` is a new object; dropping it makes the result `x` itself. `fresh` tells
when an expression's value is a new object that nothing else references, and `identity_observed`
when code could tell two objects apart (flags, hooks, attribute writes, `is`). Source order
within a function answers three more questions: whether a read is the last use of a new local
(nothing can reach the object afterwards), whether a name is read only by value with autograd
off, and whether a loop's buffer is resized only before its alias is bound.

A parameter of a module-level function is followed into the calls of this file when no other
file of the run imports the function (`used_elsewhere`; unknown in a partial run), and an
attribute of a local object into the methods of its class.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.functions import FunctionTable
from gradlint.analysis.grad_mode import disables_grad, grad_mode_of
from gradlint.analysis.grad_tracking import INDEX_RESULTS
from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.legacy import GRAD_FACTORIES, OTHER_FRESH, VARIABLE, variable_arguments
from gradlint.analysis.roles import is_batch_source_name, is_loader_name
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.semantic.nodes import NodeIndex
from gradlint.analysis.semantic.scope import ScopeUses, ScopeUsesTable, is_binding_position, is_write_target, target_paths
from gradlint.analysis.scopes import Bindings, Scope, ScopeTable, class_methods, self_name
from gradlint.analysis.syntax import DEFINITIONS, dotted_name, is_bool_literal
from gradlint.analysis.tensors import NON_TENSOR_ROOTS, TensorEvidence, root_name
from gradlint.analysis.tree import descendants

# The pre-0.4 typed constructors (`torch.FloatTensor([1, 2])`, `torch.LongTensor(3)`...): a new
# plain tensor, never requiring grad.
LEGACY_CONSTRUCTORS = torch_api.functions("legacy")
INTEGER_CONSTRUCTORS = torch_api.functions("int")
# Whatever the receiver, the result has no history (a new object, a Python value, or an
# integer or bool tensor, which can never require grad); factories are asked separately.
_CUTS_HISTORY = torch_api.methods("ends", without=("factory",))
# Methods whose result is an integer or bool tensor: no write can give it history (an in-place
# write of a value with history is cast to its dtype, or raises).
_INTEGER_RESULTS = torch_api.methods("int")
# Metadata changes that leave the values without history (identity is another question).
_KEEPS_VALUE = torch_api.methods("clears")
# Torch functions that may return their argument itself (`F.dropout(x, training=False)` is `x`).
_MAY_RETURN_ARGUMENT = tuple(sorted(torch_api.functions("may-return-argument")))
# Methods whose result can be the receiver itself (`x.float()` on a float tensor is `x`).
SELF_RETURNING = torch_api.methods("self")
# Operations that tell a tensor object from another sharing its storage: flags, hooks, metadata
# of the object itself (sizes, strides, storage), its `.grad`.
IDENTITY_METHODS = torch_api.methods("identity")
_IDENTITY_FUNCTIONS = frozenset({"id", "hash", "setattr", "delattr"})
_NUMERIC_BUILTINS = frozenset({"float", "int", "bool", "len", "abs", "round", "range", "min", "max"})
# Torch namespaces whose calls build modules, parameters, optimizers...: not plain values.
_NOT_VALUE_NAMESPACES = (
    "torch.nn.",
    "torch.autograd.",
    "torch.optim.",
    "torch.utils.",
    "torch.jit.",
    "torch.func.",
    "torch.distributions.",
)
# Attributes that read metadata only (flags included).
_METADATA_ATTRIBUTES = torch_api.attributes("metadata") | torch_api.attributes("autograd")
# Attributes that read metadata a detached copy shares.
_VALUE_METADATA = torch_api.attributes("metadata")
# Methods that are not value reads: the result keeps a reference to the tensor object
# (`t.numpy()`'s array holds it), or they act on its graph.
_NOT_VALUE_METHODS = torch_api.methods("holds")
# `in` tries identity before equality.
_BY_IDENTITY = (cst.Is, cst.IsNot, cst.In, cst.NotIn)
# Calls that read a frame's locals by name.
_FRAME_READERS = frozenset({"locals", "vars", "eval", "exec"})
_DATA_LOADER = "torch.utils.data.DataLoader"
_PROGRESS_WRAPPERS = frozenset({"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm"})
_MAX_DEPTH = 24


class HistoryEvidence:
    def __init__(
        self,
        module: cst.Module,
        imports: ImportMap,
        scopes: ScopeTable,
        tensors: TensorEvidence,
        functions: FunctionTable,
        used_elsewhere: Optional[frozenset[str]] = None,
        nodes: Optional[NodeIndex] = None,
        scope_uses: Optional[ScopeUsesTable] = None,
    ) -> None:
        self.module = module
        self.nodes = nodes if nodes is not None else NodeIndex(module)
        self.imports = imports
        self.scopes = scopes
        self.tensors = tensors
        self.functions = functions
        # The names of this module other files of the run import; None when not known (a run
        # of part of the project): then no caller of this file's functions is known for sure.
        self.used_elsewhere = used_elsewhere
        self.scope_uses = scope_uses if scope_uses is not None else ScopeUsesTable(self.nodes)
        self._returning: set[int] = set()  # functions whose results are being proved
        self._attributes_in_proof: set[int] = set()
        self._parameters_in_proof: set[tuple[int, str]] = set()

    # -- history ----------------------------------------------------------------------------

    def is_history_free(self, node: cst.BaseExpression, scope: Scope) -> bool:
        return _Proof(self, scope).free(node, 0)

    def is_tensor_data(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """`x.data` of a tensor `x`: a new leaf without history, whatever `x` is. Not `self.data`,
        `dataset.data`, a module path, or the `.data` of an object not evidently a tensor (a
        `PackedSequence`'s `.data` keeps its history)."""
        if type(node) is not cst.Attribute or node.attr.value != "data" or self.imports.qualified_name(node) is not None:
            return False
        receiver = node.value
        if root_name(receiver) in ("self", "cls") and type(receiver) is not cst.Attribute:
            return False
        return self.tensors.is_tensor(receiver, scope)

    def global_is_history_free(self, name: str, scope: Scope, depth: int) -> bool:
        """A module-level name read in a function (not nested in another: a closure's variable
        would be the outer function's)."""
        if scope is self.module or self._enclosing_function(scope) is not None:
            return False
        module_uses = self._uses_of(self.module)
        if name in module_uses.unseen_bindings:
            return False  # a `global` statement, a def, an import somewhere in the file
        return _Proof(self, self.module).free(cst.Name(name), depth)

    def instance_attribute_is_history_free(self, node: cst.Attribute, scope: Scope, depth: int) -> bool:
        """`self.w` read in a method: every value the class's methods bind to it is history-free,
        and no method writes a value with history into it or sets its flag."""
        if id(node) in self._attributes_in_proof:
            return True
        values = self.scopes.instance_attribute_values(node, scope)
        if not values:
            return False
        owner = self.functions.class_of(scope) if isinstance(scope, cst.FunctionDef) else None
        if owner is None:
            return False
        self._attributes_in_proof.add(id(node))
        try:
            if not all(_Proof(self, method).free(value, depth) for value, method in values):
                return False
            return not any(self._attribute_gains_history(method, node.attr.value, depth) for method in class_methods(owner))
        finally:
            self._attributes_in_proof.discard(id(node))

    def object_attribute_is_history_free(self, node: cst.Attribute, scope: Scope, depth: int) -> bool:
        """`corpus.train` where `corpus = Corpus(...)`, a class of this file, is the name's only
        binding in the function and is read only through attributes there: every value the
        class's methods bind to `self.train` is history-free, and none writes one with history."""
        if type(node.value) is not cst.Name or type(scope) is not cst.FunctionDef:
            return False
        name = node.value.value
        uses = self._uses_of(scope)
        values = self.scopes.of(scope).assigned(name)
        if name in uses.unseen_bindings or name in uses.loop_targets or len(values) != 1:
            return False
        owner = _local_class(self.module, values[0])
        if owner is None or not all(_read_through_attribute(uses, occurrence) for occurrence in uses.occurrences(name)):
            return False
        if self._attribute_gains_history(scope, node.attr.value, depth, receiver=name):
            return False  # `corpus.train.copy_(h)` in the function itself
        return self._class_attribute_is_history_free(owner, node.attr.value, depth)

    def _class_attribute_is_history_free(self, owner: cst.ClassDef, attribute: str, depth: int) -> bool:
        found = []
        for method in class_methods(owner):
            receiver = self_name(method)
            if receiver is not None:
                found.extend((value, method) for value in self.scopes.of(method).attributes.get(f"{receiver}.{attribute}", ()))
        if not found:
            return False
        if not all(_Proof(self, method).free(value, depth) for value, method in found):
            return False
        return not any(self._attribute_gains_history(method, attribute, depth) for method in class_methods(owner))

    def arguments_are_history_free(self, function: cst.FunctionDef, parameter: str, depth: int) -> bool:
        """Every call of the module-level `function` passes a history-free value for `parameter`
        (or leaves its history-free default): the function is called only by name in this file,
        never handed over as a value, decorated (but for `@torch.no_grad()`) or redefined, and no
        other file of the run mentions it (unknown in a partial run)."""
        key = (id(function), parameter)
        if key in self._parameters_in_proof:
            return True  # recursion: the other calls decide
        name = function.name.value
        if self.used_elsewhere is None or name in self.used_elsewhere or "*" in self.used_elsewhere:
            return False
        # A decorator could call the function with anything, except `@torch.no_grad()`, which passes the arguments on.
        decorated = any(not disables_grad(d.decorator, self.imports) for d in function.decorators)
        if decorated or function.asynchronous is not None or self.functions.module_level.get(name) is not function:
            return False
        bound = [_names_bound_by(statement) for statement in self.module.body]
        if sum(1 for names in bound if name in names) != 1 or any("*" in names for names in bound):
            return False
        module_uses = self._uses_of(self.module)
        signature = Signature.of(function)
        default = signature.defaults.get(parameter)
        if parameter not in signature.slots and default is None:
            return False  # keyword-only without a default, or `*args`: never proved
        self._parameters_in_proof.add(key)
        try:
            calls = [self._call_of(module_uses, occurrence) for occurrence in module_uses.occurrences(name)]
            if not calls or any(call is None for call in calls):
                return False
            for call, scope in calls:
                bound = bind(call, signature)
                if bound.starred:
                    return False
                argument = bound.passed(parameter)
                if argument is None:
                    argument, scope = default, self.module  # evaluated where the function is defined
                if argument is None or not _Proof(self, scope).free(argument, depth + 1):
                    return False
            return True
        finally:
            self._parameters_in_proof.discard(key)

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

    def _attribute_gains_history(self, method: cst.FunctionDef, attribute: str, depth: int, receiver: Optional[str] = None) -> bool:
        receiver = receiver or self_name(method)
        if receiver is None:
            return False
        proof = _Proof(self, method)
        for occurrence in proof.uses.attribute_occurrences(receiver, attribute):
            parent = proof.uses.parent(occurrence)
            if type(parent) is cst.AugAssign and parent.target is occurrence:
                if not proof.free(parent.value, depth + 1):
                    return True
            elif proof.write_with_history(occurrence, depth):
                return True
        return False

    def function_called(self, call: cst.Call, scope: Scope) -> Optional[cst.FunctionDef]:
        """The `def` of this file that `call` runs: a function, `self.method`, or the method of an
        object built from a class of this file (`digits = Digits(); digits.batch()`)."""
        function = self.functions.resolve(call, scope if isinstance(scope, cst.FunctionDef) else None)
        if function is not None or type(call.func) is not cst.Attribute or type(call.func.value) is not cst.Name:
            return function
        values = self.scopes.of(scope).assigned(call.func.value.value)
        classes = {_local_class(self.module, value) for value in values}
        if len(classes) != 1 or None in classes:
            return None
        owner = classes.pop()
        methods = [m for m in self.functions.methods.get(call.func.attr.value, []) if self.functions.class_of(m) is owner]
        return methods[0] if len(methods) == 1 else None

    def returns_history_free(self, function: cst.FunctionDef, depth: int) -> bool:
        """Every value `function` returns is history-free (a generator's are not known)."""
        if id(function) in self._returning:
            return True  # recursion: the other returns decide
        uses = self._uses_of(function)
        if uses.yields or function.asynchronous is not None:
            return False
        self._returning.add(id(function))
        try:
            proof = _Proof(self, function)
            return all(value is None or proof.free(value, depth) for value in uses.returns)
        finally:
            self._returning.discard(id(function))

    def _enclosing_function(self, function: cst.CSTNode) -> Optional[cst.CSTNode]:
        parent = self._uses_of(self.module).parent(function)
        while parent is not None and type(parent) is not cst.FunctionDef:
            parent = self._uses_of(self.module).parent(parent)
        return parent

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

    # -- identity ---------------------------------------------------------------------------

    def is_fresh(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """`node` builds a new object that nothing else references: a factory, a constructor,
        `torch.from_numpy`, `x.detach()`, `x.data`, a view or slice, arithmetic, a value computed with
        autograd off; or a conversion of one of those (a conversion may return its receiver,
        which is then the new object)."""
        while type(node) is cst.Call and type(node.func) is cst.Attribute and returns_receiver(node.func.attr.value):
            node = node.func.value
        if type(node) is cst.Attribute:
            return self.is_tensor_data(node, scope)
        if type(node) is cst.Call:
            qualified = self.imports.qualified_name(node.func)
            if qualified is not None and _Proof(self, scope).computed_without_grad(node, 0):
                return True  # not a module or method of the program, which may return what it holds
            if qualified is not None:
                if qualified in LEGACY_CONSTRUCTORS:
                    # `torch.Tensor(t)` of a tensor may share more than storage: only sizes and lists.
                    return all(type(arg.value) in _LITERAL_ARGUMENTS for arg in node.args)
                return qualified in GRAD_FACTORIES or qualified in OTHER_FRESH
            if type(node.func) is cst.Attribute:
                method = node.func.attr.value
                return method == "detach" or method in _VIEWS or method in FACTORY_METHODS
            return False
        if type(node) is cst.Subscript:
            # A slice of a tensor is a new view (a slice of a list, a new list that `Variable`
            # rejects); an item `batch[0]` may be an object the container holds.
            return any(type(element.slice) is cst.Slice for element in node.slice)
        return type(node) in (cst.BinaryOperation, cst.UnaryOperation)

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

    # -- last uses ----------------------------------------------------------------------------

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
        proof = _Proof(self, scope)
        if not (self.is_fresh(assign.value, scope) and proof.free(assign.value, 0)):
            return False
        target = assign.targets[0].target
        loops = uses.enclosing_loops(node)
        for occurrence in uses.occurrences(name):
            if occurrence is node or occurrence is target:
                continue
            if uses.in_nested_function(occurrence) or uses.comes_after(occurrence, node):
                return False  # a closure may read it later; a later read sees the handed-over object
            if uses.comes_after(occurrence, assign):
                if not self._consumes_values(uses, occurrence, history_free=True) or proof.write_with_history(occurrence, 0):
                    return False
            elif any(uses.contains(loop, occurrence) for loop in loops):
                return False  # the next iteration would read the handed-over object
        return True

    def identity_settled_before_binding(self, call: cst.CSTNode, source: str, alias: str, scope: Scope) -> bool:
        """`alias = Variable(source)` in a loop over a preallocated buffer (`input.resize_as_(x).copy_(x)`
        then `inputv = Variable(input)`): every operation telling `source`'s object from another
        (a resize, a flag...) is a resize in the loop body before the first binding of `alias`
        there, chained with a value write (which bumps the version counter both share, so a graph
        holding either object fails alike); `alias` is bound first directly in the loop body and
        read only after that, inside the loop; no other name holds either object, nothing stores
        them away or tells `alias` from another object. The alias then never lives through a
        metadata change of the buffer, so whether it is the buffer itself cannot be told."""
        if type(scope) is not cst.FunctionDef:
            return False
        uses = self._uses_of(scope)
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
        proof = _Proof(self, scope)
        if block is None or not proof.grad_off(assign) or name in uses.hidden_bindings or _reads_frame(uses):
            return False
        loops = uses.enclosing_loops(assign)
        for occurrence in uses.occurrences(name):
            if occurrence is target:
                continue
            if not uses.comes_after(occurrence, assign):
                if any(uses.contains(loop, occurrence) for loop in loops):
                    return False  # the next iteration would read this binding here
                continue
            if uses.in_nested_function(occurrence) or not uses.contains(block, occurrence) or not proof.grad_off(occurrence):
                return False
            if not self._consumes_values(uses, occurrence, history_free=False):
                return False
        return True

    def _consumes_values(self, uses: ScopeUses, node: cst.CSTNode, history_free: bool) -> bool:
        """What consumes `node`'s object reads its values and keeps no reference to it:
        arithmetic, comparisons, a new value made by a method or a torch function, a number or
        a list. Views and conversions (which may be the object itself) are followed to their own
        consumer. When the object is `history_free` (its flags are those of a detached copy),
        also an element write (`t[i] = v`), an in-place fill, formatting and reading its flags."""
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
                if returns_receiver(attribute) or attribute in _VIEWS or attribute in _MORE_VIEWS:
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
            if kind is cst.Arg and parent.keyword is None:
                call = uses.parent(parent)
                return type(call) is cst.Call and self._makes_new_value(call)
            return False

    def _makes_new_value(self, call: cst.Call) -> bool:
        """A torch function computing a new value from its arguments (not a view, not one that
        may return an argument, not a module, parameter or optimizer)."""
        qualified = self.imports.qualified_name(call.func)
        if qualified is None or not qualified.startswith("torch.") or qualified.startswith(_MAY_RETURN_ARGUMENT):
            return False
        if qualified == "torch.save":
            return False  # writes the tensor, flags included
        if qualified.startswith(_NOT_VALUE_NAMESPACES) and not qualified.startswith("torch.nn.functional."):
            return False
        name = qualified.rsplit(".", 1)[-1]
        return name not in _VIEWS and name not in _MORE_VIEWS and not name.endswith("_") and not name.startswith("_")

    def reaching_value(self, node: cst.Name, scope: Scope) -> Optional[cst.BaseExpression]:
        """The value of the `name = value` statement the read `node` (a name of `scope`) sees,
        walking back through the statements before it (None past a loop, a `try`, another kind
        of binding or the start of the function)."""
        assignment = self._uses_of(scope).reaching_assignment(node)
        return assignment.value if assignment is not None else None

    def _uses_of(self, scope: Scope) -> ScopeUses:
        return self.scope_uses.of(scope)


_LITERAL_ARGUMENTS = (cst.Integer, cst.Float, cst.List, cst.Tuple, cst.UnaryOperation)
# Tensor methods making a new tensor of the receiver's dtype and device, without its history.
FACTORY_METHODS = torch_api.methods("factory")
# Methods returning one view: a new object sharing storage (never the receiver itself).
_VIEWS = torch_api.methods("view", without=("tuple",))
# Methods returning several views, and torch functions returning views: under no_grad a view of a
# leaf that requires grad still requires grad.
_MORE_VIEWS = torch_api.methods("view", "tuple") | torch_api.short_names(torch_api.functions("view"))
# Attributes that are views of the tensor, or its metadata: as history-free as the tensor.
_FOLLOWS_VALUE = torch_api.attributes("view") | {"shape"}


class _Proof:
    """One history question; names under proof are assumed history-free (a greatest fixed point:
    `x = x.cuda()` in a loop is free when the loop's other bindings of x are)."""

    def __init__(self, evidence: HistoryEvidence, scope: Scope) -> None:
        self.evidence = evidence
        self.imports = evidence.imports
        self.scope = scope
        self.bindings: Bindings = evidence.scopes.of(scope)
        self.uses = evidence._uses_of(scope)
        self.assumed: set[str] = set()

    def free(self, node: cst.BaseExpression, depth: int) -> bool:
        if depth > _MAX_DEPTH:
            return False
        kind = type(node)
        if kind in (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString):
            return True
        if kind is cst.Name:
            if node.value in ("True", "False", "None"):
                return True
            loop = self._binding_loop(node)
            if loop is not None:
                iterable, path = loop
                return self._iterates_history_free(iterable, depth, path) and not self._gains_history(node.value, depth)
            return self._name(node.value, depth)
        if kind is cst.Attribute:
            if node.attr.value == "data":
                return self.evidence.is_tensor_data(node, self.scope)
            qualified = self.imports.qualified_name(node)
            if qualified is not None:
                return qualified.startswith(("numpy.", "math.", "torch."))  # dtypes, constants
            if node.attr.value in _FOLLOWS_VALUE:
                return self.free(node.value, depth + 1)
            return self.evidence.instance_attribute_is_history_free(
                node, self.scope, depth + 1
            ) or self.evidence.object_attribute_is_history_free(node, self.scope, depth + 1)
        if kind is cst.Call:
            return self._call(node, depth) or self.computed_without_grad(node, depth)
        if kind is cst.Subscript:
            # Indices never carry history into the result; only the indexed value can.
            return self._indices_of_pair(node) or self.free(node.value, depth + 1)
        if kind is cst.BinaryOperation:
            return self.grad_off(node) or self.free(node.left, depth + 1) and self.free(node.right, depth + 1)
        if kind is cst.UnaryOperation:
            return self.grad_off(node) or self.free(node.expression, depth + 1)
        if kind is cst.Comparison:
            return True
        if kind is cst.BooleanOperation:
            return self.free(node.left, depth + 1) and self.free(node.right, depth + 1)
        if kind is cst.IfExp:
            return self.free(node.body, depth + 1) and self.free(node.orelse, depth + 1)
        if kind in (cst.List, cst.Tuple):
            return all(type(e) is cst.Element and self.free(e.value, depth + 1) for e in node.elements)
        return False

    def grad_off(self, node: cst.CSTNode) -> bool:
        """`node` runs with autograd off: inside `with torch.no_grad():` (not undone by a nested
        `torch.enable_grad()`) or in a function decorated `@torch.no_grad()`."""
        withs: list[cst.With] = []
        parent = self.uses.parent(node)
        function: Optional[cst.CSTNode] = self.scope if isinstance(self.scope, cst.FunctionDef) else None
        while parent is not None:
            if type(parent) in (cst.FunctionDef, cst.Lambda):
                function = parent
                break
            if type(parent) is cst.With and parent.body is node:
                withs.insert(0, parent)
            node, parent = parent, self.uses.parent(parent)
        mode = grad_mode_of(withs, self.imports)
        if mode is not None:
            return not mode
        return type(function) is cst.FunctionDef and any(disables_grad(d.decorator, self.imports) for d in function.decorators)

    def computed_without_grad(self, call: cst.Call, depth: int) -> bool:
        """A call computing a new value with autograd off: its result neither requires grad nor
        has a `grad_fn`. Not a conversion or in-place method that may return its receiver, a view
        (a view of a leaf requiring grad requires grad), or a function that may return its argument."""
        if not self.grad_off(call) or any(arg.star for arg in call.args):
            return False
        qualified = self.imports.qualified_name(call.func)
        if qualified is not None:
            name = qualified.rsplit(".", 1)[-1]
            if qualified.startswith(_MAY_RETURN_ARGUMENT) or not qualified.startswith("torch."):
                return False
            if qualified.startswith(_NOT_VALUE_NAMESPACES) and not qualified.startswith("torch.nn.functional."):
                return False
        elif type(call.func) is cst.Attribute:
            name = call.func.attr.value
            if returns_receiver(name) or name in IDENTITY_METHODS or name.startswith("register_"):
                return False
            if not self._arguments(call, depth):
                return False  # `self.identity(w)` may return its argument
        elif type(call.func) is cst.Name:
            # A module or function of the program: it computes its result from history-free inputs.
            return self._arguments(call, depth)
        else:
            return False
        return name not in _VIEWS and name not in _MORE_VIEWS and not _requests_grad(call)

    def _indices_of_pair(self, node: cst.Subscript) -> bool:
        """`torch.max(out, 1)[1]`, `out.max(1)[1]`, `x.topk(k)[1]`: integer indices, which never
        require grad (not `torch.max(a, b)[1]`, a row of the element-wise maximum)."""
        call = node.value
        if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index or type(call) is not cst.Call:
            return False
        index = node.slice[0].slice.value
        if type(index) is not cst.Integer or index.value != "1":
            return False
        qualified = self.imports.qualified_name(call.func)
        if qualified is not None:
            method, arguments = qualified.removeprefix("torch."), call.args[1:]
            if method == qualified:
                return False
        elif type(call.func) is cst.Attribute:
            method, arguments = call.func.attr.value, call.args
        else:
            return False
        if method not in INDEX_RESULTS:  # `values, indices = x.max(1)`: [1] is an index tensor
            return False
        if method in ("max", "min"):  # a pair only with a dimension
            return any(
                (arg.keyword is None and type(arg.value) in (cst.Integer, cst.UnaryOperation))
                or (arg.keyword is not None and arg.keyword.value == "dim")
                for arg in arguments[:1]
            )
        return True

    def _call(self, call: cst.Call, depth: int) -> bool:
        if any(arg.star for arg in call.args):
            return False
        qualified = self.imports.qualified_name(call.func)
        if qualified is not None:
            return self._function(qualified, call, depth)
        callee = func_name(call)
        if callee is not None and is_batch_source_name(callee) and not (type(call.func) is cst.Name and self._bound_here(callee)):
            return True  # a batch, like a loader's (see `_iterates_history_free`)
        function = self.evidence.function_called(call, self.scope)
        if function is not None:
            return self.evidence.returns_history_free(function, depth + 1)
        func = call.func
        if type(func) is cst.Attribute:
            method = func.attr.value
            if method in _CUTS_HISTORY:
                return True
            if method in FACTORY_METHODS:
                return not _requests_grad(call)
            if method == "requires_grad_" or method in IDENTITY_METHODS or method.startswith("register_"):
                return False
            if _requests_grad(call):
                return False
            if method in SELF_RETURNING or method in _VIEWS:
                # Devices, dtypes, sizes or a tensor giving its dtype/shape: no history comes in.
                return self.free(func.value, depth + 1)
            return self.free(func.value, depth + 1) and self._arguments(call, depth)
        if type(func) is cst.Name and func.value in _NUMERIC_BUILTINS and func.value not in self.imports.bindings:
            return not self._bound_here(func.value) and self._arguments(call, depth)
        if type(func) is cst.Name and func.value in ("next", "iter") and len(call.args) == 1 and not self._bound_here(func.value):
            return self._iterates_history_free(call.args[0].value, depth)
        return False

    def _function(self, qualified: str, call: cst.Call, depth: int) -> bool:
        if qualified == VARIABLE:
            arguments = variable_arguments(call)
            return arguments is not None and (arguments.requires_grad is None or is_bool_literal(arguments.requires_grad, False))
        if qualified in OTHER_FRESH:
            return True
        if qualified in GRAD_FACTORIES:
            # New values whatever the arguments (`randn_like(h)`, `tensor(h)` copies).
            return not _requests_grad(call)
        if qualified in INTEGER_CONSTRUCTORS:
            return True  # an integer tensor never carries history
        if qualified in LEGACY_CONSTRUCTORS:
            # Sizes or lists; `torch.Tensor(t)` of a tensor with history is an alias keeping it,
            # while a list is copied (`torch.Tensor([loss])` has no history).
            return all(type(arg.value) is cst.List for arg in call.args) or self._arguments(call, depth)
        if qualified.startswith("numpy."):
            return True
        if not qualified.startswith("torch.") or (
            qualified.startswith(_NOT_VALUE_NAMESPACES) and not qualified.startswith("torch.nn.functional.")
        ):
            return False
        if _requests_grad(call):
            return False
        return self._arguments(call, depth)

    def _arguments(self, call: cst.Call, depth: int) -> bool:
        return all(self.free(arg.value, depth + 1) for arg in call.args)

    # -- names ------------------------------------------------------------------------------

    def _name(self, name: str, depth: int) -> bool:
        if name in self.assumed:
            return True
        if self.imports.is_imported(name) or name in self.uses.hidden_bindings:
            return False  # a `with` target, a def, a `global`...: unknown
        bindings = self.bindings
        values = bindings.assigned(name)
        loops = self.uses.loop_targets.get(name, [])
        unpacked = bindings.unpacked.get(name, [])
        if name in self.uses.parameters:
            if type(self.scope) is not cst.FunctionDef or not self.evidence.arguments_are_history_free(self.scope, name, depth + 1):
                return False  # unknown callers
        elif not (values or loops or unpacked):
            return self.evidence.global_is_history_free(name, self.scope, depth + 1)
        self.assumed.add(name)
        return (
            all(self.free(value, depth + 1) for value in values)
            and all(self._iterates_history_free(iterable, depth, path) for iterable, path in loops)
            and all(self._unpacks_history_free(value, depth) for value, _ in unpacked)
            and not self._gains_history(name, depth)
        )

    def _binding_loop(self, node: cst.Name) -> Optional[tuple[cst.BaseExpression, tuple[int, ...]]]:
        """The loop whose target gives `node` (a read in the loop's body) its value: the
        innermost `for` binding the name, when nothing else in its body binds it. Other bindings
        of the name in the function (another loop, a later reuse) do not reach this read."""
        name = node.value
        if name in self.assumed or name in self.uses.unseen_bindings:
            return None
        child, parent = node, self.uses.parent(node)
        while parent is not None and type(parent) not in DEFINITIONS:
            if type(parent) is cst.For and parent.body is child:
                paths = [path for target, path in target_paths(parent.target, ()) if target == name]
                if not paths:
                    child, parent = parent, self.uses.parent(parent)
                    continue
                if len(paths) == 1 and not self._rebound_in(name, parent.body):
                    return parent.iter, paths[0]
                return None
            child, parent = parent, self.uses.parent(parent)
        return None

    def _rebound_in(self, name: str, body: cst.CSTNode) -> bool:
        for occurrence in self.uses.occurrences(name):
            ancestor = self.uses.parent(occurrence)
            while ancestor is not None and ancestor is not body:
                ancestor = self.uses.parent(ancestor)
            if ancestor is body and (is_binding_position(self.uses, occurrence) or is_write_target(self.uses, occurrence)):
                return True
        return False

    def _bound_here(self, name: str) -> bool:
        bindings = self.bindings
        return name in bindings.values or name in bindings.opaque or name in self.uses.unseen_bindings

    def _unpacks_history_free(self, value: cst.BaseExpression, depth: int) -> bool:
        """`a, b = value`: each element of a history-free value is history-free."""
        return self.free(value, depth + 1)

    def _iterates_history_free(self, iterable: cst.BaseExpression, depth: int, path: tuple[int, ...] = ()) -> bool:
        """The items of `iterable` (at `path` inside each item) carry no history."""
        if type(iterable) is cst.Call and not any(arg.star for arg in iterable.args):
            callee = iterable.func.value if type(iterable.func) is cst.Name else None
            qualified = self.imports.qualified_name(iterable.func)
            if callee == "enumerate" and not self._bound_here("enumerate") and iterable.args:
                # `for i, (x, y) in enumerate(loader)`: the index, then the loader's item.
                return not path or path[0] == 0 or self._iterates_history_free(iterable.args[0].value, depth, path[1:])
            if qualified in _PROGRESS_WRAPPERS or (callee == "iter" and not self._bound_here("iter")):
                return bool(iterable.args) and self._iterates_history_free(iterable.args[0].value, depth, path)
            if qualified == _DATA_LOADER:
                return True
            if callee == "range" and not self._bound_here("range"):
                return True
        if self._is_loader(iterable):
            return True
        # Rows of a history-free tensor or array.
        return self.free(iterable, depth + 1)

    def _is_loader(self, iterable: cst.BaseExpression) -> bool:
        """A data loader: named like one (`train_loader`, `self.loader`, `loaders["train"]`) or
        bound to `DataLoader(...)` in this function."""
        node = iterable.value if type(iterable) is cst.Subscript else iterable
        dotted = dotted_name(node)
        if dotted is None:
            return False
        if is_loader_name(dotted.rsplit(".", 1)[-1]):
            return True
        if type(node) is cst.Name:
            values = self.bindings.assigned(node.value)
            return bool(values) and all(type(v) is cst.Call and self.imports.qualified_name(v.func) == _DATA_LOADER for v in values)
        return False

    def _gains_history(self, name: str, depth: int) -> bool:
        """Could code in the function give `name`'s object history after it is bound: a flag set,
        or an in-place write of a value that may carry history (through the name or a view of it)?"""
        for occurrence in self.uses.occurrences(name):
            if self.write_with_history(occurrence, depth):
                return True
        for derived in self.uses.derived_names(name, self.bindings):
            if derived != name and any(self.write_with_history(o, depth) for o in self.uses.occurrences(derived)):
                return True
        return False

    def _value_write_keeps_free(self, write: cst.CSTNode, values: list[cst.BaseExpression], depth: int) -> bool:
        """An in-place write (`x[i] = v`, `x.copy_(v)`) leaves a history-free tensor so: with
        autograd off, into an integer tensor (the value is cast, or the write raises), or of
        history-free values."""
        if self.grad_off(write) or self._integer_tensor(write):
            return True
        return all(self.free(value, depth + 1) for value in values)

    def _integer_tensor(self, write: cst.CSTNode) -> bool:
        """The name written into is bound only to integer or bool tensors (`torch.zeros(n).long()`)."""
        node = write
        while type(node) in (cst.Subscript, cst.Call, cst.Attribute):
            node = node.func if type(node) is cst.Call else node.value
        if type(node) is not cst.Name or node.value in self.uses.unseen_bindings or node.value in self.uses.loop_targets:
            return False
        values = self.bindings.assigned(node.value)
        return bool(values) and not self.bindings.unpacked.get(node.value) and all(self._is_integer(v) for v in values)

    def _is_integer(self, value: cst.BaseExpression) -> bool:
        if type(value) is not cst.Call:
            return False
        qualified = self.imports.qualified_name(value.func)
        if qualified is not None:
            return qualified in INTEGER_CONSTRUCTORS
        return type(value.func) is cst.Attribute and value.func.attr.value in _INTEGER_RESULTS

    def write_with_history(self, occurrence: cst.CSTNode, depth: int) -> bool:
        uses = self.uses
        node = occurrence
        while True:
            parent = uses.parent(node)
            if type(parent) is cst.Subscript and parent.value is node:
                node = parent
                continue
            if type(parent) is cst.Attribute and parent.value is node:
                call = uses.parent(parent)
                if type(call) is cst.Call and call.func is parent:
                    method = parent.attr.value
                    if method in IDENTITY_METHODS and method not in _KEEPS_VALUE or method.startswith("register_"):
                        return True
                    if method.endswith("_") and not (
                        method.startswith("__") or self._value_write_keeps_free(call, [a.value for a in call.args], depth)
                    ):
                        return True
                    node = call
                    continue
                if is_write_target(uses, parent):
                    return parent.attr.value not in ("data",)  # `.requires_grad = `, `.grad = `...
                node = parent
                continue
            if type(parent) is cst.Arg and parent.keyword is not None and parent.keyword.value == "out":
                return True
            if is_write_target(uses, node) and node is not occurrence:
                value = uses.assigned_value(node)
                return value is None or not self._value_write_keeps_free(node, [value], depth)
            return False


def func_name(call: cst.Call) -> Optional[str]:
    """`f` for `f(...)` and `obj.f(...)`."""
    if type(call.func) is cst.Name:
        return call.func.value
    if type(call.func) is cst.Attribute:
        return call.func.attr.value
    return None


def returns_receiver(method: str) -> bool:
    """`x.method(...)` may be `x` itself: a conversion (`x.float()` of a float tensor) or an
    in-place change (`x.fill_(0)`); not a flag or metadata change, which identity tells apart."""
    return method in SELF_RETURNING or method.endswith("_") and not method.startswith("__") and method not in IDENTITY_METHODS


def _requests_grad(call: cst.Call) -> bool:
    return any(
        arg.keyword is not None and arg.keyword.value == "requires_grad" and not is_bool_literal(arg.value, False) for arg in call.args
    )


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


def _read_through_attribute(uses: ScopeUses, occurrence: cst.Name) -> bool:
    """`obj` in `obj.attr` (not an attribute written), or the target binding it: the object is
    not handed to other code, which could write its attributes."""
    parent = uses.parent(occurrence)
    if type(parent) is cst.Attribute and parent.value is occurrence:
        return not is_write_target(uses, parent)
    return type(parent) is cst.AssignTarget


def _local_class(module: cst.Module, value: cst.BaseExpression) -> Optional[cst.ClassDef]:
    """The class of this file (top level) that `value`, a call `Name(...)`, instantiates."""
    if type(value) is not cst.Call or type(value.func) is not cst.Name:
        return None
    found = [s for s in module.body if type(s) is cst.ClassDef and s.name.value == value.func.value]
    return found[0] if len(found) == 1 else None


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
