from __future__ import annotations

import libcst as cst

from gradlint.analysis.frameworks import imports_other_tensor_framework, imports_torch
from gradlint.analysis.parameter_flow import GeneratorReuse, scopes_of
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_SECOND = "`{name}` holds the generator `{value}` (line {bound}), already exhausted by `{first}` (line {line}): this consumer gets no parameters; bind `list({value})`"
_AGAIN = "`{name}` holds the generator `{value}` (line {bound}): the first pass of this loop exhausts it, every later pass gets no parameters; bind `list({value})`"


class ParametersGeneratorReused(Rule):
    """
    ## What it does
    Flags a name bound to `model.parameters()` (or `named_parameters()`, `buffers()`,
    `children()`, `modules()` and their `named_` forms), which return one-shot generators, that is
    consumed a second time: by two optimizers, by an optimizer and `clip_grad_norm_`, by `list()`
    and then an optimizer, by two `for` loops, or by one consumer inside a loop that the binding is
    outside of.

    ## Why is this bad?
    The first consumer exhausts the generator; the second iterates nothing. Measured in torch
    2.13 with an `nn.Linear(4, 2)`: after `optimizer = SGD(params)`, `clip_grad_norm_(params, 1e-3)`
    returns `tensor(0.)`, clips nothing (the gradient norm stays 0.77) and only warns
    "`parameters` is an empty generator, no gradient clipping will occur"; a second optimizer
    raises `ValueError: optimizer got an empty parameter list`; `list(params)` gives 2 tensors the
    first time and 0 the second; `dict(named_parameters)` a second time is empty. A
    `clip_grad_norm_(params, 1.0)` inside the training loop clips in the first step only.

    ## Example
    ```python
    import torch

    params = model.parameters()
    optimizer = torch.optim.SGD(params, lr=0.1)
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
    ```

    ## Use instead
    ```python
    import torch

    params = list(model.parameters())
    optimizer = torch.optim.SGD(params, lr=0.1)
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
    ```

    ## Fix safety
    Safe: `list(model.parameters())` at the binding holds the same tensors in the same order, and
    every consumer now sees all of them, which is what the code asks for. The fix is offered only
    when every read of the name iterates it (loops, comprehensions, `list()`, `sum()`, optimizers,
    `clip_grad_norm_`, through `filter`/`map`/`zip`/`enumerate`); where the name is also stored,
    returned or handed to another function, the finding has no fix.

    ## Known limits
    Only plain names bound in the same function (or module body) and read there are followed; an
    attribute (`self.params`), a generator handed to a helper, or reads inside nested functions
    and lambdas are not. Both consumers must run on one path: the second in a later statement of
    the first's block (in different branches of an `if` nothing is reported). A loop with a
    `break` or `return` (it may run once) does not count as repeating. Any `next(params)` makes
    the name silent: the code relies on the generator. Files that import another tensor
    framework (Paddle's `parameters()` returns a list) are skipped.
    """

    code = "GL703"
    name = "parameters-generator-reused"
    summary = "a `model.parameters()` generator consumed twice: the second consumer gets nothing"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("parameters(", "buffers(", "children(", "modules(")

    VALID = (
        """
        import torch
        params = list(model.parameters())
        optimizer = torch.optim.SGD(params, lr=0.1)
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        """,
        """
        import torch
        params = model.parameters()
        optimizer = torch.optim.SGD(params, lr=0.1)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        """,
        """
        import torch
        params = model.parameters()
        if use_adam:
            optimizer = torch.optim.Adam(params)
        else:
            optimizer = torch.optim.SGD(params, lr=0.1)
        """,
        """
        import torch
        params = model.parameters()
        first = next(params)
        optimizer = torch.optim.SGD(params, lr=0.1)
        count = sum(p.numel() for p in params)
        """,
        """
        import torch
        for epoch in range(3):
            params = model.parameters()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
        """,
        """
        import torch
        params = model.parameters()
        optimizer = torch.optim.SGD(params, lr=0.1)
        params = model.parameters()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        """,
        """
        import torch
        params = model.parameters()
        def clip():
            torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer = torch.optim.SGD(params, lr=0.1)
        """,
        """
        import torch
        params = model.parameters()
        for attempt in range(3):
            optimizer = torch.optim.SGD(params, lr=0.1)
            break
        """,
        """
        import paddle
        params = model.parameters()
        opt = paddle.optimizer.Adam(parameters=params)
        clip(params)
        """,
        """
        import torch
        params = model.parameters()
        optimizer = torch.optim.SGD(params, lr=0.1)
        log(params)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            params = model.parameters()
            optimizer = torch.optim.SGD(params, lr=0.1)
            for x, y in loader:
                criterion(model(x), y).backward()
                torch.nn.utils.clip_grad_norm_(params, 1.0)
                optimizer.step()
            """,
            """
            import torch
            params = list(model.parameters())
            optimizer = torch.optim.SGD(params, lr=0.1)
            for x, y in loader:
                criterion(model(x), y).backward()
                torch.nn.utils.clip_grad_norm_(params, 1.0)
                optimizer.step()
            """,
            line=6,
            column=5,
            message="already exhausted by `torch.optim.SGD(params, lr=0.1)` (line 3)",
            fix_title="Bind `list(model.parameters())`",
        ),
        Invalid(
            """
            import torch
            def build(model):
                params = model.parameters()
                n = len(list(params))
                return torch.optim.Adam(params, lr=1e-3), n
            """,
            """
            import torch
            def build(model):
                params = list(model.parameters())
                n = len(list(params))
                return torch.optim.Adam(params, lr=1e-3), n
            """,
            line=5,
            column=12,
        ),
        Invalid(
            """
            import torch.nn as nn
            params = model.parameters()
            for x, y in loader:
                loss.backward()
                nn.utils.clip_grad_norm_(params, max_norm=1.0)
            """,
            """
            import torch.nn as nn
            params = list(model.parameters())
            for x, y in loader:
                loss.backward()
                nn.utils.clip_grad_norm_(params, max_norm=1.0)
            """,
            line=5,
            column=5,
            message="the first pass of this loop exhausts it",
        ),
        Invalid(
            """
            import torch
            named = model.named_parameters()
            decay = [p for n, p in named if "bias" not in n]
            no_decay = [p for n, p in named if "bias" in n]
            optimizer = torch.optim.AdamW([{"params": decay}, {"params": no_decay, "weight_decay": 0.0}])
            """,
            """
            import torch
            named = list(model.named_parameters())
            decay = [p for n, p in named if "bias" not in n]
            no_decay = [p for n, p in named if "bias" in n]
            optimizer = torch.optim.AdamW([{"params": decay}, {"params": no_decay, "weight_decay": 0.0}])
            """,
            line=4,
            column=12,
        ),
        Invalid(
            """
            import torch
            params = model.backbone.parameters()
            for p in params:
                p.requires_grad_(False)
            frozen = [p for p in params if not p.requires_grad]
            """,
            """
            import torch
            params = list(model.backbone.parameters())
            for p in params:
                p.requires_grad_(False)
            frozen = [p for p in params if not p.requires_grad]
            """,
            line=5,
            column=10,
            message="already exhausted by `for p in params:",
        ),
        Invalid(
            """
            import torch
            params = model.parameters()
            optimizer = torch.optim.SGD(params, lr=0.1)
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            report(params)
            """,
            line=4,
            column=1,
            message="this consumer gets no parameters",
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        if imports_other_tensor_framework(self.context.imports) or not imports_torch(self.context.imports):
            return
        flow = self.context.parameter_flow
        for scope in scopes_of(node):
            for reuse in flow.reused_generators(scope):
                self._report(reuse)

    def _report(self, reuse: GeneratorReuse) -> None:
        value = self.context.code_for(reuse.value)
        fields = {
            "name": reuse.first.name.value,
            "value": snippet(value, 40),
            "bound": self.context.line_of(reuse.value),
            "first": snippet(self.context.code_for(reuse.first.consumer), 50),
            "line": self.context.line_of(reuse.first.consumer),
        }
        template = _AGAIN if reuse.second is reuse.first else _SECOND
        fix = None
        if reuse.list_safe:
            listed = cst.Call(func=cst.Name("list"), args=[cst.Arg(reuse.value)])
            fix = self.safe_fix(f"Bind `list({snippet(value, 50)})`", Replace(reuse.value, listed))
        self.report(reuse.second.consumer, template.format(**fields), fix)
