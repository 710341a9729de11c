from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.nn_module_classes import NnModuleClass
from gradlint.analysis.syntax import edit_distance
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{name}` defines `{method}` but no `forward`: calling the module raises "
    '`NotImplementedError: Module [{name}] is missing the required "forward" function`'
)
# Real words and names within two edits of `forward`.
_REAL_NAMES = frozenset({"toward", "onward", "coward", "forwards", "forwarded", "forwarder"})


class MisspeltForward(Rule):
    """
    ## What it does
    Flags an `nn.Module` subclass that defines no `forward` (itself or in the classes of the file
    it derives from) but a method whose name is a misspelling of it: `foward`, `forwad`,
    `fowrard`, `forwrd`, `Forward` (two edits at most, case ignored).

    ## Why is this bad?
    `nn.Module.__call__` runs `self.forward`, and `nn.Module`'s own `forward` only raises. Measured
    in torch 2.13: `Net()(x)` raises `NotImplementedError: Module [Net] is missing the required
    "forward" function`. The class builds, its parameters are registered and an optimizer accepts
    them; the error comes at the first call.

    ## Example
    ```python
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 1)
        def foward(self, x):
            return self.fc(x)
    ```

    ## Use instead
    ```python
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 1)
        def forward(self, x):
            return self.fc(x)
    ```

    ## Fix safety
    Unsafe: the fix renames the method to `forward`, offered only when nothing else in the file
    names it (no `self.foward(x)`, no `"foward"` string). Calling the module then runs the method
    instead of raising; code in other files that calls `net.foward(x)` by name would break.

    ## Known limits
    Reported only when every base outside the file is `nn.Module` itself (a torch layer has its own
    `forward`), the class and its ancestors of the file define neither `forward` nor `__call__`
    nor assign `self.forward`, and no subclass in the file defines `forward` (an abstract base).
    Names with an underscore (`forward_features`, `_forward`, `forward_train`) and real words
    (`toward`, `onward`, `forwards`; `backward` and `reward` are three edits away) are not
    misspellings.
    """

    code = "GL710"
    name = "misspelt-forward"
    summary = "an `nn.Module` subclass with a misspelt `forward` and no `forward`"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("Module",)

    VALID = (
        """
        import torch.nn as nn
        class Net(nn.Module):
            def forward(self, x):
                return x
            def foward(self, x):
                return x
        """,
        """
        import torch.nn as nn
        class Backbone(nn.Module):
            def forward_features(self, x):
                return x
            def _forward(self, x):
                return x
            def backward(self, grad):
                return grad
            def toward(self, goal):
                return goal
        """,
        """
        import torch.nn as nn
        class Base(nn.Module):
            def forward(self, x):
                return self.foward(x)
        class Net(Base):
            def foward(self, x):
                return x
        """,
        """
        import torch.nn as nn
        class Wide(nn.Linear):
            def Forward(self, x):
                return x
        """,
        """
        from mylib import Base
        class Net(Base):
            def foward(self, x):
                return x
        """,
        """
        class Planner:
            def foward(self, x):
                return x
        """,
        """
        import torch.nn as nn
        class Abstract(nn.Module):
            def Forward(self, x):
                raise NotImplementedError
        class Net(Abstract):
            def forward(self, x):
                return x
        """,
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.forward = self.foward
            def foward(self, x):
                return x
        """,
        """
        import torch.nn as nn
        class Net(nn.Module):
            def fowrard_impl(self, x):
                return x
            forward = fowrard_impl
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(2, 1)
                def foward(self, x):
                    return self.fc(x)
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(2, 1)
                def forward(self, x):
                    return self.fc(x)
            """,
            line=6,
            column=9,
            message="`Net` defines `foward` but no `forward`",
            fix_title="Rename `foward` to `forward`",
        ),
        Invalid(
            """
            from torch import nn
            class Block(nn.Module):
                pass
            class Head(Block):
                def Forward(self, x):
                    return x
            """,
            """
            from torch import nn
            class Block(nn.Module):
                pass
            class Head(Block):
                def forward(self, x):
                    return x
            """,
        ),
        Invalid(
            """
            import torch
            class Net(torch.nn.Module):
                def forwad(self, x):
                    return x
                def twice(self, x):
                    return self.forwad(self.forwad(x))
            """,
        ),
    )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        cls = self.context.nn_module_classes.of(node)
        if cls is None or not cls.only_plain_module_ancestry() or self._forward_defined(cls):
            return
        method = _misspelt_forward(cls)
        if method is None:
            return
        old = method.name.value
        fix = None
        if self.context.nn_module_classes.referenced_names.get(old, 0) == 1:
            fix = self.unsafe_fix(f"Rename `{old}` to `forward`", Replace(method.name, cst.Name("forward")))
        self.report(method.name, _MESSAGE.format(name=cls.name, method=old), fix)

    @staticmethod
    def _forward_defined(cls: NnModuleClass) -> bool:
        if any(cls.defines_in_lineage(name) for name in ("forward", "__call__")):
            return True
        if any(ancestor.assignments_to("forward") for ancestor in cls.lineage()):
            return True
        return any("forward" in sub.methods or "forward" in sub.class_attributes for sub in cls.subclasses())


def _misspelt_forward(cls: NnModuleClass) -> Optional[cst.FunctionDef]:
    for name, method in cls.methods.items():
        if name == "forward" or "_" in name or name.lower() in _REAL_NAMES:
            continue
        if edit_distance(name.lower(), "forward") <= 2:
            return method
    return None
