from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.syntax import DEFINITIONS, keyword_arg, positional_args
from gradlint.analysis.tree import iter_children
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.rules.base import Invalid, Rule, Severity

_LOAD = frozenset({"torch.load", "torch.serialization.load"})
# Inside `with torch.serialization.safe_globals([...]):` the weights-only load accepts the listed classes.
_SAFE_GLOBALS = "torch.serialization.safe_globals"
_WEIGHTS_ONLY_SINCE = "1.13"  # `torch.load(..., weights_only=)`; older releases raise for the keyword
# safetensors writes a dict of tensors only: a value also given to it is a state dict.
_SAFETENSORS_SAVE = frozenset({"safetensors.torch.save_file", "safetensors.torch.save"})
_SAVE = frozenset({"torch.save", "torch.serialization.save"})
# Functions that accept a NumPy array and nothing a weights-only load returns (a tensor, a list...).
_NUMPY_ONLY = frozenset({"torch.from_numpy"})
# Methods of an `nn.Module` that a weights-only load can never return: no tensor, dict, list or
# number has them, so a loaded value calling one is a whole pickled object.
_OBJECT_METHODS = torch_api.module_methods("module-only")
# Methods that return the module they are called on (`torch.load(p).to(device).eval()`).
_SAME_OBJECT = torch_api.module_methods("converts")

_WHOLE_OBJECT_LOAD = (
    "`{call}` loads a whole pickled object (it is used as a module: `{use}`), which the `weights_only=True` default "
    "refuses with `UnpicklingError` (default changed in torch 2.6); pass `weights_only=False` for a file you trust, "
    "or save and load a `state_dict()`"
)
_NUMPY_ARRAY_LOAD = (
    "`{call}` loads a pickled NumPy array (it is given to `{use}`), which the `weights_only=True` default "
    "refuses with `UnpicklingError` (default changed in torch 2.6); pass `weights_only=False` for a file you trust, "
    "or save it with `np.save` and load it with `np.load`"
)
_UNCALLED_STATE_DICT = (
    "`torch.save({argument}, ...)` saves the bound method, that is the whole module, not its state dict "
    "(such files no longer load by default: default changed in torch 2.6); call it: `{argument}()`"
)
_WHOLE_MODULE_SAVE = (
    "`torch.save({argument}, ...)` pickles the whole module, which `torch.load` refuses by default "
    "(default changed in torch 2.6) and which breaks when its class moves; save `{argument}.state_dict()` "
    "and load it into a constructed model"
)


