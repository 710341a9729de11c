from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from gradlint.analysis.evaluation import EvaluationLoop, is_test_file, model_of
from gradlint.analysis.regions import own_nodes
from gradlint.analysis.roles import MODULE_INSTANCE
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.training import OPTIMISING, Region
from gradlint.fix.builders import indentation, render_at
from gradlint.fix.plan import Applicability, Availability, FixPlan, InsertLineBefore, ReplaceLines
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule

# Models kept in evaluation mode on purpose while another one trains.
_FROZEN_MODEL = re.compile(r"ema|teacher|target|frozen|fixed|ref|old|avg|average|eval|pretrained", re.IGNORECASE)


class EvaluationInTrainingMode(Rule):
    """
    ## What it does
    Flags two ways of running a model that has dropout or batch norm in the wrong mode:

    * an evaluation loop (over a validation or test set, or over batches in a function named
      `evaluate`, `validate` or `test`; no backward pass; under `torch.no_grad()`) that runs a
      model while nothing in the file ever calls `.eval()` (or `.train(False)`);
    * a training loop that calls `model.eval()` (for a validation pass) but never `model.train()`,
      neither itself nor through the functions of the file it calls, so every later training
      step runs in evaluation mode.

    It reports only in files that build dropout or batch-norm layers (`nn.Dropout`,
    `nn.BatchNorm2d`, `F.dropout`, a `torchvision.models` or `timm` model): without them the two
    modes compute the same thing.

    ## Why is this bad?
    `no_grad` does not change the mode. Measured in torch 2.13: evaluating a model with dropout
    twice without `eval()` gives two different outputs (and accuracies) for the same inputs, and
    a pass over shifted validation data moves batch norm's `running_mean` (from 0 to about 0.5
    per feature after one pass under `no_grad`), silently changing the trained model. Training
    after an `eval()` that is never undone runs without dropout and with frozen batch-norm
    statistics: the weights reached differ from those of training in training mode.

    ## Example
    ```python
    import torch
    from torch import nn

    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))

    def evaluate(model, val_loader):
        with torch.no_grad():
            for x, y in val_loader:
                print((model(x).argmax(1) == y).float().mean())
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))

    def evaluate(model, val_loader):
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                print((model(x).argmax(1) == y).float().mean())
        model.train()
    ```

    ## Fix safety
    Unsafe (the numbers change, which is the point). For an evaluation loop the fix puts
    `model.eval()` before the loop and `model.train()` after it, which restores the mode the model
    had, as nothing in the file switched it; offered when the loop runs one model and does not
    `return` or `yield` from inside. For an `eval()` never undone, the fix inserts `model.train()`
    before the statement of the loop that trains, when `eval()` is called in the loop itself.

    ## Known limits
    Precision first: a file that calls `.eval()` anywhere is trusted for its evaluation loops
    (the call may be on another path); the model is not traced to its class, so a file that builds
    dropout or batch norm for one model and evaluates another without them is reported. Mode
    switches made in other files (a trainer, a callback) are not seen; the training loop must
    train in the file (its backward or optimizer step visible, directly or through its functions).
    Methods of Lightning modules and Hugging Face trainers (whose frameworks switch the mode),
    models kept in evaluation mode on purpose (`ema`, `teacher`, `target`, `frozen` in the name)
    and test files are not reported. Inference right after `load_state_dict(...)` outside a loop
    is not reported.
    """

    code = "GL602"
    name = "evaluation-in-training-mode"
    summary = "a model with dropout or batch norm is evaluated, or trained, in the wrong mode"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("Dropout", "dropout", "BatchNorm", "torchvision", "timm")

    VALID = (
        """
        import torch
        from torch import nn
        model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))

        def evaluate(model, val_loader):
            model.eval()
            with torch.no_grad():
                for x, y in val_loader:
                    print(model(x).argmax(1) == y)
        """,
        # the mode is switched by the caller
        """
        import torch
        from torch import nn
        model = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8))

        def evaluate(model, val_loader):
            with torch.no_grad():
                for x, y in val_loader:
                    print(model(x).argmax(1) == y)

        model.eval()
        evaluate(model, val_loader)
        """,
        # no layer that depends on the mode
        """
        import torch
        from torch import nn
        model = nn.Sequential(nn.Linear(8, 8), nn.ReLU())

        with torch.no_grad():
            for x, y in val_loader:
                print(model(x).argmax(1) == y)
        """,
        # eval() undone by train() at the top of each epoch, or in the training function
        """
        from torch import nn
        model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))
        for epoch in range(10):
            model.train()
            for x, y in train_loader:
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                optimizer.step()
            model.eval()
            validate(model)
        """,
        """
        from torch import nn
        model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))

        def train_one_epoch(model, loader):
            model.train()
            for x, y in loader:
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                optimizer.step()

        for epoch in range(10):
            train_one_epoch(model, train_loader)
            model.eval()
            validate(model)
        """,
        # an EMA copy stays in evaluation mode while the model trains
        """
        from torch import nn
        model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))
        for x, y in train_loader:
            model_ema.eval()
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        """,
        # Lightning switches the mode around its validation loop
        """
        import torch
        import lightning as L
        from torch import nn

        class Classifier(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.net = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))

            def validate_all(self):
                with torch.no_grad():
                    for x, y in self.val_loader:
                        self.log("acc", (self.net(x).argmax(1) == y).float().mean())
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            from torch import nn
            model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))

            def evaluate(model, val_loader):
                correct = 0
                with torch.no_grad():
                    for x, y in val_loader:
                        correct += (model(x).argmax(1) == y).sum().item()
                return correct
            """,
            """
            import torch
            from torch import nn
            model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))

            def evaluate(model, val_loader):
                correct = 0
                with torch.no_grad():
                    model.eval()
                    for x, y in val_loader:
                        correct += (model(x).argmax(1) == y).sum().item()
                    model.train()
                return correct
            """,
            line=8,
            column=9,
            message="Evaluation loop runs `model(x)` in training mode",
            fix_title="Call `model.eval()` before the loop and `model.train()` after it",
        ),
        Invalid(  # torchvision models have batch norm; decorated no_grad function
            """
            import torch
            import torchvision
            net = torchvision.models.resnet18()

            @torch.no_grad()
            def test(net, test_loader):
                return [net(images).argmax(1) for images, _ in test_loader] + [net(x) for x in test_loader if False]

            @torch.no_grad()
            def validate(net, test_loader):
                scores = []
                for images, labels in test_loader:
                    scores.append(net(images))
                    return scores
            """,
            line=12,
            column=5,
            message="Evaluation loop runs `net(images)` in training mode",
        ),
        Invalid(
            """
            from torch import nn
            model = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
            for epoch in range(10):
                for x, y in train_loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
                model.eval()
                validate(model)
            """,
            """
            from torch import nn
            model = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
            for epoch in range(10):
                model.train()
                for x, y in train_loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
                model.eval()
                validate(model)
            """,
            line=8,
            column=5,
            message="`model.eval()` in the training loop is never undone",
            fix_title="Call `model.train()` before the training step",
        ),
        Invalid(  # eval() inside the validation helper the loop calls
            """
            import torch
            from torch import nn
            model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))

            def validate(model):
                model.eval()
                with torch.no_grad():
                    return model(x_val).argmax(1)

            for step in range(1000):
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                optimizer.step()
                if step % 100 == 0:
                    validate(model)
            """,
            line=10,
            column=1,
            message="`model.eval()` in the training loop is never undone",
        ),
    )

    def visit_For(self, node: cst.For) -> None:
        loop = self.context.evaluation.of(node, self.context.enclosing_function())
        if loop is None or not self._applies() or self.context.training_modes.sets_evaluation_mode:
            return
        if not self._runs_without_grad(loop) or loop.scope is not None and self.context.evaluation.framework_method(loop.scope):
            return
        models = {model_of(call) for call in loop.model_calls}
        forward = snippet(self.context.code_for(loop.model_calls[0]), 40)
        message = (
            f"Evaluation loop runs `{forward}` in training mode: nothing in this file calls `.eval()`, so dropout "
            "stays active and batch norm updates its running statistics from evaluation data"
        )
        self.report(node, message, self._evaluation_fix(loop, models))

    def visit_Module(self, node: cst.Module) -> None:
        if not self._applies():
            return
        found = [region for region in self.context.training.loops if self._eval_never_undone(region)]
        for region in found:
            inside = {id(n) for n in own_nodes(region.owner) if n is not region.owner}
            if not any(id(other.owner) in inside for other in found):  # the innermost loop is the one to report
                self._report_never_undone(region)

    def _applies(self) -> bool:
        return self.context.training_modes.builds_mode_layers and not is_test_file(self.context.path)

    def _runs_without_grad(self, loop: EvaluationLoop) -> bool:
        if self.context.without_grad():
            return True
        return loop.scope is not None and self.context.evaluation.function_runs_without_grad(loop.scope)

    def _eval_never_undone(self, region: Region) -> bool:
        if not any(event.kind in OPTIMISING for event in region.events):
            return False
        scope = self._scope_of(region.owner)
        if scope is not None and self.context.evaluation.framework_method(scope):
            return False
        modes = self.context.training_modes
        return bool(self._model_evals(region)) and not modes.switches_mode(region.owner.body, scope, "train")

    def _report_never_undone(self, region: Region) -> None:
        evals = {id(call) for call in self._model_evals(region)}
        direct = [call for call in own_nodes(region.owner.body) if id(call) in evals]
        model = dotted_name(direct[0].func.value) if direct else None
        message = (
            "`model.eval()` in the training loop is never undone: no `.train()` call runs before the next "
            "training step, so from then on the model trains with dropout off and batch-norm statistics frozen"
        )
        self.report(direct[0] if direct else region.owner, message, self._train_fix(region, model))

    def _model_evals(self, region: Region) -> list[cst.Call]:
        scope = self._scope_of(region.owner)
        return [call for call in self.context.training_modes.switches_mode(region.owner.body, scope, "eval") if _trained_model(call)]

    def _scope_of(self, loop: cst.CSTNode) -> Optional[cst.FunctionDef]:
        for function in self.context.function_table.all:
            if any(node is loop for node in own_nodes(function.body)):
                return function
        return None

    def _evaluation_fix(self, loop: EvaluationLoop, models: set) -> Optional[FixPlan]:
        if len(models) != 1 or None in models:
            return None
        (model,) = models
        node = loop.loop
        if any(isinstance(n, (cst.Return, cst.Yield, cst.Await)) for n in own_nodes(node)):
            return None
        outer = self.context.stack[:-1]
        if not outer or not isinstance(outer[-1], (cst.IndentedBlock, cst.Module)):
            return None
        indent = indentation(self.context, outer)
        newline = self.context.module.default_newline
        text = f"{indent}{model}.eval(){newline}{render_at(self.context, node.with_changes(leading_lines=()), indent)}{indent}{model}.train(){newline}"
        return self.unsafe_fix(
            "Call `model.eval()` before the loop and `model.train()` after it".replace("model", model), ReplaceLines(node, node, text)
        )

    def _train_fix(self, region: Region, model: Optional[str]) -> Optional[FixPlan]:
        if model is None:
            return None
        training = next((event for event in region.events if event.kind in OPTIMISING), None)
        if training is None or training.statement is None:
            return None
        return self.unsafe_fix(f"Call `{model}.train()` before the training step", InsertLineBefore(training.statement, f"{model}.train()"))


def _trained_model(call: cst.Call) -> bool:
    """`model.eval()`, `self.net.eval()`: a model that may be the one the loop trains."""
    name = dotted_name(call.func.value) or ""
    last = name.rsplit(".", 1)[-1]
    return (bool(MODULE_INSTANCE.match(last)) or last == "self") and not _FROZEN_MODEL.search(name)
