"""Is an expression evidently a torch tensor? Conservative: 'unknown' counts as 'no'.

Evidence: results of torch functions, tensor-only methods, criterion and model calls, `.grad`,
`Variable(...)`, and names bound (in the same function) to any of those or named like a loss.
Look-alikes that are not tensors: `self.data`, `dataset.data`, `args.data`, numpy, pandas,
containers and module paths such as `torch.utils.data`.
"""

from __future__ import annotations

from functools import cached_property
from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.roles import CRITERION, MODEL_CALL, TENSOR_VALUE, is_batch_source_name, is_loader_name
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.scopes import Scope, ScopeTable, dict_literal_member, entry_key
from gradlint.analysis.tree import descendants

# Methods that exist on tensors and (almost) nowhere else, so `x.method(...)` is a tensor.
TENSOR_ONLY_METHODS = torch_api.methods("distinctive")
# Tensor methods that numpy arrays, modules and other array types do not have: a function
# argument these are called on is a tensor.
ARGUMENT_TENSOR_METHODS = torch_api.methods("unique")
# Where `PackedSequence` comes from: its `.data` is a field.
PACKED_SEQUENCES = ("pack_padded_sequence", "pack_sequence", "PackedSequence", "utils.rnn")
# Reductions: a tensor when the receiver is one (numpy has the same names).
TENSOR_PRESERVING_METHODS = torch_api.methods("passes-tensor")
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
    def __init__(self, imports: ImportMap, scopes: ScopeTable, module: Optional[cst.Module] = None, source: Optional[str] = None) -> None:
        self.imports = imports
        self.scopes = scopes
        self.module = module
        self.source = source  # the file's text, when known (generating it from `module` is slow)
        self._argument_uses: dict[int, frozenset[str]] = {}

    def is_tensor(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int = 0) -> bool:
        if depth > 8:
            return False
        if isinstance(node, cst.Call):
            return self._call_is_tensor(node, scope, depth)
        if isinstance(node, cst.Attribute):
            if node.attr.value in TENSOR_ATTRIBUTES:
                return not self._is_module_path(node.value)
            return self._instance_attribute_is_tensor(node, scope, depth)
        if isinstance(node, cst.Subscript):
            return self.is_tensor(node.value, scope, depth + 1) or self._entry_is_tensor(node, scope, depth)
        if isinstance(node, cst.BinaryOperation):
            return self.is_tensor(node.left, scope, depth + 1) or self.is_tensor(node.right, scope, depth + 1)
        if isinstance(node, cst.Name):
            return self._name_is_tensor(node.value, scope, depth)
        return False

    def _call_is_tensor(self, call: cst.Call, scope: Optional[Scope], depth: int) -> bool:
        qualified = self.imports.qualified_name(call.func)
        if qualified is not None:
            return qualified.startswith("torch.") and not qualified.startswith(NOT_TENSOR_MODULES) and not _is_class_name(qualified)
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in TENSOR_ONLY_METHODS:
                return not self._is_module_path(func.value) and not _rooted_in(func.value, NON_TENSOR_ROOTS)
            if method in TENSOR_PRESERVING_METHODS:
                return self.is_tensor(func.value, scope, depth + 1)
            return False
        if isinstance(func, cst.Name):
            return bool(CRITERION.match(func.value) or MODEL_CALL.match(func.value))
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
        if scope is not None and any(_is_batch_call(value) for value, _ in self.scopes.of(scope).unpacked.get(name, ())):
            return True  # `x, y = get_batch(...)`
        if scope is not None and any(self._is_model_output(value, scope) for value, _ in self.scopes.of(scope).unpacked.get(name, ())):
            return True  # `out, hidden = model(x)`
        values = self.scopes.values_of(name, scope)
        if any(_is_non_tensor_value(value) for value in values):
            return False
        if any(self.is_tensor(value, scope, depth + 1) for value in values):
            return True
        if not values and isinstance(scope, cst.FunctionDef) and name in self._arguments_used_as_tensors(scope):
            return True
        return bool(TENSOR_VALUE.search(name))

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

    def _entry_is_tensor(self, node: cst.Subscript, scope: Optional[Scope], depth: int) -> bool:
        """`losses["total"]` where the dict's entry `"total"` is bound to a tensor in this scope
        (`losses = {"total": loss}` or `losses["total"] = loss`)."""
        key = entry_key(node)
        if key is None or scope is None:
            return False
        name, entry = key
        values = list(self.scopes.of(scope).entries.get(key, ()))
        for value in self.scopes.values_of(name, scope):
            member = dict_literal_member(value, entry)
            if member is not None:
                values.append(member)
        return any(self.is_tensor(value, scope, depth + 1) for value in values)

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

    def _is_module_path(self, node: cst.BaseExpression) -> bool:
        qualified = self.imports.qualified_name(node)
        return qualified is not None


# Methods a module shares with tensors (in place on a module, returning it).
MODULE_SHARED_METHODS = torch_api.module_methods("returns-self")
# torch functions that return whatever object they load or wrap (a module, a dict...).
OBJECT_LOADERS = torch_api.functions("returns-object")


def _core(value: cst.BaseExpression) -> cst.BaseExpression:
    """`value` without the module-shared conversions at its end: `X` for `X.to(d).requires_grad_(False)`."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in MODULE_SHARED_METHODS:
        value = value.func.value
    return value


def _refers_to(value: cst.BaseExpression, name: Optional[str]) -> bool:
    """`x.float()` bound to `x`: the name stays what it was."""
    core = _core(value)
    return isinstance(core, cst.Name) and core.value == name


def _is_loader(iterable: cst.BaseExpression) -> bool:
    dotted = dotted_name(iterable)
    return dotted is not None and is_loader_name(dotted.rsplit(".", 1)[-1])


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


def _is_param_groups(node: cst.BaseExpression) -> bool:
    """`optimizer.param_groups`, `self.param_groups`."""
    return isinstance(node, cst.Attribute) and node.attr.value == "param_groups"


def _string_index(subscript: cst.Subscript) -> Optional[str]:
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    index = subscript.slice[0].slice.value
    value = index.evaluated_value if isinstance(index, cst.SimpleString) else None
    return value if isinstance(value, str) else None
