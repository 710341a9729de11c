"""Mixed-precision steps of a training iteration: what each loop body does with a `GradScaler`, in
source order (`scaler.scale(loss).backward()`, `scaler.unscale_(opt)`, gradient clipping,
`scaler.step(opt)` or a plain `opt.step()`, `scaler.update()`).

Built on the loops of the training analysis. Calls to functions of the same file are followed;
a call that hands the scaler to code the file does not show is recorded as OPAQUE (it may do any
of these steps).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, Iterator, Optional

import libcst as cst

from gradlint.analysis.grad_tracking import mentioned_names
from gradlint.analysis.syntax import DEFINITIONS, dotted_name, is_bool_literal, suite_statements
from gradlint.analysis.tree import descendants, iter_children

if TYPE_CHECKING:
    from gradlint.analysis.training import TrainingAnalysis

CLIP_FUNCTIONS = frozenset(
    {
        "torch.nn.utils.clip_grad_norm_",
        "torch.nn.utils.clip_grad_value_",
        "torch.nn.utils.clip_grad_norm",
        "torch.nn.utils.clip_grad.clip_grad_norm_",
        "torch.nn.utils.clip_grad.clip_grad_value_",
    }
)


class AmpKind(Enum):
    SCALED_BACKWARD = "scaled-backward"  # `scaler.scale(loss).backward()`
    UNSCALE = "unscale"  # `scaler.unscale_(opt)`
    CLIP = "clip"  # `torch.nn.utils.clip_grad_norm_(...)` / `clip_grad_value_(...)`
    SCALER_STEP = "scaler-step"  # `scaler.step(opt)`
    OPTIMIZER_STEP = "optimizer-step"  # `opt.step()` of an optimizer, no scaler
    UPDATE = "update"  # `scaler.update()`
    OPAQUE = "opaque"  # the scaler handed to code the file does not show


@dataclass(frozen=True)
class AmpCall:
    kind: AmpKind
    call: cst.Call  # the call in the loop body (a helper's call site when `via` is set)
    scaler: Optional[str] = None  # dotted text of the scaler
    optimizer: Optional[str] = None  # dotted text of the optimizer stepped or unscaled
    nested_loop: bool = False  # in a loop nested in the iteration
    via: Optional[cst.Call] = None  # the helper call it came through
    line: Optional[cst.SimpleStatementLine] = None  # the line of the loop body holding it (not through a helper)

    @property
    def direct(self) -> bool:
        return self.via is None and not self.nested_loop


@dataclass(frozen=True)
class AmpIteration:
    loop: cst.CSTNode  # For / While
    calls: tuple[AmpCall, ...]

    def of(self, kind: AmpKind) -> list[AmpCall]:
        return [call for call in self.calls if call.kind is kind]

    def names_update(self, scaler: str) -> bool:
        """The loop names `scaler.update` without calling it (a statement of its own): the update is
        meant, and the missing call is that statement's mistake (GL606), not a forgotten update."""
        return any(
            isinstance(node, cst.Expr) and isinstance(node.value, cst.Attribute) and dotted_name(node.value) == f"{scaler}.update"
            for node in descendants(self.loop)
        )