class LegacySerialization(Rule):
    """
    ## What it does
    Flags serialisation that the `weights_only=True` default of `torch.load` (torch 2.6) breaks:
    a `torch.load(...)` without `weights_only=` whose result is evidently a whole module (the code
    calls `.eval()`, `.parameters()`, `.state_dict()`, `.forward()`... on it, or calls it), or a
    checkpoint holding one (the same use of `checkpoint["model"]`, directly or through a name bound
    to it), or a pickled NumPy array (the loaded value, or a slice of it, is given to
    `torch.from_numpy`, which takes nothing else);
    `torch.save(model, path)` of an evident module; and `torch.save(model.state_dict, path)`,
    the method saved instead of its result.

    ## Why is this bad?
    Measured in torch 2.13: `torch.load(path)` loads state dicts, tensors, and checkpoint dicts
    of tensors, numbers, strings and optimizer states as before, but a pickled module (or a bound
    `state_dict` method, which pickles its module) raises `_pickle.UnpicklingError: Weights only
    load failed` unless `weights_only=False` is passed; so does a NumPy array saved with
    `torch.save` (2017's time-series example saved its training data so). Code written before 2.6 that saves and
    loads whole models stops working, and `weights_only=False` executes whatever the file's
    pickle says, so it is for trusted files only.

    ## Example
    ```python
    import torch

    torch.save(model.state_dict, "weights.pt")
    net = torch.load("model.pt")
    net.eval()
    ```

    ## Use instead
    ```python
    import torch

    torch.save(model.state_dict(), "weights.pt")
    net = torch.load("model.pt", weights_only=False)  # a file you trust
    net.eval()
    ```

    ## Fix safety
    Unsafe, both fixes. `weights_only=False` makes the load work again exactly as before torch
    2.6 (measured: the object loads, no warning), but it runs the file's pickle: apply it only to
    files you trust. `model.state_dict()` saves the state dict where the legacy call pickled the
    whole module, so the file and what loading it returns change (the loader then needs
    `load_state_dict`). `torch.save(model, ...)` has no fix: switching to a state dict changes the
    file format and every place that loads it.
    Newer torch needed (`target-torch`): `weights_only=` 1.13.

    ## Known limits
    A `torch.load` without `weights_only=` is not reported when nothing shows that it loads a
    whole object: a state dict, tensor or checkpoint dict of tensors and numbers loads exactly as
    before (measured), and which other objects a checkpoint holds (an `argparse.Namespace`, a
    NumPy scalar: both now raise) cannot be seen in the code. Loads with `pickle_module=` keep
    the old default and are not reported. The module evidence is the name bound to the load in
    the same function (or `self.<name>` in the same class), or an entry of it read with a
    written-out key, used as a module there. Other pickled objects in a checkpoint (an
    `argparse.Namespace` read as `checkpoint["settings"].d_model`) are not recognised; a NumPy
    array is recognised only through `torch.from_numpy` of the name bound once to the load (or of
    a slice of it) in the same function.
    `torch.save` of a whole module is not reported in a file that loads with
    `weights_only=False` somewhere: such a file saves whole objects on purpose (torch's own
    distributed tests and `GraphModule.to_folder` do).
    """

    code = "GL510"
    name = "legacy-serialization"
    summary = "`torch.load` of a whole module without `weights_only=False`, `torch.save(model)`, `torch.save(model.state_dict)`"
    severity = Severity.ERROR
    migration = "api"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("load", "save")

    VALID = (
        """
        import torch
        model.load_state_dict(torch.load("weights.pt"))
        checkpoint = torch.load(path, map_location="cpu")
        model.load_state_dict(checkpoint["state_dict"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        torch.save(model.state_dict(), "weights.pt")
        torch.save({"epoch": 3, "state_dict": model.state_dict()}, "checkpoint.pt")
        """,
        """
        import torch
        net = torch.load("model.pt", weights_only=False)
        net.eval()
        legacy = torch.load("model.pt", pickle_module=pickle)
        legacy.eval()
        """,
        """
        import torch
        import torch.nn as nn
        model = nn.Linear(2, 2)
        torch.save(model, path)
        restored = torch.load(path, weights_only=False)
        """,
        """
        import numpy as np
        import pickle
        data = np.load("x.npy")
        data.eval()
        pickle.dump(model, handle)
        """,
        """
        import torch
        model = torch.load("weights.pt")
        def evaluate(model, x):
            model.eval()
            return model(x)
        """,
        """
        import torch
        state = torch.load("weights.pt")
        model = Net()
        model.load_state_dict(state)
        model.eval()
        """,
        # entries of a checkpoint of state dicts, read by a computed key or rebound
        """
        import torch
        checkpoint = torch.load(path)
        model.load_state_dict(checkpoint["model"])
        part = checkpoint[name]
        part.eval()
        net = checkpoint["net"]
        net = build(net)
        net.eval()
        """,
        # the classes listed in `safe_globals` load under the weights-only default
        """
        import torch
        with torch.serialization.safe_globals([RNNModel, torch.nn.Linear]):
            model = torch.load(f, map_location=device)
        model.eval()
        """,
        # `torch.from_numpy` of something else than the loaded value
        """
        import numpy as np
        import torch
        state = torch.load(path)
        features = torch.from_numpy(np.load(other))
        table = torch.from_numpy(state.numpy())
        """,
        # a state dict named `model`, also written with safetensors
        """
        import torch
        from safetensors.torch import save_file
        def save_to_file(file_name, model, metadata):
            if file_name.endswith(".safetensors"):
                save_file(model, file_name, metadata)
            else:
                torch.save(model, file_name)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            net = torch.load("model.pt", map_location="cpu")
            net.eval()
            """,
            """
            import torch
            net = torch.load("model.pt", map_location="cpu", weights_only=False)
            net.eval()
            """,
            line=2,
            column=7,
            message='`torch.load("model.pt", map_location="cpu")` loads a whole pickled object (it is used as a module: `net.eval(...)`)',
            fix_title="Pass `weights_only=False` (for a file you trust)",
        ),
        Invalid(
            """
            from torch import load
            class Runner:
                def __init__(self, path):
                    self.model = load(path).cuda()
                def predict(self, x):
                    return self.model(x)
            """,
            """
            from torch import load
            class Runner:
                def __init__(self, path):
                    self.model = load(path, weights_only=False).cuda()
                def predict(self, x):
                    return self.model(x)
            """,
            message="used as a module: `self.model(...)`",
        ),
        Invalid(
            """
            import torch
            predictor = torch.load(path).to(device).eval()
            """,
            """
            import torch
            predictor = torch.load(path, weights_only=False).to(device).eval()
            """,
            message="(it is used as a module: `.eval(...)`)",
        ),
        Invalid(
            """
            import torch
            checkpoint = torch.load(path)
            model = checkpoint["model"]
            model.eval()
            """,
            """
            import torch
            checkpoint = torch.load(path, weights_only=False)
            model = checkpoint["model"]
            model.eval()
            """,
            message="(it is used as a module: `model.eval(...)`), which the `weights_only=True` default refuses",
        ),
        Invalid(
            """
            import torch
            package = torch.load(path, map_location="cpu")
            scores = package["net"](inputs)
            """,
            """
            import torch
            package = torch.load(path, map_location="cpu", weights_only=False)
            scores = package["net"](inputs)
            """,
        ),
        Invalid(
            """
            import torch
            data = torch.load("traindata.pt")
            inputs = torch.from_numpy(data[3:, :-1])
            """,
            """
            import torch
            data = torch.load("traindata.pt", weights_only=False)
            inputs = torch.from_numpy(data[3:, :-1])
            """,
            message='`torch.load("traindata.pt")` loads a pickled NumPy array (it is given to `torch.from_numpy(data[3:, :-1])`)',
        ),
        Invalid(
            """
            import torch
            torch.save(model.state_dict, "weights.pt")
            """,
            """
            import torch
            torch.save(model.state_dict(), "weights.pt")
            """,
            line=2,
            column=12,
            message="`torch.save(model.state_dict, ...)` saves the bound method",
            fix_title="Call `model.state_dict()`",
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Net(nn.Module):
                def save(self, path):
                    torch.save(self, path)
            encoder = nn.LSTM(10, 20)
            torch.save(encoder, "encoder.pt")
            """,
            fixed=None,
            line=5,
            column=20,
            message="`torch.save(self, ...)` pickles the whole module",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        if qualified in _LOAD:
            self._check_load(node)
        elif qualified in _SAVE:
            self._check_save(node)

    # -- torch.load ---------------------------------------------------------------------------

    def _check_load(self, node: cst.Call) -> None:
        if keyword_arg(node, "weights_only") is not None or keyword_arg(node, "pickle_module") is not None:
            return
        if len(positional_args(node)) > 2 or any(arg.star for arg in node.args):
            return  # `pickle_module` (third) or unknown arguments
        if self._under_safe_globals():
            return
        use = self._object_use(node)
        if use is not None:
            message = _WHOLE_OBJECT_LOAD.format(call=self.context.code_for(node), use=use)
        else:
            use = self._array_use(node)
            if use is None:
                return
            message = _NUMPY_ARRAY_LOAD.format(call=self.context.code_for(node), use=use)
        fix = self.unsafe_fix(
            "Pass `weights_only=False` (for a file you trust)", *self._weights_only_false(node), needs_torch=_WEIGHTS_ONLY_SINCE
        )
        self.report(node, message, fix)

    def _under_safe_globals(self) -> bool:
        """Within `with torch.serialization.safe_globals([...]):` the default load allows the listed
        classes, so a whole module made of them loads."""
        return any(
            isinstance(node, cst.With)
            and any(self.context.qualified_name(item.item.func) == _SAFE_GLOBALS for item in node.items if isinstance(item.item, cst.Call))
            for node in self.context.stack
        )

    def _object_use(self, node: cst.Call) -> Optional[str]:
        """How the loaded value is used as a module (`eval()`, `model(...)`), if it evidently is."""
        stack = self.context.stack
        index = len(stack) - 1
        # Through `.to(device)`, `.cuda()`...: the same object.
        while index >= 2 and isinstance(stack[index - 1], cst.Attribute) and isinstance(stack[index - 2], cst.Call):
            method = stack[index - 1].attr.value
            if method in _OBJECT_METHODS:
                return f".{method}(...)"
            if method not in _SAME_OBJECT:
                return None
            index -= 2
        target = self._assigned_to(index)
        return self._use_of_target(target) if target is not None else None

    def _array_use(self, node: cst.Call) -> Optional[str]:
        """The call that takes the loaded value (or a slice of it) as a NumPy array, if one does:
        `data = torch.load(path)` then `torch.from_numpy(data[3:, :-1])`."""
        target = self._assigned_to(len(self.context.stack) - 1)
        scope = self.context.scope()
        if not isinstance(target, cst.Name) or not self._bound_once(target.value, scope):
            return None
        for call in _calls_within(scope):
            if self.context.qualified_name(call.func) in _NUMPY_ONLY and call.args and _is_name_or_slice(call.args[0].value, target.value):
                return f"{self.context.code_for(call.func)}({self.context.code_for(call.args[0].value)})"
        return None

    def _assigned_to(self, index: int) -> Optional[cst.BaseExpression]:
        """The one target of the assignment whose value is the visited node's ancestor `stack[index]`."""
        stack = self.context.stack
        parent = stack[index - 1] if index >= 1 else None
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and parent.value is stack[index]:
            return parent.targets[0].target
        return None

    def _bound_once(self, name: str, scope: cst.CSTNode) -> bool:
        """Not rebound in the function: its uses see the loaded value."""
        return len(self.context.scopes.values_of(name, scope)) == 1

    def _use_of_target(self, target: cst.BaseExpression) -> Optional[str]:
        scope = self.context.scope()
        if isinstance(target, cst.Name):
            if not self._bound_once(target.value, scope):
                return None
            name = target.value
            use = _first_object_use(scope, lambda expression: _is_name(expression, name) or self._is_entry_of(expression, name, scope))
            return self._shown(use)
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            owner = self.context.enclosing_class()
            if owner is None or len(self.context.scopes.instance_attribute_values(target, scope)) != 1:
                return None
            receiver, attribute = target.value.value, target.attr.value
            use = _first_object_use(
                owner,
                lambda expression: (
                    isinstance(expression, cst.Attribute)
                    and expression.attr.value == attribute
                    and isinstance(expression.value, cst.Name)
                    and expression.value.value == receiver
                ),
            )
            return self._shown(use)
        return None

    def _is_entry_of(self, expression: cst.BaseExpression, loaded: str, scope: cst.CSTNode) -> bool:
        """`loaded["model"]`, or a name bound once to it: an entry of a loaded checkpoint."""
        if isinstance(expression, cst.Name):
            values = self.context.scopes.values_of(expression.value, scope)
            return len(values) == 1 and _is_string_entry(values[0], loaded)
        return _is_string_entry(expression, loaded)

    def _shown(self, use: Optional[cst.BaseExpression]) -> Optional[str]:
        if use is None:
            return None
        return f"{self.context.code_for(use)}(...)"

    def _weights_only_false(self, node: cst.Call) -> Iterator[Replace]:
        args = list(node.args)
        last = args[-1]
        if not isinstance(last.comma, cst.Comma):
            args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
        args.append(cst.Arg(value=cst.Name("False"), keyword=cst.Name("weights_only"), equal=equal, comma=last.comma))
        yield Replace(node, node.with_changes(args=args))

    # -- torch.save ---------------------------------------------------------------------------

    def _check_save(self, node: cst.Call) -> None:
        positional = positional_args(node)
        saved = positional[0] if positional else keyword_arg(node, "obj")
        if saved is None:
            return
        value = saved.value
        shown = self.context.code_for(value)
        if isinstance(value, cst.Attribute) and value.attr.value == "state_dict":
            called = cst.Call(func=value)
            self.report(value, _UNCALLED_STATE_DICT.format(argument=shown), self.unsafe_fix(f"Call `{shown}()`", Replace(value, called)))
        elif (
            self.context.nn_modules.is_module(value, self.context.stack)
            and not self._loads_whole_objects_deliberately()
            and not self._also_saved_with_safetensors(value)
        ):
            self.report(value, _WHOLE_MODULE_SAVE.format(argument=shown))

    def _also_saved_with_safetensors(self, value: cst.BaseExpression) -> bool:
        """The same name goes to safetensors' `save_file` in this function (`save_file(sd, path)` in
        one branch, `torch.save(sd, path)` in the other): it holds a state dict, whatever its name."""
        if not isinstance(value, cst.Name):
            return False
        for call in _calls_within(self.context.scope()):
            if self.context.qualified_name(call.func) in _SAFETENSORS_SAVE and call.args:
                first = call.args[0].value
                if isinstance(first, cst.Name) and first.value == value.value:
                    return True
        return False

    def _loads_whole_objects_deliberately(self) -> bool:
        """The file loads with `weights_only=False` somewhere (torch's own DDP tests and
        `GraphModule.to_folder` do, even in generated code): its whole-module saves are meant."""
        return "weights_only=False" in self.context.file_text


def _calls_within(scope: cst.CSTNode) -> Iterator[cst.Call]:
    """The calls of a function or module body, not of the functions and classes nested in it (where
    the name may be another binding); of a class, the calls in all its methods."""
    pending = list(reversed(iter_children(scope)))
    nested = () if isinstance(scope, cst.ClassDef) else DEFINITIONS
    while pending:
        node = pending.pop()
        if isinstance(node, nested):
            continue
        if isinstance(node, cst.Call):
            yield node
        pending.extend(reversed(iter_children(node)))


def _is_name(expression: cst.BaseExpression, name: str) -> bool:
    return isinstance(expression, cst.Name) and expression.value == name


def _is_name_or_slice(expression: cst.BaseExpression, name: str) -> bool:
    """`name`, or `name[...]` indexed or sliced (an array's slice is an array)."""
    if isinstance(expression, cst.Subscript):
        expression = expression.value
    return _is_name(expression, name)


def _is_string_entry(expression: cst.BaseExpression, container: str) -> bool:
    """`container["key"]`: one entry of a dict, by a written-out key."""
    if not (isinstance(expression, cst.Subscript) and _is_name(expression.value, container) and len(expression.slice) == 1):
        return False
    index = expression.slice[0].slice
    return isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)


def _first_object_use(scope: cst.CSTNode, is_target) -> Optional[cst.BaseExpression]:
    """The first module-only use of the value `is_target` recognises within `scope`, in source
    order: the callee of a call (`net(x)`) or the method only modules have (`net.eval()`)."""
    for node in _calls_within(scope):
        func = node.func
        if is_target(func) or isinstance(func, cst.Attribute) and func.attr.value in _OBJECT_METHODS and is_target(func.value):
            return func
    return None
