from __future__ import annotations

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.syntax import keyword_arg, method_call_on, positional_args
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    '`{receiver}` carries autograd history: `{call}` raises "Can\'t call numpy() on Tensor that requires grad"; call `.detach()` first'
)
NUMPY_CONSTRUCTORS = frozenset({"numpy.array", "numpy.asarray"})
# Methods that keep the tensor (and its history) between the value and `.numpy()`.
CHAIN_METHODS = torch_api.methods("same-values")


class NumpyOnGradTensor(Rule):
    """
    ## What it does
    Flags `.numpy()`, `np.array(t)` and `np.asarray(t)` on a tensor that carries autograd history
    (a model output, a loss, a result of operations on parameters) when no `.detach()` or `.data`
    comes earlier in the chain and the code does not run under `torch.no_grad()`.

    ## Why is this bad?
    In torch 2.13 each form raises `RuntimeError: Can't call numpy() on Tensor that requires grad.
    Use tensor.detach().numpy() instead.` (`np.array(t)` also emits a numpy DeprecationWarning
    first). The crash typically hides in logging or metric code that only runs every N steps.

    ## Example
    ```python
    out = model(x)
    preds = out.cpu().numpy()
    ```

    ## Use instead
    ```python
    out = model(x)
    preds = out.detach().cpu().numpy()
    ```

    ## Fix safety
    Safe: `.detach()` is inserted before `.cpu()` / `.numpy()` (or around the argument of
    `np.array`). `.detach().cpu().numpy()` gives exactly the values the original would return under
    `no_grad`, and shares memory with a CPU tensor just like `.numpy()`. Unsafe in a file that
    never imports torch, where a model's output is one only by its names and may be another
    library's array, without `.detach()`.

    ## Known limits
    Only values evidently built with grad in the same function are checked (entries of a dict
    literal and members of a tuple or list literal bound there included). A function whose name
    is called inside a `no_grad` block in the same file is assumed to run without grad. Files that
    import TensorFlow, Keras or JAX are skipped, since their tensors have `.numpy()` too.
    """

    code = "GL404"
    name = "numpy-on-grad-tensor"
    summary = "`.numpy()` on a tensor that requires grad"
    severity = Severity.ERROR
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = ("numpy", "np.")

    VALID = (
        """
        out = model(x)
        preds = out.detach().cpu().numpy()
        """,
        """
        out = model(x)
        preds = out.data.cpu().numpy()
        """,
        """
        import torch
        with torch.no_grad():
            out = model(x)
        preds = out.numpy()
        """,
        """
        import torch
        out = model(x)
        with torch.no_grad():
            preds = out.numpy()
        """,
        """
        out = model(x)
        preds = out.numpy(force=True)
        """,
        """
        out = model(x)
        preds = out.argmax(1).numpy()
        """,
        """
        import tensorflow as tf
        out = model(x)
        preds = out.numpy()
        """,
        """
        loss = criterion(model(x), y)
        value = loss.item()
        """,
        """
        import numpy as np
        arr = np.array(values)
        """,
        """
        import torch
        def predict(x):
            out = model(x)
            return out.numpy()
        with torch.no_grad():
            predict(batch)
        """,
        # Entries without history, or replaced by a detached value.
        """
        import torch
        def log(x):
            params = {"w": torch.randn(3, requires_grad=True), "mean": torch.zeros(3)}
            params["w"] = params["w"].detach()
            pair = (params["w"], params["mean"])
            mean, _ = pair
            return params["w"].numpy(), pair[1].numpy(), mean.numpy()
        """,
    )
    INVALID = (
        # Parameters kept as attributes of a hand-written model.
        Invalid(
            """
            import torch
            class LinearModel:
                def __init__(self):
                    self.w = torch.zeros(3, requires_grad=True)
                def weights(self):
                    return self.w.numpy()
            """,
            """
            import torch
            class LinearModel:
                def __init__(self):
                    self.w = torch.zeros(3, requires_grad=True)
                def weights(self):
                    return self.w.detach().numpy()
            """,
        ),
        # Parameters kept in a dict literal or a tuple.
        Invalid(
            """
            import torch
            def fit():
                params = {"w": torch.zeros(3, requires_grad=True)}
                return params["w"].numpy()
            """,
            """
            import torch
            def fit():
                params = {"w": torch.zeros(3, requires_grad=True)}
                return params["w"].detach().numpy()
            """,
        ),
        Invalid(
            """
            import torch
            def fit():
                pair = (torch.zeros(3, requires_grad=True), torch.zeros(1, requires_grad=True))
                w, b = pair
                return b.numpy()
            """,
            """
            import torch
            def fit():
                pair = (torch.zeros(3, requires_grad=True), torch.zeros(1, requires_grad=True))
                w, b = pair
                return b.detach().numpy()
            """,
        ),
        Invalid(
            """
            out = model(x)
            preds = out.cpu().numpy()
            """,
            """
            out = model(x)
            preds = out.detach().cpu().numpy()
            """,
        ),
        Invalid(
            """
            loss = criterion(model(x), y)
            value = loss.numpy()
            """,
            """
            loss = criterion(model(x), y)
            value = loss.detach().numpy()
            """,
        ),
        Invalid(
            """
            import numpy as np
            out = model(x)
            arr = np.asarray(out)
            """,
            """
            import numpy as np
            out = model(x)
            arr = np.asarray(out.detach())
            """,
        ),
        Invalid(
            """
            import torch
            w = torch.randn(3, requires_grad=True)
            print((w * 2).numpy())
            """,
            """
            import torch
            w = torch.randn(3, requires_grad=True)
            print((w * 2).detach().numpy())
            """,
        ),
        # A model's output only by its names, in a file that never imports torch: the fix is unsafe.
        Invalid(
            """
            def show(x):
                outputs = model(x)
                return outputs.numpy()
            """,
            """
            def show(x):
                outputs = model(x)
                return outputs.detach().numpy()
            """,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.uses_other_tensor_framework:
            return
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "numpy":
            if node.args or keyword_arg(node, "force") is not None:
                return  # `numpy(force=True)` detaches itself
            self._check(func.value, node, _detach_point(func.value))
        elif self.context.qualified_name(func) in NUMPY_CONSTRUCTORS:
            args = positional_args(node)
            if args:
                self._check(args[0].value, node, args[0].value)

    def _check(self, value: cst.BaseExpression, call: cst.Call, detach_point: cst.BaseExpression) -> None:
        if not self.context.carries_grad(value) or self.context.without_grad() or self._caller_disables_grad():
            return
        # A graph is evidence of a tensor, unless the file is not torch code or the value is a number.
        make = self.unsafe_fix if self.context.contradicts_tensor(detach_point) else self.safe_fix
        fix = make("Insert `.detach()`", Replace(detach_point, method_call_on(detach_point, "detach")))
        receiver = self.context.code_for(value)
        call_text = self.context.code_for(call)
        self.report(call, _MESSAGE.format(receiver=snippet(receiver, 40, "the value"), call=snippet(call_text, 40, "the value")), fix)

    def _caller_disables_grad(self) -> bool:
        function = self.context.enclosing_function()
        return function is not None and function.name.value in self.context.functions_called_without_grad


def _detach_point(receiver: cst.BaseExpression) -> cst.BaseExpression:
    """Where `.detach()` goes: before the first `.cpu()` of the chain, else right before `.numpy()`."""
    current = receiver
    while isinstance(current, cst.Call) and isinstance(current.func, cst.Attribute) and current.func.attr.value in CHAIN_METHODS:
        if current.func.attr.value == "cpu":
            return current.func.value
        current = current.func.value
    return receiver
