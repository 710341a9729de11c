from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.layers import called_only, drops_out, has_parameters, nn_layer
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity


class LayerBuiltInForward(Rule):
    """
    ## What it does
    Flags a `torch.nn` layer with parameters (`nn.Linear`, `nn.Conv2d`, `nn.BatchNorm2d`,
    `nn.LayerNorm`, `nn.Embedding`, `nn.LSTM`..., or an `nn.Sequential` holding one) constructed
    inside the `forward` of an
    `nn.Module` subclass and called there, directly (`nn.Linear(4, 2)(x)`) or through a local name
    (`fc = nn.Linear(4, 2)` then `fc(x)`); and a dropout layer built the same way
    (`nn.Dropout(0.5)(x)`).

    ## Why is this bad?
    The layer is a new module at every call: new random parameters each time, never registered on
    the model. Measured in torch 2.13 with `nn.Linear(4, 2)(x)` in `forward`: the model has 0
    parameters and an empty `state_dict()`, `torch.optim.SGD(model.parameters(), lr=0.1)` raises
    `ValueError: optimizer got an empty parameter list`, and two calls on the same input give
    different outputs (`[0.0336, 0.4624]`, then `[0.1108, -0.7591]`). Next to a trained layer the
    optimizer runs, but the rebuilt layer is never trained: its output for a fixed seed is the same
    before and after a step. A new module is also always in training mode: `nn.Dropout(0.5)(x)` in
    `forward` keeps dropping after `model.eval()` (two evaluation passes over a tensor of ones give
    `[2, 0, 0, 0, 2, 0, 0, 0]` and `[0, 2, 0, 2, 0, 2, 0, 2]`).

    ## Example
    ```python
    import torch.nn as nn

    class Head(nn.Module):
        def forward(self, x):
            return nn.Linear(16, 4)(x)
    ```

    ## Use instead
    ```python
    import torch.nn as nn

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 4)

        def forward(self, x):
            return self.fc(x)
    ```

    ## Fix safety
    No fix: the layer's place in `__init__`, its attribute name and its input sizes are choices
    the code does not state (and the state-dict keys change).

    ## Known limits
    Reported only in `forward` itself of a module class of the file, for layers of `torch.nn`
    (module classes of the file or of other libraries built in `forward` are not reported, as their
    parameters are not known). Layers whose parameters are switched off
    (`nn.LayerNorm(d, elementwise_affine=False)`, `nn.BatchNorm1d(n, affine=False)`,
    `nn.InstanceNorm2d(c)`) and parameterless layers (`nn.ReLU()`, `nn.Flatten()`, pooling,
    `nn.Upsample`) are not reported: built per call they compute what their functional form
    computes. Dropout is the exception, as its mode matters; it is not reported when `forward`
    tests `self.training` (a layer used only in training mode). GL603 reports the functional
    `F.dropout` without `training=`; `nn.Dropout(p)(x)` is reported here only. A layer bound to a
    local name is reported only when the name is just called (not stored on `self`, returned or
    passed on), and lazy initialisation (`if self.fc is None: self.fc = nn.Linear(...)`) assigns
    an attribute, which is not this pattern.
    """

    code = "GL708"
    name = "layer-built-in-forward"
    summary = "a layer with parameters is constructed inside `forward`, so it is re-initialised at every call"
    severity = Severity.ERROR
    triggers = ("forward",)

    VALID = (
        """
        import torch.nn as nn
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(16, 4)
            def forward(self, x):
                return self.fc(x)
        """,
        """
        import torch.nn as nn
        class Lazy(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = None
            def forward(self, x):
                if self.fc is None:
                    self.fc = nn.Linear(x.shape[-1], 4)
                return self.fc(x)
        """,
        """
        import torch.nn as nn
        class Block(nn.Module):
            def forward(self, x):
                x = nn.ReLU()(x)
                x = nn.Flatten()(x)
                x = nn.LayerNorm(x.shape[-1], elementwise_affine=False)(x)
                x = nn.InstanceNorm1d(4)(x)
                x = nn.Sequential(nn.ReLU(), nn.Identity())(x)
                return nn.MaxPool1d(2)(x)
        """,
        """
        import torch.nn as nn
        class Noisy(nn.Module):
            def forward(self, x):
                if self.training:
                    x = nn.Dropout(0.1)(x)
                return x
        """,
        """
        import torch.nn as nn
        class Builder(nn.Module):
            def forward(self, x):
                fc = nn.Linear(4, 2)
                self.heads.append(fc)
                return fc(x)
        """,
        """
        import torch.nn as nn
        def build(x):
            return nn.Linear(4, 2)(x)
        class Config:
            def forward(self, x):
                return nn.Linear(4, 2)(x)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch.nn as nn
            class Head(nn.Module):
                def forward(self, x):
                    return nn.Linear(16, 4)(x)
            """,
            line=4,
            column=16,
            message="`nn.Linear(16, 4)` is built inside `forward`: new random parameters at every call",
        ),
        Invalid(
            """
            from torch import nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 8, 3)
                def forward(self, x):
                    x = self.conv(x)
                    norm = nn.BatchNorm2d(8)
                    return norm(x).relu()
            """,
            line=8,
            column=16,
            message="`nn.BatchNorm2d(8)` is built inside `forward`",
        ),
        Invalid(
            """
            import torch
            class Mixer(torch.nn.Module):
                def forward(self, x):
                    mlp = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.GELU(), torch.nn.Linear(32, 8))
                    return x + mlp(x)
            """,
            line=4,
            column=15,
            message="is built inside `forward`: new random parameters at every call",
        ),
        Invalid(
            """
            import torch.nn as nn
            class Classifier(nn.Module):
                def forward(self, x):
                    return self.out(nn.Dropout(0.5)(x))
            """,
            line=4,
            column=25,
            message="a new module is always in training mode, so it keeps dropping after `eval()`",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Call) and self._in_forward() is not None:
            self._check(node.func)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        if nn_layer(node.value, self.context.imports) is None:
            return  # cheap first: most assignments build no layer
        forward = self._in_forward()
        if forward is not None and called_only(node.targets[0].target.value, forward):
            self._check(node.value)

    def _check(self, construction: cst.BaseExpression) -> None:
        layer = nn_layer(construction, self.context.imports)
        if layer is None:
            return
        written = snippet(self.context.code_for(construction), 40)
        if has_parameters(construction, self.context.imports):
            self.report(
                construction,
                f"`{written}` is built inside `forward`: new random parameters at every call, never trained "
                "and missing from `parameters()` and `state_dict()`; build it once in `__init__`",
            )
        elif drops_out(construction, layer) and not self._forward_consults_mode():
            self.report(
                construction,
                f"`{written}` is built inside `forward`: a new module is always in training mode, so it keeps "
                "dropping after `eval()`; build it in `__init__` or pass `training=self.training` to `F.dropout`",
            )

    def _in_forward(self) -> Optional[cst.FunctionDef]:
        """The `forward` method of a module class of the file the visited node is written in
        (not a function nested in it)."""
        function = self.context.enclosing_function()
        if function is None or function.name.value != "forward":
            return None
        if self.context.function_table.class_of(function) is None:
            return None
        return function if self.context.nn_modules.instance_of_method(self.context.stack) is not None else None

    def _forward_consults_mode(self) -> bool:
        instance = self.context.nn_modules.instance_of_method(self.context.stack)
        return instance is not None and self.context.nn_modules.consults_mode(self.context.stack, instance)
