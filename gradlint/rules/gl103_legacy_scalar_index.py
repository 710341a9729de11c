from __future__ import annotations

import libcst as cst

from gradlint.analysis.data_attr import scalar_data_index
from gradlint.analysis.syntax import method_call_on
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule

_MESSAGE = "`{expr}.data[0]` raises IndexError on a 0-dim tensor since PyTorch 0.4; use `{expr}.item()`"


class LegacyScalarIndex(Rule):
    """
    ## What it does
    Flags `<expr>.data[0]` used to read a number out of a loss or another one-number tensor.

    ## Why is this bad?
    Since PyTorch 0.4 a loss is a 0-dim tensor. In torch 2.13, `loss.data[0]` raises
    `IndexError: invalid index of a 0-dim tensor. Use tensor.item() in Python ...`. On a 1-element
    1-dim tensor it returns a 0-dim tensor, not a number. `loss.item()` returns the Python number
    (`float`, or `int` for an integer tensor) and does not warn.

    ## Example
    ```python
    running_loss += loss.data[0]
    ```

    ## Use instead
    ```python
    running_loss += loss.item()
    ```

    ## Fix safety
    Safe: on the 0-dim tensors this rule reports, the original raises and `.item()` returns the
    intended number. (On a 1-element 1-dim tensor the old form gave a 0-dim tensor and `.item()`
    gives the number, which is what the code meant.)

    ## Known limits
    Only expressions that evidently hold one number are reported: losses (criterion calls,
    functional losses, names like `loss` or `val_loss`), full reductions (`.sum()`, `.mean()`) and
    names bound to them. `output.data[0]` (the first row of a batch), `.data[0, 0]`, `.data[:5]`,
    `.data[i]`, `dataset.data[0]` and `self.data[0]` are left alone, as is any write such as
    `x.data[0] = 1`.
    """

    code = "GL103"
    name = "legacy-scalar-index"
    summary = "`x.data[0]` instead of `x.item()`"
    migration = "variable"
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE,)
    triggers = (".data[0]",)

    VALID = (
        "first = dataset.data[0]\n",
        "row = self.data[0]\n",
        "top = output.data[0]\n",
        "v = loss.data[0, 0]\n",
        "v = loss.data[:5]\n",
        "v = loss.data[i]\n",
        "loss.data[0] = 1.0\n",
        """
        import numpy as np
        a = np.zeros(3)
        v = a.sum().data[0]
        """,
        """
        losses = []
        v = losses.data[0]
        """,
    )
    INVALID = (
        Invalid("total += loss.data[0]\n", "total += loss.item()\n"),
        Invalid(
            """
            loss = criterion(out, y)
            print(loss.data[0])
            """,
            """
            loss = criterion(out, y)
            print(loss.item())
            """,
        ),
        Invalid(
            """
            import torch.nn.functional as F
            t = F.nll_loss(out, y).data[0]
            """,
            """
            import torch.nn.functional as F
            t = F.nll_loss(out, y).item()
            """,
        ),
        Invalid(
            """
            correct = pred.eq(target).sum()
            n = correct.data[0]
            """,
            """
            correct = pred.eq(target).sum()
            n = correct.item()
            """,
        ),
    )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._is_written():
            return
        target = scalar_data_index(self.context, node)
        if target is None:
            return
        expr = self.context.code_for(target)
        replacement = method_call_on(target, "item")
        fix = self.safe_fix(f"Replace with `{snippet(self.context.code_for(replacement), 60)}`", Replace(node, replacement))
        self.report(node, _MESSAGE.format(expr=snippet(expr, 40, "...")), fix)

    def _is_written(self) -> bool:
        parent = self.context.parent()
        return isinstance(parent, (cst.AssignTarget, cst.Del)) or (
            isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is self.context.stack[-1]
        )
