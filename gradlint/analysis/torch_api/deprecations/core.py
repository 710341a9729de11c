"""Deprecated public APIs of torch's core: tensors, `torch.*` functions, `torch.nn`, autograd, optim, testing, confirmed under
torch 2.13 by bench/deprecations/probe.py (one record each in bench/deprecations/catalog_core.py)."""

from __future__ import annotations

from gradlint.analysis.torch_api.deprecations.record import Deprecated

# Dotted names of functions, classes, attributes and modules: "torch.cuda.amp.GradScaler".
CALLABLES: dict[str, Deprecated] = {}
# (dotted callable, keyword): a keyword argument that is deprecated, "new" names its replacement keyword.
KEYWORDS: dict[tuple[str, str], Deprecated] = {}
# Tensor methods (the receiver must be a tensor): "resize" -> "new" names the replacement method.
METHODS: dict[str, Deprecated] = {}
