from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.nn_module_classes import parameter_conversion
from gradlint.analysis.syntax import parenthesized
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{code}` is a plain tensor, not a parameter, whenever `.{method}()` copies: "
    "missing from `parameters()` and `state_dict()`, never trained; convert before wrapping: `{fixed}`"
)


class ParameterMovedAfterWrapping(Rule):
    """
    ## What it does
    Flags `self.w = nn.Parameter(t).cuda()` (or `.to(...)`, `.cpu()`, `.double()`, `.float()`,
    `.half()`, `.bfloat16()`) in a method of an `nn.Module` subclass: the conversion is applied to
    the parameter after it is made.

    ## Why is this bad?
    A conversion that copies returns a new tensor computed from the parameter: a plain
    `torch.Tensor`, not a leaf, with a `grad_fn`. `nn.Module.__setattr__` registers only
    `Parameter` values, so the attribute is an ordinary tensor. Measured in torch 2.13 with
    `self.weight = nn.Parameter(torch.randn(3)).double()`: `named_parameters()` and
    `state_dict()` do not contain `weight`, an SGD step over `model.parameters()` leaves it
    unchanged, its `.grad` stays None (with a UserWarning on reading it), and
    `torch.optim.SGD([model.weight])` raises `ValueError: can't optimize a non-leaf Tensor`.
    With `requires_grad=False` the result is a plain tensor missing from `state_dict()`. When the
    conversion changes nothing (`.to("cpu")` of a CPU tensor, `.float()` of a float32 one) it
    returns the parameter itself, registered: the code works on one machine and not on another.

    ## Example
    ```python
    import torch
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(3)).double()
    ```

    ## Use instead
    ```python
    import torch
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(3).double())
    ```

    ## Fix safety
    Safe: the conversion moves inside the call, onto the data (`nn.Parameter(t.double())`), and
    the other arguments (`requires_grad=False`) stay. When the conversion copies, the result is a
    registered parameter holding the same values, on the device and with the dtype the code asked
    for (as a parameter, it is then saved, moved and trained: what the code meant). When it does
    not copy, `t.to(d)` is `t` and both forms give the same registered `Parameter(t)`.

    ## Known limits
    Only an assignment to an attribute of the instance in a method of an `nn.Module` subclass of the
    file is reported; a parameter converted elsewhere (a local variable, a function) is not.
    """

    code = "GL704"
    name = "parameter-moved-after-wrapping"
    summary = "`nn.Parameter(t).cuda()`: a conversion after wrapping gives a plain tensor"
    severity = Severity.ERROR
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("Parameter",)

    VALID = (
        """
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self, device):
                super().__init__()
                self.weight = nn.Parameter(torch.randn(3).to(device))
                self.bias = nn.Parameter(torch.zeros(3, device=device))
                self.scale = nn.Parameter(torch.ones(3)).requires_grad_(False)
        """,
        """
        import torch
        class Config:
            def __init__(self):
                self.weight = Parameter(torch.ones(3)).double()
        """,
        """
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = nn.Parameter(torch.ones(3))
            def prepare(self):
                weight = self.weight.double()
                return weight
        """,
        """
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.table = nn.Embedding(3, 2).double()
                self.mask = torch.ones(3).cuda()
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.weight = nn.Parameter(torch.randn(3)).cuda()
            """,
            """
            import torch
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.weight = nn.Parameter(torch.randn(3).cuda())
            """,
            line=6,
            column=23,
            message="is a plain tensor, not a parameter, whenever `.cuda()` copies",
            fix_title="Convert before wrapping: `nn.Parameter(torch.randn(3).cuda())`",
        ),
        Invalid(
            """
            import torch
            from torch.nn import Module, Parameter
            class Net(Module):
                def __init__(self, init, device):
                    super().__init__()
                    self.scale = Parameter(init, requires_grad=False).to(device, torch.float64)
            """,
            """
            import torch
            from torch.nn import Module, Parameter
            class Net(Module):
                def __init__(self, init, device):
                    super().__init__()
                    self.scale = Parameter(init.to(device, torch.float64), requires_grad=False)
            """,
        ),
        Invalid(
            """
            import torch
            class Net(torch.nn.Module):
                def reset(self, n):
                    self.bias = torch.nn.Parameter(data=torch.zeros(n) + 1).half().cuda()
            """,
            """
            import torch
            class Net(torch.nn.Module):
                def reset(self, n):
                    self.bias = torch.nn.Parameter(data=(torch.zeros(n) + 1).half().cuda())
            """,
        ),
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        instance = self.context.nn_modules.instance_of_method(self.context.stack)
        if instance is None or not any(_is_attribute_of(t.target, instance) for t in node.targets):
            return
        conversion = parameter_conversion(node.value, self.context.imports)
        if conversion is None:
            return
        wrapper, data = conversion
        moved = node.value.deep_replace(wrapper, parenthesized(data.value))
        fixed = wrapper.with_changes(args=[arg.with_changes(value=moved) if arg is data else arg for arg in wrapper.args])
        shown = snippet(self.context.code_for(fixed), 60)
        fix = self.safe_fix(f"Convert before wrapping: `{shown}`", Replace(node.value, fixed))
        method = node.value.func.attr.value
        message = _MESSAGE.format(code=snippet(self.context.code_for(node.value), 50), method=method, fixed=shown)
        self.report(node.value, message, fix)


def _is_attribute_of(target: cst.BaseExpression, instance: str) -> Optional[bool]:
    return isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == instance
