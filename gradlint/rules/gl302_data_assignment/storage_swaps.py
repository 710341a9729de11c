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
  The new module is on the default device and dtype and nothing can alias it yet. It may be
  moved as it is built (`Net(n).to(device)`), and its class may be passed in (`cls(n)`);
- a tensor adopting a new module's own parameter (`w.data = nn.Linear(a, b).to(dtype).weight`,
  `w.data = new.weight` where `new = cls(...)`): nothing else holds the new storage;
- re-laying out a tensor's own storage: a reshape or a shard of itself (`p.data = p.data.view(n, -1)`,
  `p.data.chunk(world)[rank]`), or any function but torch's applied to it (`p.data = shard(p.data)`,
  `p.data = to_half(p.data)`), as sharded and mixed-precision training set parameters up; or a view
  of part of a flat buffer the parameters share (`p.data = flat[i : i + n].view_as(p)`);
- swapping storage between two parallel collections of tensors (`for p, b in zip(model.parameters(),
  backup): p.data = b`), as EMA and weight-averaging code swaps the averaged weights in and out;
- releasing a tensor's memory: `p.data = torch.empty(0)` keeps the Parameter object and frees its storage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.scopes import Scope
from gradlint.analysis.syntax import dotted_name, parameter_names
from gradlint.analysis.tree import descendants

if TYPE_CHECKING:
    from gradlint.context import FileContext

# Methods that give a tensor another dtype, device or layout (or may).
_CONVERSIONS = torch_api.methods("converts")
# Views that keep the order of the values and only re-shape them (not the transposes, whose
# result `copy_` would reject or mis-shape: a common mistake with a Linear's (out, in) weight).
_RESHAPES = (torch_api.methods("view") & torch_api.methods("same-values")) - torch_api.methods("transposes")
# Views that cut a tensor into shards, one of which is taken: `p.data.chunk(world)[rank]`.
_SPLITS = torch_api.methods("view") & torch_api.methods("tuple")
# Module methods that return the module itself: `Net(n).to(device)` is the `Net(n)`.
_RETURNS_THE_MODULE = torch_api.module_methods("returns-self")
# Factories an empty tensor comes from: sizes (`torch.empty(0)`) or a list (`torch.tensor([])`).
_SIZED_FACTORIES = torch_api.functions("sized")
_LIST_FACTORIES = torch_api.functions("data", "list")
_DEVICE_MOVES = torch_api.methods("moves")
# Calls that return a module which already exists (not a new one).
_LOOKUPS = frozenset({"getattr", "next", "iter", "type", "super"})
_BUILDER_PREFIXES = ("create_", "make_", "build_", "new_")
_CREATION_FUNCTIONS = torch_api.short_names(torch_api.functions("factory", without=("like",)) | torch_api.functions("data"))


def deliberate_storage_swap(context: FileContext, target: cst.Attribute, value: cst.BaseExpression, scope: Scope) -> bool:
    """`target` is `x.data`; True when the assignment gives x other storage on purpose (see above)."""
    tensor = dotted_name(target.value)
    if tensor is None:  # `model.lin[key].bias.data = ...`: only what the value alone shows
        return (
            _releases_storage(context, value) or _moves_storage_between_devices(scope) or _adopts_new_module_tensor(context, value, scope)
        )
    return (
        _fills_itself(context, value, tensor)
        or _converts(value, tensor)
        or _relays_out(value, tensor)
        or _views_into_buffer(value, tensor)
        or _converted_by_helper(context, value, tensor, scope)
        or _restores(context, value, tensor, scope)
        or _swapped_with_parallel_item(context, value, tensor, scope)
        or _releases_storage(context, value)
        or _moves_storage_between_devices(scope)
        or _adopted_by_new_module(context, tensor, value, scope)
        or _adopts_new_module_tensor(context, value, scope)
    )


def _fills_itself(context: FileContext, value: cst.BaseExpression, tensor: str) -> bool:
    """`w.data = nn.init.xavier_uniform_(w.data)`, `w.data = w.data.normal_(0, 0.02)`: an in-place
    initialiser returns the tensor it filled, so `w` is handed its own storage back."""
    if not isinstance(value, cst.Call):
        return False
    qualified = context.imports.qualified_name(value.func) or ""
    if qualified.startswith("torch.nn.init.") and qualified.endswith("_") and value.args:
        filled = value.args[0].value
    elif isinstance(value.func, cst.Attribute) and value.func.attr.value.endswith("_") and not value.func.attr.value.startswith("_"):
        filled = value.func.value
    else:
        return False
    root, _ = _root_through_methods(filled, frozenset())
    return dotted_name(root) == tensor


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


def _relays_out(value: cst.BaseExpression, tensor: str) -> bool:
    """`p.data = p.data.view(n, -1)`, `p.data.flatten().contiguous()`, `p.data.chunk(world)[rank].clone()`."""
    node, reshaped = value, False
    while True:
        node, _ = _root_through_methods(node, _CONVERSIONS | {"detach", "clone"})
        if _is_method_call(node, _RESHAPES | {"narrow"}):
            node, reshaped = node.func.value, True
        elif isinstance(node, cst.Subscript) and _is_method_call(node.value, _SPLITS) and len(node.slice) == 1:
            node, reshaped = node.value.func.value, True
        else:
            return reshaped and dotted_name(node) == tensor


