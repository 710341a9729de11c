from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.syntax import keyword_arg, positional_args
from gradlint.fix.builders import indentation, render_at, with_keywords
from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

# The functional dropouts of torch 2.13 and their `training` default (the third parameter of each).
_TRAINING_DEFAULT = {name: torch_api.function(name).value("dropout") == "train" for name in torch_api.functions("dropout")}
_TRAINING_POSITION = 2


class FunctionalDropoutWithoutTraining(Rule):
    """
    ## What it does
    Flags `F.dropout`, `F.dropout1d/2d/3d`, `F.alpha_dropout` and `F.feature_alpha_dropout` called
    in a method of an `nn.Module` subclass without a `training` argument (by keyword or as the
    third positional argument).

    ## Why is this bad?
    A functional dropout does not see the module's mode: it does what its `training` argument
    says, and the argument defaults to a constant. For `F.dropout` and `F.dropout1d/2d/3d` the
    default is `training=True`, so dropout keeps dropping after `model.eval()`: measured under
    torch 2.13 with `p=0.5` on a 16-unit hidden layer, two evaluation passes over the same batch
    of 32 differ (max difference 1.08), and in evaluation 52% of the live hidden units are zeroed
    and the others doubled.
    For `F.alpha_dropout` and `F.feature_alpha_dropout` the default is `training=False`, the
    opposite mistake: they never drop, not even in training (the output equals the input exactly).
    `nn.Dropout` modules follow `train()` / `eval()`; functional calls need `training=self.training`.

    ## Example
    ```python
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):
        def forward(self, x):
            return F.dropout(self.hidden(x), p=0.5)
    ```

    ## Use instead
    ```python
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):
        def forward(self, x):
            return F.dropout(self.hidden(x), p=0.5, training=self.training)
    ```

    ## Fix safety
    Unsafe: the fix adds `training=self.training`, which changes what the module does on purpose
    in one mode. For `F.dropout` and `F.dropout1d/2d/3d`, training-mode outputs stay bitwise the
    same (same random draws) and evaluation becomes deterministic; for the alpha dropouts,
    evaluation stays the same and training starts dropping.

    ## Known limits
    A method that tests `self.training` itself (`if self.dropout and self.training:` around the
    call, or an early return in evaluation) is trusted to pick the mode, and so is a call whose
    line comment says the dropout always applies. Only classes that this file shows to be `nn.Module` subclasses (directly or through each
    other) are considered: a class deriving from a base imported from elsewhere (a
    `LightningModule`, a project's own base class) is not. Calls outside a class, in static or
    class methods, and calls that pass `*args` / `**kwargs` are not reported. A module meant to
    drop in evaluation too (Monte Carlo dropout, the Tacotron 2 prenet) should say so with
    `training=True`.
    """

    code = "GL603"
    name = "functional-dropout-without-training"
    summary = "`F.dropout(...)` in an `nn.Module` method without `training=`: it ignores `model.eval()`"
    severity = Severity.ERROR
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("dropout",)

    VALID = (
        """
        import torch.nn as nn
        import torch.nn.functional as F
        class Net(nn.Module):
            def forward(self, x):
                x = F.dropout(x, p=0.5, training=self.training)
                x = F.dropout2d(x, 0.2, self.training)
                return F.alpha_dropout(x, 0.1, training=True)
        """,
        # outside an nn.Module: nothing says which mode applies
        """
        import torch.nn.functional as F
        def augment(x):
            return F.dropout(x, 0.1)
        class Augment:
            def __call__(self, x):
                return F.dropout(x, 0.1)
        """,
        # a look-alike `dropout` that is not torch's
        """
        import torch.nn as nn
        from mylib import dropout
        class Net(nn.Module):
            def forward(self, x):
                return dropout(x, 0.5)
        """,
        # a base class imported from elsewhere: not provably an nn.Module
        """
        import torch.nn.functional as F
        from framework import Layer
        class Block(Layer):
            def forward(self, x):
                return F.dropout(x, 0.5)
        """,
        # the method picks the mode itself, or says the dropout is meant to stay on
        """
        import torch
        import torch.nn.functional as F
        class LoRA(torch.nn.Module):
            def forward(self, x):
                h = self.down(x)
                if self.dropout is not None and self.training:
                    h = torch.nn.functional.dropout(h, p=self.dropout)
                return self.up(h)
            def sample(self, x):
                if not self.training:
                    return x
                return F.dropout(x, 0.1)
            def prenet(self, x):
                return F.dropout(x, 0.5)  # always applies dropout, as in Tacotron 2
        """,
        """
        import torch.nn as nn
        import torch.nn.functional as F
        class Net(nn.Module):
            @staticmethod
            def noisy(x):
                return F.dropout(x, 0.5)
            def forward(self, x, **options):
                return F.dropout(x, **options)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch.nn as nn
            import torch.nn.functional as F
            class Net(nn.Module):
                def forward(self, x):
                    return F.dropout(self.fc(x), 0.5)
            """,
            """
            import torch.nn as nn
            import torch.nn.functional as F
            class Net(nn.Module):
                def forward(self, x):
                    return F.dropout(self.fc(x), 0.5, training=self.training)
            """,
            line=5,
            column=16,
            message="`F.dropout(self.fc(x), 0.5)` in a method of `nn.Module` subclass `Net` has no `training=`",
            fix_title="Pass `training=self.training`",
        ),
        # through a subclass of a module class, in a helper method, with another receiver name
        Invalid(
            """
            from torch import nn
            from torch.nn.functional import dropout2d
            class Base(nn.Module):
                pass
            class Conv(Base):
                def block(module, x):
                    return dropout2d(x, p=0.1, inplace=False)
            """,
            """
            from torch import nn
            from torch.nn.functional import dropout2d
            class Base(nn.Module):
                pass
            class Conv(Base):
                def block(module, x):
                    return dropout2d(x, p=0.1, inplace=False, training=module.training)
            """,
            message="it keeps dropping after `model.eval()`",
            fix_title="Pass `training=module.training`",
        ),
        # the alpha dropouts default to training=False: they never drop
        Invalid(
            """
            import torch
            class SelfNormalizing(torch.nn.Module):
                def forward(self, x):
                    def noise(h):
                        return torch.nn.functional.alpha_dropout(h, 0.1)
                    return noise(x)
            """,
            """
            import torch
            class SelfNormalizing(torch.nn.Module):
                def forward(self, x):
                    def noise(h):
                        return torch.nn.functional.alpha_dropout(h, 0.1, training=self.training)
                    return noise(x)
            """,
            message="never drops, not even in training (its default is `training=False`)",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        default = _TRAINING_DEFAULT.get(self.context.qualified_name(node.func) or "")
        if default is None or any(arg.star for arg in node.args) or _passes_training(node):
            return
        instance = self.context.nn_modules.instance_of_method(self.context.stack)
        owner = self.context.enclosing_class()
        if instance is None or owner is None or self._decided_elsewhere(instance):
            return
        call = snippet(self.context.code_for(node), 50)
        effect = (
            "it keeps dropping after `model.eval()` (its default is `training=True`)"
            if default
            else "it never drops, not even in training (its default is `training=False`)"
        )
        message = f"`{call}` in a method of `nn.Module` subclass `{owner.name.value}` has no `training=`: {effect}"
        self.report(node, message, self._fix(node, instance))

    def _decided_elsewhere(self, instance: str) -> bool:
        """The method picks the mode itself (`if self.training:` around or before the call), or the
        line says the dropout is meant to stay on (`# always applies dropout`)."""
        if self.context.nn_modules.consults_mode(self.context.stack, instance):
            return True
        line = next((node for node in reversed(self.context.stack) if isinstance(node, cst.SimpleStatementLine)), None)
        comment = line.trailing_whitespace.comment if line is not None else None
        return comment is not None and "always" in comment.value.lower()

    def _fix(self, node: cst.Call, instance: str) -> Optional[FixPlan]:
        flag = cst.Attribute(cst.Name(instance), cst.Name("training"))
        call = with_keywords(node, [("training", flag)])
        rendered = render_at(self.context, call, indentation(self.context, self.context.stack))
        return self.unsafe_fix(f"Pass `training={instance}.training`", Replace(node, rendered))


def _passes_training(call: cst.Call) -> bool:
    return keyword_arg(call, "training") is not None or len(positional_args(call)) > _TRAINING_POSITION
