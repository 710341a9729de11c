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
* "volatile": `Variable(x, volatile=True)` makes a value from which nothing builds a graph: an
  operation with a volatile input runs without grad and gives volatile results, as in 0.3. This
  changes no number; it tells which computations the original meant to run without a graph
  (`LegacyUse.volatile_stacks`).
* "0-dim target": `cross_entropy` / `nll_loss` accept a 0-dim class target for a one-row input:
  indexing a 1-D Variable kept a dimension in 0.3, so the target had shape (1,); it gets that
  shape back.
* "0-dim cat": `torch.cat` of a list holding 0-dim tensors (losses gathered in a loop) treats
  each as the one-element 1-D tensor it was in 0.3, so the result has shape (n,); torch 2.13
  raises "zero-dimensional tensor cannot be concatenated".
* "DataLoader next": the DataLoader iterator's `.next()` draws the next batch, as `__next__`
  does: 0.3's iterator still had Python 2's spelling; torch 2.13's has none and raises
  AttributeError.
* "BCE target": `binary_cross_entropy` (and `BCELoss`) given a target of another shape with as
  many elements as the input pairs them element by element, the target viewed as the input's
  shape: 0.3 warned and paired them (a (N,) target against a (N, 1) output); torch 2.13 raises
  ValueError.

None of this changes a value that torch 2.13 computes: each piece answers only where torch 2.13
raises, or gives the Python number where torch 2.13 gives a 0-dim tensor of the same value.
Every patch is undone when the block ends.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.autograd import Variable
from torch.utils.data.dataloader import _BaseDataLoaderIter
from torch.overrides import TorchFunctionMode

_MISSING = object()
_VOLATILE = "_legacy_volatile"


@dataclass
class LegacyUse:
    """How often each piece acted, and where volatile values were computed with."""

    counts: Counter = field(default_factory=Counter)
    # Project call stacks, ((file, line), ...) outermost first, of the operations that ran volatile.
    volatile_stacks: set = field(default_factory=set)


def project_stack(root: str, frame) -> tuple[tuple[str, int], ...]:
    """The frames of the files under `root` from `frame` outwards, as (relative file, line), outermost first."""
    stack = []
    while frame is not None:
        if frame.f_code.co_filename.startswith(root):
            stack.append((os.path.relpath(frame.f_code.co_filename, root), frame.f_lineno))
        frame = frame.f_back
    return tuple(reversed(stack))


def _tensors(values):
    for value in values:
        if isinstance(value, torch.Tensor):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from _tensors(value)


class _TensorsOf03(TorchFunctionMode):
    """ "scalar index" and "scalar numpy" for calls made by the project's own code, and the spread
    of "volatile". A mode, not a patched `Tensor.__getitem__`: a Python `__getitem__` on the
    tensor class would make tensors sequences, which changes how `torch.LongTensor([[t]])` reads
    a 0-dim `t`."""

    def __init__(self, root: str, use: LegacyUse):
        super().__init__()
        self.root = root
        self.use = use

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.Tensor.__getitem__ and self._from_project():
            tensor, index = args
            if type(index) is int and index == 0 and tensor.dim() <= 1 and tensor.numel() == 1 and not tensor.requires_grad:
                self.use.counts["scalar index"] += 1
                return tensor.item()
        if func is torch.Tensor.numpy and args[0].dim() == 0 and self._from_project():
            self.use.counts["scalar numpy"] += 1
            return func(*args, **kwargs).reshape(1)
        if func is torch.cat and args and isinstance(args[0], (list, tuple)) and any(t.dim() == 0 for t in _tensors(args[0])):
            self.use.counts["0-dim cat"] += 1
            args = ([t.reshape(1) if isinstance(t, torch.Tensor) and t.dim() == 0 else t for t in args[0]], *args[1:])
        if any(vars(tensor).get(_VOLATILE) for tensor in _tensors((*args, *kwargs.values()))):
            with torch.no_grad():
                result = func(*args, **kwargs)
            for tensor in _tensors(result if isinstance(result, (list, tuple)) else (result,)):
                setattr(tensor, _VOLATILE, True)
            self.use.volatile_stacks.add(project_stack(self.root, sys._getframe(1)))
            return result
        return func(*args, **kwargs)

    def _from_project(self) -> bool:
        return sys._getframe(2).f_code.co_filename.startswith(self.root)


def _volatile_variables(use: LegacyUse):
    def __call__(cls, *args, volatile=False, **kwargs):
        value = type.__call__(cls, *args, **kwargs)
        if volatile:
            use.counts["volatile"] += 1
            setattr(value, _VOLATILE, True)
        return value

    return __call__


def _variable_type(use: LegacyUse):
    def __eq__(cls, other):
        if cls is other:
            return True
        if isinstance(other, type) and issubclass(other, torch.Tensor):
            use.counts["Variable type"] += 1
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


def _old_style_call(use: LegacyUse):
    def __call__(function, *inputs):
        use.counts["old-style Function"] += 1
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


def _zero_dim_target(use: LegacyUse, original):
    def loss(input, target, *args, **kwargs):
        if target.dim() == 0 and input.dim() == 2 and input.size(0) == 1:
            use.counts["0-dim target"] += 1
            target = target.unsqueeze(0)
        return original(input, target, *args, **kwargs)

    return loss


def _data_loader_next(use: LegacyUse):
    def python_2_next(iterator):
        use.counts["DataLoader next"] += 1
        return iterator.__next__()

    return python_2_next


def _elementwise_bce(use: LegacyUse, original):
    def loss(input, target, *args, **kwargs):
        if target.shape != input.shape and target.numel() == input.numel():
            use.counts["BCE target"] += 1
            target = target.reshape(input.shape)
        return original(input, target, *args, **kwargs)

    return loss


@contextlib.contextmanager
def legacy_semantics(folder: Path):
    """Run the code of the files under `folder` as 0.3 would; yields the `LegacyUse` of the run."""
    root = str(Path(folder).resolve())
    use = LegacyUse()
    meta = type(Variable)
    patches = [
        (meta, "__call__", _volatile_variables(use)),
        (meta, "__eq__", _variable_type(use)),
        (meta, "__hash__", type.__hash__),
        (torch.autograd.Function, "__call__", _old_style_call(use)),
        (F, "cross_entropy", _zero_dim_target(use, F.cross_entropy)),
        (F, "nll_loss", _zero_dim_target(use, F.nll_loss)),
        (_BaseDataLoaderIter, "next", _data_loader_next(use)),
        (F, "binary_cross_entropy", _elementwise_bce(use, F.binary_cross_entropy)),
    ]
    saved = [(owner, name, vars(owner).get(name, _MISSING)) for owner, name, _ in patches]
    try:
        for owner, name, replacement in patches:
            setattr(owner, name, replacement)
        with _TensorsOf03(root, use):
            yield use
    finally:
        for owner, name, previous in saved:
            if previous is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, previous)
