"""One-number tensors: where legacy code read a number with `[0]`, and what that read does today.

In PyTorch 0.3 a loss, a full reduction, a sampled action or an accumulated loss was a 1-element
tensor, and `x.data[0]` (or `x.data.numpy()[0]`) gave its Python number. Since 0.4:
* a ZERO_DIM value (a loss, `.sum()`, `.argmax()`, a sum of their `.data`) makes `[0]` raise IndexError;
* a ONE_ELEMENT value (a sampled action, the argmax of one row, `torch.Tensor([v])`) still takes
  `[0]`, which now gives a 0-dim tensor (or a numpy scalar) where the code meant a number.
Both are evidence of how a value was made; how the read is used (`int()`, a key, a format argument,
an `env.step` action) is the evidence that a tensor row really was meant as a number.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import Callable, Optional, Sequence

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.roles import CRITERION, LOSS_VALUE
from gradlint.analysis.scopes import Scope, ScopeTable, enclosing_scope, entry_key
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.semantic.nodes import NodeIndex
from gradlint.analysis.shapes import static_shape
from gradlint.analysis.summaries import FunctionSummaries, FunctionSummary
from gradlint.analysis.syntax import DEFINITIONS, is_integer_literal, is_none_literal
from gradlint.analysis.tensors import NON_TENSOR_ROOTS, TensorEvidence, root_name, shadows, tuple_member
from gradlint.analysis.tree import descendants

# What the tensor evidence's `follow` keys a function's 0-dim result by: no parameter can be named so.
SCALAR_RETURNS = " returns 0-dim"
# Functions and methods whose result is a single number (a 0-dim tensor in torch >= 0.4).
SCALAR_REDUCTIONS = torch_api.methods("reduction", without=("index",)) | torch_api.methods("scalar")
# Reductions given one dim: `x.sum(0)` of a 1-D `x` is 0-dim (its shape says so).
DIM_REDUCTIONS = torch_api.methods("drops-dim")
# In-place methods that change values only: they return the receiver itself, shape and all.
IN_PLACE_ON_VALUES = torch_api.methods("scales") | torch_api.methods("accumulates") | torch_api.methods("fills")
# Index reductions: without a dim a 0-dim index, with one a tensor of indices.
INDEX_REDUCTIONS = torch_api.methods("index")
# Full reductions to one value (not a count or a truth value, which other types also give).
_VALUE_REDUCTIONS = torch_api.methods("reduction", without=("int",))
# Methods that keep a value's shape (and so its one number).
SHAPE_KEEPING = torch_api.methods("self") | torch_api.methods("same-layout")
# Builtins that turn a 0-dim tensor into exactly the number `.item()` gives.
NUMBER_CONVERSIONS = frozenset({"int", "float"})
# Uses where a 0-dim tensor and its `.item()` give the same result: conversions, and `str.format` /
# f-strings (`Tensor.__format__` formats the item of a 0-dim tensor); `"%s" % t` prints `tensor(2)`.
EXACT_USES = NUMBER_CONVERSIONS | {"format"}
# Factories of a tensor from a literal list: one element in the list, one element in the tensor.
LIST_FACTORIES = torch_api.functions("list")
DISTRIBUTIONS = "torch.distributions."
# `torch.nn` modules named `...Loss` that do not return one number whatever their reduction.
NON_SCALAR_LOSS_MODULES = frozenset({"torch.nn.AdaptiveLogSoftmaxWithLoss"})
# Class-index losses: a `(1, C)` input wants a target of shape `(1,)`.
CLASS_LOSS_MODULES = frozenset({"torch.nn.CrossEntropyLoss", "torch.nn.NLLLoss"})
CLASS_LOSS_FUNCTIONS = frozenset({"torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss"})
# Shaping that makes a batch of one: `out.view(1, -1)`, `out.reshape(1, n)`, `out.unsqueeze(0)`.
BATCH_OF_ONE_METHODS = frozenset({"view", "reshape"})
# Constructors of a flat tensor from a list: `torch.LongTensor(ids)`, `torch.tensor([1, 2])`.
FLAT_FACTORIES = LIST_FACTORIES


class Kind(Enum):
    ZERO_DIM = "0-dim"  # `[0]` raises IndexError
    ONE_ELEMENT = "one-element"  # `[0]` gives a 0-dim tensor


@dataclass(frozen=True)
class Accumulator:
    """A name that sums the `.data` of one-number tensors (`total_loss += loss.data`) and is read
    only as `total_loss[0]` / `total_loss.data[0]`."""

    name: str
    additions: tuple[cst.Attribute, ...]  # the `.data` nodes added
    reads: tuple[cst.Subscript, ...]  # `name[0]` / `name.data[0]`
    # Some `+=` adds a Python number (`loss.item()`, a literal): the sum is not 0.3's float32 tensor.
    adds_numbers: bool = False


@dataclass(frozen=True)
class ScalarRead:
    """A legacy number read: `x.data[0]`, `x.data.numpy()[0]`, `x.data.cpu().numpy()[0]`,
    `x.cpu().data.numpy()[0]`, or `acc[0]` / `acc.data[0]` on an accumulator."""

    value: cst.BaseExpression  # x (or the accumulator's name)
    data: Optional[cst.Attribute]  # the `.data` read on the way, if any
    kind: Kind
    use: Optional[str]  # how the number is used, when the code says so
    accumulator: Optional[Accumulator] = None
    # `x.data[0][0]`: the number of the first row, read with a second `[0]`.
    row: bool = False
    # The read reaches only code that raises for a tensor whatever its value (`env.step` of an
    # environment whose action space accepts only an int), where `.item()` gives the number 0.3 read.
    rejected_as_tensor: bool = False

    @property
    def number_of(self) -> cst.BaseExpression:
        """What `.item()` reads: `x`, or its first row `x[0]` for `x.data[0][0]` of a tensor with dimensions."""
        if self.row and self.kind is Kind.ONE_ELEMENT:
            return cst.Subscript(self.value, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])
        return self.value

    @property
    def exact(self) -> bool:
        """`.item()` gives exactly what the read gives where the read still works under torch 2.x."""
        # `x[0].item()` for `x.data[0][0]` raises on a row of several numbers, where the read did not.
        return self.kind is Kind.ZERO_DIM or (self.use in EXACT_USES and not self.row)

    @property
    def safe(self) -> bool:
        """`.item()` gives what the read gives where the read works under torch 2.x, or the read
        raises for every value and `.item()` gives the number 0.3 read."""
        return self.exact or (self.rejected_as_tensor and not self.row)


def legacy_number_read(subscript: cst.Subscript) -> Optional[tuple[cst.BaseExpression, cst.Attribute]]:
    """(x, the `.data` node) for `x.data[0]`, `x.data.numpy()[0]`, `x.data.cpu().numpy()[0]` and
    `x.cpu().data.numpy()[0]`."""
    if not indexes_zero(subscript):
        return None
    value = subscript.value
    if _is_data(value):
        return value.value, value
    if not _is_method_call(value, "numpy", arguments=False):
        return None
    inner = value.func.value
    if _is_method_call(inner, "cpu", arguments=False) and _is_data(inner.func.value):
        return inner.func.value.value, inner.func.value  # x.data.cpu().numpy()[0]
    if _is_data(inner):
        receiver = inner.value
        if _is_method_call(receiver, "cpu", arguments=False):
            return receiver.func.value, inner  # x.cpu().data.numpy()[0]
        return receiver, inner  # x.data.numpy()[0]
    return None


def first_row_number_read(subscript: cst.Subscript) -> Optional[tuple[cst.BaseExpression, cst.Attribute]]:
    """(x, the `.data` node) for `x.data[0][0]`: the number of the first row of a `(1, 1)` or `(N, 1)`
    tensor in torch 0.1-0.3 (whose reductions over a dim kept it), an index into a 0-dim tensor today."""
    inner = subscript.value
    if not indexes_zero(subscript) or not isinstance(inner, cst.Subscript) or not indexes_zero(inner) or not _is_data(inner.value):
        return None
    return inner.value.value, inner.value


def is_row_of_number_read(subscript: cst.Subscript, parent: Optional[cst.CSTNode]) -> bool:
    """`x.data[0]` read again with `[0]`: the outer read is the number read, not this one."""
    return isinstance(parent, cst.Subscript) and parent.value is subscript and first_row_number_read(parent) is not None


def number_use(stack: Sequence[cst.CSTNode]) -> Optional[str]:
    """How the expression at the end of `stack` is used as a number, if the code says so:
    "int" / "float" (converted), "key" (a subscript index or dict key), "format" (a `str.format`
    or f-string argument), "percent" (a `%` format argument), "action" (`env.step(...)`)."""
    node = stack[-1]
    parents = list(reversed(stack[:-1]))
    parent = parents[0] if parents else None
    if isinstance(parent, cst.Arg) and len(parents) > 1 and isinstance(parents[1], cst.Call):
        call = parents[1]
        func = call.func
        if isinstance(func, cst.Name) and func.value in NUMBER_CONVERSIONS and len(call.args) == 1:
            return func.value
        if isinstance(func, cst.Attribute) and func.attr.value == "format":
            return "format"
        if isinstance(func, cst.Attribute) and func.attr.value == "step" and "env" in _last_name(func.value).lower():
            return "action"
    if isinstance(parent, cst.Index) and len(parents) > 2 and isinstance(parents[2], cst.Subscript):
        return "key"
    if isinstance(parent, cst.DictElement) and parent.key is node:
        return "key"
    if isinstance(parent, cst.FormattedStringExpression):
        return "format"
    if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Modulo) and parent.right is node:
        return "percent" if isinstance(parent.left, (cst.SimpleString, cst.ConcatenatedString)) else None
    if isinstance(parent, cst.Element) and len(parents) > 2 and isinstance(parents[1], cst.Tuple):
        operation = parents[2]
        if isinstance(operation, cst.BinaryOperation) and isinstance(operation.operator, cst.Modulo) and operation.right is parents[1]:
            return "percent" if isinstance(operation.left, (cst.SimpleString, cst.ConcatenatedString)) else None
    return None


class ScalarEvidence:
    """Which expressions hold one number, asked through `FileContext.scalars`."""

    def __init__(
        self,
        imports: ImportMap,
        scopes: ScopeTable,
        tensors: TensorEvidence,
        module: Optional[cst.Module] = None,
        nodes: Optional[NodeIndex] = None,
        summaries: Optional[Callable[[cst.FunctionDef], FunctionSummary]] = None,
        *,
        by_name: bool = True,
    ) -> None:
        self.imports = imports
        self.scopes = scopes
        self.tensors = tensors
        self.module = module
        self.nodes = nodes
        self.summaries = summaries
        # Whether a name playing a loss's role (`loss`, `criterion(...)`) counts as evidence.
        self.by_name = by_name
        # What `tensors.follow` keys a function's 0-dim results by, apart for each kind of evidence.
        self._returns_key = SCALAR_RETURNS if by_name else f"{SCALAR_RETURNS} by construction"
        self._accumulators: dict[tuple[int, str], Optional[Accumulator]] = {}
        self._name_uses: dict[int, dict[str, list[cst.Name]]] = {}

    @cached_property
    def evident(self) -> "ScalarEvidence":
        """The same questions answered without names: 0-dim by how a value is made (a criterion
        module, a full reduction, a shape), never because it is called `loss`."""
        if not self.by_name:
            return self
        return ScalarEvidence(self.imports, self.scopes, self.tensors, self.module, self.nodes, self.summaries, by_name=False)

    # -- zero-dim values: losses and full reductions ------------------------------------------

    def is_scalar(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int = 0) -> bool:
        """A 0-dim tensor under torch 2.x: a loss, a full reduction, or a name bound to one."""
        if depth > 8:
            return False
        if isinstance(node, cst.Call):
            return self._call_is_scalar(node, scope, depth)
        if isinstance(node, cst.Name):
            return self._name_is_scalar(node.value, scope, depth)
        if isinstance(node, cst.BinaryOperation):
            return self.is_scalar(node.left, scope, depth + 1) and self.is_scalar(node.right, scope, depth + 1)
        if isinstance(node, cst.Attribute):
            return self._attribute_is_scalar(node, scope, depth)
        if isinstance(node, cst.Subscript):
            return self._element_is_scalar(node, scope, depth) or self._entry_is_scalar(node, scope, depth)
        return False

    def _element_is_scalar(self, node: cst.Subscript, scope: Optional[Scope], depth: int) -> bool:
        """`f(...)[0]` where `f`, a function of this file, returns a list every element of which
        is 0-dim (`res.append(correct_k.mul_(100.0 / n))` ... `return res`)."""
        index = _single_index(node)
        call = node.value
        if not isinstance(index, cst.Integer) or not isinstance(call, cst.Call) or self.summaries is None:
            return False
        function, _ = self.tensors.returned_values(call, scope)
        items = self.summaries(function).returned_list_items if function is not None else None
        return bool(items) and self.tensors.follow(
            (id(function), f"{self._returns_key} items"), lambda: all(self.is_scalar(item, function, depth + 1) for item in items)
        )

    def _attribute_is_scalar(self, node: cst.Attribute, scope: Optional[Scope], depth: int) -> bool:
        """`self.err` where every value but None the class's methods bind to it is 0-dim."""
        values = [(value, method) for value, method in self.scopes.instance_attribute_values(node, scope) if not is_none_literal(value)]
        return bool(values) and all(self.is_scalar(value, method, depth + 1) for value, method in values)

    def _entry_is_scalar(self, node: cst.Subscript, scope: Optional[Scope], depth: int) -> bool:
        """`stats["err"]` where every value but None this scope binds to the entry is 0-dim
        (`stats["err"] = loss`, `stats = {"err": loss}`)."""
        key = entry_key(node)
        if key is None or scope is None:
            return False
        values = self.scopes.entry_values(key, scope)
        values = [value for value in values if not is_none_literal(value)]
        return bool(values) and all(self.is_scalar(value, scope, depth + 1) for value in values)

    def _lambda_is_scalar(self, name: str, scope: Optional[Scope], depth: int) -> bool:
        """`measure(x, y)` where `measure` is bound only to lambdas whose body is 0-dim."""
        values = self.scopes.values_of(name, scope)
        return (
            scope is not None
            and bool(values)
            and all(
                isinstance(value, cst.Lambda) and not shadows(value, self.scopes.of(scope)) and self.is_scalar(value.body, scope, depth + 1)
                for value in values
            )
        )

    def _call_is_scalar(self, call: cst.Call, scope: Optional[Scope], depth: int) -> bool:
        qualified = self.imports.qualified_name(call.func)
        if qualified is not None:
            short = qualified.rsplit(".", 1)[-1]
            if qualified.startswith("torch.nn.functional.") and (short.endswith("loss") or short in _FUNCTIONAL_LOSSES):
                return _keeps_reduction(call)
            return qualified.startswith("torch.") and short in SCALAR_REDUCTIONS | INDEX_REDUCTIONS and len(call.args) == 1
        func = call.func
        if self._returns_scalar(call, scope, depth):
            return True
        if isinstance(func, cst.Attribute) and func.attr.value == "forward":
            return self._is_loss_callee(func.value, scope)  # `criterion.forward(out, y)`: the call spelt out
        if isinstance(func, cst.Name):
            named = self.by_name and bool(CRITERION.match(func.value)) and not self.tensors.returns_no_tensor(call, scope)
            return named or self._is_reducing_loss_module(func.value, scope) or self._lambda_is_scalar(func.value, scope, depth)
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
            and CRITERION.match(func.attr.value)
            and self.by_name
        ):
            return True  # `self.criterion(out, y)`, as `criterion(out, y)`
        if isinstance(func, cst.Attribute) and func.attr.value in SCALAR_REDUCTIONS | INDEX_REDUCTIONS and not call.args:
            return self.tensors.is_tensor(func.value, scope, depth + 1)
        if isinstance(func, cst.Attribute) and func.attr.value in SHAPE_KEEPING | IN_PLACE_ON_VALUES:
            return self.is_scalar(func.value, scope, depth + 1)
        if isinstance(func, cst.Attribute) and func.attr.value in DIM_REDUCTIONS:
            return static_shape(call, self.imports, self.scopes, scope) == ()  # `x.sum(0)` of a 1-D `x`
        return False

    def _is_loss_callee(self, receiver: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`criterion` or `loss` in `criterion.forward(out, y)`: a loss module that reduces, by its
        bindings, or by its name when nothing in the scope binds it (a parameter). A tensor has no
        `.forward`, so a receiver named like a loss value (`loss.forward(fx, y)`) is the module."""
        if isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name) and receiver.value.value == "self":
            return self.by_name and bool(CRITERION.match(receiver.attr.value) or LOSS_VALUE.match(receiver.attr.value))
        if not isinstance(receiver, cst.Name) or self.imports.is_imported(receiver.value):
            return False
        name = receiver.value
        if self._is_reducing_loss_module(name, scope):
            return True
        bound = self.scopes.values_of(name, scope) or (self.module is not None and self.scopes.values_of(name, self.module))
        return self.by_name and not bound and bool(CRITERION.match(name) or LOSS_VALUE.match(name))

    def _is_reducing_loss_module(self, name: str, scope: Optional[Scope]) -> bool:
        """`distance` bound (here or at module level) to `nn.L1Loss()`: its result is one number
        unless the module is built with `reduction='none'` / `reduce=False`."""
        values = self.scopes.values_of(name, scope)
        if not values and self.module is not None and scope is not self.module:
            values = self.scopes.values_of(name, self.module)
        return bool(values) and all(
            isinstance(value, cst.Call) and _is_loss_module(self.imports.qualified_name(value.func)) and _keeps_reduction(value)
            for value in values
        )

    def _returns_scalar(self, call: cst.Call, scope: Optional[Scope], depth: int) -> bool:
        """`call` runs a plain function of this file whose every `return` gives a 0-dim tensor."""
        function, returns = self.tensors.returned_values(call, scope)
        return bool(returns) and self.tensors.follow(
            (id(function), self._returns_key), lambda: all(self.is_scalar(value, function, depth + 1) for value in returns)
        )

    def _unpacks_scalar(self, value: cst.BaseExpression, position: int, depth: int, scope: Optional[Scope]) -> bool:
        """Member `position` of a call of a plain function of this file whose every `return` is a
        tuple with a 0-dim tensor there (`err, out = forward_pass(...)`)."""
        if not isinstance(value, cst.Call):
            return False
        function, returns = self.tensors.returned_values(value, scope)
        members = [tuple_member(returned, position) for returned in returns]
        return (
            bool(members)
            and None not in members
            and self.tensors.follow(
                (id(function), f"{self._returns_key}{position}"),
                lambda: all(self.is_scalar(member, function, depth + 1) for member in members),
            )
        )

    def _iterates_scalars(self, iterable: cst.BaseExpression, scope: Optional[Scope], depth: int) -> bool:
        """`for term in (loss, penalty.sum())`: a tuple or list written out, every element 0-dim."""
        if not isinstance(iterable, (cst.Tuple, cst.List)) or not iterable.elements:
            return False
        return all(not isinstance(e, cst.StarredElement) and self.is_scalar(e.value, scope, depth + 1) for e in iterable.elements)

    def _name_is_scalar(self, name: str, scope: Optional[Scope], depth: int) -> bool:
        if name in NON_TENSOR_ROOTS or self.imports.is_imported(name):
            return False
        if not self.by_name:
            return self._every_binding_is_scalar(name, scope, depth)
        if scope is not None:
            bindings = self.scopes.of(scope)
            if any(self._unpacks_scalar(value, position, depth, scope) for value, position in bindings.unpacked.get(name, ())):
                return True
            if any(
                position is None and self._iterates_scalars(source, scope, depth)
                for source, position in bindings.loop_sources.get(name, ())
            ):
                return True
        values = self.scopes.values_of(name, scope)
        tensor_values = [value for value in values if not _is_non_tensor_value(value)]
        if len(tensor_values) < len(values):
            # A list gathered then reduced into the same name (`policy_loss = torch.cat(policy_loss).sum()`):
            # only the evidently 0-dim binding counts, never the name.
            return bool(tensor_values) and all(self.is_scalar(value, scope, depth + 1) for value in tensor_values)
        if any(self.is_scalar(value, scope, depth + 1) for value in values):
            return True
        if values and all(self.tensors.is_python_number(value, scope) for value in values):
            return False  # a Python number named like a loss (`loss = total / n` of `.item()`s) is no tensor
        return self.by_name and bool(LOSS_VALUE.match(name))

    def _every_binding_is_scalar(self, name: str, scope: Optional[Scope], depth: int) -> bool:
        """Every binding of `name` in the scope is an assignment of a 0-dim value: whichever one a
        read sees (`loss = torch.cat(parts)` then `loss[0]` is no 0-dim read, whatever else `loss`
        is later bound to)."""
        if scope is None:
            return False
        values = self.scopes.of(scope).plain_values(name)
        return bool(values) and all(self.is_scalar(value, scope, depth + 1) for value in values)

    # -- one-element values: sampled actions, the argmax of one row, `torch.Tensor([v])` ---------

    def one_element_kind(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int = 0) -> Optional[str]:
        """ "sample" for a sampled action, "one" for a tensor built from one literal element,
        "index" for the indices of a reduction over a dim (one per row: a number only when the
        code uses it as one); None otherwise."""
        if depth > 8:
            return None
        if isinstance(node, cst.Name):
            if node.value in NON_TENSOR_ROOTS or self.imports.is_imported(node.value):
                return None
            kinds = {self.one_element_kind(value, scope, depth + 1) for value in self.scopes.values_of(node.value, scope)}
            for value, position in self.scopes.of(scope).unpacked.get(node.value, []) if scope is not None else ():
                kinds.add("index" if position == 1 and self._is_dim_reduction(value) else None)
            return kinds.pop() if len(kinds) == 1 else None  # every binding agrees (None included)
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            if is_integer_literal(node.slice[0].slice.value, 1) and self._is_dim_reduction(node.value):
                return "index"  # out.max(1)[1]
            return None
        if not isinstance(node, cst.Call):
            return None
        qualified = self.imports.qualified_name(node.func) or ""
        func = node.func
        if qualified == "torch.multinomial" or (isinstance(func, cst.Attribute) and func.attr.value == "multinomial"):
            return "sample"
        if isinstance(func, cst.Attribute) and func.attr.value == "sample" and self._is_distribution(func.value, scope):
            return "sample"
        if qualified in LIST_FACTORIES and _one_literal_element(node):
            return "one"
        if qualified in ("torch.argmax", "torch.argmin") and len(node.args) > 1:
            return "index"
        if isinstance(func, cst.Attribute) and func.attr.value in INDEX_REDUCTIONS and node.args:
            return "index" if self.tensors.is_tensor(func.value, scope, depth + 1) else None
        if isinstance(func, cst.Attribute) and func.attr.value in SHAPE_KEEPING:
            return self.one_element_kind(func.value, scope, depth + 1)
        return None

    def is_one_number_read(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`x[0]`, `x[0, 0]` or `x[0][0]` of a sampled action or a tensor of one literal element (a
        new 0-dim tensor object on each read, where 0.3 gave a Python number), or a name bound to
        one and nothing else in the scope."""
        if isinstance(node, cst.Name) and scope is not None:
            values = self.scopes.of(scope).plain_values(node.value)
            if values is None or len(values) != 1:
                return False
            node = values[0]
        if not isinstance(node, cst.Subscript) or not _indexes_zeros(node):
            return False
        value = node.value
        if isinstance(value, cst.Subscript) and _indexes_zeros(value):
            value = value.value  # x[0][0]
        return self.one_element_kind(value, scope) in ("sample", "one")

    def _is_dim_reduction(self, node: cst.BaseExpression) -> bool:
        """`out.max(1)`, `torch.max(out, 1)`, `out.topk(1)`: (values, indices) over a dim."""
        if not isinstance(node, cst.Call):
            return False
        qualified = self.imports.qualified_name(node.func) or ""
        if qualified in ("torch.max", "torch.min", "torch.topk"):
            return len(node.args) > 1
        func = node.func
        return isinstance(func, cst.Attribute) and func.attr.value in ("max", "min", "topk") and bool(node.args)

    def _is_distribution(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        if isinstance(node, cst.Call):
            return (self.imports.qualified_name(node.func) or "").startswith(DISTRIBUTIONS)
        if isinstance(node, cst.Name):
            values = self.scopes.values_of(node.value, scope)
            return bool(values) and all(isinstance(value, cst.Call) and self._is_distribution(value, scope) for value in values)
        return False

    # -- accumulators -------------------------------------------------------------------------

    def accumulator(self, name: str, scope: Scope) -> Optional[Accumulator]:
        key = (id(scope), name)
        if key not in self._accumulators:
            self._accumulators[key] = self._find_accumulator(name, scope)
        return self._accumulators[key]

    def accumulated_data(self, data: cst.Attribute, stack: Sequence[cst.CSTNode], scope: Scope) -> bool:
        """`data` (a `.data` node) is added to an accumulator that is read only through `[0]`."""
        for ancestor in reversed(stack):
            if isinstance(ancestor, cst.AugAssign):
                found = isinstance(ancestor.target, cst.Name) and self.accumulator(ancestor.target.value, scope)
                return bool(found) and any(addition is data for addition in found.additions)
            if isinstance(ancestor, cst.BaseSmallStatement):
                return False
        return False

    def _find_accumulator(self, name: str, scope: Scope) -> Optional[Accumulator]:
        if not self._may_accumulate(name, scope):
            return None
        additions: list[cst.Attribute] = []
        reads: list[cst.Subscript] = []
        added = adds_numbers = False
        nodes = self._nodes_of(scope)
        for node in self._uses_of(name, scope):
            if not nodes.contains(_code_of(scope), node):
                return None  # a use in a nested function, class or lambda
            parent = nodes.parent(node)
            if isinstance(parent, cst.AugAssign) and parent.target is node:
                if not isinstance(parent.operator, cst.AddAssign):
                    return None
                data = self._added_number(parent.value, scope)
                if data is None:
                    return None
                additions.extend(data)
                added = True
                adds_numbers = adds_numbers or not data
            elif isinstance(parent, cst.AssignTarget) and parent.target is node:
                if not _is_number_literal(nodes.parent(parent).value):
                    return None
            elif _zero_index_read(node, nodes) is not None:
                reads.append(_zero_index_read(node, nodes))
            else:
                return None
        return Accumulator(name, tuple(additions), tuple(reads), adds_numbers) if added and reads else None

    def _may_accumulate(self, name: str, scope: Scope) -> bool:
        """Cheap test on the bindings before the walk over every use: an accumulator is bound to
        number literals and to what `+=` adds (`.data`, `.item()`, products of them)."""
        values = self.scopes.values_of(name, scope)
        return bool(values) and all(_is_number_literal(value) or isinstance(value, ADDED_FORMS) for value in values)

    def _uses_of(self, name: str, scope: Scope) -> list[cst.Name]:
        """The uses of `name` in `scope`, from an index of all its names built once per scope."""
        uses = self._name_uses.get(id(scope))
        if uses is None:
            uses = self._name_uses[id(scope)] = _name_uses(scope, self._nodes_of(scope))
        return uses.get(name, [])

    def _nodes_of(self, scope: Scope) -> NodeIndex:
        """The file's node index (an index of `scope` alone when neither it nor the file is given)."""
        if self.nodes is None:
            if self.module is None:
                return NodeIndex(scope)
            self.nodes = NodeIndex(self.module)
        return self.nodes

    def _added_number(self, value: cst.BaseExpression, scope: Scope) -> Optional[list[cst.Attribute]]:
        """The `.data` nodes of `value` when it adds one number: `loss.data`, `n * loss.data`,
        `loss.item()` (already migrated); None when it may add a tensor of any other shape."""
        if _is_method_call(value, "item", arguments=False) or _is_number_literal(value):
            return []
        if _is_data(value):
            return [value] if self.is_scalar(value.value, scope) else None
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Multiply, cst.Divide)):
            for this, other in ((value.left, value.right), (value.right, value.left)):
                found = self._added_number(this, scope)
                if found is not None and self._is_plain_number(other, scope):
                    return found
        return None

    def _is_plain_number(self, node: cst.BaseExpression, scope: Scope) -> bool:
        if _is_number_literal(node):
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len":
            return True
        return isinstance(node, cst.Name) and not self.tensors.is_tensor(node, scope) and not _mentions_data(node)

    # -- the legacy read as a whole --------------------------------------------------------------

    def legacy_read(self, subscript: cst.Subscript, parents: Sequence[cst.CSTNode], scope: Scope) -> Optional[ScalarRead]:
        """What `subscript` (with its ancestors `parents`, outermost first) reads, when it is a
        legacy number read of a one-number tensor; None for rows of real tensors and look-alikes."""
        if not indexes_zero(subscript):
            return None
        use = number_use((*parents, subscript))
        accumulated = self._accumulator_read(subscript, scope)
        if accumulated is not None:
            data = subscript.value if _is_data(subscript.value) else None
            return ScalarRead(cst.Name(accumulated.name), data, Kind.ZERO_DIM, use, accumulated)
        if parents and is_row_of_number_read(subscript, parents[-1]):
            return None
        found = legacy_number_read(subscript)
        row = found is None
        found = found or first_row_number_read(subscript)
        if found is None:
            return self._zero_dim_index(subscript, use, scope)
        value, data = found
        shape = static_shape(value, self.imports, self.scopes, scope)
        if shape == () or self.is_scalar(value, scope) or self._full_reduction_of_unknown(value, scope):
            return ScalarRead(value, data, Kind.ZERO_DIM, use, row=row)
        made = self.one_element_kind(value, scope)
        one_element = shape is not None and all(size == 1 for size in shape)
        if one_element or made in ("sample", "one") or (made == "index" and use is not None) or self.is_backpropagated(value, scope):
            rejected = not row and self._reaches_only_tensor_rejecting_steps(subscript, parents, scope)
            return ScalarRead(value, data, Kind.ONE_ELEMENT, use, row=row, rejected_as_tensor=rejected)
        return None

    def _zero_dim_index(self, subscript: cst.Subscript, use: Optional[str], scope: Scope) -> Optional[ScalarRead]:
        """`x[0]` (no `.data`) of a value 0-dim by how it is made, not by its name (`prec1[0]` of
        `prec1 = accuracy(out, y)[0]`, a list of `.sum(0)`s of 1-D tensors): a one-element tensor in
        0.3, whose `[0]` was its number; since 0.4 the index raises IndexError for every value."""
        value = subscript.value
        if not isinstance(value, (cst.Name, cst.Call)) or (isinstance(value, cst.Name) and value.value in NON_TENSOR_ROOTS):
            return None
        return ScalarRead(value, None, Kind.ZERO_DIM, use) if self.evident.is_scalar(value, scope) else None

    # -- where a number read goes ---------------------------------------------------------------

    def _reaches_only_tensor_rejecting_steps(self, read: cst.Subscript, parents: Sequence[cst.CSTNode], scope: Scope) -> bool:
        """The read is the action of `env.step(...)` (directly, or as what the function returns to
        callers that hand it only to such steps) of an environment whose `step` raises for a tensor
        action whatever its value (`gym.make("CartPole-v0")`, see `torch_api.environments`)."""
        parent = parents[-1] if parents else None
        if isinstance(parent, cst.Arg) and len(parents) > 1:
            call = parents[-2]
            return isinstance(call, cst.Call) and len(call.args) == 1 and self._rejects_tensor_actions(call, scope)
        if not (isinstance(parent, cst.Return) and parent.value is read and isinstance(scope, cst.FunctionDef)) or self.summaries is None:
            return False
        receivers = self.summaries(scope).result_arguments
        return bool(receivers) and all(self._rejects_tensor_actions(site.call, site.scope or self.module) for site in receivers)

    def _rejects_tensor_actions(self, call: cst.Call, scope: Optional[Scope]) -> bool:
        """`env.step(a)` where `env` is bound (in the scope, else at module level) only to
        `gym.make("<id>")` of an environment that asserts its action is an int."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "step" and isinstance(func.value, cst.Name)) or scope is None:
            return False
        name = func.value.value
        values = self.scopes.of(scope).plain_values(name)
        if values is None:
            return False
        if not values and self.module is not None and scope is not self.module:
            values = self.scopes.of(self.module).plain_values(name)
        return bool(values) and all(self._makes_tensor_rejecting_environment(value) for value in values)

    def _makes_tensor_rejecting_environment(self, value: cst.BaseExpression) -> bool:
        if not (isinstance(value, cst.Call) and len(value.args) == 1 and value.args[0].keyword is None):
            return False
        identifier = value.args[0].value
        if not isinstance(identifier, cst.SimpleString):
            return False
        return torch_api.rejects_tensor_actions(self.imports.qualified_name(value.func), identifier.evaluated_value)

    def is_backpropagated(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`out.backward()` without a gradient in the scope that binds `out` once: torch (0.3 as
        today) accepts it only on a one-element tensor, so `out` holds one number."""
        if not isinstance(node, cst.Name) or scope is None or self.imports.is_imported(node.value):
            return False
        name = node.value
        values = self.scopes.of(scope).plain_values(name)
        if values is None or len(values) > 1:
            return False
        nodes = self._nodes_of(scope)
        return any(_backpropagated_here(use, nodes) for use in self._uses_of(name, scope))

    def _full_reduction_of_unknown(self, value: cst.BaseExpression, scope: Scope) -> bool:
        """`v.max()` read as `v.max().data[0]`, `v` of unknown type: only a pre-0.4 Variable's full
        reduction has a `.data` whose `[0]` is a number (a numpy scalar's `.data` is a 0-dim
        memoryview that cannot be indexed), so the read is a legacy one unless `v` is evidently
        something else."""
        if not (isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute)):
            return False
        if value.func.attr.value not in _VALUE_REDUCTIONS:
            return False
        return not self._evidently_not_tensor(value.func.value, scope)

    def _evidently_not_tensor(self, receiver: cst.BaseExpression, scope: Scope) -> bool:
        qualified = self.imports.qualified_name(receiver.func if isinstance(receiver, cst.Call) else receiver)
        if qualified is not None:
            return not qualified.startswith("torch.")
        root = root_name(receiver)
        if root is None:
            return True  # a literal, a comprehension
        if root in ("self", "cls"):
            return False
        if self.imports.is_imported(root) or root in NON_TENSOR_ROOTS:
            return True
        return any(
            _is_non_tensor_value(bound) or not (self.imports.qualified_name(_callee(bound)) or "torch.").startswith("torch.")
            for bound in self.scopes.values_of(root, scope)
        )

    def _accumulator_read(self, subscript: cst.Subscript, scope: Scope) -> Optional[Accumulator]:
        if not indexes_zero(subscript):
            return None
        target = subscript.value.value if _is_data(subscript.value) else subscript.value
        return self.accumulator(target.value, scope) if isinstance(target, cst.Name) else None


