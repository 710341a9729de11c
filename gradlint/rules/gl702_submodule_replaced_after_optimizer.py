from __future__ import annotations

import libcst as cst

from gradlint.analysis.frameworks import imports_other_tensor_framework, imports_torch
from gradlint.analysis.parameter_flow import scopes_of
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{replaced}` puts a new sub-module into `{owner}` after `{optimizer}` was built from its parameters (line {built}); "
    "`{optimizer}` still updates the old weights and never the new ones: build the optimizer after the replacement"
)


class SubmoduleReplacedAfterOptimizer(Rule):
    """
    ## What it does
    Flags a sub-module put into a model (`model.fc = nn.Linear(...)`, `model.add_module(...)`,
    `setattr(model, name, module)`) after an optimizer was built from that model's parameters in
    the same function, when the optimizer is used afterwards (stepped, or handed to a call) and
    neither rebuilt nor given the new parameters with `add_param_group` in between.

    ## Why is this bad?
    The optimizer holds the parameter tensors it was given when it was built. Measured in torch
    2.13: with `SGD(model.parameters(), lr=0.1)` built before `model.fc = nn.Linear(4, 2)`, the new
    head's weights get gradients but after 3 steps they are bitwise unchanged (largest change 0.0);
    none of the new head's tensors is among the optimizer's parameters, which still hold the old
    head's 10 numbers, detached from the model. Fine-tuning trains nothing of the new head, and no
    error or warning says so.

    ## Example
    ```python
    import torch
    import torch.nn as nn
    import torchvision

    model = torchvision.models.resnet18()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    model.fc = nn.Linear(512, 10)
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    ```

    ## Use instead
    ```python
    import torch
    import torch.nn as nn
    import torchvision

    model = torchvision.models.resnet18()
    model.fc = nn.Linear(512, 10)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    ```

    ## Fix safety
    No fix: the optimizer's construction has to move after the replacement (or its parameter
    groups be extended), which may reorder code with side effects in between.

    ## Known limits
    The optimizer's construction, the replacement and the later use must be in one function (or
    the module body), each running after the other on one path: a replacement inside an `if` the
    use is not in is reported only when the use is in the same branch. The new value must
    evidently be a module with parameters (a `torch.nn` layer, a module class of the file, a
    torchvision model); `nn.Identity()`, activations, pooling and dropout hold none and are not
    reported. The optimizer must be built from the model's `parameters()` or `named_parameters()`
    (directly, through a filter or a parameter group, or through a name bound to them just before).
    A rebinding of the model or of the optimizer, or any use of `add_param_group`,
    `param_groups` or `load_state_dict` on the optimizer after the replacement, silences the rule.
    """

    code = "GL702"
    name = "submodule-replaced-after-optimizer"
    summary = "sub-module replaced after the optimizer was built from the model's parameters"
    severity = Severity.ERROR
    triggers = ("parameters(",)

    VALID = (
        """
        import torch
        import torch.nn as nn
        model.fc = nn.Linear(512, 10)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        optimizer.step()
        """,
        """
        import torch
        import torch.nn as nn
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        model.fc = nn.Linear(512, 10)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        optimizer.step()
        """,
        """
        import torch
        import torch.nn as nn
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        model.fc = nn.Linear(512, 10)
        optimizer.add_param_group({"params": model.fc.parameters()})
        optimizer.step()
        """,
        """
        import torch
        import torch.nn as nn
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        model.fc = nn.Identity()
        model.dropout = nn.Dropout(0.1)
        optimizer.step()
        """,
        """
        import torch
        import torch.nn as nn
        optimizer = torch.optim.SGD(model.backbone.parameters(), lr=0.01)
        model.head = nn.Linear(512, 10)
        optimizer.step()
        """,
        """
        import torch
        import torch.nn as nn
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        model.fc = nn.Linear(512, 10)
        """,
        """
        import torch
        import torch.nn as nn
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        if finetune:
            model.fc = nn.Linear(512, 10)
        optimizer.step()
        """,
        """
        import torch
        import torch.nn as nn
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        model = Wrapper(model)
        model.fc = nn.Linear(512, 10)
        optimizer.step()
        """,
        """
        import torch
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        model.fc = head
        model.scale = 2.0
        optimizer.step()
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            import torch.nn as nn
            optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
            model.fc = nn.Linear(512, 10)
            for x, y in loader:
                optimizer.step()
            """,
            line=4,
            column=1,
            message="`model.fc` puts a new sub-module into `model` after `optimizer` was built from its parameters (line 3)",
        ),
        Invalid(
            """
            import torch
            from torch import nn
            class Head(nn.Module):
                pass
            def finetune(net, loader):
                params = filter(lambda p: p.requires_grad, net.parameters())
                opt = torch.optim.Adam(params, lr=1e-3)
                net.add_module("head", Head())
                train(net, opt, loader)
            """,
            line=8,
            column=5,
            message="`net.add_module(...)` puts a new sub-module into `net`",
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn
            def setup(self):
                self.optimizer = torch.optim.AdamW([{"params": self.model.parameters(), "lr": 1e-4}])
                setattr(self.model, "classifier", nn.Sequential(nn.Dropout(0.1), nn.Linear(768, 2)))
                self.optimizer.step()
            """,
            line=5,
            column=5,
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        if imports_other_tensor_framework(self.context.imports) or not imports_torch(self.context.imports):
            return
        flow = self.context.parameter_flow
        for scope in scopes_of(node):
            for stale in flow.stale_optimizers(scope):
                message = _MESSAGE.format(
                    replaced=snippet(stale.replaced, 40),
                    owner=stale.owner,
                    optimizer=snippet(stale.optimizer, 30),
                    built=self.context.line_of(stale.construction),
                )
                self.report(stale.replacement, message)
