from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.torch_api.records import Row
from gradlint.analysis.values.record import Kind
from gradlint.fix.builders import indentation, render_at
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_DEPRECATED = "(deprecated in torch 1.5)"
# The tensor a torch function's legacy overload starts from, among its leading numbers.
_INPUT = "input"


@dataclass(frozen=True)
class _Overload:
    """A legacy number-first overload: its leading parameters (numbers, named by the keyword each
    now is, and a function's `input`) and the tensors after them."""

    leading: tuple[str, ...]
    tensors: tuple[str, ...]

    @property
    def numbers(self) -> tuple[str, ...]:
        return tuple(name for name in self.leading if name != _INPUT)

    def parameters(self, count: int) -> Optional[tuple[str, ...]]:
        """The parameters of the form taking `count` positional arguments: a call may leave out the
        numbers after the first."""
        for kept in range(1, len(self.numbers) + 1):
            left_out = set(self.numbers[kept:])
            parameters = (*(name for name in self.leading if name not in left_out), *self.tensors)
            if len(parameters) == count:
                return parameters
        return None

    def signature(self, name: str, parameters: tuple[str, ...]) -> str:
        return f"{name}({', '.join(('Tensor ' if p == _INPUT or p in self.tensors else 'Number ') + p for p in parameters)})"


def _overload(row: Row) -> _Overload:
    return _Overload(tuple(row.value("legacy-overload").split(",")), tuple(row.value("legacy-tensors").split(",")))


_METHODS = {name: _overload(torch_api.method(name)) for name in torch_api.methods("legacy-overload")}
_FUNCTIONS = {name: _overload(torch_api.function(name)) for name in torch_api.functions("legacy-overload")}


