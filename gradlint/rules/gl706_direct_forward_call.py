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
    module itself: `module(x)`, in a file that attaches code only the call runs (a hook, a
    hook-based utility such as `weight_norm` or pruning, FSDP's `fully_shard`, `m.compile()`).

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

    Measured in torch 2.13, each of these attaches what `m.forward(x)` skips: the backward
    hooks (`register_full_backward_hook`, `register_full_backward_pre_hook`,
    `register_backward_hook`: 1 call after `m(x)`'s backward, 0 after `m.forward(x)`'s) and their
    global twins of `torch.nn.modules.module`; `torch.nn.utils.weight_norm` and `spectral_norm`
    (a pre-hook recomputes the weight: after an update of `weight_g`, `m.forward(x)` uses the
    stale weight, and a second training step through it raises `RuntimeError: Trying to
    backward through the graph a second time`); `torch.nn.utils.prune` (a pre-hook applies the
    mask to the updated weight); `fully_shard` and `parallelize_module` (`m.forward(x)` raises
    `RuntimeError: aten.addmm.default got mixed torch.Tensor and DTensor`); quantization's
    `prepare` and `prepare_qat` (the observers never see the input; the fake-quantised output
    differs).

    ## Example
    ```python
    import torchvision

    model = torchvision.models.resnet18()
    model.layer4.register_forward_hook(keep_features)
    logits = model.forward(images)
    ```

    ## Use instead
    ```python
    import torchvision

    model = torchvision.models.resnet18()
    model.layer4.register_forward_hook(keep_features)
    logits = model(images)
    ```

    ## Fix safety
    Unsafe: calling the module runs its hooks and its in-place compilation, which is the point,
    but it changes what the call does when hooks are registered (with none, the result is the same).

    ## Known limits
    Reported only in a file that attaches such code to a module: it registers a hook (or a global
    module hook), compiles a module in place (`m.compile()` on a name or attribute the file
    knows as a module: not `re.compile`, nor a CUDA program's `compile()`), or calls `weight_norm`,
    `spectral_norm`, a `torch.nn.utils.prune` function, `fully_shard`, `parallelize_module`,
    `prepare` or `prepare_qat`. Elsewhere `m.forward(x)` computes what `m(x)` does as far as the
    file shows, and on current code such calls (a test's verbatim copy of a reference model, a
    tutorial's `model.forward(x)`, `self.layers.forward(h)` on an `nn.Sequential`, whose
    children's hooks still run) were style, not bugs: not reported. Machinery attached in
    another file (a trainer registering hooks on the model it is given, a script sharding the
    layers of a model built here, DeepSpeed's ZeRO-3) is not seen. Parametrizations
    (`torch.nn.utils.parametrize`, `parametrizations.weight_norm`) work through attribute
    access and `torch.compile(m)` returns a new module leaving `m` as it was: `m.forward(x)`
    and `m(x)` agree under them (measured), so they are no evidence.

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
        model.register_forward_hook(hook)
        out = model.forward(x)
        generator = SequenceGenerator(models)
        hypos = generator.forward(sample)
        """,
        """
        import torch.nn as nn
        from torch.nn.parallel import DistributedDataParallel
        nn.modules.module.register_module_forward_hook(hook)
        ddp_model = DistributedDataParallel(nn.Linear(4, 2))
        output = ddp_model.forward(x)
        model = nn.Linear(4, 2)
        model = load_checkpoint(model, "ckpt.pt")
        out = model.forward(x)
        for layer in [nn.Linear(4, 4)]:
            layer.forward(x)
        """,
        # nothing in the file attaches code that only a call runs: the reviewed look-alikes
        """
        import torch
        import torch.nn as nn
        class Attention(nn.Module):
            def __init__(self):
                super().__init__()
                self.wq = nn.Linear(4, 4)
            def forward(self, x):
                return self.wq(x)
        class Block(nn.Module):
            \"\"\"Copied from the reference implementation with minimal modifications.\"\"\"
            def __init__(self):
                super().__init__()
                self.attention = Attention()
                self.layers = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
            def forward(self, x):
                h = x + self.attention.forward(x)
                return self.layers.forward(h)
        model = Block()
        out = model.forward(torch.randn(2, 4))
        """,
        # re.compile, torch.compile (a new module) and parametrizations are no evidence
        """
        import re
        import torch
        import torch.nn as nn
        from torch.nn.utils import parametrizations
        PATTERN = re.compile("layer")
        model = nn.Linear(4, 2)
        fast = torch.compile(model)
        parametrizations.weight_norm(model)
        out = model.forward(x)
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
            model.register_forward_hook(record)
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
            model.register_forward_hook(record)
            logits = model(x)
            """,
            line=10,
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
            encoder = nn.utils.weight_norm(Encoder().rnn, "weight_hh_l0")
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
            encoder = nn.utils.weight_norm(Encoder().rnn, "weight_hh_l0")
            """,
            line=7,
            column=18,
        ),
        # compiled in place: the direct call runs uncompiled
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)
                def forward(self, x):
                    return self.fc(x)
            model = Net()
            model.compile()
            out = model.forward(x)
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)
                def forward(self, x):
                    return self.fc(x)
            model = Net()
            model.compile()
            out = model(x)
            """,
            line=10,
            column=7,
            message="the file attaches such code with `model.compile(...)`",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "forward"):
            return
        receiver = func.value
        machinery = self.context.call_machinery
        if machinery is None:
            return
        constructions = self.context.nn_modules.module_constructions(receiver, self.context.stack)
        if not constructions or any(is_parallel_wrapper(call, self.context.imports) for call in constructions):
            return
        written = snippet(self.context.code_for(receiver), 40, "the module")
        attached = snippet(self.context.code_for(machinery.func), 60, "a hook registration")
        self.report(
            node,
            f"`{written}.forward(...)` bypasses the forward hooks and pre-hooks of `{written}` "
            f"(and an in-place `.compile()`), and the file attaches such code with `{attached}(...)`; call the module itself",
            self.unsafe_fix(f"Call the module: `{written}(...)`", Replace(func, self.context.code_for(receiver))),
        )
