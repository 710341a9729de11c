from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.roles import Role
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.tree import descendants
from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace
from gradlint.messages import snippet
from gradlint.notebook import BOUNDARY, is_notebook
from gradlint.rules.base import Invalid, Rule, Severity

# Tensor methods that return a new tensor (or the same one unchanged) and never change their
# receiver -> what the receiver keeps when the result is dropped. `Module.to/cuda/cpu/float/half/
# double` are in place, so a module receiver is never reported. `x.type()` without an argument
# gives the type's name: `type` counts only with one.
_MOVES = sorted((torch_api.methods("moves") | torch_api.methods("device-argument")) - {"pin_memory"})
_CASTS = sorted(
    torch_api.methods("converts", "self") - torch_api.methods("moves") - torch_api.methods("device-argument") - {"contiguous", "to_dense"}
)
# The out-of-place twin of every in-place method (`abs` of `abs_`), and the activations (`softmax`).
_NEW_VALUES = sorted(torch_api.out_of_place_twins() | torch_api.methods("keeps-strides") | torch_api.methods("activation"))
# A copy with the receiver's values and layout (`clone`): the receiver stays shared with its holders.
_COPIES = sorted(torch_api.methods("same-values", "keeps-strides"))
# Context managers that expect their block to raise.
_RAISES_CHECKS = frozenset({"raises", "assertRaises", "assertRaisesRegex"})
_KEPT = {
    **dict.fromkeys(_NEW_VALUES, "its values"),
    **dict.fromkeys(_COPIES, "its storage"),
    **dict.fromkeys(_MOVES, "its dtype and device"),
    **dict.fromkeys(_CASTS, "its dtype"),
    "detach": "its autograd history",
    **dict.fromkeys(sorted(torch_api.methods("elementwise")), "its values"),
    **dict.fromkeys(sorted(torch_api.methods("view", without=("tuple",))), "its shape"),
    "contiguous": "its memory layout",
}


