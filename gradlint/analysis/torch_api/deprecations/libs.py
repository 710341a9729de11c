"""Deprecated public APIs of torch's libraries: cuda, amp, backends, distributed, utils, jit, onnx, fx, export, quantization, functorch, confirmed under
torch 2.13 by bench/deprecations/probe.py (one record each in bench/deprecations/catalog_libs.py)."""

from __future__ import annotations

from gradlint.analysis.torch_api.deprecations.record import Deprecated

# Dotted names of functions, classes, attributes and modules: "torch.cuda.amp.GradScaler".
CALLABLES: dict[str, Deprecated] = {
    # `_register_pytree_node` forwards to the same registration; its string functions have no counterpart.
    "torch.utils._pytree._register_pytree_node": Deprecated(
        "2.2",
        "torch.utils._pytree.register_pytree_node",
        new="torch.utils._pytree.register_pytree_node",
        positional=3,
        without=("to_str_fn", "maybe_from_str_fn"),
        needs_torch="2.2",
    ),
}
# (dotted callable, keyword): a keyword argument that is deprecated, "new" names its replacement keyword.
KEYWORDS: dict[tuple[str, str], Deprecated] = {}
# Tensor methods (the receiver must be a tensor): "resize" -> "new" names the replacement method.
METHODS: dict[str, Deprecated] = {}
