from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.values.record import Certainty, Dim
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{call}` concatenates 0-dim tensors: in PyTorch 0.3 a loss or a full reduction was a one-element "
    '1-D tensor and this gave shape (n,); torch 2.x raises "zero-dimensional tensor cannot be '
    'concatenated"; `torch.stack` gives the 0.3 result'
)
# Uses of the gathered list that neither change its elements nor let it escape.
_READING_BUILTINS = frozenset({"len"})


class CatOfZeroDim(Rule):
    """
    ## What it does
    Flags `torch.cat(losses)` where every element of `losses` is provably a 0-dim tensor: a list
    written out, or a list started empty and filled by `losses.append(...)` with a loss function's
    result or a full reduction (`F.smooth_l1_loss(value, target)`, `torch.mean(x)`), the
    REINFORCE / actor-critic pattern of 2017-18 (`torch.cat(value_losses).sum()`).

    ## Why is this bad?
    In PyTorch 0.3 a loss or a full reduction was a one-element 1-D tensor, so `torch.cat` of
    such results gave a tensor of shape (n,). Since 0.4 they are 0-dim, and torch 2.13 raises
    `RuntimeError: zero-dimensional tensor (at position 0) cannot be concatenated`: the script
    stops at its first update.

    ## Example
    ```python
    import torch
    import torch.nn.functional as F

    value_losses = []
    for value, r in zip(values, returns):
        value_losses.append(F.smooth_l1_loss(value, r))
    loss = torch.cat(value_losses).sum()
    ```

    ## Use instead
    ```python
    import torch
    import torch.nn.functional as F

    value_losses = []
    for value, r in zip(values, returns):
        value_losses.append(F.smooth_l1_loss(value, r))
    loss = torch.stack(value_losses).sum()
    ```

    ## Fix safety
    `torch.cat(xs)` becomes `torch.stack(xs)`, a safe fix: the original raises for every list
    of 0-dim tensors that reaches it, and `torch.stack` of 0-dim tensors gives the tensor of
    shape (n,) that 0.3's `torch.cat` gave, with the same values bitwise and the same gradients.
    An empty list raises in both.

    ## Known limits
    Reported only when every element is evidently 0-dim where it is made (a `torch.nn.functional`
    loss keeping its reduction, a full reduction by a torch function), directly or through a name
    bound only to such values, and the list is used for nothing but `append`, `len` and torch
    calls. Elements of shape (1,) (`-log_prob * reward` of a sampled action) concatenate fine and
    are left alone; a loss computed by a criterion object or a helper, a `dim=` argument, or a
    list handed elsewhere or extended keeps the rule silent.
    """

    code = "GL515"
    name = "cat-of-zero-dim"
    summary = "`torch.cat` of 0-dim losses or reductions: 0.3 concatenated one-element tensors, torch 2.x raises"
    severity = Severity.ERROR
    migration = "api"
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("cat",)

    VALID = (
        """
        import torch
        policy_losses = []
        for log_prob, reward in zip(log_probs, rewards):
            policy_losses.append(-log_prob * reward)
        loss = torch.cat(policy_losses).sum()
        """,
        """
        import torch
        import torch.nn.functional as F
        losses = []
        for out, y in batches:
            losses.append(F.mse_loss(out, y, reduction="none"))
        total = torch.cat(losses).mean()
        """,
        """
        import torch
        import torch.nn.functional as F
        losses = []
        for out, y in batches:
            losses.append(F.mse_loss(out, y))
        record(losses)
        total = torch.cat(losses)
        """,
        """
        import torch
        losses = []
        for out, y in batches:
            losses.append(criterion(out, y))
        total = torch.cat(losses)
        """,
        """
        import torch
        features = torch.cat([x, y], 1)
        pairs = torch.cat([x.sum(), y.sum()], dim=0)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            value_losses = []
            for value, r in zip(values, returns):
                value_losses.append(F.smooth_l1_loss(value, r))
            loss = torch.cat(value_losses).sum()
            """,
            """
            import torch
            import torch.nn.functional as F
            value_losses = []
            for value, r in zip(values, returns):
                value_losses.append(F.smooth_l1_loss(value, r))
            loss = torch.stack(value_losses).sum()
            """,
            line=6,
            column=8,
            message="concatenates 0-dim tensors",
            fix_title="Replace with `torch.stack(value_losses)`",
        ),
        Invalid(
            """
            import torch
            def gather(x, y):
                first = torch.mean(x)
                both = torch.cat([first, torch.sum(y)])
                return both
            """,
            """
            import torch
            def gather(x, y):
                first = torch.mean(x)
                both = torch.stack([first, torch.sum(y)])
                return both
            """,
            line=4,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.qualified_name(node.func) != "torch.cat" or not isinstance(node.func, cst.Attribute):
            return
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return
        elements = self._elements(node.args[0].value, node)
        if not elements or not all(self._zero_dim_where_made(element) for element in elements):
            return
        stacked = node.with_changes(func=node.func.with_changes(attr=cst.Name("stack")))
        fix = self.safe_fix(f"Replace with `{snippet(self.context.code_for(stacked), 60)}`", Replace(node.func.attr, cst.Name("stack")))
        self.report(node, _MESSAGE.format(call=snippet(self.context.code_for(node), 60)), fix)

    def _elements(self, tensors: cst.BaseExpression, call: cst.Call) -> Optional[list[cst.BaseExpression]]:
        """The elements of the list `tensors` written out, or appended to a list started empty."""
        if isinstance(tensors, (cst.List, cst.Tuple)):
            if any(not isinstance(element, cst.Element) for element in tensors.elements):
                return None
            return [element.value for element in tensors.elements]
        if not isinstance(tensors, cst.Name):
            return None
        scope = self.context.scope()
        bindings = self.context.scopes.values_of(tensors.value, scope)
        if not bindings or not all(isinstance(value, cst.List) and not value.elements for value in bindings):
            return None
        return self._appended(tensors.value, scope, call)

    def _appended(self, name: str, scope, call: cst.Call) -> Optional[list[cst.BaseExpression]]:
        """What `name.append(x)` adds, when every other mention of `name` binds it or only reads it
        (`len(name)`, a torch call such as this one); None when the list is used any other way."""
        uses = self.context.scope_uses.of(scope)
        appended: list[cst.BaseExpression] = []
        for occurrence in uses.occurrences(name):
            parent = uses.parent(occurrence)
            if isinstance(parent, cst.AssignTarget):
                continue
            if isinstance(parent, cst.Arg) and self._reads_only(uses.parent(parent), call):
                continue
            if isinstance(parent, cst.Attribute) and parent.attr.value == "append":
                append = uses.parent(parent)
                if isinstance(append, cst.Call) and append.func is parent and len(append.args) == 1 and append.args[0].keyword is None:
                    appended.append(append.args[0].value)
                    continue
            return None
        return appended

    def _reads_only(self, user: Optional[cst.CSTNode], call: cst.Call) -> bool:
        if user is call:
            return True
        if not isinstance(user, cst.Call):
            return False
        if isinstance(user.func, cst.Name) and user.func.value in _READING_BUILTINS:
            return True
        return self.context.qualified_name(user.func) in ("torch.cat", "torch.stack")

    def _zero_dim_where_made(self, element: cst.BaseExpression) -> bool:
        """0-dim by construction: the element itself, or every value its name is bound to."""
        scope = self.context.scope()
        if isinstance(element, cst.Name):
            values = self.context.scopes.values_of(element.value, scope)
            return bool(values) and all(self._constructed_zero_dim(value) for value in values)
        return self._constructed_zero_dim(element)

    def _constructed_zero_dim(self, node: cst.BaseExpression) -> bool:
        record = self.context.value(node)
        return record.is_tensor_like and record.certainty is Certainty.CONSTRUCTED and record.dim is Dim.ZERO
