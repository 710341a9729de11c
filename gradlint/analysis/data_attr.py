"""Recognising `.data` on tensors: in-place updates through it, assignments to it, and reads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.grad_mode import runs_without_grad
from gradlint.analysis.history import ENDS_HISTORY, KEEPS_HISTORY
from gradlint.analysis.scalars import ScalarRead, indexes_zero, is_row_of_number_read
from gradlint.analysis.scopes import enclosing_scope
from gradlint.analysis.syntax import is_none_literal
from gradlint.analysis.tensors import root_name
from gradlint.analysis.values import Kind
from gradlint.analysis.tree import iter_children

if TYPE_CHECKING:
    from gradlint.context import FileContext

INIT_MODULE = "torch.nn.init."


def data_receiver(node: cst.CSTNode) -> Optional[cst.BaseExpression]:
    """`x` for the expression `x.data`, else None."""
    if isinstance(node, cst.Attribute) and node.attr.value == "data":
        return node.value
    return None


def is_tensor_data(context: FileContext, node: cst.CSTNode) -> bool:
    """`x.data` where x is evidently a tensor (`p.grad.data`, `m.weight.data`, a parameter...)."""
    receiver = data_receiver(node)
    if receiver is None or context.imports.qualified_name(node) is not None:
        return False  # `torch.utils.data`, `torchtext.data`: module paths
    if root_name(receiver) in ("self", "cls") and not isinstance(receiver, cst.Attribute):
        return False
    return context.is_tensor(receiver) and not context.values.reads_other_library_value(receiver, context.scope())


def data_nodes(context: FileContext, node: cst.CSTNode) -> list[cst.Attribute]:
    """Every tensor `.data` attribute inside `node` (lambdas and nested defs excluded)."""
    found = []
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, (cst.Lambda, cst.FunctionDef)):
            continue
        if isinstance(current, cst.Attribute) and is_tensor_data(context, current):
            found.append(current)
        pending.extend(iter_children(current))
    return found


def inplace_data_update(context: FileContext, small: cst.CSTNode) -> Optional[cst.Attribute]:
    """The `.data` node written in place by a small statement, or None.

    `x.data -= ...`, `x.data.add_(...)` (any in-place method that changes values, also in a chain
    such as `x.data.mul_(d).add_(y)`), `x.data[i] = v`, `x.data[mask] += v`, and an in-place
    method on a view of it, `x.data[:, 0].sub_(m)` (literal indices and slices only: an index
    tensor would give a copy). `nn.init.normal_(x.data, ...)` is handled separately by `init_on_data`.
    """
    if isinstance(small, cst.AugAssign):
        return _written_data(context, small.target)
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Subscript):
        return _written_data(context, small.targets[0].target)
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        while isinstance(call.func, cst.Attribute) and _is_inplace_method(call.func.attr.value):
            receiver = call.func.value
            if is_tensor_data(context, receiver):
                return receiver
            if isinstance(receiver, cst.Subscript):
                return _viewed_data(context, receiver)
            if not isinstance(receiver, cst.Call):
                break
            call = receiver
    return None


def _viewed_data(context: FileContext, view: cst.Subscript) -> Optional[cst.Attribute]:
    """`x.data` for `x.data[:, 0]`, `x.data[1][2:]`: views of it by basic indexing."""
    node: cst.BaseExpression = view
    while isinstance(node, cst.Subscript):
        if not all(_is_basic_index(element.slice) for element in node.slice):
            return None
        node = node.value
    return node if is_tensor_data(context, node) else None


def _is_basic_index(index: cst.BaseSlice) -> bool:
    """A slice, or a literal integer, `...` or `None`: indexing that gives a view."""
    if isinstance(index, cst.Slice):
        return True
    value = index.value
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Ellipsis)) or (isinstance(value, cst.Name) and value.value == "None")


def _written_data(context: FileContext, target: cst.BaseExpression) -> Optional[cst.Attribute]:
    """`x.data` for the assignment targets `x.data`, `x.data[i]`, `x.data[i][j]`."""
    while isinstance(target, cst.Subscript):
        target = target.value
    return target if is_tensor_data(context, target) else None


def init_on_data(context: FileContext, call: cst.Call) -> Optional[cst.Attribute]:
    """The `x.data` argument of `torch.nn.init.<name>_(x.data, ...)`."""
    qualified = context.qualified_name(call.func) or ""
    if not qualified.startswith(INIT_MODULE) or not qualified.endswith("_") or not call.args:
        return None
    first = call.args[0].value
    return first if data_receiver(first) is not None and not context.imports.qualified_name(first) else None


def data_assignment(context: FileContext, small: cst.CSTNode) -> Optional[cst.Attribute]:
    """The target of `x.data = expr` (also `x.data = y = expr`) when x is evidently a tensor."""
    if isinstance(small, cst.Assign):
        for target in small.targets:
            if is_tensor_data(context, target.target):
                return target.target
    return None


# In-place methods that change only the Python tensor object's metadata (shape, strides, storage,
# autograd flags), not the values. `x.data` is a fresh tensor object, so on it they leave `x` as it
# was; on `x` itself (the GL301 rewrite) they would resize, re-point or detach it.
_METADATA_INPLACE = frozenset(name for name in torch_api.methods("identity") if name.endswith("_"))


def _is_inplace_method(name: str) -> bool:
    return name.endswith("_") and not name.startswith("_") and name not in _METADATA_INPLACE


def under_no_grad(context: FileContext, stack: Sequence[cst.CSTNode]) -> bool:
    return runs_without_grad(stack, context.imports)


# -- which rule owns a `.data` use ----------------------------------------------------------
# GL103 owns `<scalar>.data[0]` (a number read, fixed with `.item()`), GL301 in-place updates and
# `nn.init` calls on `.data`, GL302 assignments to `.data`; GL303 owns every other read. Both sides
# of each split call the predicates below, so a use is never claimed twice or dropped.


def scalar_read(context: FileContext, stack: Sequence[cst.CSTNode]) -> Optional[ScalarRead]:
    """The legacy number read (`loss.data[0]`, `loss.data.numpy()[0]`, `total_loss[0]`...) that the
    Subscript at the end of `stack` is, or None."""
    subscript = stack[-1]
    if not isinstance(subscript, cst.Subscript) or not indexes_zero(subscript):
        return None
    return context.scalars.legacy_read(subscript, stack[:-1], enclosing_scope(stack))


def _claimed_by_scalar_read(context: FileContext, stack: Sequence[cst.CSTNode]) -> bool:
    """The `.data` at the end of `stack` is the one a legacy number read goes through, or is added
    to an accumulator read that way: both become `.item()`."""
    node = stack[-1]
    for depth in range(len(stack) - 2, max(len(stack) - 7, -1), -1):
        ancestor = stack[depth]
        if isinstance(ancestor, cst.Subscript):
            if depth > 0 and is_row_of_number_read(ancestor, stack[depth - 1]):
                depth -= 1  # `x.data[0][0]`: the outer subscript is the read
            read = scalar_read(context, stack[: depth + 1])
            return read is not None and read.data is node
        if not isinstance(ancestor, (cst.Attribute, cst.Call)):
            break
    return context.scalars.accumulated_data(node, stack, enclosing_scope(stack))


def is_plain_data_read(context: FileContext, stack: Sequence[cst.CSTNode]) -> bool:
    """The `.data` attribute at the end of `stack` is a read that no write or scalar rule rewrites."""
    node = stack[-1]
    if _claimed_by_scalar_read(context, stack):
        return False  # `loss.data[0]`, `total_loss += loss.data`: `.item()`; `bias.data[0]` is a read
    for ancestor in reversed(stack[:-1]):
        if isinstance(ancestor, (cst.AssignTarget, cst.Del)):
            return False
        if isinstance(ancestor, cst.Call) and init_on_data(context, ancestor) is node:
            return False  # the `.data` of the tensor an init call fills: dropped by the init fix
        if isinstance(ancestor, cst.BaseSmallStatement):
            # Inside a write through `.data`, whose fix rewrites the whole statement.
            return inplace_data_update(context, ancestor) is None and data_assignment(context, ancestor) is None
    return True


# The tensor's metadata: the same through `.data` as on the tensor itself, whatever its history.
_METADATA_ATTRIBUTES = torch_api.attributes("metadata")
_METADATA_METHODS = torch_api.methods("metadata")
# Methods whose result is a plain value or a new tensor object, never the receiver: on a tensor
# without history, `x.m()` gives what `x.data.m()` gives.
_NEW_VALUE_METHODS = (
    (KEEPS_HISTORY | ENDS_HISTORY) - torch_api.methods("self") - torch_api.methods("identity") - torch_api.methods("factory")
)
# May return the receiver itself (`x.cpu()` of a CPU tensor): followed to what consumes them.
_CONVERSIONS = torch_api.methods("self")
# Elementwise comparisons: they read their operand's values only, and their result has no history.
_COMPARISONS = torch_api.methods("compares") & ENDS_HISTORY


def data_is_redundant(context: FileContext, stack: Sequence[cst.CSTNode]) -> bool:
    """The `x.data` at the end of `stack` can be `x` itself: what consumes it reads only metadata
    (`x.data.size()`, `x.data.shape`), or `x` has no history and the consumer makes a new value
    (`x.data.numpy()`, `x.data.cpu().numpy()`, `x.data * 2`), so no code sees the object it was
    given: not its identity, its flags, or its version counter (an in-place method would now
    count on `x`). So is the operand of a tensor's comparison method (`pred.eq(label.data)`),
    whatever `x` carries: it reads values only and its result has no history. Also `y = x.data`
    where `y` is only read by value with autograd off (see
    `IdentityEvidence.read_only_by_value_without_grad`)."""
    receiver = data_receiver(stack[-1])
    index = len(stack) - 1
    assign = stack[-2] if len(stack) > 1 else None
    if type(assign) is cst.Assign and assign.value is stack[-1]:
        # `y = x.data` where `y` is only ever read by value with autograd off.
        return context.identity.read_only_by_value_without_grad(assign, context.scope())
    while index >= 1:
        node, parent = stack[index], stack[index - 1]
        if type(parent) is cst.Attribute and parent.value is node:
            call = stack[index - 2] if index >= 2 else None
            attribute = parent.attr.value
            if type(call) is not cst.Call or call.func is not parent:
                return attribute in _METADATA_ATTRIBUTES and not any(type(a) in (cst.AssignTarget, cst.Del) for a in stack[: index - 1])
            if attribute in _METADATA_METHODS:
                return True
            if attribute in _CONVERSIONS:
                index -= 2
                continue
            return attribute in _NEW_VALUE_METHODS and context.is_history_free(receiver)
        if type(parent) in (cst.BinaryOperation, cst.UnaryOperation) or (
            type(parent) in (cst.Comparison, cst.ComparisonTarget)
            and not _compares_identity(parent, stack[index - 2] if index >= 2 else None)
        ):
            return context.is_history_free(receiver)
        if type(parent) is cst.Arg and index >= 2 and _checks_legacy_type(context, stack[index - 2], parent):
            return True
        if type(parent) is cst.Arg and _hands_over_fresh_local(context, receiver):
            return True
        if type(parent) is cst.Arg and parent.keyword is None and index >= 2:
            # An operand of a method making a new value: `predicted.eq(target.data)`.
            call = stack[index - 2]
            method = call.func.attr.value if type(call) is cst.Call and type(call.func) is cst.Attribute else None
            qualified = context.qualified_name(call.func) if method is not None else None
            in_torch = qualified is None or qualified.startswith("torch.")  # a tensor's method or torch's
            if method in _COMPARISONS and in_torch and context.is_known_tensor(call.func.value):
                return True  # `pred.eq(label.data)`: the same values and no history, whatever `label` carries
            return method in _NEW_VALUE_METHODS and in_torch and context.is_history_free(receiver)
        return False
    return False


def _hands_over_fresh_local(context: FileContext, receiver: cst.BaseExpression) -> bool:
    """`save_image(x.data.cpu())` where this is the last read of a local bound to a new object
    without history (`x = torch.cat(...)` under no_grad): no other code can reach `x`, so the
    callee may be given `x` itself (same values, flags and storage) instead of an alias."""
    scope = context.scope()
    return type(receiver) is cst.Name and context.identity.is_last_use_of_fresh_local(receiver, scope)


# The typed tensor classes, which `isinstance` matches by dtype and device: the same for `x.data`.
_LEGACY_TYPES = torch_api.functions("legacy")


def _checks_legacy_type(context: FileContext, call: cst.CSTNode, argument: cst.Arg) -> bool:
    """`isinstance(x.data, torch.cuda.FloatTensor)`: the answer of `x` itself (not of a class such
    as `nn.Parameter`, which `x` may be while its `.data` is not)."""
    if type(call) is not cst.Call or len(call.args) != 2 or call.args[0] is not argument or argument.keyword is not None:
        return False
    if type(call.func) is not cst.Name or call.func.value != "isinstance" or context.qualified_name(call.func) is not None:
        return False
    if "isinstance" in context.imports.bindings or context.scopes.of(context.module).assigned("isinstance"):
        return False
    classes = call.args[1].value
    elements = [e.value for e in classes.elements] if type(classes) is cst.Tuple else [classes]
    return all(context.qualified_name(e) in _LEGACY_TYPES for e in elements)


# `in` tries identity before equality: `x in seen` may hold where `x.data in seen` does not.
_BY_IDENTITY = (cst.Is, cst.IsNot, cst.In, cst.NotIn)


def _compares_identity(parent: cst.CSTNode, grandparent: Optional[cst.CSTNode]) -> bool:
    comparison = parent if type(parent) is cst.Comparison else grandparent
    return type(comparison) is not cst.Comparison or any(type(t.operator) in _BY_IDENTITY for t in comparison.comparisons)


_RESIZES = frozenset({"resize_", "resize_as_"})


def resizes_a_temporary(stack: Sequence[cst.CSTNode]) -> bool:
    """The `x.data` or `x.detach()` at the end of `stack` is resized by a statement that keeps no
    result: `x.data.resize_(n).copy_(src)`. The resize gives the temporary a new size while `x`
    keeps its own (torch 2.13: a (2,) `x` stays (2,) and sees only the first two values copied),
    where the code of torch 0.3, whose `.data` was the tensor itself, resized and filled `x`."""
    node = stack[-1]
    if len(stack) < 4 or type(stack[-2]) is not cst.Attribute or stack[-2].attr.value not in _RESIZES or stack[-2].value is not node:
        return False
    index = len(stack) - 3
    if type(stack[index]) is not cst.Call or stack[index].func is not stack[-2]:
        return False
    while (
        index >= 2
        and type(stack[index - 1]) is cst.Attribute
        and stack[index - 1].value is stack[index]
        and type(stack[index - 2]) is cst.Call
        and stack[index - 2].func is stack[index - 1]
    ):
        index -= 2  # a method chained on the result: `.copy_(src)`, `.fill_(v)`
    return index >= 1 and type(stack[index - 1]) is cst.Expr and stack[index - 1].value is stack[index]


# Methods a number read goes through between `.data` and its index: `x.data.cpu().numpy()[0]`.
_READ_THROUGH = _CONVERSIONS | {"numpy"}


def may_index_a_number(context: FileContext, stack: Sequence[cst.CSTNode]) -> bool:
    """The `x.data` at the end of `stack` is indexed (`x.data[0]`, `x.data.cpu().numpy()[i]`) with
    more dims than the value model knows `x` has: `x` may be 0-dim (a loss, since PyTorch 0.4),
    where the index raises IndexError as it would through `x.detach()`, the number meant being
    `x.item()`."""
    index = len(stack) - 1
    while index >= 2 and type(stack[index - 1]) is cst.Attribute and stack[index - 1].value is stack[index]:
        call = stack[index - 2]
        if stack[index - 1].attr.value not in _READ_THROUGH or type(call) is not cst.Call or call.func is not stack[index - 1] or call.args:
            return False
        index -= 2
    subscript = stack[index - 1] if index >= 1 else None
    if type(subscript) is not cst.Subscript or subscript.value is not stack[index]:
        return False
    consumed = [element for element in subscript.slice if _consumes_a_dim(context, element)]
    if len(consumed) < len(subscript.slice) or any(isinstance(element.slice, cst.Slice) for element in consumed):
        return False  # `None`, `...`, a tensor index or a slice: a row or a column, not a number read
    return _known_dims(context, data_receiver(stack[-1])) < len(consumed)


def _known_dims(context: FileContext, tensor: cst.BaseExpression) -> int:
    """How many dims `tensor` is known to have at least: its literal shape's, or one for a layer's
    `.weight` / `.bias` (torch 0.3, whose code this reads, had no 0-dim tensors to make one of)."""
    shape = context.shape_of(tensor)
    if shape is not None:
        return len(shape)
    return 1 if context.value(tensor).kind is Kind.PARAMETER else 0


def _consumes_a_dim(context: FileContext, element: cst.SubscriptElement) -> bool:
    """An int or a slice; not `None`, `...`, a string or a tensor (a mask, an index tensor)."""
    if isinstance(element.slice, cst.Slice):
        return True
    value = element.slice.value
    if isinstance(value, (cst.Ellipsis, cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)) or is_none_literal(value):
        return False
    return not context.is_tensor(value)


# In-place changes of shape or storage: on `x.data` (a fresh tensor object since PyTorch 0.4) they
# leave `x` as it was, where in 0.3 `.data` was `x`'s own tensor and they changed `x`.
_RESHAPES_IN_PLACE = torch_api.methods("reshapes")


def reshapes_a_temporary(stack: Sequence[cst.CSTNode]) -> bool:
    """The `x.data` at the end of `stack` is reshaped in place (`x.data.t_()`, `.unsqueeze_(0)`,
    `.set_(src)`): the change reaches a temporary, not `x`."""
    if len(stack) < 3 or type(stack[-2]) is not cst.Attribute or stack[-2].value is not stack[-1]:
        return False
    return stack[-2].attr.value in _RESHAPES_IN_PLACE and type(stack[-3]) is cst.Call and stack[-3].func is stack[-2]
