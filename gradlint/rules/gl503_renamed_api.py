from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from gradlint.analysis.imports import uses_outside_imports
from gradlint.fix.builders import torch_alias
from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace
from gradlint.rules.base import Invalid, Rule


@dataclass(frozen=True)
class Renamed:
    """A legacy name whose modern spelling is exactly equivalent."""

    new: str  # the new final name (or `torch.<new>` when `to_torch`)
    version: str  # the torch version that deprecated the legacy name
    to_torch: bool = False  # the replacement lives in `torch`, not beside the legacy name


_INITIALISERS = ("uniform normal constant xavier_uniform xavier_normal kaiming_uniform kaiming_normal orthogonal sparse eye dirac").split()

RENAMED: dict[str, Renamed] = {
    **{f"torch.nn.init.{name}": Renamed(f"{name}_", "0.4") for name in _INITIALISERS},
    "torch.nn.utils.clip_grad_norm": Renamed("clip_grad_norm_", "0.4"),
    "torch.nn.utils.clip_grad.clip_grad_norm": Renamed("clip_grad_norm_", "0.4"),
    "torch.nn.functional.sigmoid": Renamed("sigmoid", "0.4.1", to_torch=True),
    "torch.nn.functional.tanh": Renamed("tanh", "0.4.1", to_torch=True),
    "torch.nn.NLLLoss2d": Renamed("NLLLoss", "0.4"),
    "torch.nn.modules.loss.NLLLoss2d": Renamed("NLLLoss", "0.4"),
    "torch.cuda.memory_cached": Renamed("memory_reserved", "1.4"),
    "torch.cuda.max_memory_cached": Renamed("max_memory_reserved", "1.4"),
    "torch.cuda.memory.memory_cached": Renamed("memory_reserved", "1.4"),
    "torch.cuda.memory.max_memory_cached": Renamed("max_memory_reserved", "1.4"),
    "torch.ger": Renamed("outer", "1.7"),
}

_MESSAGE = "`{old}` was renamed `{new}` (deprecated in torch {version})"

# `unbiased=` became `correction=` (an integer: the divisor is N - correction).
_SPREAD_FUNCTIONS = frozenset({"torch.std", "torch.var", "torch.std_mean", "torch.var_mean"})
_SPREAD_METHODS = frozenset({"std", "var"})
_CORRECTION = {"True": "1", "False": "0"}
_UNBIASED = "`unbiased=` was replaced by `correction=` (deprecated in torch 2.0)"


