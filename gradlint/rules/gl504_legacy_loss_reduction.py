from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.torch_api.legacy_losses import LEGACY_FLAGS, REDUCTION_SINCE, legacy_reduction, loss_parameters
from gradlint.fix.builders import indentation, render_at
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_DEPRECATED = "(deprecated in torch 0.4.1)"
_LITERALS = {"True": True, "False": False, "None": None}

# A literal flag value, or the expression whose value is only known at run time.
FlagValue = Union[Optional[bool], cst.BaseExpression]


class LegacyLossReduction(Rule):
    """
    ## What it does
    Flags the legacy `size_average=` / `reduce=` flags of torch's losses, on every loss module
    (`nn.MSELoss(size_average=False)`, `nn.CrossEntropyLoss(reduce=False)`, ...) and every
    functional loss (`F.binary_cross_entropy(x, y, size_average=False)`,
    `F.nll_loss(x, t, reduce=False)`, ...), passed by keyword or in their old positional slots
    (`F.mse_loss(x, y, False)`).

    ## Why is this bad?
    Since torch 0.4.1 a loss takes one `reduction=` string. torch 2.13 still accepts the two flags
    and turns them into `reduction` through `torch.nn._reduction.legacy_get_string`, with a
    `UserWarning` on every construction or call ("size_average and reduce args will be
    deprecated, please use reduction='sum' instead."). In that table None means the default
    (True), `reduce=False` wins over `size_average` (`'none'`), `size_average=False` gives
    `'sum'` and the rest `'mean'`; when either flag is set it overrides a `reduction=` passed
    alongside.

    ## Example
    ```python
    import torch.nn as nn
    import torch.nn.functional as F

    criterion = nn.MSELoss(size_average=False)
    bce = F.binary_cross_entropy(recon, x, size_average=False)
    per_item = F.nll_loss(logp, target, reduce=False)
    ```

    ## Use instead
    ```python
    import torch.nn as nn
    import torch.nn.functional as F

    criterion = nn.MSELoss(reduction="sum")
    bce = F.binary_cross_entropy(recon, x, reduction="sum")
    per_item = F.nll_loss(logp, target, reduction="none")
    ```

    ## Fix safety
    Safe when every flag is a literal `True`, `False` or `None`: the flags are replaced by the
    `reduction=` that torch's own table computes from them, so the loss runs the same reduction
    (measured bitwise equal in value and gradient under torch 2.13 for every combination, module
    and functional), without the warning. Flags given positionally are replaced the same way and
    the positional arguments after them are passed by keyword. Flags that are both None select no
    legacy path and are simply dropped (positional None placeholders are not reported). No fix when a flag is not a literal (the message says which
    `reduction=` each value means), when `reduction=` is passed as well (the flags override it:
    the message says which one they select), or when `*args` / `**kwargs` are passed.
    Newer torch needed (`target-torch`): `reduction=` 0.4.1.

    ## Known limits
    Only torch's loss classes and functions are recognised (`torch.nn`, `torch.nn.modules.loss`,
    `torch.nn.functional`, under any import form); a class of your own, `sklearn`, `keras` or
    `tf.keras.losses` are left alone, and so are subclasses of the torch losses that forward the
    flags through `super().__init__(...)`. A call that forwards a function's own `size_average` /
    `reduce` parameters under the same names (`size_average=size_average`, as torch's
    compatibility layers do) is not reported: the legacy use belongs to that function's callers.
    """

    code = "GL504"
    name = "legacy-loss-reduction"
    summary = "`size_average=` / `reduce=` on a loss instead of `reduction=`"
    severity = Severity.WARNING
    migration = "api"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("loss", "Loss", "cross_entropy", "kl_div")

    VALID = (
        """
        import torch.nn as nn
        criterion = nn.MSELoss(reduction="sum")
        """,
        """
        import torch.nn.functional as F
        loss = F.nll_loss(logp, target, weight, None, -100)
        """,
        """
        from sklearn.metrics import log_loss
        loss = log_loss(y, p, size_average=False)
        """,
        """
        import tensorflow as tf
        loss = tf.keras.losses.MeanSquaredError(reduce=False)
        """,
        """
        class MSELoss:
            def __init__(self, size_average=True):
                self.size_average = size_average
        criterion = MSELoss(size_average=False)
        """,
        """
        import torch.nn.functional as F
        def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
            return F.l1_loss(input, target, size_average=size_average, reduce=reduce, reduction=reduction)
        """,
        """
        import torch.nn as nn
        class Weighted(nn.MSELoss):
            def __init__(self, size_average=None, reduce=None):
                super().__init__(size_average, reduce)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch.nn as nn
            criterion = nn.MSELoss(size_average=False)
            """,
            """
            import torch.nn as nn
            criterion = nn.MSELoss(reduction="sum")
            """,
            line=2,
            column=13,
            message='`size_average=False` is a legacy loss flag (deprecated in torch 0.4.1); use `reduction="sum"`',
            fix_title='Replace with `reduction="sum"`',
        ),
        Invalid(
            """
            from torch import nn
            criterion = nn.CrossEntropyLoss(size_average=True, reduce=False)
            """,
            """
            from torch import nn
            criterion = nn.CrossEntropyLoss(reduction="none")
            """,
        ),
        Invalid(
            """
            import torch.nn.functional as F
            loss = F.nll_loss(logp, target, weight, False, 3, True)
            """,
            """
            import torch.nn.functional as F
            loss = F.nll_loss(logp, target, weight, reduction="sum", ignore_index=3)
            """,
            message="`False` in the slot of `size_average`",
        ),
        Invalid(
            """
            from torch.nn.functional import mse_loss as mse
            loss = mse(x, y, size_average=None, reduce=None)
            """,
            """
            from torch.nn.functional import mse_loss as mse
            loss = mse(x, y)
            """,
            message="select the default",
            fix_title="Remove the legacy flags",
        ),
        Invalid(
            """
            import torch.nn.functional as F
            loss = F.binary_cross_entropy(p, y, size_average=average)
            """,
            fixed=None,
            message='`reduction="mean"` when `average` is true or None, `"sum"` when false',
        ),
        Invalid(
            """
            import torch
            loss = torch.nn.functional.mse_loss(x, y, size_average=mean, reduce=per_item)
            """,
            fixed=None,
            message='"none"` when `per_item` is false, otherwise',
        ),
        Invalid(
            """
            import torch.nn as nn
            criterion = nn.L1Loss(size_average=False, reduction="mean")
            """,
            fixed=None,
            message='it selects `reduction="sum"` over the `reduction=` also passed: keep one',
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        parameters = loss_parameters(self.context.qualified_name(node.func))
        if parameters is None:
            return
        named = _named_arguments(node, parameters)
        if named is None:
            return
        flags = {name: arg for name, arg in named.items() if name in LEGACY_FLAGS}
        if not flags or all(self._forwarded(name, arg) for name, arg in flags.items()):
            return
        shown = ", ".join(self._shown(name, arg) for name, arg in flags.items())
        values = {name: _flag_value(arg.value) for name, arg in flags.items()}
        expressions = [name for name, value in values.items() if isinstance(value, cst.BaseExpression)]
        if all(value is None for value in values.values()):
            if all(arg.keyword is None for arg in flags.values()):
                return  # placeholders that fill the slots before a later positional argument
            message = f"{shown} {_plural(flags, 'is a legacy loss flag', 'are legacy loss flags')} {_DEPRECATED}: None values select the default; remove them"
            fix = None
            if _rewritable(node):
                fix = self.safe_fix("Remove the legacy flags", self._replace(node, _rewritten(node, parameters, named, None)))
            self.report(node, message, fix)
            return
        legacy = f"{shown} {_plural(flags, 'is a legacy loss flag', 'are legacy loss flags')} {_DEPRECATED}"
        if expressions:
            self.report(node, f"{legacy}; use {self._meaning(values)}")
            return
        reduction = legacy_reduction(values.get("size_average"), values.get("reduce"))
        if "reduction" in named:
            selects = _plural(flags, "it selects", "they select")
            self.report(node, f'{legacy}; {selects} `reduction="{reduction}"` over the `reduction=` also passed: keep one')
            return
        fix = None
        if _rewritable(node):
            fix = self.safe_fix(
                f'Replace with `reduction="{reduction}"`',
                self._replace(node, _rewritten(node, parameters, named, reduction)),
                needs_torch=REDUCTION_SINCE,
            )
        self.report(node, f'{legacy}; use `reduction="{reduction}"`', fix)

    def _forwarded(self, name: str, arg: cst.Arg) -> bool:
        """`size_average=size_average` inside a function taking `size_average`: a compatibility
        layer passing its caller's flags on (the legacy use, if any, is the caller's)."""
        if not (isinstance(arg.value, cst.Name) and arg.value.value == name):
            return False
        function = self.context.enclosing_function()
        if function is None:
            return False
        parameters = function.params
        declared = [*parameters.posonly_params, *parameters.params, *parameters.kwonly_params]
        return any(param.name.value == name for param in declared)

    def _replace(self, node: cst.Call, replacement: cst.Call) -> Replace:
        """The call rewritten at the indentation of its statement (its continuation lines stay put)."""
        return Replace(node, render_at(self.context, replacement, indentation(self.context, self.context.stack)))

    def _shown(self, name: str, arg: cst.Arg) -> str:
        value = snippet(self.context.code_for(arg.value), 30, "...")
        if arg.keyword is None:
            return f"`{value}` in the slot of `{name}`"
        return f"`{name}={value}`"

    def _meaning(self, values: dict[str, FlagValue]) -> str:
        """Which `reduction=` each run-time value of the flags means, from torch's table."""
        size_average, reduce = values.get("size_average"), values.get("reduce")
        if isinstance(reduce, cst.BaseExpression):
            otherwise = _choice(size_average, self, lambda average: legacy_reduction(average, True))
            return f'`reduction="none"` when `{self._code(reduce)}` is false, otherwise {otherwise}'
        return _choice(size_average, self, lambda average: legacy_reduction(average, reduce))

    def _code(self, node: cst.BaseExpression) -> str:
        return snippet(self.context.code_for(node), 30, "...")


def _choice(value: FlagValue, rule: LegacyLossReduction, reduction) -> str:
    if not isinstance(value, cst.BaseExpression):
        return f'`reduction="{reduction(value)}"`'
    when_true, when_false = reduction(True), reduction(False)
    if when_true == when_false:
        return f'`reduction="{when_true}"` whatever `{rule._code(value)}` is'
    return f'`reduction="{when_true}"` when `{rule._code(value)}` is true or None, `"{when_false}"` when false'


def _plural(flags: dict, one: str, many: str) -> str:
    return one if len(flags) == 1 else many


def _flag_value(node: cst.BaseExpression) -> FlagValue:
    if isinstance(node, cst.Name) and node.value in _LITERALS:
        return _LITERALS[node.value]
    return node


def _named_arguments(call: cst.Call, parameters: tuple[str, ...]) -> Optional[dict[str, cst.Arg]]:
    """The call's arguments by parameter name (`*args` / `**kwargs` are left out); None when the
    call does not fit the signature."""
    bound = bind(call, Signature.of_names(parameters))
    return None if bound.extra_positional or bound.repeated else bound.named


def _rewritable(call: cst.Call) -> bool:
    """Without `*args` / `**kwargs` every argument is known (a `**kwargs` may hold `reduction`)."""
    return not any(arg.star for arg in call.args)


def _rewritten(call: cst.Call, parameters: tuple[str, ...], named: dict[str, cst.Arg], reduction: Optional[str]) -> cst.Call:
    """`call` with the legacy flags replaced by `reduction=` (or dropped when None) in the place
    of the first flag; the positional arguments after a flag are passed by keyword."""
    names = {id(arg): name for name, arg in named.items()}
    args: list[cst.Arg] = []
    keywords_from_here = False
    for arg in call.args:
        name = names[id(arg)]
        if name in LEGACY_FLAGS:
            if not keywords_from_here and reduction is not None:
                args.append(_keyword(arg, "reduction", cst.SimpleString(f'"{reduction}"')))
            keywords_from_here = True
            continue
        if keywords_from_here and arg.keyword is None:
            arg = _keyword(arg, name, arg.value)
        args.append(arg)
    if args and call.args and call.args[-1] is not args[-1]:
        args[-1] = args[-1].with_changes(comma=call.args[-1].comma)
    return call.with_changes(args=args)


def _keyword(arg: cst.Arg, name: str, value: cst.BaseExpression) -> cst.Arg:
    return arg.with_changes(
        keyword=cst.Name(name),
        value=value,
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