@dataclass(frozen=True)
class PerElementTarget:
    """The target of a class-index loss taken one element at a time from a sequence: `target[c]`
    (c running over a `range`) or `y` in `for y in target`. From a 1-D sequence it is 0-dim."""

    target: cst.BaseExpression
    sequence: cst.BaseExpression
    # The call raises for sure: its input is shaped as a batch of one and the sequence is 1-D.
    certain: bool


class ClassTargets:
    """Class-index losses (`CrossEntropyLoss`, `NLLLoss`, `F.cross_entropy`, `F.nll_loss`) fed
    0-dim targets, asked through `FileContext.class_targets`."""

    def __init__(self, imports: ImportMap, scopes: ScopeTable, functions: Optional[FunctionSummaries] = None) -> None:
        self.imports = imports
        self.scopes = scopes
        self.functions = functions

    def per_element_target(self, call: cst.Call, stack: Sequence[cst.CSTNode]) -> Optional[PerElementTarget]:
        """The per-element target of `call` (at the end of `stack`) when the code says the input
        is one row `(1, C)`: a model stepped on the same element of a paired sequence
        (`decoder(inp[c], h)`), or an input shaped as a batch of one with a 1-D target sequence."""
        arguments = _input_and_target(call)
        if arguments is None:
            return None
        input_, target = arguments
        # Cheap syntactic test first: most calls are not inside a loop over a target sequence.
        element = self._element_of_loop(target, stack)
        if element is None or not self._is_class_loss(call.func, stack):
            return None
        scope = enclosing_scope(stack)
        sequence, loop, index = element
        input_value = self._value_in_loop(input_, loop, scope)
        one_dim = self._is_flat(sequence, scope)
        if _is_batch_of_one(input_value) and one_dim:
            return PerElementTarget(target, sequence, certain=True)
        if index is not None and self._steps_model_on(input_value, index):
            return PerElementTarget(target, sequence, certain=False)
        return None

    def _is_class_loss(self, func: cst.BaseExpression, stack: Sequence[cst.CSTNode]) -> bool:
        return self.imports.qualified_name(func) in CLASS_LOSS_FUNCTIONS or self._is_class_loss_module(func, stack)

    def _is_class_loss_module(self, func: cst.BaseExpression, stack: Sequence[cst.CSTNode]) -> bool:
        """`criterion` bound (here or at module level) to `nn.CrossEntropyLoss()`, or `self.criterion`
        bound so in the class's methods."""
        scope = enclosing_scope(stack)
        if isinstance(func, cst.Name):
            return self._names_class_loss(func.value, scope, stack[0], depth=0)
        if isinstance(func, cst.Attribute):
            values = [value for value, _ in self.scopes.instance_attribute_values(func, scope)]
            return bool(values) and all(self._is_class_loss_value(value) for value in values)
        return False

    def _names_class_loss(self, name: str, scope: Scope, module: cst.CSTNode, depth: int) -> bool:
        """`name` is bound in `scope` (or at module level) to a class-index loss module, or is a
        parameter of `scope` that every call of the function in the file passes such a module."""
        values = self.scopes.values_of(name, scope) or self.scopes.values_of(name, module)
        if values:
            return all(self._is_class_loss_value(value) for value in values)
        if depth > 2 or self.functions is None or not isinstance(scope, cst.FunctionDef):
            return False
        sites = self.functions.of(scope).call_sites
        passed = [_argument_for(site.call, scope, name, method=self.functions.table.class_of(scope) is not None) for site in sites]
        return bool(passed) and all(
            self._passes_class_loss(value, site.scope or module, module, depth) for value, site in zip(passed, sites)
        )

    def _passes_class_loss(self, value: Optional[cst.BaseExpression], scope: Scope, module: cst.CSTNode, depth: int) -> bool:
        if isinstance(value, cst.Name):
            return self._names_class_loss(value.value, scope, module, depth + 1)
        return value is not None and self._is_class_loss_value(value)

    def _is_class_loss_value(self, value: cst.BaseExpression) -> bool:
        return isinstance(value, cst.Call) and self.imports.qualified_name(value.func) in CLASS_LOSS_MODULES

    def _element_of_loop(
        self, target: cst.BaseExpression, stack: Sequence[cst.CSTNode]
    ) -> Optional[tuple[cst.BaseExpression, cst.For, Optional[str]]]:
        """(sequence, loop, index name) for `sequence[i]` with `for i in range(...)` around, or
        (sequence, loop, None) for the element `y` of `for y in sequence` around."""
        for loop in reversed(stack):
            if not isinstance(loop, cst.For):
                continue
            if isinstance(target, cst.Subscript) and _is_range_loop(loop):
                index = _single_index(target)
                if isinstance(index, cst.Name) and isinstance(loop.target, cst.Name) and index.value == loop.target.value:
                    return target.value, loop, index.value
            if isinstance(target, cst.Name) and isinstance(loop.target, cst.Name) and loop.target.value == target.value:
                if isinstance(loop.iter, (cst.Name, cst.Attribute)):
                    return loop.iter, loop, None
        return None

    def _value_in_loop(self, node: cst.BaseExpression, loop: cst.For, scope: Scope) -> cst.BaseExpression:
        """The expression a name was bound to inside `loop` (`output, h = decoder(...)`: the call)."""
        if not isinstance(node, cst.Name):
            return node
        inside = {id(inner) for inner in descendants(loop.body)}
        bindings = self.scopes.of(scope)
        values = [value for value in bindings.assigned(node.value) if id(value) in inside]
        values += [value for value, _ in bindings.unpacked.get(node.value, []) if id(value) in inside]
        return values[0] if len(values) == 1 else node

    def _steps_model_on(self, value: cst.BaseExpression, index: str) -> bool:
        """`decoder(inp[c], hidden)`: a model called on one element of a sequence."""
        if not (isinstance(value, cst.Call) and value.args and value.args[0].keyword is None):
            return False
        if self.imports.qualified_name(value.func) is not None:
            return False
        first = _single_index(value.args[0].value) if isinstance(value.args[0].value, cst.Subscript) else None
        return isinstance(first, cst.Name) and first.value == index

    def _is_flat(self, sequence: cst.BaseExpression, scope: Scope) -> bool:
        """Evidently 1-D: built from a flat list, or flattened with `.view(-1)`."""
        values = self.scopes.values_of(sequence.value, scope) if isinstance(sequence, cst.Name) else [sequence]
        return bool(values) and all(self._flat_value(value) for value in values)

    def _flat_value(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Call) and self.imports.qualified_name(value.func) in FLAT_FACTORIES and value.args:
            first = value.args[0].value
            return isinstance(first, (cst.List, cst.ListComp)) and not any(
                isinstance(element.value, (cst.List, cst.Tuple)) for element in getattr(first, "elements", ())
            )
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in ("view", "reshape"):
            return len(value.args) == 1 and _is_minus_one(value.args[0].value)
        return False


