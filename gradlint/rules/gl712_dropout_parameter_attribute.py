from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.syntax import is_bool_literal
from gradlint.analysis.values import Kind
from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

# Functional dropouts that give back their argument itself when they do not drop.
_RETURNING_DROPOUTS = {
    name: torch_api.function(name).value("dropout") == "train"
    for name in torch_api.functions("dropout") & torch_api.functions("may-return-argument")
}
_DROPOUT_SIGNATURE = Signature.of_names(("input", "p", "training", "inplace"))
_PARAMETER_CLASSES = torch_api.functions("parameter")
_SETATTR = "setattr"
_GETATTR = "getattr"
_MAX_DEPTH = 3


class DropoutParameterAttribute(Rule):
    """
    ## What it does
    Flags a module attribute set to the result of `F.dropout` of what may be a parameter
    (`setattr(self.module, name_w, w)` after `w = F.dropout(raw_w, p=..., training=self.training)`),
    as the widely copied `WeightDrop` of awd-lstm-lm does, unless the call provably drops
    (`training=True` with a literal `p` above 0).

    ## Why is this bad?
    When it does not drop (`training=False`, or `p=0`), `F.dropout` returns its argument itself: the
    `nn.Parameter`. Assigning a `Parameter` to a module attribute registers it as a parameter of
    that module, and from then on the module accepts nothing else under that name. Measured under
    torch 2.13 with `WeightDrop(nn.Linear(3, 2), ["weight"], dropout=0.5)`: a training pass, an
    evaluation pass, then the next training pass raises `TypeError: cannot assign
    'torch.FloatTensor' as parameter 'weight' (torch.nn.Parameter or None expected)`; after an
    evaluation pass `state_dict()` also gains a `weight` entry beside `weight_raw`. PyTorch 0.3's
    dropout returned a new `Variable`, never the `Parameter`.

    ## Example
    ```python
    import torch.nn.functional as F
    from torch import nn

    class WeightDrop(nn.Module):
        def _setweights(self):
            raw_w = getattr(self.module, "weight_raw")
            w = F.dropout(raw_w, p=self.dropout, training=self.training)
            setattr(self.module, "weight", w)
    ```

    ## Use instead
    ```python
    import torch.nn.functional as F
    from torch import nn

    class WeightDrop(nn.Module):
        def _setweights(self):
            raw_w = getattr(self.module, "weight_raw")
            w = F.dropout(raw_w, p=self.dropout, training=self.training)
            setattr(self.module, "weight", w.view_as(w))
    ```

    ## Fix safety
    The fix assigns `w.view_as(w)`: a plain tensor viewing the same values (bitwise), with the
    same gradient, as 0.3's dropout gave. Unsafe: after an evaluation pass, `state_dict()` no longer
    holds the registered duplicate (`weight` beside `weight_raw`), which a checkpoint saved then
    would have had; training passes compute the same numbers.

    ## Known limits
    The value must come from a dropout of what may be a parameter: a `Parameter`, a `.weight` or
    `.bias`, an attribute the class sets to an `nn.Parameter`, or `getattr` of a module. A
    dropout result assigned inline (`setattr(m, n, F.dropout(...))`) is reported without a fix.
    Writing into `module._parameters[name]` directly (fastai's `WeightDropout`) registers nothing
    and is not reported.
    """

    code = "GL712"
    name = "dropout-parameter-attribute"
    summary = "A module attribute set to `F.dropout(param, ...)`: when it does not drop, it is the `Parameter` itself, which the module then registers"
    severity = Severity.ERROR
    migration = "api"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("dropout",)

    VALID = (
        # a plain tensor's dropout, a dropout that always drops, a local variable
        """
        import torch
        import torch.nn.functional as F
        from torch import nn
        class Net(nn.Module):
            def forward(self, x):
                self.hidden = F.dropout(self.fc(x), p=0.5, training=self.training)
                self.drop = F.dropout(self.fc.weight, p=0.2, training=True)
                w = F.dropout(self.fc.weight, p=0.5, training=self.training)
                return x @ w
        """,
        # fastai's form writes into _parameters, and a result viewed as a plain tensor
        """
        import torch.nn.functional as F
        from torch import nn
        class WeightDropout(nn.Module):
            def _setweights(self):
                raw_w = getattr(self, "weight_hh_raw")
                self.module._parameters["weight_hh"] = F.dropout(raw_w, p=0.5, training=self.training)
                w = F.dropout(raw_w, p=0.5, training=self.training)
                setattr(self.module, "weight_hh", w.view_as(w))
        """,
        # an attribute of something not shown to be a module
        """
        import torch.nn.functional as F
        def apply(config, p):
            setattr(config, "mask", F.dropout(p, 0.5, False))
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            from torch.nn import Parameter
            class WeightDrop(torch.nn.Module):
                def _setweights(self):
                    for name_w in self.weights:
                        raw_w = getattr(self.module, name_w + '_raw')
                        w = torch.nn.functional.dropout(raw_w, p=self.dropout, training=self.training)
                        setattr(self.module, name_w, w)
            """,
            """
            import torch
            from torch.nn import Parameter
            class WeightDrop(torch.nn.Module):
                def _setweights(self):
                    for name_w in self.weights:
                        raw_w = getattr(self.module, name_w + '_raw')
                        w = torch.nn.functional.dropout(raw_w, p=self.dropout, training=self.training)
                        setattr(self.module, name_w, w.view_as(w))
            """,
            line=8,
            column=13,
            message="`F.dropout` returns the `Parameter` itself",
            fix_title="Assign `w.view_as(w)`, a plain tensor (unsafe: after an evaluation pass `state_dict()` no longer holds the registered duplicate)",
        ),
        # an attribute assignment, a parameter the class made, dropout off by default
        Invalid(
            """
            import torch.nn.functional as F
            from torch import nn
            class Tied(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.raw = nn.Parameter(nn.init.normal_(torch.empty(4, 4)))
                def forward(self, x):
                    self.weight = F.alpha_dropout(self.raw, 0.1)
                    return x @ self.weight
            """,
            None,
            message="`F.alpha_dropout` returns the `Parameter` itself",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not self._is_builtin(node.func, _SETATTR) or len(node.args) != 3 or any(arg.star or arg.keyword for arg in node.args):
            return
        owner, value = node.args[0].value, node.args[2].value
        self._check(node, owner, value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Attribute):
                self._check(node, target.target.value, node.value)

    def _check(self, node: cst.CSTNode, owner: cst.BaseExpression, value: cst.BaseExpression) -> None:
        dropout = self._parameter_dropout(value)  # first: far cheaper than asking what the owner is
        if dropout is None or not self.context.values.is_nn_module(owner, self.context.scope()):
            return
        short = (self.context.qualified_name(dropout.func) or "").rsplit(".", 1)[-1]
        message = (
            f"`{snippet(self.context.code_for(node), 50)}` sets a module attribute to a dropout of what may be a parameter: when it does not "
            f"drop (not training, or `p=0`), `F.{short}` returns the `Parameter` itself, which the module registers, and the next "
            "plain tensor assigned under that name raises `TypeError`"
        )
        self.report(node, message, self._fix(value))

    def _parameter_dropout(self, value: cst.BaseExpression) -> Optional[cst.Call]:
        """The dropout call `value` is (or a name bound to it), when it may return a parameter."""
        candidates = [value]
        if isinstance(value, cst.Name):
            candidates = self.context.scopes.values_of(value.value, self.context.scope())
        for candidate in candidates:
            if isinstance(candidate, cst.Call) and self._returns_parameter(candidate):
                return candidate
        return None

    def _returns_parameter(self, call: cst.Call) -> bool:
        training_default = _RETURNING_DROPOUTS.get(self.context.qualified_name(call.func) or "")
        if training_default is None:
            return False
        bound = bind(call, _DROPOUT_SIGNATURE)
        argument = bound.passed("input")
        if argument is None or bound.starred or _always_drops(bound.passed("training"), bound.passed("p"), training_default):
            return False
        return self._may_be_parameter(argument, 0)

    def _may_be_parameter(self, node: cst.BaseExpression, depth: int) -> bool:
        if depth > _MAX_DEPTH:
            return False
        scope = self.context.scope()
        if self.context.values.kind(node, scope) is Kind.PARAMETER:
            return True
        if isinstance(node, cst.Call):
            # `getattr(self.module, name + "_raw")`: a module's attribute, looked up by name
            return self._is_builtin(node.func, _GETATTR) and bool(node.args) and self.context.values.is_nn_module(node.args[0].value, scope)
        if isinstance(node, cst.Attribute):
            values = self.context.scopes.instance_attribute_values(node, scope)
            return any(isinstance(bound, cst.Call) and self.context.qualified_name(bound.func) in _PARAMETER_CLASSES for bound, _ in values)
        if isinstance(node, cst.Name):
            return any(self._may_be_parameter(bound, depth + 1) for bound in self.context.scopes.values_of(node.value, scope))
        return False

    def _is_builtin(self, func: cst.BaseExpression, name: str) -> bool:
        """A call of the builtin `name`, not of a function imported under that name."""
        return isinstance(func, cst.Name) and func.value == name and self.context.qualified_name(func) is None

    def _fix(self, value: cst.BaseExpression) -> Optional[FixPlan]:
        if not isinstance(value, cst.Name):
            return None
        viewed = f"{value.value}.view_as({value.value})"
        return self.unsafe_fix(
            f"Assign `{viewed}`, a plain tensor (unsafe: after an evaluation pass `state_dict()` no longer holds the registered duplicate)",
            Replace(value, viewed),
        )


def _always_drops(training: Optional[cst.BaseExpression], p: Optional[cst.BaseExpression], training_default: bool) -> bool:
    """`training=True` (or its default) with a literal probability above 0: a new tensor every time."""
    trains = is_bool_literal(training, True) if training is not None else training_default
    if not trains:
        return False
    if p is None:
        return True  # the default, 0.5
    return isinstance(p, (cst.Float, cst.Integer)) and float(p.value) > 0
