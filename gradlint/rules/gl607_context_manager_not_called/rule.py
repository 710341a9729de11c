from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl607_context_manager_not_called.context_managers import (
    ContextManagerClass,
    context_manager_class,
    discarded_context_manager,
)


class ContextManagerNotCalled(Rule):
    """
    ## What it does
    Flags torch's grad-mode and autocast context managers (`torch.no_grad`, `torch.enable_grad`,
    `torch.inference_mode`, `torch.set_grad_enabled`, `torch.autocast`, `torch.amp.autocast`,
    `torch.cuda.amp.autocast`, `torch.cpu.amp.autocast`, under any import form) that never take
    effect: named in a `with` without the call (`with torch.no_grad:`), used as a decorator
    without the call where torch does not accept that (`@torch.autocast`), or created by a
    statement of their own and dropped (`torch.no_grad()` on its own line).

    ## Why is this bad?
    Measured under torch 2.13 (Python 3.11): `with torch.no_grad:` and the same `with` over every
    class above raise `TypeError: 'type' object does not support the context manager protocol`
    (Python 3.10 and earlier: `AttributeError: __enter__`), so the block never runs. As bare
    decorators, `@torch.autocast` and `@torch.amp.autocast` raise `ValueError` ("Expected
    `device_type` of type `str`") when the function is defined, `@torch.set_grad_enabled` raises
    `TypeError`, and `@torch.cuda.amp.autocast` / `@torch.cpu.amp.autocast` define the function
    without error but make every call of it raise `TypeError` ("autocast()(func) requires a
    callable"). A statement `torch.no_grad()` (or `torch.inference_mode()`, `torch.autocast("cpu")`)
    creates a context manager and drops it: silently nothing happens, `torch.is_grad_enabled()`
    stays `True` and the code after it keeps building graphs.
    `@torch.no_grad`, `@torch.enable_grad` and `@torch.inference_mode` without a call work (torch
    2.1 and later) and are not reported.

    ## Example
    ```python
    import torch

    with torch.no_grad:
        prediction = model(x)

    @torch.cuda.amp.autocast
    def forward(x):
        return model(x)

    torch.no_grad()
    evaluation = model(x)
    ```

    ## Use instead
    ```python
    import torch

    with torch.no_grad():
        prediction = model(x)

    @torch.cuda.amp.autocast()
    def forward(x):
        return model(x)

    with torch.no_grad():
        evaluation = model(x)
    ```

    ## Fix safety
    Safe where the call needs no argument (`no_grad`, `enable_grad`, `inference_mode`,
    `torch.cuda.amp.autocast`, `torch.cpu.amp.autocast`): the fix adds `()`, which is the only
    reading of the code, and code that raised before now runs as written. `torch.autocast` needs
    its `device_type` and `set_grad_enabled` its mode, which gradlint cannot choose: no fix. A
    context manager created alone on a line gets no fix either: which statements it was meant to
    cover is not written anywhere.

    ## Known limits
    A context manager class passed around under another name (`ctx = torch.no_grad`, then `with
    ctx:`) is not followed. A project's own wrappers (`@smart_inference_mode`) are not checked.
    """

    code = "GL607"
    name = "context-manager-not-called"
    summary = "a grad-mode or autocast context manager is never entered"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "autocast")

    VALID = (
        """
        import torch
        with torch.no_grad():
            y = model(x)
        """,
        """
        import torch
        @torch.no_grad
        def evaluate(model, x):
            return model(x)
        @torch.inference_mode
        def predict(model, x):
            return model(x)
        @torch.enable_grad
        def attack(model, x):
            return model(x)
        """,
        """
        import torch
        torch.set_grad_enabled(False)
        y = model(x)
        """,
        """
        import torch
        with torch.autocast("cuda", dtype=torch.bfloat16), torch.set_grad_enabled(training):
            y = model(x)
        """,
        """
        import contextlib
        import torch
        context = torch.no_grad if frozen else contextlib.nullcontext
        with context():
            y = model(x)
        """,
        """
        import torch
        @torch.cuda.amp.autocast()
        def forward(x):
            return model(x)
        """,
        """
        import tensorflow as tf
        with tf.GradientTape:
            pass
        no_grad = contextlib.nullcontext
        with no_grad:
            y = model(x)
        """,
        """
        from torch import no_grad
        def no_grad_like():
            pass
        with no_grad():
            y = model(x)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            with torch.no_grad:
                y = model(x)
            """,
            """
            import torch
            with torch.no_grad():
                y = model(x)
            """,
            line=2,
            column=6,
            message="`with torch.no_grad:` raises TypeError",
            fix_title="Call it: `torch.no_grad()`",
        ),
        Invalid(
            """
            from torch import inference_mode
            with open(path) as f, inference_mode as mode:
                y = model(f)
            """,
            """
            from torch import inference_mode
            with open(path) as f, inference_mode() as mode:
                y = model(f)
            """,
            line=2,
            column=23,
            message="`with inference_mode:` raises TypeError",
        ),
        Invalid(
            """
            import torch
            with torch.autocast:
                y = model(x)
            """,
            line=2,
            column=6,
            message="`with torch.autocast:` raises TypeError",
        ),
        Invalid(
            """
            import torch
            with torch.set_grad_enabled:
                y = model(x)
            """,
            line=2,
            column=6,
            message="`with torch.set_grad_enabled:` raises TypeError",
        ),
        Invalid(
            """
            from torch.cuda.amp import autocast
            with autocast:
                y = model(x)
            @autocast
            def forward(x):
                return model(x)
            """,
            """
            from torch.cuda.amp import autocast
            with autocast():
                y = model(x)
            @autocast()
            def forward(x):
                return model(x)
            """,
        ),
        Invalid(
            """
            import torch
            @torch.autocast
            def forward(x):
                return model(x)
            """,
            line=2,
            column=2,
            message="`@torch.autocast` without a call raises ValueError when the function is defined",
        ),
        Invalid(
            """
            import torch
            @torch.cpu.amp.autocast
            def forward(x):
                return model(x)
            """,
            """
            import torch
            @torch.cpu.amp.autocast()
            def forward(x):
                return model(x)
            """,
            line=2,
            column=2,
            message="raises TypeError at every call of the function",
            fix_title="Call it: `torch.cpu.amp.autocast()`",
        ),
        Invalid(
            """
            import torch
            def evaluate(model, x):
                torch.no_grad()
                return model(x)
            """,
            line=3,
            column=5,
            message="`torch.no_grad()` on its own creates a context manager and drops it",
        ),
        Invalid(
            """
            import torch
            torch.autocast("cuda")
            y = model(x)
            """,
            line=2,
            column=1,
            message="autocast stays off",
        ),
    )

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            found = context_manager_class(item.item, self.context.imports)
            if found is not None:
                written = self._written(item.item)
                self.report(
                    item.item,
                    f"`with {written}:` raises TypeError (a class, not a context manager): the block never runs; call it: `{_called(written, found)}`",
                    self._fix(item.item, found),
                )

    def visit_Decorator(self, node: cst.Decorator) -> None:
        found = context_manager_class(node.decorator, self.context.imports)
        if found is not None and found.bare_decorator_error is not None:
            written = self._written(node.decorator)
            self.report(
                node.decorator,
                f"`@{written}` without a call {found.bare_decorator_error}; call it: `@{_called(written, found)}`",
                self._fix(node.decorator, found),
            )

    def visit_Expr(self, node: cst.Expr) -> None:
        found = discarded_context_manager(node, self.context.imports)
        if found is None:
            return
        value = node.value
        named = self._written(value.func if isinstance(value, cst.Call) else value)
        effect = "gradients stay as they were" if found.grad_mode else "autocast stays off"
        self.report(
            value,
            f"`{snippet(self.context.code_for(value).strip(), 40)}` on its own creates a context manager and drops it: "
            f"{effect}; use `with {_called(named, found)}:` around the code it should cover",
        )

    def _fix(self, node: cst.BaseExpression, found: ContextManagerClass) -> Optional[FixPlan]:
        if not found.callable_without_arguments:
            return None
        written = self._written(node)
        return self.safe_fix(f"Call it: `{written}()`", Replace(node, f"{written}()"))

    def _written(self, node: cst.BaseExpression) -> str:
        return self.context.code_for(node.with_changes(lpar=[], rpar=[]))


def _called(written: str, found: ContextManagerClass) -> str:
    """`torch.no_grad()`, or `torch.autocast(...)` where the call needs arguments."""
    return f"{written}()" if found.callable_without_arguments else f"{written}(...)"