# -- syntax -----------------------------------------------------------------------------------


def indexes_zero(subscript: cst.Subscript) -> bool:
    """`x[0]`: one index, the literal 0."""
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return False
    return is_integer_literal(subscript.slice[0].slice.value, 0)


def _indexes_zeros(subscript: cst.Subscript) -> bool:
    """`x[0]`, `x[0, 0]`: every index the literal 0."""
    return all(isinstance(element.slice, cst.Index) and is_integer_literal(element.slice.value, 0) for element in subscript.slice)


def _is_data(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "data"


def _is_method_call(node: cst.BaseExpression, method: str, *, arguments: bool) -> bool:
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == method
        and (arguments or not node.args)
    )


def _is_number_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _mentions_data(node: cst.CSTNode) -> bool:
    return any(_is_data(inner) for inner in descendants(node))


def _one_literal_element(call: cst.Call) -> bool:
    """`torch.Tensor([v])`: one positional argument, a list of one non-list element."""
    if len(call.args) < 1 or call.args[0].keyword is not None:
        return False
    first = call.args[0].value
    return isinstance(first, cst.List) and len(first.elements) == 1 and not isinstance(first.elements[0].value, (cst.List, cst.Tuple))


def _last_name(node: cst.BaseExpression) -> str:
    """`env` for `env`, `self.env`, `envs[i]`."""
    if isinstance(node, cst.Subscript):
        node = node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return node.value if isinstance(node, cst.Name) else ""


