from __future__ import annotations

import libcst as cst

from gradlint.analysis.legacy import is_variable, volatile_argument
from gradlint.rules.base import Invalid, Rule

_MESSAGE = (
    "`volatile=` has had no effect since PyTorch 0.4, so the no-grad intent is lost and a graph is "
    "built; wrap the forward pass in `with torch.no_grad():`"
)


class VolatileFlag(Rule):
    """
    ## What it does
    Flags the `volatile` argument of a `torch.autograd.Variable(...)` call.

    ## Why is this bad?
    `volatile=True` used to switch off graph building for inference. Since PyTorch 0.4 it does
    nothing but warn (`UserWarning: volatile was removed and now has no effect`): in torch 2.13,
    `Variable(x, volatile=True) * w` with `w` requiring grad still gives an output with
    `requires_grad=True`, so every inference batch builds and keeps an autograd graph. Together
    with `requires_grad=True` it raises `ValueError`.

    ## Example
    ```python
    from torch.autograd import Variable

    x = Variable(images, volatile=True)
    out = model(x)
    ```

    ## Use instead
    ```python
    with torch.no_grad():
        out = model(images)
    ```

    ## Fix safety
    No fix of its own: restoring the no-grad intent changes behaviour (outputs stop requiring
    grad), which needs a human decision. GL101's rewrite drops the keyword, which is exactly what
    torch executes today.

    ## Known limits
    Reading or assigning `x.volatile` (always False, no effect) is not reported.
    """

    code = "GL102"
    name = "volatile-flag"
    summary = "`volatile=` has no effect since PyTorch 0.4"
    migration = "variable"
    triggers = ("Variable",)

    VALID = (
        """
        from torch.autograd import Variable
        x = Variable(t)
        """,
        """
        import tensorflow as tf
        v = tf.Variable(1, volatile=True)
        """,
        """
        def f(volatile=True):
            return g(volatile=volatile)
        """,
    )
    INVALID = (
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(t, volatile=True)\n            ",
            line=2,
            column=17,
            message="`volatile=` has had no effect since PyTorch 0.4, so the",
        ),
        Invalid(
            "\n            import torch\n            x = torch.autograd.Variable(t, False, True)\n            ",
            line=2,
            column=39,
            message="`volatile=` has had no effect since PyTorch 0.4, so the",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not is_variable(node.func, self.context.imports):
            return
        argument = volatile_argument(node)
        if argument is not None:
            self.report(argument, _MESSAGE)
