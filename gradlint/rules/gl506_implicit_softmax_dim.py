from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.shapes import legacy_softmax_dim
from gradlint.analysis.syntax import keyword_arg, positional_args
from gradlint.fix.builders import indentation, render_at, with_keywords
from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace
from gradlint.rules.base import Invalid, Rule, Severity

_FUNCTIONS = frozenset({"torch.nn.functional.softmax", "torch.nn.functional.log_softmax", "torch.nn.functional.softmin"})
_MODULES = frozenset(
    {
        *(f"torch.nn.{name}" for name in ("Softmax", "LogSoftmax", "Softmin")),
        *(f"torch.nn.modules.activation.{name}" for name in ("Softmax", "LogSoftmax", "Softmin")),
    }
)
_LEGACY_RULE = "dim 0 for 0-, 1- and 3-D input, dim 1 otherwise"
_MESSAGE = (
    "`{old}` without `dim` picks the dimension from the input's rank ({rule}): 3-D input is "
    "normalised over dim 0, not the last one; pass `dim` explicitly (deprecated in torch 0.3)"
)


class ImplicitSoftmaxDim(Rule):
    """
    ## What it does
    Flags `F.softmax`, `F.log_softmax` and `F.softmin` called without `dim` (or with `dim=None`),
    and the modules `nn.Softmax()`, `nn.LogSoftmax()` and `nn.Softmin()` constructed without it,
    under any import spelling.

    ## Why is this bad?
    Without `dim`, torch still applies the rule of 0.2: dim 0 for 0-, 1- and 3-D input, dim 1
    otherwise (measured under torch 2.13 for ranks 0 to 4, with a `UserWarning` "Implicit dimension
    choice for softmax has been deprecated" on every call). For a batch of vectors (2-D) that is
    the last dimension, as meant; for a batch of sequences (3-D) it normalises across the batch
    (dim 0), which is almost never meant, and writing `dim=-1` there changes the result.

    ## Example
    ```python
    import torch
    import torch.nn.functional as F

    scores = torch.randn(8, 10)
    probabilities = F.softmax(scores)
    ```

    ## Use instead
    ```python
    import torch
    import torch.nn.functional as F

    scores = torch.randn(8, 10)
    probabilities = F.softmax(scores, dim=1)
    ```

    ## Fix safety
    Safe when the input's rank is evident in the code (a `torch.randn/rand/zeros/ones/empty`
    call with its sizes, a `torch.tensor` of a nested list literal, a view to literal sizes, an
    `nn.Linear` layer's output or a shape-keeping call (`F.relu`, `F.dropout`) of one of those, or
    a name every binding of which in the function is one, or whose read sees one such assignment,
    `x = self.fc2(x)` after `x = x.view(-1, 320)`, and that nothing reshapes in place): the fix writes the
    dimension the legacy rule picks for that rank, which computes bitwise the same values and
    gradients without the warning. Otherwise the finding spells out the rule and has no fix: the
    right `dim` is the one the code means, which for 3-D input is likely not the legacy one.

    ## Known limits
    The modules are never fixed (the rank of their input is known only when they are called).
    Calls that pass `_stacklevel=` (torch's own forwarding) or `*args` / `**kwargs` are not
    reported. `torch.softmax(x)` and `x.softmax()` are not reported: they require `dim` and raise.
    """

    code = "GL506"
    name = "implicit-softmax-dim"
    summary = "`F.softmax(x)` / `nn.Softmax()` without `dim`: the legacy rule picks dim 0 for 3-D input"
    severity = Severity.WARNING
    migration = "api"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("softmax", "softmin", "Softmax", "Softmin")

    VALID = (
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        p = F.softmax(x, dim=-1) + F.log_softmax(x, 1) + torch.softmax(x, 0)
        m = nn.Softmax(dim=1)
        n = nn.LogSoftmax(1)
        """,
        """
        import numpy as np
        from scipy.special import softmax
        p = softmax(a)
        """,
        """
        import tensorflow as tf
        p = tf.nn.softmax(logits)
        """,
        """
        import torch.nn.functional as F
        def softmax(x):
            return x.exp() / x.exp().sum()
        p = softmax(y)
        q = F.softmax(y, dim=None, _stacklevel=5)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            scores = torch.randn(8, 10)
            p = F.softmax(scores)
            """,
            """
            import torch
            import torch.nn.functional as F
            scores = torch.randn(8, 10)
            p = F.softmax(scores, dim=1)
            """,
            line=4,
            column=5,
            message="`F.softmax` without `dim` picks the dimension from the input's rank (dim 0 for 0-, 1- and 3-D input, dim 1 otherwise)",
            fix_title="Pass `dim=1`, the legacy choice for 2-D input",
        ),
        # The 3-D trap: the legacy dimension is 0, not the last one.
        Invalid(
            """
            import torch
            from torch.nn.functional import log_softmax
            h = torch.zeros((5, 2, 7))
            y = log_softmax(h, dim=None)
            """,
            """
            import torch
            from torch.nn.functional import log_softmax
            h = torch.zeros((5, 2, 7))
            y = log_softmax(h, dim=0)
            """,
            fix_title="Pass `dim=0`, the legacy choice for 3-D input",
        ),
        Invalid(
            """
            import torch as th
            v = th.softmin(th.tensor([1.0, 2.0]), 0) + th.nn.functional.softmin(th.tensor([1.0, 2.0]))
            """,
            """
            import torch as th
            v = th.softmin(th.tensor([1.0, 2.0]), 0) + th.nn.functional.softmin(th.tensor([1.0, 2.0]), dim=0)
            """,
        ),
        # mnist's `Net.forward`: `x` is rebound line by line, 2-D from the `view` on.
        Invalid(
            """
            import torch.nn as nn
            import torch.nn.functional as F
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(320, 10)
                def forward(self, x):
                    x = x.view(-1, 320)
                    x = F.dropout(self.fc(x), training=self.training)
                    return F.log_softmax(x)
            """,
            """
            import torch.nn as nn
            import torch.nn.functional as F
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(320, 10)
                def forward(self, x):
                    x = x.view(-1, 320)
                    x = F.dropout(self.fc(x), training=self.training)
                    return F.log_softmax(x, dim=1)
            """,
            line=10,
            column=16,
            fix_title="Pass `dim=1`, the legacy choice for 2-D input",
        ),
        # The rank is not in the code: the message spells out the rule.
        Invalid(
            """
            import torch.nn.functional as F
            def attention(scores):
                return F.softmax(scores)
            """,
            fixed=None,
            message="3-D input is normalised over dim 0, not the last one",
        ),
        Invalid(
            """
            from torch import nn
            head = nn.Sequential(nn.Linear(4, 3), nn.LogSoftmax())
            """,
            fixed=None,
            message="`nn.LogSoftmax()` without `dim` picks the dimension from the input's rank",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if any(arg.star for arg in node.args):
            return
        qualified = self.context.imports.qualified_name(node.func)
        if qualified in _FUNCTIONS:
            self._check_function(node)
        elif qualified in _MODULES and _implicit_dim(node, position=0):
            self.report(node, _MESSAGE.format(old=self.context.code_for(node), rule=_LEGACY_RULE))

    def _check_function(self, node: cst.Call) -> None:
        if keyword_arg(node, "_stacklevel") is not None or not _implicit_dim(node, position=1):
            return
        message = _MESSAGE.format(old=self.context.code_for(node.func), rule=_LEGACY_RULE)
        self.report(node.func, message, self._fix(node))

    def _fix(self, node: cst.Call) -> Optional[FixPlan]:
        positional = positional_args(node)
        data = positional[0] if positional else keyword_arg(node, "input")
        if data is None:
            return None
        rank = self.context.values.rank(data.value, self.context.scope())
        if rank is None:
            return None
        dim = legacy_softmax_dim(rank)
        title = f"Pass `dim={dim}`, the legacy choice for {rank}-D input"
        given = positional[1] if len(positional) > 1 else keyword_arg(node, "dim")
        if given is not None:
            return self.safe_fix(title, Replace(given.value, cst.Integer(str(dim))))
        call = with_keywords(node, [("dim", cst.Integer(str(dim)))])
        return self.safe_fix(title, Replace(node, render_at(self.context, call, indentation(self.context, self.context.stack))))


def _implicit_dim(call: cst.Call, position: int) -> bool:
    """No `dim` in the call, or a literal `None` for it (by keyword or at `position`)."""
    positional = positional_args(call)
    given = positional[position] if len(positional) > position else keyword_arg(call, "dim")
    return given is None or (isinstance(given.value, cst.Name) and given.value.value == "None")
