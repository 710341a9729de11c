"""Which expressions are optimizers (and which are look-alikes: schedulers, RL environments...)."""

from __future__ import annotations

from collections import defaultdict
from typing import Optional

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.roles import is_optimizer_name, is_scaler_name
from gradlint.analysis.syntax import dotted_name, iter_statements
from gradlint.analysis.tree import descendants

OPTIMIZER_MODULES = (
    "torch.optim.",
    "apex.optimizers.",
    "bitsandbytes.optim.",
    "torch_optimizer.",
    "timm.optim.",
    "transformers.optimization.",
)
OPTIMIZER_CLASSES = frozenset({"transformers.AdamW", "transformers.Adafactor", "torch.optim.Optimizer"})
# MXNet's `gluon.Trainer.step()` overwrites gradients (grad_req="write"), so its loops need no reset.
NOT_OPTIMIZER_MODULES = (
    "torch.optim.lr_scheduler.",
    "torch.optim.swa_utils.SWALR",
    "optax.",
    "jax.",
    "numpy.",
    "scipy.",
    "gym.",
    "gymnasium.",
    "mxnet.",
)


class OptimizerOracle:
    """Decides optimizer-ness from file-wide bindings (`self.opt = optim.SGD(...)` in __init__)."""

    def __init__(self, module: cst.Module, imports: ImportMap) -> None:
        self.imports = imports
        self.assigned: dict[str, list[cst.BaseExpression]] = defaultdict(list)
        self.annotated: dict[str, list[cst.BaseExpression]] = defaultdict(list)
        self._optimizer_keys: dict[str, bool] = {}
        self._stepped: dict[str, frozenset[str]] = {}
        self._scalers: dict[str, bool] = {}
        for statement in iter_statements(module.body):
            self._record(statement)

    def _record(self, statement: cst.CSTNode) -> None:
        kind = type(statement)  # exact types: see analysis/syntax.py
        if kind is cst.Assign:
            for target in statement.targets:
                key = _key(target.target)
                if key is not None:
                    self.assigned[key].append(statement.value)
        elif kind is cst.AnnAssign:
            key = _key(statement.target)
            if key is not None:
                self.annotated[key].append(statement.annotation.annotation)
                if statement.value is not None:
                    self.assigned[key].append(statement.value)
        elif kind is cst.FunctionDef:
            for param in (*statement.params.params, *statement.params.kwonly_params, *statement.params.posonly_params):
                if param.annotation is not None:
                    self.annotated[param.name.value].append(param.annotation.annotation)

    def is_optimizer(self, node: cst.BaseExpression) -> bool:
        key = _key(node)
        if key is None:
            return False
        # The verdict depends on the name alone: judged once, or a file with one `optimizer = ...`
        # per function would judge all of them at every use, quadratic in the functions.
        verdict = self._optimizer_keys.get(key)
        if verdict is None:
            verdict = self._optimizer_keys[key] = self._judge_optimizer(key)
        return verdict

    def _judge_optimizer(self, key: str) -> bool:
        values = self.assigned.get(key, []) + self.assigned.get(_last(key), [])
        verdicts = [self._value_verdict(value) for value in values]
        if any(v is False for v in verdicts):
            return False
        if any(v is True for v in verdicts):
            return True
        if any(self._class_verdict(a) for a in self.annotated.get(key, []) + self.annotated.get(_last(key), [])):
            return True
        name = _last(key)
        return is_optimizer_name(name)

    def stepped_modules(self, key: str) -> frozenset[str]:
        """The modules (dotted text: `D`, `self.netD`) whose `.parameters()` every construction of
        the optimizer `key` (dotted text) in the file is given; empty when one of them is not such a call."""
        if key not in self._stepped:
            self._stepped[key] = self._judge_stepped_modules(key)
        return self._stepped[key]

    def _judge_stepped_modules(self, key: str) -> frozenset[str]:
        values = self.assigned.get(key, [])
        found: Optional[frozenset[str]] = None
        for value in values:
            if not (isinstance(value, cst.Call) and self._class_verdict(value.func) and value.args):
                return frozenset()
            modules = frozenset(parameter_owners(value.args[0].value))
            found = modules if found is None else found & modules
        return found or frozenset()

    def is_grad_scaler(self, node: cst.BaseExpression) -> bool:
        key = _key(node)
        if key is None:
            return False
        if key not in self._scalers:
            self._scalers[key] = self._judge_grad_scaler(key)
        return self._scalers[key]

    def _judge_grad_scaler(self, key: str) -> bool:
        for value in self.assigned.get(key, []):
            if isinstance(value, cst.Call):
                qualified = self.imports.qualified_name(value.func) or ""
                if qualified.endswith("GradScaler"):
                    return True
        return is_scaler_name(_last(key))

    def is_optimizer_class(self, func: cst.BaseExpression) -> bool:
        """`func` names an optimizer class (`torch.optim.SGD`, `AdamW` from transformers, bitsandbytes...)."""
        return self._class_verdict(func) is True

    def _value_verdict(self, value: cst.BaseExpression) -> Optional[bool]:
        """True: built by an optimizer class; False: evidently something else; None: unknown."""
        if isinstance(value, cst.Call):
            return self._class_verdict(value.func)
        if isinstance(value, (cst.List, cst.Tuple, cst.Dict, cst.SimpleString, cst.Integer, cst.Float)):
            return False
        return None

    def _class_verdict(self, func: cst.BaseExpression) -> Optional[bool]:
        return optimizer_class_verdict(self.imports.qualified_name(func))


def optimizer_class_verdict(qualified: Optional[str]) -> Optional[bool]:
    """True: the qualified name of an optimizer class; False: evidently something else (a
    scheduler, another framework); None: unknown."""
    if qualified is None:
        return None
    if qualified.startswith(NOT_OPTIMIZER_MODULES) or "lr_scheduler" in qualified:
        return False
    if qualified.startswith(OPTIMIZER_MODULES) or qualified in OPTIMIZER_CLASSES:
        return True
    return None


def _key(node: cst.CSTNode) -> Optional[str]:
    return dotted_name(node)


def _last(key: str) -> str:
    return key.rsplit(".", 1)[-1]


def parameter_owners(params: cst.BaseExpression) -> set[str]:
    """`D` and `self.E` for `chain(D.parameters(), self.E.parameters())` or `[{"params": D.parameters()}]`."""
    owners = set()
    for node in descendants(params):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("parameters", "named_parameters")
        ):
            owner = dotted_name(node.func.value)
            if owner is not None:
                owners.add(owner)
    return owners
