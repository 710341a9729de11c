from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from gradlint.analysis.syntax import is_bool_literal, keyword_arg, method_call_on, positional_args
from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = "`torch.tensor({source})` copies a tensor with a UserWarning; use `{replacement}`"
_KEYWORDS = frozenset({"dtype", "device", "requires_grad"})
# Code that changes the device `torch.tensor` builds on when given no `device=`.
_DEFAULT_DEVICE = re.compile(r"set_default_device|with\s+torch\.device\(")


class TensorFromTensor(Rule):
    """
    ## What it does
    Flags `torch.tensor(t)` where `t` is evidently a tensor (the result of a public torch function
    such as `torch.zeros` or `torch.nn.functional.*`, a tensor method's result on one, a name every
    binding of which in the function is one) that carries no autograd history.

    ## Why is this bad?
    `torch.tensor` is meant for Python data and numpy arrays. Given a tensor, torch 2.13 copies it
    and warns on every call: "UserWarning: To copy construct from a tensor, it is recommended to
    use sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True),
    rather than torch.tensor(sourceTensor)." The copy has no history. Measured in torch 2.13,
    `t.detach().clone()` gives the same result as `torch.tensor(t)` for float, integer, bool and
    half tensors and 0-d tensors: same values, dtype (a float32 source stays float32 even with a
    float64 default dtype), device, strides (a transposed `(3, 4)` source keeps strides `(1, 4)`
    in both, a channels-last source keeps its layout in both), new storage, a leaf without
    `requires_grad`; `dtype=`/`device=` equal `.to(dtype=..., device=...)` after the copy and
    `requires_grad=True` equals `.requires_grad_(True)` (a leaf that requires grad). The one
    difference: under `torch.set_default_device(...)` or a `with torch.device(...)` block,
    `torch.tensor(t)` builds on that device (a CPU source under `"meta"` gives a meta tensor) while
    `t.detach().clone()` stays on `t`'s device.

    ## Example
    ```python
    import torch

    mean = torch.zeros(3)
    running = torch.tensor(mean, dtype=torch.float64)
    ```

    ## Use instead
    ```python
    import torch

    mean = torch.zeros(3)
    running = mean.detach().clone().to(dtype=torch.float64)
    ```

    ## Fix safety
    Safe: the rewrite keeps values, dtype, device, layout and `requires_grad` as measured above,
    and drops the warning. Unsafe where a default device may be in effect: in files that call
    `torch.set_default_device` or enter `with torch.device(...)`, and in methods of `nn.Module`
    classes, which are often built under a caller's `with torch.device("meta")`: there the copy
    would stay on the source's device.

    ## Known limits
    A source with autograd history (a model's output, a parameter, a loss) is not reported: the
    copy severs the graph, and whether that is wanted is not known here (GL609 reports such a copy
    that reaches `backward()`). Sources whose type is not evident (a function's parameter, a
    numpy array, a list of tensors, the result of a private or helper function, even inside the
    `torch` package, an attribute) are not reported. Calls with other arguments
    (`pin_memory=`, a `*args`) are not reported.

    `torch.tensor(t)` of a 0-dim tensor copies one number and warns once: true, cheap, and
    reported all the same.
    """

    code = "GL705"
    name = "tensor-from-tensor"
    summary = "`torch.tensor(t)` on a tensor: a warning and a copy; use `t.detach().clone()`"
    severity = Severity.WARNING
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = ("tensor(",)

    VALID = (
        """
        import torch
        import numpy as np
        a = np.ones(3)
        t = torch.tensor(a)
        u = torch.tensor([1.0, 2.0])
        v = torch.tensor(values.tolist())
        """,
        """
        import torch
        def to_tensor(x):
            return torch.tensor(x)
        """,
        """
        import torch
        out = model(x)
        copy = torch.tensor(out)
        w = torch.tensor(model.weight)
        """,
        """
        import torch
        x = torch.ones(2)
        y = torch.tensor(x, pin_memory=True)
        z = torch.tensor([x, x])
        """,
        """
        import torch
        def flip(axis, i):
            axis = torch.tensor(axis + (0,))
            return torch.ger(axis, axis) * i
        """,
        """
        import torch
        import torch.nn as nn
        def step(model, x, y):
            loss = nn.functional.mse_loss(model(x), y)
            loss = torch.tensor(loss)
            loss.backward()
        """,
        """
        import tensorflow as tf
        x = tf.ones(2)
        y = tf.tensor(x)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            x = torch.arange(6).view(2, 3)
            y = torch.tensor(x)
            """,
            """
            import torch
            x = torch.arange(6).view(2, 3)
            y = x.detach().clone()
            """,
            line=3,
            column=5,
            message="`torch.tensor(x)` copies a tensor with a UserWarning; use `x.detach().clone()`",
            fix_title="Replace with `x.detach().clone()`",
        ),
        Invalid(
            """
            import torch
            mask = torch.tensor(torch.ones(4) > 0, dtype=torch.float32, device=device, requires_grad=True)
            """,
            """
            import torch
            mask = (torch.ones(4) > 0).detach().clone().to(dtype=torch.float32, device=device).requires_grad_(True)
            """,
        ),
        Invalid(
            """
            import torch
            scale = torch.tensor(torch.randn(3).mean(), requires_grad=False)
            """,
            """
            import torch
            scale = torch.randn(3).mean().detach().clone()
            """,
        ),
        Invalid(
            """
            import torch
            from torch import nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("scale", torch.tensor(torch.ones(3) * 2))
            """,
            """
            import torch
            from torch import nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("scale", (torch.ones(3) * 2).detach().clone())
            """,
            line=6,
            column=39,
        ),
        Invalid(
            """
            import torch
            torch.set_default_device("cuda")
            x = torch.zeros(2)
            y = torch.tensor(x)
            """,
            """
            import torch
            torch.set_default_device("cuda")
            x = torch.zeros(2)
            y = x.detach().clone()
            """,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.qualified_name(node.func) != "torch.tensor":
            return
        positional = positional_args(node)
        keywords = [arg for arg in node.args if arg.keyword is not None]
        if len(positional) != 1 or len(positional) + len(keywords) != len(node.args):
            return
        if any(arg.keyword.value not in _KEYWORDS for arg in keywords):
            return
        source = positional[0].value
        if not self._is_plain_tensor(source):
            return
        replacement = _copy(node, source)
        shown = snippet(self.context.code_for(replacement), 60)
        message = _MESSAGE.format(source=snippet(self.context.code_for(source), 30, "t"), replacement=shown)
        self.report(node, message, self._fix(node, replacement, shown))

    def _is_plain_tensor(self, source: cst.BaseExpression) -> bool:
        """A tensor by the file's evidence, without autograd history."""
        if not self.context.values.is_evident_tensor(source, self.context.scope()) or self.context.carries_grad(source):
            return False
        # `loss = criterion(...)` then `loss = torch.tensor(loss)`: any binding with history counts
        values = self.context.scopes.values_of(source.value, self.context.scope()) if isinstance(source, cst.Name) else []
        return not any(self.context.carries_grad(value) for value in values)

    def _fix(self, node: cst.Call, replacement: cst.BaseExpression, shown: str) -> FixPlan:
        default_device = self.context.file_text.search(_DEFAULT_DEVICE) or self.context.nn_modules.instance_of_method(self.context.stack)
        make = self.unsafe_fix if default_device else self.safe_fix
        return make(f"Replace with `{shown}`", Replace(node, replacement))


def _copy(call: cst.Call, source: cst.BaseExpression) -> cst.BaseExpression:
    """`source.detach().clone()`, then `.to(dtype=..., device=...)` and `.requires_grad_(...)` as given."""
    copy: cst.BaseExpression = method_call_on(method_call_on(source, "detach"), "clone")
    moves = [
        arg.with_changes(comma=cst.MaybeSentinel.DEFAULT) for name in ("dtype", "device") if (arg := keyword_arg(call, name)) is not None
    ]
    if moves:
        copy = method_call_on(copy, "to", *moves)
    requires_grad: Optional[cst.Arg] = keyword_arg(call, "requires_grad")
    if requires_grad is not None and not is_bool_literal(requires_grad.value, False):
        copy = method_call_on(copy, "requires_grad_", cst.Arg(requires_grad.value))
    return copy
