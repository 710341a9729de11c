from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from gradlint.analysis.legacy import (
    VARIABLE,
    fresh_tensor_call,
    is_direct_grad_factory,
    is_variable,
    variable_arguments,
)
from gradlint.analysis.syntax import is_bool_literal, method_call_on, parenthesized
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule

_DETACH = "`Variable(...)` is a no-op wrapper since PyTorch 0.4; use the tensor (`.detach()` keeps the exact meaning)"


class VariableCall(Rule):
    """
    ## What it does
    Flags calls of `torch.autograd.Variable`, under every import form (`Variable`, `ag.Variable`,
    `torch.autograd.Variable`, `torch.autograd.variable.Variable`, star imports) and through
    aliases (`V = autograd.Variable`, then `V(x)`).

    ## Why is this bad?
    Since PyTorch 0.4 tensors and Variables are the same type. In torch 2.13, `Variable(t)` builds
    `t.detach()`: a new `torch.Tensor` leaf sharing storage and version counter with `t`, with
    autograd history cut, and `requires_grad` set from the argument. The wrapper hides that the
    history is cut, which readers of the code rarely expect, and it is legacy API.

    ## Example
    ```python
    from torch.autograd import Variable
    x = Variable(inputs)
    w = Variable(torch.randn(3, 4), requires_grad=True)
    y = Variable(torch.from_numpy(batch)).float()
    ```

    ## Use instead
    ```python
    x = inputs.detach()
    w = torch.randn(3, 4, requires_grad=True)
    y = torch.from_numpy(batch).float()
    ```

    ## Fix safety
    Safe: every rewrite is exact in torch >= 0.4 (checked property by property: type, leaf,
    `requires_grad`, `grad_fn`, storage, version counter, over plain, view, non-leaf, Parameter,
    int, complex and 0-dim tensors). `Variable(t)` becomes `t.detach()`; with
    `requires_grad=True`, `t.detach().requires_grad_()`. `Variable` also takes an int 0..255 or a
    one-element integer or bool tensor as the flag, while `requires_grad_()` and the factories take
    only a bool: an int literal is read as True / False, and a flag that is not a literal becomes
    `requires_grad_(bool(flag))` (which also accepts the flags `Variable` rejected, such as None).
    A fresh tensor made right there by a torch factory or `torch.from_numpy` (optionally converted
    with `.float()`, `.cuda()`, `.to(...)`...) needs no detach, and a factory that takes
    `requires_grad=` gets the keyword instead, which draws the same random numbers. `volatile=` is
    dropped in the same rewrite (it has no effect). When the last use of the imported `Variable`
    name disappears, the import is removed.

    ## Known limits
    An alias (`V = Variable`) is followed only when it is the name's single kind of binding in the
    file; one bound to other values elsewhere (`V = Variable if old else Tensor`) is not.
    A call that passes `volatile=` together with a non-false `requires_grad` raises in torch and is
    left unfixed, as are calls with `*args`/`**kwargs`, `Variable(None)` (an empty tensor) and an
    int flag above 255 (torch raises `OverflowError`).
    """

    code = "GL101"
    name = "variable-call"
    summary = "`torch.autograd.Variable(...)` wrapper"
    migration = "variable"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("Variable",)
    cleanup_imports = (VARIABLE,)

    VALID = (
        """
        import tensorflow as tf
        v = tf.Variable(3.0)
        """,
        """
        import cvxpy as cp
        x = cp.Variable(3)
        """,
        """
        class Variable:
            pass
        v = Variable()
        """,
        """
        from sympy import Variable
        v = Variable('x')
        """,
        "x = t.detach()\n",
    )
    INVALID = (
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(t)\n            ",
            "x = t.detach()\n",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach()`",
        ),
        Invalid(
            "\n            import torch.autograd as ag\n            x = ag.Variable(a * 2, requires_grad=True)\n            ",
            "\n            import torch.autograd as ag\n            x = (a * 2).detach().requires_grad_()\n            ",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `(a * 2).detach().requires_grad_()`",
        ),
        Invalid(
            "\n            import torch\n            from torch.autograd import Variable\n            w = Variable(torch.randn(3, 4), requires_grad=True)\n            ",
            "\n            import torch\n            w = torch.randn(3, 4, requires_grad=True)\n            ",
            line=3,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `torch.randn(3, 4, requires_grad=True)`",
        ),
        Invalid(
            "\n            import torch\n            from torch.autograd import Variable, grad\n            y = Variable(torch.from_numpy(b)).float()\n            ",
            "\n            import torch\n            from torch.autograd import grad\n            y = torch.from_numpy(b).float()\n            ",
            line=3,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `torch.from_numpy(b)`",
        ),
        Invalid(
            "\n            import torch\n            x = torch.autograd.Variable(t, volatile=True)\n            ",
            "\n            import torch\n            x = t.detach()\n            ",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach()`",
        ),
        Invalid(
            "\n            from torch.autograd.variable import Variable as V\n            x = V(t, True)\n            ",
            "x = t.detach().requires_grad_()\n",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach().requires_grad_()`",
        ),
        Invalid(
            "\n            from torch.autograd import *\n            x = Variable(t, requires_grad=rg)\n            ",
            "\n            from torch.autograd import *\n            x = t.detach().requires_grad_(bool(rg))\n            ",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach().requires_grad_(bool(rg))`",
        ),
        # `Variable` accepts an int flag (an unsigned char); `requires_grad_(1)` raises TypeError.
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(t, 1)\n            ",
            "x = t.detach().requires_grad_()\n",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach().requires_grad_()`",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(t, requires_grad=0)\n            ",
            "x = t.detach()\n",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach()`",
        ),
        Invalid(
            "\n            import torch\n            from torch.autograd import Variable\n            x = Variable(torch.ones(2), requires_grad=flag)\n            ",
            "\n            import torch\n            x = torch.ones(2, requires_grad=bool(flag))\n            ",
            line=3,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `torch.ones(2, requires_grad=bool(flag))`",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(t, requires_grad=not frozen)\n            ",
            "x = t.detach().requires_grad_(not frozen)\n",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach().requires_grad_(not frozen)`",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(t, requires_grad=256)\n            ",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            bool = int\n            x = Variable(t, requires_grad=rg)\n            ",
            line=3,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(None)\n            ",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(t, volatile=True, requires_grad=True)\n            ",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(*args)\n            ",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not is_variable(node.func, self.context.imports):
            return
        replacement = self._replacement(node)
        fix = None
        if replacement is not None:
            text = self.context.code_for(replacement)
            fix = self.safe_fix(f"Replace with `{snippet(text, 60)}`", Replace(node, replacement))
        self.report(node, _DETACH, fix)

    def _replacement(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        arguments = variable_arguments(call)
        if arguments is None or arguments.data is None or _is_none(arguments.data):
            return None
        requires_grad = _flag(arguments.requires_grad)
        volatile = _flag(arguments.volatile.value if arguments.volatile is not None else None)
        if _UNPARSABLE in (requires_grad, volatile):
            return None  # torch rejects the flag (OverflowError); keep the call as it is
        if volatile is not False and requires_grad is not False:
            # torch raises for volatile together with requires_grad; keep that code as it is.
            if arguments.volatile is not None and arguments.requires_grad is not None:
                return None
        if requires_grad is False or arguments.requires_grad is None:
            return self._without_grad(arguments.data)
        if requires_grad is True:
            return self._with_grad(arguments.data, None)
        if "bool" in self.context.imports.bindings:
            return None
        return self._with_grad(arguments.data, _as_bool(arguments.requires_grad))

    def _without_grad(self, data: cst.BaseExpression) -> cst.BaseExpression:
        if fresh_tensor_call(data, self.context.imports) is not None:
            return parenthesized(data)
        return method_call_on(data, "detach")

    def _with_grad(self, data: cst.BaseExpression, flag: Optional[cst.BaseExpression]) -> cst.BaseExpression:
        """`data` as a fresh leaf with requires_grad set to `flag` (True when None)."""
        imports = self.context.imports
        if is_direct_grad_factory(data, imports):
            return _with_keyword(data, "requires_grad", cst.Name("True") if flag is None else flag)
        if fresh_tensor_call(data, imports) is not None:
            source = data
        else:
            source = method_call_on(data, "detach")
        args = () if flag is None else (cst.Arg(flag),)
        return method_call_on(source, "requires_grad_", *args)


# `Variable` parses its flags with the C format "b" (an unsigned char through `__index__`): True,
# False, any int in 0..255 and one-element integer or bool tensors are accepted, while
# `requires_grad_()` and the factories' `requires_grad=` accept only a real bool.
_UNPARSABLE = "unparsable"


def _flag(node: Optional[cst.BaseExpression]) -> Union[bool, str, None]:
    """True / False for a literal flag, _UNPARSABLE for an int literal torch rejects, None if unknown."""
    if node is None:
        return None
    if is_bool_literal(node, True) or is_bool_literal(node, False):
        return is_bool_literal(node, True)
    if isinstance(node, cst.Integer):
        value = node.evaluated_value
        return _UNPARSABLE if value > 255 else value != 0
    return None


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _as_bool(flag: cst.BaseExpression) -> cst.BaseExpression:
    """`bool(flag)`: what `Variable` made of any flag it accepted (`not x` is a bool already)."""
    if isinstance(flag, cst.UnaryOperation) and isinstance(flag.operator, cst.Not) and not flag.lpar:
        return flag
    return cst.Call(func=cst.Name("bool"), args=[cst.Arg(flag)])


def _with_keyword(call: cst.Call, keyword: str, value: cst.BaseExpression) -> cst.Call:
    """`call` with `keyword=value`, replacing an existing keyword of that name."""
    args = [arg for arg in call.args if not (arg.keyword is not None and arg.keyword.value == keyword)]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args.append(
        cst.Arg(
            value=value,
            keyword=cst.Name(keyword),
            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
        )
    )
    return call.with_changes(args=args)
