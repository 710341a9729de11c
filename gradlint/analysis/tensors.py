"""Is an expression evidently a torch tensor, or evidently a Python number? Conservative: 'unknown' counts as 'no'.

Evidence of a tensor: results of torch functions, tensor-only methods, criterion and model calls,
`.grad`, `Variable(...)`, `next(model.parameters())`, and names bound (in the same function) to any of those or named like a
loss. Values are followed through the file's bindings: a function's or a method's returns (whole,
or one member of the tuples it returns), a network's output (a `torch.nn` layer or a module class
of the file held in a name), the inputs of a module class's `forward`, a parameter that every call
of the file fills with a tensor (a name passed counts by the assignment that reaches the call
when the code shows it; when no other file of the run mentions the function), a
module-level name read in a function, a loop over tensors written out, and a lambda's result. Look-alikes that are not tensors: `self.data`, `dataset.data`, `args.data`, numpy, pandas,
containers and module paths such as `torch.utils.data`.

Evidence of a Python number (which outweighs a name: `loss = compute_loss(...)` that returns
`total += l.item()` is a float): number literals, `.item()`, `float(...)`, `int(...)`, `len(...)`,
`math` functions, sums and arithmetic of numbers, names bound only to numbers, and calls of the
file's own functions whose every `return` is one.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Callable, Optional, Sequence

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.frameworks import imports_other_tensor_framework, imports_torch, is_other_library
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.optimizers import optimizer_class_verdict
from gradlint.analysis.roles import CRITERION, MODEL_CALL, TENSOR_VALUE, is_batch_source_name, is_loader_name
from gradlint.analysis.syntax import dotted_name, is_none_literal, parameter_names
from gradlint.analysis.scopes import Bindings, Scope, ScopeTable, class_methods, entry_key, self_name
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.tree import descendants

if TYPE_CHECKING:
    from gradlint.analysis.functions import CallSite, FunctionTable
    from gradlint.analysis.semantic.scope import ScopeUsesTable

# Methods that exist on tensors and (almost) nowhere else, so `x.method(...)` is a tensor.
TENSOR_ONLY_METHODS = torch_api.methods("distinctive")
# Tensor methods that numpy arrays, modules and other array types do not have: a function
# argument these are called on is a tensor.
ARGUMENT_TENSOR_METHODS = torch_api.methods("unique")
# Where `PackedSequence` comes from: its `.data` is a field.
PACKED_SEQUENCES = ("pack_padded_sequence", "pack_sequence", "PackedSequence", "utils.rnn")
# Reductions: a tensor when the receiver is one (numpy has the same names).
TENSOR_PRESERVING_METHODS = torch_api.methods("passes-tensor")
# In place methods return their receiver, factories a new tensor: a tensor when the receiver is one
# (`exp_avg.mul_(beta1)`, `grad.new()`).
RECEIVER_TENSOR_METHODS = torch_api.in_place_methods() | torch_api.methods("factory")
TENSOR_ATTRIBUTES = frozenset({"grad", "weight", "bias"})
NOT_TENSOR_MODULES = (
    "torch.utils",
    "torch.nn.Module",
    "torch.optim",
    "torch.cuda",
    "torch.backends",
    "torch.distributed",
    "torch.device",
    "torch.dtype",
    "torch.Size",
)
NON_TENSOR_ROOTS = frozenset(
    {
        "self",
        "cls",
        "args",
        "opt",
        "opts",
        "config",
        "cfg",
        "dataset",
        "np",
        "numpy",
        "pd",
        "tf",
        "df",
        "os",
        "sys",
        "math",
        "json",
        "kwargs",
        "params",
        "hparams",
        "flags",
        "FLAGS",
    }
)


class TensorEvidence:
    def __init__(
        self,
        imports: ImportMap,
        scopes: ScopeTable,
        module: Optional[cst.Module] = None,
        source: Optional[str] = None,
        table: Optional["FunctionTable"] = None,
        # Whether a function of the file returns only Python numbers (its summary's answer).
        returns_only_numbers: Optional[Callable[[cst.FunctionDef], bool]] = None,
        *,
        # Whether it returns only numbers or other libraries' values, never a tensor (ditto).
        returns_no_tensor: Optional[Callable[[cst.FunctionDef], bool]] = None,
        scope_uses: Optional["ScopeUsesTable"] = None,
        # The calls of a function of the file (the function summaries' answer, asked lazily: the
        # summaries are built after this evidence).
        call_sites: Optional[Callable[[cst.FunctionDef], Sequence["CallSite"]]] = None,
        # The module-level functions other files of the run mention (None: unknown, a partial run).
        used_elsewhere: Optional[frozenset[str]] = None,
        # Every call of a method of the file, when they are all known (`LocalCalls.all_calls_of_method`).
        method_calls: Optional[Callable[[cst.FunctionDef], Optional[Sequence[tuple[cst.Call, cst.FunctionDef]]]]] = None,
        # False: a name alone (`output_buffer`, `loss`) is no evidence, nor the result of torch's
        # private modules (`torch._inductor.lowering.view` gives an IR box), nor a method called
        # on what a relative import binds (`L.view(...)`): what a safe fix asks.
        names_decide: bool = True,
    ) -> None:
        self.imports = imports
        self._names_decide = names_decide
        self.scopes = scopes
        self.module = module
        self.source = source  # the file's text, when known (generating it from `module` is slow)
        # Which of the file's functions a call runs, and what they return: the summaries are built
        # after this evidence (they ask it), so they are given lazily and asked only about calls
        # the table resolves.
        self._table = table
        self._returns_only_numbers = returns_only_numbers
        self._returns_no_tensor = returns_no_tensor
        self._argument_uses: dict[int, frozenset[str]] = {}
        self._numbers: dict[tuple[int, str], bool] = {}
        self._numbers_pending: set[tuple[int, str]] = set()  # names being followed (`total = total + x`)
        self._scope_uses = scope_uses
        self._call_sites = call_sites
        self._used_elsewhere = used_elsewhere
        self._method_calls = method_calls
        # (id(function), parameter or RETURNS) -> answer; and those being followed (recursion).
        self._followed: dict[tuple[int, str], bool] = {}
        self._following: set[tuple[int, str]] = set()
        self._comprehension_names: dict[int, frozenset[str]] = {}
        # id(class) -> what its methods store in the optimizer's state (`_optimizer_state_stores`).
        self._state_stores: dict[int, dict[str, list[tuple[cst.BaseExpression, cst.FunctionDef]]]] = {}

    def is_known_tensor(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """Enough evidence to call a tensor method on `node` in a safe fix: `is_tensor` says so by
        more than a name (see `names_decide`) and nothing contradicts it (see `contradicts_tensor`)."""
        return (
            self._beyond_names.is_tensor(node, scope)
            and not self.contradicts_tensor(node, scope)
            and not self._tensor_by_name_only(node, scope)
        )

    @cached_property
    def _beyond_names(self) -> "TensorEvidence":
        """This evidence without its guesses from names alone (see `names_decide`)."""
        if not self._names_decide:
            return self
        return TensorEvidence(
            self.imports,
            self.scopes,
            self.module,
            self.source,
            self._table,
            self._returns_only_numbers,
            returns_no_tensor=self._returns_no_tensor,
            scope_uses=self._scope_uses,
            call_sites=self._call_sites,
            used_elsewhere=self._used_elsewhere,
            method_calls=self._method_calls,
            names_decide=False,
        )

    def _tensor_by_name_only(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`train_loss(x)` runs a function of this file whose returns show no tensor: its name
        (`*_loss`, `model`) is then all that says tensor, and its body may well say otherwise. A
        name bound only to such calls (`l = train_loss(x)`) is one too."""
        if isinstance(node, cst.Name):
            values = self.scopes.of(scope).plain_values(node.value) if scope is not None else None
        else:
            values = [node]
        return bool(values) and all(
            isinstance(value, cst.Call) and self._resolve(value, scope) is not None and not self._returns_tensor(value, scope, 0)
            for value in values
        )

    def contradicts_tensor(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """Evidence against `node` being a tensor, whatever names or other analyses say: it is a
        Python number, it is made by another array library (`ma.masked_array(...)`, directly or
        through a binding of its name), or the file is not torch code (it never imports torch, or
        imports another tensor framework). A name that looks like a tensor's (`output_node`,
        `loss`) in a file that never imports torch is more often something else: a template node,
        a sympy or numpy object."""
        return not self._torch_code or self.is_not_tensor(node, scope)

    def is_not_tensor(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`node` evaluates to a Python number or another array library's value (`np.mean(losses)`,
        or a call of a function of the file returning only such values), never a tensor."""
        if isinstance(node, cst.Call) and self.returns_no_tensor(node, scope):
            return True
        return self.is_python_number(node, scope) or self._made_by_other_library(node, scope)

    def _made_by_other_library(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        values = self.scopes.values_of(node.value, scope) if isinstance(node, cst.Name) else [node]
        return any(self.is_other_library_call(value) for value in values)

    def is_other_library_call(self, value: cst.BaseExpression) -> bool:
        """A call of another library's function, or a method chained on one's result
        (`sp.load_npz(path).tocsr()`, `np.asarray(x).astype(np.float32)`): their methods give
        their own objects."""
        while isinstance(value, cst.Call):
            if is_other_library(self.imports.qualified_name(value.func) or ""):
                return True
            if not isinstance(value.func, cst.Attribute):
                return False
            value = value.func.value
        return False

    @cached_property
    def _torch_code(self) -> bool:
        return imports_torch(self.imports) and not imports_other_tensor_framework(self.imports)

    def is_tensor(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int = 0) -> bool:
        if depth > 8:
            return False
        if isinstance(node, cst.Call):
            return self._call_is_tensor(node, scope, depth)
        if isinstance(node, cst.Attribute):
            if node.attr.value in TENSOR_ATTRIBUTES:
                return not self._is_module_path(node.value)
            if node.attr.value == "data" and not self._names_decide and self.is_tensor(node.value, scope, depth + 1):
                return True  # a tensor's `.data` is one (with names deciding, that would spread their guesses)
            return self._instance_attribute_is_tensor(node, scope, depth)
        if isinstance(node, cst.Subscript):
            return (
                self.is_tensor(node.value, scope, depth + 1)
                or self._entry_is_tensor(node, scope, depth)
                or (_integer_index(node) and self._next_of_loader(node.value, scope))  # `loader_iter.next()[0]`
            )
        if isinstance(node, cst.BinaryOperation):
            return self.is_tensor(node.left, scope, depth + 1) or self.is_tensor(node.right, scope, depth + 1)
        if isinstance(node, cst.Name):
            source = self._comprehension_source(node, scope)
            if source is not None:
                iterable, position = source
                return iterable is not None and (iterates_parameters(iterable, position) or (position is not None and _is_loader(iterable)))
            return self._name_is_tensor(node.value, scope, depth)
        return False

    def _comprehension_source(self, node: cst.Name, scope: Optional[Scope]) -> Optional[tuple[Optional[cst.BaseExpression], Optional[int]]]:
        """What a comprehension that binds the name read at `node` iterates, and where the name
        sits in its target (`p` of `[p.numel() for p in model.parameters()]`); (None, None) when
        a comprehension or lambda binds it some other way, None when none binds it."""
        if scope is None or self._scope_uses is None:
            return None
        uses = self._scope_uses.of(scope)
        child, parent = node, uses.parent(node)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
            if isinstance(parent, cst.Lambda) and node.value in parameter_names(parent.params):
                return None, None
            if isinstance(parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)) and child is not parent.for_in.iter:
                clauses = []
                clause: Optional[cst.CompFor] = parent.for_in
                while clause is not None:
                    clauses.append(clause)
                    clause = clause.inner_for_in
                for clause in reversed(clauses):
                    bound = _target_position(clause.target, node.value)
                    if bound is not None:
                        return (clause.iter, bound[0]) if bound[1] else (None, None)
            child, parent = parent, uses.parent(parent)
        return None

    # -- Python numbers ---------------------------------------------------------------------

    def is_python_number(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int = 0) -> bool:
        """`node` evidently evaluates to a Python `int` or `float`, never a tensor."""
        if depth > 8:
            return False
        if isinstance(node, (cst.Integer, cst.Float)):
            return True
        if isinstance(node, cst.UnaryOperation):
            return isinstance(node.operator, (cst.Minus, cst.Plus)) and self.is_python_number(node.expression, scope, depth + 1)
        if isinstance(node, cst.BinaryOperation):
            return (
                not isinstance(node.operator, cst.MatrixMultiply)
                and self.is_python_number(node.left, scope, depth + 1)
                and self.is_python_number(node.right, scope, depth + 1)
            )
        if isinstance(node, cst.IfExp):
            return self.is_python_number(node.body, scope, depth + 1) and self.is_python_number(node.orelse, scope, depth + 1)
        if isinstance(node, cst.Attribute):
            return (self.imports.qualified_name(node) or "").startswith("math.")  # `math.pi`
        if isinstance(node, cst.Subscript):
            return _is_shape_entry(node)
        if isinstance(node, cst.Call):
            return self._call_is_number(node, scope, depth)
        if isinstance(node, cst.Name):
            return self._name_is_number(node.value, scope, depth)
        return False

    def _call_is_number(self, call: cst.Call, scope: Optional[Scope], depth: int) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "item" and not call.args:
            return True
        if isinstance(func, cst.Attribute) and _counts_elements(call):
            return True  # `x.size(0)`, `x.numel()`
        qualified = self.imports.qualified_name(func)
        if qualified is not None:
            return qualified.startswith("math.") or qualified in NUMBER_FUNCTIONS
        if not isinstance(func, cst.Name):
            return self.returns_number(call, scope)  # `self.mean_loss(...)`
        if func.value in NUMBER_BUILTINS:
            return True
        if func.value in NUMBER_COMBINING_BUILTINS:
            # `sum(l.item() for l in losses)`; `sum(losses)` of tensors is a tensor.
            arguments = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
            return bool(arguments) and all(self._all_numbers(argument, scope, depth) for argument in arguments)
        return self.returns_number(call, scope)

    def _all_numbers(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int) -> bool:
        """`node` is a number, or an iterable written out as numbers (`[a.item(), b]`, a generator of `.item()`)."""
        if isinstance(node, (cst.GeneratorExp, cst.ListComp)):
            return self.is_python_number(node.elt, scope, depth + 1)
        if isinstance(node, (cst.List, cst.Tuple)):
            return bool(node.elements) and all(
                not isinstance(element, cst.StarredElement) and self.is_python_number(element.value, scope, depth + 1)
                for element in node.elements
            )
        return self.is_python_number(node, scope, depth + 1)

    def _name_is_number(self, name: str, scope: Optional[Scope], depth: int) -> bool:
        """Every binding of `name` in `scope` is a number (`total = 0.0`, `total += loss.item()`,
        `total = total + n`), or it counts the positions of a `range` or `enumerate`."""
        if scope is None or self.imports.is_imported(name) or name in ("True", "False", "None"):
            return False
        key = (id(scope), name)
        if key in self._numbers:
            return self._numbers[key]
        if key in self._numbers_pending:
            return True  # `total = total + x`: the other bindings decide
        bindings = self.scopes.of(scope)
        sources = bindings.loop_sources.get(name, [])
        values = bindings.assigned(name)
        if (name in bindings.opaque and not sources) or name in bindings.unpacked or not (values or sources):
            found = False
        else:
            self._numbers_pending.add(key)
            try:
                found = all(_counts(source, position) for source, position in sources) and all(
                    self.is_python_number(value, scope, depth + 1) for value in values
                )
            finally:
                self._numbers_pending.discard(key)
        if not self._numbers_pending:  # not decided under an assumption about another name
            self._numbers[key] = found
        return found

    def returns_number(self, call: cst.Call, scope: Optional[Scope]) -> bool:
        """`call` runs a function of this file whose every `return` gives a Python number."""
        if self._table is None or self._returns_only_numbers is None:
            return False
        function = self._table.resolve(call, scope if isinstance(scope, cst.FunctionDef) else None)
        return function is not None and self._returns_only_numbers(function)

    def returns_no_tensor(self, call: cst.Call, scope: Optional[Scope]) -> bool:
        """`call` runs a function of this file whose every `return` gives a Python number or
        another array library's value (`np.mean(losses)`)."""
        if self._table is None or self._returns_no_tensor is None:
            return False
        function = self._table.resolve(call, scope if isinstance(scope, cst.FunctionDef) else None)
        return function is not None and self._returns_no_tensor(function)

    def _call_is_tensor(self, call: cst.Call, scope: Optional[Scope], depth: int) -> bool:
        qualified = self.imports.qualified_name(call.func)
        if qualified is not None:
            # `torch.load(...)` gives back whatever was saved: a state dict or a module as often as a tensor.
            return (
                qualified.startswith("torch.")
                and not qualified.startswith(NOT_TENSOR_MODULES)
                and (self._names_decide or not _is_private(qualified))
                and not _is_class_name(qualified)
                and qualified not in OBJECT_LOADERS
            )
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in TENSOR_ONLY_METHODS:
                return (
                    not self._is_module_path(func.value)
                    and not _rooted_in(func.value, NON_TENSOR_ROOTS)
                    and (self._names_decide or not _rooted_in(func.value, self.imports.unresolved_relative))
                )
            if method in TENSOR_PRESERVING_METHODS and self.is_tensor(func.value, scope, depth + 1):
                return True
            if method in RECEIVER_TENSOR_METHODS and self.is_tensor(_without_data(func.value), scope, depth + 1):
                return True  # `p.data.new()`: the `.data` of a tensor is one
            if isinstance(func.value, cst.Name) and func.value.value == "self" and (MODEL_CALL.match(method) or CRITERION.match(method)):
                return not self.returns_no_tensor(call, scope)  # `self.model(x)`, `self.criterion(out, y)`, as `model(x)`
            if isinstance(func.value, cst.Name) and func.value.value == "self" and self._holds_project_module(func, scope):
                return not self._packs_sequences  # `self.g12(x)`, `self.g12 = G12()` of another file's module class
            return self._returns_tensor(call, scope, depth)  # `self.make_noise(n)`
        if isinstance(func, cst.Name):
            if _first_parameter(call) and not self.imports.is_imported(func.value):
                return True  # `next(model.parameters())`: a parameter
            if self.returns_no_tensor(call, scope):
                return False
            return (
                bool(CRITERION.match(func.value) or MODEL_CALL.match(func.value))
                or self._calls_own_module(func, scope)
                or self._returns_tensor(call, scope, depth)
                or self._network_returns_tensor(func.value, scope)
                or self._lambda_returns_tensor(func.value, scope, depth)
            )
        return False

    def _name_is_tensor(self, name: str, scope: Optional[Scope], depth: int) -> bool:
        if name in NON_TENSOR_ROOTS or self.imports.is_imported(name):
            return False
        if any(iterates_parameters(source, position) for source, position in self.scopes.loop_sources_of(name, scope)):
            return True
        if any(
            position is None and self._iterates_group_params(source, scope) for source, position in self.scopes.loop_sources_of(name, scope)
        ):
            return True  # `for p in group["params"]` of an optimizer's param groups
        if any(position is not None and _is_loader(source) for source, position in self.scopes.loop_sources_of(name, scope)):
            return True  # `for x, y in loader`: a batch's parts
        if scope is not None and any(
            _is_batch_call(value) or self._next_of_loader(value, scope) for value, _ in self.scopes.of(scope).unpacked.get(name, ())
        ):
            return True  # `x, y = get_batch(...)`, `x, y = loader_iter.next()`
        if scope is not None and any(self._is_model_output(value, scope) for value, _ in self.scopes.of(scope).unpacked.get(name, ())):
            return True  # `out, hidden = model(x)`
        if scope is not None and any(
            self._unpacks_tensor(value, position, scope, depth) for value, position in self.scopes.of(scope).unpacked.get(name, ())
        ):
            return True  # `weight, bias = make_affine(n)`, `_, index = out.max(1)`
        if any(
            position is None and self._iterates_tensors(source, scope, depth)
            for source, position in self.scopes.loop_sources_of(name, scope)
        ):
            return True  # `for t in (gain, shift)`
        values = self.scopes.values_of(name, scope)
        if any(_is_non_tensor_value(value) for value in values):
            return False
        # `x = x.cpu()` says only that `x` stays what it was: the other bindings or the callers decide
        if any(self.is_tensor(value, scope, depth + 1) for value in values if not _moves_itself(value, name)):
            return True
        if isinstance(scope, cst.FunctionDef) and all(_moves_itself(value, name) for value in values):
            if name in self._arguments_used_as_tensors(scope) or self._receives_tensors(scope, name, depth):
                return True
            if self._is_network_input(scope, name):
                return True
            if self._global_is_tensor(scope, name, depth):
                return True
        if not self._names_decide or not TENSOR_VALUE.search(name):
            return False
        # Named like a tensor: unless it is bound only to numbers (`loss = compute_loss(...)` where
        # the function returns a float). Asked after the name, which is cheaper and mostly decides.
        return not (values and all(self.is_python_number(value, scope, depth + 1) for value in values))

    def is_bound_to_tensor(self, name: str, scope: Optional[Scope], depth: int = 0) -> bool:
        """Stricter than `is_tensor` for a name: every binding of `name` in `scope` makes it a
        tensor (assigned tensor values, a loader's batch parts or a model's parameters as loop
        targets, parts of a batch or of a model's output), and there is at least one. Never by the
        name alone, nor for a parameter of the function."""
        if scope is None or depth > 4 or name in NON_TENSOR_ROOTS or self.imports.is_imported(name):
            return False
        bindings = self.scopes.of(scope)
        sources = bindings.loop_sources.get(name, [])
        unpacked = bindings.unpacked.get(name, [])
        values = bindings.assigned(name)
        if name in bindings.opaque and not sources and not unpacked:
            return False  # a parameter or a `with` target: its value is not seen
        if not (sources or unpacked or any(not _refers_to(value, name) for value in values)):
            return False
        return (
            all(iterates_parameters(source, position) or (position is not None and _is_loader(source)) for source, position in sources)
            and all(_is_batch_call(value) or self._is_model_output(value, scope) for value, _ in unpacked)
            and all(self._value_is_tensor(value, name, scope, depth) for value in values)
        )

    def is_instance_tensor(self, node: cst.Attribute, scope: Optional[Scope]) -> bool:
        """`self.w` where every value the class's methods bind to `self.w` is a tensor by the same
        strict evidence as `is_bound_to_tensor`."""
        values = self.scopes.instance_attribute_values(node, scope)
        return bool(values) and all(self._value_is_tensor(value, None, method, 0) for value, method in values)

    def _value_is_tensor(self, value: cst.BaseExpression, name: Optional[str], scope: Optional[Scope], depth: int) -> bool:
        """A value bound to `name` is a tensor: what remains after the conversions a module also has
        (`.cuda()`, `.float()`, `.requires_grad_()`: `vae = AutoencoderKL(...).requires_grad_(False)`)
        is one. `x = x.float()` says only that `x` stays what it was."""
        if _refers_to(value, name):
            return True
        core = _core(value)
        if isinstance(core, cst.Call) and self.imports.qualified_name(core.func) in OBJECT_LOADERS:
            return False
        if isinstance(core, cst.Name):
            return self.is_bound_to_tensor(core.value, scope, depth + 1)
        return self.is_tensor(core, scope, 1)

    def _holds_project_module(self, attribute: cst.Attribute, scope: Optional[Scope]) -> bool:
        """`self.g12`, which the class's methods set only to instances of a module class of another
        file of the project (or to None before it is built)."""
        project = self.imports.project
        if project is None or not project.module_classes:
            return False
        values = [value for value, _ in self.scopes.instance_attribute_values(attribute, scope) if not is_none_literal(value)]
        return bool(values) and all(
            isinstance(value, cst.Call) and self.imports.qualified_name(value.func) in project.module_classes for value in values
        )

    def _next_of_loader(self, value: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`batches.next()`, `next(batches)` or `next(iter(loader))`, `batches` bound only to
        `iter(loader)`: a batch, whose parts count as a loop's over the loader do."""
        if not isinstance(value, cst.Call) or scope is None:
            return False
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("next", "__next__") and not value.args:
            iterator = func.value
        elif isinstance(func, cst.Name) and func.value == "next" and len(value.args) == 1 and not self._rebinds_builtin("next", scope):
            iterator = value.args[0].value
        else:
            return False
        if isinstance(iterator, cst.Name):
            values = self.scopes.of(scope).plain_values(iterator.value)
            return bool(values) and all(self._iterates_loader(bound, scope) for bound in values)
        return self._iterates_loader(iterator, scope)

    def _iterates_loader(self, value: cst.BaseExpression, scope: Scope) -> bool:
        """`iter(loader)`."""
        return (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value == "iter"
            and len(value.args) == 1
            and not self._rebinds_builtin("iter", scope)
            and _is_loader(value.args[0].value)
        )

    def _rebinds_builtin(self, name: str, scope: Scope) -> bool:
        return name in self.imports.bindings or bool(self.scopes.values_of(name, scope)) or name in self.scopes.of(self.module).values

    def _entry_is_tensor(self, node: cst.Subscript, scope: Optional[Scope], depth: int) -> bool:
        """`losses["total"]` where the dict's entry `"total"` is bound to a tensor in this scope
        (`losses = {"total": loss}` or `losses["total"] = loss`), or an entry of an optimizer's
        state (see `_optimizer_state_is_tensor`)."""
        if self._optimizer_state_is_tensor(node, scope, depth):
            return True
        key = entry_key(node)
        if key is None or scope is None:
            return False
        values = self.scopes.entry_values(key, scope)
        return any(self.is_tensor(value, scope, depth + 1) for value in values)

    def _optimizer_state_is_tensor(self, node: cst.Subscript, scope: Optional[Scope], depth: int) -> bool:
        """`state["exp_avg"]` (after `state = self.state[p]`) or `self.state[p]["exp_avg"]` in a
        method of an optimizer class of the file, where the class's methods store a value under
        `"exp_avg"` through such a name (`state["exp_avg"] = torch.zeros_like(p)`) and every
        value they store there is a tensor. (A store written `self.state[p]["k"] = v` is not
        seen: the names are the custom optimizers' way.)"""
        key = _string_index(node)
        if key is None or not isinstance(scope, cst.FunctionDef) or self._table is None:
            return False
        owner = self._table.class_of(scope)
        if owner is None or not self._reads_optimizer_state(node.value, scope) or not self._is_optimizer_class(owner, 0):
            return False
        stored = self._optimizer_state_stores(owner).get(key, [])
        return bool(stored) and all(self.is_tensor(value, method, depth + 1) for value, method in stored)

    def _reads_optimizer_state(self, node: cst.BaseExpression, method: cst.FunctionDef) -> bool:
        """`self.state[p]`, or a name every binding of which in `method` is one."""
        if isinstance(node, cst.Name):
            values = self.scopes.of(method).plain_values(node.value)
            return bool(values) and all(_indexes_own_state(value, method) for value in values)
        return _indexes_own_state(node, method)

    def _optimizer_state_stores(self, owner: cst.ClassDef) -> dict[str, list[tuple[cst.BaseExpression, cst.FunctionDef]]]:
        """Entry -> the values the class's methods store under it through a name bound to
        `self.state[p]`, each with its method; read once per class."""
        found = self._state_stores.get(id(owner))
        if found is None:
            found = self._state_stores[id(owner)] = {}
            for method in class_methods(owner):
                bindings = self.scopes.of(method)
                for (container, entry), values in bindings.entries.items():
                    if self._reads_optimizer_state(cst.Name(container), method):
                        found.setdefault(entry, []).extend((value, method) for value in values)
        return found

    def _is_optimizer_class(self, class_def: cst.ClassDef, depth: int) -> bool:
        """A subclass of an optimizer class (`torch.optim.Optimizer`, `Adam`...), directly or
        through classes of the file."""
        if depth > 4:
            return False
        for base in class_def.bases:
            if optimizer_class_verdict(self.imports.qualified_name(base.value)):
                return True
            local = self._classes.get(base.value.value) if isinstance(base.value, cst.Name) else None
            if local is not None and not self.imports.is_imported(base.value.value) and self._is_optimizer_class(local, depth + 1):
                return True
        return False

    def _is_model_output(self, value: cst.BaseExpression, scope: Scope) -> bool:
        """`model(x)`, `self.model(x)`: a network's outputs, unless the file packs sequences (an RNN
        given a `PackedSequence` returns one, whose `.data` is a field, not the tensor's)."""
        if not isinstance(value, cst.Call) or self._packs_sequences:
            return False
        name = dotted_name(value.func)
        return (
            name is not None
            and bool(MODEL_CALL.match(name.rsplit(".", 1)[-1]))
            and name.split(".", 1)[0] not in NON_TENSOR_ROOTS - {"self"}
        )

    @cached_property
    def _packs_sequences(self) -> bool:
        """The file may build a `PackedSequence` (or cannot be read to tell)."""
        if self.source is None and self.module is None:
            return True
        text = self.source if self.source is not None else self.module.code
        return any(word in text for word in PACKED_SEQUENCES)

    def _arguments_used_as_tensors(self, function: cst.FunctionDef) -> frozenset[str]:
        """The parameters of `function` that it calls a tensor-only method on (`x.unsqueeze(0)`)."""
        key = id(function)
        if key not in self._argument_uses:
            parameters = {p.name.value for p in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params)}
            self._argument_uses[key] = frozenset(
                node.func.value.value
                for node in descendants(function.body)
                if isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name)
                and node.func.value.value in parameters
                and node.func.attr.value in ARGUMENT_TENSOR_METHODS
            )
        return self._argument_uses[key]

    def _iterates_group_params(self, iterable: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`group["params"]` where `group` is one of `optimizer.param_groups` (or `opt.param_groups[0]["params"]`)."""
        if not isinstance(iterable, cst.Subscript) or _string_index(iterable) != "params":
            return False
        group = iterable.value
        if isinstance(group, cst.Subscript):
            return _is_param_groups(group.value)
        if isinstance(group, cst.Name):
            return any(
                position is None and _is_param_groups(source) for source, position in self.scopes.loop_sources_of(group.value, scope)
            )
        return False

    def _instance_attribute_is_tensor(self, node: cst.Attribute, scope: Optional[Scope], depth: int) -> bool:
        """`self.w` where every value the class's methods bind to `self.w` is a tensor."""
        values = self.scopes.instance_attribute_values(node, scope)
        return bool(values) and all(self.is_tensor(value, method, depth + 1) for value, method in values)

    # -- values followed through the file's functions, calls and module-level names ------------

    def _receives_tensors(self, function: cst.FunctionDef, name: str, depth: int) -> bool:
        """`name` is a parameter of `function` (a module-level function or a method, not its
        instance), never rebound in it, and every call of the function in this file passes a
        tensor for it (see `only_calls`)."""
        bindings = self.scopes.of(function)
        signature = Signature.of(function)
        method = self._is_method(function)
        if name not in signature or name in bindings.loop_sources or name in bindings.unpacked:
            return False
        if method and (name == signature.slots[0] or name in signature.defaults):
            return False  # a method's default is evaluated in its class's body
        sites = self.only_calls(function)
        return bool(sites) and self.follow(
            (id(function), name), lambda: all(self._passes_tensor(site.call, site.scope, signature, name, depth, method) for site in sites)
        )

    def _is_method(self, function: cst.FunctionDef) -> bool:
        return self._table is not None and self._table.class_of(function) is not None

    def _passes_tensor(self, call: cst.Call, scope: Optional[Scope], signature: Signature, name: str, depth: int, method: bool) -> bool:
        bound = bind(call, signature, receiver=call.func.value if method else None)
        if bound.starred or not bound.fits:
            return False
        argument, scope = bound.passed(name), scope or self.module
        if argument is None:
            argument, scope = signature.defaults.get(name), self.module  # evaluated where the function is defined
        else:
            argument = self.reaching_value(argument, scope)
        return argument is not None and self.is_tensor(argument, scope, depth + 1) and not self.is_python_number(argument, scope, depth + 1)

    def reaching_value(self, argument: cst.BaseExpression, scope: Optional[Scope]) -> cst.BaseExpression:
        """The value of the one plain assignment a name passed at a call sees
        (`ScopeUses.reaching_assignment`: before the call in its block or the `if`/`with` blocks
        around it, no loop, branch or `try` between), else the argument itself, whose every
        binding counts. A name some binding hides (`nonlocal` in a nested function, `with`, `:=`,
        `del`) or a comprehension or lambda rebinds keeps all of them."""
        if not isinstance(argument, cst.Name) or not isinstance(scope, cst.FunctionDef) or self._scope_uses is None:
            return argument
        uses = self._scope_uses.of(scope)
        if argument.value in uses.hidden_bindings or argument.value in self._inner_names(scope):
            return argument
        assignment = uses.reaching_assignment(argument)
        return assignment.value if assignment is not None else argument

    def only_calls(self, function: cst.FunctionDef) -> Sequence["CallSite"]:
        """The calls of the module-level `function` in this file, when they are every mention of its
        name: it is defined once, not decorated, never handed over as a value or rebound, and no
        other file of the run mentions it (unknown in a partial run: then none). For a method, its
        calls when `LocalCalls.all_calls_of_method` knows them all."""
        if self._call_sites is None or self._scope_uses is None or self._table is None or self.module is None:
            return ()
        if self._is_method(function):
            return self._only_method_calls(function)
        name = function.name.value
        elsewhere = self._used_elsewhere
        if elsewhere is None or name in elsewhere or "*" in elsewhere:
            return ()
        if function.decorators or function.asynchronous is not None or self._table.module_level.get(name) is not function:
            return ()
        if (
            self.scopes.of(self.module).assigned(name)
            or sum(isinstance(s, cst.FunctionDef) and s.name.value == name for s in self.module.body) != 1
        ):
            return ()
        uses = self._scope_uses.of(self.module)
        occurrences = uses.occurrences(name)
        if not occurrences or any(not _is_callee(occurrence, uses.parent(occurrence)) for occurrence in occurrences):
            return ()  # handed over as a value: asked before the file's calls are indexed
        sites = self._call_sites(function)
        callees = {id(site.call.func) for site in sites}
        if len(occurrences) != len(callees) or any(id(occurrence) not in callees for occurrence in occurrences):
            return ()
        return sites

    def _only_method_calls(self, method: cst.FunctionDef) -> Sequence["CallSite"]:
        known = self._method_calls(method) if self._method_calls is not None else None
        if not known:
            return ()
        sites = self._call_sites(method)
        calls = {id(call) for call, _ in known}
        # The summaries resolve `self.m(...)` the same way: each known call is one of their sites.
        return sites if len(sites) == len(calls) and all(id(site.call) in calls for site in sites) else ()

    def _calls_own_module(self, func: cst.Name, scope: Optional[Scope]) -> bool:
        """`self(x)` in a method of a module class of this file: its forward's output, as `model(x)`."""
        if func.value != "self" or not isinstance(scope, cst.FunctionDef) or self._table is None or self._packs_sequences:
            return False
        owner = self._table.class_of(scope)
        return owner is not None and (self._module_classes.get(owner.name.value) is owner or id(owner) in self._nested_module_classes)

    def _is_network_input(self, function: cst.FunctionDef, name: str) -> bool:
        """`x` of `def forward(self, x)` in a module class of this file: a positional parameter
        without a default, never rebound, in a file that builds no packed sequence (whose `.data`
        is a field)."""
        if function.name.value != "forward" or self._table is None or self._packs_sequences:
            return False
        owner = self._table.class_of(function)
        if owner is None or (self._module_classes.get(owner.name.value) is not owner and id(owner) not in self._nested_module_classes):
            return False
        bindings = self.scopes.of(function)
        if name in bindings.loop_sources or name in bindings.unpacked:
            return False
        return any(param.name.value == name and param.default is None for param in function.params.params[1:])

    def _global_is_tensor(self, function: cst.FunctionDef, name: str, depth: int) -> bool:
        """`name`, read in `function` where the module-level name is seen, is bound only to tensors
        at module level."""
        return self._sees_module_name(function, name) and self.is_bound_to_tensor(name, self.module, depth + 1)

    def _sees_module_name(self, function: cst.FunctionDef, name: str) -> bool:
        """`name` in `function` (a module-level function or a method) is the module-level name: the
        module binds it, the function (its comprehensions and lambdas included) does not, and
        nothing else in the file does (`global`, an import, a `def`, a `with` target). Cheapest
        questions first: most names are not module-level ones."""
        if self.module is None or self._scope_uses is None or self._table is None or id(function) in self._nested_functions:
            return False
        module = self.scopes.of(self.module)
        if name not in module.values and name not in module.loop_sources and name not in module.unpacked:
            return False
        bindings = self.scopes.of(function)
        if name in bindings.values or name in bindings.opaque or name in bindings.loop_sources or name in bindings.unpacked:
            return False
        return name not in self._inner_names(function) and name not in self._scope_uses.of(self.module).unseen_bindings

    @cached_property
    def _nested_functions(self) -> frozenset[int]:
        return (
            frozenset(id(inner) for functions in self._table.nested.values() for inner in functions.values())
            if self._table
            else frozenset()
        )

    def _inner_names(self, function: cst.FunctionDef) -> frozenset[str]:
        """Names bound by the comprehensions and lambdas of `function`: another variable there."""
        key = id(function)
        if key not in self._comprehension_names:
            names: set[str] = set()
            for node in descendants(function.body):
                if isinstance(node, cst.CompFor):
                    names.update(inner.value for inner in descendants(node.target) if isinstance(inner, cst.Name))
                elif isinstance(node, cst.Lambda):
                    names.update(
                        param.name.value for param in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params)
                    )
            self._comprehension_names[key] = frozenset(names)
        return self._comprehension_names[key]

    def _returns_tensor(self, call: cst.Call, scope: Optional[Scope], depth: int) -> bool:
        """`call` runs a plain function of this file whose every `return` gives a tensor."""
        function = self._resolve(call, scope)
        returns = self._plain_returns(function)
        return bool(returns) and self.follow(
            (id(function), RETURNS), lambda: all(self.is_tensor(value, function, depth + 1) for value in returns)
        )

    def _unpacks_tensor(self, value: cst.BaseExpression, position: int, scope: Scope, depth: int) -> bool:
        """Member `position` of `value`, unpacked: of `out.max(1)` or `torch.sort(x, 1)` (both a
        tensor), of a network's tuple output, or of a same-file function whose every `return` is a
        tuple with a tensor there."""
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        qualified = self.imports.qualified_name(func)
        if qualified is not None:
            return qualified.startswith("torch.") and qualified.rsplit(".", 1)[-1] in PAIR_METHODS and len(value.args) > 1
        if isinstance(func, cst.Attribute) and func.attr.value in PAIR_METHODS and value.args:
            return position < 2 and self.is_tensor(func.value, scope, depth + 1)
        if isinstance(func, cst.Name) and not self._packs_sequences and self._network_gives(func.value, scope, tuples=True):
            return True
        function = self._resolve(value, scope)
        returns = self._plain_returns(function)
        if not returns or not all(tuple_member(returned, position) is not None for returned in returns):
            return False
        return self.follow(
            (id(function), f"{RETURNS}{position}"),
            lambda: all(self.is_tensor(tuple_member(returned, position), function, depth + 1) for returned in returns),
        )

    def _iterates_tensors(self, iterable: cst.BaseExpression, scope: Optional[Scope], depth: int) -> bool:
        """`(gain, shift)` looped over: a tuple or list written out, every element a tensor."""
        if not isinstance(iterable, (cst.Tuple, cst.List)) or not iterable.elements:
            return False
        return all(not isinstance(e, cst.StarredElement) and self.is_tensor(e.value, scope, depth + 1) for e in iterable.elements)

    def _network_returns_tensor(self, name: str, scope: Optional[Scope]) -> bool:
        """`net(x)` where `net` is bound only to networks that give one tensor."""
        return self._network_gives(name, scope, tuples=False)

    def _network_gives(self, name: str, scope: Optional[Scope], tuples: bool) -> bool:
        """`name` is bound (in `scope`, or at module level when `scope` does not bind it) only to
        `torch.nn` layers or module classes of this file whose output is one tensor, or (`tuples`)
        a tuple of tensors."""
        if scope is None or name in NON_TENSOR_ROOTS or self.imports.is_imported(name):
            return False
        values = self.scopes.values_of(name, scope)
        bindings = self.scopes.of(scope)
        if not values and isinstance(scope, cst.FunctionDef) and self._sees_module_name(scope, name):
            values, bindings = self.scopes.values_of(name, self.module), self.scopes.of(self.module)
        if not values or name in bindings.opaque or name in bindings.loop_sources or name in bindings.unpacked:
            return False
        return all(self._builds_network(_core(value), tuples) for value in values)

    def _builds_network(self, value: cst.BaseExpression, tuples: bool) -> bool:
        if not isinstance(value, cst.Call):
            return False
        qualified = self.imports.qualified_name(value.func)
        if qualified is not None:
            if qualified not in NETWORK_LAYERS:
                return False
            return tuples == (qualified in TUPLE_LAYERS)
        forward = self._local_module_forward(value.func)
        returns = self._plain_returns(forward)
        if not returns:
            return False
        if tuples:
            return all(isinstance(returned, cst.Tuple) for returned in returns)
        return all(
            not _is_non_tensor_value(returned) and not is_none_literal(returned) and not self.is_python_number(returned, forward)
            for returned in returns
        )

    def _local_module_forward(self, func: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The `forward` of the module-level `nn.Module` subclass of this file that `func` names."""
        if not isinstance(func, cst.Name) or self.module is None:
            return None
        classes = self._module_classes
        found = classes.get(func.value)
        if found is None:
            return None
        methods = (
            [s for s in found.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "forward"]
            if isinstance(found.body, cst.IndentedBlock)
            else []
        )
        return methods[0] if len(methods) == 1 else None

    @cached_property
    def _nested_module_classes(self) -> frozenset[int]:
        """The classes not at module level (in a function, a branch or another class) that
        subclass `nn.Module` directly: a wrapper built where it is used, its `nn` often imported
        there too."""
        if self._table is None:
            return frozenset()
        top_level = {id(statement) for statement in self.module.body} if self.module is not None else set()
        return frozenset(
            id(owner)
            for owner in {id(owner): owner for owner in self._table.owner_class.values()}.values()
            if id(owner) not in top_level and any(self.imports.qualified_name(base.value) == "torch.nn.Module" for base in owner.bases)
        )

    @cached_property
    def _module_classes(self) -> dict[str, cst.ClassDef]:
        """The module-level classes of the file that subclass `nn.Module` (directly or through
        another such class), each defined once under its name."""
        found: dict[str, cst.ClassDef] = {}
        changed = True
        while changed:
            changed = False
            for name, class_def in self._classes.items():
                if name in found:
                    continue
                bases = [base.value for base in class_def.bases]
                if any(
                    self.imports.qualified_name(base) == "torch.nn.Module" or (isinstance(base, cst.Name) and base.value in found)
                    for base in bases
                ):
                    found[name] = class_def
                    changed = True
        return found

    def _lambda_returns_tensor(self, name: str, scope: Optional[Scope], depth: int) -> bool:
        """`make(3)` where `make` is bound only to lambdas whose body is a tensor, read where the
        lambda is written; a parameter of the lambda that the scope also binds could be taken for
        the scope's, so none may be."""
        values = self.scopes.values_of(name, scope)
        return bool(values) and all(isinstance(value, cst.Lambda) and self._lambda_body_is_tensor(value, scope, depth) for value in values)

    def _lambda_body_is_tensor(self, function: cst.Lambda, scope: Optional[Scope], depth: int) -> bool:
        return scope is not None and not shadows(function, self.scopes.of(scope)) and self.is_tensor(function.body, scope, depth + 1)

    def returned_values(self, call: cst.Call, scope: Optional[Scope]) -> tuple[Optional[cst.FunctionDef], tuple[cst.BaseExpression, ...]]:
        """The plain function of this file `call` runs and the value of each of its `return`s
        (see `_plain_returns`); (None, ()) when the call runs none."""
        function = self._resolve(call, scope)
        return function, self._plain_returns(function)

    def _resolve(self, call: cst.Call, scope: Optional[Scope]) -> Optional[cst.FunctionDef]:
        """The `def` of this file `call` runs: the function table's answer, else a method of an
        object of a class of this file (`Probe(model).features(x)`, `mixer.mixing()`)."""
        if self._table is None:
            return None
        found = self._table.resolve(call, scope if isinstance(scope, cst.FunctionDef) else None)
        return found if found is not None else self._instance_method(call, scope)

    def _instance_method(self, call: cst.Call, scope: Optional[Scope]) -> Optional[cst.FunctionDef]:
        """`obj.method(...)` where `obj` is `Class(...)` of a module-level class of this file (or a
        name of the scope bound only to one): the `def` of `method` in that class's own body."""
        func = call.func
        if not isinstance(func, cst.Attribute) or scope is None:
            return None
        receiver = func.value
        if isinstance(receiver, cst.Name):
            values = self.scopes.of(scope).plain_values(receiver.value)
            if values is None or len(values) != 1:
                return None
            receiver = values[0]
        if not (isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name)):
            return None
        owner = self._classes.get(receiver.func.value)
        if owner is None or self.imports.is_imported(receiver.func.value) or not isinstance(owner.body, cst.IndentedBlock):
            return None
        methods = [s for s in owner.body.body if isinstance(s, cst.FunctionDef) and s.name.value == func.attr.value]
        return methods[0] if len(methods) == 1 else None

    @cached_property
    def _classes(self) -> dict[str, cst.ClassDef]:
        """The module-level classes of the file, each defined once under its name."""
        found: dict[str, list[cst.ClassDef]] = {}
        for statement in self.module.body if self.module is not None else ():
            if isinstance(statement, cst.ClassDef):
                found.setdefault(statement.name.value, []).append(statement)
        return {name: defs[0] for name, defs in found.items() if len(defs) == 1}

    def _plain_returns(self, function: Optional[cst.FunctionDef]) -> tuple[cst.BaseExpression, ...]:
        """The values of every `return` of `function` when it is a plain function (no decorator,
        not a coroutine nor a generator) and each `return` gives one; () otherwise."""
        if function is None or self._scope_uses is None or function.decorators or function.asynchronous is not None:
            return ()
        uses = self._scope_uses.of(function)
        if uses.yields or not uses.returns or any(value is None for value in uses.returns):
            return ()
        return tuple(uses.returns)

    def follow(self, key: tuple[int, str], compute: Callable[[], bool]) -> bool:
        """`compute()` for a parameter or a function's result (`key`: the function's id and what of
        it is asked), once; False for one already being
        followed (recursion), and an answer given under that assumption is kept only when true."""
        if key in self._followed:
            return self._followed[key]
        if key in self._following:
            return False
        self._following.add(key)
        try:
            found = compute()
        finally:
            self._following.discard(key)
        if found or not self._following:
            self._followed[key] = found
        return found

    def _is_module_path(self, node: cst.BaseExpression) -> bool:
        qualified = self.imports.qualified_name(node)
        return qualified is not None


