from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.imports import uses_outside_imports
from gradlint.analysis.version_fallbacks import in_version_fallback
from gradlint.analysis.torch_api.renamed import (
    ARANGE_DTYPE_SINCE,
    CORRECTION_SINCE,
    FUNCTORCH_TRANSFORMS,
    LEGACY_PARAMETERS_KEYWORD,
    PARAMETERS_KEYWORD,
    RENAMED,
    STATELESS_FUNCTIONAL_CALL,
    TORCH_FUNC_SINCE,
    Renamed,
    range_end,
)
from gradlint.analysis.syntax import keyword_arg, positional_args
from gradlint.fix.builders import indentation, render_at, torch_alias, with_keywords
from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace
from gradlint.rules.base import Invalid, Rule, Severity


_MESSAGE = "`{old}` was renamed `{new}` (deprecated in torch {version})"

# `unbiased=` became `correction=` (an integer: the divisor is N - correction).
_SPREAD_FUNCTIONS = frozenset({"torch.std", "torch.var", "torch.std_mean", "torch.var_mean"})
_SPREAD_METHODS = frozenset({"std", "var"})
_CORRECTION = {"True": "1", "False": "0"}
_UNBIASED = "`unbiased=` was replaced by `correction=` (deprecated in torch 2.0)"

_RANGE = (
    "`{old}` includes its end and always returns the default dtype: use `torch.arange` with an end "
    "one step further and `dtype=torch.get_default_dtype()`, checking the element count for "
    "non-integer bounds (deprecated in torch 0.4)"
)
_RANGE_BOUNDS = ("start", "end", "step")
_RANGE_KEYWORDS = frozenset({*_RANGE_BOUNDS, "out", "dtype", "layout", "device", "requires_grad", "pin_memory"})
# bfloat16, the least precise dtype an `out=` tensor can have, holds every integer up to 256 exactly
# (measured: range and arange with out= agree bitwise in every dtype up to 256, not beyond).
_EXACT_IN_EVERY_DTYPE = 256


