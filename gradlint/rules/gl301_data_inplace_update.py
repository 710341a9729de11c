from __future__ import annotations

from typing import Sequence

import libcst as cst

from gradlint.analysis.data_attr import data_nodes, init_on_data, inplace_data_update, under_no_grad
from gradlint.fix.builders import StripData, consecutive_runs, indentation, render_at, torch_alias, wrap_in_no_grad
from gradlint.fix.plan import Applicability, Availability, Change, FixPlan, Replace, ReplaceLines
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "In-place update through `.data` bypasses autograd's version check (a saved tensor changed this "
    "way gives silently wrong gradients); update the tensor itself under `torch.no_grad()`"
)


class DataInplaceUpdate(Rule):
    """
    ## What it does
    Flags in-place updates made through a tensor's `.data`: augmented assignments
    (`p.data -= lr * p.grad.data`), in-place methods (`w.data.clamp_(-c, c)`, `.zero_()`,
    `.copy_(...)`, `.normal_()`, chains such as `ema.data.mul_(d).add_(p.data)`...), writes
    through an index (`w.data[w.data < 0] = 0`), in-place methods on a view of `.data` by
    slices and literal indices (`x.data[:, 0].sub_(mean)`) and `torch.nn.init.*_(m.weight.data, ...)`.

    ## Why is this bad?
    `.data` hides the change from autograd's version counter. In torch 2.13, `y = x.sigmoid();
    y.data.mul_(2)` then backward gives `x.grad = [-0.3049, 0.2486, -1.3416]` instead of the
    analytic `[0.2350, 0.1966, 0.1050]`, and `torch.autograd.gradcheck` rejects it; clamping a
    weight through `.data` between forward and backward silently corrupts the input gradient.
    The same update under `torch.no_grad()` raises `RuntimeError: one of the variables needed for
    gradient computation has been modified by an inplace operation`.

    ## Example
    ```python
    for p in model.parameters():
        p.data -= lr * p.grad.data
    nn.init.normal_(m.weight.data, 0.0, 0.02)
    ```

    ## Use instead
    ```python
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
    nn.init.normal_(m.weight, 0.0, 0.02)
    ```

    ## Fix safety
    Safe: the statement is wrapped in `with torch.no_grad():` with `.data` removed (consecutive
    statements share one `with`; inside an existing no-grad block `.data` is just dropped;
    `p.grad.data` becomes `p.grad`). The results are bitwise equal (five SGD forms checked); the
    only difference is that an update of a tensor a live graph still needs now raises instead of
    silently corrupting gradients. `nn.init` functions already run without grad, so only `.data`
    is dropped there. Unsafe where a receiver is a tensor only by its name in a file that never
    imports torch: on a numpy masked array, `a.data[mask] = 0` writes the data under the mask and
    `a[mask] = 0` the masked array.

    ## Known limits
    An update that shares its line with another statement (`loss = f(x); w.data.zero_()`) is
    reported without a fix, as is a one-line `elif`/`try` body; other one-line bodies
    (`for p in ps: p.data -= x`) are split into an indented `with` block. Metadata-only in-place
    methods (`set_`, `resize_`, `unsqueeze_`, `t_`, `detach_`...) are not updates: on `x.data`
    they leave `x` unchanged, so GL303 rewrites them to `x.detach()`, which behaves the same.
    Only tensors the analysis can see are flagged: parameters from `.parameters()` loops and
    from an optimizer's `group["params"]`, `nn.Parameter`s, registered buffers, `.weight`, `.bias`,
    `.grad`, names bound to torch results, `self.buffer` just assigned a tensor in the same method
    with nothing between that may rebind it (a method of `self`, a call given `self`). `self.data` of a plain class,
    `dataset.data` and module paths such as `torch.utils.data` are never touched.
    """

    code = "GL301"
    name = "data-inplace-update"
    summary = "in-place update through `.data`"
    severity = Severity.WARNING
    migration = "data"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = (".data",)

    VALID = (
        """
        import torch
        with torch.no_grad():
            w -= lr * w.grad
        """,
        "dataset.data -= mean\n",
        "self.data.fill_(0)\n",
        """
        import torch.utils.data
        loader = torch.utils.data.DataLoader(ds)
        """,
        "y = x.data.clone()\n",
        # An index tensor selects a copy: the update reaches a temporary (GL303 reports the read).
        """
        import torch
        w = torch.zeros(3, 4)
        w.data[rows].fill_(1.0)
        """,
        # Metadata-only in-place ops leave `m.weight` as it was when applied to `.data` (GL303's).
        """
        m = torch.nn.Linear(2, 2)
        m.weight.data.unsqueeze_(0)
        m.weight.data.set_(w)
        """,
        # `self.buffer` may have been rebound by the method called in between.
        """
        import torch
        import torch.nn as nn
        class Model(nn.Module):
            def reset(self, n):
                self.buffer = torch.zeros(n)
                self.refresh()
                self.buffer.data.fill_(1)
            def refresh(self):
                self.buffer = load_buffer()
        """,
        # `group["params"]` of something that is not an optimizer's param groups.
        """
        for group in settings:
            for p in group["params"]:
                p.data.add_(1)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            for p in model.parameters():
                p.data -= lr * p.grad.data
            """,
            """
            import torch
            for p in model.parameters():
                with torch.no_grad():
                    p -= lr * p.grad
            """,
            line=3,
            column=5,
            message="In-place update through `.data` bypasses autograd's version",
            fix_title="Update under `torch.no_grad()` without `.data`",
        ),
        Invalid(
            """
            import torch
            images = torch.rand(4, 3, 8, 8, requires_grad=True)
            images.data[:, 0].sub_(0.5).div_(0.5)
            images.data[:, 1:].mul_(2)
            """,
            """
            import torch
            images = torch.rand(4, 3, 8, 8, requires_grad=True)
            with torch.no_grad():
                images[:, 0].sub_(0.5).div_(0.5)
                images[:, 1:].mul_(2)
            """,
        ),
        Invalid(
            """
            import torch
            def clip(model):
                # keep weights small
                model.weight.data.clamp_(-0.01, 0.01)
                model.bias.data.zero_()
                return model
            """,
            """
            import torch
            def clip(model):
                # keep weights small
                with torch.no_grad():
                    model.weight.clamp_(-0.01, 0.01)
                    model.bias.zero_()
                return model
            """,
            line=4,
            column=5,
            message="In-place update through `.data` bypasses autograd's version",
            fix_title="Update under `torch.no_grad()` without `.data`",
        ),
        Invalid(
            """
            import torch
            w = torch.randn(3, requires_grad=True)
            with torch.no_grad():
                w.data.add_(-lr, w.grad.data)
            """,
            """
            import torch
            w = torch.randn(3, requires_grad=True)
            with torch.no_grad():
                w.add_(-lr, w.grad)
            """,
            line=4,
            column=5,
            message="In-place update through `.data` bypasses autograd's version",
            fix_title="Drop `.data` (already under no_grad)",
        ),
        Invalid(
            """
            import torch.nn as nn
            nn.init.normal_(m.weight.data, 0.0, 0.02)
            """,
            """
            import torch.nn as nn
            nn.init.normal_(m.weight, 0.0, 0.02)
            """,
            line=2,
            column=1,
            message="`nn.init` on `.data` is legacy; pass the tensor itself",
            fix_title="Drop `.data` (`nn.init` runs without grad)",
        ),
        Invalid(
            """
            for p in net.parameters():
                p.data.mul_(0.5)
            """,
            """
            import torch
            for p in net.parameters():
                with torch.no_grad():
                    p.mul_(0.5)
            """,
            line=2,
            column=5,
            message="In-place update through `.data` bypasses autograd's version",
            fix_title="Update under `torch.no_grad()` without `.data`",
        ),
        Invalid(  # one-line bodies become indented blocks
            """
            import torch
            for p in model.parameters():
                if p.grad is not None: p.data.add_(p.grad.data, alpha=-lr)
                else: p.data.zero_()  # unused
            """,
            """
            import torch
            for p in model.parameters():
                if p.grad is not None:
                    with torch.no_grad():
                        p.add_(p.grad, alpha=-lr)
                else:
                    with torch.no_grad():
                        p.zero_()  # unused
            """,
            line=3,
            column=28,
            message="In-place update through `.data` bypasses autograd's version",
            fix_title="Update under `torch.no_grad()` without `.data`",
        ),
        Invalid(  # in-place chains (EMA) and writes through an index
            """
            import torch
            for p, q in zip(model.parameters(), ema.parameters()):
                q.data.mul_(0.99).add_(p.data, alpha=0.01)
                q.data[q.data < 0] = 0
            """,
            """
            import torch
            for p, q in zip(model.parameters(), ema.parameters()):
                with torch.no_grad():
                    q.mul_(0.99).add_(p, alpha=0.01)
                    q[q < 0] = 0
            """,
            line=3,
            column=5,
            message="In-place update through `.data` bypasses autograd's version",
            fix_title="Update under `torch.no_grad()` without `.data`",
        ),
        Invalid(  # the parameters of an optimizer's param groups
            """
            import torch
            def sgd_step(optimizer):
                for group in optimizer.param_groups:
                    for p in group["params"]:
                        p.data.add_(p.grad, alpha=-group["lr"])
            """,
            """
            import torch
            def sgd_step(optimizer):
                for group in optimizer.param_groups:
                    for p in group["params"]:
                        with torch.no_grad():
                            p.add_(p.grad, alpha=-group["lr"])
            """,
            line=5,
            column=13,
            message="In-place update through `.data` bypasses autograd's version",
            fix_title="Update under `torch.no_grad()` without `.data`",
        ),
        Invalid(  # a parameter and a registered buffer of a module
            """
            import torch
            from torch import nn
            class Norm(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.scale = nn.Parameter(torch.ones(4))
                    self.register_buffer("steps", torch.zeros(()))
                def reset(self):
                    self.scale.data.fill_(1.0)
                    self.steps.data.zero_()
            """,
            """
            import torch
            from torch import nn
            class Norm(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.scale = nn.Parameter(torch.ones(4))
                    self.register_buffer("steps", torch.zeros(()))
                def reset(self):
                    with torch.no_grad():
                        self.scale.fill_(1.0)
                        self.steps.zero_()
            """,
            line=9,
            column=9,
            message="In-place update through `.data` bypasses autograd's version",
            fix_title="Update under `torch.no_grad()` without `.data`",
        ),
        # Sharing a line with another statement: no_grad would also switch off that statement's graph.
        Invalid(
            """
            import torch
            def f(model, x):
                loss = model(x).sum(); model.weight.data.zero_()
                return loss
            """,
            line=3,
            column=28,
            message="In-place update through `.data` bypasses autograd's version",
        ),
        Invalid(  # `case` clauses are indented by the `match` itself, not by an indented block
            """
            import torch
            match mode:
              case 'sgd':
                for p in model.parameters():
                  p.data.add_(p.grad.data, alpha=-lr)
            """,
            """
            import torch
            match mode:
              case 'sgd':
                for p in model.parameters():
                  with torch.no_grad():
                    p.add_(p.grad, alpha=-lr)
            """,
            line=5,
            column=7,
            message="In-place update through `.data` bypasses autograd's version",
            fix_title="Update under `torch.no_grad()` without `.data`",
        ),
        Invalid(  # `self.coord` is the tensor just assigned: nothing between may rebind it
            """
            import numpy as np
            import torch
            import torch.nn as nn
            class RN(nn.Module):
                def __init__(self, args):
                    super(RN, self).__init__()
                    self.coord = torch.empty(args.batch_size, 25, 2)
                    if args.cuda:
                        self.coord = self.coord.cuda()
                    coords = np.zeros((args.batch_size, 25, 2))
                    self.coord.data.copy_(torch.from_numpy(coords))
            """,
            """
            import numpy as np
            import torch
            import torch.nn as nn
            class RN(nn.Module):
                def __init__(self, args):
                    super(RN, self).__init__()
                    self.coord = torch.empty(args.batch_size, 25, 2)
                    if args.cuda:
                        self.coord = self.coord.cuda()
                    coords = np.zeros((args.batch_size, 25, 2))
                    with torch.no_grad():
                        self.coord.copy_(torch.from_numpy(coords))
            """,
            line=11,
            column=9,
            fix_title="Update under `torch.no_grad()` without `.data`",
        ),
        # A tensor only by its name in a file that never imports torch (a numpy masked array has a
        # `.data` too): the fix is unsafe.
        Invalid(
            """
            def clear(output, mask):
                output.data[mask] = 0
            """,
            """
            import torch
            def clear(output, mask):
                with torch.no_grad():
                    output[mask] = 0
            """,
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._check_block(node.body)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._check_block(node.body)

    def visit_Call(self, node: cst.Call) -> None:
        target = init_on_data(self.context, node)
        if target is not None:
            fix = self.safe_fix("Drop `.data` (`nn.init` runs without grad)", Replace(target, target.value))
            self.report(node, "`nn.init` on `.data` is legacy; pass the tensor itself (init already runs under no_grad)", fix)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        # `for p in ps: p.data -= x`: the one-line body becomes an indented `with` block.
        if not all(inplace_data_update(self.context, small) is not None for small in node.body):
            self._report_unwrappable(node.body)
            return
        fix = self._suite_fix(node)
        if fix is None:
            self._report_unwrappable(node.body)
            return
        for small in node.body:
            self.report(small, _MESSAGE, fix)

    def _suite_fix(self, suite: cst.SimpleStatementSuite):
        stack = self.context.stack
        if under_no_grad(self.context, [*stack, suite.body[0]]) or len(stack) < 3:
            return None  # the plain `.data` drop of `_report_unwrappable`
        owner, block = stack[-2], stack[-3]
        if isinstance(owner, (cst.For, cst.While, cst.If, cst.With)):
            if not isinstance(block, (cst.IndentedBlock, cst.Module)) or owner.body is not suite:
                return None  # `elif ...: ...` renders differently on its own
        elif not isinstance(owner, cst.Else):
            return None  # `def f(): ...`, `class C: ...`, `try: ...`
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        datas = [n for small in suite.body for n in data_nodes(self.context, small)]
        strip = StripData({id(n) for n in datas})
        inner = cst.SimpleStatementLine(body=[small.visit(strip) for small in suite.body], trailing_whitespace=suite.trailing_whitespace)
        no_grad = cst.With(
            items=[cst.WithItem(cst.Call(cst.Attribute(cst.Name(alias), cst.Name("no_grad"))))],
            body=cst.IndentedBlock([inner]),
        )
        rewritten = owner.with_changes(body=cst.IndentedBlock([no_grad]), leading_lines=())
        text = render_at(self.context, rewritten, indentation(self.context, stack[:-2]))
        changes.append(ReplaceLines(owner, owner, text))
        return self._plan("Update under `torch.no_grad()` without `.data`", changes, datas)

    def _check_block(self, body: Sequence[cst.CSTNode]) -> None:
        for group in consecutive_runs(body, self._is_update_line):
            fix = self._fix(group)
            for line in group:
                for small in line.body:
                    self.report(small, _MESSAGE, fix)
        for line in body:
            if isinstance(line, cst.SimpleStatementLine) and not self._is_update_line(line):
                # Updates sharing a line with other statements (`loss = f(x); w.data.zero_()`):
                # wrapping the line would run those under no_grad too.
                self._report_unwrappable(line.body)

    def _report_unwrappable(self, smalls: Sequence[cst.BaseSmallStatement]) -> None:
        updates = [small for small in smalls if inplace_data_update(self.context, small) is not None]
        if not updates:
            return
        fix = None
        if under_no_grad(self.context, [*self.context.stack, updates[0]]):
            datas = [n for small in updates for n in data_nodes(self.context, small)]
            fix = self._plan("Drop `.data` (already under no_grad)", [Replace(n, n.value) for n in datas], datas)
        for small in updates:
            self.report(small, _MESSAGE, fix)

    def _is_update_line(self, line: cst.CSTNode) -> bool:
        """A line made only of in-place `.data` updates (so the whole line can go under no_grad)."""
        return isinstance(line, cst.SimpleStatementLine) and all(
            inplace_data_update(self.context, small) is not None for small in line.body
        )

    def _fix(self, group: list[cst.SimpleStatementLine]):
        stack = self.context.stack
        strip = lambda line: line.visit(StripData({id(n) for n in data_nodes(self.context, line)}))  # noqa: E731
        datas = [n for line in group for n in data_nodes(self.context, line)]
        if under_no_grad(self.context, [*stack, group[0]]):
            return self._plan("Drop `.data` (already under no_grad)", [Replace(n, n.value) for n in datas], datas)
        changes = wrap_in_no_grad(self.context, group, stack, strip)
        if changes is None:
            return None
        return self._plan("Update under `torch.no_grad()` without `.data`", changes, datas)

    def _plan(self, title: str, changes: Sequence[Change], datas: Sequence[cst.Attribute]) -> FixPlan:
        """Safe only when every `.data` receiver is evidently a tensor: on another object (a numpy
        masked array) dropping `.data` writes somewhere else."""
        known = all(self.context.is_known_tensor(data.value) for data in datas)
        return (self.safe_fix if known else self.unsafe_fix)(title, *changes)
