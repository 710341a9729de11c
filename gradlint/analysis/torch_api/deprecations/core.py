"""Deprecated public APIs of torch's core: tensors, `torch.*` functions, `torch.nn`, autograd, optim, testing, confirmed under
torch 2.13 by bench/deprecations/probe.py (one record each in bench/deprecations/catalog_core.py)."""

from __future__ import annotations

from gradlint.analysis.torch_api.deprecations.record import Deprecated

# Dotted names of functions, classes, attributes and modules: "torch.cuda.amp.GradScaler".
CALLABLES: dict[str, Deprecated] = {
    "torch.testing.assert_allclose": Deprecated(
        "1.12", "torch.testing.assert_close", why_no_fix="`assert_close` also compares dtypes and treats NaN as unequal by default"
    ),
    "torch.nn.utils.weight_norm": Deprecated(
        "2.1",
        "torch.nn.utils.parametrizations.weight_norm",
        why_no_fix="the parametrized module stores `parametrizations.weight.original0/1` instead of `weight_g`/`weight_v`",
    ),
}
# (dotted callable, keyword): a keyword argument that is deprecated, "new" names its replacement keyword.
KEYWORDS: dict[tuple[str, str], Deprecated] = {
    ("torch.nn.Hardtanh", "min_value"): Deprecated("0.4", "min_val", new="min_val"),
    ("torch.nn.Hardtanh", "max_value"): Deprecated("0.4", "max_val", new="max_val"),
}
# Tensor methods (the receiver must be a tensor): "resize" -> "new" names the replacement method.
METHODS: dict[str, Deprecated] = {
    "resize": Deprecated("0.4", "reshape", why_no_fix="`resize` runs an autograd function of its own"),
}
