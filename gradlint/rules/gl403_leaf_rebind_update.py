from __future__ import annotations

from functools import cached_property
from typing import Callable, Optional

import libcst as cst

from gradlint.analysis.data_attr import data_nodes
from gradlint.analysis.scopes import entry_key
from gradlint.analysis.syntax import dotted_name, is_bool_literal, iter_statements, suite_statements
from gradlint.analysis.tree import descendants
from gradlint.fix.builders import StripData, enclosing_line, indentation, render_at, wrap_in_no_grad
from gradlint.fix.plan import Applicability, Availability, ReplaceLines
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{name} = {name} - ...{name}.grad` rebinds `{name}` to a new tensor that is not a leaf (or "
    "does not require grad): its `.grad` stays None and the next step fails; update in place under "
    "`torch.no_grad()`"
)


class LeafRebindUpdate(Rule):
    """
    ## What it does
    Flags a manual gradient step that rebinds the parameter instead of updating it in place:
    `w = w - lr * w.grad`, `w = w.sub(lr * w.grad)`, with or without `torch.no_grad()`; also for
    parameters kept as attributes (`self.w = self.w - lr * self.w.grad`), dict entries
    (`params["w"]`) or rebound together (`w, b = w - lr * w.grad, b - lr * b.grad`).

    ## Why is this bad?
    The new `w` is a different tensor. Outside no_grad it is a non-leaf: in torch 2.13 reading
    `w.grad` at the next step warns "The .grad attribute of a Tensor that is not a leaf Tensor is
    being accessed" and the update fails with `TypeError: unsupported operand type(s) for *:
    'float' and 'NoneType'`. Inside no_grad it no longer requires grad, and the next `backward()`
    raises "element 0 of tensors does not require grad". Modules and optimizers also keep pointing
    at the old tensor.

    ## Example
    ```python
    w = w - lr * w.grad
    ```

    ## Use instead
    ```python
    with torch.no_grad():
        w -= lr * w.grad
    ```

    ## Fix safety
    Unsafe: the in-place form keeps `w` the same leaf object, which changes behaviour (that is
    the point). Remember to reset `w.grad` each step (see GL201).

    ## Known limits
    Only the direct form `name = name -/+ ...name.grad...` and `name.sub/add(...)` are recognised.
    Attributes, entries and tuple rebinds are checked only in files that import torch; a tuple
    rebind gets no fix.
    """

    code = "GL403"
    name = "leaf-rebind-update"
    summary = "manual update rebinds the parameter"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = (".grad",)

    VALID = (
        """
        import torch
        for _ in range(steps):
            x_adv.requires_grad_(True)
            loss = criterion(model(x_adv), y)
            loss.backward()
            with torch.no_grad():
                x_adv = x_adv + alpha * x_adv.grad.sign()
        """,
        """
        import torch
        with torch.no_grad():
            w -= lr * w.grad
        """,
        "w = w - lr * v.grad\n",
        "g = w.grad * 2\n",
        "m = beta * m + (1 - beta) * w.grad\n",
        # Attributes and entries are checked only where torch is imported (numpy autograd look-alikes).
        "self.w = self.w - lr * self.w.grad\n",
        """
        import torch
        class Attack:
            def step(self):
                for _ in range(self.steps):
                    self.x = self.x + self.alpha * self.x.grad.sign()
                    self.x.requires_grad_()
        """,
        """
        import torch
        with torch.no_grad():
            self.w -= lr * self.w.grad
            params["w"] -= lr * params["w"].grad
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            class LinearModel:
                def update(self, lr):
                    with torch.no_grad():
                        self.w = self.w - lr * self.w.grad
            """,
            """
            import torch
            class LinearModel:
                def update(self, lr):
                    with torch.no_grad():
                        self.w -= lr * self.w.grad
            """,
            line=5,
            column=13,
            message="`self.w = self.w - ...self.w.grad` rebinds `self.w` to a new tensor",
        ),
        Invalid(
            """
            import torch
            params["w"] = params["w"] - lr * params["w"].grad
            """,
            """
            import torch
            with torch.no_grad():
                params["w"] -= lr * params["w"].grad
            """,
            line=2,
            column=1,
            message="rebinds `params['w']` to a new tensor",
        ),
        Invalid(
            """
            import torch
            w, b = w - lr * w.grad, b - lr * b.grad
            """,
            fixed=None,
            line=2,
            column=1,
            message="`w = w - ...w.grad` rebinds `w` to a new tensor",
        ),
        Invalid(
            """
            import torch
            w = w - lr * w.grad
            """,
            """
            import torch
            with torch.no_grad():
                w -= lr * w.grad
            """,
            line=2,
            column=1,
            message="`w = w - ...w.grad` rebinds `w` to a new tensor that is not",
            fix_title="Update in place under `torch.no_grad()`",
        ),
        Invalid(
            """
            import torch
            with torch.no_grad():
                W = W - lr * W.grad.data
            """,
            """
            import torch
            with torch.no_grad():
                W -= lr * W.grad
            """,
            line=3,
            column=5,
            message="`W = W - ...W.grad` rebinds `W` to a new tensor that is not",
            fix_title="Update in place under `torch.no_grad()`",
        ),
        Invalid(
            """
            import torch
            def step(w, lr):
                w = w.sub(lr * w.grad)
                return w
            """,
            """
            import torch
            def step(w, lr):
                with torch.no_grad():
                    w -= lr * w.grad
                return w
            """,
            line=3,
            column=5,
            message="`w = w - ...w.grad` rebinds `w` to a new tensor that is not",
            fix_title="Update in place under `torch.no_grad()`",
        ),
        Invalid(  # inside a `match` (whose `case` clauses it indents itself)
            """
            import torch
            match step:
                case 0:
                    w = w - lr * w.grad
            """,
            """
            import torch
            match step:
                case 0:
                    with torch.no_grad():
                        w -= lr * w.grad
            """,
            line=4,
            column=9,
            message="`w = w - ...w.grad` rebinds `w` to a new tensor that is not",
            fix_title="Update in place under `torch.no_grad()`",
        ),
        Invalid(  # the update shares its line: reported, no fix
            """
            for x in data:
                w = w - lr * w.grad; steps += 1
            """,
            line=2,
            column=5,
            message="`w = w - ...w.grad` rebinds `w` to a new tensor",
        ),
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        if isinstance(target, cst.Tuple) and isinstance(node.value, cst.Tuple):
            self._check_unpacked(node, target, node.value)
            return
        if not self._is_parameter_target(target):
            return
        name = self._key(target)
        update = _update_of(node.value, name, self._key)
        if update is not None and not self._re_enabled_in_loop(name):
            self.report(node, _MESSAGE.format(name=name), self._fix(node, target, *update))

    def _check_unpacked(self, node: cst.Assign, targets: cst.Tuple, values: cst.Tuple) -> None:
        """`w, b = w - lr * w.grad, b - lr * b.grad`: each parameter rebound at once (no fix)."""
        if len(targets.elements) != len(values.elements) or not self._torch_file:
            return
        for target, value in zip(targets.elements, values.elements):
            if isinstance(target, cst.StarredElement) or not isinstance(target.value, (cst.Name, cst.Attribute)):
                continue
            name = self._key(target.value)
            if _update_of(value.value, name, self._key) is not None and not self._re_enabled_in_loop(name):
                self.report(node, _MESSAGE.format(name=name))
                return

    def _is_parameter_target(self, target: cst.BaseExpression) -> bool:
        """A name, or (in a file that imports torch) an attribute `self.w` or entry `params["w"]`."""
        if isinstance(target, cst.Name):
            return True
        if isinstance(target, cst.Attribute):
            return dotted_name(target) is not None and self._torch_file
        return isinstance(target, cst.Subscript) and entry_key(target) is not None and self._torch_file

    @cached_property
    def _torch_file(self) -> bool:
        return any(True for _ in self.context.imports.imports_of("torch"))

    def _key(self, node: cst.CSTNode) -> Optional[str]:
        """How a parameter reference reads: `w`, `self.w`, `params['w']` (None for anything else)."""
        if isinstance(node, (cst.Name, cst.Attribute)):
            return dotted_name(node)
        entry = entry_key(node)
        return None if entry is None else f"{entry[0]}[{entry[1]!r}]"

    def _re_enabled_in_loop(self, name: str) -> bool:
        """PGD-style loops make the new tensor a leaf again: `x.requires_grad_()` / `x.requires_grad = True`."""
        loop = next((n for n in reversed(self.context.stack) if isinstance(n, (cst.For, cst.While, cst.FunctionDef))), None)
        if not isinstance(loop, (cst.For, cst.While)):
            return False
        for statement in iter_statements(suite_statements(loop.body)):
            if isinstance(statement, cst.Expr):
                call = statement.value
                if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "requires_grad_":
                    if self._key(call.func.value) == name and not (call.args and is_bool_literal(call.args[0].value, False)):
                        return True
            elif isinstance(statement, cst.Assign) and is_bool_literal(statement.value, True):
                if any(
                    isinstance(t.target, cst.Attribute) and t.target.attr.value == "requires_grad" and self._key(t.target.value) == name
                    for t in statement.targets
                ):
                    return True
        return False

    def _fix(self, node: cst.Assign, target: cst.BaseAssignTargetExpression, operator: cst.BaseAugOp, amount: cst.BaseExpression):
        found = enclosing_line(self.context.stack)
        if found is None or len(found[0].body) != 1:
            return None
        line, index = found
        amount = amount.visit(StripData({id(n) for n in data_nodes(self.context, amount)}))
        inplace = cst.AugAssign(target=target, operator=operator, value=amount)
        render = lambda statement: statement.with_changes(body=[inplace])  # noqa: E731
        outer = self.context.stack[:index]
        message = "Update in place under `torch.no_grad()`"
        if self.context.without_grad():
            text = render_at(self.context, render(line).with_changes(leading_lines=()), indentation(self.context, outer))
            return self.unsafe_fix(message, ReplaceLines(line, line, text))
        changes = wrap_in_no_grad(self.context, [line], outer, render)
        return None if changes is None else self.unsafe_fix(message, *changes)


def _update_of(
    value: cst.BaseExpression, name: Optional[str], key: Callable[[cst.CSTNode], Optional[str]] = dotted_name
) -> Optional[tuple[cst.BaseAugOp, cst.BaseExpression]]:
    """(`-=`/`+=`, amount) for `name - amount` / `name.sub(amount)` where amount uses `name.grad`."""
    if name is None:
        return None
    if isinstance(value, cst.BinaryOperation) and key(value.left) == name and not value.lpar:
        operator = {cst.Subtract: cst.SubtractAssign, cst.Add: cst.AddAssign}.get(type(value.operator))
        if operator is not None and _uses_grad_of(value.right, name, key):
            return operator(), value.right
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and key(value.func.value) == name:
        operator = {"sub": cst.SubtractAssign, "add": cst.AddAssign}.get(value.func.attr.value)
        if (
            operator is not None
            and len(value.args) == 1
            and value.args[0].keyword is None
            and _uses_grad_of(value.args[0].value, name, key)
        ):
            return operator(), value.args[0].value
    return None


def _uses_grad_of(node: cst.CSTNode, name: str, key: Callable[[cst.CSTNode], Optional[str]]) -> bool:
    return any(
        isinstance(current, cst.Attribute) and current.attr.value == "grad" and key(current.value) == name for current in descendants(node)
    )
