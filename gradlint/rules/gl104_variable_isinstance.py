from __future__ import annotations

from typing import Iterator

import libcst as cst

from gradlint.analysis.legacy import VARIABLE, is_variable
from gradlint.fix.builders import torch_alias
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = "`isinstance(x, Variable)` is legacy API; use `isinstance(x, torch.Tensor)`"


class VariableIsinstance(Rule):
    """
    ## What it does
    Flags `isinstance(x, Variable)` (also inside a tuple of classes) where `Variable` is
    `torch.autograd.Variable`.

    ## Why is this bad?
    `Variable` is legacy API. In torch 2.13 `isinstance(t, Variable)` is True for every tensor and
    Parameter (through a metaclass hook), so the check says "is a tensor" in an obscure way, and it
    keeps the legacy import alive.

    ## Example
    ```python
    from torch.autograd import Variable

    if isinstance(x, Variable):
        x = x.data
    ```

    ## Use instead
    ```python
    if isinstance(x, torch.Tensor):
        x = x.data
    ```

    ## Fix safety
    Safe: `isinstance(x, Variable)` and `isinstance(x, torch.Tensor)` agree for every object.
    `import torch` is added when the module does not import it at top level. No fix when the name
    `torch` is already taken otherwise (imported only inside a function, or bound to another module).

    ## Known limits
    `issubclass(C, Variable)` is not rewritten: `issubclass(torch.Tensor, Variable)` is False, so
    the two are not equivalent. `type(x) == Variable` (always False) is GL105.
    """

    code = "GL104"
    name = "variable-isinstance"
    summary = "`isinstance(x, Variable)`"
    severity = Severity.WARNING
    migration = "variable"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("Variable",)
    cleanup_imports = (VARIABLE,)

    VALID = (
        """
        import tensorflow as tf
        ok = isinstance(v, tf.Variable)
        """,
        """
        from torch.autograd import Variable
        ok = issubclass(C, Variable)
        """,
        """
        import torch
        ok = isinstance(x, torch.Tensor)
        """,
        """
        from torch.autograd import Variable
        def isinstance(a, b):
            return True
        ok = isinstance(x, Variable)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            ok = isinstance(x, Variable)
            """,
            """
            import torch
            ok = isinstance(x, torch.Tensor)
            """,
        ),
        Invalid(
            """
            import numpy as np
            from torch.autograd import Variable
            ok = isinstance(x, (Variable, np.ndarray))
            """,
            """
            import numpy as np
            import torch
            ok = isinstance(x, (torch.Tensor, np.ndarray))
            """,
        ),
        Invalid(
            '''
            """Doc."""
            import torch as th
            ok = isinstance(x, th.autograd.Variable)
            ''',
            '''
            """Doc."""
            import torch as th
            ok = isinstance(x, th.Tensor)
            ''',
        ),
        # `torch` is imported only inside the function: no top-level `import torch` can be added.
        Invalid(
            """
            from torch.autograd import Variable
            def check(x):
                import torch
                return isinstance(x, Variable)
            """,
            fixed=None,
            line=4,
            column=12,
            message="`isinstance(x, Variable)` is legacy API",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not (isinstance(node.func, cst.Name) and node.func.value == "isinstance"):
            return
        if "isinstance" in self.context.imports.bindings or len(node.args) != 2:
            return
        classes = list(self._variable_nodes(node.args[1].value))
        if not classes:
            return
        self.report(node, _MESSAGE, self._fix(classes))

    def _variable_nodes(self, classes: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
        imports = self.context.imports
        if isinstance(classes, cst.Tuple):
            yield from (element.value for element in classes.elements if is_variable(element.value, imports))
        elif is_variable(classes, imports):
            yield classes

    def _fix(self, classes: list[cst.BaseExpression]):
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        tensor = cst.Attribute(value=cst.Name(alias), attr=cst.Name("Tensor"))
        changes.extend(Replace(node, tensor) for node in classes)
        return self.safe_fix(f"Replace with `{alias}.Tensor`", *changes)
