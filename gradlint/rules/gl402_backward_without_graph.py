from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.grad_mode import grad_mode_of
from gradlint.analysis.grad_tracking import ends_history
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{receiver}` has no autograd graph ({reason}), so `backward()` raises "
    '"element 0 of tensors does not require grad and does not have a grad_fn"'
)

_REENABLED_MESSAGE = (
    "`{receiver}` was cut from the model's graph (`.detach()`, `.data` or no_grad) and `requires_grad_()` "
    "only makes it a new leaf: `backward()` runs but no gradient reaches the model"
)


class BackwardWithoutGraph(Rule):
    """
    ## What it does
    Flags `.backward()` on a value that cannot have a graph: `x.detach().backward()`, a `.data`-
    derived value, or a loss computed entirely inside `torch.no_grad()` / `inference_mode()` (or
    in a function decorated with them, also when that function returns the loss to its caller, or
    returns a loss it computed inside such a block). Also flags the silent variant: a loss whose
    graph was cut (`criterion(out.detach(), y)`, a no-grad block) and then turned back on with
    `loss.requires_grad_()` or `loss.requires_grad = True`.

    ## Why is this bad?
    In torch 2.13 each of these raises `RuntimeError: element 0 of tensors does not require grad
    and does not have a grad_fn`: the training step dies at runtime, often only in the code path
    that was not tested (evaluation helpers reused for training, a refactor that moved the loss
    into a no-grad block). Re-enabling `requires_grad` on such a loss silences the error but only
    makes the loss a new leaf: backward runs, no gradient reaches the model, and the optimizer
    steps with no gradient at all, so the model never trains.

    ## Example
    ```python
    import torch

    with torch.no_grad():
        loss = criterion(model(x), y)
    loss.backward()
    ```

    ## Use instead
    ```python
    loss = criterion(model(x), y)
    loss.backward()
    ```

    ## Fix safety
    No fix: whether the graph or the backward call is the mistake needs a human decision.

    ## Known limits
    `loss.backward()` called inside `no_grad` on a loss built outside it works in torch and is not
    reported, nor is a loss built under `torch.enable_grad()` (which turns autograd back on inside a
    no-grad block or function). A name assigned both inside and outside a no-grad block is not
    reported. A re-enabled loss is reported only when every input of its computation is detached
    or brings no graph of its own (not a model call, a model, or a value with evident history).
    A tensor rebuilt by a constructor from a cut value (`torch.tensor(loss.item(),
    requires_grad=True)`, `torch.tensor(loss)`) is reported by GL609 instead, unless it is built
    under no-grad or turned back on with `requires_grad_()`: each backward is reported by one rule.
    """

    code = "GL402"
    name = "backward-without-graph"
    summary = "backward on a value without autograd history"
    severity = Severity.ERROR
    triggers = ("backward",)

    VALID = (
        """
        loss = criterion(model(x), y)
        loss.backward()
        """,
        """
        import torch
        loss = criterion(model(x), y)
        with torch.no_grad():
            loss.backward()
        """,
        """
        import torch
        with torch.no_grad():
            val = criterion(model(x), y)
        loss = criterion(model(x), y)
        loss.backward()
        """,
        """
        def f(loss):
            loss.backward()
        """,
        """
        import torch
        def step(model, x, y):
            loss = criterion(model(x), y)
            with torch.no_grad():
                loss.backward()
        """,
        # enable_grad inside a no-grad block (or a no_grad-decorated function) turns autograd back on.
        """
        import torch
        with torch.no_grad():
            with torch.enable_grad():
                loss = criterion(model(x), y)
        loss.backward()
        """,
        """
        import torch
        @torch.no_grad()
        def attack(model, x, y):
            with torch.enable_grad():
                loss = criterion(model(x), y)
            loss.backward()
        """,
        """
        import torch
        def step(model, x, y, train):
            with torch.set_grad_enabled(train):
                loss = criterion(model(x), y)
            loss.backward()
        """,
        # An input made a leaf again (`x.detach().requires_grad_()`) for input gradients: the loss
        # still flows through the model.
        """
        def attack(model, x, y, criterion):
            x = x.detach().requires_grad_()
            loss = criterion(model(x), y)
            loss.backward()
        """,
        """
        def distill(student, teacher_out, x, criterion):
            loss = criterion(student(x), teacher_out.detach())
            loss.requires_grad_()
            loss.backward()
        """,
        # The returned loss is computed before the no-grad block, which only measures accuracy.
        """
        import torch
        def train_step(model, x, y, criterion):
            loss = criterion(model(x), y)
            with torch.no_grad():
                accuracy = (model(x).argmax(1) == y).float().mean()
            return loss
        loss = train_step(model, x, y, criterion)
        loss.backward()
        """,
    )
    INVALID = (
        Invalid(
            """
            loss = criterion(model(x), y)
            loss.detach().backward()
            """,
            line=2,
            column=1,
            message="`loss.detach()` has no autograd graph (`.detach()`/`.data`",
        ),
        Invalid(
            """
            loss = criterion(model(x), y)
            loss.data.backward()
            """,
            line=2,
            column=1,
            message="`loss.data` has no autograd graph (`.detach()`/`.data` cuts",
        ),
        Invalid(
            """
            import torch
            with torch.no_grad():
                loss = criterion(model(x), y)
            loss.backward()
            """,
            line=4,
            column=1,
            message="`loss` has no autograd graph (it was computed with grad",
        ),
        Invalid(
            """
            import torch
            @torch.no_grad()
            def step(model, x, y):
                loss = criterion(model(x), y)
                loss.backward()
            """,
            line=5,
            column=5,
            message="`loss` has no autograd graph (the function runs under",
        ),
        Invalid(
            """
            def step(loss):
                frozen = loss.detach()
                frozen.backward()
            """,
            line=3,
            column=5,
            message="`frozen` has no autograd graph (it was computed with grad",
        ),
        Invalid(
            """
            import torch
            with torch.enable_grad():
                with torch.no_grad():
                    loss = criterion(model(x), y)
            loss.backward()
            """,
            line=5,
            column=1,
            message="`loss` has no autograd graph (it was computed with grad",
        ),
        Invalid(
            """
            import torch
            def compute_loss(model, x, y):
                with torch.no_grad():
                    loss = criterion(model(x), y)
                return loss
            loss = compute_loss(model, x, y)
            loss.backward()
            """,
            line=7,
            column=1,
            message="`loss` has no autograd graph (`compute_loss` computes it under no_grad)",
        ),
        Invalid(
            """
            def train_step(model, x, y, criterion):
                loss = criterion(model(x).detach(), y)
                loss.requires_grad_()
                loss.backward()
            """,
            line=4,
            column=5,
            message="`loss` was cut from the model's graph (`.detach()`, `.data` or no_grad) and `requires_grad_()`",
        ),
        Invalid(
            """
            import torch.nn.functional as F
            def train_step(model, x, y):
                loss = F.mse_loss(model(x).detach(), y).requires_grad_(True)
                loss.backward()
            """,
            line=4,
            column=5,
            message="`loss` was cut from the model's graph",
        ),
        Invalid(
            """
            import torch
            def train_step(model, x, y, criterion):
                with torch.no_grad():
                    loss = criterion(model(x), y)
                loss.requires_grad = True
                loss.backward()
            """,
            line=6,
            column=5,
            message="`loss` was cut from the model's graph",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "backward"):
            return
        receiver = snippet(self.context.code_for(func.value), 40, "the value")
        if self._reenabled_without_graph(func.value):
            self.report(node, _REENABLED_MESSAGE.format(receiver=receiver))
            return
        reason = self._reason(func.value)
        if reason is not None:
            self.report(node, _MESSAGE.format(receiver=receiver, reason=reason))

    def _reenabled_without_graph(self, receiver: cst.BaseExpression) -> bool:
        """`requires_grad_()` turned on again on a loss whose graph was cut: backward runs on a new leaf."""
        if not isinstance(receiver, cst.Name):
            return False
        grads, scope = self.context.grads, self.context.scope()
        if not grads.reenables_grad(receiver.value, scope):
            return False
        return grads.cut_from_graph(receiver, scope) or self._reason(receiver) is not None

    def _reason(self, receiver: cst.BaseExpression) -> Optional[str]:
        if ends_history(receiver):
            return "`.detach()`/`.data` cuts it"
        if not isinstance(receiver, cst.Name):
            return None
        scope = self.context.scope()
        if self.context.grads.built_without_grad(receiver.value, scope):
            return "it was computed with grad disabled or detached"
        bindings = self.context.scopes.of(scope)
        values = bindings.assigned(receiver.value)
        if not values or receiver.value in bindings.opaque:
            return None
        if isinstance(scope, cst.FunctionDef) and self.context.functions.of(scope).decorated_without_grad:
            if not any(grad_mode_of(bindings.withs_around(v), self.context.imports) for v in values):
                return "the function runs under no_grad"
        helpers = [self._graphless_helper(value) for value in values]
        if all(helpers):
            return f"`{helpers[-1]}` computes it under no_grad"
        return None

    def _graphless_helper(self, value: cst.BaseExpression) -> Optional[str]:
        """The name of the no-grad function of this file whose result `value` is."""
        if not isinstance(value, cst.Call):
            return None
        summary = self.context.summary_of_call(value)
        return summary.name if summary is not None and summary.returns_graphless else None
