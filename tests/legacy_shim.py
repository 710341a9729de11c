"""Just enough PyTorch 0.3 semantics to run the unmigrated legacy examples under torch 2.13.

The reference numbers of a legacy script are those of its own code. Where torch 2.13 rejects or
reinterprets a 0.3 construct, `legacy_semantics(folder)` restores the 0.3 meaning of that
construct, and of nothing else. The pieces, by the name under which their use is counted:

* "scalar index": `[0]` on a one-element value gives its Python number. 0.3 had no 0-dim
  tensors: a reduction gave a one-element 1-D tensor, and indexing a tensor (`loss.data[0]`,
  `action.data[0]`, `total_loss[0]`) gave a number. Only `[0]`, only on a value of at most one
  dimension and one element that does not require grad (indexing a Variable gave a Variable),
  only in the project's own code.
* "scalar numpy": `.numpy()` of a 0-dim tensor is a one-element 1-D array, for the same reason
  (`loss.data.numpy()[0]`), again only in the project's own code.
* "Variable type": `type(x) == Variable` holds for every tensor type: in 0.3 every autograd
  value was a Variable (the widely copied `repackage_hidden` relies on it).
* "old-style Function": calling an old-style `Function` instance (`MyFn()(x)`) runs its
  `forward(self, ...)` and `backward(self, ...)` as the graph node's forward and backward;
  `self.save_for_backward`, `self.saved_tensors` and `self.needs_input_grad` are the node's.
* "0-dim target": `cross_entropy` / `nll_loss` accept a 0-dim class target for a one-row input:
  indexing a 1-D Variable kept a dimension in 0.3, so the target had shape (1,); it gets that
  shape back.

None of this changes a value that torch 2.13 computes: each piece answers only where torch 2.13
raises, or gives the Python number where torch 2.13 gives a 0-dim tensor of the same value.
Every patch is undone when the block ends.
"""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.autograd import Variable
from torch.overrides import TorchFunctionMode

_MISSING = object()


class _ScalarsOf03(TorchFunctionMode):
    """ "scalar index" and "scalar numpy", for calls made by the project's own code. A mode, not a
    patched `Tensor.__getitem__`: a Python `__getitem__` on the tensor class would make tensors
    sequences, which changes how `torch.LongTensor([[t]])` reads a 0-dim `t`."""

    def __init__(self, root: str, used: Counter):
        super().__init__()
        self.root = root
        self.used = used

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.Tensor.__getitem__ and self._from_project():
            tensor, index = args
            if type(index) is int and index == 0 and tensor.dim() <= 1 and tensor.numel() == 1 and not tensor.requires_grad:
                self.used["scalar index"] += 1
                return tensor.item()
        if func is torch.Tensor.numpy and args[0].dim() == 0 and self._from_project():
            self.used["scalar numpy"] += 1
            return func(*args, **kwargs).reshape(1)
        return func(*args, **kwargs)

    def _from_project(self) -> bool:
        return sys._getframe(2).f_code.co_filename.startswith(self.root)


def _variable_type(used: Counter):
    def __eq__(cls, other):
        if cls is other:
            return True
        if isinstance(other, type) and issubclass(other, torch.Tensor):
            used["Variable type"] += 1
            return True
        return False

    return __eq__


class _LegacySelf:
    """What `self` meant inside an old-style Function: the instance, with the node's saved state."""

    _OF_THE_NODE = frozenset({"save_for_backward", "saved_tensors", "needs_input_grad", "mark_dirty", "mark_non_differentiable"})

    def __init__(self, function, ctx):
        object.__setattr__(self, "_function", function)
        object.__setattr__(self, "_ctx", ctx)

    def __getattr__(self, name):
        return getattr(self._ctx if name in self._OF_THE_NODE else self._function, name)

    def __setattr__(self, name, value):
        setattr(self._function, name, value)


def _old_style_call(used: Counter):
    def __call__(function, *inputs):
        used["old-style Function"] += 1
        legacy = type(function)

        class Node(torch.autograd.Function):
            @staticmethod
            def forward(ctx, *args):
                return legacy.forward(_LegacySelf(function, ctx), *args)

            @staticmethod
            def backward(ctx, *grads):
                return legacy.backward(_LegacySelf(function, ctx), *grads)

        return Node.apply(*inputs)

    return __call__


def _zero_dim_target(used: Counter, original):
    def loss(input, target, *args, **kwargs):
        if target.dim() == 0 and input.dim() == 2 and input.size(0) == 1:
            used["0-dim target"] += 1
            target = target.unsqueeze(0)
        return original(input, target, *args, **kwargs)

    return loss


@contextlib.contextmanager
def legacy_semantics(folder: Path):
    """Run the code of the files under `folder` as 0.3 would; yields how often each piece acted."""
    root = str(Path(folder).resolve())
    used: Counter = Counter()
    meta = type(Variable)
    patches = [
        (meta, "__eq__", _variable_type(used)),
        (meta, "__hash__", type.__hash__),
        (torch.autograd.Function, "__call__", _old_style_call(used)),
        (F, "cross_entropy", _zero_dim_target(used, F.cross_entropy)),
        (F, "nll_loss", _zero_dim_target(used, F.nll_loss)),
    ]
    saved = [(owner, name, vars(owner).get(name, _MISSING)) for owner, name, _ in patches]
    try:
        for owner, name, replacement in patches:
            setattr(owner, name, replacement)
        with _ScalarsOf03(root, used):
            yield used
    finally:
        for owner, name, previous in saved:
            if previous is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, previous)