# What `_follow` keys a function's result by: no parameter can be named so.
RETURNS = " returns"
# Reductions over a dim that give (values, indices): `_, index = out.max(1)`.
PAIR_METHODS = torch_api.methods("pair")
# `torch.nn` classes whose instances, called, give a tensor (or, TUPLE_LAYERS, a tuple of tensors);
# of the containers only `nn.Sequential` is callable.
NETWORK_LAYERS = (
    torch_api.functions("parameters")
    | torch_api.functions("parameterless")
    | torch_api.functions("module-container")
    | torch_api.functions("loss-module")
)
TUPLE_LAYERS = torch_api.functions("tuple")


def tuple_member(value: cst.BaseExpression, position: int) -> Optional[cst.BaseExpression]:
    """Element `position` of a tuple written out without `*`, else None."""
    if not isinstance(value, cst.Tuple) or any(isinstance(e, cst.StarredElement) for e in value.elements):
        return None
    return value.elements[position].value if position < len(value.elements) else None


def shadows(function: cst.Lambda, bindings: Bindings) -> bool:
    """A parameter of the lambda is also a name of the scope it is written in: reading its body
    there would take the one for the other."""
    parameters = (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params)
    return any(
        name in bindings.values or name in bindings.opaque or name in bindings.loop_sources or name in bindings.unpacked
        for name in (param.name.value for param in parameters)
    )


