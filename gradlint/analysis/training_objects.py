"""What an object of training code is, by the evidence of its file: a model, an optimizer, a
learning-rate scheduler or a gradient scaler. Construction (`nn.Linear(...)`, `optim.SGD(...)`,
`StepLR(...)`, `GradScaler()`) decides first; a name playing the role (`model`, `optimizer`,
`scheduler`, `scaler`) decides when nothing else is known."""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from gradlint.analysis.nn_modules import NnModuleEvidence
from gradlint.analysis.optimizers import OptimizerOracle
from gradlint.analysis.roles import MODULE_INSTANCE, Role, is_scheduler_name
from gradlint.analysis.schedulers import SchedulerEvidence
from gradlint.analysis.scopes import enclosing_scope
from gradlint.analysis.syntax import dotted_name


class TrainingObjects:
    def __init__(self, modules: NnModuleEvidence, optimizers: OptimizerOracle, schedulers: SchedulerEvidence) -> None:
        self.modules = modules
        self.optimizers = optimizers
        self.schedulers = schedulers

    def role_of(self, node: cst.BaseExpression, stack: Sequence[cst.CSTNode]) -> Optional[Role]:
        """SCALER, SCHEDULER, OPTIMIZER or MODEL for a name or attribute chain (`self.opt`), None
        when the file says nothing (or something else) about it."""
        name = dotted_name(node)
        if name is None:
            return None
        if self.optimizers.is_grad_scaler(node):
            return Role.SCALER
        if self.schedulers.scheduler_classes(node, enclosing_scope(stack)) or is_scheduler_name(name.rsplit(".", 1)[-1]):
            return Role.SCHEDULER
        if self.optimizers.is_optimizer(node):
            return Role.OPTIMIZER
        if self.modules.is_module(node, stack) or MODULE_INSTANCE.match(name.rsplit(".", 1)[-1]):
            return Role.MODEL  # by name also when built elsewhere: `model = build_model(cfg)`
        return None

    def binds_attribute(self, attribute: str) -> bool:
        """The file assigns an attribute of that name somewhere (`self.parameters = [...]`): on its
        objects it may be data rather than a method."""
        return any(key.rsplit(".", 1)[-1] == attribute for key in self.modules.attribute_values)