class LegacyPositionalOverload(Rule):
    """
    ## What it does
    Flags the legacy overloads that take the scaling number first, positionally:
    `p.data.add_(-lr, p.grad.data)` (also `sub_`, `add`, `sub`), `p.addcmul_(value, t1, t2)`
    (also `addcdiv_`, `addcmul`, `addcdiv`), `torch.add(x, number, y)` (also `torch.sub`,
    `torch.addcmul(t, value, t1, t2)`, `torch.addcdiv`), and the matrix products with beta, and
    alpha, first: `x.addmm(beta, m1, m2)`, `x.addmm(beta, alpha, m1, m2)`,
    `torch.addmm(beta, x, m1, m2)`, `torch.addmm(beta, x, alpha, m1, m2)` (also `addmv`, `addr`,
    `baddbmm`, `addbmm`, `sspaddmm`, the in-place methods and `torch.addmv_`). In custom
    optimizers this covers the state's tensors too: `exp_avg.mul_(beta1).add_(1 - beta1, grad)` and
    `exp_avg_sq.mul_(beta2).addcmul_(1 - beta2, grad, grad)` where `exp_avg` is read from
    `self.state[p]` of an `Optimizer` subclass whose methods store tensors under that entry.

    ## Why is this bad?
    Since torch 1.5 the scale is a keyword (`add_(other, *, alpha=1)`,
    `addcmul_(t1, t2, *, value=1)`, `addmm(mat1, mat2, *, beta=1, alpha=1)`); the number-first
    forms survive as deprecated overloads. In torch 2.13 the first of them a process calls warns
    ("This overload of add_ is deprecated"), the later ones are silent but still deprecated, and
    the number-first order reads as if the number were added.

    ## Example
    ```python
    for p in model.parameters():
        p.data.add_(-lr, p.grad.data)
        p.data.addcmul_(0.5, p.grad.data, p.grad.data)
    ```

    ## Use instead
    ```python
    for p in model.parameters():
        p.data.add_(p.grad.data, alpha=-lr)
        p.data.addcmul_(p.grad.data, p.grad.data, value=0.5)
    ```

    ## Fix safety
    Safe: the numbers move to `alpha=` / `value=` / `beta=` after the tensors. Measured under torch
    2.13 for `add_/sub_/add/sub`, `addcmul_/addcdiv_/addcmul/addcdiv`,
    `torch.add/sub/addcmul/addcdiv`, and both forms (beta alone, beta and alpha) of the methods
    `addmm/addmv/addr/baddbmm/addbmm/sspaddmm`, their in-place twins and the functions
    `torch.addmm/addmv/addmv_/addr/baddbmm/addbmm/sspaddmm` (with `out=`), in float32 and float64,
    with a float, an int, a NumPy scalar and a 0-dim tensor as the number: the results are bitwise
    equal (values, dtype, shape, `requires_grad`), and where the legacy form raises (a tensor with
    more than one element or with a gradient as the number, a boolean `alpha`, a float `alpha` on
    an integer tensor) the rewrite raises the same exception type. The method forms are unsafe
    where the receiver is a tensor only by its name in a file that never imports torch: other
    libraries have an `add(scale, other)` of their own (sympy's quaternions), and a matrix class
    may have an `addmm(beta, a, b)`.

    ## Known limits
    With the keyword-only scales of the current signatures, a call with more positional arguments
    than they take can only select a legacy overload, so the rewrite holds whatever the tensors are
    (measured: numbers there make both forms compute or both raise). What gradlint needs evidence
    for is the receiver: the method forms are reported only when it is evidently a tensor (a
    parameter of `model.parameters()`, `.data`, `.grad`, a tensor-valued name), and only when
    the leading arguments are evidently numbers: a numeric literal, an arithmetic expression of
    literals and names, a name, attribute or subscript (`lr`, `self.lr`, `group["lr"]`) that is
    not evidently a tensor, or what the value model knows to be a Python number (`float(beta)`,
    `loss.item()`); `x.addmm(w.mean(), a, b)` is left alone. An entry of an optimizer's state counts as a tensor only when the
    class's own methods store it (through `state = self.state[p]`) and every value they store
    there is a tensor: an entry stored only by a base class (`Adagrad`'s `"sum"`), or stored as
    `self.state[p]["k"] = v`, is not known. A scale computed from such a tensor (a step counter
    stored as `torch.zeros(1)`, `step_size = lr / (1 - beta1 ** state["step"][0])`) is a tensor,
    not evidently a number, so that call is left alone. `counter.add(1, name)` on an object of
    unknown type is left alone, as are an `addmm` method of a class of the file, a function of the
    file named `addmm`, and calls with `*args`.
    """

    code = "GL505"
    name = "legacy-positional-overload"
    summary = "`x.add_(number, tensor)` / `x.addcmul_(value, t1, t2)` / `x.addmm(beta, m1, m2)`: legacy number-first overloads"
    severity = Severity.WARNING
    migration = "api"
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = ("add", "sub")

    VALID = (
        """
        for p in model.parameters():
            p.data.add_(p.grad.data, alpha=-lr)
        """,
        """
        items = set()
        items.add(1)
        counter.add(1, name)
        """,
        """
        import numpy as np
        y = np.add(x, 2, out)
        """,
        """
        import torch
        y = torch.add(x, y)
        z = torch.add(x, y, alpha=2)
        """,
        """
        for p in model.parameters():
            p.data.add_(p.grad.data, p.grad.data)
        """,
        """
        import torch
        x = torch.zeros(3, 4)
        y = torch.addmm(x, a, b, beta=0.5)
        z = x.addmm(a, b, alpha=2)
        """,
        # Look-alikes: a class of the file with an `addmm` method, a function named `addmm`,
        # another library's `addr`.
        """
        import torch
        import netlib
        class Matrix:
            def addmm(self, beta, a, b):
                return self
        def addmm(beta, x, a, b):
            return x
        Matrix().addmm(0.5, a, b)
        addmm(0.5, torch.zeros(2, 2), a, b)
        server = netlib.Server()
        server.addr(1, host, port)
        """,
        # A leading argument that is not evidently a number.
        """
        import torch
        x = torch.zeros(3, 4)
        x.addmm(a.mean(), a, b)
        torch.addmm(scale(2), x, a, b)
        x.addr(True, v, w)
        """,
        # Entries of an optimizer's state that hold something else than tensors.
        """
        import torch
        from torch.optim import Optimizer
        class Tracked(Optimizer):
            def step(self):
                for group in self.param_groups:
                    for p in group["params"]:
                        state = self.state[p]
                        if not state:
                            state["stats"] = RunningStats()
                            state["mean"] = torch.zeros_like(p)
                        state["stats"].add(1 - group["beta"], p.grad)
                        state["momentum"].add_(1 - group["beta"], p.grad)
        """,
    )
    INVALID = (
        Invalid(
            """
            for p in model.parameters():
                p.data.add_(-lr, p.grad.data)
            """,
            """
            for p in model.parameters():
                p.data.add_(p.grad.data, alpha=-lr)
            """,
            line=2,
            column=5,
            message="legacy overload `add_(Number alpha, Tensor other)` (deprecated in torch 1.5); use `p.data.add_(p.grad.data, alpha=-lr)`",
            fix_title="Replace with `p.data.add_(p.grad.data, alpha=-lr)`",
        ),
        Invalid(
            """
            for group in optimizer.param_groups:
                for p in group["params"]:
                    p.grad.data.sub_(group["lr"], p.grad)
            """,
            """
            for group in optimizer.param_groups:
                for p in group["params"]:
                    p.grad.data.sub_(p.grad, alpha=group["lr"])
            """,
        ),
        Invalid(
            """
            for p in model.parameters():
                p.grad.addcdiv_(1 - beta, p.grad, p.data)
            """,
            """
            for p in model.parameters():
                p.grad.addcdiv_(p.grad, p.data, value=1 - beta)
            """,
            message="`addcdiv_(Number value, Tensor tensor1, Tensor tensor2)`",
        ),
        Invalid(
            """
            import torch
            y = torch.add(x, 0.5, p.grad)
            """,
            """
            import torch
            y = torch.add(x, p.grad, alpha=0.5)
            """,
        ),
        # The state of a custom optimizer: what its methods store there is a tensor, and an
        # in-place method returns its receiver.
        Invalid(
            """
            import torch
            from torch.optim import Optimizer
            class Adam(Optimizer):
                def __init__(self, params, lr=1e-3, betas=(0.9, 0.999)):
                    super().__init__(params, dict(lr=lr, betas=betas))
                    for group in self.param_groups:
                        for p in group["params"]:
                            state = self.state[p]
                            state["exp_avg"] = torch.zeros_like(p)
                def step(self):
                    for group in self.param_groups:
                        beta1, beta2 = group["betas"]
                        for p in group["params"]:
                            exp_avg = self.state[p]["exp_avg"]
                            exp_avg.mul_(beta1).add_(1 - beta1, p.grad)
            """,
            """
            import torch
            from torch.optim import Optimizer
            class Adam(Optimizer):
                def __init__(self, params, lr=1e-3, betas=(0.9, 0.999)):
                    super().__init__(params, dict(lr=lr, betas=betas))
                    for group in self.param_groups:
                        for p in group["params"]:
                            state = self.state[p]
                            state["exp_avg"] = torch.zeros_like(p)
                def step(self):
                    for group in self.param_groups:
                        beta1, beta2 = group["betas"]
                        for p in group["params"]:
                            exp_avg = self.state[p]["exp_avg"]
                            exp_avg.mul_(beta1).add_(p.grad, alpha=1 - beta1)
            """,
            line=15,
            column=17,
            message="legacy overload `add_(Number alpha, Tensor other)` (deprecated in torch 1.5); use `exp_avg.mul_(beta1).add_(p.grad, alpha=1 - beta1)`",
            fix_title="Replace with `exp_avg.mul_(beta1).add_(p.grad, alpha=1 - beta1)`",
        ),
        Invalid(
            """
            import torch
            y = torch.addmm(0.5, x, 2, a, b)
            """,
            """
            import torch
            y = torch.addmm(x, a, b, beta=0.5, alpha=2)
            """,
            line=2,
            column=5,
            message="legacy overload `addmm(Number beta, Tensor input, Number alpha, Tensor mat1, Tensor mat2)` (deprecated in torch 1.5)",
            fix_title="Replace with `torch.addmm(x, a, b, beta=0.5, alpha=2)`",
        ),
        Invalid(
            """
            import torch
            x = torch.zeros(2, 3, 4)
            x.baddbmm_(1 - decay, float(scale), s, t)
            """,
            """
            import torch
            x = torch.zeros(2, 3, 4)
            x.baddbmm_(s, t, beta=1 - decay, alpha=float(scale))
            """,
            message="`baddbmm_(Number beta, Number alpha, Tensor batch1, Tensor batch2)`",
        ),
        # A tensor only by its name in a file that never imports torch (sympy has an `add(scale, q)`
        # of its own, a matrix class may have an `addmm`): the fix is unsafe.
        Invalid(
            """
            def combine(output, q):
                return output.add(2, q)
            """,
            """
            def combine(output, q):
                return output.add(q, alpha=2)
            """,
        ),
        Invalid(
            """
            def project(output, a, b):
                return output.addmm(0.5, a, b)
            """,
            """
            def project(output, a, b):
                return output.addmm(a, b, beta=0.5)
            """,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        if qualified in _FUNCTIONS:
            overload, name = _FUNCTIONS[qualified], qualified.rsplit(".", 1)[1]
        elif qualified is None and type(node.func) is cst.Attribute and node.func.attr.value in _METHODS:
            overload, name = _METHODS[node.func.attr.value], node.func.attr.value
        else:
            return
        if any(arg.star for arg in node.args):
            return
        positional = [arg for arg in node.args if arg.keyword is None]
        parameters = overload.parameters(len(positional))
        if parameters is None or any(arg.keyword is not None and arg.keyword.value in overload.numbers for arg in node.args):
            return
        by_torch = qualified is not None
        if not by_torch and not self._tensor(node.func.value):
            return
        bound = bind(node, Signature.of_names((*parameters, "/")))
        numbers = {parameter: bound.named[parameter] for parameter in parameters if parameter in overload.numbers}
        if not all(self._number(arg.value) for arg in numbers.values()):
            return
        tensors = [bound.named[parameter] for parameter in parameters if parameter not in numbers]
        replacement = node.with_changes(args=_moved(node, positional, tensors, numbers))
        shown = snippet(self.context.code_for(replacement), 60, ", ".join(f"{parameter}=" for parameter in numbers))
        # `torch.addmm(...)` is torch's; a method's receiver may be another library's (sympy, numpy.ma).
        make = self.safe_fix if by_torch or self._known_tensor(node.func.value) else self.unsafe_fix
        fix = make(
            f"Replace with `{shown}`", Replace(node, render_at(self.context, replacement, indentation(self.context, self.context.stack)))
        )
        self.report(node, f"legacy overload `{overload.signature(name, parameters)}` {_DEPRECATED}; use `{shown}`", fix)

    def _tensor(self, node: cst.BaseExpression) -> bool:
        return self.context.is_tensor(_without_data(node))

    def _known_tensor(self, node: cst.BaseExpression) -> bool:
        return self.context.is_known_tensor(_without_data(node))

    def _number(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, (cst.Integer, cst.Float)) or self.context.value(node).kind is Kind.NUMBER:
            return True
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            return self._number(node.expression)
        if isinstance(node, cst.BinaryOperation):
            return self._number(node.left) and self._number(node.right)
        if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)):
            return not self._tensor(node) and not (isinstance(node, cst.Name) and node.value in ("True", "False", "None"))
        return False


def _without_data(node: cst.BaseExpression) -> cst.BaseExpression:
    """`p` for `p.data.data`: `.data` of a tensor is a tensor."""
    while isinstance(node, cst.Attribute) and node.attr.value == "data":
        node = node.value
    return node


def _moved(node: cst.Call, positional: list[cst.Arg], tensors: list[cst.Arg], numbers: dict[str, cst.Arg]) -> list[cst.Arg]:
    """The arguments with the numbers moved behind the tensors as keywords, commas kept in place."""
    keywords = [
        cst.Arg(
            value=arg.value,
            keyword=cst.Name(parameter),
            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
        )
        for parameter, arg in numbers.items()
    ]
    args = [arg.with_changes(comma=positional[index].comma) for index, arg in enumerate([*tensors, *keywords])]
    others = [arg for arg in node.args if arg.keyword is not None]
    if others and not isinstance(args[-1].comma, cst.Comma):
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return [*args, *others]