def _is_callee(name: cst.Name, parent: Optional[cst.CSTNode]) -> bool:
    return isinstance(parent, cst.Call) and parent.func is name


# Builtins whose result is a Python number whatever they are given (`float(loss)`, `len(loader)`).
NUMBER_BUILTINS = frozenset({"float", "int", "len"})
# Standard-library functions whose result is a Python number (`end = time.time()` in a timing meter).
NUMBER_FUNCTIONS = frozenset(
    {
        *(f"time.{clock}{unit}" for clock in ("time", "perf_counter", "monotonic", "process_time") for unit in ("", "_ns")),
        *(f"random.{name}" for name in ("random", "uniform", "randint", "gauss")),
    }
)
# Builtins whose result is a Python number when what they combine is (`sum(losses)` of tensors is a tensor).
NUMBER_COMBINING_BUILTINS = frozenset({"sum", "abs", "round", "max", "min"})
# Methods giving a Python int that counts elements or dimensions (`size` only with a dimension).
COUNT_METHODS = torch_api.methods("count")


def _counts_elements(call: cst.Call) -> bool:
    """`x.size(0)`, `x.numel()`, `x.dim()`: an int on a tensor (a Python `int`, never a tensor)."""
    method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
    if method not in COUNT_METHODS or any(arg.keyword is not None or arg.star for arg in call.args):
        return False
    return len(call.args) == 1 and isinstance(call.args[0].value, cst.Integer) if method == "size" else not call.args


