"""`x.data = expr` written on purpose to give a tensor other storage, which `copy_` cannot do.

Current code uses `.data =` deliberately in a few idioms, all measured against `copy_` (which
keeps x's storage, dtype, device and strides):
- converting a tensor in place of itself: `p.data = p.data.to(torch.float32)`, `.half()`,
  `.contiguous()`, `.cpu()` (what `Module._apply` did for years: the Parameter object, which an
  optimizer may hold, gets new storage);
- putting back storage saved earlier in the same function: `saved = w.data` ... `w.data = saved`;
- offloading: a function that moves a tensor's storage between devices through `.data =`
  (`w.data = w.data.to("cpu", non_blocking=True)`) swaps storage on purpose in every `.data =`
  it writes;
- a module built in the same function that adopts another module's tensor (re-parameterised or
  frozen copies: `res = FrozenBatchNorm2d(n)`, `res.weight.data = module.weight.data.clone()`).
  The new module is on the default device and dtype and nothing can alias it yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.scopes import Scope
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.tree import descendants

if TYPE_CHECKING:
    from gradlint.context import FileContext

# Methods that give a tensor another dtype, device or layout (or may).
_CONVERSIONS = torch_api.methods("converts")
_DEVICE_MOVES = torch_api.methods("moves")
# Calls that return a module which already exists (not a new one).
_LOOKUPS = frozenset({"getattr", "next", "iter", "type", "super"})
_BUILDER_PREFIXES = ("create_", "make_", "build_", "new_")
_CREATION_FUNCTIONS = torch_api.short_names(torch_api.functions("factory", without=("like",)) | torch_api.functions("data"))


def deliberate_storage_swap(context: FileContext, target: cst.Attribute, value: cst.BaseExpression, scope: Scope) -> bool:
    """`target` is `x.data`; True when the assignment gives x other storage on purpose (see above)."""
    tensor = dotted_name(target.value)
    if tensor is None:
        return False
    return (
        _converts(value, tensor)
        or _restores(context, value, tensor, scope)
        or _moves_storage_between_devices(scope)
        or _adopted_by_new_module(context, tensor, value, scope)
    )


def _root_through_methods(node: cst.BaseExpression, methods: frozenset[str]) -> tuple[cst.BaseExpression, bool]:
    """The receiver under a chain of `.data` and calls of `methods`, and whether a call was seen."""
    called = False
    while True:
        if isinstance(node, cst.Attribute) and node.attr.value == "data":
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in methods:
            called, node = True, node.func.value
        else:
            return node, called


def _converts(value: cst.BaseExpression, tensor: str) -> bool:
    """`x.data = x.data.to(dtype)`, `x.data = x.half().contiguous()`."""
    root, called = _root_through_methods(value, _CONVERSIONS | {"detach", "clone"})
    return called and dotted_name(root) == tensor and _has_conversion(value)


def _method_calls(value: cst.BaseExpression):
    """The method calls of a chain, outermost first: `a.to(d).half()` -> half, to."""
    node = value
    while isinstance(node, (cst.Attribute, cst.Call)):
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute):
                yield node
            node = node.func
        else:
            node = node.value


def _has_conversion(value: cst.BaseExpression) -> bool:
    return any(call.func.attr.value in _CONVERSIONS for call in _method_calls(value))


def _restores(context: FileContext, value: cst.BaseExpression, tensor: str, scope: Scope) -> bool:
    """`x.data = saved` where every binding of `saved` in the function is `x.data` (or `x`) itself."""
    if not isinstance(value, cst.Name):
        return False
    bindings = context.scopes.of(scope)
    values = bindings.values.get(value.value, [])
    if not values or value.value in bindings.opaque:
        return False
    return all(dotted_name(_root_through_methods(v, frozenset())[0]) == tensor for v in values)


def _moves_storage_between_devices(scope: Scope) -> bool:
    """Some `.data =` of the function assigns a tensor moved to another device."""
    if not isinstance(scope, cst.FunctionDef):
        return False
    for node in descendants(scope):
        if isinstance(node, cst.Assign) and any(_is_data_target(t.target) for t in node.targets) and _moves_device(node.value):
            return True
    return False


def _is_data_target(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "data"


def _moves_device(value: cst.BaseExpression) -> bool:
    return any(
        call.func.attr.value in _DEVICE_MOVES or (call.func.attr.value == "to" and _names_a_device(call)) for call in _method_calls(value)
    )


def _names_a_device(call: cst.Call) -> bool:
    """`.to("cpu")`, `.to(device)`, `.to(x, non_blocking=True)`, `.to(device=d)`."""
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value in ("device", "non_blocking"):
                return True
            continue
        if isinstance(arg.value, cst.SimpleString) and any(kind in arg.value.value for kind in ("cpu", "cuda", "mps", "xpu")):
            return True
        name = dotted_name(arg.value)
        if name is not None and "device" in name.rsplit(".", 1)[-1].lower():
            return True
    return False


def _adopted_by_new_module(context: FileContext, tensor: str, value: cst.BaseExpression, scope: Scope) -> bool:
    """`res.weight.data = module.weight.data.clone()` where `res = SomeModule(...)` in this function.

    A literal, a factory call or a checkpoint lookup on the right is an initialisation, still reported.
    """
    owner = tensor.rsplit(".", 1)[0] if "." in tensor else None
    if owner is None or not _is_new_module(context, owner, scope):
        return False
    return _names_another_tensor(value) and not _initialises(context, value, scope)


def _is_new_module(context: FileContext, owner: str, scope: Scope) -> bool:
    bindings = context.scopes.of(scope)
    values = bindings.attributes.get(owner, []) if "." in owner else bindings.values.get(owner, [])
    return any(isinstance(v, cst.Call) and _constructs(v) for v in values)


def _constructs(call: cst.Call) -> bool:
    """`nn.Conv2d(...)`, `FrozenBatchNorm2d(...)`, `cls(...)`, `create_conv2d(...)`."""
    name = dotted_name(call.func)
    if name is None:
        return False
    last = name.rsplit(".", 1)[-1]
    if last in _LOOKUPS:
        return False
    return last[:1].isupper() or last == "cls" or ("." not in name and last.startswith(_BUILDER_PREFIXES))


def _initialises(context: FileContext, value: cst.BaseExpression, scope: Scope) -> bool:
    """`W = torch.randn(c, c)...`; `conv.weight.data = W`: a torch function creates the value
    (looked for in `value` and in what its names are bound to in the function)."""
    bindings = context.scopes.of(scope)
    sources = [value] + [
        bound for node in descendants(value) if isinstance(node, cst.Name) for bound in bindings.values.get(node.value, [])
    ]
    return any(isinstance(node, cst.Call) and _creates(context, node) for source in sources for node in descendants(source))


def _creates(context: FileContext, call: cst.Call) -> bool:
    """`torch.randn(...)`, `torch.zeros(...)`, `torch.FloatTensor(c, c)`: a tensor made from nothing."""
    name = context.imports.qualified_name(call.func) or ""
    if not name.startswith("torch.") or name.count(".") != 1:
        return False
    last = name[len("torch.") :]
    return last in _CREATION_FUNCTIONS or last.endswith("Tensor")


def _names_another_tensor(value: cst.BaseExpression) -> bool:
    """A name or attribute chain, possibly through `.clone()`/`.detach()`/conversions: no factory,
    literal or subscript (checkpoint entries) anywhere in it."""
    root, _ = _root_through_methods(value, _CONVERSIONS | {"detach", "clone"})
    if not isinstance(root, (cst.Name, cst.Attribute)):
        return False
    return not any(isinstance(node, (cst.Subscript, cst.Integer, cst.Float)) for node in descendants(root))