def _zero_index_read(node: cst.Name, nodes: NodeIndex) -> Optional[cst.Subscript]:
    """The subscript `node[0]` or `node.data[0]` when `node` is read that way (not written)."""
    parent = nodes.parent(node)
    if _is_data(parent) and parent.value is node:
        node, parent = parent, nodes.parent(parent)
    if not isinstance(parent, cst.Subscript) or parent.value is not node:
        return None
    if not indexes_zero(parent):
        return None
    outer = nodes.parent(parent)
    written = isinstance(outer, (cst.AssignTarget, cst.Del)) or (isinstance(outer, cst.AugAssign) and outer.target is parent)
    return None if written else parent


def _backpropagated_here(name: cst.Name, nodes: NodeIndex) -> bool:
    """`name.backward()`, with no gradient passed."""
    attribute = nodes.parent(name)  # None for a use in a nested function, listed outside the tree
    if not (isinstance(attribute, cst.Attribute) and attribute.value is name and attribute.attr.value == "backward"):
        return False
    call = nodes.parent(attribute)
    return isinstance(call, cst.Call) and call.func is attribute and not call.args


# The shapes of what `_added_number` accepts.
ADDED_FORMS = (cst.Attribute, cst.Call, cst.BinaryOperation)


def _name_uses(scope: Scope, nodes: NodeIndex) -> dict[str, list[cst.Name]]:
    """Every `Name` node of a scope by name; a name used inside a nested function, class or lambda
    is listed once as a new node, outside the tree (an unknown use)."""
    uses: dict[str, list[cst.Name]] = {}
    subtree = nodes.subtree(_code_of(scope))
    position = 1  # the scope's block itself is no use
    while position < len(subtree):
        node = subtree[position]
        kind = type(node)  # exact types: isinstance on LibCST's ABCs is the slow path of this loop
        if kind is cst.Name:
            uses.setdefault(node.value, []).append(node)
        elif kind in DEFINITIONS:
            start, end = nodes.span(node)
            for inner in {inner.value for inner in subtree[position : position + end - start + 1] if type(inner) is cst.Name}:
                uses.setdefault(inner, []).append(cst.Name(inner))
            position += end - start + 1
            continue
        position += 1
    return uses


