"""PyTorch names renamed since 0.3, the version that deprecated each, and what the new spelling
needs to compute exactly the same (measured under torch 2.13; GL503's runtime fixtures repeat it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Renamed:
    """A legacy callable whose modern spelling is exactly equivalent."""

    new: str  # the new final name, or a dotted path under `torch` when `to_torch`
    version: str  # the torch version that deprecated the legacy name
    to_torch: bool = False  # the replacement lives in `torch`, not beside the legacy name
    # Keyword arguments the new spelling needs to behave as the legacy one (`mode="bilinear"`).
    keywords: tuple[tuple[str, str], ...] = ()
    # Positional parameters the legacy callable takes (more raise); None when any are forwarded.
    positional: Optional[int] = None
    # The oldest torch release that has the new spelling (with its keywords); None when 0.3 had it.
    needs_torch: Optional[str] = None


_INITIALISERS = ("uniform normal constant xavier_uniform xavier_normal kaiming_uniform kaiming_normal orthogonal sparse eye dirac").split()

_BILINEAR = (("mode", '"bilinear"'), ("align_corners", "True"))
_NEAREST = (("mode", '"nearest"'),)

# `functorch.X` forwards to `torch.func.X` with the same signature (torch/_functorch/deprecated.py).
# `make_functional`, `combine_state_for_ensemble`, `make_fx` have no torch.func equivalent.
TORCH_FUNC_SINCE = "2.0"  # `torch.func` itself
FUNCTORCH_TRANSFORMS = ("vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "functionalize")

# `F.sigmoid` and `F.tanh` are not listed: torch deprecated them in 0.4.1 but later dropped the
# warning and kept them as documented aliases of `torch.sigmoid` / `torch.tanh` (no warning and no
# deprecation note in 2.13).
RENAMED: dict[str, Renamed] = {
    # The trailing-underscore initialisers and `clip_grad_norm_` came with 0.4, `NLLLoss` took
    # inputs of any dimension from 0.4 on.
    **{f"torch.nn.init.{name}": Renamed(f"{name}_", "0.4", needs_torch="0.4") for name in _INITIALISERS},
    "torch.nn.utils.clip_grad_norm": Renamed("clip_grad_norm_", "0.4", needs_torch="0.4"),
    "torch.nn.utils.clip_grad.clip_grad_norm": Renamed("clip_grad_norm_", "0.4", needs_torch="0.4"),
    "torch.nn.NLLLoss2d": Renamed("NLLLoss", "0.4", needs_torch="0.4"),
    "torch.nn.modules.loss.NLLLoss2d": Renamed("NLLLoss", "0.4", needs_torch="0.4"),
    "torch.cuda.memory_cached": Renamed("memory_reserved", "1.4", needs_torch="1.4"),
    "torch.cuda.max_memory_cached": Renamed("max_memory_reserved", "1.4", needs_torch="1.4"),
    "torch.cuda.memory.memory_cached": Renamed("memory_reserved", "1.4", needs_torch="1.4"),
    "torch.cuda.memory.max_memory_cached": Renamed("max_memory_reserved", "1.4", needs_torch="1.4"),
    "torch.ger": Renamed("outer", "1.7", needs_torch="1.7"),  # `torch.outer` was added as `ger`'s new name
    # `upsample(input, size, scale_factor, mode, align_corners)` calls `interpolate` with them as given.
    "torch.nn.functional.upsample": Renamed("interpolate", "0.4.1", needs_torch="0.4.1"),
    # `upsample_bilinear(input, size, scale_factor)` calls `interpolate(..., mode="bilinear", align_corners=True)`.
    "torch.nn.functional.upsample_bilinear": Renamed("interpolate", "0.4.1", keywords=_BILINEAR, positional=3, needs_torch="0.4.1"),
    "torch.nn.functional.upsample_nearest": Renamed("interpolate", "0.4.1", keywords=_NEAREST, positional=3, needs_torch="0.4.1"),
    # Subclasses of `Upsample` whose constructor passes `(size, scale_factor)` and the mode
    # (`align_corners=` came with 0.4.1; `nn.Upsample(mode="nearest")` is older).
    "torch.nn.UpsamplingBilinear2d": Renamed("Upsample", "0.4.1", keywords=_BILINEAR, positional=2, needs_torch="0.4.1"),
    "torch.nn.UpsamplingNearest2d": Renamed("Upsample", "0.4.1", keywords=_NEAREST, positional=2),
    "torch.nn.modules.upsampling.UpsamplingBilinear2d": Renamed("Upsample", "0.4.1", keywords=_BILINEAR, positional=2, needs_torch="0.4.1"),
    "torch.nn.modules.upsampling.UpsamplingNearest2d": Renamed("Upsample", "0.4.1", keywords=_NEAREST, positional=2),
    **{f"functorch.{name}": Renamed(f"func.{name}", "2.0", to_torch=True, needs_torch=TORCH_FUNC_SINCE) for name in FUNCTORCH_TRANSFORMS},
}

# `correction=` of `torch.std` / `var` / `std_mean` / `var_mean` as documented (torch 2.0 says
# "Changed in version 2.0"; earlier releases had an undocumented overload).
CORRECTION_SINCE = "2.0"
# `torch.arange(..., dtype=torch.get_default_dtype())`.
ARANGE_DTYPE_SINCE = "0.4"

# `stateless.functional_call(module, parameters_and_buffers, ...)` became
# `torch.func.functional_call(module, parameter_and_buffer_dicts, ...)`: the second parameter is
# renamed and accepts a dict (used as is) or a sequence of dicts, where the legacy function used
# any mapping as is.
STATELESS_FUNCTIONAL_CALL = "torch.nn.utils.stateless.functional_call"
LEGACY_PARAMETERS_KEYWORD = "parameters_and_buffers"
PARAMETERS_KEYWORD = "parameter_and_buffer_dicts"


def range_end(start: int, end: int, step: int) -> Optional[int]:
    """The exclusive end that makes `arange(start, ., step)` list exactly the elements of the
    inclusive `range(start, end, step)`, for integers; None when `range` would raise.

    `range` has floor((end - start) / step) + 1 elements, `arange` ceil((stop - start) / step):
    `start + count * step` gives both the same count (measured bitwise under torch 2.13 for every
    start and end in [-12, 12] and steps 1, 2, 3, 5, -1, -2, -3; `end + step` differs whenever
    step does not divide end - start, and float bounds or steps differ in length and values).
    """
    if step == 0:
        return None
    count = (end - start) // step + 1
    return start + count * step if count > 0 else None
