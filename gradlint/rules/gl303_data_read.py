from __future__ import annotations

import libcst as cst

from gradlint.analysis.data_attr import (
    data_is_redundant,
    is_plain_data_read,
    is_tensor_data,
    may_index_a_number,
    reshapes_a_temporary,
    resizes_a_temporary,
    under_no_grad,
)
from gradlint.analysis.syntax import method_call_on
from gradlint.fix.builders import enclosing_line, remove_line, wrap_in_no_grad
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`.data` gives a view that autograd does not track: mutating it while a graph needs the tensor "
    "silently corrupts gradients; use `{replacement}`"
)
_INDEX_MESSAGE = (
    "`.data` read with an index: if `{receiver}` holds one number (0-dim since PyTorch 0.4, a loss) the index "
    "raises IndexError, and `.detach()` would too; read `{receiver}.item()` then, else index `{receiver}.detach()`"
)
_RESIZE_MESSAGE = (
    "`{text}` resizes a temporary, not `{tensor}`: in torch 2.x `{tensor}` keeps its old size and "
    "misses the values written after the resize; resize `{tensor}` itself under `torch.no_grad()`"
)
_RESIZE_FIX = "Resize `{tensor}` itself under `torch.no_grad()`"


class DataRead(Rule):
    """
    ## What it does
    Flags reads of a tensor's `.data`: `y = x.data`, `x.data.cpu().numpy()`, `out.data.max(1)`,
    `p.grad.data`.

    ## Why is this bad?
    `x.data` and `x.detach()` share storage, but only `.detach()` shares the version counter. In
    torch 2.13, with `out = (x ** 2).sum()`, mutating `x.data.mul_(10)` and then calling backward
    gives a silent `x.grad = [20, 40, 60]` where the truth is `[2, 4, 6]`; through `x.detach()`
    the same mutation raises `RuntimeError: ... modified by an inplace operation`.

    ## Example
    ```python
    pred = output.data.max(1)[1]
    grad_norm = p.grad.data.norm()
    ```

    ## Use instead
    ```python
    pred = output.detach().max(1)[1]
    grad_norm = p.grad.norm()
    ```

    ## Fix safety
    Safe: `.data` becomes `.detach()` (`x.grad.data` becomes `x.grad`, which needs neither). The
    values, storage, dtype and `requires_grad=False` are the same; the only change is that an
    illegal in-place mutation now raises instead of silently corrupting gradients. Where the
    receiver is a tensor only by its name (`output_node.data`) in a file that never imports torch,
    or is a Python number, every fix below is unsafe: other objects have a `.data` too (a template
    node's string, a numpy masked array), and `.detach()` raises on them.

    `.data` is simply dropped where `.detach()` would add nothing: a metadata read of any tensor
    (`x.data.size()`, `.shape`, `.dim()`, `.numel()`, `.dtype`, `.device`, `.is_cuda`), and a value
    that provably carries no history (a factory's tensor, a loader's batch, the indices of
    `torch.max(out, 1)[1]`: see the history fact of GL101) consumed by something that makes a
    new value (`.numpy()`, `.tolist()`, `.item()`, reductions, views, arithmetic, also after
    `.cpu()`/`.to()`/`.float()`), and the operand of a tensor's comparison method
    (`pred.eq(label.data)`) whatever it carries: a comparison reads values only and gives no history. There `x` and `x.detach()` give the same values, flags and
    version counter, and no code sees the object itself. So does a call handed the last read of
    a local bound to a new object without history (`comparison = torch.cat(...)` under no_grad,
    then `save_image(comparison.data.cpu())`): no other code can reach `comparison` to tell it
    from an alias. A conversion whose result is kept
    (`y = x.data.cpu()`, which may be `x` itself) and in-place methods keep `.detach()`, as does
    a value that may carry history (a model output, a parameter), except in one case: `y =
    x.data` under `torch.no_grad()` where every later read of `y` is in the same block and takes
    only its values (arithmetic, reductions, comparisons, `.item()`, `.tolist()`, indexing). A
    module's output may be a parameter it holds, which requires grad even there, but whatever is
    computed from it with autograd off has the same values and no grad. Printing or formatting
    `y`, `.numpy()`, returning or storing it, its flags, in-place changes or a read after the
    block keep `.detach()`. `x = x.data` that becomes `x = x` is removed (`pass` where the block
    would be left empty, or the whole `if isinstance(x, ...):` with no `else` that guarded it).

    A resize of `x.detach()` whose result the statement does not keep,
    `x.detach().resize_(n).fill_(v)` (also `resize_as_`), is a bug of its own with its own message:
    written for torch 0.3's `x.data.resize_(n)`, which resized and filled `x`, it resizes a
    temporary in torch 2.13, and `x` keeps its old size (a (2,) tensor stays (2,) and shows only
    the first two values written). The fix is unsafe: `with torch.no_grad(): x.resize_(n).fill_(v)`
    restores the old meaning and is otherwise the same statement (no graph is recorded), but where
    `x` requires grad (a parameter) `resize_` raises `cannot resize variables that require grad`
    instead of silently doing nothing.

    No fix is offered for an index of ints into a value of unknown dims (`output.data[0]`,
    `out.data.cpu().numpy()[i]`, `x.data[0, 0]`): if the value is one number, 0-dim since PyTorch
    0.4 (a loss the rule cannot tell), the read raises IndexError and `x.detach()[0]` raises the
    same, while the finding would be gone; the number is `x.item()`, a row is `x.detach()[0]`, and
    only the reader knows which. With a literal shape of enough dims, or one int into a layer's
    `.weight` or `.bias` (0.3 had no 0-dim tensors), the fix is offered; the number reads of
    evident one-number values are GL103's.

    ## Known limits
    Writes through `.data` are GL301/GL302, in-place changes of shape or storage through it
    (`x.data.t_()`, `x.data.resize_(n).copy_(src)`) GL304's, and the number reads of GL103 (`loss.data[0]`,
    `loss.data.cpu().numpy()[0]`, and `total_loss += loss.data` where `total_loss` is read as
    `total_loss[0]`) become `.item()` there; `model.bias.data[0]` is a read like any other. Only evident tensors
    are flagged: `dataset.data`, `self.data`, `args.data`, numpy arrays and module paths such as
    `torch.utils.data` are not, nor a name whose binding the read sees is another library's
    (`x = sp.load_npz(p).tocsr()`, then `x.data`), whatever the name is bound to later. Evidence includes the code on the way to the read: the branch of
    `isinstance(p, nn.Parameter)`, and a name an earlier `F.nll_loss(output, label)` of the same
    function was given (such losses raise unless given tensors).
    """

    code = "GL303"
    name = "data-read"
    summary = "read of `.data` instead of `.detach()`"
    severity = Severity.WARNING
    migration = "data"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = (".data", "resize_")

    VALID = (
        """
        import torch.utils.data
        ds = torch.utils.data.TensorDataset(x)
        """,
        """
        from torchtext import data
        field = data.Field()
        """,
        "x = dataset.data\n",
        """
        import scipy.sparse as sp
        import torch
        x = sp.load_npz(path).tocsr()
        if x.shape[-1] > 10000:
            x = torch.sparse_csr_tensor(x.indptr, x.indices, x.data, size=x.shape)
        """,
        "x = self.data\n",
        "n = args.data\n",
        "v = loss.data[0]\n",
        "v = loss.data.cpu().numpy()[0]\n",
        """
        total_loss = 0
        total_loss += loss.data
        print(total_loss[0])
        """,
        "y = x.detach()\n",
        """
        for p in model.parameters():
            p.data -= lr * p.grad.data
        """,
        """
        import torch.nn as nn
        nn.init.normal_(m.weight.data, 0.0, 0.02)
        """,
        "ema.weight.data.mul_(0.99).add_(model.weight.data)\n",
        "w.data[w.data < 0] = 0\n",
        """
        import torch
        with torch.no_grad():
            buffer.resize_(batch.size()).copy_(batch)
        """,
        "y = m.weight.detach().resize_(5)\n",
        # In-place changes of shape or storage through `.data` are GL304's.
        """
        import torch
        buffer = torch.zeros(2)
        buffer.data.resize_(batch.size()).copy_(batch)
        y = buffer.data.resize_(5)
        buffer.data.t_()
        """,
        # An RNN given a packed sequence returns one: its `.data` is a field, not a tensor's `.data`.
        """
        from torch.nn.utils.rnn import pack_padded_sequence
        def encode(rnn, x, lengths):
            out, hidden = rnn(pack_padded_sequence(x, lengths))
            return out.data
        """,
        # Not tensors on the way: another library's class or loss, the other branch of a test.
        """
        import tensorflow as tf
        from mylosses import nll_loss
        def read(x, output, seq):
            loss = nll_loss(output, seq)
            if isinstance(x, tf.Variable):
                return x.data, seq.data
        """,
        """
        import torch
        def read(x):
            if not isinstance(x, torch.Tensor):
                return x.data
        """,
        # An argument used only by value could be a numpy array, whose `.data` is its buffer.
        """
        def checksum(array):
            return bytes(array.data), array.argmax()
        """,
    )
    INVALID = (
        Invalid("pred = output.data.max(1)[1]\n", "pred = output.detach().max(1)[1]\n"),
        Invalid(
            """
            for p in model.parameters():
                g = p.grad.data.norm()
            """,
            """
            for p in model.parameters():
                g = p.grad.norm()
            """,
        ),
        Invalid(
            """
            import torch
            x = torch.randn(3)
            y = x.data
            """,
            """
            import torch
            x = torch.randn(3)
            y = x.detach()
            """,
        ),
        Invalid(
            """
            import torch
            x = torch.randn(3, 4)
            y = x.data[0]
            z = output.data[:, 0]
            w = model.weight.data[0]
            """,
            """
            import torch
            x = torch.randn(3, 4)
            y = x.detach()[0]
            z = output.detach()[:, 0]
            w = model.weight.detach()[0]
            """,
        ),
        # An int index into a value of unknown dims: if it is a loss (0-dim), `.detach()[0]` raises
        # as `.data[0]` does, so no fix hides the finding.
        Invalid(
            """
            def train(model, criterion, x, y):
                output = model(x)
                return output.data[0], output.data.cpu().numpy()[i], output.data[0, 0]
            """,
            """
            def train(model, criterion, x, y):
                output = model(x)
                return output.data[0], output.data.cpu().numpy()[i], output.data[0, 0]
            """,
            line=3,
            column=12,
            message="if `output` holds one number (0-dim since PyTorch 0.4, a loss) the index raises IndexError",
        ),
        Invalid(  # only the filled tensor is GL301's
            """
            import torch.nn as nn
            nn.init.normal_(m.weight.data, 0.0, m.bias.data.std())
            """,
            """
            import torch.nn as nn
            nn.init.normal_(m.weight.data, 0.0, m.bias.detach().std())
            """,
        ),
        Invalid(  # a typed tensor class matches by dtype and device: the same through `.data`
            """
            import torch
            import torch.nn as nn
            def forward(self, h):
                x = torch.relu(h)
                if isinstance(x.data, torch.cuda.FloatTensor):
                    return x
                if isinstance(x.data, nn.Parameter):
                    return x
            """,
            """
            import torch
            import torch.nn as nn
            def forward(self, h):
                x = torch.relu(h)
                if isinstance(x, torch.cuda.FloatTensor):
                    return x
                if isinstance(x.detach(), nn.Parameter):
                    return x
            """,
        ),
        Invalid(  # metadata is the same through `.data` for any tensor
            "n = list(m.weight.data.size()) + [output.data.shape[0], output.data.dim()]\n",
            "n = list(m.weight.size()) + [output.shape[0], output.dim()]\n",
        ),
        Invalid(  # values without history consumed by a new value: no `.detach()` needed
            """
            import torch
            x = torch.linspace(-1, 1, 100)
            a = x.data.numpy()
            b = x.data.cpu().tolist()
            c = x.data * 2
            def predict(model, images):
                out = model(images)
                return torch.max(out, 1)[1].data.squeeze(), out.data.numpy()
            """,
            """
            import torch
            x = torch.linspace(-1, 1, 100)
            a = x.numpy()
            b = x.cpu().tolist()
            c = x * 2
            def predict(model, images):
                out = model(images)
                return torch.max(out, 1)[1].squeeze(), out.detach().numpy()
            """,
        ),
        Invalid(  # read only by value with autograd off: the module's output itself gives the same numbers
            """
            import torch
            def sample(netG, noise):
                with torch.no_grad():
                    samples = netG(noise).data
                    print("mean", samples.mean(0).tolist())
                    predicted = netG(noise)
                    predicted = predicted.data
                    error = (predicted - noise).abs().max().item()
                return error
            """,
            """
            import torch
            def sample(netG, noise):
                with torch.no_grad():
                    samples = netG(noise)
                    print("mean", samples.mean(0).tolist())
                    predicted = netG(noise)
                    error = (predicted - noise).abs().max().item()
                return error
            """,
        ),
        Invalid(  # a guard left with nothing to do goes with the line; one with an `else` keeps `pass`
            """
            import torch
            def evaluate(model, x, y, mode):
                with torch.no_grad():
                    predicted = model(x)
                    if isinstance(predicted, torch.Tensor):
                        predicted = predicted.data
                    error = (predicted - y).abs().max().item()
                    scale = model(y)
                    if isinstance(scale, torch.Tensor):
                        scale = scale.data
                    else:
                        mode = "other"
                    return error * scale.sum().item(), mode
            """,
            """
            import torch
            def evaluate(model, x, y, mode):
                with torch.no_grad():
                    predicted = model(x)
                    error = (predicted - y).abs().max().item()
                    scale = model(y)
                    if isinstance(scale, torch.Tensor):
                        pass
                    else:
                        mode = "other"
                    return error * scale.sum().item(), mode
            """,
        ),
        Invalid(  # printed, or read after the block: the flag of a parameter would show
            """
            import torch
            def sample(netG, noise):
                with torch.no_grad():
                    samples = netG(noise).data
                    print(samples)
                    kept = netG(noise).data
                return kept
            """,
            """
            import torch
            def sample(netG, noise):
                with torch.no_grad():
                    samples = netG(noise).detach()
                    print(samples)
                    kept = netG(noise).detach()
                return kept
            """,
        ),
        Invalid(  # the kept result of a conversion may be `x` itself; an in-place method counts on `x`
            """
            import torch
            x = torch.zeros(3)
            y = x.data.cpu()
            x.data.cpu().add_(1)
            """,
            """
            import torch
            x = torch.zeros(3)
            y = x.detach().cpu()
            x.detach().cpu().add_(1)
            """,
        ),
        Invalid(  # `in` and `is` see the object itself
            """
            import torch
            x = torch.zeros(3)
            found = x.data in seen
            same = x.data is x
            """,
            """
            import torch
            x = torch.zeros(3)
            found = x.detach() in seen
            same = x.detach() is x
            """,
        ),
        Invalid(  # `.detach()` makes the same temporary
            """
            import torch
            label = torch.zeros(2)
            label.detach().resize_(5).fill_(1)
            """,
            """
            import torch
            label = torch.zeros(2)
            with torch.no_grad():
                label.resize_(5).fill_(1)
            """,
            line=3,
            column=1,
            message="`label.detach().resize_(...)` resizes a temporary, not `label`",
            fix_title="Resize `label` itself under `torch.no_grad()`",
        ),
        Invalid(  # outputs unpacked from a model call, and a tensor kept in a dict
            """
            import torch
            def evaluate(model, x, y):
                out, hidden = model(x)
                losses = {"total": torch.nn.functional.cross_entropy(out, y)}
                return out.data.argmax(1), losses["total"].data
            """,
            """
            import torch
            def evaluate(model, x, y):
                out, hidden = model(x)
                losses = {"total": torch.nn.functional.cross_entropy(out, y)}
                return out.detach().argmax(1), losses["total"].detach()
            """,
            line=5,
            column=12,
            message="`.data` gives a view that autograd does not track",
            fix_title="Replace with `out.detach()`",
        ),
        Invalid(  # a module's first parameter, read for its dtype and device
            """
            from torch import nn
            class RNNModel(nn.Module):
                def init_hidden(self, bsz):
                    weight = next(self.parameters()).data
                    return weight.new(2, bsz, 8).zero_()
            """,
            """
            from torch import nn
            class RNNModel(nn.Module):
                def init_hidden(self, bsz):
                    weight = next(self.parameters()).detach()
                    return weight.new(2, bsz, 8).zero_()
            """,
            line=4,
            column=18,
            fix_title="Replace with `next(self.parameters()).detach()`",
        ),
        Invalid(  # a new local without history at its last read: the callee may be given it itself
            """
            import torch
            @torch.no_grad()
            def test(model, x, save_image, keep):
                comparison = torch.cat([x, model(x)])
                save_image(comparison.data.cpu())
                shown = torch.cat([x, model(x)])
                save_image(shown.data.cpu())
                keep(shown)
                written = torch.cat([x, x])
                written.data.cpu().add_(1)
                out = model(x)
                save_image(out.data)
                buffer = torch.zeros(3)
                for step in range(2):
                    save_image(buffer.data)
            """,
            """
            import torch
            @torch.no_grad()
            def test(model, x, save_image, keep):
                comparison = torch.cat([x, model(x)])
                save_image(comparison.cpu())
                shown = torch.cat([x, model(x)])
                save_image(shown.detach().cpu())
                keep(shown)
                written = torch.cat([x, x])
                written.detach().cpu().add_(1)
                out = model(x)
                save_image(out.detach())
                buffer = torch.zeros(3)
                for step in range(2):
                    save_image(buffer.detach())
            """,
            line=5,
            column=16,
            fix_title="Replace with `comparison`",
        ),
        Invalid(  # an argument the function uses as a tensor
            """
            import torch
            def pad(seq, n):
                return torch.cat([seq.data, seq.new_zeros(n)])
            """,
            """
            import torch
            def pad(seq, n):
                return torch.cat([seq.detach(), seq.new_zeros(n)])
            """,
            line=3,
            column=23,
            message="`.data` gives a view that autograd does not track",
            fix_title="Replace with `seq.detach()`",
        ),
        Invalid(  # tensors by the code on the way: an isinstance branch, a loss that takes only tensors
            """
            import torch.nn as nn
            import torch.nn.functional as F
            def load(own_state, state_dict):
                for name, param in state_dict.items():
                    if isinstance(param, nn.Parameter):
                        param = param.data
                    own_state[name].copy_(param)
            def train(model, image, label):
                output = model(image)
                loss = F.nll_loss(output, label)
                pred = output.data.max(1)[1]
                return pred.eq(label.data).sum()
            """,
            """
            import torch.nn as nn
            import torch.nn.functional as F
            def load(own_state, state_dict):
                for name, param in state_dict.items():
                    if isinstance(param, nn.Parameter):
                        param = param.detach()
                    own_state[name].copy_(param)
            def train(model, image, label):
                output = model(image)
                loss = F.nll_loss(output, label)
                pred = output.detach().max(1)[1]
                return pred.eq(label).sum()
            """,
            line=6,
            column=21,
            fix_title="Replace with `param.detach()`",
        ),
        # A file that never imports torch: the receiver is a tensor only by its name (jinja2's
        # `output_node` is a template node, its `.data` a string), so the fix is unsafe.
        Invalid(
            """
            def visit_output(nodes):
                for output_node in nodes:
                    if output_node.data.isspace():
                        continue
            """,
            """
            def visit_output(nodes):
                for output_node in nodes:
                    if output_node.detach().isspace():
                        continue
            """,
        ),
    )

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "data" or not is_tensor_data(self.context, node) or not is_plain_data_read(self.context, self.context.stack):
            return
        if reshapes_a_temporary(self.context.stack):
            return  # `x.data.t_()`, `x.data.resize_(n)`: GL304's, a change of `x` itself in 0.3, not a read
        receiver = node.value
        if may_index_a_number(self.context, self.context.stack):
            # `.detach()[0]` raises where `.data[0]` does: a fix would only hide the finding.
            name = self.context.code_for(receiver)
            self.report(node, _INDEX_MESSAGE.format(receiver=name if len(name) < 30 else "x"))
            return
        if (isinstance(receiver, cst.Attribute) and receiver.attr.value == "grad") or data_is_redundant(self.context, self.context.stack):
            replacement = receiver
        else:
            replacement = method_call_on(receiver, "detach")
        text = self.context.code_for(replacement)
        removal = remove_line(self.context, self.context.stack[:-1], lambda line: False) if self._rebinds_itself(replacement) else None
        # Other objects have a `.data` too (a template node, a masked array): safe only on evidence of a tensor.
        make = self.safe_fix if self.context.is_known_tensor(receiver) else self.unsafe_fix
        fix = make("Remove the rebinding to itself", *removal) if removal else make(f"Replace with `{text}`", Replace(node, replacement))
        self.report(node, _MESSAGE.format(replacement=text if len(text) < 40 else "x.detach()"), fix)

    def visit_Call(self, node: cst.Call) -> None:
        """`x.detach().resize_(n)`: the same temporary as `x.data.resize_(n)`."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "detach" and not node.args and resizes_a_temporary(self.context.stack):
            if self.context.is_tensor(func.value):
                self._report_resize(node, func.value)

    def _report_resize(self, temporary: cst.BaseExpression, tensor: cst.BaseExpression) -> None:
        text, name = self.context.code_for(temporary), self.context.code_for(tensor)
        resize = self.context.stack[-2].attr.value
        message = _RESIZE_MESSAGE.format(text=f"{text}.{resize}(...)", tensor=name if len(name) < 30 else "x")
        self.report(temporary, message, self._resize_fix(temporary, tensor, name))

    def _resize_fix(self, temporary: cst.BaseExpression, tensor: cst.BaseExpression, name: str):
        """`x.data.resize_(n).copy_(src)` -> `with torch.no_grad(): x.resize_(n).copy_(src)`."""
        title = _RESIZE_FIX.format(tensor=name if len(name) < 30 else "x")
        if under_no_grad(self.context, self.context.stack):
            return self.unsafe_fix(title, Replace(temporary, tensor))
        found = enclosing_line(self.context.stack)
        if found is None or len(found[0].body) != 1:
            return None
        line, index = found
        changes = wrap_in_no_grad(
            self.context, [line], self.context.stack[:index], lambda statement: statement.deep_replace(temporary, tensor)
        )
        return None if changes is None else self.unsafe_fix(title, *changes)

    def _rebinds_itself(self, replacement: cst.BaseExpression) -> bool:
        """`x = x.data` where `x` itself does: the statement would read `x = x`."""
        stack = self.context.stack
        assign = stack[-2] if len(stack) > 1 else None
        return (
            isinstance(replacement, cst.Name)
            and isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
            and assign.targets[0].target.value == replacement.value
        )
