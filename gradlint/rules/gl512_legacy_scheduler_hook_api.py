from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.schedulers import PLATEAU
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.rules.base import Invalid, Rule, Severity

_STEP_EPOCH = (
    "`{call}` passes the epoch to the scheduler (deprecated in torch 1.4); call `{receiver}.step()` once per epoch, "
    "after the optimizer's steps (no mechanical rewrite: the legacy call jumps to the given epoch)"
)
_GET_LR = (
    "`{receiver}.get_lr()` outside `step()` is the next step's formula, not the learning rate in use "
    "(deprecated in torch 1.4); use `{receiver}.get_last_lr()`"
)
_BACKWARD_HOOK = (
    "`{receiver}.register_backward_hook(...)` sees the gradients of the module's last operation "
    "(deprecated in torch 1.8); `register_full_backward_hook` is not a drop-in: its `grad_input` are "
    "the gradients of the module's inputs, so review the hook before switching"
)
# Methods iterating over submodules -> where the module is in what they yield: `for m in model.modules()`,
# `for name, m in model.named_modules()`.
_SUBMODULE_ITERATORS = {name: 1 if name.startswith("named_") else None for name in torch_api.module_methods("generator", "submodules")}

_GET_LAST_LR_SINCE = "1.4"  # `scheduler.get_last_lr()`