def _is_shape_entry(node: cst.Subscript) -> bool:
    """`x.shape[0]`: one integer of a shape."""
    index = node.slice[0].slice if len(node.slice) == 1 else None
    return (
        isinstance(node.value, cst.Attribute)
        and node.value.attr.value == "shape"
        and isinstance(index, cst.Index)
        and (isinstance(index.value, cst.Integer) or _is_negative_integer(index.value))
    )


def _is_negative_integer(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Integer)


def _target_position(target: cst.BaseExpression, name: str) -> Optional[tuple[Optional[int], bool]]:
    """Whether a loop target binds `name`: (its position in a flat tuple or None, True), or
    (None, False) when it binds it deeper (`for i, (a, b) in ...`); None when it does not."""
    if isinstance(target, cst.Name):
        return (None, True) if target.value == name else None
    if isinstance(target, (cst.Tuple, cst.List)):
        for position, element in enumerate(target.elements):
            if isinstance(element.value, cst.Name) and element.value.value == name:
                return position, True
            if any(isinstance(inner, cst.Name) and inner.value == name for inner in descendants(element.value)):
                return None, False
    return None


def _counts(iterable: cst.BaseExpression, position: Optional[int]) -> bool:
    """The loop target counts: `i` of `for i in range(n)`, or of `for i, x in enumerate(xs)`."""
    if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name)):
        return False
    return (iterable.func.value == "range" and position is None) or (iterable.func.value == "enumerate" and position == 0)


