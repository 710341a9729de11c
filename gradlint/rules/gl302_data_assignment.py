from __future__ import annotations

import libcst as cst

from gradlint.analysis.data_attr import data_assignment, data_nodes, under_no_grad
from gradlint.fixes import StripData, enclosing_line, render_at, indentation, wrap_in_no_grad
from gradlint.rules.base import FIX_UNSAFE, Invalid, ReplaceLines, Rule

_MESSAGE = (
    "Assigning to `.data` swaps the tensor's storage behind autograd (aliases go stale, shape and "
    "dtype checks are skipped); copy in place under `torch.no_grad()`"
)


class DataAssignment(Rule):
    """
    ## What it does
    Flags `x.data = expr` on a tensor.

    ## Why is this bad?
    It rebinds the tensor's storage outside autograd. In torch 2.13 the Parameter object stays
    the same (an optimizer still holds it), but the new storage leaves every alias made earlier
    (`p.detach()`, EMA copies, tied weights) pointing at the old values, and a shape change such as
    `(3,)` -> `(5,)` is accepted silently.

    ## Example
    ```python
    target.weight.data = source.weight.data.clone()
    ```

    ## Use instead
    ```python
    with torch.no_grad():
        target.weight.copy_(source.weight)
    ```

    ## Fix safety
    Unsafe: `with torch.no_grad(): x.copy_(expr)` gives equal values only when `expr` has the same
    shape and dtype as `x` (copy_ broadcasts or casts otherwise), and it keeps aliases in sync,
    which the original did not.

    ## Known limits
    Only evident tensors are flagged (`.weight`, `.bias`, `.grad`, parameters from
    `.parameters()` loops, names bound to torch results). `self.data = ...` in a plain class is
    never flagged.
    """

    code = "GL302"
    name = "data-assignment"
    summary = "assignment to `.data`"
    fix_availability = FIX_UNSAFE
    triggers = (".data",)

    VALID = (
        "self.data = load()\n",
        "dataset.data = dataset.data[:100]\n",
        "import torch\nwith torch.no_grad():\n    m.weight.copy_(w)\n",
    )
    INVALID = (
        Invalid(
            "import torch\ntarget.weight.data = source.weight.data.clone()\n",
            "import torch\nwith torch.no_grad():\n    target.weight.copy_(source.weight.clone())\n",
        ),
        Invalid(
            "import torch\nwith torch.no_grad():\n    for p in model.parameters():\n        p.data = p.data * 0.5\n",
            "import torch\nwith torch.no_grad():\n    for p in model.parameters():\n        p.copy_(p * 0.5)\n",
        ),
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        target = data_assignment(self.context, node)
        if target is not None:
            self.report(node, _MESSAGE, self._fix(node, target))

    def _fix(self, node: cst.Assign, target: cst.Attribute):
        found = enclosing_line(self.context.stack)
        if found is None or len(found[0].body) != 1 or len(node.targets) != 1:
            return None
        line, index = found
        strip = StripData({id(n) for n in data_nodes(self.context, node.value)})
        copy = cst.Expr(
            cst.Call(
                func=cst.Attribute(value=target.value, attr=cst.Name("copy_")),
                args=[cst.Arg(node.value.visit(strip))],
            )
        )
        render = lambda statement: statement.with_changes(body=[copy])  # noqa: E731
        outer = self.context.stack[:index]
        message = "Copy in place under `torch.no_grad()` (same shape and dtype only)"
        if under_no_grad(self.context, self.context.stack[: index + 1]):
            text = render_at(self.context, render(line).with_changes(leading_lines=()), indentation(self.context, outer))
            return self.unsafe_fix(message, ReplaceLines(line, line, text))
        changes = wrap_in_no_grad(self.context, [line], outer, render)
        return None if changes is None else self.unsafe_fix(message, *changes)
