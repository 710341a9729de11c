"""Which expressions are learning-rate schedulers of `torch.optim.lr_scheduler`, and of which class.

Evidence is the construction only: `scheduler = StepLR(optimizer, 30)` in the same function, at
module level, or `self.scheduler = ...` in a method of the same class. A name alone is not enough:
other libraries' schedulers (timm, fairseq, transformers' helpers) have `step(epoch)` by design.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable
from gradlint.analysis.syntax import dotted_name

LR_SCHEDULER_MODULE = "torch.optim.lr_scheduler."
# Schedulers defined elsewhere in torch on the same base class.
OTHER_LR_SCHEDULERS = frozenset({"torch.optim.swa_utils.SWALR"})
# `step(metrics)` takes the monitored value, not an epoch.
PLATEAU = "torch.optim.lr_scheduler.ReduceLROnPlateau"


class SchedulerEvidence:
    def __init__(self, module: cst.Module, imports: ImportMap, scopes: ScopeTable) -> None:
        self.module = module
        self.imports = imports
        self.scopes = scopes

    def scheduler_classes(self, node: cst.BaseExpression, scope: Scope) -> frozenset[str]:
        """The qualified torch scheduler classes the values of `node` are constructed from; empty
        when a value is anything else or there is none."""
        classes = {self._constructed_class(value) for value in self._values(node, scope)}
        if None in classes:
            return frozenset()
        return frozenset(classes)

    def stepped_optimizers(self, node: cst.BaseExpression, scope: Scope) -> Optional[frozenset[str]]:
        """The dotted names of the optimizers `node`'s torch schedulers are built over
        (`StepLR(optimizer, 30)` -> `optimizer`); None when one is not a plain name or not known."""
        names = set()
        for value in self._values(node, scope):
            if not isinstance(value, cst.Call) or self._constructed_class(value) is None:
                return None
            name = _optimizer_argument(value)
            if name is None:
                return None
            names.add(name)
        return frozenset(names) if names else None

    def starts_mid_schedule(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """Some construction of `node` passes `last_epoch=` (a resumed schedule)."""
        return any(
            isinstance(value, cst.Call) and any(arg.keyword is not None and arg.keyword.value == "last_epoch" for arg in value.args)
            for value in self._values(node, scope)
        )

    def _values(self, node: cst.BaseExpression, scope: Scope) -> list[cst.BaseExpression]:
        if isinstance(node, cst.Name):
            values = self.scopes.values_of(node.value, scope)
            bindings = self.scopes.of(scope)
            if values or scope is self.module or node.value in bindings.opaque:
                return values
            return self.scopes.values_of(node.value, self.module)  # a module-level scheduler read in a function
        if isinstance(node, cst.Attribute):
            return [value for value, _ in self.scopes.instance_attribute_values(node, scope)]
        return []

    def _constructed_class(self, value: cst.BaseExpression) -> Optional[str]:
        if not isinstance(value, cst.Call):
            return None
        qualified = self.imports.qualified_name(value.func)
        if qualified is None:
            return None
        if qualified.startswith(LR_SCHEDULER_MODULE) and qualified.rsplit(".", 1)[-1][:1].isupper() or qualified in OTHER_LR_SCHEDULERS:
            return qualified
        return None


def _optimizer_argument(construction: cst.Call) -> Optional[str]:
    for position, arg in enumerate(construction.args):
        if (arg.keyword is None and position == 0 and not arg.star) or (arg.keyword is not None and arg.keyword.value == "optimizer"):
            return dotted_name(arg.value)
    return None
