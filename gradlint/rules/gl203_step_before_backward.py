from __future__ import annotations

import libcst as cst

from gradlint.analysis.training import Kind, Region
from gradlint.rules.base import Invalid, Rule


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
    iteration's gradient, one step late. torch gives no warning.

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
    objects with a `step()` method are not optimizers and are never reported. A backward done
    in another file is not seen. A conditional step (`if (i + 1) % k == 0: optimizer.step()` at the
    top of an accumulation loop) is not reported, nor is a loop primed by a backward just before it
    (`loss.backward()` then `for ...: optimizer.step(); optimizer.zero_grad(); ...; loss.backward()`),
    which steps on fresh gradients.
    """

    code = "GL203"
    name = "step-before-backward"
    summary = "optimizer step before the iteration's backward"
    triggers = ("backward",)

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
        for region in [*training.loops, *training.functions]:
            self._check(region)

    def _check(self, region: Region) -> None:
        seen_backward = False
        for index, event in enumerate(region.events):
            if event.kind is Kind.BACKWARD:
                seen_backward = True
            elif event.kind is Kind.STEP and not seen_backward and event.direct and not event.conditional:
                later = region.events[index + 1 :]
                if any(e.kind is Kind.BACKWARD and not e.nested_loop for e in later) and not self._primed(region):
                    self.report(
                        event.node,
                        f"`{self.context.code_for(event.node)}` runs before this iteration's `backward()`, "
                        "so it uses no gradients or the previous iteration's",
                    )
                return

    def _primed(self, region: Region) -> bool:
        """`loss.backward()` before the loop, then `step(); zero_grad(); ...; backward()` in it: a rotated
        loop whose every step uses the gradient just computed at the current parameters."""
        return isinstance(region.owner, (cst.For, cst.While)) and self.context.training.runs_backward_before(region)
