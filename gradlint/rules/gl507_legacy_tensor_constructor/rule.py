from __future__ import annotations

from functools import cached_property
from typing import Optional, Sequence

import libcst as cst

from gradlint.analysis.legacy_types import LegacyTensorType, legacy_tensor_type
from gradlint.analysis.tree import descendants
from gradlint.fix.builders import enclosing_line, torch_alias
from gradlint.fix.plan import Applicability, Availability, Change, FixPlan, InsertLineBefore, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl507_legacy_tensor_constructor.evidence import (
    ArgumentEvidence,
    Evidence,
    changes_default_device,
    changes_default_dtype,
    constructor_type,
    factory_without_device,
    is_float_literal,
    is_in_loop,
    literal_leaves,
)

_CONSTRUCTOR = "`{call}` calls a legacy tensor type as a constructor (deprecated in torch 0.4); use `{fixed}`"
_AMBIGUOUS = (
    "`{call}` calls a legacy tensor type as a constructor (deprecated in torch 0.4); its argument may be a size or data: "
    "use `{alias}.empty(n{options})` for a size, `{alias}.tensor(data{options})` for data"
)
_CONVERSION = "`{call}` converts to a legacy tensor type (deprecated in torch 0.4); use `{fixed}`"
_DEFAULT_TYPE = "`{call}` sets a legacy tensor type as the default (deprecated in torch 2.1); use `{fixed}`"

# What the fixes write needs: the `dtype=` / `device=` of factories (0.4), `torch.set_default_dtype`
# (0.4.1), `torch.set_default_device` (2.0).
_FACTORY_OPTIONS_SINCE = "0.4"
_DEFAULT_DTYPE_SINCE = "0.4.1"
_DEFAULT_DEVICE_SINCE = "2.0"


