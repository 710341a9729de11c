from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.syntax import positional_args
from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_VIEW = "view"
_TRANSPOSING_METHODS = torch_api.methods("transposes")
_TRANSPOSING_ATTRIBUTES = torch_api.attributes("transposes")
_TRANSPOSING_FUNCTIONS = torch_api.functions("transposes")
_STRIDE_KEEPING_METHODS = torch_api.methods("keeps-strides")
_STRIDE_KEEPING_FUNCTIONS = torch_api.functions("keeps-strides")
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)


class ViewOfStridedResult(Rule):
    """
    ## What it does
    Flags `.view(-1)` (and `.view(n, -1)` when the first dimension stayed in place) of the result
    of an element-wise operation (`*`, `+`, `x.mul(2)`, `sigmoid`, `exp`, `clone`...) whose first
    tensor operand is a transposed or permuted tensor (`x.t()`, `x.T`, `x.transpose(1, 2)`,
    `x.permute(0, 2, 1)`).

    ## Why is this bad?
    PyTorch 0.3's element-wise results were new contiguous tensors, so `.view` of them always
    worked. Today an element-wise result is laid out like its first tensor operand: measured under
    torch 2.13, `(x.t() * 2)` of a `(3, 4)` tensor has strides `(1, 4)`, and `.view(-1)` raises
    `RuntimeError: view size is not compatible with input tensor's size and stride (at least one
    dimension spans across two contiguous subspaces). Use .reshape(...) instead.` The same holds
    for `x.t().sigmoid()`, `torch.exp(x.t())`, `x.t().clone()` and `x.permute(0, 2, 1) + 1`.

    ## Example
    ```python
    import torch

    x = torch.randn(3, 4)
    flat = (x.t() * 2).view(-1)
    ```

    ## Use instead
    ```python
    import torch

    x = torch.randn(3, 4)
    flat = (x.t() * 2).reshape(-1)
    ```

    ## Fix safety
    The fix writes `.reshape(...)`. Where `.view` succeeds, `reshape` returns the same view
    (measured: same storage, same values); where `.view` raises, `reshape` copies the values in
    their logical order, which is what 0.3's `.view` of its contiguous result gave. Safe when the
    viewed result is written in place (a temporary nothing else refers to); unsafe through a name
    bound to the result, because the copy no longer shares memory with that name, as 0.3's view did.

    ## Known limits
    Only literal transpositions are followed (a permutation held in a variable is not), only the
    first tensor operand of a binary operation is considered, and where the code states that a
    moved dimension has size 1 (then the tensor is contiguous) the rule stays silent.
    `.view(n, -1)` is reported only for a transposition that leaves dimension 0 in place
    (`transpose(1, 2)`, `permute(0, 2, 1)`); other views (`view(b, a)`) may succeed and are not.
    """

    code = "GL514"
    name = "view-of-strided-result"
    summary = "`.view(...)` of an element-wise result of a transposed tensor: today it keeps the transposed strides and `.view` raises"
    severity = Severity.ERROR
    migration = "api"
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = (".view(",)

    VALID = (
        # contiguous results: a contiguous first operand, .contiguous(), reshape, a view of the transpose itself
        """
        import torch
        x = torch.randn(3, 4)
        y = torch.randn(4, 3)
        a = (y + x.t()).view(-1)
        b = (x.t() * 2).contiguous().view(-1)
        c = (x.t() * 2).reshape(-1)
        d = (x * 2).view(-1)
        """,
        # a view that keeps the transposed layout, a moved dimension of size 1, expand
        """
        import torch
        x = torch.randn(3, 4)
        a = (x.t() * 2).view(4, 3)
        b = (torch.randn(5, 1).t() * 2).view(-1)
        c = (torch.randn(3, 1).expand(3, 4) * 2).view(-1)
        d = (x.t() * 2).view(4, -1)
        """,
        # an operand that may be a contiguous tensor comes first; a name bound twice
        """
        import torch
        def f(w, x, flag):
            a = (w * x.t()).view(-1)
            y = x.t() * 2
            if flag:
                y = x * 2
            return a, y.view(-1)
        """,
        # not a tensor's view: a numpy array's
        """
        import numpy as np
        a = np.zeros((3, 4))
        b = (a.T * 2).view(np.float32)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            x = torch.randn(3, 4)
            flat = (x.t() * 2).view(-1)
            """,
            """
            import torch
            x = torch.randn(3, 4)
            flat = (x.t() * 2).reshape(-1)
            """,
            line=3,
            column=8,
            message="keeps the strides of `x.t()`",
            fix_title="Use `.reshape(...)`",
        ),
        # through a name: the copy no longer aliases it
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            def features(h):
                scores = F.relu(h.permute(0, 2, 1))
                return scores.view(h.size(0), -1)
            """,
            """
            import torch
            import torch.nn.functional as F
            def features(h):
                scores = F.relu(h.permute(0, 2, 1))
                return scores.reshape(h.size(0), -1)
            """,
            fix_title="Use `.reshape(...)` (the copy no longer shares memory with `scores`)",
        ),
        Invalid(
            """
            import torch
            def flat(x):
                return torch.sigmoid(x.transpose(1, 2)).clone().view(x.size(0), -1)
            def flat_t(x):
                return (1 - x.T).view(-1)
            """,
            """
            import torch
            def flat(x):
                return torch.sigmoid(x.transpose(1, 2)).clone().reshape(x.size(0), -1)
            def flat_t(x):
                return (1 - x.T).reshape(-1)
            """,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != _VIEW:
            return
        keeps_first_dimension = _flattening(node)
        if keeps_first_dimension is None:
            return
        receiver, named = func.value, None
        if isinstance(receiver, cst.Name):
            values = self.context.scopes.values_of(receiver.value, self.context.scope())
            if len(values) != 1:
                return
            named, receiver = receiver.value, values[0]
        transposed = self._strided_operand(receiver)
        if transposed is None or (keeps_first_dimension and not self._first_dimension_stays(transposed)):
            return
        message = (
            f"`{snippet(self.context.code_for(node), 50)}` views the result of an element-wise operation, which keeps the strides of "
            f"`{snippet(self.context.code_for(transposed), 30)}` under torch 2.x (0.3's results were contiguous): `.view` raises "
            "'view size is not compatible with input tensor's size and stride'"
        )
        self.report(node, message, self._fix(func, named))

    def _strided_operand(self, node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The transposed tensor an element-wise `node` takes its layout from, if any."""
        operand = self._first_operand(node)
        if operand is None:
            return None
        if self._transposed(operand):
            return operand
        return self._strided_operand(operand)

    def _first_operand(self, node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The operand whose strides an element-wise `node`'s result keeps. (Only a torch tensor
        has `.view(-1)`: numpy's `view` takes a dtype, so the chain is taken for tensors.)"""
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
            return node.right if _is_number(node.left) else node.left
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            return node.expression
        if not isinstance(node, cst.Call) or any(arg.star for arg in node.args):
            return None
        func = node.func
        if self.context.qualified_name(func) in _STRIDE_KEEPING_FUNCTIONS:
            arguments = positional_args(node)
            return arguments[0].value if arguments else None
        if isinstance(func, cst.Attribute) and func.attr.value in _STRIDE_KEEPING_METHODS:
            return func.value
        return None

    def _transposed(self, node: cst.BaseExpression) -> bool:
        """`x.t()`, `x.T`, `x.transpose(0, 1)`, `x.permute(1, 0)`, `torch.t(x)`: dimensions moved,
        none of them known to have size 1."""
        moved = self._moved_dimensions(node)
        if moved is None:
            return False
        tensor, dimensions = moved
        if not dimensions:
            return False
        shape = self.context.shape_of(tensor)
        if shape is None:
            return True
        return all(-len(shape) <= dim < len(shape) and shape[dim] != 1 for dim in dimensions)

    def _moved_dimensions(self, node: cst.BaseExpression) -> Optional[tuple[cst.BaseExpression, tuple[int, ...]]]:
        """The transposed tensor and the dimensions a transposition moves, as literals say them."""
        if isinstance(node, cst.Attribute) and node.attr.value in _TRANSPOSING_ATTRIBUTES:
            return node.value, (-2, -1)
        if not isinstance(node, cst.Call) or any(arg.star or arg.keyword is not None for arg in node.args):
            return None
        func = node.func
        arguments = [arg.value for arg in node.args]
        if self.context.qualified_name(func) in _TRANSPOSING_FUNCTIONS and arguments:
            tensor, dimensions = arguments[0], arguments[1:]
        elif isinstance(func, cst.Attribute) and func.attr.value in _TRANSPOSING_METHODS:
            tensor, dimensions = func.value, arguments
        else:
            return None
        literal = [_integer(argument) for argument in dimensions]
        if None in literal:
            return None
        if not literal:
            return tensor, (0, 1)  # `t()`
        if len(literal) == 2:
            return tensor, tuple(literal) if literal[0] != literal[1] else ()
        return tensor, tuple(position for position, dim in enumerate(literal) if dim != position)

    def _first_dimension_stays(self, transposed: cst.BaseExpression) -> bool:
        moved = self._moved_dimensions(transposed)
        return moved is not None and all(dim > 0 for dim in moved[1])

    def _fix(self, func: cst.Attribute, named: Optional[str]) -> FixPlan:
        change = Replace(func.attr, "reshape")
        if named is None:
            return self.safe_fix("Use `.reshape(...)`", change)
        return self.unsafe_fix(f"Use `.reshape(...)` (the copy no longer shares memory with `{named}`)", change)


def _flattening(view: cst.Call) -> Optional[bool]:
    """False for `.view(-1)` (a flattening), True for `.view(n, -1)` (all but the first dimension
    merged), None for other views."""
    if any(arg.star or arg.keyword is not None for arg in view.args):
        return None
    sizes = [arg.value for arg in view.args]
    if len(sizes) == 1 and isinstance(sizes[0], cst.Tuple):
        sizes = [element.value for element in sizes[0].elements]
    if len(sizes) == 1 and _integer(sizes[0]) == -1:
        return False
    if len(sizes) == 2 and _integer(sizes[1]) == -1:
        return True
    return None


def _integer(node: cst.BaseExpression) -> Optional[int]:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _integer(node.expression)
        return -inner if inner is not None else None
    return int(node.value) if isinstance(node, cst.Integer) and node.value.isdigit() else None


def _is_number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))
