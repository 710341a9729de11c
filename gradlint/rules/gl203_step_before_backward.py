from __future__ import annotations

import libcst as cst

from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.training import Event, Kind, Region
from gradlint.rules.base import Invalid, Rule, Severity


class StepBeforeBackward(Rule):
    """
    ## What it does
    Flags an optimizer `step()` that runs before the iteration's `backward()` (for example
    `zero_grad(); loss = ...; optimizer.step(); loss.backward()`).

    ## Why is this bad?
    The step uses no gradients or stale ones. In torch 2.13, with
    `zero_grad(); loss; step(); backward()` the parameters never move (they stayed at their
    initial `[0.364346, -0.312102]` for every step while correct training went
    0.478 -> 0.584 -> 0.680); with `step(); zero_grad(); backward()` every step applies the previous
    iteration's gradient, one step late. torch gives no warning. `scaler.step(opt)` before
    `scaler.scale(loss).backward()` never trains when the scaler is disabled (AMP switched off)
    and raises `_scale is None` on the first step when it is enabled.

    ## Example
    ```python
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        optimizer.step()
        loss.backward()
    ```

    ## Use instead
    ```python
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```

    ## Fix safety
    No fix: which order was meant cannot be known for sure.

    ## Known limits
    Learning-rate schedulers (`scheduler.step()`), environments (`env.step(action)`) and other
    objects with a `step()` method are not optimizers and are never reported, nor is a step given
    a loss (`self.policy_optim.step(actor_loss)`): torch's `Optimizer.step` takes only a closure,
    so that is a framework's wrapper that backpropagates the loss itself (tianshou's). A backward done
    in another file is not seen. A conditional step (`if (i + 1) % k == 0: optimizer.step()` at the
    top of an accumulation loop) is not reported, nor is a loop primed by a backward just before it
    (`loss.backward()` then `for ...: optimizer.step(); optimizer.zero_grad(); ...; loss.backward()`),
    which steps on fresh gradients.
    """

    code = "GL203"
    name = "step-before-backward"
    summary = "optimizer step before the iteration's backward"
    severity = Severity.ERROR
    triggers = ("backward",)
    # Its findings are direct `step()` calls of a body that also calls `backward()`.
    also_required = ("step",)

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
            scheduler.step()
            loss = f(x)
            loss.backward()
            opt.step()
        """,
        """
        for t in range(n):
            obs, r, done, info = env.step(action)
            loss = f(obs)
            opt.zero_grad()
            loss.backward()
            opt.step()
        """,
        """
        for x in data:
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        """,
        """
        for x in data:
            def closure():
                opt.zero_grad()
                loss = f(x)
                loss.backward()
                return loss
            opt.step(closure)
        """,
        """
        for i, x in enumerate(data):
            if i % k == 0:
                opt.step()
                opt.zero_grad()
            loss = f(x) / k
            loss.backward()
        """,
        """
        def train(opt, batches):
            loss = f(batches[0])
            loss.backward()
            for x in batches[1:]:
                opt.step()
                opt.zero_grad()
                loss = f(x)
                loss.backward()
            opt.step()
        """,
        """
        class Algorithm:
            def update(self, obs):
                actor_loss, log_pi = self.policy_loss(obs)
                self.policy_optim.step(actor_loss)
                self.alpha_optim.zero_grad()
                alpha_loss = -(self.log_alpha * log_pi.detach()).mean()
                alpha_loss.backward()
                self.alpha_optim.step()
        """,
    )
    INVALID = (
        Invalid(
            "\n            for x in data:\n                opt.zero_grad()\n                loss = f(x)\n                opt.step()\n                loss.backward()\n            ",
            line=4,
            column=5,
            message="`opt.step()` runs before this iteration's `backward()`, so",
        ),
        Invalid(
            "\n            for x in data:\n                optimizer.step()\n                optimizer.zero_grad()\n                loss = f(x)\n                loss.backward()\n            ",
            line=2,
            column=5,
            message="`optimizer.step()` runs before this iteration's",
        ),
        Invalid(
            "\n            def train(opt, batches):\n                for x in batches:\n                    loss = f(x)\n                    loss.backward()\n                for x in batches:\n                    opt.step()\n                    opt.zero_grad()\n                    loss = f(x)\n                    loss.backward()\n            ",
            line=6,
            column=9,
            message="`opt.step()` runs before this iteration's `backward()`, so",
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        training = self.context.training
        reported: set[int] = set()
        for region in [*training.loops, *training.functions]:
            for path in [region, *training.branch_paths(region)]:
                for step in [*self._first_step_before_backward(path, region), *self._steps_after_reset(path)]:
                    if id(step.node) not in reported:
                        reported.add(id(step.node))
                        self.report(
                            step.node,
                            f"`{self.context.code_for(step.node)}` runs before this iteration's `backward()`, "
                            "so it uses no gradients or the previous iteration's",
                        )

    def _first_step_before_backward(self, path: Region, region: Region) -> list[Event]:
        for index, event in enumerate(path.events):
            if event.kind is Kind.BACKWARD:
                return []
            if event.kind is Kind.STEP and event.direct and not event.conditional:
                if _backward_follows(path.events[index + 1 :]) and not self._primed(region):
                    return [event]
                return []
        return []

    def _steps_after_reset(self, path: Region) -> list[Event]:
        """`opt.zero_grad(); ...; opt.step(); ...; loss.backward()`: the step of an optimizer whose
        gradients were just cleared, with no backward in between (the second optimizer of an
        actor-critic update, whose step comes before its own backward)."""
        found = []
        events = path.events
        for index, step in enumerate(events):
            if step.kind is not Kind.STEP or not step.direct or step.conditional or _passes_closure(step):
                continue
            for earlier in reversed(events[:index]):
                if earlier.calls_backward:
                    break
                if earlier.kind is Kind.RESET and not earlier.resets_all and earlier.optimizer == step.optimizer:
                    if not earlier.conditional and _backward_follows(events[index + 1 :]):
                        found.append(step)
                    break
        return found

    def _primed(self, region: Region) -> bool:
        """`loss.backward()` before the loop, then `step(); zero_grad(); ...; backward()` in it: a rotated
        loop whose every step uses the gradient just computed at the current parameters."""
        return isinstance(region.owner, (cst.For, cst.While)) and self.context.training.runs_backward_before(region)


def _backward_follows(events: list[Event]) -> bool:
    return any(event.kind is Kind.BACKWARD and not event.nested_loop for event in events)


def _passes_closure(step: Event) -> bool:
    """`opt.step(closure)`: the closure may compute the gradients (`scaler.step(opt)` passes the optimizer)."""
    call = step.node
    return isinstance(call, cst.Call) and any(dotted_name(arg.value) != step.optimizer for arg in call.args)