class LegacyTensorConstructor(Rule):
    """
    ## What it does
    Flags the legacy tensor type classes used to make or convert tensors:
    `torch.FloatTensor([1, 2])`, `torch.LongTensor(ids)`, `torch.Tensor([0.5])` (from data),
    `torch.FloatTensor(2, 3)`, `torch.Tensor(out, in)` (sized, uninitialised),
    `torch.cuda.FloatTensor(...)`, `x.type(torch.DoubleTensor)` (also through a module-level
    alias, `dtype = torch.FloatTensor` ... `x.type(dtype)`) and
    `torch.set_default_tensor_type(torch.DoubleTensor)`.

    ## Why is this bad?
    Since torch 0.4 these classes are legacy names: `torch.tensor(data, dtype=...)`,
    `torch.empty(*sizes, dtype=...)`, `x.to(dtype)` and `torch.set_default_dtype` say the same
    without overloading one call for sizes and data: `torch.LongTensor(n)` is `n` uninitialised
    numbers when `n` is an int but a one-element tensor when it is `[n]`, and the same tensor,
    aliased, when it is a 0-dim tensor. `torch.set_default_tensor_type` warns since torch 2.1.

    ## Example
    ```python
    import torch

    target = torch.LongTensor([1, 0, 2])
    weight = torch.Tensor(10, 5)
    x = torch.randn(4).type(torch.DoubleTensor)
    torch.set_default_tensor_type(torch.DoubleTensor)
    ```

    ## Use instead
    ```python
    import torch

    target = torch.tensor([1, 0, 2], dtype=torch.int64)
    weight = torch.empty(10, 5)
    x = torch.randn(4).to(torch.float64)
    torch.set_default_dtype(torch.float64)
    ```

    ## Fix safety
    Measured under torch 2.13. From data, `torch.tensor(data, dtype=<the type's dtype>)` builds
    bitwise the same tensor (values, dtype, shape, `requires_grad`, also for ints read as floats,
    floats truncated to ints, bools, nested and empty lists, tuples, NumPy scalars, 0-dim tensor
    elements) and raises the same exception for ragged lists and out-of-range values;
    `torch.Tensor(data)` keeps the default dtype (`dtype=torch.get_default_dtype()`, left out when
    a float literal makes `torch.tensor` infer it). Sized, `torch.empty(*sizes, dtype=...)` has the
    same dtype, shape, device and `requires_grad`, and both leave the memory uninitialised (both
    fill it with NaN / the largest integer under `torch.use_deterministic_algorithms`); no
    arguments become `torch.empty(0)`. A list or tuple display builds the same tensor both ways
    for every kind of element measured (Python numbers, bools, strings, None, NumPy scalars and
    arrays, tensors with or without history, nested and ragged lists: the same values, the same
    exception, and for an element requiring grad the same warning, which torch gives once per
    process whichever form converts first; tensors on another device, which cannot be run here,
    are read by the same code of torch, which stores each element into a new CPU tensor in both
    forms; both hand a list or tuple to the same conversion of torch, which stores each element
    into a new tensor of the type's dtype, so no kind of element tells them apart). These fixes are
    safe when the argument is a list or tuple display or a list comprehension, whatever its
    elements, such a display repeated by an int (`[c] * x.size(0)`), a name every binding of which
    that can reach the call is one (`rewards = []` filled by `rewards.insert(0, R)`),
    a float64 NumPy array that `np.zeros/ones/empty(shape)` or
    `np.random.normal/uniform(..., size)` / `np.random.rand/randn(n)` makes (the legacy
    constructor converts it to float32 or an integer type, which copies it like `torch.tensor`
    does; a fresh array no other name sees is safe whatever the type), an int64 array
    `np.random.randint(..., size=n)` makes with `n` evidently an int (`torch.LongTensor` shares its
    memory where `torch.tensor` copies it, which no one can tell apart when no other name sees the
    array, but for `resize_` to more elements, which raises on the shared tensor and grows the copy), also when read once as `idx` from `z, idx = self.sample(n)` (the binding the read sees),
    where `sample`, every call of which is known in a run of the whole project, returns such an array
    it keeps no reference to (a local read there only as an index of a fresh array), or sizes: two or more arguments, an int literal, `len(...)`, `x.size(i)`,
    `x.shape[i]`, a command-line option declared `type=int` (`opt.batchSize`; in a run of the
    whole project also when the namespace is handed to project code that never writes that
    option, `model = RN(args)`), an attribute of a class's instances that only the class's own
    methods assign, only ints (`self.batch_size = 100`; in a run of the whole project, where no
    file the class's module is connected to by imports stores a `.batch_size` or writes
    attributes by name), or a name bound only to those. They are unsafe when a size is a parameter that defaults to an int or is
    passed to `range()` (a caller may pass a list, or a 0-dim tensor, which the legacy
    constructor returns itself), and in a file that changes the default device
    (`torch.set_default_device`, `set_default_tensor_type`, `with torch.device(...)`): the legacy
    classes build on the CPU whatever the default device, `torch.empty`/`torch.tensor` follow it.
    `x.type(torch.DoubleTensor)` becomes `x.to(torch.float64)`: the same tensor (itself when the
    dtype already matches) with the same history; safe when `x` is made by a torch factory
    without `device=`, unsafe otherwise, since the legacy call also copies a CUDA tensor to the CPU
    (`x.to("cpu", torch.float64)` is the exact form). `set_default_tensor_type` of a CPU type is
    exactly `set_default_dtype` (it leaves the default device alone; the only difference is its
    deprecation warning). The CUDA forms become `device="cuda"` calls and
    `set_default_device("cuda")`, unsafe: they could not be run here, the legacy CUDA classes
    keep a CUDA tensor's device index where `"cuda"` means the current device, and
    `set_default_device` does not move what the legacy classes build.
    Newer torch needed (`target-torch`): `set_default_device` 2.0.

    ## Known limits
    A default device set by a caller in another file (`with torch.device("meta"):` around a model's
    construction, as meta-device initialisation does) is not seen: there the fixed call builds on
    that device where the legacy class built on the CPU, which is what such a caller asks for.
    Likewise a default dtype of float64 set in another file makes `torch.Tensor(codes)` share a
    named float64 array's memory, which the fixed call copies. A sealed attribute assumes that
    code outside the run does not store attributes on objects of a class it does not define, and
    that no object of the class is unpickled by code not connected to its module by imports.
    A single argument that is not evidently a size or data (`torch.LongTensor(x)`: `x` may be a
    list, an int, a NumPy array of another dtype, whose memory the legacy constructor shares when the dtypes match, or a tensor,
    which it aliases) is reported without a fix, as are calls with keywords or `*args`; an
    argument that is evidently a tensor (`torch.Tensor(t.detach())`, a cast to the base class
    that returns `t` itself) is not reported. `x.type(T)` is reported only when `x` is evidently a
    tensor: `model.type(torch.DoubleTensor)` is the module method, which also casts integer
    buffers where `model.to(torch.float64)` does not. Type tests against the classes are GL106's. A class chosen at run time
    (`T = torch.cuda.FloatTensor if cuda else torch.FloatTensor`) is not followed.
    """

    code = "GL507"
    name = "legacy-tensor-constructor"
    summary = "`torch.FloatTensor([..])` / `torch.Tensor(2, 3)` / `x.type(torch.DoubleTensor)`: legacy tensor types"
    severity = Severity.WARNING
    migration = "api"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = ("Tensor", "tensor_type")

    VALID = (
        """
        import torch
        x = torch.tensor([1, 2], dtype=torch.int64)
        w = torch.empty(3, 4)
        y = x.to(torch.float64)
        """,
        """
        import torch
        def f(x: torch.Tensor) -> torch.Tensor:
            return x if isinstance(x, torch.Tensor) else torch.as_tensor(x)
        """,
        """
        import tensorflow as tf
        import numpy as np
        a = tf.Tensor(op, 0, tf.float32)
        b = np.float32([1, 2])
        """,
        """
        class Tensor:
            pass
        t = Tensor([1, 2])
        """,
        """
        import torch
        y = x.type(torch.float64)
        name = x.type()
        model.type(torch.DoubleTensor)
        base = torch.Tensor(x.detach())
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            target = torch.LongTensor([1, 0, 2])
            """,
            """
            import torch
            target = torch.tensor([1, 0, 2], dtype=torch.int64)
            """,
            line=2,
            column=10,
            message="`torch.LongTensor([1, 0, 2])` calls a legacy tensor type as a constructor (deprecated in torch 0.4); use `torch.tensor([1, 0, 2], dtype=torch.int64)`",
            fix_title="Replace with `torch.tensor([1, 0, 2], dtype=torch.int64)`",
        ),
        # a command-line option declared `type=int` is a size
        Invalid(
            """
            import argparse
            import torch
            parser = argparse.ArgumentParser()
            parser.add_argument("--batchSize", type=int, default=64)
            parser.add_argument("--scale", type=float, default=1.0)
            opt = parser.parse_args()
            label = torch.FloatTensor(opt.batchSize)
            scale = torch.FloatTensor(opt.scale)
            """,
            """
            import argparse
            import torch
            parser = argparse.ArgumentParser()
            parser.add_argument("--batchSize", type=int, default=64)
            parser.add_argument("--scale", type=float, default=1.0)
            opt = parser.parse_args()
            label = torch.empty(opt.batchSize, dtype=torch.float32)
            scale = torch.FloatTensor(opt.scale)
            """,
        ),
        Invalid(
            """
            import torch
            mean = torch.Tensor([2.0, -1.0])
            ones = torch.Tensor([[1, 1]])
            """,
            """
            import torch
            mean = torch.tensor([2.0, -1.0])
            ones = torch.tensor([[1, 1]], dtype=torch.get_default_dtype())
            """,
        ),
        Invalid(
            """
            import torch
            def make(n, features):
                weight = torch.Tensor(n, features)
                ids = torch.LongTensor(len(features))
                return weight, ids
            """,
            """
            import torch
            def make(n, features):
                weight = torch.empty(n, features)
                ids = torch.empty(len(features), dtype=torch.int64)
                return weight, ids
            """,
        ),
        # Float64 NumPy arrays: copied by the legacy constructor unless its dtype is float64 too.
        Invalid(
            """
            import numpy as np
            import torch
            def sample(n):
                codes = np.zeros((n, 10))
                return torch.Tensor(np.random.normal(0, 1, (1, n))), torch.Tensor(codes), torch.DoubleTensor(codes)
            """,
            """
            import numpy as np
            import torch
            def sample(n):
                codes = np.zeros((n, 10))
                return torch.tensor(np.random.normal(0, 1, (1, n)), dtype=torch.get_default_dtype()), torch.tensor(codes, dtype=torch.get_default_dtype()), torch.DoubleTensor(codes)
            """,
            line=5,
            column=12,
            fix_title="Replace with `torch.tensor(np.random.normal(0, 1, (1, n)), dtype=torch.get_default_dtype())`",
        ),
        # Elements the value model proves history-free or evidently tensors, a display repeated
        # by a size: safe; a model's output or a parameter of unknown callers: unsafe.
        Invalid(
            """
            import torch
            def targets(model, x, num_classes):
                rewards = torch.randn(3)
                labels = []
                for r in rewards:
                    labels.append(torch.Tensor([r]))
                fake = torch.Tensor([10] * x.size(0)).long()
                other = torch.Tensor([num_classes] * x.size(0)).long()
                score = torch.Tensor([model(x).sum()])
                return labels, fake, other, score
            """,
            """
            import torch
            def targets(model, x, num_classes):
                rewards = torch.randn(3)
                labels = []
                for r in rewards:
                    labels.append(torch.tensor([r], dtype=torch.get_default_dtype()))
                fake = torch.tensor([10] * x.size(0), dtype=torch.get_default_dtype()).long()
                other = torch.tensor([num_classes] * x.size(0), dtype=torch.get_default_dtype()).long()
                score = torch.tensor([model(x).sum()], dtype=torch.get_default_dtype())
                return labels, fake, other, score
            """,
            line=6,
            column=23,
            fix_title="Replace with `torch.tensor([r], dtype=torch.get_default_dtype())`",
        ),
        # Named like a tensor, but also one of several sizes: a size.
        Invalid(
            """
            import torch
            def make(output_features, input_features):
                return torch.Tensor(output_features, input_features), torch.Tensor(output_features)
            """,
            """
            import torch
            def make(output_features, input_features):
                return torch.empty(output_features, input_features), torch.empty(output_features)
            """,
        ),
        Invalid(
            """
            from torch import FloatTensor
            x = FloatTensor(2, 3).fill_(0.5)
            """,
            """
            import torch
            from torch import FloatTensor
            x = torch.empty(2, 3, dtype=torch.float32).fill_(0.5)
            """,
        ),
        Invalid(
            """
            import torch
            x = torch.cuda.FloatTensor(4, 2).normal_()
            """,
            """
            import torch
            x = torch.empty(4, 2, dtype=torch.float32, device="cuda").normal_()
            """,
        ),
        # In parentheses of its own: the message shows the call, the fix keeps the parentheses once.
        Invalid(
            """
            import torch
            online = (
                torch.BoolTensor([not done()])
            )
            """,
            """
            import torch
            online = (
                torch.tensor([not done()], dtype=torch.bool)
            )
            """,
            message="`torch.BoolTensor([not done()])` calls a legacy tensor type as a constructor (deprecated in torch 0.4); use `torch.tensor([not done()], dtype=torch.bool)`",
        ),
        Invalid(
            """
            import torch
            def sample(ids):
                return torch.LongTensor(ids)
            """,
            fixed=None,
            message="its argument may be a size or data",
        ),
        Invalid(
            """
            import torch
            y = torch.randn(4).type(torch.DoubleTensor)
            z = w.detach().type(torch.cuda.FloatTensor)
            """,
            """
            import torch
            y = torch.randn(4).to(torch.float64)
            z = w.detach().to("cuda", torch.float32)
            """,
            message="converts to a legacy tensor type",
        ),
        Invalid(
            """
            import torch
            dtype = torch.FloatTensor
            x = torch.randn(3, 4).type(dtype)
            w = torch.randn(4, 2).type(dtype)
            """,
            """
            import torch
            dtype = torch.float32
            x = torch.randn(3, 4).to(dtype)
            w = torch.randn(4, 2).to(dtype)
            """,
        ),
        Invalid(
            """
            import torch
            torch.set_default_tensor_type(torch.DoubleTensor)
            """,
            """
            import torch
            torch.set_default_dtype(torch.float64)
            """,
            message="(deprecated in torch 2.1)",
        ),
        Invalid(
            """
            import torch
            torch.set_default_tensor_type("torch.cuda.FloatTensor")
            """,
            """
            import torch
            torch.set_default_dtype(torch.float32)
            torch.set_default_device("cuda")
            """,
        ),
    )

    @cached_property
    def _arguments(self) -> ArgumentEvidence:
        context = self.context
        return ArgumentEvidence(
            context.imports,
            context.scopes,
            context.module,
            context.values.is_python_int,
            uses=context.scope_uses,
            summaries=context.functions,
        )

    @cached_property
    def _device_changed(self) -> bool:
        return changes_default_device(self.context.module, self.context.imports)

    @cached_property
    def _dtype_changed(self) -> bool:
        return changes_default_dtype(self.context.module, self.context.imports)

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        found = constructor_type(qualified)
        if found is not None:
            self._constructor(node, found[0])
        elif qualified == "torch.set_default_tensor_type":
            self._default_type(node)
        elif qualified is None and isinstance(node.func, cst.Attribute) and node.func.attr.value == "type":
            self._conversion(node)

    # -- constructors ---------------------------------------------------------------------------

    def _constructor(self, node: cst.Call, legacy: Optional[LegacyTensorType]) -> None:
        if len(node.args) == 1 and not node.args[0].star and self._is_cast(node.args[0].value):
            return  # a cast of a tensor to the base class (the constructor returns it itself), not a construction
        found = torch_alias(self.context)
        call = snippet(self._code(node), 60)
        if any(arg.star or arg.keyword is not None for arg in node.args) or found is None:
            self._ambiguous(node, legacy, call)
            return
        alias, imports = found
        positional = list(node.args)
        built = self._sized_or_data(node, positional, legacy, alias)
        if built is None:
            self._ambiguous(node, legacy, call)
            return
        replacement, evidence = built
        exact = evidence is Evidence.EXACT and not (legacy is not None and legacy.cuda) and not self._device_changed
        fixed = snippet(self._code(replacement), 80)
        plan = self._plan(exact, f"Replace with `{fixed}`", *imports, Replace(node, replacement))
        self.report(node, _CONSTRUCTOR.format(call=call, fixed=fixed), plan)

    def _code(self, node: cst.Call) -> str:
        """The call's text without the parentheses around it, which would show a one-line call
        inside multi-line parentheses as `(...`."""
        return self.context.code_for(node.with_changes(lpar=[], rpar=[]))

    def _is_cast(self, value: cst.BaseExpression) -> bool:
        """A tensor by evidence, not a size that is merely named like one (`output_features`)."""
        return self.context.is_tensor(value) and self._arguments.size(value, self.context.scope()) is None

    def _sized_or_data(
        self, node: cst.Call, args: list[cst.Arg], legacy: Optional[LegacyTensorType], alias: str
    ) -> Optional[tuple[cst.Call, Evidence]]:
        if not args:
            return _call(node, f"{alias}.empty", [cst.Arg(cst.Integer("0"))], _options(legacy, alias)), Evidence.EXACT
        scope = self.context.scope()
        if len(args) > 1:
            return _call(node, f"{alias}.empty", args, _options(legacy, alias)), Evidence.EXACT
        value = args[0].value
        size = self._arguments.size(value, scope)
        if size is not None:
            return _call(node, f"{alias}.empty", args, _options(legacy, alias)), size
        if self._copied_float64_array(value, legacy, scope) or self._arguments.unshared_array(value, scope):
            options = _options(legacy, alias) or [("dtype", f"{alias}.get_default_dtype()")]
            return _call(node, f"{alias}.tensor", args, options), Evidence.EXACT
        in_loop = is_in_loop(self.context.stack, scope)
        line = self.context.line_of(node)

        def reaches(binding: cst.BaseExpression) -> bool:
            # before the call in the text, or anywhere when a loop brings later bindings round
            return in_loop or self.context.line_of(binding) < line

        data = self._arguments.data(value, scope, reaches)
        if data is None:
            return None
        options = _options(legacy, alias)
        if legacy is None:
            leaves = literal_leaves(value)
            infers_default = leaves is not None and (not leaves or any(is_float_literal(leaf) for leaf in leaves))
            options = [] if infers_default else [("dtype", f"{alias}.get_default_dtype()")]
        return _call(node, f"{alias}.tensor", args, options), data

    def _copied_float64_array(self, value: cst.BaseExpression, legacy: Optional[LegacyTensorType], scope: cst.CSTNode) -> bool:
        """A float64 NumPy array, which the legacy constructor copies like `torch.tensor` unless its
        dtype is float64 too (then it shares the array's memory): a fresh array no other name
        sees, or one the legacy type converts (`torch.Tensor` in a file that keeps float32 as the
        default dtype)."""
        if not self._arguments.float64_array(value, scope):
            return False
        if isinstance(value, cst.Call):
            return True
        return legacy.dtype != "float64" if legacy is not None else not self._dtype_changed

    def _ambiguous(self, node: cst.Call, legacy: Optional[LegacyTensorType], call: str) -> None:
        options = "".join(f", {key}={value}" for key, value in _options(legacy, "torch"))
        self.report(node, _AMBIGUOUS.format(call=call, alias="torch", options=options))

    # -- x.type(torch.DoubleTensor) -------------------------------------------------------------

    def _conversion(self, node: cst.Call) -> None:
        args = [arg for arg in node.args if not (arg.keyword is not None and arg.keyword.value == "non_blocking")]
        if len(args) != 1 or args[0].keyword is not None or args[0].star:
            return
        target = args[0].value
        if not self._is_tensor(node.func.value):
            return  # `model.type(torch.FloatTensor)` casts a module, whose `.to` is not the same
        found_alias = self._type_alias(target.value) if isinstance(target, cst.Name) else None
        legacy, alias_uses = found_alias if found_alias is not None else (self._legacy_type(target), None)
        if legacy is None:
            return
        call = snippet(self._code(node), 60)
        found_torch = torch_alias(self.context)
        if found_torch is None:
            self.report(node, _CONVERSION.format(call=call, fixed="x.to(dtype)"))
            return
        alias, imports = found_torch
        if alias_uses is not None:
            self._alias_conversion(node, target, legacy, alias_uses, alias, imports, call)
            return
        dtype = cst.parse_expression(f"{alias}.{legacy.dtype}")
        first = [cst.Arg(cst.SimpleString('"cuda"'))] if legacy.cuda else []
        replacement = node.with_changes(
            func=node.func.with_changes(attr=cst.Name("to")),
            args=[*first, *[arg.with_changes(value=dtype) if arg is args[0] else arg for arg in node.args]],
            lpar=[],
            rpar=[],
        )
        exact = not legacy.cuda and self._evidently_cpu(node.func.value)
        fixed = snippet(self._code(replacement), 80)
        self.report(
            node,
            _CONVERSION.format(call=call, fixed=fixed),
            self._plan(exact, f"Replace with `{fixed}`", *imports, Replace(node, replacement)),
        )

    def _alias_conversion(
        self,
        node: cst.Call,
        target: cst.Name,
        legacy: LegacyTensorType,
        uses: tuple[cst.Assign, Sequence[cst.Call]],
        alias: str,
        imports: list[Change],
        call: str,
    ) -> None:
        assign, calls = uses
        if legacy.cuda:
            self.report(node, _CONVERSION.format(call=call, fixed=f'x.to("cuda", {alias}.{legacy.dtype})'))
            return
        changes = [*imports, Replace(assign.value, f"{alias}.{legacy.dtype}")]
        changes += [Replace(use.func.attr, "to") for use in calls]
        exact = all(self._evidently_cpu(use.func.value) for use in calls)
        fixed = f"{target.value} = {alias}.{legacy.dtype}` and `.to({target.value})"
        self.report(node, _CONVERSION.format(call=call, fixed=fixed), self._plan(exact, f"Replace with `{fixed}`", *changes))

    def _legacy_type(self, node: cst.BaseExpression) -> Optional[LegacyTensorType]:
        if isinstance(node, cst.SimpleString):
            text = node.evaluated_value
            return legacy_tensor_type(text) if isinstance(text, str) else None
        return legacy_tensor_type(self.context.qualified_name(node))

    def _type_alias(self, name: str) -> Optional[tuple[LegacyTensorType, Optional[tuple[cst.Assign, list[cst.Call]]]]]:
        """`dtype = torch.FloatTensor` at module level, not rebound where `name` is read: the legacy
        type, with (the assignment, every `.type(dtype)` call) when those are its only uses."""
        scope = self.context.scope()
        local = self.context.scopes.of(scope)
        if scope is not self.context.module and (local.assigned(name) or name in local.opaque):
            return None
        module = self.context.scopes.of(self.context.module)
        values = module.assigned(name)
        if len(values) != 1 or name in module.opaque or name in module.unpacked or name in module.loop_sources:
            return None
        legacy = self._legacy_type(values[0])
        if legacy is None:
            return None
        return legacy, _alias_uses(self.context.module, name, values[0])

    def _is_tensor(self, node: cst.BaseExpression) -> bool:
        while isinstance(node, cst.Attribute) and node.attr.value == "data":
            node = node.value  # `.data` of a tensor is a tensor
        return self.context.is_tensor(node)

    def _evidently_cpu(self, receiver: cst.BaseExpression) -> bool:
        return not self._device_changed and factory_without_device(receiver, self.context.imports)

    # -- torch.set_default_tensor_type ---------------------------------------------------------

    def _default_type(self, node: cst.Call) -> None:
        call = snippet(self.context.code_for(node), 60)
        args = node.args
        legacy = self._legacy_type(args[0].value) if len(args) == 1 and args[0].keyword is None and not args[0].star else None
        found = torch_alias(self.context)
        if legacy is None or found is None:
            self.report(node, _DEFAULT_TYPE.format(call=call, fixed="torch.set_default_dtype(...)` and `torch.set_default_device(...)"))
            return
        alias, imports = found
        setter = self.context.code_for(node.func).rsplit(".", 1)[0] if isinstance(node.func, cst.Attribute) else alias
        dtype_call = f"{setter}.set_default_dtype({alias}.{legacy.dtype})"
        if not legacy.cuda:
            self.report(
                node,
                _DEFAULT_TYPE.format(call=call, fixed=dtype_call),
                self.safe_fix(f"Replace with `{dtype_call}`", *imports, Replace(node, dtype_call), needs_torch=_DEFAULT_DTYPE_SINCE),
            )
            return
        device_call = f'{setter}.set_default_device("cuda")'
        fixed = f"{dtype_call}` and `{device_call}"
        line = enclosing_line(self.context.stack)
        statement = line[0] if line is not None else None
        alone = (
            statement is not None
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and statement.body[0].value is node
        )
        plan = (
            self.unsafe_fix(
                f"Replace with `{fixed}`",
                *imports,
                InsertLineBefore(statement, dtype_call),
                Replace(node, device_call),
                needs_torch=_DEFAULT_DEVICE_SINCE,
            )
            if alone
            else None
        )
        self.report(node, _DEFAULT_TYPE.format(call=call, fixed=fixed), plan)

    def _plan(self, exact: bool, title: str, *changes: Change) -> FixPlan:
        make = self.safe_fix if exact else self.unsafe_fix
        return make(title, *changes, needs_torch=_FACTORY_OPTIONS_SINCE)