class DiscardedTensorResult(Rule):
    """
    ## What it does
    Flags a statement that calls a tensor method returning a new tensor and drops the result:
    moves and casts (`x.to(device)`, `x.cuda()`, `x.cpu()`, `x.float()`, `x.half()`,
    `x.long()`, `x.type(torch.float32)`...), `x.clone()`, `x.detach()`, views (`x.view(n, -1)`,
    `x.reshape(...)`, `x.contiguous()`), activations (`x.softmax(dim)`) and the out-of-place twin
    of every in-place method of torch's API table (`x.abs()` of `abs_`, `x.exp()`,
    `x.sigmoid()`, `x.clamp(0, 1)`, `x.masked_fill(mask, v)`, `x.index_fill(...)`, `x.add(y)`...),
    where `x` is a tensor by the evidence of the file: every binding of the name is a tensor (a
    torch factory, a tensor method's result, a model's output, a part of a loader's batch, also
    in `for i, (x, y) in enumerate(loader)`, a model's parameter), or an attribute every method
    of the class binds to one.

    ## Why is this bad?
    Unlike `Module.to()` (and `.cuda()`, `.float()`... of a module), which move and convert the
    module in place, tensor methods leave their receiver as it is. Measured in torch 2.13:
    after `x = torch.ones(2, dtype=torch.float64)`, the statements `x.float()` and
    `x.to(torch.float32)` leave `x.dtype` at `torch.float64`; `x.clamp(0, 1)` leaves values of 3.0;
    `h.detach()` leaves `h.requires_grad` True and its graph attached; `x.abs()`, `x.sigmoid()`,
    `x.masked_fill(mask, 0)` leave every value as it was (each twin of the table is measured so:
    a new tensor, the receiver's values, dtype, shape, strides and version unchanged). Nothing is
    reported at run time; the mistake surfaces later as a dtype or device mismatch error, a graph
    kept alive, or silently wrong numbers.

    ## Example
    ```python
    import torch
    for x, y in loader:
        x.to(device)
        y.long()
        loss = criterion(model(x), y)
    ```

    ## Use instead
    ```python
    import torch
    for x, y in loader:
        x = x.to(device)
        y = y.long()
        loss = criterion(model(x), y)
    ```

    ## Fix safety
    Unsafe: the fix rebinds the name to the result (`x = x.to(device)`), which changes what the
    code computes from there on (that is the point), and other holders of the old tensor (a list,
    a caller) still see the old one. It is offered only for a plain name that a later statement of
    the same block reads; elsewhere (an attribute, a value read by nobody after it) there is no fix:
    the in-place form (`x.clamp_(0, 1)`) or an assignment to the attribute may be what was meant.

    ## Known limits
    A receiver with no evidence (a function's parameter, a name bound to the result of an unknown
    call or of `torch.load`, a module's `.requires_grad_(False)`, an attribute chain such as
    `self.linear.weight`, which may hold a quantized parameter whose `.cuda()` works in place) is
    not reported: it may be a module, a `BatchEncoding` or a PyG `Data`, whose `.to()` works in
    place. Receivers that evidently are modules (`model`, `net`, `self` in an
    `nn.Module`, a construction of a module class) are never reported. Results dropped inside
    larger expressions are not reported, nor the last statement of a notebook cell, whose value
    the notebook shows, nor a call in a `with pytest.raises(...)` block, which is there to raise.
    """

    code = "GL610"
    name = "discarded-tensor-result"
    summary = "the result of a non-in-place tensor method is thrown away"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = tuple(f".{method}(" for method in _KEPT)

    VALID = (
        """
        import torch
        model = torch.nn.Linear(2, 2)
        model.to(device)
        model.float()
        model.cuda()
        net = build_net()
        net.half()
        """,
        """
        import torch
        x = torch.ones(2)
        x = x.to(device)
        x.clamp_(0, 1)
        x.add_(1)
        """,
        """
        def move(batch, device):
            batch.to(device)
            inputs.to(device)
        """,
        """
        inputs = tokenizer(texts, return_tensors="pt")
        inputs.to(device)
        seen = set()
        seen.add(key)
        """,
        """
        for batch in loader:
            batch.to(device)
        """,
        """
        import torch
        torch.zeros(1).cuda()
        """,
        """
        import numpy as np
        a = np.ones(3)
        a.reshape(3, 1)
        """,
        """
        import torch
        from diffusers import AutoencoderKL
        vae = AutoencoderKL.from_pretrained(path).requires_grad_(False)
        vae.to(device, dtype=torch.float16)
        style_model = torch.load(path)
        style_model.to(device)
        """,
        """
        import bitsandbytes as bnb
        class LoRALinear:
            def merge(self, weight_data, weight):
                self.linear.weight = bnb.nn.Params4bit(weight_data, requires_grad=False)
                self.linear.weight.cuda(weight.device)
        """,
        """
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
            def move(self):
                self.cuda()
                self.fc.float()
        """,
        # Other libraries' objects with the same method names.
        """
        import numpy as np
        import pandas as pd
        import torch
        frame = pd.read_csv(path)
        frame.abs()
        frame.clip(0, 1)
        values = np.ones(3)
        values.round()
        values.cumsum()
        np.exp(values)
        """,
        """
        import tensorflow as tf
        x = tf.ones(3)
        x.abs()
        x.sigmoid()
        """,
        # A dataset whose `.to` moves its own tensors and returns itself; an optimizer.
        """
        import torch
        from torch.utils.data import Dataset
        class Graphs(Dataset):
            def __init__(self, path):
                self.data = load(path)
            def to(self, device):
                self.data = self.data.to(device)
                return self
            def copy(self):
                self.data.clone()
        graphs = Graphs(path)
        graphs.to(device, non_blocking=True)
        optimizer = torch.optim.SGD(params, lr=0.1)
        optimizer.zero_grad()
        """,
        # A batch of a loader may be a dict or a `BatchEncoding`, whose `.to` is in place; the
        # parts of `(name, p)` pairs are not unpacked here; `x.type()` gives the type's name.
        """
        import torch
        from torch import nn
        model = nn.Linear(2, 2)
        for step, batch in enumerate(loader):
            batch.to(device)
        for index, pair in enumerate(model.named_parameters()):
            pair.float()
        x = torch.ones(2)
        x.type()
        """,
        """
        import pytest
        import torch
        def test_meta_tensors_do_not_convert():
            meta = torch.empty(2, device="meta")
            with pytest.raises(NotImplementedError):
                meta.type(torch.DoubleTensor)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            for x, y in loader:
                x.to(device)
                y.long()
                loss = criterion(model(x), y)
            """,
            """
            import torch
            for x, y in loader:
                x = x.to(device)
                y = y.long()
                loss = criterion(model(x), y)
            """,
            line=3,
            column=5,
            message="`x.to(device)` returns a new tensor that is dropped: `x` keeps its dtype and device",
            fix_title="Keep the result: `x = x.to(device)`",
        ),
        Invalid(
            """
            import torch
            x = torch.rand(4, 3) * 3
            x.clamp(0, 1)
            print(x.max())
            """,
            """
            import torch
            x = torch.rand(4, 3) * 3
            x = x.clamp(0, 1)
            print(x.max())
            """,
            line=3,
            column=1,
            message="`x` keeps its values",
        ),
        # An out-of-place twin of an in-place method (`addmm` of `addmm_`).
        Invalid(
            """
            import torch
            x = torch.zeros(3, 4)
            x.addmm(a, b, beta=0.5)
            print(x.sum())
            """,
            """
            import torch
            x = torch.zeros(3, 4)
            x = x.addmm(a, b, beta=0.5)
            print(x.sum())
            """,
            message="`x.addmm(a, b, beta=0.5)` returns a new tensor that is dropped: `x` keeps its values",
        ),
        Invalid(  # nothing reads `hidden` after the statement in its block: no fix
            """
            import torch
            hidden = torch.zeros(1, 8)
            for x in data:
                out, hidden = rnn(x, hidden)
                hidden.detach()
            """,
            line=5,
            column=5,
            message="`hidden` keeps its autograd history",
        ),
        Invalid(
            """
            import torch
            from torch import nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.table = torch.zeros(3, 3)
                def forward(self, x):
                    self.table.to(x.device)
                    return x @ self.table
            """,
            line=8,
            column=9,
            message="`self.table.to(x.device)` returns a new tensor",
        ),
        Invalid(
            """
            import torch
            w = torch.randn(3, 3).double()
            w.float().contiguous()
            w @ w
            """,
            """
            import torch
            w = torch.randn(3, 3).double()
            w = w.float().contiguous()
            w @ w
            """,
            line=3,
            column=1,
            message="`w` keeps its dtype, its memory layout",
        ),
        Invalid(
            """
            import torch
            scores = torch.randn(4, 3)
            mask = scores > 1
            scores.masked_fill(mask, 0.0)
            scores.softmax(dim=1)
            scores.abs().sigmoid()
            scores.clone()
            scores.type(torch.float64)
            print(scores)
            """,
            """
            import torch
            scores = torch.randn(4, 3)
            mask = scores > 1
            scores = scores.masked_fill(mask, 0.0)
            scores = scores.softmax(dim=1)
            scores = scores.abs().sigmoid()
            scores = scores.clone()
            scores = scores.type(torch.float64)
            print(scores)
            """,
            line=4,
            column=1,
            message="`scores.masked_fill(mask, 0.0)` returns a new tensor that is dropped: `scores` keeps its values",
            fix_title="Keep the result: `scores = scores.masked_fill(mask, 0.0)`",
        ),
        Invalid(
            """
            import torch
            def train(model, loader, device):
                for batch_index, (data, target) in enumerate(loader):
                    data.to(device)
                    output = model(data)
                    output.float()
            """,
            """
            import torch
            def train(model, loader, device):
                for batch_index, (data, target) in enumerate(loader):
                    data = data.to(device)
                    output = model(data)
                    output.float()
            """,
            line=4,
            column=9,
            message="`data.to(device)` returns a new tensor that is dropped: `data` keeps its dtype and device",
        ),
    )

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        receiver = _receiver(call)
        if receiver is None or self._displayed(node) or self._expected_to_raise() or not self._is_tensor(receiver):
            return
        kept = ", ".join(dict.fromkeys(_KEPT[method] for method in reversed(_methods(call))))
        self.report(
            call,
            f"`{snippet(self.context.code_for(call).strip(), 50)}` returns a new tensor that is dropped: "
            f"`{self.context.code_for(receiver)}` keeps {kept} (tensor methods are not in place, unlike `Module.to`); assign the result",
            self._fix(node, call, receiver),
        )

    def _is_tensor(self, receiver: cst.BaseExpression) -> bool:
        if self.context.training_objects.role_of(receiver, self.context.stack) is Role.MODEL:
            return False
        return self.context.values.is_bound_tensor(receiver, self.context.scope())

    def _displayed(self, statement: cst.Expr) -> bool:
        """The last statement of a notebook cell: IPython shows its value (unless a `;` ends it)."""
        line, block = self.context.parent(1), self.context.parent(2)
        if not is_notebook(self.context.path) or type(block) is not cst.Module or type(line) is not cst.SimpleStatementLine:
            return False
        if line.body[-1] is not statement or isinstance(statement.semicolon, cst.Semicolon):
            return False
        following = block.body[block.body.index(line) + 1 :] if line in block.body else []
        return not following or any(empty.comment is not None and empty.comment.value == BOUNDARY for empty in following[0].leading_lines)

    def _expected_to_raise(self) -> bool:
        """Inside `with pytest.raises(...)` (or `self.assertRaises(...)`): the call is there to raise."""
        for node in reversed(self.context.stack):
            if type(node) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                return False
            if type(node) is cst.With and any(_raises_check(item.item) for item in node.items):
                return True
        return False

    def _fix(self, statement: cst.Expr, call: cst.Call, receiver: cst.BaseExpression) -> Optional[FixPlan]:
        if type(receiver) is not cst.Name or not self._read_later(statement, receiver.value):
            return None
        assignment = f"{receiver.value} = {self.context.code_for(call).strip()}"
        return self.unsafe_fix(f"Keep the result: `{snippet(assignment, 60)}`", Replace(call, assignment))

    def _read_later(self, statement: cst.Expr, name: str) -> bool:
        """A statement after this one in the same block reads `name`."""
        line, block = self.context.parent(1), self.context.parent(2)
        if not isinstance(line, cst.SimpleStatementLine) or line.body[-1] is not statement:
            return False
        body = list(block.body) if isinstance(block, (cst.IndentedBlock, cst.Module)) else []
        if line not in body:
            return False
        return any(_reads(later, name) for later in body[body.index(line) + 1 :])