def _code_of(scope: Scope) -> cst.CSTNode:
    """The block of a function, or the module."""
    return scope.body if isinstance(scope, cst.FunctionDef) else scope


def _argument_for(call: cst.Call, function: cst.FunctionDef, parameter: str, *, method: bool) -> Optional[cst.BaseExpression]:
    """The expression `call` passes to `parameter` of `function` (None when it cannot be told:
    a star argument before it, a default, a decorated method)."""
    if method and function.decorators:
        return None
    receiver = (call.func.value if isinstance(call.func, cst.Attribute) else call.func) if method else None  # `self`
    bound = bind(call, Signature.of(function), receiver)
    return None if parameter == bound.receiver_parameter else bound.passed(parameter)


def _is_range_loop(loop: cst.For) -> bool:
    return isinstance(loop.iter, cst.Call) and isinstance(loop.iter.func, cst.Name) and loop.iter.func.value == "range"


def _single_index(subscript: cst.Subscript) -> Optional[cst.BaseExpression]:
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    return subscript.slice[0].slice.value


def _is_minus_one(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and is_integer_literal(node.expression, 1)


def _is_batch_of_one(value: cst.BaseExpression) -> bool:
    """`x.view(1, -1)`, `x.reshape(1, n)`, `x.unsqueeze(0)`."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.args):
        return False
    method, first = value.func.attr.value, value.args[0].value
    if method in BATCH_OF_ONE_METHODS:
        return len(value.args) == 2 and is_integer_literal(first, 1)
    return method == "unsqueeze" and len(value.args) == 1 and is_integer_literal(first, 0)


def _callee(node: cst.BaseExpression) -> cst.BaseExpression:
    """The called function of `node` when it is a call (through a method chain), else `node`."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Call):
        node = node.func.value
    return node.func if isinstance(node, cst.Call) else node


def _is_non_tensor_value(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.List, cst.Dict, cst.Set, cst.Tuple, cst.ListComp, cst.DictComp, cst.SimpleString, cst.FormattedString))