class RenamedApi(Rule):
    """
    ## What it does
    Flags PyTorch functions and classes renamed since 0.3 whose new name is an exact equivalent:
    the `torch.nn.init` initialisers without the trailing underscore (`xavier_uniform`, `normal`,
    `kaiming_normal`, `constant`, `orthogonal`, `sparse`, `eye`, `dirac`, ...),
    `nn.utils.clip_grad_norm`, `nn.NLLLoss2d`,
    `torch.cuda.memory_cached` / `max_memory_cached` and `torch.ger`, under any import spelling;
    the `unbiased=` flag of `torch.std` / `torch.var` (also `std_mean`, `var_mean`, and the
    `.std()` / `.var()` methods of an evident tensor), replaced by `correction=`;
    `F.upsample` / `upsample_bilinear` / `upsample_nearest` and `nn.UpsamplingBilinear2d` /
    `UpsamplingNearest2d`, replaced by `F.interpolate` / `nn.Upsample` with the mode (and
    `align_corners=True` for bilinear) they used; the `functorch` transforms (`vmap`, `grad`,
    `grad_and_value`, `vjp`, `jvp`, `jacrev`, `jacfwd`, `hessian`, `functionalize`) and
    `nn.utils.stateless.functional_call`, now in `torch.func`; and `torch.range`, whose end is
    inclusive, replaced by `torch.arange`.

    ## Why is this bad?
    Measured in torch 2.13: the legacy initialisers, `clip_grad_norm`, `NLLLoss2d` and
    `memory_cached` emit a `FutureWarning` on every call and only forward to the new name;
    `torch.ger` is deprecated in the documentation (no warning) and computes exactly what
    `torch.outer` computes; `unbiased=` is
    documented as deprecated since 2.0 in favour of `correction=`. `F.upsample*` and
    `torch.range` emit a `UserWarning`, the `functorch` transforms and `stateless.functional_call`
    a `FutureWarning`; `nn.UpsamplingBilinear2d` / `UpsamplingNearest2d` are deprecated in the
    documentation only. Deprecated names may be removed in a later release.

    `torch.range(a, b, s)` has floor((b - a) / s) + 1 elements, `torch.arange(a, e, s)`
    ceil((e - a) / s), and `range` always returns the default dtype where `arange` returns int64
    for integer bounds: the common rewrite `torch.arange(a, b + 1)` changes the dtype, and
    `arange(a, b + s, s)` has one element more whenever `s` does not divide `b - a`, or for many
    float bounds and steps (0.1 steps included).

    ## Example
    ```python
    import torch.nn as nn
    import torch.nn.functional as F

    nn.init.xavier_uniform(layer.weight)
    outer = torch.ger(a, b)
    nn.utils.clip_grad_norm(model.parameters(), 0.5)
    y = F.upsample_bilinear(x, scale_factor=2)
    steps = torch.range(1, 10, 2)
    ```

    ## Use instead
    ```python
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    nn.init.xavier_uniform_(layer.weight)
    outer = torch.outer(a, b)
    nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    y = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
    steps = torch.arange(1, 11, 2, dtype=torch.get_default_dtype())
    ```

    ## Fix safety
    Safe: only the final name changes, so the module alias the code uses stays
    (`init.normal(w)` becomes `init.normal_(w)`), and the new name computes bitwise the same values,
    dtype, shape and `requires_grad` (the legacy initialisers, `clip_grad_norm` and
    `memory_cached` call the new function; `NLLLoss2d` is a subclass of `NLLLoss` with the same
    constructor and forward; the rest were measured on random inputs). The only difference is that
    no deprecation warning is emitted. A name imported by itself (`from torch.nn.init import normal`) is renamed
    together with its import only when the file uses it once, without `as`; otherwise the finding
    has no fix. `unbiased=True` becomes `correction=1` and `unbiased=False` `correction=0`
    (measured bitwise for every reduction shape); a flag that is not a literal is reported without
    a fix.

    `F.upsample` is renamed `F.interpolate` (it forwards its five parameters in the same order);
    `upsample_bilinear(x, size, scale_factor)` and the module classes gain the keywords their
    legacy body passes (`mode="bilinear", align_corners=True` or `mode="nearest"`), measured
    bitwise with `size=` and `scale_factor=`, positional and keyword, gradients included (no fix
    for `*args`, `**kwargs` or more positional arguments than the legacy signature takes: those
    raise). The `functorch` transforms call `torch.func.X` with the same signature (measured);
    `from functorch import vmap` becomes `from torch.func import vmap` when every imported name
    has a `torch.func` twin (`make_functional` and `combine_state_for_ensemble` have none: no fix).
    `stateless.functional_call` becomes `torch.func.functional_call` (its second parameter
    renamed `parameter_and_buffer_dicts` when passed by keyword): safe when that argument is a
    dict display, comprehension or `dict(...)`, unsafe otherwise (torch.func rejects a mapping
    that is not a dict, which the legacy function used).

    `torch.range(a, b, s)` with integer literals becomes
    `torch.arange(a, e, s, dtype=torch.get_default_dtype())` with `e = a + count * s` (safe:
    measured bitwise for every start and end in [-12, 12] and steps 1, 2, 3, 5, -1, -2, -3, the
    fixture cases also under a float64 default and past 2**24); an explicit `dtype=` is kept. With other
    bounds and a step of 1 or -1 (or none), the fix writes `b + 1` (`b - 1`; `n - 1` becomes `n`):
    unsafe, exact only when the bounds are integers. Float literals or other steps get no fix.
    Bounds passed by keyword (`start=`, `end=`, `step=`) stay where they are. With `out=` the out
    tensor's dtype is the result's for both functions, so no `dtype=` is added: safe for integer
    literals within 256 (measured bitwise for every out dtype, bfloat16 and int8 included, over
    [-256, 256]; beyond, bfloat16 counts the elements differently), unsafe past it. `arange` warns
    when it resizes an out tensor that held another number of elements, which `range` did silently.
    Newer torch needed (`target-torch`): `torch.cuda.memory_reserved` 1.4, `torch.outer` 1.7,
    `torch.func` 2.0, `correction=` 2.0 (and 0.4 / 0.4.1 for the initialisers and `interpolate`).

    ## Known limits
    A legacy name in the fallback an older torch takes (an `except ImportError:` /
    `AttributeError:` / `TypeError:` handler, a branch of an `if` on the torch version) is not
    reported.
    Only calls are reported: a legacy name used as an object (`isinstance(m, nn.NLLLoss2d)`,
    a table keyed by `torch.ger`) is a different object from its replacement
    (`torch.ger is torch.outer` is False), so renaming it could change the program. Names that reach the legacy API through another object (`self.init.normal(w)`) are not
    reported, nor `.std(unbiased=...)` on a receiver not known to be a tensor, nor the positional
    `torch.std(x, 1, False)`. `import functorch` stays after its transforms move to `torch.func`
    (the import is harmless). `nn.Upsample` is not the legacy class: `isinstance` checks against
    `nn.UpsamplingBilinear2d` and the module's printed name change.
    """

    code = "GL503"
    name = "renamed-api"
    summary = "`nn.init.normal` / `clip_grad_norm` / `torch.ger` / `F.upsample` and other renamed APIs"
    severity = Severity.WARNING
    migration = "api"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = tuple(sorted({qualified.rsplit(".", 1)[1] for qualified in RENAMED} | {"unbiased", "range", "functional_call", "functorch"}))

    VALID = (
        # the fallback for a torch without `torch.func`
        """
        try:
            from torch import vmap
        except ImportError:
            from functorch import vmap
        """,
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
        # aliases torch kept: no longer deprecated
        """
        import torch.nn.functional as F
        from torch.nn.functional import sigmoid
        h = F.tanh(x) * F.sigmoid(g) + sigmoid(x)
        """,
        """
        import numpy as np
        import torch
        import jax
        r = np.arange(0, 5) + range(3) + torch.arange(0, 6)
        g = jax.vmap(f)
        y = torch.func.vmap(f)(x)
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
        Invalid(
            """
            import torch.nn.functional as F
            y = F.upsample_bilinear(x, scale_factor=2)
            z = F.upsample(x, size=(4, 4), mode="nearest")
            """,
            """
            import torch.nn.functional as F
            y = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
            z = F.interpolate(x, size=(4, 4), mode="nearest")
            """,
            message='`F.upsample_bilinear` was renamed `interpolate` with `mode="bilinear", align_corners=True` (deprecated in torch 0.4.1)',
            fix_title='Replace with `interpolate(..., mode="bilinear", align_corners=True)`',
        ),
        Invalid(
            """
            from torch import nn
            up = nn.UpsamplingNearest2d(scale_factor=2)
            """,
            """
            from torch import nn
            up = nn.Upsample(scale_factor=2, mode="nearest")
            """,
        ),
        Invalid(
            """
            import torch
            from functorch import vmap, jacrev
            J = vmap(jacrev(f))(x)
            """,
            """
            import torch
            from torch.func import vmap, jacrev
            J = vmap(jacrev(f))(x)
            """,
            message="`vmap`, `jacrev` moved from `functorch` to `torch.func` (deprecated in torch 2.0)",
            fix_title="Import from `torch.func`",
        ),
        # make_functional has no torch.func twin: the import stays.
        Invalid(
            """
            from functorch import make_functional, vmap
            """,
            fixed=None,
        ),
        Invalid(
            """
            import functorch
            import torch
            g = functorch.grad(loss_fn)(w)
            """,
            """
            import functorch
            import torch
            g = torch.func.grad(loss_fn)(w)
            """,
        ),
        Invalid(
            """
            import torch
            from torch.nn.utils import stateless
            out = stateless.functional_call(model, dict(model.named_parameters()), (x,))
            """,
            """
            import torch
            from torch.nn.utils import stateless
            out = torch.func.functional_call(model, dict(model.named_parameters()), (x,))
            """,
            message="`stateless.functional_call` was renamed `torch.func.functional_call` (deprecated in torch 2.0)",
        ),
        # Not visibly a dict: torch.func rejects other mappings.
        Invalid(
            """
            import torch
            out = torch.nn.utils.stateless.functional_call(model, parameters_and_buffers=params, args=x)
            """,
            """
            import torch
            out = torch.func.functional_call(model, parameter_and_buffer_dicts=params, args=x)
            """,
        ),
        Invalid(
            """
            import torch
            steps = torch.range(1, 10, 2)
            ramp = torch.range(0, 5, dtype=torch.long)
            """,
            """
            import torch
            steps = torch.arange(1, 11, 2, dtype=torch.get_default_dtype())
            ramp = torch.arange(0, 6, dtype=torch.long)
            """,
            line=2,
            column=9,
            fix_title="Replace with `torch.arange` ending one step after the end, in the default dtype",
        ),
        # Exact only for integer bounds.
        Invalid(
            """
            import torch
            idx = torch.range(0, n - 1)
            down = torch.range(len(x), 0, -1)
            up = torch.range(1, len(x), dtype=torch.float64)
            """,
            """
            import torch
            idx = torch.arange(0, n, dtype=torch.get_default_dtype())
            down = torch.arange(len(x), -1, -1, dtype=torch.get_default_dtype())
            up = torch.arange(1, len(x) + 1, dtype=torch.float64)
            """,
        ),
        # Bounds by keyword stay in place; `out=` decides the dtype.
        Invalid(
            """
            import torch
            ramp = torch.range(start=0, end=5, step=1)
            torch.range(1, 9, out=buffer)
            """,
            """
            import torch
            ramp = torch.arange(start=0, end=6, step=1, dtype=torch.get_default_dtype())
            torch.arange(1, 10, out=buffer)
            """,
        ),
        # Float steps: arange's element count differs.
        Invalid(
            """
            import torch
            t = torch.range(0, 1, 0.1)
            """,
            fixed=None,
            message="`torch.range` includes its end",
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
        qualified = self.context.imports.qualified_name(node.func)
        if qualified == "torch.range":
            self._check_range(node)
        elif qualified == STATELESS_FUNCTIONAL_CALL:
            self._check_functional_call(node)
        else:
            self._check_unbiased(node, qualified)
        self._check_renamed_callable(node, qualified)

    def _check_unbiased(self, node: cst.Call, qualified: Optional[str]) -> None:
        unbiased = keyword_arg(node, "unbiased")
        if unbiased is None or not self._computes_spread(node.func, qualified):
            return
        if keyword_arg(node, "correction") is not None:
            return  # torch raises for both: nothing to migrate
        self.report(unbiased, _UNBIASED, self._correction_fix(unbiased))

    def _computes_spread(self, func: cst.BaseExpression, qualified: Optional[str]) -> bool:
        """`torch.std(...)`/`torch.var(...)` under any alias, or `.std()`/`.var()` of an evident tensor."""
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
        return self.safe_fix(f"Replace with `correction={correction}`", *changes, needs_torch=CORRECTION_SINCE)

    # -- torch.range -> torch.arange -------------------------------------------------------------

    def _check_range(self, node: cst.Call) -> None:
        self.report(node.func, _RANGE.format(old=self.context.code_for(node.func)), self._range_fix(node))

    def _range_fix(self, node: cst.Call) -> Optional[FixPlan]:
        bounds = _range_bounds(node)
        if bounds is None:
            return None
        start, end, step = (bounds[name].value if name in bounds else None for name in ("start", "end", "step"))
        written_out = keyword_arg(node, "out") is not None
        numbers = [_integer(value) for value in (start, end, step or cst.Integer("1"))]
        if None not in numbers:
            exclusive = range_end(*numbers)
            if exclusive is None:
                return None  # torch.range raises for these bounds
            # The out tensor's dtype, unknown here, decides the values and the element count.
            exact = not written_out or all(abs(number) <= _EXACT_IN_EVERY_DTYPE for number in (*numbers, exclusive))
            return self._arange_fix(node, bounds["end"], _integer_node(exclusive), "safe" if exact else "unsafe")
        if _integer(step or cst.Integer("1")) not in (1, -1) or any(isinstance(value, cst.Float) for value in (start, end)):
            return None  # arange's element count differs from range's unless the step divides end - start
        # Exact for integer bounds, which the code does not show.
        exclusive = _one_step_further(end, _integer(step or cst.Integer("1")))
        return self._arange_fix(node, bounds["end"], exclusive, "unsafe")

    def _arange_fix(self, node: cst.Call, end_arg: cst.Arg, end: cst.BaseExpression, safety: str) -> Optional[FixPlan]:
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        args = [arg.with_changes(value=end) if arg is end_arg else arg for arg in node.args]
        call = node.with_changes(func=cst.Attribute(value=cst.Name(alias), attr=cst.Name("arange")), args=args)
        title = f"Replace with `{alias}.arange` ending one step after the end"
        # With `out=` the out tensor's dtype is the result's, for range and arange alike.
        if keyword_arg(node, "dtype") is None and keyword_arg(node, "out") is None:
            default = cst.parse_expression(f"{alias}.get_default_dtype()")
            call = with_keywords(call, [("dtype", default)])
            title += ", in the default dtype"
        make = self.safe_fix if safety == "safe" else self.unsafe_fix
        return make(title, *changes, self._replace(node, call), needs_torch=ARANGE_DTYPE_SINCE)

    # -- torch.nn.utils.stateless.functional_call -> torch.func.functional_call ------------------

    def _check_functional_call(self, node: cst.Call) -> None:
        message = _MESSAGE.format(old=self.context.code_for(node.func), new="torch.func.functional_call", version="2.0")
        self.report(node.func, message, self._functional_call_fix(node))

    def _functional_call_fix(self, node: cst.Call) -> Optional[FixPlan]:
        if any(arg.star for arg in node.args):
            return None
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        parameters = keyword_arg(node, LEGACY_PARAMETERS_KEYWORD)
        positional = positional_args(node)
        if parameters is None and len(positional) < 2:
            return None  # the call raises either way
        args = [arg.with_changes(keyword=cst.Name(PARAMETERS_KEYWORD)) if arg is parameters else arg for arg in node.args]
        call = node.with_changes(func=cst.parse_expression(f"{alias}.func.functional_call"), args=args)
        value = parameters.value if parameters is not None else positional[1].value
        title = f"Replace with `{alias}.func.functional_call`"
        # A dict is used as is by both; another mapping is accepted only by the legacy function.
        make = self.safe_fix if self._is_dict(value) else self.unsafe_fix
        return make(title, *changes, self._replace(node, call), needs_torch=TORCH_FUNC_SINCE)

    def _is_dict(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, (cst.Dict, cst.DictComp)):
            return True
        return (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value == "dict"
            and "dict" not in self.context.imports.bindings
            and not self._rebound("dict")
        )

    def _rebound(self, name: str) -> bool:
        return bool(self.context.scopes.of(self.context.module).assigned(name))

    # -- functorch imports --------------------------------------------------------------------

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or self.context.code_for(node.module) != "functorch":
            return
        if isinstance(node.names, cst.ImportStar):
            return
        names = [alias.name.value for alias in node.names if isinstance(alias.name, cst.Name)]
        transforms = [name for name in names if name in FUNCTORCH_TRANSFORMS]
        if not transforms:
            return
        if self._in_version_fallback():
            return
        listed = ", ".join(f"`{name}`" for name in transforms)
        message = f"{listed} moved from `functorch` to `torch.func` (deprecated in torch 2.0)"
        fix = None
        if len(transforms) == len(names) == len(node.names):
            change = Replace(node.module, cst.parse_expression("torch.func"))
            fix = self.safe_fix("Import from `torch.func`", change, needs_torch=TORCH_FUNC_SINCE)
        self.report(node, message, fix)

    # -- renamed callables ---------------------------------------------------------------------

    def _check_renamed_callable(self, call: cst.Call, qualified: Optional[str]) -> None:
        """Only what is called is rewritten: a reference is an object (`torch.ger is torch.outer` is
        False, tables keyed by it would change), and the legacy object stays in use where it is referenced."""
        func = call.func
        renamed = RENAMED.get(qualified) if qualified is not None else None
        if renamed is None or self._in_version_fallback():
            return
        if type(func) is cst.Attribute:
            self.report(func, self._message(func, renamed), self._attribute_fix(call, func, renamed))
        elif type(func) is cst.Name and not qualified.startswith("functorch."):  # a functorch transform is reported at its import
            self.report(func, self._message(func, renamed), self._name_fix(call, func, renamed))

    def _in_version_fallback(self) -> bool:
        """The legacy name is what an older torch falls back to (`except ImportError:`, the branch
        of an `if` on the torch version): the modern name already runs on a current torch."""
        return in_version_fallback(self.context.stack, self.context.code_for)

    def _message(self, node: cst.BaseExpression, renamed: Renamed) -> str:
        new = f"torch.{renamed.new}" if renamed.to_torch else renamed.new
        if renamed.keywords:
            new = f"{new}` with `{_keywords_text(renamed)}"
        return _MESSAGE.format(old=self.context.code_for(node), new=new, version=renamed.version)

    def _fits(self, call: cst.Call, renamed: Renamed) -> bool:
        """The call passes what the legacy signature takes: the added keywords then mean the same."""
        if not renamed.keywords:
            return True
        if any(arg.star for arg in call.args) or len(positional_args(call)) > renamed.positional:
            return False
        return all(keyword_arg(call, name) is None for name, _ in renamed.keywords)

    def _attribute_fix(self, call: cst.Call, node: cst.Attribute, renamed: Renamed) -> Optional[FixPlan]:
        if not self._fits(call, renamed):
            return None
        if renamed.to_torch:
            return self._torch_fix(node, renamed)
        if not renamed.keywords:
            return self.safe_fix(f"Rename to `{renamed.new}`", Replace(node.attr, cst.Name(renamed.new)), needs_torch=renamed.needs_torch)
        renamed_call = call.with_changes(func=node.with_changes(attr=cst.Name(renamed.new)))
        return self.safe_fix(self._title(renamed), self._with_keywords(call, renamed_call, renamed), needs_torch=renamed.needs_torch)

    def _torch_fix(self, node: cst.BaseExpression, renamed: Renamed) -> Optional[FixPlan]:
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        replacement = cst.parse_expression(f"{alias}.{renamed.new}")
        return self.safe_fix(f"Replace with `{alias}.{renamed.new}`", *changes, Replace(node, replacement), needs_torch=renamed.needs_torch)

    def _name_fix(self, call: cst.Call, node: cst.Name, renamed: Renamed) -> Optional[FixPlan]:
        if not self._fits(call, renamed):
            return None
        if renamed.to_torch:
            return self._torch_fix(node, renamed)
        imported = self.context.imports.sole_from_import(node.value)
        if imported is None or renamed.new in self.context.imports.bindings or uses_outside_imports(self.context.module, node.value) != 1:
            return None
        rename_import = Replace(imported.alias.name, cst.Name(renamed.new))
        if not renamed.keywords:
            title = f"Rename to `{renamed.new}` (also in its import)"
            return self.safe_fix(title, rename_import, Replace(node, cst.Name(renamed.new)), needs_torch=renamed.needs_torch)
        renamed_call = call.with_changes(func=cst.Name(renamed.new))
        return self.safe_fix(
            self._title(renamed) + " (also in its import)",
            rename_import,
            self._with_keywords(call, renamed_call, renamed),
            needs_torch=renamed.needs_torch,
        )

    def _title(self, renamed: Renamed) -> str:
        return f"Replace with `{renamed.new}(..., {_keywords_text(renamed)})`"

    def _with_keywords(self, call: cst.Call, renamed_call: cst.Call, renamed: Renamed) -> Replace:
        keywords = [(name, cst.parse_expression(value)) for name, value in renamed.keywords]
        return self._replace(call, with_keywords(renamed_call, keywords))

    def _replace(self, node: cst.Call, replacement: cst.Call) -> Replace:
        """The call rewritten at the indentation of its statement (its continuation lines stay put)."""
        return Replace(node, render_at(self.context, replacement, indentation(self.context, self.context.stack)))


def _keywords_text(renamed: Renamed) -> str:
    return ", ".join(f"{name}={value}" for name, value in renamed.keywords)


def _range_bounds(node: cst.Call) -> Optional[dict[str, cst.Arg]]:
    """The `start`, `end` and optional `step` arguments of a `torch.range` call, positional or by
    keyword; None when the call passes what the fix cannot carry over (`*args`, an unknown keyword)
    or raises (a bound missing or given twice)."""
    if any(arg.star for arg in node.args):
        return None
    keywords = [arg.keyword.value for arg in node.args if arg.keyword is not None]
    if not set(keywords) <= _RANGE_KEYWORDS or len(set(keywords)) != len(keywords):
        return None
    positional = positional_args(node)
    if len(positional) > len(_RANGE_BOUNDS):
        return None
    bounds = dict(zip(_RANGE_BOUNDS, positional))
    for name in _RANGE_BOUNDS:
        given = keyword_arg(node, name)
        if given is not None:
            if name in bounds:
                return None
            bounds[name] = given
    return bounds if "start" in bounds and "end" in bounds else None


def _integer(node: Optional[cst.BaseExpression]) -> Optional[int]:
    """The value of an integer literal, signed or not."""
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = _integer(node.expression)
        if inner is not None:
            return -inner if isinstance(node.operator, cst.Minus) else inner
    return None


def _integer_node(value: int) -> cst.BaseExpression:
    if value < 0:
        return cst.UnaryOperation(operator=cst.Minus(), expression=cst.Integer(str(-value)))
    return cst.Integer(str(value))


def _one_step_further(end: cst.BaseExpression, step: int) -> cst.BaseExpression:
    """`end + 1` (`end - 1` for a step of -1); `n - 1` gives back `n`."""
    if _integer(end) is not None:
        return _integer_node(_integer(end) + step)
    undone = cst.Subtract if step == 1 else cst.Add
    if isinstance(end, cst.BinaryOperation) and isinstance(end.operator, undone) and _integer(end.right) == 1 and not end.lpar:
        return end.left
    operator = cst.Add() if step == 1 else cst.Subtract()
    return cst.BinaryOperation(left=_parenthesized_operand(end), operator=operator, right=cst.Integer("1"))


def _parenthesized_operand(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` as the left operand of `+`: parenthesized unless it binds tighter."""
    if node.lpar or isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