def _options(legacy: Optional[LegacyTensorType], alias: str) -> list[tuple[str, str]]:
    """The keywords that keep a legacy type's dtype and device (none for `torch.Tensor`)."""
    if legacy is None:
        return []
    options = [("dtype", f"{alias}.{legacy.dtype}")]
    return [*options, ("device", '"cuda"')] if legacy.cuda else options


def _call(node: cst.Call, func: str, args: Sequence[cst.Arg], keywords: Sequence[tuple[str, str]]) -> cst.Call:
    """`func(args..., key=value...)`, the arguments' own text and commas kept."""
    args = list(args)
    added = [
        cst.Arg(
            cst.parse_expression(value),
            keyword=cst.Name(key),
            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
        )
        for key, value in keywords
    ]
    if added and args and not isinstance(args[-1].comma, cst.Comma):
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    added = [arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for arg in added[:-1]] + added[-1:]
    # the edit replaces the call inside its parentheses, which therefore stay out of the replacement
    return node.with_changes(func=cst.parse_expression(func), args=[*args, *added], lpar=[], rpar=[])


def _alias_uses(module: cst.Module, name: str, value: cst.BaseExpression) -> Optional[tuple[cst.Assign, list[cst.Call]]]:
    """(the assignment of `value` to `name`, the `.type(name)` calls) when the name is read nowhere else."""
    assign = next((node for node in descendants(module) if isinstance(node, cst.Assign) and node.value is value), None)
    if assign is None:
        return None
    calls, reads = [], 0
    skipped: set[int] = set()
    for node in descendants(module):
        if isinstance(node, cst.Attribute):
            skipped.add(id(node.attr))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            skipped.add(id(node.keyword))
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "type":
            if (
                len(node.args) == 1
                and isinstance(node.args[0].value, cst.Name)
                and node.args[0].value.value == name
                and not node.args[0].keyword
            ):
                calls.append(node)
        elif isinstance(node, cst.Name) and node.value == name and id(node) not in skipped:
            reads += 1
    # every occurrence is the assignment's target or the argument of one of the calls
    return (assign, calls) if reads == 1 + len(calls) and len(assign.targets) == 1 else None
