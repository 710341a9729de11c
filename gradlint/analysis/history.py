"""Does an expression provably carry no autograd history?

History-free means: the value does not require grad and has no `grad_fn`, and nothing in the
function makes it so later. Unknown means "may carry history" (the opposite default of
`grad_tracking`, which asks whether a value evidently carries history): a rewrite that drops a
`.detach()` must be sure.

Evidence: literals, torch factories and constructors, `torch.from_numpy`, numpy, batches from
iterating a data loader, `.data` / `.detach()` / `.item()` of anything, values computed only
from those (torch functions, tensor methods, operators, indexing, list comprehensions and
generators over history-free iterables), a typed constructor given several sizes
(`torch.FloatTensor(n, 3)`, whatever the sizes are), an option of the file's argparse namespace
(`opt.batchSize` declared `type=int`, see `command_line`), what a lambda bound to a name, or
returned by a function of the file, gives for history-free arguments (a sampler
`lambda n: torch.Tensor(np.random.normal(mu, s, n))`), and values computed with
autograd off (a call or operator under `torch.no_grad()`; not a bare name, view or conversion,
which may be a leaf requiring grad). A name is history-free when the one binding a read sees
in straight-line code is (`x = torch.LongTensor(x)` after `x = []`), or every binding of it in
its function is (a list or dict display counting the values its methods put in:
`outs.append(model(x))`), and no in-place change or flag change in the function can give it
history (writes under no_grad or into an integer tensor cannot). A write into a module-level name from one of
the module's functions is read with that function's names.

Known limit: a module or function of the program called under no_grad with history-free
arguments is taken to compute its result there, not to return a tensor it holds.

This is the one answer to "is this value free of history?"; `grad_tracking` answers the other
direction (evident history), and both read the table's history properties the same way. Whether
a value is a new object and who can tell it from another is `identity`'s question.

A parameter of a module-level function is followed into the calls of this file when no other
file of the run imports the function (`used_elsewhere`; unknown in a partial run), a parameter of
a method into its calls when they are all `self.m(...)` in its own class (`reached_elsewhere`,
see `local_calls`), and an attribute of a local object into the methods of its class; an
attribute of an object built by another file's class is history-free when the project index
finds that it only ever holds an integer tensor (`integer_attributes`: `corpus.train` of
`corpus = data.Corpus(path)`).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.command_line import INT, CommandLineOptions
from gradlint.analysis.functions import FunctionTable
from gradlint.analysis.grad_mode import disables_grad, grad_mode_of
from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.local_calls import LocalCalls, local_class, names_bound_by
from gradlint.analysis.legacy import GRAD_FACTORIES, OTHER_FRESH, VARIABLE, variable_arguments
from gradlint.analysis.roles import is_batch_source_name, is_loader_name
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.semantic.nodes import NodeIndex
from gradlint.analysis.tensors import NUMBER_FUNCTIONS
from gradlint.analysis.semantic.scope import ScopeUses, ScopeUsesTable, is_binding_position, is_write_target, target_paths
from gradlint.analysis.scopes import Bindings, Scope, ScopeTable, class_methods, self_name
from gradlint.analysis.syntax import DEFINITIONS, dotted_name, is_bool_literal, suite_statements
from gradlint.analysis.tensors import TensorEvidence, root_name

# The table's autograd history properties, read here for both directions: this proof, and the
# evident history of `grad_tracking`. Tensor methods whose result never has history, and those
# whose result has the receiver's; with a dim, (values, indices), whose indices carry none.
ENDS_HISTORY = torch_api.methods("ends")
KEEPS_HISTORY = torch_api.methods("keeps")
INDEX_RESULTS = torch_api.methods("pair")
# Torch functions whose result never has history (unless asked to require grad).
ENDS_HISTORY_FUNCTIONS = torch_api.functions("ends")
# The pre-0.4 typed constructors (`torch.FloatTensor([1, 2])`, `torch.LongTensor(3)`...): a new
# plain tensor, never requiring grad.
LEGACY_CONSTRUCTORS = torch_api.functions("legacy")
INTEGER_CONSTRUCTORS = torch_api.functions("int")
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
# Tensor methods making a new tensor of the receiver's dtype and device, without its history.
FACTORY_METHODS = torch_api.methods("factory")
# Methods returning one view: a new object sharing storage (never the receiver itself).
VIEW_METHODS = torch_api.methods("view", without=("tuple",))
# Methods returning several views, and torch functions returning views: under no_grad a view of a
# leaf that requires grad still requires grad.
_OTHER_VIEWS = torch_api.methods("view", "tuple") | torch_api.short_names(torch_api.functions("view"))
# Whatever the receiver, the result has no history (a new object, a Python value, or an
# integer or bool tensor, which can never require grad); factories are asked separately.
_CUTS_HISTORY = ENDS_HISTORY - FACTORY_METHODS
# Attributes that are views of the tensor: as history-free as the tensor.
_VIEW_ATTRIBUTES = torch_api.attributes("view")
# A tensor's metadata and flags: Python values (sizes, dtypes, devices, bools), never history.
_PLAIN_ATTRIBUTES = torch_api.attributes("metadata") | torch_api.attributes("autograd") - {"grad_fn"}
# Builtins whose result is a plain Python value whatever their arguments, and those whose result
# may be an argument or computed from them (`abs(t)`, `max(a, b)`).
_PLAIN_BUILTINS = frozenset({"float", "int", "bool", "len", "range", "str", "repr", "format", "isinstance", "print"})
_NUMERIC_BUILTINS = frozenset({"abs", "round", "min", "max"})
_BUILTINS = _PLAIN_BUILTINS | _NUMERIC_BUILTINS
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
# Methods putting their arguments into a list or dict: what they hold is what is read from it.
_CONTAINER_WRITES = frozenset({"append", "extend", "insert", "setdefault", "update"})
_CONTAINER_DISPLAYS = (cst.List, cst.ListComp, cst.Dict, cst.DictComp)
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
        options: Optional[CommandLineOptions] = None,
        reached_elsewhere: Optional[frozenset[str]] = None,
        integer_attributes: frozenset[str] = frozenset(),
    ) -> None:
        self.module = module
        # "data.Corpus.train": attributes of other files' classes that only hold integer tensors.
        self.integer_attributes = integer_attributes
        self.nodes = nodes if nodes is not None else NodeIndex(module)
        self.imports = imports
        self.scopes = scopes
        self.tensors = tensors
        self.functions = functions
        self.scope_uses = scope_uses if scope_uses is not None else ScopeUsesTable(self.nodes)
        self.calls = LocalCalls(module, imports, scopes, functions, self.scope_uses, used_elsewhere, reached_elsewhere)
        self.options = options if options is not None else CommandLineOptions(module, imports, scopes, self.scope_uses)
        self._returning: set[int] = set()  # functions whose results are being proved
        self._attributes_in_proof: set[int] = set()
        self._parameters_in_proof: set[tuple[int, str]] = set()

    # -- history ----------------------------------------------------------------------------

    def is_history_free(self, node: cst.BaseExpression, scope: Scope) -> bool:
        return _Proof(self, scope).free(node, 0)

    def computed_without_grad(self, call: cst.Call, scope: Scope) -> bool:
        """`call` computes a new value with autograd off (see `_Proof.computed_without_grad`)."""
        return _Proof(self, scope).computed_without_grad(call, 0)

    def runs_without_grad(self, node: cst.CSTNode, scope: Scope) -> bool:
        """`node`, in `scope`, runs inside `with torch.no_grad():` or a function decorated so."""
        return _Proof(self, scope).grad_off(node)

    def may_give_history(self, occurrence: cst.CSTNode, scope: Scope) -> bool:
        """The name `occurrence` of `scope` is written through in a way that may give its object
        history: a flag or hook, an in-place write of a value that may carry history, `out=`."""
        return _Proof(self, scope).write_with_history(occurrence, 0)

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
        owner = local_class(self.module, values[0])
        if owner is None or not all(_read_through_attribute(uses, occurrence) for occurrence in uses.occurrences(name)):
            return False
        if self._attribute_gains_history(scope, node.attr.value, depth, receiver=name):
            return False  # `corpus.train.copy_(h)` in the function itself
        return self._class_attribute_is_history_free(owner, node.attr.value, depth)

    def imported_attribute_is_integer(self, node: cst.Attribute, scope: Scope) -> bool:
        """`corpus.train` where `corpus`, bound once in `scope` and only there, is built by
        `data.Corpus(...)`, a class of another file of the run whose `self.train` only ever holds
        an integer tensor (the project index's `integer_attributes`, spelled through an import
        that alone binds its name): an integer tensor never carries history."""
        if not self.integer_attributes or type(node.value) is not cst.Name:
            return False
        name = node.value.value
        uses, bindings = self._uses_of(scope), self.scopes.of(scope)
        values = bindings.plain_values(name)
        if not values or len(values) != 1 or name in uses.unseen_bindings or type(values[0]) is not cst.Call:
            return False
        spelled = dotted_name(values[0].func)
        if spelled is None or f"{spelled}.{node.attr.value}" not in self.integer_attributes:
            return False
        return self._bound_only_by_import(spelled.split(".", 1)[0], scope)

    def _bound_only_by_import(self, name: str, scope: Scope) -> bool:
        """`name`, read in `scope`, is the module's import of it: one module-level statement, an
        import, binds it, and `scope` (a module-level function, if not the module) does not."""
        if scope is not self.module:
            if self._enclosing_function(scope) is not None or name in self._uses_of(scope).unseen_bindings:
                return False
            bindings = self.scopes.of(scope)
            if name in bindings.values or name in bindings.opaque:
                return False
        statements = [s for s in self.module.body if name in names_bound_by(s)]
        return (
            len(statements) == 1
            and type(statements[0]) is cst.SimpleStatementLine
            and all(type(small) in (cst.Import, cst.ImportFrom) for small in statements[0].body)
        )

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
        """Every call of `function` passes a history-free value for `parameter` (or leaves its
        history-free default), when its calls are all known (`LocalCalls`): a module-level
        function called only by name in this file, never handed over as a value, decorated (but
        for `@torch.no_grad()`) or redefined, that no other file of the run mentions; or a method
        called only as `self.m(...)` in its own class's methods (its first parameter is the
        instance, never asked here)."""
        key = (id(function), parameter)
        if key in self._parameters_in_proof:
            return True  # recursion: the other calls decide
        method = self.functions.class_of(function) is not None
        calls = self.known_calls(function)
        if calls is None:
            return False
        signature = Signature.of(function)
        default = signature.defaults.get(parameter)
        if parameter not in signature.slots and default is None:
            return False  # keyword-only without a default, or `*args`: never proved
        if method and (parameter == signature.slots[0] or not self._default_read_in_module(function, default)):
            return False
        self._parameters_in_proof.add(key)
        try:
            for call, scope in calls:
                bound = bind(call, signature, receiver=call.func.value if method else None)
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

    def known_calls(self, function: cst.FunctionDef) -> Optional[list[tuple[cst.Call, Scope]]]:
        """Every call of `function` with the scope it is written in, when they are all known
        (a module-level function's or a method's, see `LocalCalls`); None otherwise."""
        if self.functions.class_of(function) is not None:
            return self.calls.all_calls_of_method(function)
        return self.calls.all_calls_of(function)

    def _default_read_in_module(self, method: cst.FunctionDef, default: Optional[cst.BaseExpression]) -> bool:
        """A method's default reads names as the module does: its class's body binds none of them
        (a default is evaluated in the class body, where the class's own names come first)."""
        if default is None:
            return True
        owner = self.functions.class_of(method)
        bound = {name for statement in suite_statements(owner.body) for name in names_bound_by(statement)}
        return not any(type(node) is cst.Name and node.value in bound for node in self.nodes.subtree(default))

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

    def _uses_of(self, scope: Scope) -> ScopeUses:
        return self.scope_uses.of(scope)


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
        if kind in (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
            return True
        if kind is cst.Name:
            if node.value in ("True", "False", "None"):
                return True
            loop = self._binding_loop(node)
            if loop is not None:
                iterable, path = loop
                return self._iterates_history_free(iterable, depth, path) and not self._gains_history(node.value, depth)
            reaching = self._reaching_value(node)
            if reaching is not None:
                return self.free(reaching, depth + 1) and not self._gains_history(node.value, depth)
            return self._name(node.value, depth)
        if kind is cst.Attribute:
            if node.attr.value == "data":
                return self.evidence.is_tensor_data(node, self.scope)
            qualified = self.imports.qualified_name(node)
            if qualified is not None:
                return qualified.startswith(("numpy.", "math.", "torch."))  # dtypes, constants
            if self.evidence.options.option_type(node, self.scope) is not None:
                return True  # a number or bool from the command line
            if node.attr.value in _VIEW_ATTRIBUTES:
                return self.free(node.value, depth + 1)
            if node.attr.value in _PLAIN_ATTRIBUTES:
                return self.free(node.value, depth + 1) or self.evidence.tensors.is_tensor(node.value, self.scope)
            return (
                self.evidence.instance_attribute_is_history_free(node, self.scope, depth + 1)
                or self.evidence.object_attribute_is_history_free(node, self.scope, depth + 1)
                or self.evidence.imported_attribute_is_integer(node, self.scope)
            )
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
        if kind in (cst.ListComp, cst.GeneratorExp):
            return self._comprehension(node, depth)
        return False

    def _comprehension(self, node: cst.ListComp | cst.GeneratorExp, depth: int) -> bool:
        """`[x ** i for i in range(n)]`: each element is history-free, its loop variables taken
        as the items of history-free iterables. Only variables no other binding of the scope
        shares, so assuming them free says nothing about another value of the same name."""
        clauses = []
        clause: Optional[cst.CompFor] = node.for_in
        while clause is not None:
            clauses.append(clause)
            clause = clause.inner_for_in
        targets = set()
        for clause in clauses:
            names = [name for name, _ in target_paths(clause.target, ())]
            if not names or any(self._bound_here(name) or name in self.uses.parameters or name in self.assumed for name in names):
                return False
            if not self._iterates_history_free(clause.iter, depth):
                return False
            targets.update(names)
        self.assumed |= targets
        try:
            return self.free(node.elt, depth + 1)
        finally:
            self.assumed -= targets

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
            if not computes_torch_value(qualified):
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
        return not returns_view(name) and not _requests_grad(call)

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
        function = self.evidence.calls.function_called(call, self.scope)
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
            if method in SELF_RETURNING or method in VIEW_METHODS:
                # Devices, dtypes, sizes or a tensor giving its dtype/shape: no history comes in.
                return self.free(func.value, depth + 1)
            return self.free(func.value, depth + 1) and self._arguments(call, depth)
        if type(func) is cst.Name and func.value in _BUILTINS and func.value not in self.imports.bindings:
            if self._bound_here(func.value):
                return False
            return func.value in _PLAIN_BUILTINS or self._arguments(call, depth)
        if type(func) is cst.Name and func.value in ("next", "iter") and len(call.args) == 1 and not self._bound_here(func.value):
            return self._iterates_history_free(call.args[0].value, depth)
        if type(func) is cst.Name:
            return self._lambda_call(func.value, call, depth)
        return False

    def _lambda_call(self, name: str, call: cst.Call, depth: int) -> bool:
        """`sampler(n)`, every binding of `sampler` a lambda or a call of one of this file's
        functions returning only lambdas (`return lambda n: torch.Tensor(np.random.normal(mu, s, n))`):
        given history-free arguments, each lambda's body is history-free."""
        scope = self.scope
        if not self.bindings.assigned(name):
            if scope is self.evidence.module or name in self.uses.unseen_bindings or self.imports.is_imported(name):
                return False
            scope = self.evidence.module  # a global read in a function
        bindings, uses = self.evidence.scopes.of(scope), self.evidence._uses_of(scope)
        values = bindings.assigned(name)
        if not values or name in uses.unseen_bindings or name in uses.loop_targets or name in bindings.opaque:
            return False
        if not self._arguments(call, depth):
            return False
        return all(self._returns_history_free_lambdas(value, scope, depth) for value in values)

    def _returns_history_free_lambdas(self, value: cst.BaseExpression, scope: Scope, depth: int) -> bool:
        if type(value) is cst.Lambda:
            return _lambda_body_free(self.evidence, value, scope, depth)
        if type(value) is not cst.Call or any(arg.star for arg in value.args):
            return False
        function = self.evidence.calls.function_called(value, scope)
        if function is None or function.decorators:
            return False  # a decorator may return something else than the function's own result
        uses = self.evidence._uses_of(function)
        if uses.yields or function.asynchronous is not None or not uses.returns:
            return False
        return all(type(result) is cst.Lambda and _lambda_body_free(self.evidence, result, function, depth) for result in uses.returns)

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
        if qualified in ENDS_HISTORY_FUNCTIONS:
            return not _requests_grad(call)  # a new leaf, an integer or bool tensor
        if qualified in LEGACY_CONSTRUCTORS:
            # Sizes or lists; `torch.Tensor(t)` of a tensor with history is an alias keeping it,
            # while a list is copied (`torch.Tensor([loss])` has no history). Two or more
            # positional arguments are sizes whatever they hold (a tensor among them raises).
            # A command-line option other than an int (`torch.FloatTensor(opt.lr)`) raises.
            if any(self.evidence.options.option_type(arg.value, self.scope) not in (None, INT) for arg in call.args):
                return False
            return sizes_only(call) or all(type(arg.value) is cst.List for arg in call.args) or self._arguments(call, depth)
        if qualified.startswith(("numpy.", "math.")) or qualified in NUMBER_FUNCTIONS:
            return True  # arrays and Python numbers (`time.time()`)
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
        if any(type(value) in _CONTAINER_DISPLAYS for value in values) and not self._container_items_free(name, depth):
            return False  # `outs.append(model(x))`: the list holds a value with history
        self.assumed.add(name)
        return (
            all(self.free(value, depth + 1) for value in values)
            and all(self._iterates_history_free(iterable, depth, path) for iterable, path in loops)
            and all(self._unpacks_history_free(value, depth) for value, _ in unpacked)
            and not self._gains_history(name, depth)
        )

    def _reaching_value(self, node: cst.Name) -> Optional[cst.BaseExpression]:
        """The value of `name = value`, the one binding the read `node` sees in straight-line code
        (`char_list = char_list.unsqueeze(0)` after `char_list = torch.LongTensor(char_list)`),
        when it is not a container display whose items are put in later."""
        name = node.value
        if name in self.assumed or name in self.uses.hidden_bindings or self.uses.parent(node) is None:
            return None
        assign = self.uses.reaching_assignment(node)
        if assign is None or len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
            return None
        return None if type(assign.value) in _CONTAINER_DISPLAYS else assign.value

    def _container_items_free(self, name: str, depth: int) -> bool:
        """Every value a method puts into the list or dict `name` (`outs.append(v)`) is history-free."""
        for occurrence in self.uses.occurrences(name):
            method = self.uses.parent(occurrence)
            call = self.uses.parent(method)
            if (
                type(method) is cst.Attribute
                and method.value is occurrence
                and method.attr.value in _CONTAINER_WRITES
                and type(call) is cst.Call
                and call.func is method
                and not self._value_write_keeps_free(call, [arg.value for arg in call.args], depth)
            ):
                return False
        return True

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
        proof = self._proof_where(write)
        return all(proof.free(value, depth + 1) for value in values)

    def _proof_where(self, node: cst.CSTNode) -> "_Proof":
        """The proof for the names `node` reads: a write into a global inside one of the module's
        functions reads that function's names (`buffer.copy_(img)` with its own `img`)."""
        parent = self.uses.parent(node)
        while parent is not None and type(parent) not in (cst.FunctionDef, cst.Lambda):
            parent = self.uses.parent(parent)
        if type(parent) is not cst.FunctionDef or parent is self.scope:
            return self
        return _Proof(self.evidence, parent)

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
                if parent.attr.value == "data" and not (type(call) is cst.Call and call.func is parent):
                    return False  # `x.data` is another tensor object: what is done to it (`.t_()`, `.copy_(h)`) leaves x's history
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


def _lambda_body_free(evidence: HistoryEvidence, function: cst.Lambda, scope: Scope, depth: int) -> bool:
    """The body of `function`, defined in `scope`, is history-free when its parameters are (its
    callers' arguments were proved so): plain parameters only, none sharing a name of the scope."""
    params = function.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg is not None or params.kwonly_params or params.posonly_params:
        return False
    proof = _Proof(evidence, scope)
    names = {param.name.value for param in params.params}
    if any(param.default is not None for param in params.params) or any(proof._bound_here(n) or n in proof.uses.parameters for n in names):
        return False
    proof.assumed |= names
    return proof.free(function.body, depth + 1)


def func_name(call: cst.Call) -> Optional[str]:
    """`f` for `f(...)` and `obj.f(...)`."""
    if type(call.func) is cst.Name:
        return call.func.value
    if type(call.func) is cst.Attribute:
        return call.func.attr.value
    return None


def computes_torch_value(qualified: str) -> bool:
    """A torch function computing a value from its arguments: not one that builds a module,
    parameter or optimizer, nor one that may return its argument itself."""
    if not qualified.startswith("torch.") or qualified.startswith(_MAY_RETURN_ARGUMENT):
        return False
    return not qualified.startswith(_NOT_VALUE_NAMESPACES) or qualified.startswith("torch.nn.functional.")


def returns_view(name: str) -> bool:
    """The method or torch function `name` returns a view, or several: a new object sharing
    storage. Under no_grad a view of a leaf requiring grad still requires grad."""
    return name in VIEW_METHODS or name in _OTHER_VIEWS


def returns_receiver(method: str) -> bool:
    """`x.method(...)` may be `x` itself: a conversion (`x.float()` of a float tensor) or an
    in-place change (`x.fill_(0)`); not a flag or metadata change, which identity tells apart."""
    return method in SELF_RETURNING or method.endswith("_") and not method.startswith("__") and method not in IDENTITY_METHODS


def sizes_only(call: cst.Call) -> bool:
    """`torch.FloatTensor(n, 3, h, w)`: several positional arguments, read only as sizes."""
    return len(call.args) >= 2 and all(arg.keyword is None and not arg.star for arg in call.args)


def _requests_grad(call: cst.Call) -> bool:
    return any(
        arg.keyword is not None and arg.keyword.value == "requires_grad" and not is_bool_literal(arg.value, False) for arg in call.args
    )


def _read_through_attribute(uses: ScopeUses, occurrence: cst.Name) -> bool:
    """`obj` in `obj.attr` (not an attribute written), or the target binding it: the object is
    not handed to other code, which could write its attributes."""
    parent = uses.parent(occurrence)
    if type(parent) is cst.Attribute and parent.value is occurrence:
        return not is_write_target(uses, parent)
    return type(parent) is cst.AssignTarget
