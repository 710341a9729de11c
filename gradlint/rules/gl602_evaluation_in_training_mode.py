from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.evaluation import EvaluationLoop, is_forward_pass, is_test_file, model_of
from gradlint.analysis.regions import mentions_source, own_nodes
from gradlint.analysis.roles import MODULE_INSTANCE
from gradlint.analysis.syntax import calls_method, dotted_name
from gradlint.analysis.training import OPTIMISING, LoadSite, Region, load_statement
from gradlint.fix.builders import indentation, render_at
from gradlint.fix.plan import Applicability, Availability, FixPlan, InsertLineBefore, ReplaceLines
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

# Calls that turn a model's output into a prediction: `out.argmax(1)`, `torch.softmax(out, 1)`.
_PREDICTIONS = torch_api.methods("ranks") | torch_api.methods("activation") | torch_api.methods("detaches", "number") | {"numpy"}
# Models kept in evaluation mode on purpose while another one trains.
_FROZEN_MODEL = re.compile(r"ema|teacher|target|frozen|fixed|ref|old|avg|average|eval|pretrained", re.IGNORECASE)


@dataclass(frozen=True)
class _Load:
    """A load of the weights run before a forward pass, and the line it is alone on."""

    site: LoadSite
    line: cst.CSTNode


class EvaluationInTrainingMode(Rule):
    """
    ## What it does
    Flags two ways of running a model that has dropout or batch norm in the wrong mode:

    * an evaluation loop (over a validation or test set, or over batches in a function named
      `evaluate`, `validate` or `test`; no backward pass; under `torch.no_grad()`) that runs a
      model while nothing in the file ever calls `.eval()` (or `.train(False)`);
    * a training loop that calls `model.eval()` (for a validation pass) but never `model.train()`,
      neither itself nor through the functions of the file it calls, so every later training
      step runs in evaluation mode;
    * inference right after `model.load_state_dict(...)` (the output turned into a prediction, or
      computed under `torch.no_grad()`), with no backward pass or optimizer step after the load in
      that function, while nothing in the file ever calls `.eval()`.

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
    Unsafe (the numbers change, which is the point). After `load_state_dict(...)` the fix calls
    `model.eval()` on the line after the load. For an evaluation loop the fix puts
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
    and test files are not reported. After `load_state_dict(...)`, only the first forward pass of
    the loaded model is considered, and only when the model is not handed to another function in
    between (which may switch the mode).
    """

    code = "GL602"
    name = "evaluation-in-training-mode"
    summary = "a model with dropout or batch norm is evaluated, or trained, in the wrong mode"
    severity = Severity.ERROR
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
        # weights loaded to resume training; loaded and then switched to evaluation mode
        """
        import torch
        from torch import nn
        model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))
        model.load_state_dict(torch.load("last.pt"))
        for x, y in train_loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        """,
        """
        import torch
        from torch import nn
        model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))
        model.load_state_dict(torch.load("best.pt"))
        model.eval()
        prediction = model(x).argmax(1)
        """,
        # handed to a function of another module before the forward pass
        """
        import torch
        from torch import nn
        from tools import prepare_for_inference
        model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))
        model.load_state_dict(torch.load("best.pt"))
        prepare_for_inference(model)
        prediction = model(x).argmax(1)
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
        Invalid(
            """
            import torch
            from torch import nn
            model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))
            model.load_state_dict(torch.load("best.pt"))
            prediction = model(x).argmax(1)
            """,
            """
            import torch
            from torch import nn
            model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))
            model.load_state_dict(torch.load("best.pt"))
            model.eval()
            prediction = model(x).argmax(1)
            """,
            line=5,
            column=14,
            message="`model(x)` runs in training mode after `model.load_state_dict(...)`",
            fix_title="Call `model.eval()` after loading the weights",
        ),
        Invalid(  # under no_grad in a function; the model is held on self
            """
            import torch
            from torch import nn

            class Predictor:
                def __init__(self, path):
                    self.model = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
                    self.model.load_state_dict(torch.load(path))

                def __call__(self, x):
                    with torch.no_grad():
                        return self.model(x)

            def predict(path, x):
                net = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
                net.load_state_dict(torch.load(path))
                with torch.no_grad():
                    scores = net(x)
                return scores
            """,
            """
            import torch
            from torch import nn

            class Predictor:
                def __init__(self, path):
                    self.model = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
                    self.model.load_state_dict(torch.load(path))

                def __call__(self, x):
                    with torch.no_grad():
                        return self.model(x)

            def predict(path, x):
                net = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
                net.load_state_dict(torch.load(path))
                net.eval()
                with torch.no_grad():
                    scores = net(x)
                return scores
            """,
            line=17,
            column=18,
            message="`net(x)` runs in training mode after `net.load_state_dict(...)`",
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

    def visit_Call(self, node: cst.Call) -> None:
        if not is_forward_pass(node) or not self._may_infer_after_load:
            return
        model = model_of(node)
        load = self._load_before(node, model) if model is not None else None
        if load is None or not (self.context.without_grad() or self._predicts(node)):
            return
        if self._trains_after(load.line):
            return
        forward = snippet(self.context.code_for(node), 40)
        message = (
            f"`{forward}` runs in training mode after `{model}.load_state_dict(...)`: nothing in this file calls "
            "`.eval()`, so dropout stays active and batch norm normalises with each batch's own statistics"
        )
        # The load is an earlier statement of a block around the forward pass: one follows it there.
        following = next(self.context.nodes.statements_after(load.line))
        fix = self.unsafe_fix(f"Call `{model}.eval()` after loading the weights", InsertLineBefore(following, f"{model}.eval()"))
        self.report(node, message, fix)

    @cached_property
    def _may_infer_after_load(self) -> bool:
        return "load_state_dict" in self.context.file_text and self._applies() and not self.context.training_modes.sets_evaluation_mode

    def _load_before(self, forward: cst.Call, model: str) -> Optional[_Load]:
        """The `model.load_state_dict(...)` statement that runs last before `forward` in its
        function; None when something in between may change the model or its mode (it is
        rebound, handed to a call, or already run), or when the load is outside an evaluation loop
        that runs `forward` (reported as such)."""
        for statement in self.context.nodes.statements_before(forward):
            load = load_statement(statement)
            if load is not None and dotted_name(load.receiver) == model:
                return None if self._in_evaluation_loop_after(forward, statement) else _Load(load, statement)
            if _may_change(statement, model):
                return None
        return None

    def _in_evaluation_loop_after(self, forward: cst.Call, statement: cst.CSTNode) -> bool:
        """`forward` runs in an evaluation loop that starts after `statement`."""
        nodes, scope = self.context.nodes, self.context.enclosing_function()
        owners = (position.owner for position in nodes.positions_in_body(forward))
        return any(
            owner is not None and not nodes.contains(owner, statement) and self.context.evaluation.of(owner, scope) is not None
            for owner in owners
        )

    def _trains_after(self, load_line: cst.CSTNode) -> bool:
        """Whether anything after the load in its function backpropagates or steps an optimizer
        (weights loaded to resume training)."""
        scope = self.context.enclosing_function()
        later = self.context.nodes.statements_after(load_line)
        reached = (node for statement in later for node in self.context.training_modes.reachable(statement, scope))
        return any(calls_method(node, "backward", "step", "zero_grad") for node in reached)

    def _predicts(self, forward: cst.Call) -> bool:
        """The output becomes a prediction: `model(x).argmax(1)`, `torch.softmax(model(x), 1)`, or
        `out = model(x)` followed by `out.argmax(1)` in the same block."""
        statement = self.context.top_statement()
        for node in own_nodes(statement) if statement is not None else ():
            if isinstance(node, cst.Call) and _prediction_of(node, lambda value: mentions_source(value, {id(forward)})):
                return True
        around = self.context.nodes.positions_in_body(forward)
        target = _assigned_name(around[0].statement, forward) if around else None
        if target is None:
            return False
        return any(
            isinstance(node, cst.Call) and _prediction_of(node, lambda value: isinstance(value, cst.Name) and value.value == target)
            for statement in around[0].later
            for node in own_nodes(statement)
        )

    def visit_Module(self, node: cst.Module) -> None:
        if not self.context.may_optimise:  # a text fact, before the event analysis of every loop
            return
        found = [region for region in self.context.training.loops if self._eval_never_undone(region)]
        if not found or not self._applies():  # `_applies` walks the file: ask it last
            return
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
        return self.context.function_table.function_holding(loop)

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


def _may_change(statement: cst.CSTNode, model: str) -> bool:
    """The statement rebinds `model`, hands it to a call (which may switch its mode) or runs it."""
    for node in own_nodes(statement):
        if isinstance(node, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign)) and dotted_name(node.target) == model:
            return True
        if isinstance(node, cst.Call):
            if any(dotted_name(arg.value) == model for arg in node.args) or is_forward_pass(node) and model_of(node) == model:
                return True
    return False


def _prediction_of(call: cst.Call, is_output: Callable[[cst.BaseExpression], bool]) -> bool:
    """`output.argmax(...)` or `torch.argmax(output, ...)` for an output `is_output` accepts."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in _PREDICTIONS:
        return False
    if is_output(func.value):
        return True
    return bool(call.args) and dotted_name(func.value) in ("torch", "F", "torch.nn.functional") and is_output(call.args[0].value)


def _assigned_name(statement: cst.CSTNode, value: cst.CSTNode) -> Optional[str]:
    """`name` for a statement `name = value`."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        assign = statement.body[0]
        if isinstance(assign, cst.Assign) and assign.value is value and len(assign.targets) == 1:
            target = assign.targets[0].target
            return target.value if isinstance(target, cst.Name) else None
    return None


def _trained_model(call: cst.Call) -> bool:
    """`model.eval()`, `self.net.eval()`: a model that may be the one the loop trains."""
    name = dotted_name(call.func.value) or ""
    last = name.rsplit(".", 1)[-1]
    return (bool(MODULE_INSTANCE.match(last)) or last == "self") and not _FROZEN_MODEL.search(name)
