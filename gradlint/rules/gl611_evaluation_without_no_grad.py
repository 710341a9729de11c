from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.evaluation import EvaluationLoop, is_test_file
from gradlint.analysis.regions import yields_or_awaits
from gradlint.fix.builders import wrap_in_no_grad
from gradlint.fix.plan import Applicability, Availability, FixPlan
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity


class EvaluationWithoutNoGrad(Rule):
    """
    ## What it does
    Flags a loop that evaluates a model (it iterates a validation or test set such as
    `val_loader` or `test_dataloader`, or iterates batches inside a function named `evaluate`,
    `validate` or `test`; calls the model; computes a metric or gathers predictions) with
    autograd on: no backward pass or optimizer step in it, and no `torch.no_grad()` or
    `torch.inference_mode()` around it, on its function, or around every call of that function
    in the file.

    ## Why is this bad?
    With autograd on, every forward pass records a graph that holds the activations saved for a
    backward pass that never comes. Measured in torch 2.13: an evaluation over 20 batches that
    gathers the outputs kept all 20 input batches alive (and every output has a `grad_fn`); the
    same loop under `torch.no_grad()` kept none, with identical predictions and accuracy. When
    only numbers are kept, each batch still builds and frees a graph: slower, and the peak memory
    of a training step rather than of inference.

    ## Example
    ```python
    def evaluate(model, val_loader):
        correct = 0
        for x, y in val_loader:
            correct += (model(x).argmax(1) == y).sum().item()
        return correct
    ```

    ## Use instead
    ```python
    import torch

    def evaluate(model, val_loader):
        correct = 0
        with torch.no_grad():
            for x, y in val_loader:
                correct += (model(x).argmax(1) == y).sum().item()
        return correct
    ```

    ## Fix safety
    Unsafe: the fix wraps the loop in `with torch.no_grad():` (adding `import torch` when needed).
    The numbers computed are the same, but what the loop produces no longer requires grad nor
    holds a graph, which is the point; code that backpropagates through it would now fail. No fix
    for an `async for` loop or one that yields (no_grad would stay on in the caller).

    ## Known limits
    Evaluation is recognised by names (data named as a validation or test split, or a function
    named like an evaluation), so a loop over `loader` in `predict(...)` is not reported. Not
    reported: loops that call `.backward()` or `.step()` (test-time adaptation, training), code
    that asks for gradients (`requires_grad_()`, `.grad`, `torch.autograd.grad`,
    `enable_grad`: adversarial evaluation, saliency), loops whose results a later backward reads,
    code under any grad-mode context (including a project's own `smart_inference_mode()` or a
    context kept in a variable), methods of Lightning modules and Hugging Face trainers (their
    evaluation hooks run without grad), module-level functions another file of the run calls
    (their callers may turn grad off), and test files. Models whose parameters are all frozen
    build no graph; that is not seen.

    A loop that keeps only `.item()` of each batch frees each graph at once: it costs the
    time to build the graphs, not memory that grows (one such finding on current code); it stays
    reported.
    """

    code = "GL611"
    name = "evaluation-without-no-grad"
    summary = "an evaluation loop runs the model with autograd on"
    severity = Severity.WARNING
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("for",)

    VALID = (
        """
        import torch

        @torch.no_grad()
        def evaluate(model, val_loader):
            return [model(x).argmax(1) for x in val_loader]
        """,
        """
        import torch

        def evaluate(model, val_loader):
            correct = 0
            for x, y in val_loader:
                correct += (model(x).argmax(1) == y).sum().item()
            return correct

        with torch.no_grad():
            accuracy = evaluate(model, val_loader)
        """,
        """
        import torch

        def validate(model, val_loader):
            total = 0
            for x, y in val_loader:
                total += criterion(model(x), y).item()
            return total

        def run_validation(model, val_loader):
            return validate(model, val_loader)

        @torch.inference_mode()
        def main():
            run_validation(model, val_loader)
        """,
        # test-time adaptation: the loop trains
        """
        for x, y in test_loader:
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        """,
        # an adversarial evaluation needs input gradients
        """
        import torch

        def evaluate_robustness(model, test_loader):
            correct = 0
            for x, y in test_loader:
                x.requires_grad_()
                grad, = torch.autograd.grad(criterion(model(x), y), x)
                correct += (model(x + 0.1 * grad.sign()).argmax(1) == y).sum().item()
            return correct
        """,
        # a Lightning module: the trainer runs the validation hooks without grad
        """
        import lightning as L

        class Classifier(L.LightningModule):
            def validate_all(self):
                for x, y in self.val_loader:
                    self.log("acc", (self.model(x).argmax(1) == y).float().mean())
        """,
        # a grad mode chosen on purpose
        """
        import torch

        for phase in ["train", "val"]:
            with torch.set_grad_enabled(phase == "train"):
                for x, y in dataloaders[phase]:
                    loss = criterion(model(x), y)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
        """,
        """
        def evaluate(model, val_loader):
            with smart_inference_mode():
                for x, y in val_loader:
                    total += criterion(model(x), y).item()
        """,
        # the no_grad is inside the loop, around the forward pass
        """
        import torch

        for x, y in val_loader:
            with torch.no_grad():
                out = model(x)
            correct += (out.argmax(1) == y).sum().item()
        """,
        # not an evaluation: a training loader, a call of something else than a model
        """
        for x, y in train_loader:
            stats.append(model(x).mean().item())
        """,
        """
        for item in test_set:
            results.append(parse(item))
        """,
        # the results are backpropagated after the loop (a meta-learning style outer step)
        """
        def evaluate(model, val_loader):
            losses = []
            for x, y in val_loader:
                losses.append(criterion(model(x), y))
            total = sum(losses)
            total.backward()
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch

            def evaluate(model, val_loader):
                correct = 0
                for x, y in val_loader:
                    correct += (model(x).argmax(1) == y).sum().item()
                return correct
            """,
            """
            import torch

            def evaluate(model, val_loader):
                correct = 0
                with torch.no_grad():
                    for x, y in val_loader:
                        correct += (model(x).argmax(1) == y).sum().item()
                return correct
            """,
            line=5,
            column=5,
            message="Evaluation loop runs `model(x)` with autograd on",
            fix_title="Run the loop under `torch.no_grad()`",
        ),
        Invalid(  # module level, outputs gathered: every batch's graph is kept
            """
            predictions = []
            for images, _ in test_loader:
                predictions.append(net(images))
            """,
            """
            import torch
            predictions = []
            with torch.no_grad():
                for images, _ in test_loader:
                    predictions.append(net(images))
            """,
            line=2,
            column=1,
        ),
        Invalid(  # called once under no_grad, once without
            """
            import torch

            def validate(model, loader):
                total = 0
                for batch in loader:
                    total += criterion(model(batch["x"]), batch["y"]).item()
                return total

            with torch.no_grad():
                validate(model, val_loader)
            validate(model, test_loader)
            """,
            """
            import torch

            def validate(model, loader):
                total = 0
                with torch.no_grad():
                    for batch in loader:
                        total += criterion(model(batch["x"]), batch["y"]).item()
                return total

            with torch.no_grad():
                validate(model, val_loader)
            validate(model, test_loader)
            """,
            line=5,
            column=5,
        ),
        Invalid(  # a validation pass inside the epoch loop of a training script
            """
            import torch

            for epoch in range(epochs):
                for x, y in train_loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
                val_loss = 0.0
                for x, y in self.val_dataloader:
                    val_loss += criterion(self.model(x), y).item()
            """,
            """
            import torch

            for epoch in range(epochs):
                for x, y in train_loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
                val_loss = 0.0
                with torch.no_grad():
                    for x, y in self.val_dataloader:
                        val_loss += criterion(self.model(x), y).item()
            """,
            line=9,
            column=5,
            message="runs `self.model(x)` with autograd on",
        ),
        Invalid(  # generator: reported, but no_grad would leak into the caller across `yield`
            """
            def evaluate(model, test_loader):
                for x, y in test_loader:
                    yield model(x).argmax(1) == y
            """,
            line=2,
            column=5,
        ),
    )

    def visit_For(self, node: cst.For) -> None:
        evaluation = self.context.evaluation
        loop = evaluation.of(node, self.context.enclosing_function())
        if loop is None or is_test_file(self.context.path) or evaluation.grad_mode_chosen(self.context.stack):
            return
        if loop.scope is not None and evaluation.may_be_called_elsewhere(loop.scope):
            return
        forward = snippet(self.context.code_for(loop.model_calls[0]), 40)
        message = (
            f"Evaluation loop runs `{forward}` with autograd on: every batch builds a graph for a backward "
            "that never comes (kept while its outputs are); run it under `torch.no_grad()`"
        )
        self.report(node, message, self._fix(loop))

    def _fix(self, loop: EvaluationLoop) -> Optional[FixPlan]:
        node = loop.loop
        if node.asynchronous is not None or yields_or_awaits([node]):
            return None
        changes = wrap_in_no_grad(self.context, [node], self.context.stack[:-1], lambda statement: statement)
        if changes is None:
            return None
        return self.unsafe_fix("Run the loop under `torch.no_grad()`", *changes)
