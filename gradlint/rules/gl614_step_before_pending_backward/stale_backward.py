"""A backward whose graph saved parameters that an optimizer step has since changed in place.

`g_loss = bce(D(fake), ones)`, then `d_loss.backward(); opt_d.step()`, then `g_loss.backward()`:
the generator's loss was computed through D before `opt_d.step()` rewrote D's weights in place,
so the pending backward needs tensors that no longer hold the values it saved.

Evidence only, from one body's training events in source order: the step is unconditional and
follows a backward (its own update, not the step-before-backward mistake), the optimizer is built
in the file over `M.parameters()`, and the backpropagated name was last bound before the step to a
value computed from a call of `M` (directly or through names bound before it) that is not
detached and not under no-grad, and whose input comes from another network (`D(G(z))`): then
`M`'s weights are saved to pass the gradient on, and the step changes them under the graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from gradlint.analysis.grad_tracking import ends_history
from gradlint.analysis.optimizers import OptimizerOracle
from gradlint.analysis.roles import MODEL_CALLEE
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.training import BackwardSite, Event, Kind, Region
from gradlint.analysis.tree import iter_children

_MAX_DEPTH = 8


@dataclass(frozen=True)
class StaleBackward:
    backward: Event  # `g_loss.backward()`
    step: Event  # `opt_d.step()`, which ran after the loss was computed
    loss: str  # `g_loss`
    model_call: cst.Call  # `D(fake)`, computed before the step


def stale_backwards(region: Region, optimizers: OptimizerOracle) -> list[StaleBackward]:
    events = region.events
    found = []
    for index, step in enumerate(events):
        if step.kind is not Kind.STEP or not step.direct or step.conditional or step.optimizer is None:
            continue
        if not any(event.kind is Kind.BACKWARD for event in events[:index]) or _reset_just_before(events, index):
            continue  # a step before any backward, or right after its own reset, is GL203's mistake
        models = optimizers.stepped_modules(step.optimizer)
        if not models:
            continue
        for position in range(index + 1, len(events)):
            backward = events[position]
            if backward.kind is not Kind.BACKWARD or backward.via is not None or backward.nested_loop:
                continue
            loss = _backpropagated_name(backward.site)
            if loss is None or _bound_between(events, loss, index, position):
                continue
            call = _model_call_before(events, loss, index, models, 0)
            if call is not None:
                found.append(StaleBackward(backward, step, loss, call))
    return found


def _backpropagated_name(site: BackwardSite) -> Optional[str]:
    """`loss` of `loss.backward()` or `scaler.scale(loss).backward()`."""
    call = site.call
    if not site.tensor_method or call.args and call.args[0].keyword is None:
        return None  # a wrapper's `backward(loss)`, or `out.backward(gradient)`
    return site.tensor.value if isinstance(site.tensor, cst.Name) else None


def _reset_just_before(events: list[Event], index: int) -> bool:
    """The stepped optimizer was reset after the last backward: its step has no gradient of its own."""
    for event in reversed(events[:index]):
        if event.calls_backward:
            return False
        if event.kind is Kind.RESET and event.optimizer == events[index].optimizer:
            return True
    return False


def _from_other_network(node: cst.CSTNode, events: list[Event], before: int, models: frozenset[str], depth: int) -> bool:
    """`node` is computed from the output of another network (`D(G(z))`, `critic(actor(s))`): the
    stepped network's weights are then saved to pass the gradient back to it."""
    if depth > _MAX_DEPTH or (isinstance(node, cst.BaseExpression) and ends_history(node)):
        return False
    if isinstance(node, cst.Call):
        name = dotted_name(node.func)
        if name is not None and name not in models and MODEL_CALLEE.match(name.rsplit(".", 1)[-1]):
            return True
    if isinstance(node, cst.Name):
        for index in range(before - 1, -1, -1):
            event = events[index]
            if event.kind is Kind.ASSIGN and event.target == node.value:
                return not event.no_grad and _from_other_network(event.node.value, events, index, models, depth + 1)
        return False
    return any(_from_other_network(child, events, before, models, depth + 1) for child in iter_children(node))


def _bound_between(events: list[Event], name: str, start: int, end: int) -> bool:
    return any(event.kind is Kind.ASSIGN and event.target == name for event in events[start:end])


def _model_call_before(events: list[Event], name: str, before: int, models: frozenset[str], depth: int) -> Optional[cst.Call]:
    """The call of one of `models` that the last binding of `name` before event `before` is
    computed from, when that binding is unconditional and outside no-grad."""
    if depth > _MAX_DEPTH:
        return None
    for index in range(before - 1, -1, -1):
        event = events[index]
        if event.kind is Kind.ASSIGN and event.target == name:
            if not event.direct or event.conditional or event.no_grad:
                return None
            return _calls_model(event.node.value, events, index, models, depth)
    return None


def _calls_model(node: cst.CSTNode, events: list[Event], before: int, models: frozenset[str], depth: int) -> Optional[cst.Call]:
    if isinstance(node, cst.BaseExpression) and ends_history(node):
        return None
    if isinstance(node, (cst.Lambda, cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)):
        return None
    if isinstance(node, cst.Call) and dotted_name(node.func) in models:
        if any(_from_other_network(arg.value, events, before, models, depth) for arg in node.args):
            return node
    if isinstance(node, cst.Name):
        return _model_call_before(events, node.value, before, models, depth + 1)
    if isinstance(node, cst.Attribute):
        return _calls_model(node.value, events, before, models, depth)
    for child in iter_children(node):
        found = _calls_model(child, events, before, models, depth)
        if found is not None:
            return found
    return None