# Methods a module shares with tensors (in place on a module, returning it).
MODULE_SHARED_METHODS = torch_api.module_methods("returns-self")
# torch functions that return whatever object they load or wrap (a module, a dict...).
OBJECT_LOADERS = torch_api.functions("returns-object")


def _core(value: cst.BaseExpression) -> cst.BaseExpression:
    """`value` without the module-shared conversions at its end: `X` for `X.to(d).requires_grad_(False)`."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in MODULE_SHARED_METHODS:
        value = value.func.value
    return value


def _moves_itself(value: cst.BaseExpression, name: str) -> bool:
    """`x.cpu()` or `x.to(d)` bound to `x`: a tensor stays a tensor, with its history."""
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in SELF_MOVES
        and isinstance(value.func.value, cst.Name)
        and value.func.value.value == name
    )


# Tensor methods that give the same tensor on another device (or itself), history included.
SELF_MOVES = frozenset({"cpu", "to"}) & TENSOR_PRESERVING_METHODS


def _refers_to(value: cst.BaseExpression, name: Optional[str]) -> bool:
    """`x.float()` bound to `x`: the name stays what it was."""
    core = _core(value)
    return isinstance(core, cst.Name) and core.value == name


def _is_loader(iterable: cst.BaseExpression) -> bool:
    dotted = dotted_name(iterable)
    return dotted is not None and is_loader_name(dotted.rsplit(".", 1)[-1])


def _integer_index(node: cst.Subscript) -> bool:
    """`x[0]`: one integer literal."""
    return len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) and isinstance(node.slice[0].slice.value, cst.Integer)


def _is_batch_call(value: cst.BaseExpression) -> bool:
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
    return name is not None and is_batch_source_name(name)


def iterates_parameters(iterable: cst.BaseExpression, position: Optional[int]) -> bool:
    """`for p in model.parameters()`, `for name, p in m.named_parameters()`, `zip(a.parameters(), ...)`."""
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute):
        method = iterable.func.attr.value
        if method in ("parameters", "buffers"):
            return position is None
        if method in ("named_parameters", "named_buffers"):
            return position == 1
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "zip":
        if position is not None and position < len(iterable.args):
            return iterates_parameters(iterable.args[position].value, None)
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "list" and iterable.args:
        return iterates_parameters(iterable.args[0].value, position)
    return False


def _first_parameter(call: cst.Call) -> bool:
    """`next(model.parameters())`, `next(iter(model.parameters()))`: a module's first parameter."""
    if not (isinstance(call.func, cst.Name) and call.func.value == "next" and len(call.args) == 1 and not call.args[0].keyword):
        return False
    source = call.args[0].value
    if isinstance(source, cst.Call) and isinstance(source.func, cst.Name) and source.func.value == "iter" and len(source.args) == 1:
        source = source.args[0].value
    return (
        isinstance(source, cst.Call)
        and isinstance(source.func, cst.Attribute)
        and source.func.attr.value == "parameters"
        and not source.args
    )