def _views_into_buffer(value: cst.BaseExpression, tensor: str) -> bool:
    """`p.data = flat[offset : offset + n].view_as(p)`, `flat.narrow(0, offset, n).view(p.shape)`:
    the tensor becomes a view of part of another one (a flat buffer its parameters share)."""
    node, part = value, False
    while True:
        if _is_method_call(node, _RESHAPES):
            node = node.func.value
        elif _is_method_call(node, frozenset({"narrow"})):
            node, part = node.func.value, True
        elif isinstance(node, cst.Subscript) and any(isinstance(element.slice, cst.Slice) for element in node.slice):
            node, part = node.value, True
        else:
            name = dotted_name(node)
            return part and name is not None and name != tensor and not name.startswith(f"{tensor}.")


def _is_method_call(node: cst.BaseExpression, methods: frozenset[str]) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in methods


def _converted_by_helper(context: FileContext, value: cst.BaseExpression, tensor: str, scope: Scope) -> bool:
    """`p.data = shard(p.data)`, `p.data = to_half(p.data, ...)`: a function that is not torch's
    (whose element-wise functions give values, not storage) is given the tensor itself first. A
    function of the file returning what a torch factory makes (`out = torch.randn(w.size())`;
    `return out`) initialises the tensor instead, as a factory written in place would."""
    root, _ = _root_through_methods(value, _CONVERSIONS | {"detach", "clone"})
    if not isinstance(root, cst.Call) or not isinstance(root.func, cst.Name) or any(arg.star for arg in root.args):
        return False
    if (context.qualified_name(root.func) or "").startswith("torch"):
        return False
    first = root.args[0] if root.args and root.args[0].keyword is None else None
    if first is None or dotted_name(_root_through_methods(first.value, frozenset())[0]) != tensor:
        return False
    helper = context.function_table.named(root.func.value, scope)
    if helper is None:
        return True
    returns = context.scope_uses.of(helper).returns
    return bool(returns) and not any(value is None or _initialises(context, value, helper) for value in returns)


def _swapped_with_parallel_item(context: FileContext, value: cst.BaseExpression, tensor: str, scope: Scope) -> bool:
    """`for p, b in zip(model.parameters(), backup): p.data = b` (or `b.data`, `b.to(p.device)`):
    storage swapped between two collections walked side by side."""
    root, _ = _root_through_methods(value, _CONVERSIONS | {"detach", "clone"})
    if not isinstance(root, cst.Name) or "." in tensor or root.value == tensor:
        return False
    bindings = context.scopes.of(scope)
    sources = bindings.loop_sources.get(tensor, [])
    items = bindings.loop_sources.get(root.value, [])
    if len(items) != 1 or tensor in bindings.values or root.value in bindings.values:
        return False
    iterable, item_position = items[0]
    return _is_zip(context, iterable) and any(source is iterable and position != item_position for source, position in sources)


def _is_zip(context: FileContext, iterable: cst.BaseExpression) -> bool:
    return (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Name)
        and iterable.func.value == "zip"
        and context.qualified_name(iterable.func) is None
    )


def _releases_storage(context: FileContext, value: cst.BaseExpression) -> bool:
    """`p.data = torch.empty(0)`, `torch.zeros(0, device=d)`, `torch.tensor([])`: an empty tensor."""
    if not isinstance(value, cst.Call):
        return False
    factory = context.qualified_name(value.func)
    positional = [arg for arg in value.args if arg.keyword is None]
    if factory not in _SIZED_FACTORIES | _LIST_FACTORIES or len(positional) != 1 or positional[0].star:
        return False
    given = positional[0].value
    elements = [element.value for element in given.elements] if isinstance(given, (cst.List, cst.Tuple)) else None
    if factory in _LIST_FACTORIES:
        return elements == []
    # A size: `torch.empty(())` is 0-dim with one element, `torch.empty((0,))` is empty.
    return _is_zero(given) if elements is None else len(elements) == 1 and _is_zero(elements[0])


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == 0


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
    return any(_constructs(v, scope) for v in values)


def _constructs(value: cst.BaseExpression, scope: Scope) -> bool:
    """`nn.Conv2d(...)`, `FrozenBatchNorm2d(...)`, `create_conv2d(...)`, a class passed in
    (`cls(...)`, `layer_cls(...)` with `layer_cls` a parameter of the function), also moved as it
    is built (`Net(n).to(device)`)."""
    while _is_method_call(value, _RETURNS_THE_MODULE):
        value = value.func.value
    if not isinstance(value, cst.Call):
        return False
    name = dotted_name(value.func)
    if name is None:
        return False
    last = name.rsplit(".", 1)[-1]
    if last in _LOOKUPS:
        return False
    passed_in = isinstance(scope, cst.FunctionDef) and name in parameter_names(scope.params)
    return last[:1].isupper() or last == "cls" or passed_in or ("." not in name and last.startswith(_BUILDER_PREFIXES))


def _adopts_new_module_tensor(context: FileContext, value: cst.BaseExpression, scope: Scope) -> bool:
    """`w.data = nn.Linear(a, b).to(dtype).weight`, `w.data = new.weight` where `new = cls(...)`
    in this function: the tensor takes the storage of a parameter of a module just built."""
    root, _ = _root_through_methods(value, _CONVERSIONS | {"detach", "clone"})
    if not isinstance(root, cst.Attribute):
        return False
    owner = root.value
    if _constructs(owner, scope):
        return True
    name = dotted_name(owner)
    return name is not None and _is_new_module(context, name, scope) and not _initialises(context, value, scope)


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
