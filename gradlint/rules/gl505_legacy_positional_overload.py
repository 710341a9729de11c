from __future__ import annotations


import libcst as cst

from gradlint.analysis import torch_api
from gradlint.fix.builders import indentation, render_at
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_DEPRECATED = "(deprecated in torch 1.5)"
# Tensor method -> the keyword its legacy leading number becomes.
_ALPHA_METHODS = {
    name: "alpha" for name in torch_api.methods("legacy-overload") if torch_api.method(name).value("legacy-overload") == "alpha"
}
_VALUE_METHODS = {
    name: "value" for name in torch_api.methods("legacy-overload") if torch_api.method(name).value("legacy-overload") == "value"
}
# torch function -> (positional arguments of the legacy overload, the keyword of its number).
_FUNCTIONS = {
    name: (int(torch_api.function(name).value("positional")), torch_api.function(name).value("legacy-overload"))
    for name in torch_api.functions("legacy-overload")
}


class LegacyPositionalOverload(Rule):
    """
    ## What it does
    Flags the legacy overloads that take the scaling number first, positionally:
    `p.data.add_(-lr, p.grad.data)` (also `sub_`, `add`, `sub`), `p.addcmul_(value, t1, t2)`
    (also `addcdiv_`, `addcmul`, `addcdiv`), and `torch.add(x, number, y)` (also `torch.sub`,
    `torch.addcmul(t, value, t1, t2)`, `torch.addcdiv`). In custom optimizers this covers the
    state's tensors too: `exp_avg.mul_(beta1).add_(1 - beta1, grad)` and
    `exp_avg_sq.mul_(beta2).addcmul_(1 - beta2, grad, grad)` where `exp_avg` is read from
    `self.state[p]` of an `Optimizer` subclass whose methods store tensors under that entry.

    ## Why is this bad?
    Since torch 1.5 the scale is a keyword (`add_(other, *, alpha=1)`,
    `addcmul_(t1, t2, *, value=1)`); the number-first forms survive as deprecated overloads. In
    torch 2.13 `add_` warns on every call ("This overload of add_ is deprecated"), the others
    are silent but still deprecated, and the number-first order reads as if the number were added.

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
    Safe: the number moves to `alpha=` / `value=` after the tensors. Measured under torch 2.13 for
    `add_/sub_/add/sub`, `addcmul_/addcdiv_/addcmul/addcdiv` and `torch.add/sub/addcmul/addcdiv`
    with a float, an int, a NumPy scalar and a 0-dim tensor as the number: the results are bitwise
    equal (values, dtype, shape, `requires_grad`), and where the legacy form raises (a tensor with
    more than one element or with a gradient as the number, a boolean `alpha`, a float `alpha` on
    an integer tensor) the rewrite raises the same exception type. The method forms are unsafe
    where the receiver is a tensor only by its name in a file that never imports torch: other
    libraries have an `add(scale, other)` of their own (sympy's quaternions).

    ## Known limits
    With the keyword-only scale of the current signatures, a call with one positional argument
    too many can only select the legacy overload, so the rewrite holds whatever the tensors are
    (measured: numbers there make both forms compute or both raise). What gradlint needs evidence
    for is the receiver: the method forms are reported only when it is evidently a tensor (a
    parameter of `model.parameters()`, `.data`, `.grad`, a tensor-valued name), and only when
    the leading argument is evidently a number: a numeric literal, an arithmetic expression of
    literals and names, or a name, attribute or subscript (`lr`, `self.lr`, `group["lr"]`) that
    is not evidently a tensor. An entry of an optimizer's state counts as a tensor only when the
    class's own methods store it (through `state = self.state[p]`) and every value they store
    there is a tensor: an entry stored only by a base class (`Adagrad`'s `"sum"`), or stored as
    `self.state[p]["k"] = v`, is not known. A scale computed from such a tensor (a step counter
    stored as `torch.zeros(1)`, `step_size = lr / (1 - beta1 ** state["step"][0])`) is a tensor,
    not evidently a number, so that call is left alone. `counter.add(1, name)` on an object of unknown type is left alone,
    as are calls with `*args`.
    """

    code = "GL505"
    name = "legacy-positional-overload"
    summary = "`x.add_(number, tensor)` / `x.addcmul_(value, t1, t2)`: legacy number-first overloads"
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
        # A tensor only by its name in a file that never imports torch (sympy has an `add(scale, q)`
        # of its own): the fix is unsafe.
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
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        if qualified in _FUNCTIONS:
            count, keyword = _FUNCTIONS[qualified]
            method = qualified.split(".", 1)[1]
        elif qualified is None and type(node.func) is cst.Attribute:
            method = node.func.attr.value
            keyword = _ALPHA_METHODS.get(method) or _VALUE_METHODS.get(method)
            count = 2 if method in _ALPHA_METHODS else 3
        else:
            return
        if keyword is None or any(arg.star for arg in node.args):
            return
        positional = [arg for arg in node.args if arg.keyword is None]
        if len(positional) != count or any(arg.keyword is not None and arg.keyword.value == keyword for arg in node.args):
            return
        if qualified in _FUNCTIONS:
            self._check(node, positional[0:1], positional[1], positional[2:], keyword, method)
        elif self._tensor(node.func.value):
            self._check(node, [], positional[0], positional[1:], keyword, method)

    def _check(self, node: cst.Call, leading: list[cst.Arg], number: cst.Arg, tensors: list[cst.Arg], keyword: str, method: str) -> None:
        if not self._number(number.value):
            return
        replacement = node.with_changes(args=_moved(node, leading, number, tensors, keyword))
        shown = snippet(self.context.code_for(replacement), 60, f"{keyword}=")
        # `torch.add(...)` is torch's; a method's receiver may be another library's (sympy, numpy.ma).
        make = self.safe_fix if leading or self._known_tensor(node.func.value) else self.unsafe_fix
        fix = make(
            f"Replace with `{shown}`", Replace(node, render_at(self.context, replacement, indentation(self.context, self.context.stack)))
        )
        self.report(node, f"legacy overload `{_legacy_signature(method, keyword)}` {_DEPRECATED}; use `{shown}`", fix)

    def _tensor(self, node: cst.BaseExpression) -> bool:
        return self.context.is_tensor(_without_data(node))

    def _known_tensor(self, node: cst.BaseExpression) -> bool:
        return self.context.is_known_tensor(_without_data(node))

    def _number(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, (cst.Integer, cst.Float)):
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


def _moved(node: cst.Call, leading: list[cst.Arg], number: cst.Arg, tensors: list[cst.Arg], keyword: str) -> list[cst.Arg]:
    """The arguments with the number moved behind the tensors as `keyword=`, commas kept in place."""
    positional = [*leading, number, *tensors]
    reordered = [*leading, *tensors]
    args = [arg.with_changes(comma=positional[index].comma) for index, arg in enumerate(reordered)]
    moved = cst.Arg(
        value=number.value,
        keyword=cst.Name(keyword),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
        comma=positional[-1].comma,
    )
    others = [arg for arg in node.args if arg.keyword is not None]
    if others and not isinstance(moved.comma, cst.Comma):
        moved = moved.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return [*args, moved, *others]


def _legacy_signature(method: str, keyword: str) -> str:
    if keyword == "alpha":
        return f"{method}(Number alpha, Tensor other)"
    return f"{method}(Number value, Tensor tensor1, Tensor tensor2)"