# Classes whose instances are tensors: `nn.Parameter(...)`, `nn.Buffer(...)`.
TENSOR_CLASSES = torch_api.functions("parameter") | torch_api.functions("buffer")


def _is_class_name(qualified: str) -> bool:
    if qualified in TENSOR_CLASSES:
        return False
    return qualified.rsplit(".", 1)[-1][:1].isupper() and not qualified.endswith(("Tensor", "Variable"))


def _rooted_in(node: cst.BaseExpression, roots: frozenset[str]) -> bool:
    while isinstance(node, (cst.Attribute, cst.Call, cst.Subscript)):
        node = node.value if not isinstance(node, cst.Call) else node.func
    return isinstance(node, cst.Name) and node.value in roots


def _is_non_tensor_value(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.List, cst.Dict, cst.Set, cst.Tuple, cst.ListComp, cst.DictComp, cst.SimpleString, cst.FormattedString))


def root_name(node: cst.BaseExpression) -> Optional[str]:
    """`a` for `a.b[0].c()`."""
    while isinstance(node, (cst.Attribute, cst.Call, cst.Subscript)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else None


def _without_data(node: cst.BaseExpression) -> cst.BaseExpression:
    """`p` for `p.data` and `p.data.data`."""
    while isinstance(node, cst.Attribute) and node.attr.value == "data":
        node = node.value
    return node


def _indexes_own_state(node: cst.BaseExpression, method: cst.FunctionDef) -> bool:
    """`self.state[p]` in a method whose first parameter is `self`."""
    if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) and node.value.attr.value == "state"):
        return False
    receiver = node.value.value
    return isinstance(receiver, cst.Name) and receiver.value == self_name(method)


def _is_param_groups(node: cst.BaseExpression) -> bool:
    """`optimizer.param_groups`, `self.param_groups`."""
    return isinstance(node, cst.Attribute) and node.attr.value == "param_groups"


def _string_index(subscript: cst.Subscript) -> Optional[str]:
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    index = subscript.slice[0].slice.value
    value = index.evaluated_value if isinstance(index, cst.SimpleString) else None
    return value if isinstance(value, str) else None


def _is_private(qualified: str) -> bool:
    """`torch._inductor.lowering.view`: a name of torch's internals, whose results are its own objects."""
    return any(part.startswith("_") for part in qualified.split(".")[1:])
