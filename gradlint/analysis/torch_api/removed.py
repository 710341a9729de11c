"""PyTorch APIs removed since 0.3: what replaces each, and the release that removed it.

Measured under torch 2.13: every name here raises (ModuleNotFoundError, ImportError, AttributeError
or TypeError).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Removed:
    """A removed function or module, what to use instead and the release that removed it."""

    replacement: str
    version: str


REMOVED_FUNCTIONS: dict[str, Removed] = {
    "torch.gesv": Removed("`torch.linalg.solve(A, B)` (the arguments swap; it returns only the solution)", "1.2"),
    "torch.potrf": Removed("`torch.linalg.cholesky(A)` (lower by default: `potrf` was upper, use `.mH`)", "1.2"),
    "torch.potrs": Removed("`torch.cholesky_solve(B, L, upper=...)` (`potrs` defaulted to `upper=True`)", "1.2"),
    "torch.trtrs": Removed("`torch.linalg.solve_triangular(A, B, upper=...)` (the arguments swap)", "1.2"),
    "torch.btrifact": Removed("`torch.linalg.lu_factor(A)`", "1.3"),
    "torch.btrisolve": Removed("`torch.linalg.lu_solve(LU, pivots, B)` (the arguments reorder)", "1.3"),
    "torch.gels": Removed("`torch.linalg.lstsq(A, B).solution` (the arguments swap)", "1.3"),
}
_FFT = "`torch.fft.{name}` (complex results: `torch.view_as_real` gives the old layout; `signal_ndim`, `normalized` and `onesided` become `dim`, `norm` and the function choice)"
# Called as functions: `torch.fft` itself is a module now.
REMOVED_FFT_FUNCTIONS: dict[str, Removed] = {
    f"torch.{name}": Removed(_FFT.format(name=name), "1.8") for name in ("fft", "ifft", "rfft", "irfft")
}
REMOVED_MODULES: dict[str, Removed] = {
    "torch.legacy": Removed("the `torch.nn` modules", "1.0"),
    "torch.utils.trainer": Removed("a plain training loop", "1.0"),
    "torch.utils.ffi": Removed("C++ extensions (`torch.utils.cpp_extension`)", "1.0"),
    "torch.utils.serialization.load_lua": Removed("a converter for Lua Torch `.t7` files (the `torchfile` package reads them)", "1.0"),
}

# Attributes every `nn.Module` had in 0.3: `m._backend` was the THNN backend, whose autograd
# Functions (`m._backend.Embedding.apply(...)`) the modules called.
REMOVED_MODULE_ATTRIBUTES: dict[str, Removed] = {
    "_backend": Removed("the functions of `torch.nn.functional` (`m._backend.Embedding.apply(...)` is `F.embedding(...)`)", "1.3"),
}


@dataclass(frozen=True)
class BackendFunction:
    """A 0.3 backend Function (`m._backend.<name>.apply(...)`) and its `torch.nn.functional` twin,
    taking the same arguments in the same order; `padding_position` is the argument where the
    backend read -1 as "no padding" (THNN compared each index with it, and indices are never
    negative), which the functional twin reads as the last row."""

    functional: str
    arguments: int  # how many it takes, the last ones with defaults from `optional` on
    optional: int
    padding_position: Optional[int] = None


BACKEND_FUNCTIONS: dict[str, BackendFunction] = {
    # Embedding.apply(indices, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse=False)
    "Embedding": BackendFunction("torch.nn.functional.embedding", arguments=7, optional=6, padding_position=2),
}


# `torch._six` (removed in 2.0) under Python 3, as torch 1.x defined each name: the statement that
# binds `{local}` to the very same object, or None where no one-line equivalent exists.
SIX_MODULE = "torch._six"
SIX_BINDINGS: dict[str, str] = {
    "string_classes": "{local} = (str, bytes)",
    "int_classes": "{local} = int",
    "inf": "from math import inf{asname}",
    "nan": "from math import nan{asname}",
    "container_abcs": "import collections.abc as {local}",
    "queue": "import queue{asname}",
    "builtins": "import builtins{asname}",
    "FileNotFoundError": "{local} = FileNotFoundError",
    "imap": "{local} = map",
    "PY2": "{local} = False",
    "PY3": "{local} = True",
    "PY37": "{local} = True",  # torch 2.13 needs Python >= 3.10
}
# The same names as expressions of builtins (for `torch._six.string_classes` spelled in full).
SIX_BUILTIN_VALUES: dict[str, str] = {
    "string_classes": "(str, bytes)",
    "int_classes": "int",
    "FileNotFoundError": "FileNotFoundError",
    "imap": "map",
    "PY2": "False",
    "PY3": "True",
    "PY37": "True",
}
SIX_MATH_VALUES = frozenset({"inf", "nan"})


def removed_module(qualified: str) -> Optional[str]:
    """The removed module (or `load_lua`) that `qualified` is or lies in."""
    return next((name for name in REMOVED_MODULES if qualified == name or qualified.startswith(name + ".")), None)


def six_binding(name: str, local: str) -> Optional[str]:
    """The standard-library statement binding `local` as `from torch._six import name` did; an
    empty string when the name is a builtin already bound under that name."""
    template = SIX_BINDINGS.get(name)
    if template is None:
        return None
    if template == "{local} = FileNotFoundError" and local == "FileNotFoundError":
        return ""
    asname = "" if local == name else f" as {local}"
    return template.format(local=local, asname=asname)
