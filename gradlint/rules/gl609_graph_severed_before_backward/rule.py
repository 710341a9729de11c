from __future__ import annotations

from functools import cached_property
from typing import Optional

import libcst as cst

from gradlint.analysis.grad_mode import grad_mode_of
from gradlint.analysis.tree import descendants
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl609_graph_severed_before_backward.severed import SeveredGraphs

_LEAF_MESSAGE = (
    "`{receiver}` is a new leaf tensor {made} (line {line}), which leaves the autograd graph: "
    "`backward()` runs but no gradient reaches the model; compute the loss with torch operations on the model output"
)
_COPY_MESSAGE = (
    "`{receiver}` is a tensor {made} (line {line}) without autograd history: `backward()` raises "
    '"element 0 of tensors does not require grad"; compute the loss with torch operations on the model output'
)


class GraphSeveredBeforeBackward(Rule):
    """
    ## What it does
    Flags a backward pass on a tensor rebuilt from a loss whose graph was cut:
    `torch.tensor(loss.item(), requires_grad=True)`, a loss computed in numpy from
    `out.detach().numpy()` (or `.tolist()`, `float(loss)`) and wrapped with `torch.tensor`,
    `torch.from_numpy` or `Variable`, or `torch.tensor(loss)` copying a loss that has a graph;
    also when the rebuilt tensor is moved, reduced or scaled by plain numbers before `backward()`.

    ## Why is this bad?
    The new tensor is a leaf with no path back to the model. Measured in torch 2.13 with a
    `Linear(4, 1)` and SGD (lr 0.1): with `requires_grad=True`, `backward()` runs, the model's `.grad`
    stays None and after 5 optimizer steps the weights are bitwise unchanged and the loss stays at
    2.2443 (the correct loop moves the weights by 0.51 and lowers the loss to 1.7992). Without `requires_grad=True`, `backward()` raises
    `RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn`
    (`torch.tensor(loss)` also warns "To copy construct from a tensor...").

    ## Example
    ```python
    import torch

    loss = criterion(model(x), y)
    loss = torch.tensor(loss.item(), requires_grad=True)
    loss.backward()
    ```

    ## Use instead
    ```python
    import torch

    loss = criterion(model(x), y)
    loss.backward()
    ```

    ## Fix safety
    No fix: the loss has to be rewritten with torch operations (numpy code has no gradient).

    ## Known limits
    The cut must be applied to a value with evident history (a model or criterion call, a value
    computed from one) and the rebuilt tensor must reach `backward()` through names of the same
    function (the assignment each read sees) or through plain arithmetic with numbers: a loss
    rebuilt in a helper and returned, or added to a loss that still has a graph, is not reported.
    The forms GL402 reports are left to it: a loss detached or built under `no_grad` and
    backpropagated as it is, and a cut loss turned back on with `requires_grad_()` or
    `requires_grad = True` (GL402 reports the latter when it can prove the cut); this rule only
    reports tensors made by a constructor (`torch.tensor`, `torch.as_tensor`, `torch.from_numpy`,
    the typed `torch.FloatTensor`-style constructors, `Variable`) outside no-grad code.
    """

    code = "GL609"
    name = "graph-severed-before-backward"
    summary = "loss rebuilt from a value whose graph was cut, then backpropagated"
    severity = Severity.ERROR
    triggers = ("backward",)

    VALID = (
        """
        loss = criterion(model(x), y)
        loss.backward()
        """,
        # A learnable scalar made from a number: its own gradient is what the code wants.
        """
        import math
        import torch
        log_alpha = torch.tensor(math.log(0.1), requires_grad=True)
        alpha_loss = -(log_alpha * (log_prob + target_entropy).detach()).mean()
        alpha_loss.backward()
        """,
        # A dummy loss from a constant (frameworks' "skip this batch" idiom).
        """
        import torch
        loss = torch.tensor(0.0, requires_grad=True)
        loss.backward()
        """,
        # The logged value is rebuilt; the loss itself keeps its graph.
        """
        import torch
        loss = criterion(model(x), y)
        logged = torch.tensor(loss.item())
        loss.backward()
        """,
        # Rebound to the real loss before backward.
        """
        import torch
        loss = torch.tensor(running.item(), requires_grad=True)
        loss = criterion(model(x), y)
        loss.backward()
        """,
        # A severed term added to a loss that has a graph: the model still trains.
        """
        import torch
        penalty = torch.tensor(model(x).detach().norm().item())
        loss = criterion(model(x), y) + penalty
        loss.backward()
        """,
        # `as_tensor` of a tensor returns that tensor, graph included.
        """
        import torch
        loss = torch.as_tensor(criterion(model(x), y))
        loss.backward()
        """,
        # A tensor with no evident history (data from a loader) wrapped: nothing was cut.
        """
        import torch
        x = torch.tensor(batch.numpy(), requires_grad=True)
        out = model(x).sum()
        out.backward()
        """,
        # GL402's forms: a no-grad loss or one turned back on with requires_grad_().
        """
        import torch
        with torch.no_grad():
            loss = torch.tensor(criterion(model(x), y).item(), requires_grad=True)
        loss.backward()
        """,
        """
        import torch
        loss = torch.tensor(criterion(model(x), y).item())
        loss.requires_grad_()
        loss.backward()
        """,
        # `y.backward(g)` passes a gradient, not the value to backpropagate.
        """
        import torch
        g = torch.tensor(criterion(model(x), y).item())
        out = model(x)
        out.backward(g)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            loss = criterion(model(x), y)
            loss = torch.tensor(loss.item(), requires_grad=True)
            loss.backward()
            """,
            line=4,
            column=1,
            message="`loss` is a new leaf tensor made from `loss.item()` (line 3)",
        ),
        Invalid(
            """
            import numpy as np
            import torch
            def train_step(model, optimizer, x, y):
                pred = model(x).detach().cpu().numpy()
                loss = np.mean((pred - y) ** 2)
                loss = torch.tensor(loss, requires_grad=True)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            """,
            line=8,
            column=5,
            message="made from `model(x).detach()` (line 4)",
        ),
        Invalid(
            """
            import torch
            loss = criterion(model(x), y)
            loss = torch.tensor(loss)
            loss.backward()
            """,
            line=4,
            column=1,
            message='without autograd history: `backward()` raises "element 0 of tensors does not require grad"',
        ),
        Invalid(
            """
            import torch
            for x, y in loader:
                total = float(criterion(model(x), y)) + 0.1 * float(reg(model))
                loss = torch.tensor(total, requires_grad=True).to(device) / accumulation
                scaler.scale(loss).backward()
            """,
            line=5,
            column=5,
            message="made from `float(criterion(model(x), y))` (line 3)",
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            out = model(x)
            loss = Variable(torch.FloatTensor([criterion(out, y).data[0]]), requires_grad=True)
            loss.backward()
            """,
            line=5,
            column=1,
            message="made from `criterion(out, y).data` (line 4)",
        ),
        Invalid(
            """
            import torch
            def step(accelerator, model, x, y):
                loss = torch.tensor([criterion(model(x), y).item(), 0.5], requires_grad=True).sum()
                accelerator.backward(loss)
            """,
            line=4,
            column=5,
            message="made from `criterion(model(x), y).item()` (line 3)",
        ),
    )

    @cached_property
    def severed(self) -> SeveredGraphs:
        """Tensors rebuilt from a value whose graph was cut (`torch.tensor(loss.item(), ...)`)."""
        return SeveredGraphs(self.context.imports, self.context.values, self.context.scope_uses)

    def visit_Call(self, node: cst.Call) -> None:
        receiver = self._backpropagated(node)
        if receiver is None or self._left_to_gl402(receiver):
            return
        scope = self.context.scope()
        rewrap = self.severed.rewrapped(receiver, scope)
        if rewrap is None or self._under_no_grad(rewrap.wrap, scope):
            return
        template = _LEAF_MESSAGE if rewrap.requires_grad else _COPY_MESSAGE
        self.report(
            node,
            template.format(
                receiver=snippet(self.context.code_for(receiver), 40, "the value"),
                made=("copied by `{}`" if rewrap.cut is rewrap.wrap else "made from `{}`").format(
                    snippet(self.context.code_for(rewrap.cut), 40, "the value")
                ),
                line=self.context.line_of(rewrap.cut),
            ),
        )

    def _backpropagated(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """The value `call` backpropagates: `x.backward()`, `scaler.scale(x).backward()`,
        `accelerator.backward(x)`, `torch.autograd.backward(x)`; not `y.backward(gradient)`."""
        site = self.context.training.backward_site(call)
        if site is None or site.tensor_method and call.args and call.args[0].keyword is None:
            return None  # `y.backward(gradient)`, or `solver.backward(loss)` of an object that is no tensor
        return site.tensor

    def _left_to_gl402(self, receiver: cst.BaseExpression) -> bool:
        """GL402 judges values detached or built without grad, and losses turned back on."""
        function = self.context.enclosing_function()
        if function is not None and self.context.functions.of(function).decorated_without_grad:
            return True
        if not isinstance(receiver, cst.Name):
            return False
        grads, scope = self.context.grads, self.context.scope()
        return grads.reenables_grad(receiver.value, scope) or grads.built_without_grad(receiver.value, scope)

    def _under_no_grad(self, wrap: cst.Call, scope) -> bool:
        """The constructor runs in a no-grad block of the function (GL402's business)."""
        bindings = self.context.scopes.of(scope)
        return any(
            grad_mode_of(bindings.withs_around(value), self.context.imports) is False
            for values in bindings.values.values()
            for value in values
            if any(node is wrap for node in descendants(value))
        )