_FUNCTIONAL_LOSSES = torch_api.short_names(torch_api.functions("loss"))


def _is_loss_module(qualified: Optional[str]) -> bool:
    """`torch.nn.MSELoss`, `torch.nn.CrossEntropyLoss`...: a module whose call gives one number."""
    return (
        qualified is not None
        and qualified.startswith("torch.nn.")
        and qualified.count(".") == 2
        and qualified.endswith("Loss")
        and qualified not in NON_SCALAR_LOSS_MODULES
    )


def _keeps_reduction(call: cst.Call) -> bool:
    """A functional loss is a scalar unless `reduction='none'` or `reduce=False` is passed."""
    for arg in call.args:
        if arg.keyword is None:
            continue
        if arg.keyword.value == "reduction" and isinstance(arg.value, cst.SimpleString) and "none" in arg.value.value:
            return False
        if arg.keyword.value == "reduce" and isinstance(arg.value, cst.Name) and arg.value.value == "False":
            return False
    return True


def _input_and_target(call: cst.Call) -> Optional[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """The `input` and `target` arguments of a loss call, positional or by keyword."""
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    input_ = positional[0] if positional else keywords.get("input")
    target = positional[1] if len(positional) > 1 else keywords.get("target")
    return (input_, target) if input_ is not None and target is not None else None
