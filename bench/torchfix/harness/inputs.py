"""The concrete inputs TorchFix's fixture snippets leave out: per snippet a prelude for its free
names, probes for the argument-less calls it makes only to show a rename, and observers for the
APIs whose behaviour is not a returned value (autocast's compute dtype, checkpoint's gradients)."""

from __future__ import annotations

import ast
import contextlib
import warnings
from typing import Any, Callable

import torch

# Snippet (fixture name without .in.py) -> code that defines the names it uses but never assigns.
PRELUDES = {
    "functorch": (
        "import torch\ntdmodule = lambda a, b: a * b\ntd = torch.linspace(-1, 1, 3)\nparams = torch.linspace(0, 2, 12).reshape(4, 3)\n"
    ),
    "ger-outer": (
        "import types\nimport torch\n"
        "pos_seq = torch.arange(6.0)\n"
        "inv_freq = 1 / (10000 ** (torch.arange(0, 8, 2.0) / 8))\n"
        "something = types.SimpleNamespace(ger=torch.outer)\n"
    ),
}

_X = torch.linspace(-1.0, 1.0, 6, dtype=torch.float64).reshape(3, 2)


def _vjp(transform: Callable) -> Any:
    out, pullback = transform(torch.sin, _X)
    return out, pullback(torch.ones_like(out))


def _registered_pytree(register: Callable) -> Any:
    """Registers a fresh class with `register` and flattens and rebuilds an instance."""
    import torch.utils._pytree as pytree

    class Pair:
        def __init__(self, first, second):
            self.first, self.second = first, second

    register(Pair, lambda pair: ([pair.first, pair.second], None), lambda values, context: Pair(*values))
    leaves, spec = pytree.tree_flatten([Pair(torch.ones(2), torch.zeros(1)), 3])
    rebuilt = pytree.tree_unflatten(leaves, spec)
    return leaves, [rebuilt[0].first, rebuilt[0].second, rebuilt[1]], type(rebuilt[0]).__name__


# The callee's last name -> what to do with it when the snippet calls it without arguments.
PROBES: dict[str, Callable[[Callable], Any]] = {
    "vmap": lambda vmap: vmap(torch.sin)(_X),
    "grad": lambda grad: grad(lambda t: t.sin().sum())(_X),
    "vjp": _vjp,
    "jvp": lambda jvp: jvp(torch.sin, (_X,), (torch.ones_like(_X),)),
    "jacrev": lambda jacrev: jacrev(torch.sin)(_X[0]),
    "jacfwd": lambda jacfwd: jacfwd(torch.sin)(_X[0]),
    "hessian": lambda hessian: hessian(lambda t: t.sin().sum())(_X[0]),
    "functionalize": lambda functionalize: functionalize(lambda t: t.clone().add_(1))(_X),
    "_register_pytree_node": _registered_pytree,
    "register_pytree_node": _registered_pytree,
}

# Enclosing autocast regions an autocast made by the snippet is nested in (None: at top level).
_ENCLOSING = (None, ("cpu", torch.float16), ("cpu", torch.bfloat16), ("cuda", torch.float16), ("cuda", torch.bfloat16))


def _autocast_regions(statement: ast.Assign, namespace: dict) -> Any:
    """The snippet's autocast made at top level and inside each enclosing region: the dtype it
    computes in (`fast_dtype`, what entering it sets; on a CPU it also runs a matmul inside)."""
    constructor = compile(ast.Expression(statement.value), "<snippet>", "eval")
    seen = {}
    for enclosing in _ENCLOSING:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "CUDA is not available": the dtype is chosen all the same
            outer = torch.autocast(enclosing[0], dtype=enclosing[1]) if enclosing else contextlib.nullcontext()
            with outer:
                region = eval(constructor, namespace)
                entry = {"device": region.device, "dtype": str(region.fast_dtype)}
                if region.device == "cpu":
                    with region:
                        entry["matmul"] = str((torch.ones(2, 2) @ torch.ones(2, 2)).dtype)
        seen[str(enclosing)] = entry
    for target in statement.targets:
        if isinstance(target, ast.Name):
            namespace[target.id] = region
    return seen


def _checkpoint_gradients(call: ast.expr, namespace: dict) -> Any:
    """The snippet's `checkpoint(gn, torch.sin(x), y, ...)` with inputs that require gradients or
    not, and with a checkpointed function that reads a parameter (as `checkpoint(self.block, h)`
    does): its output and which tensors receive gradients."""
    expression = compile(ast.Expression(call), "<snippet>", "eval")
    weight = torch.nn.Parameter(torch.linspace(0.5, 1.5, 9).reshape(3, 3))

    def gn_reading_a_parameter(a, b):
        return torch.sigmoid(torch.matmul(a, b) @ weight)

    scenarios = {
        "x requires grad": (True, False, namespace["gn"]),
        "y requires grad": (False, True, namespace["gn"]),
        "no input requires grad, the function reads a parameter": (False, False, gn_reading_a_parameter),
    }
    seen = {}
    for name, (x_grad, y_grad, function) in scenarios.items():
        x = torch.linspace(-1, 1, 9).reshape(3, 3).requires_grad_(x_grad)
        y = torch.linspace(0, 2, 9).reshape(3, 3).requires_grad_(y_grad)
        weight.grad = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "None of the inputs have requires_grad=True"
            out = eval(expression, {**namespace, "x": x, "y": y, "gn": function})
            if out.requires_grad:
                out.sum().backward()
        seen[name] = {"output": out, "x.grad": x.grad, "y.grad": y.grad, "parameter.grad": weight.grad}
    return seen


def observers_for(snippet: str) -> dict[str, Callable]:
    if snippet == "amp":
        return {"assign": _autocast_regions}
    if snippet == "reentrant_checkpoint":
        return {"return": _checkpoint_gradients}
    return {}
