from __future__ import annotations

from functools import cached_property
from typing import Optional

import libcst as cst

from gradlint.fix.plan import Applicability, Availability, InsertLineBefore, Replace
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl604_amp_step_order.amp import AmpAnalysis, AmpCall, AmpIteration, AmpKind


class AmpStepOrder(Rule):
    """
    ## What it does
    Flags three slips in a mixed-precision (`GradScaler`) training iteration that scales its
    loss with `scaler.scale(loss).backward()`:
    gradients clipped (`clip_grad_norm_` / `clip_grad_value_`) with no `scaler.unscale_(optimizer)`
    before; a plain `optimizer.step()` where `scaler.step(optimizer)` is needed; and
    `scaler.step(optimizer)` in a loop that never calls `scaler.update()`.

    ## Why is this bad?
    The gradients are still multiplied by the scale (65,536 by default). In torch 2.13 (CPU
    `GradScaler`, SGD on a linear model, gradient norm 0.285): done right, three steps move the
    weights by 0.0807, as in full precision; clipping to 1 before `unscale_` sees a norm of
    18,690, and the step then divides the clipped gradients by the scale: the weights move by
    0.0000045 (training halts silently). `optimizer.step()` instead of `scaler.step()` applies the
    scaled gradients: one step moves the weights by 1,847.4 instead of 0.0282 (65,536 times too
    far), with no error (`scaler.update()` afterwards raises "No inf checks were recorded prior
    to update"). Without `scaler.update()` the second iteration raises ("step() has already been
    called since the last update()"), and the scale never adapts.

    ## Example
    ```python
    import torch
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
    ```

    ## Use instead
    ```python
    import torch
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
    ```

    ## Fix safety
    Unsafe: inserting `scaler.unscale_(optimizer)` before the clip (offered when the clip is a
    statement of its own line and one optimizer is stepped through the scaler after it) and
    replacing `optimizer.step()` by `scaler.step(optimizer)` change what the step does, on
    purpose. A missing `scaler.update()` has no fix.

    ## Known limits
    Only loops that call `scaler.scale(loss).backward()` themselves (or through a function of
    the same file) are checked. Scalers built with `enabled=False`, scalers of other classes
    (DeepSpeed, Apex, custom ones), Accelerate's and Lightning's `clip_grad_norm_` (which unscale
    first), loops that also call `scaler.step` on some path, and iterations that hand the scaler
    to code of another file are not reported.
    """

    code = "GL604"
    name = "amp-step-order"
    summary = "mixed-precision step out of order: clip before `unscale_`, `optimizer.step()` on scaled gradients, no `scaler.update()`"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("scale(",)

    VALID = (
        # The update is named but not called: GL606 reports that statement.
        """
        import torch
        scaler = torch.amp.GradScaler("cuda")
        for x in data:
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update
        """,
        """
        import torch
        for x in data:
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
        """,
        """
        import torch
        for i, x in enumerate(data):
            scaler.scale(loss / k).backward()
            if (i + 1) % k == 0:
                scaler.unscale_(opt)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(opt)
                scaler.update()
                opt.zero_grad()
        """,
        """
        for x in data:
            opt.zero_grad()
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        """,
        """
        import torch
        scaler = torch.amp.GradScaler("cuda", enabled=False)
        for x in data:
            scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        """,
        """
        for x in data:
            if use_amp:
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
            else:
                loss.backward()
                opt.step()
        """,
        """
        import torch
        def clip(model, scaler, opt):
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        for x in data:
            scaler.scale(loss).backward()
            clip(model, scaler, opt)
            scaler.step(opt)
            scaler.update()
        """,
        """
        for x in data:
            scaler.scale(loss).backward()
            optimizer_step(scaler, opt)
        """,
        """
        for x in data:
            scaler.scale(loss).backward()
            for opt in (opt_a, opt_b):
                scaler.step(opt)
            scaler.update()
        """,
        """
        from apex import amp
        scaler = MyLossScaler()
        for x in data:
            scaler.scale(loss).backward()
            opt.step()
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            for x in data:
                optimizer.zero_grad()
                scaler.scale(loss).backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimizer)
                scaler.update()
            """,
            """
            import torch
            for x in data:
                optimizer.zero_grad()
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimizer)
                scaler.update()
            """,
            line=5,
            column=5,
            message="gradients are clipped while still multiplied by the loss scale",
            fix_title="Unscale the gradients before clipping",
        ),
        Invalid(
            """
            for x in data:
                optimizer.zero_grad()
                scaler.scale(loss).backward()
                optimizer.step()
            """,
            """
            for x in data:
                optimizer.zero_grad()
                scaler.scale(loss).backward()
                scaler.step(optimizer)
            """,
            line=4,
            column=5,
            message="`optimizer.step()` applies gradients still multiplied by the loss scale",
            fix_title="Step through the scaler",
        ),
        Invalid(
            """
            import torch
            class Trainer:
                def __init__(self, model):
                    self.scaler = torch.amp.GradScaler("cuda")
                    self.optimizer = torch.optim.AdamW(model.parameters())
                def fit(self, loader):
                    for x in loader:
                        self.optimizer.zero_grad()
                        self.scaler.scale(self.model(x).mean()).backward()
                        self.scaler.step(self.optimizer)
            """,
            line=10,
            column=13,
            message="`self.scaler.step(self.optimizer)` runs in a loop that never calls `self.scaler.update()`",
        ),
        Invalid(  # clip_grad_value_ in a helper-free loop, the scaler stepped in a branch
            """
            from torch.nn.utils import clip_grad_value_
            for x in data:
                scaler.scale(loss).backward()
                clip_grad_value_(model.parameters(), 0.5)
                if step_ok:
                    scaler.step(opt)
                scaler.update()
            """,
            """
            from torch.nn.utils import clip_grad_value_
            for x in data:
                scaler.scale(loss).backward()
                scaler.unscale_(opt)
                clip_grad_value_(model.parameters(), 0.5)
                if step_ok:
                    scaler.step(opt)
                scaler.update()
            """,
            line=4,
            column=5,
            message="gradients are clipped while still multiplied by the loss scale",
            fix_title="Unscale the gradients before clipping",
        ),
    )

    @cached_property
    def amp(self) -> AmpAnalysis:
        """What each training loop does with a `GradScaler`, in order."""
        return AmpAnalysis(self.context.training, self.context.function_table)

    def visit_Module(self, node: cst.Module) -> None:
        amp = self.amp
        for iteration in amp.iterations:
            for index, call in enumerate(iteration.calls):
                scaled = _last_scaled_backward(iteration.calls[:index])
                if scaled is None or scaled.scaler in amp.disabled_scalers or not amp.is_torch_scaler(scaled.scaler):
                    continue
                if call.kind is AmpKind.CLIP and call.via is None and _nothing_unscales(iteration.calls, scaled, call):
                    self._clip(iteration, index, scaled)
                elif call.kind is AmpKind.OPTIMIZER_STEP and call.direct and _never_steps_through_scaler(iteration, scaled, call):
                    self._plain_step(call, scaled)
            for step in iteration.of(AmpKind.SCALER_STEP):
                if step.direct and amp.is_torch_scaler(step.scaler) and step.scaler not in amp.disabled_scalers:
                    if not any(c.kind in (AmpKind.UPDATE, AmpKind.OPAQUE) for c in iteration.calls) and not iteration.names_update(
                        step.scaler
                    ):
                        self.report(
                            step.call,
                            f"`{self.context.code_for(step.call)}` runs in a loop that never calls `{step.scaler}.update()`: "
                            "the second iteration raises and the scale never adapts; call it once per step",
                        )

    def _clip(self, iteration: AmpIteration, index: int, scaled: AmpCall) -> None:
        clip = iteration.calls[index]
        self.report(
            clip.call,
            f"`{self.context.code_for(clip.call.func)}(...)` runs after `{scaled.scaler}.scale(...).backward()` with no "
            f"`{scaled.scaler}.unscale_(optimizer)` before: gradients are clipped while still multiplied by the loss scale, "
            "so the step barely moves; unscale first",
            self._unscale_fix(iteration, index, scaled),
        )

    def _unscale_fix(self, iteration: AmpIteration, index: int, scaled: AmpCall):
        clip = iteration.calls[index]
        steps = {c.optimizer for c in iteration.calls[index + 1 :] if c.kind is AmpKind.SCALER_STEP and c.scaler == scaled.scaler}
        if len(steps) != 1 or None in steps or not _own_line(clip.line, clip.call):
            return None
        return self.unsafe_fix(
            "Unscale the gradients before clipping",
            InsertLineBefore(clip.line, f"{scaled.scaler}.unscale_({steps.pop()})"),
        )

    def _plain_step(self, step: AmpCall, scaled: AmpCall) -> None:
        code = self.context.code_for(step.call)
        fix = None
        if not step.call.args:
            fix = self.unsafe_fix("Step through the scaler", Replace(step.call, f"{scaled.scaler}.step({step.optimizer})"))
        self.report(
            step.call,
            f"`{code}` applies gradients still multiplied by the loss scale of `{scaled.scaler}.scale(...).backward()` "
            f"(65,536 times too large by default); use `{scaled.scaler}.step({step.optimizer})`",
            fix,
        )


