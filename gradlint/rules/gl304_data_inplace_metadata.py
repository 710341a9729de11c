from __future__ import annotations

import libcst as cst

from gradlint.analysis.data_attr import is_tensor_data, reshapes_a_temporary, under_no_grad
from gradlint.analysis.values import Grad
from gradlint.fix.builders import enclosing_line, wrap_in_no_grad
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{receiver}.data.{method}(...)` changes a temporary since PyTorch 0.4, not `{receiver}`, which keeps its "
    "shape (in 0.3 `.data` was its own tensor); {advice}"
)
_ADVICE_FREE = "`{receiver}` has no autograd history: call `{receiver}.{method}(...)` itself"
_ADVICE_LEAF = "`{receiver}` requires grad: call `{receiver}.{method}(...)` under `torch.no_grad()`"
_ADVICE_RESIZE_LEAF = "`{receiver}` requires grad, and torch refuses to resize it even under `torch.no_grad()`"
_ADVICE_UNKNOWN = (
    "`{receiver}` may carry autograd history or require grad, where `{receiver}.{method}(...)` would enter the graph or raise: "
    "decide how the changed tensor should reach it"
)
# A tensor that requires grad cannot be resized, with autograd on or off.
_RESIZES = frozenset({"resize_", "resize_as_"})


class DataInplaceMetadata(Rule):
    """
    ## What it does
    Flags an in-place change of shape or storage made through `.data`: `feature.data.t_()`,
    `.transpose_(0, 1)`, `.squeeze_()`, `.unsqueeze_(0)`, `.resize_(n)` (the DCGAN idiom
    `x.data.resize_(y.size()).copy_(y)`), `.resize_as_(y)`, `.set_(y)`, `.as_strided_(...)`.

    ## Why is this bad?
    In PyTorch 0.3 `x.data` was `x`'s own tensor, so `x.data.t_()` transposed `x`. Since 0.4
    `x.data` is a new tensor object sharing `x`'s storage: the change reaches that temporary and
    `x` keeps its shape. In torch 2.13 a (2, 3) `feature` stays (2, 3) after
    `feature.data.t_()`, and after `x.data.resize_(y.size()).copy_(y)` a (2,) `x` stays (2,),
    holding only the first two values of `y`: a silent no-op, or a shape error later.

    ## Example
    ```python
    import torch
    feature = torch.zeros(2, 3)
    feature.data.t_()
    ```

    ## Use instead
    ```python
    import torch
    feature = torch.zeros(2, 3)
    feature.t_()
    ```

    ## Fix safety
    Always unsafe: the fix changes what torch 2.x runs, from a no-op on a temporary to a change
    of the tensor. Where the value model proves the receiver a tensor without autograd history
    that does not require grad, `.data` is dropped and the tensor itself changes, 0.3's meaning
    exactly (a history-free tensor's `x.t_()` is an ordinary in-place op, no graph records it);
    code written since 0.4 may rely on the tensor keeping its shape.

    A parameter or another leaf that requires grad: there `x.t_()` raises ("a leaf
    Variable that requires grad is being used in an in-place operation"), so the call goes under
    `torch.no_grad()`; measured in torch 2.13, the parameter is then transposed, stays a leaf
    that requires grad and gets gradients of its new shape, as in 0.3. The
    change now also counts on the parameter's version counter: a backward still pending over a graph
    that saved it raises "modified by an inplace operation" where the `.data` form ran on.
    A resize of a tensor that requires grad gets no fix (torch raises "cannot resize variables
    that require grad" even under `torch.no_grad()`), nor does a receiver that may carry history
    (`x.t_()` would be recorded in the graph, a `TBackward` node).

    ## Known limits
    Only a method called directly on `x.data` is reported, not one reached through a name bound
    to it (`d = x.data; d.t_()`). The no-grad fix wraps a statement alone on its line.
    `x.detach().resize_(n)` is GL303's.
    """

    code = "GL304"
    name = "data-inplace-metadata"
    summary = "In-place change of shape or storage through .data"
    severity = Severity.ERROR
    migration = "data"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = (".data.",)
    also_required = ("_(",)

    VALID = (
        # Not in place: a transposed copy of the view, the code uses the result.
        """
        import torch
        feature = torch.zeros(2, 3)
        flipped = feature.data.t()
        """,
        # A dataset's `.data` (an array or a list): not a tensor's `.data`.
        """
        import torch
        from torchvision import datasets
        dataset = datasets.MNIST("data", download=True)
        dataset.data.resize_(10, 28, 28)
        """,
        # numpy's `.data` is a buffer.
        """
        import numpy as np
        arr = np.zeros((2, 3))
        arr.data.t_()
        """,
        # An object's own `data` attribute.
        """
        class Batch:
            def flip(self):
                self.data.t_()
        """,
        # On the tensor itself: the change reaches it.
        """
        import torch
        feature = torch.zeros(2, 3)
        feature.t_()
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            feature = torch.zeros(2, 3)
            feature.data.t_()
            """,
            """
            import torch
            feature = torch.zeros(2, 3)
            feature.t_()
            """,
            line=3,
            column=1,
            message="`feature.data.t_(...)` changes a temporary since PyTorch 0.4, not `feature`",
            fix_title="Change `feature` itself",
        ),
        Invalid(  # pytorch/examples dcgan: a fresh input buffer refilled every batch
            """
            import torch
            input = torch.FloatTensor(64, 3, 64, 64)
            for real_cpu, _ in dataloader:
                input.data.resize_(real_cpu.size()).copy_(real_cpu)
            """,
            """
            import torch
            input = torch.FloatTensor(64, 3, 64, 64)
            for real_cpu, _ in dataloader:
                input.resize_(real_cpu.size()).copy_(real_cpu)
            """,
        ),
        Invalid(  # a parameter: the change goes under no_grad (unsafe)
            """
            import torch
            from torch import nn
            fc = nn.Linear(3, 2)
            fc.weight.data.t_()
            """,
            """
            import torch
            from torch import nn
            fc = nn.Linear(3, 2)
            with torch.no_grad():
                fc.weight.t_()
            """,
            message="`fc.weight` requires grad: call `fc.weight.t_(...)` under `torch.no_grad()`",
            fix_title="Change `fc.weight` itself under `torch.no_grad()`",
        ),
        Invalid(  # torch refuses to resize a parameter
            """
            import torch
            from torch import nn
            fc = nn.Linear(3, 2)
            fc.weight.data.resize_(4, 3)
            """,
            """
            import torch
            from torch import nn
            fc = nn.Linear(3, 2)
            fc.weight.data.resize_(4, 3)
            """,
            message="torch refuses to resize it even under `torch.no_grad()`",
        ),
        Invalid(  # a model's output carries history: no fix
            """
            import torch
            def embed(model, x):
                out = model(x)
                out.data.squeeze_()
                return out
            """,
            """
            import torch
            def embed(model, x):
                out = model(x)
                out.data.squeeze_()
                return out
            """,
            message="`out` may carry autograd history or require grad",
        ),
        Invalid(  # a kept result: the result is the tensor itself once `.data` is dropped
            """
            import torch
            feature = torch.zeros(1, 3)
            row = feature.data.squeeze_(0)
            """,
            """
            import torch
            feature = torch.zeros(1, 3)
            row = feature.squeeze_(0)
            """,
        ),
    )

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "data" or not reshapes_a_temporary(self.context.stack) or not is_tensor_data(self.context, node):
            return
        receiver = node.value
        method = self.context.stack[-2].attr.value
        name = self.context.code_for(receiver)
        shown = name if len(name) < 30 else "x"
        grad = self.context.value(receiver).grad
        fix = None
        if grad is Grad.FREE and self.context.is_known_tensor(receiver):
            advice = _ADVICE_FREE
            fix = self.unsafe_fix(f"Change `{shown}` itself", Replace(node, receiver))
        elif grad is Grad.REQUIRES_GRAD and method in _RESIZES:
            advice = _ADVICE_RESIZE_LEAF
        elif grad is Grad.REQUIRES_GRAD:
            advice = _ADVICE_LEAF
            fix = self._no_grad_fix(node, receiver, shown)
        else:
            advice = _ADVICE_UNKNOWN
        message = _MESSAGE.format(receiver=shown, method=method, advice=advice.format(receiver=shown, method=method))
        self.report(node, message, fix)

    def _no_grad_fix(self, data: cst.Attribute, receiver: cst.BaseExpression, shown: str):
        """`p.data.t_()` -> `with torch.no_grad(): p.t_()`, the statement alone on its line."""
        title = f"Change `{shown}` itself under `torch.no_grad()`"
        if under_no_grad(self.context, self.context.stack):
            return self.unsafe_fix(title, Replace(data, receiver))
        found = enclosing_line(self.context.stack)
        if found is None or len(found[0].body) != 1 or type(found[0].body[0]) is not cst.Expr:
            return None
        line, index = found
        changes = wrap_in_no_grad(
            self.context, [line], self.context.stack[:index], lambda statement: statement.deep_replace(data, receiver)
        )
        return None if changes is None else self.unsafe_fix(title, *changes)
