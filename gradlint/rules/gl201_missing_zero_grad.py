from __future__ import annotations

import libcst as cst

from gradlint.analysis.evaluation import is_test_module
from gradlint.analysis.training import Event, Kind, Region
from gradlint.fix.plan import Applicability, Availability, InsertLineBefore
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity


class MissingZeroGrad(Rule):
    """
    ## What it does
    Flags a `for`/`while` loop whose iteration runs a backward pass and an optimizer step (or a
    manual update from `.grad`) but never resets the gradients: no `optimizer.zero_grad()`,
    `model.zero_grad()`, `p.grad = None` or `p.grad.zero_()` in the loop, in a function of the same
    file that the loop calls, or in the closure passed to `optimizer.step(closure)`.

    ## Why is this bad?
    `backward()` adds into `.grad`. Without a reset, the gradient used at step k is the sum of the
    fresh gradients of steps 1..k (measured in torch 2.13: at step 2 the update used
    `[-6.4191, -11.3620]` instead of `[-1.7612, -3.2368]`). Training runs, with no error or
    warning, on ever larger and staler gradients.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
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
    Unsafe: the fix inserts `<optimizer>.zero_grad()` right before the statement that calls
    backward, which changes the numbers (that is the point). It is offered only when exactly one
    optimizer steps in the loop and the backward call is written in the loop itself. Manual
    updates (`w -= lr * w.grad`) get no fix.

    ## Known limits
    Resets done in another file (a trainer base class, a callback) are not seen, unless they are
    called by a reset-like name (`zero_grad(model)`, `utils.zero_grads(model)`, `model.cleargrads()`).
    Loops that reset every k iterations (gradient accumulation) are not reported. A manual update
    counts only when the tensor changed in place is the one whose `.grad` it reads (`w -= lr * w.grad`);
    `x_adv = x_adv + alpha * x_adv.grad.sign()` builds a new tensor each iteration and is not one.
    MXNet's `gluon.Trainer` overwrites gradients and is not an optimizer here. A loop that builds
    its optimizer in each iteration over tensors or a model it also builds there (an input
    optimised per denoising step) has no earlier gradient to accumulate and is not reported (the
    parameters may pass through `list(...)`, `filter(...)`, a comprehension, a dict of them and its
    `.values()`, or parameter groups); a
    fresh optimizer over a model kept across iterations still is, since `.grad` lives on the
    parameters (torch 2.13: the bias gradient reads 4, 8, 12 over three such iterations). A loop
    that trains on noise is not reported either: every backward it runs itself backpropagates a
    whole reduction (`.sum()`, `.mean()`) of one forward call on inputs drawn by torch's random
    factories in the same iteration (`output = tp_model(torch.rand(20, 10)); output.sum().backward()`).
    It reads no data and its loss measures nothing: the accumulated gradients are technically
    there, but such loops demonstrate or test the training machinery (pytorch/examples' tensor
    parallel demos, peft's mock training). A copy that reads real data (`for x in loader`), a
    loss with a target, or a generator trained from noise through a discriminator (`D(G(z))`)
    stays reported, outside test modules. Test modules (`test_*.py`, `*_test.py`, as pytest
    collects them) are not checked: their loops run a few steps to exercise the machinery (fairseq's
    BMUF test, peft's mock training), and their own assertions judge the result. Silence a deliberate
    accumulation across the whole loop with `# noqa: GL201` on the loop line.
    """

    code = "GL201"
    name = "missing-zero-grad"
    summary = "gradients are never reset in a training loop"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
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
        for i, x in enumerate(data):
            loss = f(x) / k
            loss.backward()
            if (i + 1) % k == 0:
                opt.step()
                opt.zero_grad()
        """,
        """
        for x in data:
            loss = f(x)
            loss.backward()
        """,
        """
        for x in data:
            solver.backward()
            solver.step()
        """,
        """
        for x in data:
            loss = f(x)
            loss.backward()
            scheduler.step()
        """,
        """
        def reset():
            optimizer.zero_grad()
        for x in data:
            reset()
            loss = f(x)
            loss.backward()
            optimizer.step()
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
        for x in data:
            for p in model.parameters():
                p.grad = None
            loss = f(x)
            loss.backward()
            opt.step()
        """,
        """
        import torch
        for x in data:
            loss = f(w, x)
            loss.backward()
            with torch.no_grad():
                w -= lr * w.grad
                w.grad.zero_()
        """,
        """
        for x, y in loader:
            x.requires_grad_(True)
            loss = f(model(x), y)
            loss.backward()
            adversarial = x + eps * x.grad.sign()
        """,
        """
        import torch
        for _ in range(steps):
            x_adv.requires_grad_(True)
            loss = f(model(x_adv))
            loss.backward()
            with torch.no_grad():
                x_adv = x_adv + alpha * x_adv.grad.sign()
        """,
        """
        import utils
        for x in data:
            utils.zero_grads(model)
            loss = f(x)
            loss.backward()
            optimizer.step()
        """,
        """
        from helpers import zero_grad
        for x in data:
            zero_grad(model)
            loss = f(x)
            loss.backward()
            optimizer.step()
        """,
        """
        class A:
            def reset(self):
                pass
        class B:
            def reset(self):
                self.opt.zero_grad()
            def fit(self, data):
                for x in data:
                    self.reset()
                    loss = f(x)
                    loss.backward()
                    self.opt.step()
        """,
        """
        import torch
        for t in timesteps:
            x = latents.detach().clone()
            x.requires_grad = True
            opt = torch.optim.SGD([x], lr=0.1)
            loss = f(x, t)
            loss.backward()
            opt.step()
        """,
        """
        import torch
        for config in configs:
            model = Net(config)
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
            loss = model(x).sum()
            loss.backward()
            optimizer.step()
        """,
        # A fresh model and optimizer per iteration, the parameters handed over through a dict,
        # a list, a comprehension or a filter: no earlier gradient to accumulate.
        """
        import torch
        for trial in range(3):
            m = Net()
            opt = torch.optim.SGD({n: p for n, p in m.named_parameters()}.values(), lr=0.1)
            m(x).sum().backward()
            opt.step()
        """,
        """
        import torch
        for trial in range(3):
            m = Net()
            opt = torch.optim.SGD(list(m.parameters()), lr=0.1)
            m(x).sum().backward()
            opt.step()
        """,
        """
        import torch
        for trial in range(3):
            m = Net()
            opt = torch.optim.Adam([p for p in m.parameters() if p.requires_grad])
            m(x).sum().backward()
            opt.step()
        """,
        """
        import torch
        for trial in range(3):
            m = Net()
            opt = torch.optim.SGD(dict(m.named_parameters()).values(), lr=0.1)
            m(x).sum().backward()
            opt.step()
        """,
        """
        import torch
        for trial in range(3):
            m = Net()
            opt = torch.optim.SGD(filter(lambda p: p.requires_grad, m.parameters()), lr=0.1)
            m(x).sum().backward()
            opt.step()
        """,
        """
        from mxnet import gluon
        optimizer = gluon.Trainer(params, 'sgd')
        for x in data:
            loss = f(x)
            loss.backward()
            optimizer.step(32)
        """,
        """
        import torch
        tp_model = torch.nn.Linear(10, 1)
        optimizer = torch.optim.SGD(tp_model.parameters(), lr=0.1)
        for i in range(10):
            torch.manual_seed(i)
            inp = torch.rand(20, 10, device="cpu")
            output = tp_model(inp)
            output.sum().backward()
            optimizer.step()
        def mock_training(model):
            for _ in range(5):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
                loss = model(torch.randn(10, 5)).mean()
                loss.backward()
                optimizer.step()
        """,
    )
    INVALID = (
        Invalid(  # a comprehension over a model kept across iterations: not fresh, whatever wraps it
            """
            import torch
            for _ in range(5):
                optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01)
                loss = model(x).sum()
                loss.backward()
                optimizer.step()
            """,
            """
            import torch
            for _ in range(5):
                optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01)
                loss = model(x).sum()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            """,
            line=2,
            column=1,
            message="Loop runs `loss.backward()` (line 5) and `optimizer.step()`",
            fix_title="Insert `optimizer.zero_grad()` before the backward call",
        ),
        Invalid(  # a fresh optimizer over a model kept across iterations: `.grad` still accumulates
            """
            import torch
            for _ in range(5):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
                loss = model(x).sum()
                loss.backward()
                optimizer.step()
            """,
            """
            import torch
            for _ in range(5):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
                loss = model(x).sum()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            """,
            line=2,
            column=1,
            message="Loop runs `loss.backward()` (line 5) and `optimizer.step()`",
            fix_title="Insert `optimizer.zero_grad()` before the backward call",
        ),
        Invalid(  # built only now and then: the iterations in between accumulate
            """
            import torch
            for step in range(100):
                x = latents.detach().clone()
                if step % 10 == 0:
                    opt = torch.optim.SGD([x], lr=0.1)
                loss = f(x)
                loss.backward()
                opt.step()
            """,
            """
            import torch
            for step in range(100):
                x = latents.detach().clone()
                if step % 10 == 0:
                    opt = torch.optim.SGD([x], lr=0.1)
                loss = f(x)
                opt.zero_grad()
                loss.backward()
                opt.step()
            """,
            line=2,
            column=1,
            message="Loop runs `loss.backward()` (line 7) and `opt.step()`",
            fix_title="Insert `opt.zero_grad()` before the backward call",
        ),
        Invalid(
            "\n            for x in data:\n                loss = f(x)\n                loss.backward()\n                optimizer.step()\n            ",
            "\n            for x in data:\n                loss = f(x)\n                optimizer.zero_grad()\n                loss.backward()\n                optimizer.step()\n            ",
            line=1,
            column=1,
            message="Loop runs `loss.backward()` (line 3) and `optimizer.step()`",
            fix_title="Insert `optimizer.zero_grad()` before the backward call",
        ),
        Invalid(
            "\n            optimizer.zero_grad()\n            while True:\n                loss = f()\n                scaler.scale(loss).backward()\n                scaler.step(optimizer)\n                scaler.update()\n            ",
            "\n            optimizer.zero_grad()\n            while True:\n                loss = f()\n                optimizer.zero_grad()\n                scaler.scale(loss).backward()\n                scaler.step(optimizer)\n                scaler.update()\n            ",
            line=2,
            column=1,
            message="Loop runs `scaler.scale(loss).backward()` (line 4) and",
            fix_title="Insert `optimizer.zero_grad()` before the backward call",
        ),
        Invalid(
            "\n            import torch\n            for x in data:\n                loss = f(w, x)\n                loss.backward()\n                with torch.no_grad():\n                    w -= lr * w.grad\n            ",
            line=2,
            column=1,
            message="Loop runs `loss.backward()` (line 4) and `w -= lr * w.grad`",
        ),
        Invalid(
            "\n            for x in data:\n                loss = f(w, x)\n                loss.backward()\n                w.data = w.data - lr * w.grad.data\n            ",
            line=1,
            column=1,
            message="Loop runs `loss.backward()` (line 3) and `w.data = w.data -",
        ),
        Invalid(
            "\n            for x in data:\n                loss = f(x)\n                loss.backward()\n                for p in params:\n                    p.data.add_(p.grad.data, alpha=-lr)\n            ",
            line=1,
            column=1,
            message="Loop runs `loss.backward()` (line 3) and",
        ),
        Invalid(
            "\n            for x in data:\n                loss = f(x)\n                loss.backward()\n                for i in range(n):\n                    params[i] -= lr * params[i].grad\n            ",
            line=1,
            column=1,
            message="Loop runs `loss.backward()` (line 3) and `params[i] -= lr *",
        ),
        Invalid(  # real data, or a generator trained from noise through a discriminator: not a mock loop
            "\n            import torch\n            for x in loader:\n                output = model(x)\n                output.sum().backward()\n                optimizer.step()\n            for _ in range(n):\n                z = torch.randn(64, 100)\n                g_loss = -D(G(z)).mean()\n                g_loss.backward()\n                opt_g.step()\n            ",
            "\n            import torch\n            for x in loader:\n                output = model(x)\n                optimizer.zero_grad()\n                output.sum().backward()\n                optimizer.step()\n            for _ in range(n):\n                z = torch.randn(64, 100)\n                g_loss = -D(G(z)).mean()\n                opt_g.zero_grad()\n                g_loss.backward()\n                opt_g.step()\n            ",
            line=2,
            column=1,
            message="Loop runs `output.sum().backward()` (line 4) and",
            fix_title="Insert `optimizer.zero_grad()` before the backward call",
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        if is_test_module(self.context.path):
            return  # a test trains for a few steps to exercise the machinery; its assertions judge the result
        for region in self.context.training.loops:
            self._check(region)

    def _check(self, region: Region) -> None:
        backwards = region.of(Kind.BACKWARD)
        updates = region.of(Kind.STEP) + region.of(Kind.UPDATE)
        if not backwards or not updates or region.of(Kind.RESET):
            return
        if all(e.nested_loop for e in backwards + updates):
            return  # the inner loop is the one to report
        if not region.of(Kind.UPDATE) and self.context.training.steps_fresh_parameters(region):
            return  # each iteration builds the model (or tensors) and the optimizer anew
        if self.context.training.trains_on_noise(region):
            return  # a mock loop: no data read, a loss that measures nothing
        backward, update = backwards[0], updates[0]
        message = (
            f"Loop runs `{self._text(backward)}` (line {self.context.line_of(backward.node)}) and "
            f"`{self._text(update)}` but never resets gradients; they accumulate across iterations"
        )
        self.report(region.owner, message, self._fix(backward, region))

    def _fix(self, backward: Event, region: Region):
        optimizers = {e.optimizer for e in region.of(Kind.STEP)}
        if region.of(Kind.UPDATE) or len(optimizers) != 1 or None in optimizers:
            return None
        if backward.via is not None or backward.line is None or not isinstance(backward.line, cst.SimpleStatementLine):
            return None
        (optimizer,) = optimizers
        return self.unsafe_fix(
            f"Insert `{optimizer}.zero_grad()` before the backward call", InsertLineBefore(backward.line, f"{optimizer}.zero_grad()")
        )

    def _text(self, event: Event) -> str:
        return snippet(self.context.code_for(event.node).strip(), 50)
