"""Layers of `torch.nn` by what a fresh instance carries: parameters of its own, or a mode of its own.

A layer built where it is used (`nn.Linear(4, 2)(x)` in `forward`) starts over at every call: new
random parameters, and the training mode every new module has.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.syntax import is_bool_literal, keyword_arg, positional_args
from gradlint.analysis.tree import descendants

_NN = "torch.nn."

# Layers whose constructor creates parameters with their default arguments.
PARAMETER_LAYERS = torch_api.short_names(torch_api.functions("parameters"))


def _switch(spec: str) -> tuple[str, int, bool]:
    keyword, position, default = spec.split(",")
    return keyword, int(position), default == "on"


# Normalisation layers: their parameters can be switched off (`affine=False`,
# `elementwise_affine=False`), at this keyword or this positional index; value: default on?
_SWITCHED = {
    name.rsplit(".", 1)[-1]: _switch(torch_api.function(name).value("parameters-switch"))
    for name in torch_api.functions("parameters-switch")
}
# Layers with no parameters whose behaviour depends on their own mode: a fresh one always drops.
DROPOUT_LAYERS = torch_api.short_names(torch_api.functions("dropout-layer"))

# Layers of `torch.nn` with sub-modules of their own (the others are leaves: `children()` is empty).
_WITH_SUBMODULES = torch_api.short_names(torch_api.functions("submodules"))
# Wrappers whose own `forward` does their work (scatter, gradient synchronisation set-up).
PARALLEL_WRAPPERS = torch_api.functions("parallel-wrapper")


def nn_layer(call: cst.BaseExpression, imports: ImportMap) -> Optional[str]:
    """The class name of the `torch.nn` layer `call` constructs (`nn.Linear(4, 2)` -> "Linear")."""
    if not isinstance(call, cst.Call):
        return None
    qualified = imports.qualified_name(call.func) or ""
    if not qualified.startswith(_NN) or qualified.count(".") != 2:
        return None
    return qualified[len(_NN) :]


def is_leaf_layer(call: cst.BaseExpression, imports: ImportMap) -> bool:
    """`call` builds a `torch.nn` layer without sub-modules: `nn.Linear(...)`, `nn.BatchNorm1d(...)`,
    `nn.Dropout(...)`; not a container, a transformer layer or a module class of the file."""
    layer = nn_layer(call, imports)
    return (
        layer is not None and layer not in _WITH_SUBMODULES and (layer in PARAMETER_LAYERS or layer in _SWITCHED or layer in DROPOUT_LAYERS)
    )


def is_parallel_wrapper(call: cst.BaseExpression, imports: ImportMap) -> bool:
    """`DistributedDataParallel(model)`, `nn.DataParallel(model)`."""
    return isinstance(call, cst.Call) and imports.qualified_name(call.func) in PARALLEL_WRAPPERS


def builds_parameters(call: cst.Call, layer: str) -> bool:
    """A fresh `layer` built by `call` has parameters of its own: `nn.Linear(4, 2)`,
    `nn.LayerNorm(8)`, `nn.InstanceNorm2d(3, affine=True)`; not `nn.LayerNorm(8, elementwise_affine=False)`."""
    if layer in PARAMETER_LAYERS:
        return True
    switch = _SWITCHED.get(layer)
    if switch is None:
        return False
    keyword, index, default = switch
    given = keyword_arg(call, keyword)
    positional = positional_args(call)
    value = given.value if given is not None else positional[index].value if len(positional) > index else None
    if value is None:
        return default and not any(arg.star for arg in call.args)
    return is_bool_literal(value, True)


def has_parameters(call: cst.BaseExpression, imports: ImportMap) -> bool:
    """`call` builds a `torch.nn` layer with parameters, or an `nn.Sequential` holding one:
    `nn.Sequential(nn.Linear(4, 8), nn.ReLU())`."""
    layer = nn_layer(call, imports)
    if layer is None:
        return False
    if layer == "Sequential":
        return any(not arg.star and has_parameters(arg.value, imports) for arg in call.args)
    return builds_parameters(call, layer)


def drops_out(call: cst.Call, layer: str) -> bool:
    """A dropout layer whose rate is not a literal 0."""
    if layer not in DROPOUT_LAYERS:
        return False
    rate = keyword_arg(call, "p") or next(iter(positional_args(call)), None)
    return rate is None or not (isinstance(rate.value, (cst.Integer, cst.Float)) and float(rate.value.value) == 0)


def called_only(name: str, function: cst.FunctionDef) -> bool:
    """`name` is called in `function` (`fc(x)`) and otherwise only assigned: the value is used as
    a function and kept nowhere (not stored on `self`, returned, appended or passed on)."""
    uses: list[int] = []
    callees: set[int] = set()
    targets: set[int] = set()
    for node in descendants(function.body):
        if isinstance(node, cst.Name) and node.value == name:
            uses.append(id(node))
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            callees.add(id(node.func))
        elif isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
            targets.add(id(node.target))
    return any(use in callees for use in uses) and all(use in callees or use in targets for use in uses)
