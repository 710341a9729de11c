from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.grad_tracking import mentioned_names
from gradlint.analysis.schedulers import PLATEAU
from gradlint.analysis.syntax import dotted_name, suite_statements
from gradlint.analysis.training import Event, Kind, Region
from gradlint.analysis.tree import descendants
from gradlint.fix.builders import render_at
from gradlint.fix.plan import Applicability, Availability, ReplaceLines
from gradlint.rules.base import Invalid, Rule, Severity

# Reading these between the two calls would see the learning rate the move changes.
_LR_READS = frozenset({"param_groups", "get_last_lr", "get_lr", "last_epoch", "state_dict"})
_LEAVES_ITERATION = (cst.Continue, cst.Break, cst.Return, cst.Raise)


class SchedulerStepBeforeOptimizerStep(Rule):
    """
    ## What it does
    Flags `scheduler.step()` of a `torch.optim.lr_scheduler` scheduler that runs before the
    optimizer's `step()` in the same iteration: per batch (`scheduler.step(); optimizer.step()`)
    or per epoch, at the top of an epoch loop whose inner loop steps the optimizer.

    ## Why is this bad?
    Since torch 1.1 the scheduler is stepped after the optimizer. Stepped first, the schedule's
    first value is never used and every change comes one step early. In torch 2.13 a `StepLR`
    (lr 0.1, `step_size=2`, `gamma=0.1`) stepped at the top of each of 5 epochs trained with
    `[0.1, 0.01, 0.01, 0.001, 0.001]` instead of `[0.1, 0.1, 0.01, 0.01, 0.001]`: the decay came an
    epoch early. torch warns once ("Detected call of `lr_scheduler.step()` before
    `optimizer.step()`"), and the warning is easily lost in a log.

    ## Example
    ```python
    from torch.optim.lr_scheduler import StepLR
    scheduler = StepLR(optimizer, step_size=30)
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        scheduler.step()
        optimizer.step()
    ```

    ## Use instead
    ```python
    from torch.optim.lr_scheduler import StepLR
    scheduler = StepLR(optimizer, step_size=30)
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
        scheduler.step()
    ```

    ## Fix safety
    Safe: the fix moves `scheduler.step()` to just after the optimizer step, the order torch
    documents. Offered when both are statements of their own line in the same block and nothing
    between them reads the learning rate or leaves the iteration.

    ## Known limits
    Only schedulers built from `torch.optim.lr_scheduler` in the file are known; those of other
    libraries (timm, fairseq) take `step(epoch)` by design and are not reported, nor
    `ReduceLROnPlateau`, `step(epoch)` calls, conditional scheduler steps, schedulers built with
    `last_epoch=` (a resumed schedule), or loops entered after an optimizer has already stepped
    (a warm-up loop before them). An optimizer step in a function of
    another file is not seen.
    """

    code = "GL612"
    name = "scheduler-step-before-optimizer-step"
    summary = "`scheduler.step()` runs before `optimizer.step()`: the first learning rate is skipped"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("lr_scheduler", "SWALR")

    VALID = (
        """
        from torch.optim.lr_scheduler import StepLR
        scheduler = StepLR(optimizer, 30)
        for x in data:
            opt.zero_grad()
            loss = f(x)
            loss.backward()
            optimizer.step()
            scheduler.step()
        """,
        """
        from torch.optim.lr_scheduler import StepLR
        scheduler = StepLR(optimizer, 30)
        for epoch in range(10):
            for x in data:
                loss = f(x)
                loss.backward()
                optimizer.step()
            scheduler.step()
        """,
        """
        from torch.optim.lr_scheduler import ReduceLROnPlateau
        scheduler = ReduceLROnPlateau(optimizer)
        for epoch in range(10):
            scheduler.step(val_loss)
            for x in data:
                f(x).backward()
                optimizer.step()
        """,
        """
        import timm.scheduler
        scheduler = timm.scheduler.CosineLRScheduler(optimizer, t_initial=100)
        for epoch in range(10):
            scheduler.step(epoch)
            for x in data:
                f(x).backward()
                optimizer.step()
        """,
        """
        for t in range(100):
            obs, reward, done, info = env.step(action)
            loss = f(obs)
            loss.backward()
            optimizer.step()
        """,
        """
        from torch.optim.lr_scheduler import StepLR
        scheduler = StepLR(optimizer, 30)
        for epoch in range(10):
            if epoch > 0:
                scheduler.step()
            for x in data:
                f(x).backward()
                optimizer.step()
        """,
        """
        from torch.optim.lr_scheduler import StepLR
        scheduler_g = StepLR(opt_g, 30)
        for x in data:
            scheduler_g.step()
            loss_d.backward()
            opt_d.step()
        """,
        """
        from torch.optim.lr_scheduler import StepLR
        scheduler = StepLR(optimizer, 30, last_epoch=start_epoch - 1)
        for epoch in range(start_epoch, 90):
            scheduler.step()
            for x in data:
                f(x).backward()
                optimizer.step()
        """,
        """
        from torch.optim.lr_scheduler import LambdaLR
        def train(model, optimizer, loader):
            scheduler = LambdaLR(optimizer, lambda e: 0.9 ** e)
            f(loader[0]).backward()
            optimizer.step()
            for x in loader:
                scheduler.step()
                f(x).backward()
                optimizer.step()
        """,
    )
    INVALID = (
        Invalid(
            """
            from torch.optim.lr_scheduler import StepLR
            scheduler = StepLR(optimizer, 30)
            for x in data:
                loss = f(x)
                loss.backward()
                scheduler.step()
                optimizer.step()
            """,
            """
            from torch.optim.lr_scheduler import StepLR
            scheduler = StepLR(optimizer, 30)
            for x in data:
                loss = f(x)
                loss.backward()
                optimizer.step()
                scheduler.step()
            """,
            line=6,
            column=5,
            message="`scheduler.step()` runs before `optimizer.step()` in the same iteration",
            fix_title="Step the scheduler after the optimizer",
        ),
        Invalid(
            """
            import torch
            def train(model, optimizer, data):
                scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
                for x in data:
                    scheduler.step()
                    optimizer.zero_grad()
                    # forward and backward
                    loss = model(x).sum()
                    loss.backward()
                    optimizer.step()  # update
                    log(loss)
            """,
            """
            import torch
            def train(model, optimizer, data):
                scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
                for x in data:
                    optimizer.zero_grad()
                    # forward and backward
                    loss = model(x).sum()
                    loss.backward()
                    optimizer.step()  # update
                    scheduler.step()
                    log(loss)
            """,
            line=5,
            column=9,
            message="`scheduler.step()` runs before `optimizer.step()`",
            fix_title="Step the scheduler after the optimizer",
        ),
        Invalid(  # per epoch: the inner loop steps the optimizer after the scheduler
            """
            from torch.optim import lr_scheduler
            scheduler = lr_scheduler.StepLR(optimizer, step_size=30)
            for epoch in range(90):
                scheduler.step()
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
            """,
            line=4,
            column=5,
            message="`scheduler.step()` runs before `optimizer.step()`",
        ),
        Invalid(  # a helper steps the optimizer
            """
            from torch.optim import lr_scheduler
            def train_epoch(model, optimizer, loader):
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
            scheduler = lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
            for epoch in range(90):
                scheduler.step()
                train_epoch(model, optimizer, loader)
            """,
            line=9,
            column=5,
            message="`scheduler.step()` runs before the optimizer step in `train_epoch(model, optimizer, loader)`",
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        training = self.context.training
        for loop in training.loops:
            scope = training.scope_of(loop) or self.context.module
            for index, event in enumerate(loop.events):
                if event.kind is Kind.STEP:
                    break  # an optimizer already stepped in this iteration
                optimizers = self._torch_scheduler_step(event, scope)
                if optimizers is None:
                    continue
                step = _next_step(loop.events[index + 1 :], optimizers)
                if step is not None and not training.steps_before(loop):
                    self.report(event.node, self._message(event, step), self._fix(loop, event, step))

    def _torch_scheduler_step(self, event: Event, scope) -> Optional[frozenset[str]]:
        """The optimizers a plain `scheduler.step()` of a torch scheduler drives (empty: not known)."""
        call = event.node
        if event.kind is not Kind.OTHER_STEP or not event.direct or event.conditional or call.args:
            return None
        receiver = call.func.value
        classes = self.context.schedulers.scheduler_classes(receiver, scope)
        if not classes or PLATEAU in classes or self.context.schedulers.starts_mid_schedule(receiver, scope):
            return None  # a resumed schedule (`last_epoch=`) may be stepped first on purpose
        return self.context.schedulers.stepped_optimizers(receiver, scope) or frozenset()

    def _message(self, event: Event, step: Event) -> str:
        scheduler, stepping = self.context.code_for(event.node), self.context.code_for(step.node)
        if step.via is not None:
            where = f"the optimizer step in `{stepping}`"
        else:
            where = f"`{stepping}` " + ("in the same iteration" if step.direct else "in this iteration")
        return (
            f"`{scheduler}` runs before {where}: the schedule's first learning rate is "
            "skipped and every change comes one step early; step the scheduler after the optimizer"
        )

    def _fix(self, loop: Region, event: Event, step: Event):
        body = list(suite_statements(loop.owner.body))
        first, last = event.line, step.line
        if step.via is not None or not step.direct or step.conditional or not (_alone(first) and _alone(last)):
            return None
        if first not in body or last not in body or first.leading_lines and _has_comment(first):
            return None
        between = body[body.index(first) + 1 : body.index(last)]
        receiver = dotted_name(event.node.func.value) or ""
        if any(_reads_schedule(statement, receiver.split(".")[0]) for statement in between):
            return None
        indent = self.context.indentation_of(first)
        moved = first.with_changes(leading_lines=())
        text = "".join(render_at(self.context, statement, indent) for statement in [*between, last, moved])
        return self.safe_fix("Step the scheduler after the optimizer", ReplaceLines(first, last, text))


def _next_step(events: list[Event], optimizers: frozenset[str]) -> Optional[Event]:
    for event in events:
        if event.kind is Kind.STEP and (not optimizers or event.optimizer in optimizers):
            return event
    return None


def _alone(line) -> bool:
    return isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Expr)


def _has_comment(line: cst.SimpleStatementLine) -> bool:
    return any(empty.comment is not None for empty in line.leading_lines)


def _reads_schedule(statement: cst.CSTNode, scheduler: str) -> bool:
    """`statement` may read the learning rate, mention the scheduler or leave the iteration."""
    if scheduler in mentioned_names(statement):
        return True
    return any(
        isinstance(node, _LEAVES_ITERATION)
        or (isinstance(node, cst.Attribute) and node.attr.value in _LR_READS)
        or (isinstance(node, cst.Name) and node.value in ("lr", "learning_rate"))
        for node in descendants(statement)
    )
