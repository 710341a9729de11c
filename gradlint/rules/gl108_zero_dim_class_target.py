from __future__ import annotations

import libcst as cst

from gradlint.analysis.syntax import method_call_on
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{target}` is a 0-dim tensor since PyTorch 0.4: with a `(1, C)` input the loss raises "
    "`ValueError: Expected input batch_size (1) to match target batch_size (0)`; use `{fixed}`"
)


class ZeroDimClassTarget(Rule):
    """
    ## What it does
    Flags a class-index loss (`nn.CrossEntropyLoss`, `nn.NLLLoss`, `F.cross_entropy`,
    `F.nll_loss`) fed one element of a 1-D target sequence at a time, the char-RNN way:
    `for c in range(chunk_len): loss += criterion(output, target[c])`, where `output` is one row
    `(1, C)`.

    ## Why is this bad?
    In PyTorch 0.3 indexing a tensor (or iterating it) gave a 1-element tensor of shape `(1,)`,
    which is the target a `(1, C)` input wants. Since 0.4 `target[c]` is 0-dim, and in torch 2.13
    the loss raises `ValueError: Expected input batch_size (1) to match target batch_size (0).`
    (A 1-D input `(C,)` does accept a 0-dim target: that case is fine and not reported.)

    ## Example
    ```python
    from torch import nn
    criterion = nn.CrossEntropyLoss()
    for c in range(chunk_len):
        output, hidden = decoder(inp[c], hidden)
        loss += criterion(output, target[c])
    ```

    ## Use instead
    ```python
    from torch import nn
    criterion = nn.CrossEntropyLoss()
    for c in range(chunk_len):
        output, hidden = decoder(inp[c], hidden)
        loss += criterion(output, target[c].unsqueeze(0))
    ```

    ## Fix safety
    `target[c]` becomes `target[c].unsqueeze(0)`: the `(1,)` target of 0.3, so the loss is
    bitwise the legacy one. (`target[c:c+1]` would be empty for a negative `c`.) Safe when the
    input is shaped as a batch of one in the call (`output.view(1, -1)`, `.unsqueeze(0)`) and the
    target sequence is evidently 1-D: the original raises. Unsafe when the `(1, C)` shape is
    inferred from a model stepped on one element of a paired sequence (`decoder(inp[c], h)`): a
    model returning `(C,)` would accept the 0-dim target and reject the `(1,)` one.

    ## Known limits
    Reported only with evidence of a one-row input: a model called on the element of a sequence
    indexed by the same loop variable, or an input shaped as a batch of one with a target built
    from a flat list (or `.view(-1)`). Targets of unknown shape, batched loops (`target[:, c]`),
    elements picked by a literal index (`target[0]`) outside a loop and criteria not bound to a
    class-index loss in the file are left alone. A criterion received as a parameter counts when
    every call of the function in the file passes a class-index loss module for it.
    """

    code = "GL108"
    name = "zero-dim-class-target"
    summary = "class-index loss fed a 0-dim target element"
    severity = Severity.ERROR
    migration = "variable"
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = ("cross_entropy", "nll_loss", "CrossEntropyLoss", "NLLLoss")

    VALID = (
        """
        import torch.nn as nn
        criterion = nn.CrossEntropyLoss()
        for c in range(chunk_len):
            output, hidden = decoder(inp[c], hidden)
            loss += criterion(output, target[c].unsqueeze(0))
        """,
        """
        import torch.nn as nn
        criterion = nn.CrossEntropyLoss()
        for c in range(chunk_len):
            output, hidden = decoder(inp[:, c], hidden)
            loss += criterion(output, target[:, c])
        """,
        """
        import torch.nn as nn
        criterion = nn.CrossEntropyLoss()
        for di in range(target_length):
            output, hidden = decoder(decoder_input, hidden)
            loss += criterion(output, target[di])
        """,
        """
        import torch.nn.functional as F
        for t in range(steps):
            loss += F.cross_entropy(logits[t], target[t])
        """,
        """
        criterion = make_loss()
        for c in range(chunk_len):
            output, hidden = decoder(inp[c], hidden)
            loss += criterion(output, target[c])
        """,
        """
        import torch.nn as nn
        def train(decoder, criterion, inp, target):
            for c in range(chunk_len):
                output, hidden = decoder(inp[c], hidden)
                loss += criterion(output, target[c])
        train(decoder, nn.CrossEntropyLoss(), *batch())
        train(decoder, nn.MSELoss(), *batch())
        """,
        """
        import torch.nn as nn
        def train(decoder, criterion, inp, target):
            for c in range(chunk_len):
                output, hidden = decoder(inp[c], hidden)
                loss += criterion(output, target[c])
        def main():
            criterion = nn.MSELoss()
            train(decoder, criterion, *batch())
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch.nn as nn
            criterion = nn.CrossEntropyLoss()
            def train(inp, target):
                loss = 0
                for c in range(chunk_len):
                    output, hidden = decoder(inp[c], hidden)
                    loss += criterion(output, target[c])
            """,
            """
            import torch.nn as nn
            criterion = nn.CrossEntropyLoss()
            def train(inp, target):
                loss = 0
                for c in range(chunk_len):
                    output, hidden = decoder(inp[c], hidden)
                    loss += criterion(output, target[c].unsqueeze(0))
            """,
            line=7,
            column=35,
            message="`target[c]` is a 0-dim tensor since PyTorch 0.4",
            fix_title="Replace with `target[c].unsqueeze(0)`",
        ),
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            target = torch.LongTensor([3, 1, 4])
            for i in range(len(target)):
                loss = F.nll_loss(scores[i].view(1, -1), target[i])
            """,
            """
            import torch
            import torch.nn.functional as F
            target = torch.LongTensor([3, 1, 4])
            for i in range(len(target)):
                loss = F.nll_loss(scores[i].view(1, -1), target[i].unsqueeze(0))
            """,
        ),
        Invalid(
            """
            import torch
            from torch import nn
            class Tagger:
                def __init__(self):
                    self.loss_fn = nn.NLLLoss()
                def step(self, words, tags):
                    tags = torch.tensor([self.tag_ids[t] for t in tags])
                    for tag in tags:
                        out = self.score(words).unsqueeze(0)
                        self.loss_fn(out, tag).backward()
            """,
            """
            import torch
            from torch import nn
            class Tagger:
                def __init__(self):
                    self.loss_fn = nn.NLLLoss()
                def step(self, words, tags):
                    tags = torch.tensor([self.tag_ids[t] for t in tags])
                    for tag in tags:
                        out = self.score(words).unsqueeze(0)
                        self.loss_fn(out, tag.unsqueeze(0)).backward()
            """,
        ),
        Invalid(
            """
            import torch.nn as nn
            def train(decoder, criterion, inp, target):
                for c in range(chunk_len):
                    output, hidden = decoder(inp[c], hidden)
                    loss += criterion(output, target[c])
            def main():
                criterion = nn.CrossEntropyLoss()
                train(decoder, criterion, *batch())
            """,
            """
            import torch.nn as nn
            def train(decoder, criterion, inp, target):
                for c in range(chunk_len):
                    output, hidden = decoder(inp[c], hidden)
                    loss += criterion(output, target[c].unsqueeze(0))
            def main():
                criterion = nn.CrossEntropyLoss()
                train(decoder, criterion, *batch())
            """,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = self.context.class_targets.per_element_target(node, self.context.stack)
        if found is None:
            return
        replacement = method_call_on(found.target, "unsqueeze", cst.Arg(cst.Integer("0")))
        fixed = self.context.code_for(replacement)
        title = f"Replace with `{snippet(fixed, 60)}`"
        fix = (self.safe_fix if found.certain else self.unsafe_fix)(title, Replace(found.target, replacement))
        target = snippet(self.context.code_for(found.target), 40, "the target")
        self.report(found.target, _MESSAGE.format(target=target, fixed=snippet(fixed, 50, "x.unsqueeze(0)")), fix)