def _receiver(value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """`x` for `x.float()`, `x.float().contiguous()`, `self.w.to(d)`: a name or attribute chain
    whose every method on the way is one of the non-in-place tensor methods."""
    while type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value in _KEPT:
        if value.func.attr.value == "type" and not value.args:
            return None
        value = value.func.value
        if type(value) in (cst.Name, cst.Attribute):
            return value if dotted_name(value) is not None else None
    return None


def _raises_check(context_manager: cst.BaseExpression) -> bool:
    """`pytest.raises(E)`, `self.assertRaises(E)`, `self.assertRaisesRegex(E, text)`."""
    if type(context_manager) is not cst.Call:
        return False
    name = dotted_name(context_manager.func)
    return name is not None and name.rsplit(".", 1)[-1] in _RAISES_CHECKS


def _methods(call: cst.Call) -> list[str]:
    """`["contiguous", "float"]` for `w.float().contiguous()`: outermost first."""
    methods = []
    while type(call) is cst.Call and type(call.func) is cst.Attribute:
        methods.append(call.func.attr.value)
        call = call.func.value
    return methods


def _reads(statement: cst.CSTNode, name: str) -> bool:
    """`statement` reads the variable `name` (attribute names and keywords are not variables)."""
    skipped = {id(n.attr) for n in descendants(statement) if type(n) is cst.Attribute}
    skipped |= {id(n.keyword) for n in descendants(statement) if type(n) is cst.Arg and n.keyword is not None}
    return any(type(n) is cst.Name and n.value == name and id(n) not in skipped for n in descendants(statement))
