"""What one expression evaluates to, as the value model knows it: the record and its vocabulary."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Optional

from gradlint.analysis.shapes import Shape  # a size the code does not spell as an integer literal is None


class Kind(Enum):
    """What sort of object the value is."""

    TENSOR = "tensor"
    PARAMETER = "parameter"  # an `nn.Parameter`: a leaf tensor that requires grad
    NN_MODULE = "nn_module"  # an `nn.Module`
    OPTIMIZER = "optimizer"
    NUMBER = "number"  # a Python `int` or `float`, never a tensor
    TENSORS = "tensors"  # a container or generator of tensors (`model.parameters()`, `[a, b]`)
    UNKNOWN = "unknown"


class Certainty(Enum):
    """How the kind is known, strongest first."""

    CONSTRUCTED = "constructed"  # the expression itself builds it (`torch.randn(2)`, `nn.Linear(...)`)
    BOUND = "bound"  # through names, attributes, returns or unpacking bound to such values
    NAMED = "named"  # only by a name playing the role (`loss`, `model`): the weakest evidence
    NONE = "none"  # the kind is unknown


class Grad(Enum):
    """What autograd knows of the value."""

    REQUIRES_GRAD = "requires-grad"  # a leaf that requires grad: a parameter, `torch.zeros(..., requires_grad=True)`
    HISTORY = "history"  # computed through autograd: a model's output, a loss
    FREE = "free"  # provably without history: `.detach()`, `.item()`, built under no_grad
    UNKNOWN = "unknown"


class Dim(Enum):
    """How many dimensions the tensor has, where that decides what indexing it does."""

    ZERO = "0-dim"  # a loss or a full reduction: `[0]` raises, `.item()` reads it
    N = "n-dim"  # at least one dimension, by its literal shape
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class ValueRecord:
    """One expression's value. Unknown fields say so (`UNKNOWN`, `NONE`, `None`): the analyses are
    conservative, so an unknown is never evidence either way."""

    kind: Kind
    certainty: Certainty
    grad: Grad
    dim: Dim
    shape: Optional[Shape]  # the literal shape the code states (`torch.randn(2, 3)` -> (2, 3))
    dtype: Optional[str]  # the literal dtype the code states, qualified (`"torch.float64"`)

    @property
    def is_tensor_like(self) -> bool:
        """A tensor of any sort: a plain tensor or a parameter."""
        return self.kind in (Kind.TENSOR, Kind.PARAMETER)