def _last_scaled_backward(calls: tuple[AmpCall, ...]) -> Optional[AmpCall]:
    for call in reversed(calls):
        if call.kind is AmpKind.SCALED_BACKWARD and not call.nested_loop:
            return call
    return None


def _nothing_unscales(calls: tuple[AmpCall, ...], scaled: AmpCall, clip: AmpCall) -> bool:
    between = calls[calls.index(scaled) + 1 : calls.index(clip)]
    return not any(c.kind in (AmpKind.UNSCALE, AmpKind.OPAQUE, AmpKind.SCALER_STEP, AmpKind.OPTIMIZER_STEP) for c in between)


def _never_steps_through_scaler(iteration: AmpIteration, scaled: AmpCall, step: AmpCall) -> bool:
    """No `scaler.step` anywhere in the iteration, and nothing unscaled the gradients before `step`."""
    if any(c.kind in (AmpKind.SCALER_STEP, AmpKind.OPAQUE) for c in iteration.calls):
        return False
    between = iteration.calls[iteration.calls.index(scaled) + 1 : iteration.calls.index(step)]
    return not any(c.kind is AmpKind.UNSCALE for c in between)


def _own_line(line: Optional[cst.SimpleStatementLine], call: cst.Call) -> bool:
    return (
        isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
        and isinstance(line.body[0], cst.Expr)
        and line.body[0].value is call
    )
