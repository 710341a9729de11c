from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.training import Event, Kind, Region
from gradlint.fix.plan import Applicability, Availability, InsertLineBefore, RemoveLine
from gradlint.rules.base import Invalid, Rule, Severity


class ZeroGradBeforeStep(Rule):
    """
    ## What it does
    Flags a gradient reset (`optimizer.zero_grad()`, or `model.zero_grad()` where one optimizer
    is used) that runs after `backward()` and before that optimizer's `step()` in the same
    iteration, with no backward in between.

    ## Why is this bad?
    The step sees no gradients. With the default `zero_grad(set_to_none=True)` the optimizer skips
    every parameter: in torch 2.13 the weights stayed at their initial `[0.5, -0.25]` for every
    step, with no error. With `set_to_none=False`, plain SGD is frozen too, while SGD with momentum
    and Adam keep moving on stale state.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
    ```

    ## Use instead
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ```

    ## Fix safety
    Unsafe: the fix moves the reset to just before the backward statement, which changes what
    the step does (it starts training). Offered when the reset is a statement of its own line.

    ## Known limits
    Resets of another optimizer (a GAN zeroing the generator between the discriminator's
    backward and step) are not reported; neither are conditional resets, unless the same branch
    of the `if` steps right after (a reset inside the stepping branch of an accumulation loop,
    reported without a fix). A reset followed by the step and then a backward is GL203's.
    """

    code = "GL202"
    name = "zero-grad-before-step"
    summary = "gradients are reset between backward and step"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("zero_grad",)

    VALID = (
        """
        for x in data:
            opt.zero_grad()
            loss = f(x)
            loss.backward()
            opt.step()
        """,
        """
        for x in data:
            loss = f(x)
            loss.backward()
            opt.step()
            opt.zero_grad()
        """,
        """
        for x in data:
            optD.zero_grad()
            lossD.backward()
            optD.step()
            optG.zero_grad()
            lossG.backward()
            optG.step()
        """,
        """
        for x in data:
            lossD.backward()
            optG.zero_grad()
            optD.step()
        """,
        """
        for x in data:
            loss.backward()
            if skip:
                opt.zero_grad()
            opt.step()
        """,
        """
        for i, x in enumerate(data):
            loss = f(x) / k
            loss.backward()
            if (i + 1) % k == 0:
                opt.step()
                opt.zero_grad()
        """,
        """
        for x in data:
            loss.backward()
            if not torch.isfinite(loss):
                opt.zero_grad()
                continue
            opt.step()
        """,
    )
    INVALID = (
        Invalid(
            "\n            for x in data:\n                loss = f(x)\n                loss.backward()\n                optimizer.zero_grad()\n                optimizer.step()\n            ",
            "\n            for x in data:\n                loss = f(x)\n                optimizer.zero_grad()\n                loss.backward()\n                optimizer.step()\n            ",
            line=4,
            column=5,
            message="`optimizer.zero_grad()` runs after backward and before the",
            fix_title="Move the reset before the backward call",
        ),
        Invalid(
            "\n            def train_step(model, opt, x):\n                loss = model(x).sum()\n                loss.backward()\n                model.zero_grad()\n                opt.step()\n            ",
            "\n            def train_step(model, opt, x):\n                loss = model(x).sum()\n                model.zero_grad()\n                loss.backward()\n                opt.step()\n            ",
            line=4,
            column=5,
            message="`model.zero_grad()` runs after backward and before the",
            fix_title="Move the reset before the backward call",
        ),
        Invalid(  # the reset shares its line with the step: reported, no fix
            """
            for x in data:
                loss = f(x)
                loss.backward()
                optimizer.zero_grad(); optimizer.step()
            """,
            line=4,
            column=5,
            message="`optimizer.zero_grad()` runs after backward and before the step",
        ),
        Invalid(  # accumulation: the reset in the stepping branch wipes the accumulated gradients
            """
            for i, x in enumerate(data):
                loss = f(x) / k
                loss.backward()
                if (i + 1) % k == 0:
                    optimizer.zero_grad()
                    optimizer.step()
            """,
            line=5,
            column=9,
            message="`optimizer.zero_grad()` runs right before the step in this branch and wipes",
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        training = self.context.training
        reported: set[int] = set()
        for region in [*training.loops, *training.functions]:
            for reset, backward in self._misplaced(region):
                reported.add(id(reset.node))
                self.report(reset.node, self._message(reset), self._fix(reset, backward))
            for path in training.branch_paths(region):
                for reset, _ in self._misplaced(path):
                    if id(reset.node) not in reported:
                        reported.add(id(reset.node))
                        self.report(reset.node, self._branch_message(reset))

    def _misplaced(self, region: Region):
        events = region.events
        optimizers = {e.optimizer for e in region.of(Kind.STEP)}
        for index, reset in enumerate(events):
            if reset.kind is not Kind.RESET or not reset.direct or reset.conditional or reset.optimizer is None:
                continue
            if reset.resets_all and len(optimizers) != 1:
                continue  # `netG.zero_grad()` in a GAN may be on purpose
            backward = _last(events[:index], Kind.BACKWARD)
            if backward is None:
                continue
            for offset, later in enumerate(events[index + 1 :], start=index + 1):
                if later.kind is Kind.BACKWARD:
                    break
                if later.kind is Kind.STEP and (reset.resets_all or later.optimizer == reset.optimizer):
                    if not _backward_follows(events[offset + 1 :]):
                        yield reset, backward  # else the step comes before its own backward: GL203's
                    break

    def _message(self, reset: Event) -> str:
        return (
            f"`{self.context.code_for(reset.node)}` runs after backward and before the step, so the step sees "
            "no gradients and nothing trains; reset before `backward()`"
        )

    def _branch_message(self, reset: Event) -> str:
        return (
            f"`{self.context.code_for(reset.node)}` runs right before the step in this branch and wipes the "
            "gradients of the earlier `backward()`, so the step sees none; reset after the step"
        )

    def _fix(self, reset: Event, backward: Event):
        line, target = reset.line, backward.line
        if backward.via is not None or not _own_line(line) or not isinstance(target, cst.SimpleStatementLine):
            return None
        moved = self.context.code_for(line.body[0])
        return self.unsafe_fix(
            "Move the reset before the backward call",
            RemoveLine(line),
            InsertLineBefore(target, moved),
        )


def _own_line(line: Optional[cst.CSTNode]) -> bool:
    return isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1


def _last(events: list[Event], kind: Kind) -> Optional[Event]:
    for event in reversed(events):
        if event.kind is kind:
            return event
    return None


def _backward_follows(events: list[Event]) -> bool:
    return any(event.kind is Kind.BACKWARD and not event.nested_loop for event in events)
