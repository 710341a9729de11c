from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.nn_module_classes import NnModuleClass
from gradlint.analysis.tree import descendants
from gradlint.analysis.syntax import is_docstring
from gradlint.fix.plan import Applicability, Availability, InsertLineBefore
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{name}.__init__` never calls `super().__init__()`: `nn.Module`'s state is never created, so assigning a "
    "sub-module or parameter raises AttributeError and so does every call of the model"
)


class ModuleInitWithoutSuper(Rule):
    """
    ## What it does
    Flags an `nn.Module` subclass whose `__init__` never calls the base initialiser: no
    `super().__init__()`, `super(Net, self).__init__()`, `nn.Module.__init__(self)` or
    `Base.__init__(self, ...)` anywhere in the class.

    ## Why is this bad?
    `nn.Module.__init__` creates the dictionaries that hold parameters, buffers, sub-modules and
    hooks. Without it, measured in torch 2.13: `self.fc = nn.Linear(2, 2)` raises
    `AttributeError: cannot assign module before Module.__init__() call`, `self.w = nn.Parameter(...)`
    raises `AttributeError: cannot assign parameters before Module.__init__() call`, and
    `register_buffer` raises `... cannot assign buffer before Module.__init__() call`. A class
    that only stores plain values is constructed, then breaks at first use: calling it raises
    `AttributeError: 'Net' object has no attribute '_backward_hooks'`, and `.parameters()`,
    `.to()`, `.train()` and `repr()` raise `AttributeError: 'Net' object has no attribute
    '_parameters'` (or `'_modules'`).

    ## Example
    ```python
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)
        def forward(self, x):
            return self.fc(x)
    ```

    ## Use instead
    ```python
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
        def forward(self, x):
            return self.fc(x)
    ```

    ## Fix safety
    Safe, offered when the class's only base is `nn.Module`: `super().__init__()` is inserted as
    the first statement of `__init__` (after its docstring). `nn.Module.__init__` takes no
    argument the class could have meant, and runs before anything it sets up, as any module does;
    the code that raised then runs. With another base (a torch layer, a class of this file) the
    arguments it needs are not known: no fix.

    ## Known limits
    Reported only when every base is `nn.Module`, a torch.nn module class, or a class of this
    file that is provably a module: with a mixin or a base from another file, the initialisation may
    happen there. Any `X.__init__(...)` call in the class silences the rule, as do a decorated class,
    a metaclass, `__new__`, and an `__init__` that raises.
    """

    code = "GL709"
    name = "module-init-without-super"
    summary = "an `nn.Module` subclass whose `__init__` never calls `super().__init__()`"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("__init__",)

    VALID = (
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
        """,
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super(Net, self).__init__()
                self.fc = nn.Linear(2, 2)
        class Wide(Net):
            def __init__(self, width):
                Net.__init__(self)
                self.width = width
        class Plain(nn.Module):
            def __init__(self):
                nn.Module.__init__(self)
        """,
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                self._setup()
            def _setup(self):
                super().__init__()
        """,
        """
        import torch.nn as nn
        from mylib import Mixin
        class Net(nn.Module, Mixin):
            def __init__(self):
                self.fc = nn.Linear(2, 2)
        """,
        """
        from mylib import BaseModel
        class Net(BaseModel):
            def __init__(self):
                self.size = 2
        """,
        """
        import torch.nn as nn
        class Net(nn.Module):
            pass
        class Config:
            def __init__(self):
                self.size = 2
        """,
        """
        import torch.nn as nn
        class Abstract(nn.Module):
            def __init__(self):
                raise NotImplementedError
        """,
        """
        import torch.nn as nn
        from dataclasses import dataclass
        @dataclass(eq=False)
        class Net(nn.Module):
            def __init__(self):
                self.size = 2
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    self.fc = nn.Linear(2, 2)
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(2, 2)
            """,
            line=3,
            column=9,
            message="`Net.__init__` never calls `super().__init__()`",
            fix_title="Call `super().__init__()` first",
        ),
        Invalid(
            """
            from torch import nn
            class Scale(nn.Module):
                def __init__(self, factor):
                    \"\"\"Multiply by `factor`.\"\"\"
                    self.factor = factor
                def forward(self, x):
                    return x * self.factor
            """,
            """
            from torch import nn
            class Scale(nn.Module):
                def __init__(self, factor):
                    \"\"\"Multiply by `factor`.\"\"\"
                    super().__init__()
                    self.factor = factor
                def forward(self, x):
                    return x * self.factor
            """,
        ),
        Invalid(
            """
            import torch.nn as nn
            class Base(nn.Module):
                def __init__(self):
                    super().__init__()
            class Head(Base):
                def __init__(self, n):
                    self.fc = nn.Linear(n, 1)
            """,
            line=6,
        ),
        Invalid(
            """
            import torch
            class Wide(torch.nn.Linear):
                def __init__(self, n):
                    self.n = n
            """,
        ),
    )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        cls = self.context.nn_module_classes.of(node)
        if cls is None or not cls.provably_module or node.decorators or cls.init is None or "__new__" in cls.methods:
            return
        if _calls_an_initialiser(node) or _raises_at_top(cls.init):
            return
        self.report(cls.init.name, _MESSAGE.format(name=cls.name), self._fix(cls))

    def _fix(self, cls: NnModuleClass):
        first = _first_statement_after_docstring(cls.init)
        if not cls.direct_module_only or first is None:
            return None
        return self.safe_fix("Call `super().__init__()` first", InsertLineBefore(first, "super().__init__()"))


def _calls_an_initialiser(node: cst.ClassDef) -> bool:
    """Any `<something>.__init__(...)` in the class: `super().__init__()`, `Base.__init__(self)`."""
    return any(
        isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "__init__"
        for call in descendants(node.body)
    )


def _raises_at_top(function: cst.FunctionDef) -> bool:
    statements = function.body.body
    return any(
        isinstance(line, cst.SimpleStatementLine) and any(isinstance(small, cst.Raise) for small in line.body) for line in statements
    )


def _first_statement_after_docstring(function: cst.FunctionDef) -> Optional[cst.CSTNode]:
    if not isinstance(function.body, cst.IndentedBlock):
        return None
    statements = list(function.body.body)
    if statements and is_docstring(statements[0]):
        statements = statements[1:]
    return statements[0] if statements else None
