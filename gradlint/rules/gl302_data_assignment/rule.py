from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.data_attr import data_assignment, data_nodes, under_no_grad
from gradlint.fix.builders import StripData, consecutive_runs, enclosing_line, indentation, render_at, wrap_in_no_grad
from gradlint.fix.plan import Applicability, Availability, FixPlan, ReplaceLines
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl302_data_assignment.data_copy import copy_can_replace
from gradlint.rules.gl302_data_assignment.storage_swaps import deliberate_storage_swap

_MESSAGE = (
    "Assigning to `.data` swaps the tensor's storage behind autograd (aliases go stale, shape and "
    "dtype checks are skipped); copy in place under `torch.no_grad()`"
)
_FIX_MESSAGE = "Copy in place under `torch.no_grad()` (same shape and dtype only)"


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
    for p in model.parameters():
        p.data = p.data - lr * p.grad
    ```

    ## Use instead
    ```python
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p - lr * p.grad)
    ```

    ## Fix safety
    Unsafe: `with torch.no_grad(): x.copy_(expr)` (consecutive assignments share one `with`)
    keeps aliases in sync, which the original did not: that is the intended change. It is offered
    only where it changes nothing else, that is where `expr` evidently has x's shape, dtype,
    device and layout: `expr` is computed from `x` itself or `x.grad` by element-wise steps with
    plain numbers (`x * 0.5`, `x - lr * x.grad` with `lr = 0.1` in the file, `x.clamp(-1, 1)`,
    `x.clone()`, `torch.zeros_like(x)`). Elsewhere `copy_` would cast (`.to(...)`, `.half()`),
    keep the old strides (`.contiguous()`), broadcast or raise (`.t()`, a factory of another size,
    a resized vocabulary, another module's weight of unknown shape), so the finding comes without
    a fix. A module or tensor built in the same function (re-parameterisation, frozen
    BatchNorm) is meant to receive the new tensor and gets no fix either, nor does a buffer from
    `.buffers()`, which may be an integer tensor that arithmetic with a float promotes.

    ## Known limits
    Only evident tensors are flagged (`.weight`, `.bias`, `.grad`, parameters from
    `.parameters()` loops, names bound to torch results). `self.data = ...` in a plain class is
    never flagged. Arithmetic with a number assumes a floating-point tensor (`.weight`, `.bias`,
    `.grad`, a parameter). A chained assignment (`a.data = b.data = w`), a one-line body and a line shared
    with other statements are reported without a fix.
    Not reported: the idioms that give a tensor other storage on purpose, which `copy_` cannot do
    (`storage_swaps.py` beside the rule): an in-place initialiser's result, which is the tensor
    itself (`w.data = nn.init.xavier_uniform_(w.data)`), converting a tensor in place of itself
    (`p.data = p.data.to(torch.float32)`, `.half()`, `.contiguous()`), putting back storage saved
    earlier in the function (`saved = w.data` ... `w.data = saved`), every `.data =` of a function
    that moves storage between devices that way (offloading), a module built in the same
    function adopting another tensor (`res = FrozenBatchNorm2d(n)`, also `Net(n).to(device)` or a
    class passed in, `cls(n)`; `res.weight.data = module.weight.data.clone()`) unless a torch
    factory creates the value, a tensor adopting a new module's parameter
    (`w.data = nn.Linear(a, b).to(dtype).weight.data`), a tensor re-laid out from its own storage
    (`p.data = p.data.view(n, -1)`, `p.data.chunk(world)[rank]`) or handed to a function that is
    not torch's (`p.data = shard(p.data)`, `p.data = to_half(p.data)`: a helper that only updates
    the values goes unreported too, one of the file returning a torch factory's tensor is reported), a view of part of a flat buffer
    (`p.data = flat[i : i + n].view_as(p)`), storage swapped between collections walked side by side
    (`for p, b in zip(model.parameters(), backup): p.data = b`, the EMA swap), and storage
    released (`p.data = torch.empty(0)`). A reshape after an optimizer holds state for the tensor
    raises at its next step; a transpose (`.t()`, `.permute(...)`) stays reported.
    """

    code = "GL302"
    name = "data-assignment"
    summary = "assignment to `.data`"
    severity = Severity.WARNING
    migration = "data"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = (".data",)

    VALID = (
        # A module built in the function adopts a new module's tensor, also through a subscript.
        """
        def test_transfer(meta, node_types):
            conv = RGCNConv(16, 32, num_relations=3)
            model = to_hetero(RGCN(16, 32), meta)
            for t in node_types:
                model.lin[t].bias.data = conv.bias.data
        """,
        # An in-place initialiser returns the tensor it filled: `w` gets its own storage back.
        """
        import torch
        def init_weights(m):
            m.weight.data = torch.nn.init.xavier_uniform_(m.weight.data, gain=1.0)
            m.bias.data = m.bias.data.zero_()
        """,
        "self.data = load()\n",
        "dataset.data = dataset.data[:100]\n",
        """
        import torch
        with torch.no_grad():
            m.weight.copy_(w)
        """,
        # A parameter converted in place of itself: the Parameter object keeps its identity.
        """
        import torch
        for param in model.parameters():
            param.data = param.data.to(torch.float32)
        """,
        "w.data = w.data.contiguous()\n",
        """
        def upcast(layer):
            original = layer.weight.data
            layer.weight.data = layer.weight.data.float()
            run(layer)
            layer.weight.data = original
        """,
        """
        def swap(to_cpu, to_cuda, view):
            to_cpu.weight.data = view.data.to("cpu", non_blocking=True)
            to_cuda.weight.data = view
        """,
        """
        import torch.nn as nn
        def freeze(module):
            res = FrozenBatchNorm2d(module.num_features)
            res.weight.data = module.weight.data.clone().detach()
            return res
        """,
        # a module moved as it is built, or built from a class passed in, adopts another tensor
        """
        import torch.nn as nn
        def swap(module, device, layer_cls):
            new = NewLinear(module.in_features, module.out_features).to(device)
            new.weight.data = module.weight.data
            other = layer_cls(module.in_features)
            other.weight.data = module.weight.data
            return new, other
        """,
        # a tensor adopting a new module's parameter
        """
        import torch.nn as nn
        def reinit(layer, module, a, b, dtype, cls):
            layer.weight.data = nn.Linear(a, b).to(dtype).weight.data
            new = cls(module.in_features)
            for p in module.parameters():
                p.data = new.weight
        """,
        # a conversion behind a helper of the file, a reshape or a shard of the tensor itself
        """
        import torch
        def to_half(t):
            return t.to(torch.float16)
        def prepare(model, n, world, rank):
            for p in model.parameters():
                p.data = to_half(p.data)
                p.data = shard(p.data)
                p.data = p.data.view(n, -1)
                p.data = p.data.chunk(world)[rank].clone()
                p.data = p.data.to(torch.bfloat16)
        """,
        # parameters made views of one flat buffer
        """
        import torch
        def flatten(model):
            flat = torch.cat([p.detach().view(-1) for p in model.parameters()])
            offset = 0
            for p in model.parameters():
                p.data = flat[offset : offset + p.numel()].view_as(p)
                offset += p.numel()
            return flat
        """,
        # the EMA swap: storage exchanged between collections walked side by side
        """
        class EMA:
            def store(self, model):
                self.backup = [p.data.clone() for p in model.parameters()]
            def restore(self, model):
                for p, b in zip(model.parameters(), self.backup):
                    p.data = b
        """,
        # freeing a parameter's memory while the Parameter object stays
        """
        import torch
        def release(model):
            for p in model.parameters():
                p.data = torch.empty(0)
                p.data = torch.zeros((0,), dtype=p.dtype)
        """,
        """
        import torch.nn as nn
        def reparameterize(self):
            kernel, bias = self.fuse()
            self.reparam_conv = nn.Conv2d(3, 3, 3)
            self.reparam_conv.weight.data = kernel
        """,
    )
    INVALID = (
        # A new module initialised from a torch factory: an ordinary value replacement.
        Invalid(
            """
            import torch
            import torch.nn as nn
            def build(c):
                conv = nn.Conv1d(c, c, 1)
                w = torch.linalg.qr(torch.randn(c, c))[0].view(c, c, 1)
                conv.weight.data = w
                return conv
            """,
            line=6,
            column=5,
            message="Assigning to `.data` swaps the tensor's storage behind",
        ),
        Invalid(
            """
            import torch
            with torch.no_grad():
                for p in model.parameters():
                    p.data = p.data * 0.5
            """,
            """
            import torch
            with torch.no_grad():
                for p in model.parameters():
                    p.copy_(p * 0.5)
            """,
            line=4,
            column=9,
            message="Assigning to `.data` swaps the tensor's storage behind",
            fix_title="Copy in place under `torch.no_grad()` (same shape and dtype only)",
        ),
        Invalid(  # consecutive assignments share one `with`
            """
            import torch
            LR = 0.1
            def step(layer):
                layer.weight.data = layer.weight.data - LR * layer.weight.grad
                layer.bias.data = layer.bias.data - LR * layer.bias.grad
            """,
            """
            import torch
            LR = 0.1
            def step(layer):
                with torch.no_grad():
                    layer.weight.copy_(layer.weight - LR * layer.weight.grad)
                    layer.bias.copy_(layer.bias - LR * layer.bias.grad)
            """,
            line=4,
            column=5,
            message="Assigning to `.data` swaps the tensor's storage behind",
            fix_title="Copy in place under `torch.no_grad()` (same shape and dtype only)",
        ),
        Invalid(  # a `*_like` factory keeps shape, dtype and device
            """
            import torch
            layer.weight.data = torch.ones_like(layer.weight.data)
            """,
            """
            import torch
            with torch.no_grad():
                layer.weight.copy_(torch.ones_like(layer.weight))
            """,
            line=2,
            column=1,
            message="Assigning to `.data` swaps the tensor's storage behind",
            fix_title="Copy in place under `torch.no_grad()` (same shape and dtype only)",
        ),
        Invalid(  # inside a `match` (whose `case` clauses it indents itself)
            """
            import torch
            match mode:
                case 'clip':
                    layer.weight.data = layer.weight.data.clamp(-1, 1)
            """,
            """
            import torch
            match mode:
                case 'clip':
                    with torch.no_grad():
                        layer.weight.copy_(layer.weight.clamp(-1, 1))
            """,
            line=4,
            column=9,
            message="Assigning to `.data` swaps the tensor's storage behind",
            fix_title="Copy in place under `torch.no_grad()` (same shape and dtype only)",
        ),
        Invalid(  # chained targets: reported, no fix
            """
            import torch
            a.weight.data = b.weight.data = w
            """,
            line=2,
            column=1,
            message="Assigning to `.data` swaps the tensor's storage behind",
        ),
        Invalid(  # another tensor: its shape and dtype are unknown, no fix
            """
            import torch
            target.weight.data = source.weight.data.clone()
            """,
            line=2,
            column=1,
            message="Assigning to `.data` swaps the tensor's storage behind",
        ),
        Invalid(  # a transpose copy_ would reject or mis-shape: no fix
            """
            import torch
            proj.weight.data = proj.weight.data.t()
            """,
            line=2,
            column=1,
            message="Assigning to `.data` swaps the tensor's storage behind",
        ),
        Invalid(  # vocabulary resizing: the new size is the point, no fix
            """
            import torch
            def grow(emb, n, dim):
                new = torch.zeros(n, dim)
                new[: emb.weight.shape[0]] = emb.weight.data
                emb.weight.data = new
            """,
            line=5,
            column=5,
            message="Assigning to `.data` swaps the tensor's storage behind",
        ),
        Invalid(  # a module built in the same function: no fix
            """
            import torch
            def freeze(module):
                frozen = FrozenBatchNorm2d(module.num_features)
                frozen.weight.data = frozen.weight.data * 1.0
                return frozen
            """,
            line=4,
            column=5,
            message="Assigning to `.data` swaps the tensor's storage behind",
        ),
        Invalid(  # an update of the values through a zip: not a swap
            """
            import torch
            def sgd(model, grads, lr):
                for p, g in zip(model.parameters(), grads):
                    p.data = p.data - lr * g
            """,
            line=4,
            column=9,
            message="Assigning to `.data` swaps the tensor's storage behind",
        ),
        Invalid(  # a helper of the file that makes a new tensor from a factory: an initialisation, no fix
            """
            import torch
            def initializer(weights, std=1.0):
                out = torch.randn(weights.size())
                return out * std
            def init(layer):
                layer.weight.data = initializer(layer.weight.data, 0.01)
            """,
            line=6,
            column=5,
            message="Assigning to `.data` swaps the tensor's storage behind",
        ),
        Invalid(  # a tensor of one element (`torch.empty(())` is 0-dim), not a release: no fix
            """
            import torch
            for p in model.parameters():
                p.data = torch.empty(())
            """,
            line=3,
            column=5,
            message="Assigning to `.data` swaps the tensor's storage behind",
        ),
        Invalid(  # a buffer may be an integer tensor that `* 0.5` makes float: no fix
            """
            import torch
            for b in model.buffers():
                b.data = b.data * 0.5
            """,
            line=3,
            column=5,
            message="Assigning to `.data` swaps the tensor's storage behind",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._grouped: dict[int, Optional[FixPlan]] = {}  # id(line) -> the fix shared by its run

    def visit_Module(self, node: cst.Module) -> None:
        self._group(node.body)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._group(node.body)

    def _group(self, body) -> None:
        """Consecutive assignments share one `with torch.no_grad():`."""
        stack = self.context.stack
        for run in consecutive_runs(body, self._is_fixable_line):
            if len(run) < 2 or under_no_grad(self.context, [*stack, run[0]]):
                continue
            changes = wrap_in_no_grad(self.context, run, stack, lambda line: line.with_changes(body=[self._copy(line.body[0])]))
            fix = None if changes is None else self.unsafe_fix(_FIX_MESSAGE, *changes)
            self._grouped.update((id(line), fix) for line in run)

    def _is_fixable_line(self, line: cst.CSTNode) -> bool:
        return (
            isinstance(line, cst.SimpleStatementLine)
            and len(line.body) == 1
            and isinstance(line.body[0], cst.Assign)
            and len(line.body[0].targets) == 1
            and data_assignment(self.context, line.body[0]) is not None
            and not self._deliberate(line.body[0])
            and self._copy_can_replace(line.body[0])
        )

    def _deliberate(self, node: cst.Assign) -> bool:
        target = data_assignment(self.context, node)
        return target is not None and deliberate_storage_swap(self.context, target, node.value, self.context.scope())

    def _copy_can_replace(self, node: cst.Assign) -> bool:
        target = node.targets[0].target
        return copy_can_replace(self.context, target.value, node.value, self.context.scope())

    def visit_Assign(self, node: cst.Assign) -> None:
        target = data_assignment(self.context, node)
        if target is not None and not self._deliberate(node):
            found = enclosing_line(self.context.stack)
            if found is not None and id(found[0]) in self._grouped:
                self.report(node, _MESSAGE, self._grouped[id(found[0])])
            else:
                self.report(node, _MESSAGE, self._fix(node))

    def _copy(self, node: cst.Assign) -> cst.Expr:
        """`x.copy_(expr)` for `x.data = expr`, `.data` dropped inside expr."""
        strip = StripData({id(n) for n in data_nodes(self.context, node.value)})
        target = node.targets[0].target
        return cst.Expr(cst.Call(func=cst.Attribute(value=target.value, attr=cst.Name("copy_")), args=[cst.Arg(node.value.visit(strip))]))

    def _fix(self, node: cst.Assign) -> Optional[FixPlan]:
        found = enclosing_line(self.context.stack)
        if found is None or len(found[0].body) != 1 or len(node.targets) != 1 or not self._copy_can_replace(node):
            return None
        line, index = found
        render = lambda statement: statement.with_changes(body=[self._copy(node)])  # noqa: E731
        outer = self.context.stack[:index]
        if under_no_grad(self.context, self.context.stack[: index + 1]):
            text = render_at(self.context, render(line).with_changes(leading_lines=()), indentation(self.context, outer))
            return self.unsafe_fix(_FIX_MESSAGE, ReplaceLines(line, line, text))
        changes = wrap_in_no_grad(self.context, [line], outer, render)
        return None if changes is None else self.unsafe_fix(_FIX_MESSAGE, *changes)
