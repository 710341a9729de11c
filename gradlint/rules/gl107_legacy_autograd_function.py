from __future__ import annotations

import libcst as cst

from gradlint.analysis.autograd_functions import RENAMED_MEMBERS, LegacyFunction, legacy_function
from gradlint.fix.plan import Applicability, Availability, InsertLineBefore, RemoveLine, Replace
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{name}` is an old-style autograd Function (non-static `forward`): calling an instance raises RuntimeError since"
    " PyTorch 1.5; use `@staticmethod` `forward(ctx, ...)` / `backward(ctx, ...)` and `{name}.apply(...)`"
)


class LegacyAutogradFunction(Rule):
    """
    ## What it does
    Flags subclasses of `torch.autograd.Function` written in the PyTorch 0.3 style: a non-static
    `forward(self, ...)` (with `self.save_for_backward`, `self.saved_tensors`), used by
    instantiating the class and calling the instance, `Fn()(x)`.

    ## Why is this bad?
    Old-style functions were deprecated in PyTorch 1.3 and removed in 1.5. In torch 2.13,
    `Fn()` warns `DeprecationWarning: <class 'Fn'> should not be instantiated. Methods on autograd
    functions are all static, so you should invoke them on the class itself.` and calling the
    instance raises `RuntimeError: Legacy autograd function with non-static forward method is
    deprecated. Please use new-style autograd function with static forward method.` The model
    cannot run its forward pass at all.

    ## Example
    ```python
    import torch

    class Square(torch.autograd.Function):
        def forward(self, x):
            self.save_for_backward(x)
            return x * x

        def backward(self, grad):
            x, = self.saved_tensors
            return 2 * x * grad

    y = Square()(x)
    ```

    ## Use instead
    ```python
    import torch

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return 2 * x * grad

    y = Square.apply(x)
    ```

    ## Fix safety
    Safe: every call of an instance raises today, and the migrated function computes what the
    legacy one did. In 0.3 the instance was the context of its own call: `save_for_backward`,
    `saved_tensors`, `needs_input_grad`, `mark_dirty` and `mark_non_differentiable` were its
    members, and they are the members of `ctx` now (torch 2.13 even runs a non-static `forward`
    through `Fn.apply`, passing the context as `self`); the migrated functions pass
    `torch.autograd.gradcheck` in double precision. The fix makes `forward` and `backward`
    static methods, renames their first parameter to `ctx` (`self.saved_variables` becomes
    `ctx.saved_tensors`), removes an `__init__` that only calls the base class, and turns every
    `Fn()` of the file into `Fn.apply` (`Fn()(x)` becomes `Fn.apply(x)`; `fn = Fn(); fn(x)` in a
    function becomes `Fn.apply(x)`, and at module level, where other files may import `fn`,
    `fn = Fn.apply`). It is offered only when the instance holds no state beyond what it saves:
    otherwise the finding says what to move (an `__init__` with parameters, another method,
    `self.attribute` stored in `forward` and read in `backward`, `Fn(...)` called with arguments,
    or the class used as a value).

    ## Known limits
    Only direct subclasses of `torch.autograd.Function` are reported. Instances created in other
    files (`from ops import Fn; Fn()(x)`) are not rewritten; they raise before and after the fix.
    An instance kept in a variable and used other than by calling it (`fn.saved_tensors`) is not
    followed.
    """

    code = "GL107"
    name = "legacy-autograd-function"
    summary = "old-style `torch.autograd.Function` (non-static `forward`)"
    severity = Severity.ERROR
    migration = "variable"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("Function",)

    VALID = (
        """
        class Function:
            def forward(self, x):
                return x

        y = Function()(1)
        """,
        """
        import torch

        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return 2 * x * grad
        """,
        """
        from sympy import Function

        class f(Function):
            def forward(self, x):
                return x
        """,
        """
        import torch.nn as nn

        class Net(nn.Module):
            def forward(self, x):
                return x
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            from torch.autograd import Function


            class Square(Function):
                def __init__(self):
                    super(Square, self).__init__()

                def forward(self, x):
                    self.save_for_backward(x)
                    return x * x

                def backward(self, grad):
                    (x,) = self.saved_variables
                    return 2 * x * grad


            y = Square()(torch.ones(2))
            fn = Square()
            z = fn(y)
            """,
            """
            import torch
            from torch.autograd import Function


            class Square(Function):

                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x)
                    return x * x

                @staticmethod
                def backward(ctx, grad):
                    (x,) = ctx.saved_tensors
                    return 2 * x * grad


            y = Square.apply(torch.ones(2))
            fn = Square.apply
            z = fn(y)
            """,
            line=5,
            column=7,
            message="`Square` is an old-style autograd Function (non-static `forward`)",
            fix_title="Make `Square` a new-style Function called as `Square.apply(...)`",
        ),
        Invalid(
            """
            import torch

            class Double(torch.autograd.Function):
                def forward(self, x):
                    return x * 2

                def backward(self, grad):
                    return grad * 2

            def run(x):
                double = Double()
                y = double(x)
                return double(y)
            """,
            """
            import torch

            class Double(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x * 2

                @staticmethod
                def backward(ctx, grad):
                    return grad * 2

            def run(x):
                y = Double.apply(x)
                return Double.apply(y)
            """,
        ),
        Invalid(
            """
            import torch

            class Clamp(torch.autograd.Function):
                def forward(self, x):
                    self.mark_dirty(x)
                    return x.clamp_(min=0)

                def backward(self, grad):
                    if self.needs_input_grad[0]:
                        return grad
                    return None
            """,
            """
            import torch

            class Clamp(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.mark_dirty(x)
                    return x.clamp_(min=0)

                @staticmethod
                def backward(ctx, grad):
                    if ctx.needs_input_grad[0]:
                        return grad
                    return None
            """,
        ),
        Invalid(
            """
            import torch

            class Scale(torch.autograd.Function):
                def __init__(self, factor):
                    super().__init__()
                    self.factor = factor

                def forward(self, x):
                    return x * self.factor

                def backward(self, grad):
                    return grad * self.factor

            y = Scale(2.0)(x)
            """,
            fixed=None,
            line=3,
            column=7,
            message="its `__init__` keeps state",
        ),
        Invalid(
            """
            import torch

            class Keep(torch.autograd.Function):
                def forward(self, x):
                    self.shape = x.shape
                    return x.sum()

                def backward(self, grad):
                    return grad.expand(self.shape)
            """,
            fixed=None,
            message="it keeps state on the instance (`self.shape`)",
        ),
        # Run only through `.apply` (torch passes the context as `self`): made static as it is.
        Invalid(
            """
            from torch import autograd

            class Neg(autograd.Function):
                def forward(ctx, x):
                    return -x

                def backward(ctx, grad):
                    return -grad

            y = Neg.apply(x)
            """,
            """
            from torch import autograd

            class Neg(autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return -x

                @staticmethod
                def backward(ctx, grad):
                    return -grad

            y = Neg.apply(x)
            """,
        ),
        Invalid(
            """
            import torch

            class Cube(torch.autograd.Function):
                def forward(self, x):
                    self.save_for_backward(x)
                    return self.power(x)

                def power(self, x):
                    return x ** 3

                def backward(self, grad):
                    (x,) = self.saved_tensors
                    return 3 * x ** 2 * grad
            """,
            fixed=None,
            message="it defines `power`: make it a static method or a function",
        ),
        Invalid(
            """
            import torch

            class Log(torch.autograd.Function):
                def forward(self, x):
                    registry.append(self)
                    return x.log()

                def backward(self, grad):
                    return grad
            """,
            fixed=None,
            message="`forward` uses `self` as a value",
        ),
        Invalid(
            """
            import torch

            class Twice(torch.autograd.Function):
                def forward(self, x):
                    return x * 2

                def backward(self, grad):
                    return grad * 2

            ops = {"twice": Twice}
            """,
            fixed=None,
            message="`Twice` is used as a value",
        ),
    )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        found = legacy_function(node, self.context.module, self.context.imports, self.context.nodes)
        if found is None:
            return
        name = node.name.value
        message = _MESSAGE.format(name=name)
        if found.obstacle is not None:
            self.report(node.name, f"{message}; no automatic fix: {found.obstacle}")
            return
        self.report(
            node.name, message, self.safe_fix(f"Make `{name}` a new-style Function called as `{name}.apply(...)`", *_changes(found))
        )


def _changes(found: LegacyFunction):
    for method in found.methods:
        yield InsertLineBefore(method, "@staticmethod")
    for receiver in found.receivers:
        if receiver.value != "ctx":
            yield Replace(receiver, cst.Name("ctx"))
    for member in found.renamed:
        yield Replace(member, cst.Name(RENAMED_MEMBERS[member.value]))
    if found.trivial_init is not None:
        yield RemoveLine(found.trivial_init)
    apply = cst.Attribute(value=cst.Name(found.class_def.name.value), attr=cst.Name("apply"))
    for call in found.instantiations:
        yield Replace(call, apply)
    for variable in found.instance_variables:
        yield RemoveLine(variable.statement)
        for callee in variable.callees:
            yield Replace(callee, apply)
