"""Whether a stale loss can be computed again after the step by moving its one statement there.

`g_loss = bce(D(fake), ones)` moves to just after `opt_d.step()` when both statements stand alone
on their lines in the same block, the statement itself calls the stepped network, and nothing
between them (or before, for the graph) depends on it: the loss name is not used there, its inputs
are not rebound, a history-free input is only passed as an argument (not changed in place), and an
input with history (`fake`) is used elsewhere only detached and is not itself computed through the
stepped network (else the moved statement would still backpropagate through the freed graph or the
changed weights, and raise as before).
"""

from __future__ import annotations

from typing import Callable, Iterator, Optional, Sequence

import libcst as cst

from gradlint.analysis.grad_tracking import ends_history
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.training import Event, Kind, Region
from gradlint.analysis.tree import iter_children
from gradlint.rules.gl614_step_before_pending_backward.stale_backward import StaleBackward

_MAX_DEPTH = 8
_SCOPED = (cst.Lambda, cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)


def movable_binding(
    region: Region, stale: StaleBackward, models: frozenset[str], history_free: Callable[[cst.BaseExpression], bool]
) -> Optional[tuple[cst.SimpleStatementLine, cst.SimpleStatementLine]]:
    """The line binding the loss and the step's line, when moving the first after the second is a
    plain recompute; None otherwise."""
    events = region.events
    step_index = next(index for index, event in enumerate(events) if event is stale.step)
    binding = next((event for event in reversed(events[:step_index]) if event.kind is Kind.ASSIGN and event.target == stale.loss), None)
    block = _block(region.owner)
    if binding is None or block is None or not _alone(binding) or not _alone(stale.step):
        return None
    assign = binding.node
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    if not _contains(assign.value, stale.model_call) or any(isinstance(node, _SCOPED) for node in _walk(assign.value)):
        return None
    positions = {id(statement): index for index, statement in enumerate(block)}
    bind_at, step_at = positions.get(id(binding.line)), positions.get(id(stale.step.line))
    if bind_at is None or step_at is None or bind_at >= step_at:
        return None
    earlier, between = block[:bind_at], block[bind_at + 1 : step_at + 1]
    if any(_named(node, stale.loss) for statement in between for node in _walk(statement)):
        return None
    bind_index = next(index for index, event in enumerate(events) if event is binding)
    for name, node in _inputs(assign.value).items():
        if history_free(node):
            if not all(isinstance(parent, cst.Arg) for parent, _ in _occurrences(between, name)):
                return None
        elif _through_models(name, events, bind_index, models, 0) or not _used_detached(earlier, between, name):
            return None
    return binding.line, stale.step.line


def _block(owner: cst.CSTNode) -> Optional[Sequence[cst.CSTNode]]:
    if isinstance(owner, cst.Module):
        return owner.body
    body = getattr(owner, "body", None)
    return body.body if isinstance(body, cst.IndentedBlock) else None


def _alone(event: Event) -> bool:
    """Written directly in the analysed body, alone on its line."""
    line = event.line
    return (
        event.direct
        and not event.conditional
        and not event.no_grad
        and line is event.statement
        and isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
    )


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    for child in iter_children(node):
        yield from _walk(child)


def _contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    return any(current is node for current in _walk(tree))


def _named(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, (cst.Name, cst.Attribute)) and dotted_name(node) == name


def _inputs(value: cst.BaseExpression) -> dict[str, cst.BaseExpression]:
    """The names (dotted) the statement reads as values, not the callables it calls."""
    found: dict[str, cst.BaseExpression] = {}

    def visit(node: cst.CSTNode) -> None:
        if isinstance(node, (cst.Name, cst.Attribute)) and dotted_name(node) is not None:
            found.setdefault(dotted_name(node), node)
            return
        if isinstance(node, cst.Call):
            if dotted_name(node.func) is None:
                visit(node.func)
            for arg in node.args:
                visit(arg)
            return
        for child in iter_children(node):
            visit(child)

    visit(value)
    return found


def _occurrences(statements: Sequence[cst.CSTNode], name: str) -> Iterator[tuple[cst.CSTNode, bool]]:
    """(parent, detached) of every use of `name`: detached when inside `x.detach()`, `x.data`..."""

    def visit(node: cst.CSTNode, parent: cst.CSTNode, detached: bool) -> Iterator[tuple[cst.CSTNode, bool]]:
        if _named(node, name):
            yield parent, detached
            return
        detached = detached or (isinstance(node, cst.BaseExpression) and ends_history(node))
        for child in iter_children(node):
            yield from visit(child, node, detached)

    for statement in statements:
        yield from visit(statement, statement, False)


def _used_detached(earlier: Sequence[cst.CSTNode], between: Sequence[cst.CSTNode], name: str) -> bool:
    """`name` is bound before and otherwise used only detached: no other graph shares its history."""
    return all(detached or isinstance(parent, cst.AssignTarget) for parent, detached in _occurrences(earlier, name)) and all(
        detached for _, detached in _occurrences(between, name)
    )


def _through_models(name: str, events: list[Event], before: int, models: frozenset[str], depth: int) -> bool:
    """The last binding of `name` before event `before` calls one of `models` (through names bound
    before it), or cannot be followed."""
    if depth > _MAX_DEPTH:
        return True
    for index in range(before - 1, -1, -1):
        event = events[index]
        if event.kind is Kind.ASSIGN and event.target == name:
            value = getattr(event.node, "value", None)
            if value is None:
                return True
            for node in _walk(value):
                if isinstance(node, cst.Call) and dotted_name(node.func) in models:
                    return True
            return any(_through_models(inner, events, index, models, depth + 1) for inner in _inputs(value))
    return False