class RenamedApi(Rule):
    """
    ## What it does
    Flags PyTorch functions and classes renamed since 0.3 whose new name is an exact equivalent:
    the `torch.nn.init` initialisers without the trailing underscore (`xavier_uniform`, `normal`,
    `kaiming_normal`, `constant`, `orthogonal`, `sparse`, `eye`, `dirac`, ...),
    `nn.utils.clip_grad_norm`, `F.sigmoid` and `F.tanh`, `nn.NLLLoss2d`,
    `torch.cuda.memory_cached` / `max_memory_cached` and `torch.ger`, under any import spelling;
    and the `unbiased=` flag of `torch.std` / `torch.var` (also `std_mean`, `var_mean`, and the
    `.std()` / `.var()` methods of an evident tensor), replaced by `correction=`.

    ## Why is this bad?
    Measured in torch 2.13: the legacy initialisers, `clip_grad_norm`, `NLLLoss2d` and
    `memory_cached` emit a `FutureWarning` on every call and only forward to the new name;
    `F.sigmoid`, `F.tanh` and `torch.ger` are deprecated in the documentation (no warning) and
    compute exactly what `torch.sigmoid`, `torch.tanh` and `torch.outer` compute; `unbiased=` is
    documented as deprecated since 2.0 in favour of `correction=`. Deprecated names
    may be removed in a later release.

    ## Example
    ```python
    import torch.nn as nn
    import torch.nn.functional as F

    nn.init.xavier_uniform(layer.weight)
    h = F.tanh(x)
    nn.utils.clip_grad_norm(model.parameters(), 0.5)
    ```

    ## Use instead
    ```python
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    nn.init.xavier_uniform_(layer.weight)
    h = torch.tanh(x)
    nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    ```

    ## Fix safety
    Safe: only the final name changes, so the module alias the code uses stays
    (`init.normal(w)` becomes `init.normal_(w)`), and the new name computes bitwise the same values,
    dtype, shape and `requires_grad` (the legacy initialisers, `clip_grad_norm` and
    `memory_cached` call the new function; `NLLLoss2d` is a subclass of `NLLLoss` with the same
    constructor and forward; the rest were measured on random inputs). The only difference is that
    no deprecation warning is emitted. `F.sigmoid` / `F.tanh` become `torch.sigmoid` /
    `torch.tanh`, adding `import torch` when the module lacks it (no fix when the name `torch` is
    taken otherwise). A name imported by itself (`from torch.nn.init import normal`) is renamed
    together with its import only when the file uses it once, without `as`; otherwise the finding
    has no fix. `unbiased=True` becomes `correction=1` and `unbiased=False` `correction=0`
    (measured bitwise for every reduction shape); a flag that is not a literal is reported without
    a fix.

    ## Known limits
    Only calls are reported: a legacy name used as an object (`isinstance(m, nn.NLLLoss2d)`,
    `activation=F.tanh`, a table keyed by `torch.ger`) is a different object from its replacement
    (`F.tanh is torch.tanh` is False), so renaming it could change the program. Names that reach the legacy API through another object (`self.init.normal(w)`) are not
    reported, nor `.std(unbiased=...)` on a receiver not known to be a tensor, nor the positional
    `torch.std(x, 1, False)`. `F.upsample`, `torch.range` and the other inexact renames are left to
    their own rules.
    """

    code = "GL503"
    name = "renamed-api"
    summary = "`nn.init.normal` / `clip_grad_norm` / `F.tanh` / `torch.ger` and other renamed APIs"
    migration = "api"
    # `from torch.nn.functional import sigmoid`: the fix calls `torch.sigmoid`, leaving the import unused.
    cleanup_imports = ("torch.nn.functional.sigmoid", "torch.nn.functional.tanh")
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = tuple(sorted({qualified.rsplit(".", 1)[1] for qualified in RENAMED} | {"unbiased"}))

    VALID = (
        """
        import numpy as np
        import math
        import torch
        y = np.tanh(x) + math.tanh(1.0) + torch.tanh(x) + torch.sigmoid(x)
        """,
        """
        def clip_grad_norm(parameters, limit):
            return 0.0
        clip_grad_norm(model.parameters(), 1.0)
        """,
        """
        from torch.nn import init
        init.xavier_uniform_(w)
        """,
        """
        self.init.normal(w)
        """,
        """
        import tensorflow as tf
        y = tf.tanh(x)
        """,
        """
        from torch.nn.init import xavier_uniform_
        xavier_uniform_(w)
        """,
        """
        import numpy as np
        import torch
        s = np.std(a, ddof=1) + stats.std(unbiased=False) + torch.std(x, correction=0)
        """,
        """
        import torch
        import torch.nn.functional as F
        OPS = {F.sigmoid, F.tanh, torch.ger}
        ok = isinstance(m, torch.nn.NLLLoss2d)
        """,
    )
    INVALID = (
        Invalid(
            """
            from torch.nn import init
            init.xavier_uniform(w)
            """,
            """
            from torch.nn import init
            init.xavier_uniform_(w)
            """,
            line=2,
            column=1,
            message="`init.xavier_uniform` was renamed `xavier_uniform_` (deprecated in torch 0.4)",
            fix_title="Rename to `xavier_uniform_`",
        ),
        Invalid(
            """
            import torch
            torch.nn.utils.clip_grad_norm(model.parameters(), 0.25)
            """,
            """
            import torch
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            """,
            message="`torch.nn.utils.clip_grad_norm` was renamed `clip_grad_norm_` (deprecated in torch 0.4)",
        ),
        Invalid(
            """
            import torch.nn.functional as F
            h = F.tanh(x) * F.sigmoid(g)
            """,
            """
            import torch
            import torch.nn.functional as F
            h = torch.tanh(x) * torch.sigmoid(g)
            """,
            message="`F.tanh` was renamed `torch.tanh` (deprecated in torch 0.4.1)",
            fix_title="Replace with `torch.tanh`",
        ),
        Invalid(
            """
            import torch as th
            from torch import nn
            criterion = nn.NLLLoss2d(ignore_index=255)
            outer = th.ger(a, b)
            used = th.cuda.memory_cached() + th.cuda.max_memory_cached(0)
            """,
            """
            import torch as th
            from torch import nn
            criterion = nn.NLLLoss(ignore_index=255)
            outer = th.outer(a, b)
            used = th.cuda.memory_reserved() + th.cuda.max_memory_reserved(0)
            """,
        ),
        Invalid(
            """
            from torch.nn.init import kaiming_normal
            kaiming_normal(w, mode="fan_out")
            """,
            """
            from torch.nn.init import kaiming_normal_
            kaiming_normal_(w, mode="fan_out")
            """,
            line=2,
            column=1,
        ),
        Invalid(
            """
            from torch.nn.functional import sigmoid
            p = sigmoid(x)
            """,
            """
            import torch
            p = torch.sigmoid(x)
            """,
        ),
        Invalid(
            """
            import torch as th
            x = th.randn(4, 5)
            spread = th.std(x, dim=1, unbiased=False) + x.var(unbiased=True)
            mean_var = th.var_mean(x, dim=0, unbiased=False, keepdim=True)
            """,
            """
            import torch as th
            x = th.randn(4, 5)
            spread = th.std(x, dim=1, correction=0) + x.var(correction=1)
            mean_var = th.var_mean(x, dim=0, correction=0, keepdim=True)
            """,
            line=3,
            column=27,
            message="`unbiased=` was replaced by `correction=` (deprecated in torch 2.0)",
            fix_title="Replace with `correction=0`",
        ),
        # Not a literal: `correction=int(flag)` is exact only for a bool.
        Invalid(
            """
            import torch
            s = torch.var(x, unbiased=flag)
            """,
            fixed=None,
            line=2,
        ),
        # Used twice: renaming the import would need both uses in one fix.
        Invalid(
            """
            from torch.nn.init import normal
            normal(a)
            normal(b)
            """,
            fixed=None,
            line=2,
            message="`normal` was renamed `normal_`",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        unbiased = next((arg for arg in node.args if arg.keyword is not None and arg.keyword.value == "unbiased"), None)
        if unbiased is None or not self._computes_spread(node.func):
            return
        if any(arg.keyword is not None and arg.keyword.value == "correction" for arg in node.args):
            return  # torch raises for both: nothing to migrate
        self.report(unbiased, _UNBIASED, self._correction_fix(unbiased))

    def _computes_spread(self, func: cst.BaseExpression) -> bool:
        """`torch.std(...)`/`torch.var(...)` under any alias, or `.std()`/`.var()` of an evident tensor."""
        qualified = self.context.imports.qualified_name(func)
        if qualified is not None:
            return qualified in _SPREAD_FUNCTIONS
        return isinstance(func, cst.Attribute) and func.attr.value in _SPREAD_METHODS and self.context.is_tensor(func.value)

    def _correction_fix(self, unbiased: cst.Arg) -> Optional[FixPlan]:
        value = unbiased.value
        correction = _CORRECTION.get(value.value) if isinstance(value, cst.Name) else None
        if correction is None:
            return None  # `correction=int(flag)` is exact only for a bool: the message says what to write
        # The keyword and the value on their own: an argument's position leaves out its comma.
        changes = (Replace(unbiased.keyword, cst.Name("correction")), Replace(value, cst.Integer(correction)))
        return self.safe_fix(f"Replace with `correction={correction}`", *changes)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not self._is_called(node):
            return  # a reference is an object: `F.tanh is torch.tanh` is False, tables keyed by it would change
        renamed = self._renamed(node)
        if renamed is not None:
            self.report(node, self._message(node, renamed), self._attribute_fix(node, renamed))

    def visit_Name(self, node: cst.Name) -> None:
        if not self._is_called(node):
            return
        renamed = self._renamed(node)
        if renamed is not None:
            self.report(node, self._message(node, renamed), self._name_fix(node, renamed))

    def _renamed(self, node: cst.BaseExpression) -> Optional[Renamed]:
        qualified = self.context.imports.qualified_name(node)
        return RENAMED.get(qualified) if qualified is not None else None

    def _is_called(self, node: cst.CSTNode) -> bool:
        """Only calls are rewritten: the legacy object itself stays in use where it is referenced."""
        stack = self.context.stack
        return len(stack) > 1 and isinstance(stack[-2], cst.Call) and stack[-2].func is node

    def _message(self, node: cst.BaseExpression, renamed: Renamed) -> str:
        new = f"torch.{renamed.new}" if renamed.to_torch else renamed.new
        return _MESSAGE.format(old=self.context.code_for(node), new=new, version=renamed.version)

    def _attribute_fix(self, node: cst.Attribute, renamed: Renamed) -> Optional[FixPlan]:
        if renamed.to_torch:
            return self._torch_fix(node, renamed)
        return self.safe_fix(f"Rename to `{renamed.new}`", Replace(node.attr, cst.Name(renamed.new)))

    def _torch_fix(self, node: cst.BaseExpression, renamed: Renamed) -> Optional[FixPlan]:
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        replacement = cst.Attribute(value=cst.Name(alias), attr=cst.Name(renamed.new))
        return self.safe_fix(f"Replace with `{alias}.{renamed.new}`", *changes, Replace(node, replacement))

    def _name_fix(self, node: cst.Name, renamed: Renamed) -> Optional[FixPlan]:
        if renamed.to_torch:
            return self._torch_fix(node, renamed)
        imported = self.context.imports.sole_from_import(node.value)
        if imported is None or renamed.new in self.context.imports.bindings or uses_outside_imports(self.context.module, node.value) != 1:
            return None
        return self.safe_fix(
            f"Rename to `{renamed.new}` (also in its import)",
            Replace(imported.alias.name, cst.Name(renamed.new)),
            Replace(node, cst.Name(renamed.new)),
        )
