from __future__ import annotations

import libcst as cst

from gradlint.analysis.layers import is_leaf_layer
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.tree import descendants
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

# Calls by which a function sets the modes of sub-modules itself.
_MODE_SETTERS = frozenset({"train", "eval"})


class TrainingFlagAssigned(Rule):
    """
    ## What it does
    Flags `model.training = True` / `model.training = False` on an `nn.Module`: the mode is set by
    assigning the flag instead of calling `model.train(...)` / `model.eval()`.

    ## Why is this bad?
    `training` is a plain attribute of each module; `model.train(mode)` sets it on the model and
    every sub-module. The assignment sets the model's own flag only, and its layers keep their
    mode. Measured in torch 2.13 with `nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5),
    nn.BatchNorm1d(4))`: after `net.training = False` the model reports `False` but its three
    children report `True`, two passes over the same batch differ (dropout still drops) and batch
    norm's running mean moves (to `[0.0299, 0.0408, -0.0555, -0.1386]` after two passes). After
    `net.train(False)` every child is `False` and the two passes are equal.

    ## Example
    ```python
    import torchvision

    model = torchvision.models.resnet18()
    model.training = False
    predictions = model(images)
    ```

    ## Use instead
    ```python
    import torchvision

    model = torchvision.models.resnet18()
    model.train(False)  # or model.eval()
    predictions = model(images)
    ```

    ## Fix safety
    Unsafe: `model.train(<bool>)` changes the mode of every sub-module too, which is the intent,
    and also runs any `train` override of the model's classes.

    ## Known limits
    Reported for `True` and `False` literals on an object the file shows to be a module: `self` in
    a method of a module class of the file, a name or attribute bound to a module construction, or
    a name that plays the model's role (`model`, `net`, `encoder`...) and is not bound to anything
    else. Never inside a `train(self, mode)` override, where `self.training = mode` is how the mode
    is set, nor in `__init__` (a flag set while the module is built; its caller sets the mode of
    the whole model afterwards), nor on objects of other classes (trainers, configs, tasks with a `training` flag). A
    flag restored from a variable (`module.training = was_training`) is not reported: code that
    saves and restores modes one module at a time does it on purpose, and neither is a function
    that sets modes of sub-modules itself (`child.train(False)`, `m.training = False`), nor a
    layer the file builds without sub-modules (`self.bn = nn.BatchNorm1d(n)`; `self.bn.training =
    False` is then its whole mode, as `train(False)` would set it).
    """

    code = "GL707"
    name = "training-flag-assigned"
    summary = "`model.training` is assigned, so the sub-modules keep their mode"
    severity = Severity.ERROR
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = (".training",)

    VALID = (
        """
        import torch.nn as nn
        class Frozen(nn.Module):
            def train(self, mode=True):
                self.training = False
                for child in self.children():
                    child.train(False)
                return self
        model = Frozen()
        model.eval()
        """,
        """
        import torch.nn as nn
        class FusedLinearBn(nn.Module):
            def __init__(self):
                super().__init__()
                self.bn = nn.BatchNorm1d(4)
            def freeze_bn_stats(self):
                self.bn.training = False
                return self
        class Partly(nn.Module):
            def freeze_encoder(self):
                self.training = False
                for child in self.encoder.children():
                    child.train(False)
        class Benchmark(nn.Module):
            def __init__(self, model):
                super().__init__()
                self.model = model
                self.training = False
        class Trainer:
            def fit(self):
                self.training = True
        trainer.training = False
        config.training = True
        """,
        """
        for name, module in model.named_modules():
            module.training = modes[name]
        model.training = was_training
        """,
        """
        import torch.nn as nn
        model = build_model(cfg)
        model.training = False
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch.nn as nn
            model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
            model.training = False
            """,
            """
            import torch.nn as nn
            model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
            model.train(False)
            """,
            line=3,
            column=1,
            message="`model.training = False` sets the flag of `model` only: its sub-modules keep their mode",
            fix_title="Set the mode of every sub-module: `model.train(False)`",
        ),
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def freeze(self):
                    self.training = False
                    return self
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def freeze(self):
                    self.train(False)
                    return self
            """,
            line=4,
            column=9,
        ),
        Invalid(
            """
            def evaluate(model, loader):
                model.training = False
                scores = [model(x) for x in loader]
                model.training = True
                return scores
            """,
            """
            def evaluate(model, loader):
                model.train(False)
                scores = [model(x) for x in loader]
                model.train(True)
                return scores
            """,
        ),
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.value, cst.Name) or node.value.value not in ("True", "False"):
            return
        target = node.targets[0].target
        if not (isinstance(target, cst.Attribute) and target.attr.value == "training"):
            return
        receiver = target.value
        if (
            self._in_construction_or_train()
            or self._sets_other_modes(receiver)
            or self._is_leaf(receiver)
            or not self.context.nn_modules.is_module(receiver, self.context.stack)
        ):
            return
        written = self.context.code_for(receiver)
        mode = node.value.value
        self.report(
            node,
            f"`{snippet(written, 40, 'model')}.training = {mode}` sets the flag of `{snippet(written, 40, 'the model')}` only: "
            f"its sub-modules keep their mode; call `.train({mode})`",
            self.unsafe_fix(
                f"Set the mode of every sub-module: `{snippet(written, 40, 'model')}.train({mode})`",
                Replace(node, f"{written}.train({mode})"),
            ),
        )

    def _sets_other_modes(self, receiver: cst.BaseExpression) -> bool:
        """The function around the assignment sets the modes of other modules itself, one by one
        (`child.train(False)`, `m.training = ...`): it knows what it does."""
        function = self.context.enclosing_function()
        if function is None:
            return False
        flagged = dotted_name(receiver)
        for node in descendants(function.body):
            if isinstance(node, cst.Assign):
                others = [t.target.value for t in node.targets if isinstance(t.target, cst.Attribute) and t.target.attr.value == "training"]
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _MODE_SETTERS:
                others = [node.func.value]
            else:
                continue
            if any(dotted_name(other) != flagged or flagged is None for other in others):
                return True
        return False

    def _is_leaf(self, receiver: cst.BaseExpression) -> bool:
        """A layer without sub-modules (`self.bn = nn.BatchNorm1d(n)`): its flag is its whole mode."""
        constructions = self.context.nn_modules.module_constructions(receiver, self.context.stack)
        return bool(constructions) and all(is_leaf_layer(call, self.context.imports) for call in constructions)

    def _in_construction_or_train(self) -> bool:
        """In `train(self, mode)`, setting the flag is the implementation; in `__init__` the module
        is being built, and its caller sets the mode of the whole once it is."""
        function = self.context.enclosing_function()
        return function is not None and function.name.value in ("train", "__init__")
