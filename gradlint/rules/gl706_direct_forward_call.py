from __future__ import annotations

import libcst as cst

from gradlint.analysis.layers import is_parallel_wrapper
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity


class DirectForwardCall(Rule):
    """
    ## What it does
    Flags `module.forward(x)`, the `forward` method of an `nn.Module` called directly, on a module
    the file builds (`model = Net()`, `self.encoder = nn.LSTM(...)`), instead of calling the
    module itself: `module(x)`.

    ## Why is this bad?
    `nn.Module.__call__` runs the forward pre-hooks, then `forward`, then the forward hooks;
    `module.forward(x)` runs `forward` alone. Measured in torch 2.13 on an `nn.Linear(3, 2)` with
    a forward hook and a forward pre-hook that count their calls: after `m.forward(x)` both counts
    are 0, after `m(x)` both are 1; with a hook that returns `output * 0`, `m(x)` gives
    `[0, 0]` and `m.forward(x)` the unhooked `[-0.3109, -1.0260]`. What is built on hooks is
    silently skipped: feature extractors, pruning and weight-normalisation pre-hooks
    (`torch.nn.utils.weight_norm`), the parameter gathering of FSDP's `fully_shard`; and a model
    compiled in place (`model.compile()`) runs uncompiled: 0 frames compiled after
    `model.forward(x)`, 1 after `model(x)`.

    ## Example
    ```python
    import torchvision

    model = torchvision.models.resnet18()
    logits = model.forward(images)
    ```

    ## Use instead
    ```python
    import torchvision

    model = torchvision.models.resnet18()
    logits = model(images)
    ```

    ## Fix safety
    Unsafe: calling the module runs its hooks and its in-place compilation, which is the point,
    but it changes what the call does when hooks are registered (with none, the result is the same).

    ## Known limits
    Reported only on a module the file builds: a name bound in the same function only to module
    constructions (`nn.X(...)`, a module class of the file, a torchvision model, also through
    `.to(device)` or `.eval()`), or an attribute that the class's methods bind only to those
    (`self.encoder = Encoder()`). A model passed in as a parameter, loaded, or built by a factory
    (`timm.create_model`, `from_pretrained`) is not reported, nor `self.forward(...)`,
    `super().forward(...)`, `Base.forward(self, ...)` (a class delegating to its parent), nor a
    wrapper's `self.module.forward(...)` on a module it was given: such calls bypass hooks on
    purpose as often as not. Nor a `DistributedDataParallel` or `DataParallel` wrapper, whose
    own `forward` does its work. `torch.compile(model).forward(x)` is compiled (measured: 1 frame)
    and is not reported either.
    """

    code = "GL706"
    name = "direct-forward-call"
    summary = "`module.forward(x)` is called directly, bypassing the module's hooks"
    severity = Severity.ERROR
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = (".forward(",)

    VALID = (
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)
            def forward(self, x):
                return self.fc(x)
        class Wider(Net):
            def forward(self, x):
                return super().forward(x) * 2
        class Twice(Net):
            def forward(self, x):
                return Net.forward(self, x) + self.forward_once(x)
            def forward_once(self, x):
                return self.forward(x)
        """,
        """
        import torch.nn as nn
        class Wrapper(nn.Module):
            def __init__(self, module):
                super().__init__()
                self.module = module
            def forward(self, *args):
                return self.module.forward(*args)
        def run(model, x):
            return model.forward(x)
        """,
        """
        import timm
        model = timm.create_model("resnet18")
        out = model.forward(x)
        generator = SequenceGenerator(models)
        hypos = generator.forward(sample)
        """,
        """
        import torch.nn as nn
        from torch.nn.parallel import DistributedDataParallel
        ddp_model = DistributedDataParallel(nn.Linear(4, 2))
        output = ddp_model.forward(x)
        model = nn.Linear(4, 2)
        model = load_checkpoint(model, "ckpt.pt")
        out = model.forward(x)
        for layer in [nn.Linear(4, 4)]:
            layer.forward(x)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)
                def forward(self, x):
                    return self.fc(x)
            model = Net().to("cpu")
            logits = model.forward(x)
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)
                def forward(self, x):
                    return self.fc(x)
            model = Net().to("cpu")
            logits = model(x)
            """,
            line=9,
            column=10,
            message="`model.forward(...)` bypasses the forward hooks and pre-hooks of `model`",
            fix_title="Call the module: `model(...)`",
        ),
        Invalid(
            """
            from torch import nn
            class Encoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.rnn = nn.LSTM(8, 16)
                def forward(self, x):
                    out, _ = self.rnn.forward(x)
                    return out
            """,
            """
            from torch import nn
            class Encoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.rnn = nn.LSTM(8, 16)
                def forward(self, x):
                    out, _ = self.rnn(x)
                    return out
            """,
            line=7,
            column=18,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "forward"):
            return
        receiver = func.value
        constructions = self.context.nn_modules.module_constructions(receiver, self.context.stack)
        if not constructions or any(is_parallel_wrapper(call, self.context.imports) for call in constructions):
            return
        written = snippet(self.context.code_for(receiver), 40, "the module")
        self.report(
            node,
            f"`{written}.forward(...)` bypasses the forward hooks and pre-hooks of `{written}` "
            "(and an in-place `.compile()`); call the module itself",
            self.unsafe_fix(f"Call the module: `{written}(...)`", Replace(func, self.context.code_for(receiver))),
        )
