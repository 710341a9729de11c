from __future__ import annotations

import re
from functools import cached_property
from typing import Optional

import libcst as cst

from gradlint.analysis.roles import is_criterion_name
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.training import BackwardSite, Event, Kind, Region, Wrapper
from gradlint.analysis.tree import descendants
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.rules.base import Invalid, Rule, Severity

# A counter compared in an accumulation guard: `if accum_count == accumulation_steps:`.
_ACCUMULATION_NAME = re.compile(r"accum|grad_acc|update_freq|iters_to_accumulate", re.IGNORECASE)
_CRITERION_OBJECT = re.compile(r"^(criterion\w*|crit|loss_fn|loss_func|loss_function)$", re.IGNORECASE)
_SCALING_OPERATORS = (cst.Divide, cst.Multiply, cst.DivideAssign, cst.MultiplyAssign)
_DEPTH = 4


class AccumulationWithoutLossScaling(Rule):
    """
    ## What it does
    Flags gradient accumulation whose loss is not divided by the number of accumulated batches:
    `loss.backward()` runs every iteration, while the optimizer steps (and the gradients are
    reset) only every `k` iterations, under a guard such as `if (i + 1) % k == 0:`, and the loss
    is a mean that is never divided by `k` on its way to `backward()`.

    ## Why is this bad?
    Gradients add up over the `k` backward calls, so each step applies the sum of `k` mean
    gradients: `k` times the gradient of the large batch it stands for, as if the learning rate
    were `k` times larger. In torch 2.13 (SGD, lr 0.1, `k = 4` batches of 8), one step without
    dividing moved the weights 1.2764, exactly 4 times as far as the step with the loss divided
    and as one SGD step over the same 32 samples (0.3191 both); with `k = 8` at lr 0.3 the loss
    reached 7.9e10 after 8 steps where the divided loss fell to 0.0113. No error or warning.

    ## Example
    ```python
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    ```

    ## Use instead
    ```python
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    ```

    ## Fix safety
    Unsafe: `loss.backward()` becomes `(loss / accumulation_steps).backward()` (the divisor taken
    from the `%` guard), which changes the size of every step on purpose. Offered when the
    backward's receiver (or the tensor passed to `scaler.scale`) is a plain name.

    ## Known limits
    Silent when the loss is divided or multiplied anywhere on its way (`loss = loss / k`,
    `loss /= k`, `(loss / k).backward()`, a helper of the file that returns a divided loss), when
    its origin is not a plain mean loss (a criterion call, `F.*` loss, `outputs.loss`, `.mean()`),
    for losses reduced with `reduction="sum"` or `.sum()` (their sum over the `k` batches is the
    large batch's loss), when the stepping branch also backpropagates (a GAN's `n_critic`
    schedule), rescales or clips the gradients, when the gradients are reset every iteration,
    and under Accelerate's `accelerator.accumulate`.

    With an Adam-family optimizer a k-times larger gradient barely changes the update (the
    moment estimates normalise it, up to `eps`), so the effect is the loss's scale rather than k
    times the learning rate; it stays reported, since the optimizer or the accumulation may change.
    """

    code = "GL608"
    name = "accumulation-without-loss-scaling"
    summary = "gradients accumulated over k batches without dividing the loss by k: k times the learning rate"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("backward",)
    also_required = ("step",)  # the accumulated gradients are stepped every k iterations

    VALID = (
        """
        for i, (x, y) in enumerate(loader):
            loss = criterion(model(x), y) / accumulation_steps
            loss.backward()
            if (i + 1) % accumulation_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
        """,
        """
        for i, (x, y) in enumerate(loader):
            loss = criterion(model(x), y)
            (loss / k).backward()
            if (i + 1) % k == 0:
                optimizer.step()
                optimizer.zero_grad()
        """,
        """
        for i, (x, y) in enumerate(loader):
            loss = criterion(model(x), y)
            loss /= k
            loss.backward()
            if (i + 1) % k == 0:
                optimizer.step()
                optimizer.zero_grad()
        """,
        """
        for i, (real, z) in enumerate(loader):
            opt_d.zero_grad()
            loss_d = criterion(D(real), ones) + criterion(D(G(z).detach()), zeros)
            loss_d.backward()
            opt_d.step()
            if i % n_critic == 0:
                opt_g.zero_grad()
                loss_g = criterion(D(G(z)), ones)
                loss_g.backward()
                opt_g.step()
        """,
        """
        for i, (x, y) in enumerate(loader):
            with accelerator.accumulate(model):
                loss = criterion(model(x), y)
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
        """,
        """
        import torch.nn.functional as F
        for i, (x, y) in enumerate(loader):
            loss = F.cross_entropy(model(x), y, reduction="sum")
            loss.backward()
            if (i + 1) % k == 0:
                optimizer.step()
                optimizer.zero_grad()
        """,
        """
        for i, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            if i % 10 == 0:
                optimizer.step()
        """,
        """
        for i, batch in enumerate(loader):
            loss = compute_loss(model, batch)
            loss.backward()
            if (i + 1) % k == 0:
                optimizer.step()
                optimizer.zero_grad()
        """,
        """
        for i, (x, y) in enumerate(loader):
            loss = criterion(model(x), y)
            loss.backward()
            if (i + 1) % k == 0:
                for p in model.parameters():
                    p.grad /= k
                optimizer.step()
                optimizer.zero_grad()
        """,
        """
        from accelerate import Accelerator
        accelerator = Accelerator(gradient_accumulation_steps=4)
        for step, batch in enumerate(loader):
            loss = model(**batch).loss
            accelerator.backward(loss)
            if step % 4 == 0:
                optimizer.step()
                optimizer.zero_grad()
        """,
    )
    INVALID = (
        Invalid(
            """
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                loss.backward()
                if (i + 1) % accumulation_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            """,
            """
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                (loss / accumulation_steps).backward()
                if (i + 1) % accumulation_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            """,
            line=3,
            column=5,
            message="gradients of `accumulation_steps` batches add up before each step",
            fix_title="Divide the loss by `accumulation_steps`",
        ),
        Invalid(
            """
            def train(model, loader, optimizer, scaler, args):
                for step, batch in enumerate(loader):
                    outputs = model(**batch)
                    loss = outputs.loss
                    scaler.scale(loss).backward()
                    if step % args.gradient_accumulation_steps == 0:
                        scaler.step(optimizer)
                        scaler.update()
                        optimizer.zero_grad()
            """,
            """
            def train(model, loader, optimizer, scaler, args):
                for step, batch in enumerate(loader):
                    outputs = model(**batch)
                    loss = outputs.loss
                    scaler.scale(loss / args.gradient_accumulation_steps).backward()
                    if step % args.gradient_accumulation_steps == 0:
                        scaler.step(optimizer)
                        scaler.update()
                        optimizer.zero_grad()
            """,
            line=5,
            column=9,
            message="`scaler.scale(loss).backward()` runs every iteration",
            fix_title="Divide the loss by `args.gradient_accumulation_steps`",
        ),
        Invalid(  # a counter, the loss a mean: reported without a fix
            """
            import torch.nn.functional as F
            accum_count = 0
            for x, y in loader:
                F.mse_loss(model(x), y).backward()
                accum_count += 1
                if accum_count == accum_steps:
                    optimizer.step()
                    optimizer.zero_grad()
                    accum_count = 0
            """,
            line=4,
            column=5,
            message="without dividing the loss",
        ),
        Invalid(  # the functional form, and a backward that keeps its graph, backpropagate the same loss
            """
            import torch
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                torch.autograd.backward(loss)
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            """,
            """
            import torch
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                torch.autograd.backward(loss / k)
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            """,
            line=4,
            column=5,
        ),
        Invalid(
            """
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                loss.backward(retain_graph=True)
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            """,
            """
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                (loss / k).backward(retain_graph=True)
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            """,
            line=3,
            column=5,
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        if "accumulate(" in self.context.file_text:
            return  # `accelerator.accumulate(model)` scales the loss itself
        training = self.context.training
        for region in training.loops:
            finding = self._unscaled_accumulation(region)
            if finding is not None:
                backward, guard = finding
                self.report(backward.node, self._message(backward, guard), self._fix(backward, guard))

    def _unscaled_accumulation(self, region: Region) -> Optional[tuple[Event, cst.If]]:
        training = self.context.training
        events = region.events
        if any(e.kind is Kind.RESET and not e.conditional for e in events):
            return None  # gradients cleared every iteration: nothing accumulates
        backwards = [e for e in events if e.kind is Kind.BACKWARD and e.direct and not e.conditional]
        steps = [e for e in events if e.kind is Kind.STEP and e.direct and e.conditional]
        if len(backwards) != 1 or not steps or any(e.kind is Kind.STEP and not e.conditional for e in events):
            return None
        guards = {id(g): g for g in (training.guard_of(step) for step in steps)}
        if len(guards) != 1 or None in guards.values():
            return None
        guard = next(iter(guards.values()))
        backward = backwards[0]
        if not _accumulation_test(guard.test) or _holds(guard, backward.node) or _touches_gradients(guard):
            return None
        if any(e.calls_backward and _holds(guard, e.node) for e in events):
            return None  # the stepping branch backpropagates itself (a GAN's `n_critic` schedule)
        if not any(e.kind is Kind.RESET and _holds(guard, e.node) for e in events):
            return None
        site = backward.site
        if site.wrapper is Wrapper.ACCELERATOR and self._wrapper_accumulates:
            return None
        scope = training.scope_of(region) or self.context.module
        loss = _backpropagated(site)
        if loss is None or not self._plain_mean_loss(loss, scope, _DEPTH) or _rescaled_in(region.owner, loss):
            return None
        return backward, guard

    @cached_property
    def _wrapper_accumulates(self) -> bool:
        """An `Accelerator(gradient_accumulation_steps=...)` (or one given `**kwargs`) is built in the
        file: its `backward` divides the loss itself."""
        for node in descendants(self.context.module):
            if isinstance(node, cst.Call) and (dotted_name(node.func) or "").endswith("Accelerator"):
                if any(a.star == "**" or (a.keyword is not None and a.keyword.value == "gradient_accumulation_steps") for a in node.args):
                    return True
        return False

    def _plain_mean_loss(self, node: cst.BaseExpression, scope, depth: int) -> bool:
        """A mean loss, undivided: a criterion or `F.*` loss call, `outputs.loss`, `x.mean()`, sums of them."""
        if depth == 0:
            return False
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, (cst.Add, cst.Subtract)):
                return self._plain_mean_loss(node.left, scope, depth - 1) and self._plain_mean_loss(node.right, scope, depth - 1)
            return False
        if isinstance(node, cst.Name):
            values = self.context.scopes.values_of(node.value, scope)
            return bool(values) and all(self._plain_mean_loss(v, scope, depth - 1) for v in values)
        if isinstance(node, cst.Attribute):
            return node.attr.value == "loss"
        if isinstance(node, cst.Call):
            return self._mean_loss_call(node, scope)
        return False

    def _mean_loss_call(self, call: cst.Call, scope) -> bool:
        if any(arg.keyword is not None and arg.keyword.value == "reduction" for arg in call.args):
            return False  # an explicit reduction: "sum" on purpose, or a per-sample loss reduced later
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "mean" and not call.args:
            return True
        qualified = self.context.qualified_name(func) or ""
        if qualified.startswith("torch.nn.functional.") and ("loss" in qualified or "entropy" in qualified):
            return True
        name = dotted_name(func)
        if name is None or not is_criterion_name(name.rsplit(".", 1)[-1]):
            return False
        return self._default_reduction(func, scope, name.rsplit(".", 1)[-1])

    def _default_reduction(self, criterion: cst.BaseExpression, scope, name: str) -> bool:
        """The criterion is built from a `torch.nn` loss class without `reduction=` (a mean), or
        is not built in the file and named as a criterion object (`criterion`, `loss_fn`; not a
        function such as `compute_loss`, which may divide)."""
        values = []
        if isinstance(criterion, cst.Name):
            values = self.context.scopes.values_of(criterion.value, scope) or self.context.scopes.values_of(
                criterion.value, self.context.module
            )
        elif isinstance(criterion, cst.Attribute):
            values = [value for value, _ in self.context.scopes.instance_attribute_values(criterion, scope)]
        for value in values:
            if not isinstance(value, cst.Call) or any(a.keyword is not None and a.keyword.value == "reduction" for a in value.args):
                return False
            qualified = self.context.qualified_name(value.func) or ""
            if not (qualified.startswith("torch.nn.") and qualified.endswith("Loss")):
                return False
        return bool(values) or bool(_CRITERION_OBJECT.match(name))

    def _message(self, backward: Event, guard: cst.If) -> str:
        k = _divisor(guard.test)
        count = f"`{self.context.code_for(k)}`" if k is not None else "k"
        return (
            f"`{self.context.code_for(backward.node)}` runs every iteration and the optimizer steps only under "
            f"`if {self.context.code_for(guard.test)}:`, without dividing the loss: the gradients of {count} batches add up "
            f"before each step ({count} times the learning rate); divide the loss by {count}"
        )

    def _fix(self, backward: Event, guard: cst.If):
        k = _divisor(guard.test)
        site = backward.site
        loss = _backpropagated(site)
        if k is None or not isinstance(loss, cst.Name) or not isinstance(k, (cst.Name, cst.Attribute, cst.Integer)):
            return None
        divisor = self.context.code_for(k)
        divided = f"{loss.value} / {divisor}"
        if site.wrapper is Wrapper.NONE and site.tensor_method:  # the receiver of `.backward()`
            divided = f"({divided})"
        return self.unsafe_fix(f"Divide the loss by `{divisor}`", Replace(loss, divided))


def _backpropagated(site: BackwardSite) -> Optional[cst.BaseExpression]:
    """The loss of `loss.backward()`, `scaler.scale(loss).backward()`, `accelerator.backward(loss)`,
    `torch.autograd.backward(loss)`. Not through other wrappers: DeepSpeed's engine divides the loss
    by its own accumulation steps. Not `y.backward(gradient)`: a weighted sum, not a mean loss."""
    if site.wrapper is Wrapper.OTHER or site.gradient is not None:
        return None
    return site.tensor


def _accumulation_test(test: cst.BaseExpression) -> bool:
    """`(i + 1) % k == 0`, `step % k == 0`, `accum_count == accum_steps`."""
    if _divisor(test) is not None:
        return True
    return isinstance(test, cst.Comparison) and any(
        _ACCUMULATION_NAME.search(dotted_name(n) or "") for n in descendants(test) if isinstance(n, (cst.Name, cst.Attribute))
    )


def _divisor(test: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """`k` of a `... % k == 0` test (the first, in `a and b` / `a or b` tests too)."""
    for node in descendants(test):
        if isinstance(node, cst.Comparison) and isinstance(node.left, cst.BinaryOperation) and isinstance(node.left.operator, cst.Modulo):
            if len(node.comparisons) == 1 and isinstance(node.comparisons[0].operator, cst.Equal):
                compared = node.comparisons[0].comparator
                if isinstance(compared, cst.Integer) and compared.value == "0":
                    return node.left.right
    return None


def _holds(node: cst.CSTNode, target: cst.CSTNode) -> bool:
    return any(current is target for current in descendants(node))


def _touches_gradients(guard: cst.If) -> bool:
    """The stepping branch reads or rescales `.grad`, or clips: the step's size is decided there."""
    for node in descendants(guard.body):
        if isinstance(node, cst.Attribute) and node.attr.value in ("grad", "clip_grad_norm_", "clip_grad_value_", "unscale_"):
            return True
        if isinstance(node, cst.Name) and node.value in ("clip_grad_norm_", "clip_grad_value_"):
            return True
    return False


def _rescaled_in(loop: cst.CSTNode, loss: cst.BaseExpression) -> bool:
    """`loss /= k` or `loss *= w` in the loop."""
    name = dotted_name(loss)
    return any(
        isinstance(node, cst.AugAssign) and isinstance(node.operator, _SCALING_OPERATORS) and dotted_name(node.target) == name
        for node in descendants(loop)
    )