class LegacySchedulerHookApi(Rule):
    """
    ## What it does
    Flags `scheduler.step(epoch)` and `scheduler.get_lr()` on a scheduler evidently built from
    `torch.optim.lr_scheduler` (`StepLR`, `CosineAnnealingLR`, `ReduceLROnPlateau` with an
    epoch after the metric, ...), and `register_backward_hook` on an evident `nn.Module`.

    ## Why is this bad?
    Measured in torch 2.13: `step(epoch)` emits a `UserWarning` ("The epoch parameter in
    `scheduler.step()` was not necessary and is being deprecated") and jumps to the given epoch
    with the closed form where there is one, so its learning rates are not those of the chained
    `step()` (`ExponentialLR`: 0.0729 against 0.07290000000000002 at epoch 3). `get_lr()` called
    outside `step()` warns and returns the value of the chainable formula applied once more: it
    differs from the learning rate in use after every step for `ExponentialLR`, `LinearLR`,
    `CosineAnnealingLR` and `PolynomialLR`, and at each milestone for `StepLR` / `MultiStepLR`
    (equal for `LambdaLR`, `OneCycleLR`, `CyclicLR`). `register_backward_hook` warns with a
    `FutureWarning` at backward time and passes the gradients of the module's last autograd node
    (for `nn.Linear`: three tensors, bias, input and weight), not of the module's inputs.

    ## Example
    ```python
    from torch.optim.lr_scheduler import StepLR

    scheduler = StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        scheduler.step(epoch)
        train(epoch)
        print(scheduler.get_lr())
    ```

    ## Use instead
    ```python
    from torch.optim.lr_scheduler import StepLR

    scheduler = StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        train(epoch)
        scheduler.step()
        print(scheduler.get_last_lr())
    ```

    ## Fix safety
    `get_lr()` becomes `get_last_lr()`, an unsafe fix: it returns the learning rate in use, which
    is what the legacy call meant (before torch 1.4 `get_lr()` was the closed form for the current
    epoch), but not what `get_lr()` returns under torch 2.13 (see above; `get_last_lr()` also
    returns the scheduler's own list, not a new one). `step(epoch)` has no fix: the modern call
    takes no epoch and belongs after the optimizer's steps of the epoch, which moves the call
    (the legacy pattern called it at the start of the epoch). `register_backward_hook` has no
    fix: a hook written for the last operation's gradients must be reviewed for
    `register_full_backward_hook`, which also refuses in-place changes of the module's inputs and
    outputs. Newer torch needed (`target-torch`): `get_last_lr()` 1.4.

    ## Known limits
    The scheduler is recognised by its construction from `torch.optim.lr_scheduler` (or `SWALR`)
    in the same function, at module level, or as `self.<name>` in the same class; one passed in
    as a parameter or built by a factory is not reported, nor schedulers of other libraries (timm's
    and fairseq's take the epoch by design), `optimizer.step(closure)` or `env.step(action)`.
    `register_backward_hook` is reported on `self` in an `nn.Module` subclass, on a name bound to
    a module (or named like one: `model`, `net`, `module`...) and on the submodules a loop takes
    from `modules()` / `children()`.
    """

    code = "GL512"
    name = "legacy-scheduler-hook-api"
    summary = "`scheduler.step(epoch)` / `scheduler.get_lr()` / `register_backward_hook`: legacy scheduler and hook APIs"
    severity = Severity.WARNING
    migration = "api"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("step", "get_lr", "register_backward_hook")

    VALID = (
        """
        from torch.optim.lr_scheduler import ReduceLROnPlateau, StepLR
        scheduler = StepLR(optimizer, 30)
        plateau = ReduceLROnPlateau(optimizer)
        for epoch in range(10):
            optimizer.step(closure)
            state, reward, done, info = env.step(action)
            scheduler.step()
            plateau.step(val_loss)
            print(scheduler.get_last_lr())
        """,
        """
        import timm.scheduler
        scheduler = timm.scheduler.CosineLRScheduler(optimizer, t_initial=100)
        scheduler.step(epoch)
        print(scheduler.get_lr())
        """,
        """
        from torch.optim.lr_scheduler import LRScheduler
        class Warmup(LRScheduler):
            def get_lr(self):
                return [base * 0.1 for base in self.base_lrs]
            def step(self, epoch=None):
                super().step(epoch)
                return self.get_lr()
        """,
        """
        def train(scheduler, epoch):
            scheduler.step(epoch)
        """,
        """
        import torch
        x = torch.ones(2, requires_grad=True)
        x.register_hook(print)
        handle.register_backward_hook(print)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
            for epoch in range(100):
                scheduler.step(epoch)
            """,
            fixed=None,
            line=4,
            column=5,
            message="`scheduler.step(epoch)` passes the epoch to the scheduler (deprecated in torch 1.4)",
        ),
        Invalid(
            """
            from torch.optim import lr_scheduler
            class Trainer:
                def __init__(self, optimizer):
                    self.scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
                def log(self):
                    return self.scheduler.get_lr()[0]
            """,
            """
            from torch.optim import lr_scheduler
            class Trainer:
                def __init__(self, optimizer):
                    self.scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
                def log(self):
                    return self.scheduler.get_last_lr()[0]
            """,
            line=6,
            column=16,
            message="`self.scheduler.get_lr()` outside `step()` is the next step's formula",
            fix_title="Replace with `self.scheduler.get_last_lr()`",
        ),
        Invalid(
            """
            from torch.optim.lr_scheduler import ReduceLROnPlateau
            plateau = ReduceLROnPlateau(optimizer)
            def validate(loss, epoch):
                plateau.step(loss, epoch)
                plateau.step(loss, epoch=epoch)
            """,
            fixed=None,
            line=4,
        ),
        Invalid(
            """
            import torch.nn as nn
            net = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
            net.register_backward_hook(hook)
            for name, layer in net.named_modules():
                layer.register_backward_hook(hook)
            """,
            fixed=None,
            line=3,
            message="`register_full_backward_hook` is not a drop-in",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        if method == "register_backward_hook":
            if self._is_module(func.value):
                self.report(node, _BACKWARD_HOOK.format(receiver=self.context.code_for(func.value)))
            return
        if method not in ("step", "get_lr"):
            return
        schedulers = self.context.schedulers.scheduler_classes(func.value, self.context.scope())
        if not schedulers:
            return
        receiver = self.context.code_for(func.value)
        if method == "get_lr" and not node.args:
            fix = self.unsafe_fix(
                f"Replace with `{receiver}.get_last_lr()`", Replace(func.attr, cst.Name("get_last_lr")), needs_torch="1.4"
            )
            self.report(node, _GET_LR.format(receiver=receiver), fix)
        elif method == "step" and _passes_epoch(node, plateau=PLATEAU in schedulers):
            self.report(node, _STEP_EPOCH.format(call=self.context.code_for(node), receiver=receiver))

    def _is_module(self, node: cst.BaseExpression) -> bool:
        if self.context.nn_modules.is_module(node, self.context.stack):
            return True
        if not isinstance(node, cst.Name):
            return False
        sources = self.context.scopes.loop_sources_of(node.value, self.context.scope())
        return bool(sources) and all(self._submodules_of(source, position) for source, position in sources)

    def _submodules_of(self, source: cst.BaseExpression, position: Optional[int]) -> bool:
        """`source` (unpacked at `position`) yields the submodules of an evident module."""
        if not (isinstance(source, cst.Call) and isinstance(source.func, cst.Attribute)):
            return False
        method = source.func.attr.value
        return method in _SUBMODULE_ITERATORS and _SUBMODULE_ITERATORS[method] == position and self._is_module(source.func.value)


def _passes_epoch(node: cst.Call, plateau: bool) -> bool:
    """`step(epoch)` / `step(epoch=...)`; for `ReduceLROnPlateau`, an epoch after the metric."""
    positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
    keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
    return "epoch" in keywords or len(positional) > (1 if plateau else 0)
