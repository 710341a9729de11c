from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api

from gradlint.analysis.nn_module_classes import NnModuleClass, SelfAssignment, appended_items, calls_in, container_items, sole_list_binding
from gradlint.analysis.scopes import self_name
from gradlint.analysis.syntax import keyword_arg
from gradlint.analysis.tree import descendants
from gradlint.fix.builders import call_without_argument
from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace
from gradlint.rules.base import Invalid, Rule, Severity

_CONTAINER = (
    "`self.{attr}` holds modules built here in a Python {kind}: their parameters are missing from "
    "`parameters()` and `state_dict()`, not moved by `.to()`, never trained; use `nn.{wrapper}`"
)
_TENSOR = (
    "`self.{attr}` is a tensor with `requires_grad=True`, not an `nn.Parameter`: missing from "
    "`parameters()` and `state_dict()`, not moved by `.to()`; wrap it in `nn.Parameter`"
)
# Calls that register what they are given under another name.
_REGISTERING = torch_api.module_methods("registers") | {"setattr"}


class ModuleContainerNotRegistered(Rule):
    """
    ## What it does
    Flags, in the `__init__` of an `nn.Module` subclass, sub-modules built there and held in a
    Python `list`, `tuple` or `dict` attribute (a display, a comprehension, or `self.xs = []` filled
    with `self.xs.append(nn.Linear(...))`) that is never wrapped later, and tensors created with
    `requires_grad=True` assigned as attributes instead of `nn.Parameter`.

    ## Why is this bad?
    `nn.Module` registers only modules, parameters and buffers assigned directly as attributes, or
    held in `nn.ModuleList` / `nn.ModuleDict` / `nn.ParameterList`. Measured in torch 2.13 on a model
    with a head `nn.Linear(3, 1)`, two `nn.Linear(3, 3)` in a list and a `torch.ones(3,
    requires_grad=True)` attribute: `parameters()` yields 2 tensors (4 values) instead of 7 (31
    values), `state_dict()` has only `head.weight` and `head.bias` (a checkpoint silently drops
    the blocks), `model.double()` leaves the blocks and the tensor in float32 (and `.cuda()` leaves
    them on the CPU), and an SGD step over `model.parameters()` leaves them unchanged: they are
    never trained. `model.eval()` does not reach a `Dropout` or `BatchNorm` in the list either.

    ## Example
    ```python
    import torch
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = [nn.Linear(3, 3) for _ in range(2)]
            self.scale = torch.ones(3, requires_grad=True)
    ```

    ## Use instead
    ```python
    import torch
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
            self.scale = nn.Parameter(torch.ones(3))
    ```

    ## Fix safety
    Unsafe: the fix wraps the container in `nn.ModuleList(...)` (a list, a tuple, a comprehension
    whose items are all modules built there, or `[]` filled by `append`) or `nn.ModuleDict({...})`
    (string keys that can name a sub-module: not empty, without a dot), and a tensor in `nn.Parameter(...)` (without its `requires_grad=True`, the
    default of a parameter). The modules and the tensor are then registered: `state_dict()` gains
    keys (`blocks.0.weight`, `scale`), so checkpoints saved before do not load with `strict=True`,
    an optimizer built from `parameters()` now trains them, and `.to()` moves them. That is the
    intent, but it changes what the model saves and trains.

    ## Known limits
    Only modules built in the container are reported (`nn.X(...)`, a module class of this file, a
    torchvision or timm model), never modules passed in: `self._frozen = [teacher]` is a way to hide
    a module from `parameters()` and `state_dict()` on purpose. A container of parameter-free
    layers is not reported: `nn.ReLU()`, pooling, torchaudio's transforms without parameters, and
    module classes of this file that build only such layers and store only plain values (numbers,
    arguments with a number as default). torchaudio's `Resample`, `Spectrogram` or
    `MelSpectrogram` keep buffers computed from their arguments (a kernel, a window, a
    filterbank), so a checkpoint loses nothing, but `.to()` does not move those buffers: the first
    call on another device raises, unless the module moves itself (speechbrain's `Resample` does).
    Which torchaudio transforms hold no parameter was measured with torchaudio 2.11; a later
    release that gives one of them parameters is not known here. The rule is silent when the attribute is
    assigned again anywhere in the class (`self.layers = nn.ModuleList(self.layers)`), when it is
    passed to a module (`nn.Sequential(*self.layers)`), or when the class registers modules by hand
    (`add_module`, `register_module`, `setattr`). A tensor attribute is not reported when the file
    puts it in a list or passes it to an optimizer (`Adam([self.log_alpha])`: trained on its own on
    purpose), or registers parameters by hand.
    """

    code = "GL701"
    name = "module-container-not-registered"
    summary = "sub-modules in a Python list/dict attribute, or a `requires_grad` tensor attribute, are not registered"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("__init__",)

    VALID = (
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
                self.heads = nn.ModuleDict({"a": nn.Linear(3, 1)})
                self.body = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
        """,
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self, sizes):
                super().__init__()
                self.sizes = [3, 4, 5]
                self.names = ("a", "b")
                self.layers = []
                for n in sizes:
                    self.layers.append(nn.Linear(n, n))
                self.layers = nn.ModuleList(self.layers)
        """,
        """
        import torch.nn as nn
        class Student(nn.Module):
            def __init__(self, teacher):
                super().__init__()
                self._frozen = [teacher]
                self.fc = nn.Linear(3, 3)
                self.pair = (self.fc, teacher)
        """,
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = [nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1)]
                self.net = nn.Sequential(*self.layers)
                self.acts = [nn.ReLU(), nn.GELU()]
        """,
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = [nn.Linear(3, 3) for _ in range(2)]
                for i, layer in enumerate(self.layers):
                    self.add_module(f"layer{i}", layer)
        """,
        """
        import torch
        import torch.nn as nn
        class Agent(nn.Module):
            def __init__(self):
                super().__init__()
                self.log_alpha = torch.zeros(1, requires_grad=True)
                self.alpha_optimizer = torch.optim.Adam([self.log_alpha], lr=3e-4)
                self.mask = torch.ones(3)
        """,
        """
        import torch
        import torch.nn as nn
        class Pool:
            def __init__(self):
                self.layers = [nn.Linear(3, 3)]
                self.w = torch.zeros(3, requires_grad=True)
        """,
        """
        import torch.nn as nn
        from mylib import Block
        class Net(nn.Module):
            def __init__(self, blocks):
                super().__init__()
                self.blocks = [block for block in blocks]
                self.extra = [Block()]
        """,
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self, depth, names):
                super().__init__()
                layers = []
                for _ in range(depth):
                    layers.append(nn.Linear(3, 3))
                self.body = nn.Sequential(*layers)
                self.layers = layers
                names = [n for n in names]
                self.names = names
        """,
        """
        import torch
        import torchaudio
        class Resample(torch.nn.Module):
            def __init__(self, orig_freq=16000, new_freq=16000):
                super().__init__()
                self.orig_freq = orig_freq
                self.resampler = torchaudio.transforms.Resample(orig_freq=orig_freq, new_freq=new_freq)
            def forward(self, x):
                self.resampler.to(x.device)
                return self.resampler(x)
        class Activation(torch.nn.Module):
            def __init__(self, slope: float):
                super().__init__()
                self.act = torch.nn.LeakyReLU(slope)
                self.slope = round(slope * 100) / 100
        class SpeedPerturb(torch.nn.Module):
            def __init__(self, speeds=(90, 100, 110)):
                super().__init__()
                self.resamplers = []
                for speed in speeds:
                    self.resamplers.append(Resample(16000, 16000 * 100 // speed))
                self.acts = [Activation(0.1), Activation(0.2)]
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.blocks = [nn.Linear(3, 3) for _ in range(2)]
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.blocks = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
            """,
            line=5,
            column=23,
            message="`self.blocks` holds modules built here in a Python list",
            fix_title="Wrap in `nn.ModuleList`",
        ),
        Invalid(
            """
            import torch
            class Net(torch.nn.Module):
                def __init__(self, sizes):
                    super().__init__()
                    self.layers = []
                    for n in sizes:
                        self.layers.append(torch.nn.Linear(n, n))
                    self.heads = {"cls": torch.nn.Linear(3, 2), "box": torch.nn.Linear(3, 4)}
                    self.pair = torch.nn.Conv2d(3, 3, 1), torch.nn.BatchNorm2d(3)
            """,
            """
            import torch
            class Net(torch.nn.Module):
                def __init__(self, sizes):
                    super().__init__()
                    self.layers = torch.nn.ModuleList()
                    for n in sizes:
                        self.layers.append(torch.nn.Linear(n, n))
                    self.heads = torch.nn.ModuleDict({"cls": torch.nn.Linear(3, 2), "box": torch.nn.Linear(3, 4)})
                    self.pair = torch.nn.ModuleList((torch.nn.Conv2d(3, 3, 1), torch.nn.BatchNorm2d(3)))
            """,
        ),
        Invalid(
            """
            import torch
            from torch import nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.scale = torch.ones(3, requires_grad=True)
                    self.shift = torch.zeros(3).requires_grad_()
            """,
            """
            import torch
            from torch import nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.scale = nn.Parameter(torch.ones(3))
                    self.shift = nn.Parameter(torch.zeros(3))
            """,
            message="`self.scale` is a tensor with `requires_grad=True`, not an `nn.Parameter`",
            fix_title="Wrap in `nn.Parameter`",
        ),
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self, depth):
                    super().__init__()
                    layers = []
                    for _ in range(depth):
                        layers.append(nn.Conv2d(3, 3, 3))
                    self.layers = layers
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self, depth):
                    super().__init__()
                    layers = []
                    for _ in range(depth):
                        layers.append(nn.Conv2d(3, 3, 3))
                    self.layers = nn.ModuleList(layers)
            """,
        ),
        Invalid(
            """
            import torch.nn as nn
            class Block(nn.Module):
                pass
            class Net(nn.Module):
                def __init__(self, act):
                    super().__init__()
                    self.parts = [Block(), act]
                    self.by_index = {0: nn.Linear(2, 2)}
                    self.by_path = {"head.cls": nn.Linear(2, 2)}
            """,
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            class Wrapper(nn.Module):
                def __init__(self, inner, scale=None):
                    super().__init__()
                    self.inner = inner
                    self.scale = scale
            class Running(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("mean", torch.zeros(3))
            class Dropping(nn.Module):
                def forward(self, x):
                    return F.dropout(x, training=self.training)
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.wrapped = [Wrapper(nn.Linear(3, 3))]
                    self.running = [Running()]
                    self.dropping = [Dropping()]
            """,
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            class Wrapper(nn.Module):
                def __init__(self, inner, scale=None):
                    super().__init__()
                    self.inner = inner
                    self.scale = scale
            class Running(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("mean", torch.zeros(3))
            class Dropping(nn.Module):
                def forward(self, x):
                    return F.dropout(x, training=self.training)
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.wrapped = nn.ModuleList([Wrapper(nn.Linear(3, 3))])
                    self.running = nn.ModuleList([Running()])
                    self.dropping = nn.ModuleList([Dropping()])
            """,
        ),
    )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        cls = self.context.nn_module_classes.of(node)
        if cls is None or cls.init is None:
            return
        self._registers_by_hand: Optional[bool] = None  # asked only before a report: reading the class costs
        self._class = node
        for assignment in cls.self_assignments:
            if assignment.method is not cls.init or len(cls.assignments_to(assignment.attribute)) > 1:
                continue
            if self._check_container(cls, assignment):
                continue
            self._check_tensor(assignment)

    def _report(self, node: cst.CSTNode, message: str, fix: Optional[FixPlan]) -> None:
        """Report, unless the class registers modules or parameters by hand (`add_module`, `setattr`)."""
        if self._registers_by_hand is None:
            self._registers_by_hand = _registers_by_hand(self._class)
        if not self._registers_by_hand:
            self.report(node, message, fix)

    def _check_container(self, cls: NnModuleClass, assignment: SelfAssignment) -> bool:
        value, attr = assignment.value, assignment.attribute
        instance = self_name(cls.init)
        classes = self.context.nn_module_classes
        if isinstance(value, cst.Name):
            return self._check_local_list(cls, assignment)
        items = container_items(value)
        if items is None:
            return False
        empty = isinstance(value, cst.List) and not items
        if empty:
            items = appended_items(cls.init, f"{instance}.{attr}")
        if not any(classes.builds_stateful_module(item) for item in items) or _passed_to_module(cls, instance, attr, classes):
            return True
        wrapper = "ModuleDict" if isinstance(value, (cst.Dict, cst.DictComp)) else "ModuleList"
        kind = "dict" if wrapper == "ModuleDict" else "tuple" if isinstance(value, cst.Tuple) else "list"
        fix = self._container_fix(value, items, wrapper, empty)
        self._report(value, _CONTAINER.format(attr=attr, kind=kind, wrapper=wrapper), fix)
        return True

    def _check_local_list(self, cls: NnModuleClass, assignment: SelfAssignment) -> bool:
        """`layers = []`, `layers.append(nn.Linear(...))`, then `self.layers = layers`."""
        name, classes = assignment.value.value, self.context.nn_module_classes
        display = sole_list_binding(cls.init, name)
        if display is None:
            return False
        items = container_items(display) + appended_items(cls.init, name)
        if not any(classes.builds_stateful_module(item) for item in items) or _passed_to_module(
            cls, self_name(cls.init), assignment.attribute, classes
        ):
            return True
        if any(classes.constructs_module(call) and any(_is_name(arg.value, name) for arg in call.args) for call in calls_in(cls.init)):
            return True  # `nn.Sequential(*layers)` registers them
        spelled = classes.spelling("torch.nn.ModuleList")
        fix = None
        if spelled is not None and all(classes.constructs_module(item) for item in items):
            replacement = cst.Call(func=cst.parse_expression(spelled), args=[cst.Arg(assignment.value)])
            fix = self.unsafe_fix("Wrap in `nn.ModuleList`", Replace(assignment.value, replacement))
        self._report(assignment.value, _CONTAINER.format(attr=assignment.attribute, kind="list", wrapper="ModuleList"), fix)
        return True

    def _container_fix(self, value: cst.BaseExpression, items: list, wrapper: str, empty: bool) -> Optional[FixPlan]:
        spelled = self.context.nn_module_classes.spelling(f"torch.nn.{wrapper}")
        classes = self.context.nn_module_classes
        if spelled is None or not items or not all(classes.constructs_module(item) for item in items):
            return None
        if isinstance(value, cst.DictComp) or (isinstance(value, cst.Dict) and not _string_keys(value)):
            return None
        held = value
        if isinstance(value, cst.Tuple) and not value.lpar:
            held = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        args = [] if empty else [cst.Arg(held)]
        replacement = cst.Call(func=cst.parse_expression(spelled), args=args)
        return self.unsafe_fix(f"Wrap in `nn.{wrapper}`", Replace(value, replacement))

    def _check_tensor(self, assignment: SelfAssignment) -> None:
        data = self._requires_grad_tensor(assignment.value)
        if data is None or self._collected_elsewhere(assignment.attribute):
            return
        spelled = self.context.nn_module_classes.spelling("torch.nn.Parameter")
        fix = None
        if spelled is not None:
            replacement = cst.Call(func=cst.parse_expression(spelled), args=[cst.Arg(data)])
            fix = self.unsafe_fix("Wrap in `nn.Parameter`", Replace(assignment.value, replacement))
        self._report(assignment.value, _TENSOR.format(attr=assignment.attribute), fix)

    def _collected_elsewhere(self, attr: str) -> bool:
        """The attribute is put in a list, tuple or dict, or passed to `torch.optim`: it is trained
        or saved on its own (`torch.optim.Adam([self.log_alpha])`)."""
        for node in descendants(self.context.module):
            if isinstance(node, (cst.Element, cst.DictElement)) and _is_self_attribute(node.value, attr):
                return True
            if isinstance(node, cst.Call) and (self.context.qualified_name(node.func) or "").startswith("torch.optim."):
                if any(_is_self_attribute(arg.value, attr) for arg in node.args):
                    return True
        return False

    def _requires_grad_tensor(self, value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The tensor `value` makes without its request for grad, when `value` is a torch factory
        call with `requires_grad=True` or a factory call followed by `.requires_grad_()`."""
        if not isinstance(value, cst.Call):
            return None
        if isinstance(value.func, cst.Attribute) and value.func.attr.value == "requires_grad_":
            receiver = value.func.value
            if _is_true_or_absent(value) and self._is_torch_factory(receiver):
                return receiver
            return None
        flag = keyword_arg(value, "requires_grad")
        if flag is None or not (isinstance(flag.value, cst.Name) and flag.value.value == "True") or not self._is_torch_factory(value):
            return None
        return call_without_argument(value, flag)

    def _is_torch_factory(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Call):
            return False
        parts = (self.context.qualified_name(node.func) or "").split(".")
        return len(parts) == 2 and parts[0] == "torch" and parts[1][:1].islower()


def _is_true_or_absent(call: cst.Call) -> bool:
    if not call.args:
        return True
    return len(call.args) == 1 and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "True"


def _registers_by_hand(node: cst.ClassDef) -> bool:
    for call in calls_in(node):
        name = (
            call.func.attr.value if isinstance(call.func, cst.Attribute) else call.func.value if isinstance(call.func, cst.Name) else None
        )
        if name in _REGISTERING:
            return True
    return False


def _passed_to_module(cls: NnModuleClass, instance: Optional[str], attr: str, classes) -> bool:
    """`self.<attr>` is an argument of a module construction in the class (`nn.Sequential(*self.layers)`)."""
    for call in calls_in(cls.node):
        if classes.constructs_module(call) and any(_is_self_attribute(arg.value, attr) for arg in call.args):
            return True
    return False


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _is_self_attribute(node: cst.BaseExpression, attr: str) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == attr and isinstance(node.value, cst.Name)


def _string_keys(value: cst.Dict) -> bool:
    """Every key is a plain string literal that can name a sub-module (not empty, no dot)."""
    for element in value.elements:
        if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString) or element.key.value[:1] not in "'\"":
            return False
        name = element.key.evaluated_value
        if not isinstance(name, str) or not name or "." in name:
            return False
    return True