class AmpAnalysis:
    def __init__(self, training: "TrainingAnalysis", functions) -> None:
        self.training = training
        self.imports = training.imports
        self.optimizers = training.optimizers
        self._functions = functions
        self._following: set[int] = set()

    @cached_property
    def iterations(self) -> list[AmpIteration]:
        """One per loop of the file that scales a backward, in the order of `training.loops`."""
        found = []
        for region in self.training.loops:
            scope = self.training.scope_of(region)
            calls = tuple(self._calls(suite_statements(region.owner.body), scope, nested=False, via=None))
            if any(call.kind is AmpKind.SCALED_BACKWARD for call in calls):
                found.append(AmpIteration(region.owner, calls))
        return found

    @cached_property
    def disabled_scalers(self) -> frozenset[str]:
        """Scalers built with `enabled=False`: every method is a pass-through."""
        names = set()
        for key, values in self.optimizers.assigned.items():
            for value in values:
                if isinstance(value, cst.Call) and _is_grad_scaler_class(self.imports.qualified_name(value.func)):
                    if any(
                        arg.keyword is not None and arg.keyword.value == "enabled" and is_bool_literal(arg.value, False)
                        for arg in value.args
                    ):
                        names.add(key)
        return frozenset(names)

    def is_torch_scaler(self, dotted: Optional[str]) -> bool:
        """`dotted` is built by a torch `GradScaler` in the file, or is never built there and named like one."""
        if dotted is None:
            return False
        values = self.optimizers.assigned.get(dotted, [])
        if not values:
            return self.optimizers.is_grad_scaler(cst.parse_expression(dotted))
        return all(isinstance(v, cst.Call) and _is_grad_scaler_class(self.imports.qualified_name(v.func)) for v in values)

    # -- calls of a body, in source order ----------------------------------------------------

    def _calls(self, body, scope, nested: bool, via: Optional[cst.Call]) -> Iterator[AmpCall]:
        for call, in_loop, line in _calls_in_order(body):
            yield from self._classify(call, scope, nested or in_loop, via, line)

    def _classify(self, call: cst.Call, scope, nested: bool, via: Optional[cst.Call], line=None) -> Iterator[AmpCall]:
        where = dict(nested_loop=nested, via=via, line=None if via else line)
        make = lambda kind, **kw: AmpCall(kind, via or call, **where, **kw)  # noqa: E731
        func = call.func
        if self.imports.qualified_name(func) in CLIP_FUNCTIONS:
            yield make(AmpKind.CLIP)
            return
        if isinstance(func, cst.Attribute):
            receiver, method = func.value, func.attr.value
            scaler = dotted_name(receiver)
            if method == "backward" and _is_scale_call(receiver):
                yield make(AmpKind.SCALED_BACKWARD, scaler=dotted_name(receiver.func.value))
                return
            if self.optimizers.is_grad_scaler(receiver) and method in ("unscale_", "step", "update"):
                optimizer = dotted_name(call.args[0].value) if call.args else None
                kind = {"unscale_": AmpKind.UNSCALE, "step": AmpKind.SCALER_STEP, "update": AmpKind.UPDATE}[method]
                yield make(kind, scaler=scaler, optimizer=optimizer)
                return
            if method == "step" and self.optimizers.is_optimizer(receiver):
                yield make(AmpKind.OPTIMIZER_STEP, optimizer=scaler)
                return
        helper = self._functions.resolve(call, scope)
        if helper is not None and id(helper) not in self._following:
            self._following.add(id(helper))
            try:
                yield from self._calls(suite_statements(helper.body), helper, nested, via or call)
            finally:
                self._following.discard(id(helper))
            return
        if helper is None and any(self.optimizers.is_grad_scaler(_name_node(name)) for name in _argument_names(call)):
            yield make(AmpKind.OPAQUE)


def _is_scale_call(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "scale"


def _is_grad_scaler_class(qualified: Optional[str]) -> bool:
    return qualified is not None and qualified.startswith("torch.") and qualified.endswith("GradScaler")


def _argument_names(call: cst.Call) -> set[str]:
    names: set[str] = set()
    for arg in call.args:
        names |= mentioned_names(arg.value)
    return names


def _name_node(name: str) -> cst.Name:
    return cst.Name(name)


def _calls_in_order(body) -> Iterator[tuple[cst.Call, bool, Optional[cst.SimpleStatementLine]]]:
    """Every call run by `body`'s statements in source order (a call's receiver and arguments
    before the call), with whether it is inside a loop nested in `body`, and its line."""

    def visit(node: cst.CSTNode, in_loop: bool, line) -> Iterator[tuple[cst.Call, bool, Optional[cst.SimpleStatementLine]]]:
        if isinstance(node, DEFINITIONS):
            return
        inner = in_loop or isinstance(node, (cst.For, cst.While))
        line = node if isinstance(node, cst.SimpleStatementLine) else line
        for child in iter_children(node):
            yield from visit(child, inner, line)
        if isinstance(node, cst.Call):
            yield node, in_loop, line

    for statement in body:
        yield from visit(statement, False, None)
