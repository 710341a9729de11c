from __future__ import annotations

from functools import cached_property

import libcst as cst

from gradlint.analysis.syntax import edit_distance, parameter_names
from gradlint.analysis.tensors import NON_TENSOR_ROOTS, root_name
from gradlint.analysis.tree import descendants
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl405_requires_grad_typo.attribute_reads import AttributeReads

REQUIRES_GRAD = "requires_grad"


def _near_miss(name: str) -> bool:
    # `_requires_grad` is a deliberate private field, not a typo.
    return name != REQUIRES_GRAD and not name.startswith("_") and edit_distance(name, REQUIRES_GRAD) <= 2


class RequiresGradTypo(Rule):
    """
    ## What it does
    Flags assignments and keywords that look like `requires_grad` but do nothing, or raise:
    - an attribute near-miss: `p.require_grad = False`, `x.requires_grads = True` (edit distance
      at most 2 from `requires_grad`);
    - a keyword near-miss in a torch call: `torch.randn(3, require_grad=True)`;
    - `model.requires_grad = False` on an `nn.Module`, also one reached through a container:
      `model.layers[0]`, `for m in model.features[:10]` (a `ModuleList`, `Sequential` or
      `ModuleDict` built in the file, or a torchvision model's attribute).

    ## Why is this bad?
    In torch 2.13 `x.require_grad = True` silently sets a plain Python attribute and leaves
    `x.requires_grad` False: the gradient is never computed (or backward raises "element 0 of
    tensors does not require grad"). `model.requires_grad = False` on a Module is also a silent
    no-op: every parameter still has `requires_grad=True`, still receives gradients and still
    changes; only `model.requires_grad_(False)` freezes it. A keyword typo raises `TypeError`
    (`randn() received an invalid combination of arguments`).

    ## Example
    ```python
    for p in model.encoder.parameters():
        p.require_grad = False
    model.requires_grad = False
    w = torch.randn(3, require_grad=True)
    ```

    ## Use instead
    ```python
    for p in model.encoder.parameters():
        p.requires_grad_(False)
    model.requires_grad_(False)
    w = torch.randn(3, requires_grad=True)
    ```

    ## Fix safety
    The keyword fix (`require_grad=` -> `requires_grad=`) is safe: the original raises. The
    attribute and module fixes (`x.requires_grad_(value)`) are unsafe: they change behaviour,
    which is the point (parameters get frozen, inputs get gradients). No fix when the assignment
    shares its line with another statement, or when the call also passes `requires_grad=`.

    ## Known limits
    An attribute near-miss that the file also reads (a config object's own `require_grad` field)
    is not reported; neither are objects rooted in `self`, `args` or `config` unless `self` is an
    `nn.Module`, nor private names (`self._requires_grad`). A module class that reads its
    `self.requires_grad` back (`requires_grad=self.requires_grad`) keeps its own flag and is not
    reported, nor is a constructor argument stored on the module in `__init__`
    (`self.requires_grad = requires_grad`, kept as configuration and acted on elsewhere: by
    `requires_grad_(requires_grad)`, a loop over `self.parameters()`, or code of another file that
    reads it). That also leaves unreported a class whose only use of such an argument is this
    assignment, meant as the freeze. Keywords of private torch APIs are not checked
    (`torch.Tensor._make_subclass` really takes `require_grad=`). `model.requires_grad = ...` is reported only when `model` is evidently a module:
    an instance of an `nn.Module` subclass, `self` inside one, or a name such as `model`, `net`,
    `encoder` or `backbone`.

    On current code (bench/PRECISION.md) one finding set `requiresGrad = True` on a fresh
    `nn.Parameter`, which already requires grad: true, and harmless today; it stays reported,
    since the same typo with `False` silently trains what was meant to be frozen.
    """

    code = "GL405"
    name = "requires-grad-typo"
    summary = "misspelt or ineffective `requires_grad`"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    # Any string within two edits of "requires_grad" keeps one of these three pieces intact.
    triggers = ("requ", "ires_", "grad")

    VALID = (
        "x.requires_grad = True\n",
        "x.requires_grad_(True)\n",
        "model.requires_grad_(False)\n",
        """
        cfg.require_grad = True
        if cfg.require_grad:
            pass
        """,
        "args.require_grad = True\n",
        """
        import torch
        w = torch.randn(3, requires_grad=True)
        """,
        """
        class Config:
            def __init__(self):
                self.require_grad = False
        """,
        "x.retain_grad = True\n",
        """
        import torch
        class Buffer(torch.Tensor):
            def __new__(cls, data, flag=False):
                return torch.Tensor._make_subclass(cls, data, require_grad=flag)
        """,
        """
        import torch.nn as nn
        class Adapter(nn.Module):
            def __init__(self, trainable):
                super().__init__()
                self._requires_grad = trainable
        """,
        """
        import torch
        import torch.nn as nn
        embedding = nn.Parameter(torch.randn(10, 4))
        embedding.requires_grad = False
        """,
        """
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.embedding = nn.Parameter(torch.randn(10, 4))
                self.embedding.requires_grad = False
        """,
        """
        import torch
        import torch.nn as nn
        class Volume(nn.Module):
            def __init__(self, requires_grad=True):
                super().__init__()
                self.requires_grad = requires_grad
                self.origin = nn.Parameter(torch.zeros(3), requires_grad=self.requires_grad)
        """,
        # A constructor argument kept as the module's configuration; the parameters are frozen beside it.
        """
        import torch.nn as nn
        class Encoder(nn.Module):
            def __init__(self, dim, requires_grad=False):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
                self.requires_grad = requires_grad
                for p in self.parameters():
                    p.requires_grad = requires_grad
        """,
        """
        import torch.nn as nn
        class Encoder(nn.Module):
            def __init__(self, dim, cfg):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
                self.requires_grad = cfg.train_encoder
                self.requires_grad_(self.requires_grad)
        """,
        # Items of a ParameterList, or of a plain list, are tensors: the flag is theirs.
        """
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.scales = nn.ParameterList([nn.Parameter(torch.ones(3)) for _ in range(4)])
                self.scales[0].requires_grad = False
        """,
        """
        import torch
        weights = [torch.ones(3), torch.ones(3)]
        for w in weights[:1]:
            w.requires_grad = False
        """,
    )
    INVALID = (
        Invalid("p.require_grad = False\n", "p.requires_grad_(False)\n"),
        Invalid("x.requires_grads = True\n", "x.requires_grad_(True)\n"),
        Invalid("model.requires_grad = False\n", "model.requires_grad_(False)\n"),
        Invalid(
            """
            model.requires_grad = False
            assert not model.requires_grad
            """,
            """
            model.requires_grad_(False)
            assert not model.requires_grad
            """,
        ),
        Invalid(
            """
            import torch
            w = torch.randn(3, require_grad=True)
            """,
            """
            import torch
            w = torch.randn(3, requires_grad=True)
            """,
        ),
        Invalid(
            """
            import torch.nn as nn
            p = nn.Parameter(t, require_grad=False)
            """,
            """
            import torch.nn as nn
            p = nn.Parameter(t, requires_grad=False)
            """,
        ),
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def freeze(self):
                    self.requires_grad = False
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def freeze(self):
                    self.requires_grad_(False)
            """,
        ),
        # A literal set in `__init__` and never read back: meant as the freeze, it freezes nothing.
        Invalid(
            """
            import torch.nn as nn
            class FrozenEncoder(nn.Module):
                def __init__(self, dim):
                    super().__init__()
                    self.proj = nn.Linear(dim, dim)
                    self.requires_grad = False
            """,
            """
            import torch.nn as nn
            class FrozenEncoder(nn.Module):
                def __init__(self, dim):
                    super().__init__()
                    self.proj = nn.Linear(dim, dim)
                    self.requires_grad_(False)
            """,
        ),
        # A sub-module given the flag of a constructor argument is not the module's own setting.
        Invalid(
            """
            import torchvision
            import torch.nn as nn
            class Classifier(nn.Module):
                def __init__(self, freeze_backbone):
                    super().__init__()
                    self.backbone = torchvision.models.resnet18()
                    self.backbone.requires_grad = not freeze_backbone
            """,
            """
            import torchvision
            import torch.nn as nn
            class Classifier(nn.Module):
                def __init__(self, freeze_backbone):
                    super().__init__()
                    self.backbone = torchvision.models.resnet18()
                    self.backbone.requires_grad_(not freeze_backbone)
            """,
        ),
        # A module reached through a ModuleList, a Sequential or a torchvision model's `features`.
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(6)])
            model = Net()
            model.layers[0].requires_grad = False
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(6)])
            model = Net()
            model.layers[0].requires_grad_(False)
            """,
        ),
        Invalid(
            """
            import torchvision
            model = torchvision.models.vgg16()
            for m in model.features[:10]:
                m.requires_grad = False
            """,
            """
            import torchvision
            model = torchvision.models.vgg16()
            for m in model.features[:10]:
                m.requires_grad_(False)
            """,
        ),
        Invalid(
            """
            import torch.nn as nn
            model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
            model[0].requires_grad = False
            """,
            """
            import torch.nn as nn
            model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
            model[0].requires_grad_(False)
            """,
        ),
        # A statement sharing its line with another is not rewritten.
        Invalid(
            "model.requires_grad = False; model.eval()\n",
            fixed=None,
            line=1,
            column=1,
            message="Setting `requires_grad` on an `nn.Module` does not freeze its parameters",
        ),
        # Renaming the keyword would repeat `requires_grad=`.
        Invalid(
            """
            import torch
            w = torch.randn(3, requires_grad=True, require_grad=False)
            """,
            fixed=None,
            line=2,
            column=40,
            message="`require_grad=` is a typo of `requires_grad=`",
        ),
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Attribute):
            return
        target = node.targets[0].target
        attribute, owner = target.attr.value, target.value
        if _near_miss(attribute):
            if attribute in self.attribute_reads.names or self._is_config_object(owner):
                return
            message = f"`.{attribute}` is not `requires_grad`: this sets a plain attribute and changes nothing; use `.requires_grad_(...)`"
        elif attribute == REQUIRES_GRAD and self._is_module(owner):
            if self._reads_own_flag(owner) or self._stores_constructor_argument(node, owner):
                return  # `self.requires_grad = flag` read back by the class, or a constructor's setting
            message = "Setting `requires_grad` on an `nn.Module` does not freeze its parameters; use `.requires_grad_(...)`"
        else:
            return
        self.report(node, message, self._method_fix(node, owner))

    def _is_module(self, owner: cst.BaseExpression) -> bool:
        modules, stack = self.context.nn_modules, self.context.stack
        return modules.is_module(owner, stack) or modules.is_module_item(owner, stack)

    def _reads_own_flag(self, owner: cst.BaseExpression) -> bool:
        """A module class keeping its own `self.requires_grad` setting. Elsewhere, reading the
        attribute back (`assert not model.requires_grad`) only confirms the mistake."""
        name = self.context.code_for(owner).strip()
        return root_name(owner) == "self" and f"{name}.{REQUIRES_GRAD}" in self.read_requires_grad

    def _stores_constructor_argument(self, node: cst.Assign, owner: cst.BaseExpression) -> bool:
        """`self.requires_grad = requires_grad` in `__init__`: the module keeps a constructor
        argument as its configuration (acted on by `requires_grad_(requires_grad)` there, by another
        method, or by code of another file reading `encoder.requires_grad`)."""
        function = self.context.enclosing_function()
        if not (isinstance(owner, cst.Name) and owner.value == "self") or function is None or function.name.value != "__init__":
            return False
        arguments = set(parameter_names(function.params)) - {"self"}
        return any(isinstance(name, cst.Name) and name.value in arguments for name in descendants(node.value))

    @cached_property
    def attribute_reads(self) -> AttributeReads:
        return AttributeReads(self.context.module, self.context.nodes)

    @cached_property
    def read_requires_grad(self) -> set[str]:
        """`x.requires_grad` expressions read somewhere in the file (not assigned)."""
        return self.attribute_reads.texts(REQUIRES_GRAD)

    def _is_config_object(self, owner: cst.BaseExpression) -> bool:
        root = root_name(owner)
        if root == "self":
            return not self.context.nn_modules.is_module(cst.Name("self"), self.context.stack)
        return root in NON_TENSOR_ROOTS

    def _method_fix(self, node: cst.Assign, owner: cst.BaseExpression):
        line = self.context.parent()
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return None
        text = f"{self.context.code_for(owner)}.requires_grad_({self.context.code_for(node.value)})"
        return self.unsafe_fix(f"Replace with `{text}`", Replace(node, text))

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        if qualified is None or not qualified.startswith("torch."):
            return
        if any(part.startswith("_") for part in qualified.split(".")):
            return  # private API with its own spelling: `torch.Tensor._make_subclass(cls, data, require_grad=...)`
        keywords = [arg.keyword.value for arg in node.args if arg.keyword is not None]
        for arg in node.args:
            if arg.keyword is not None and _near_miss(arg.keyword.value):
                fix = None
                if REQUIRES_GRAD not in keywords:
                    fix = self.safe_fix("Rename the keyword to `requires_grad`", Replace(arg.keyword, cst.Name(REQUIRES_GRAD)))
                self.report(arg, f"`{arg.keyword.value}=` is a typo of `requires_grad=`; the call raises TypeError", fix)
