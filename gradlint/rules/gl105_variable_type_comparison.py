from __future__ import annotations

import libcst as cst

from gradlint.analysis.legacy import VARIABLE, is_variable
from gradlint.analysis.legacy_types import type_comparison
from gradlint.fix.builders import as_condition, torch_alias
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = "`{test}` is always {value} since PyTorch 0.4 (no object has type `Variable`); use `{fixed}`"


class VariableTypeComparison(Rule):
    """
    ## What it does
    Flags `type(x) == Variable`, `type(x) is Variable`, `x.__class__ == Variable` and their
    negations (`!=`, `is not`), on either side of the operator, where `Variable` is
    `torch.autograd.Variable` under any import form.

    ## Why is this bad?
    Since PyTorch 0.4 `Variable(t)` returns a plain `torch.Tensor`: no object ever has the type
    `Variable`, so in torch 2.13 `type(x) == Variable` is False for every tensor and Parameter (and
    `!=` is True). Code written for 0.3 silently takes the other branch. The widely copied
    `repackage_hidden` (`if type(h) == Variable: return Variable(h.data)` else recurse into the
    tuple) now recurses into the hidden-state tensor itself, row by row down to its 0-dim elements,
    and raises `TypeError: iteration over a 0-d tensor` for every non-empty hidden state, a tensor
    or a tuple of tensors alike (an empty tensor silently becomes `()`).

    ## Example
    ```python
    from torch.autograd import Variable

    def repackage_hidden(h):
        if type(h) == Variable:
            return Variable(h.data)
        return tuple(repackage_hidden(v) for v in h)
    ```

    ## Use instead
    ```python
    import torch

    def repackage_hidden(h):
        if isinstance(h, torch.Tensor):
            return h.detach()
        return tuple(repackage_hidden(v) for v in h)
    ```

    ## Fix safety
    Unsafe: the rewrite changes what torch 2.13 executes (the legacy test is constant, the rewrite
    is True for tensors), to what the code meant in PyTorch 0.3, where a `Variable` was the
    autograd-carrying wrapper that now is every tensor. `isinstance` also accepts subclasses
    (`nn.Parameter`), which `type(x) == Variable` did not in 0.3; in 0.3 a Parameter was a
    `Variable` subclass and such code usually meant it too. `!=` / `is not` become
    `not isinstance(x, torch.Tensor)`. `import torch` is added when the module lacks it; no fix when
    the name `torch` or `isinstance` is taken otherwise.

    ## Known limits
    `type(x) in (Variable, ...)` and chained comparisons are not reported. A name `Variable` that
    is not `torch.autograd.Variable` (`tf.Variable`, a class of the project) is left alone.
    """

    code = "GL105"
    name = "variable-type-comparison"
    summary = "`type(x) == Variable` (always False)"
    severity = Severity.ERROR
    migration = "variable"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("Variable",)
    cleanup_imports = (VARIABLE,)

    VALID = (
        """
        import tensorflow as tf
        ok = type(v) == tf.Variable
        """,
        """
        class MyVariable:
            pass
        ok = type(v) == MyVariable
        """,
        """
        from torch.autograd import Variable
        ok = type(v) in (Variable, list)
        """,
        """
        from torch.autograd import Variable
        type = lambda v: v
        ok = type(v) == Variable
        """,
        """
        import torch
        ok = isinstance(v, torch.Tensor)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            ok = type(h) == Variable
            """,
            """
            import torch
            ok = isinstance(h, torch.Tensor)
            """,
            line=3,
            column=6,
            message="`type(h) == Variable` is always False since PyTorch 0.4",
            fix_title="Replace with `isinstance(h, torch.Tensor)`",
        ),
        Invalid(
            """
            from torch.autograd import Variable
            if h.__class__ is not Variable:
                h = tuple(h)
            """,
            """
            import torch
            if not isinstance(h, torch.Tensor):
                h = tuple(h)
            """,
            message="`h.__class__ is not Variable` is always True since PyTorch 0.4",
        ),
        Invalid(
            """
            import torch as th
            ok = th.autograd.Variable == type(h) and ready
            """,
            """
            import torch as th
            ok = isinstance(h, th.Tensor) and ready
            """,
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            ok = [v for v in h if (type(v) != Variable) == flag]
            """,
            """
            import torch
            ok = [v for v in h if (not isinstance(v, torch.Tensor)) == flag]
            """,
        ),
        # `isinstance` is bound to something else in this file: no fix.
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            from checks import isinstance
            ok = type(h) is Variable
            """,
            fixed=None,
            line=4,
            column=6,
        ),
    )

    def visit_Comparison(self, node: cst.Comparison) -> None:
        comparison = type_comparison(node, self.context.imports)
        if comparison is None or not is_variable(comparison.cls, self.context.imports):
            return
        fix = fixed = None
        replacement = self._replacement(comparison.subject, comparison.negated)
        if replacement is not None:
            tensor_test, changes = replacement
            fixed = as_condition(tensor_test, node, self.context.parent())
            changes.append(Replace(node, fixed))
            fix = self.unsafe_fix(f"Replace with `{snippet(self.context.code_for(fixed), 60)}`", *changes)
        test = snippet(self.context.code_for(node), 60)
        value = "True" if comparison.negated else "False"
        suggestion = snippet(self.context.code_for(fixed), 60) if fixed is not None else "isinstance(x, torch.Tensor)"
        self.report(node, _MESSAGE.format(test=test, value=value, fixed=suggestion), fix)

    def _replacement(self, subject: cst.BaseExpression, negated: bool):
        if "isinstance" in self.context.imports.bindings:
            return None
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        call = cst.Call(
            func=cst.Name("isinstance"),
            args=[
                cst.Arg(subject, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                cst.Arg(cst.Attribute(value=cst.Name(alias), attr=cst.Name("Tensor"))),
            ],
        )
        test = cst.UnaryOperation(operator=cst.Not(), expression=call) if negated else call
        return test, changes
