"""One traversal of a LibCST tree that dispatches to every rule's visit_/leave_ methods."""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

import libcst as cst

from gradlint.analysis.tree import is_leaf_type, iter_children

if TYPE_CHECKING:
    from gradlint.context import FileContext
    from gradlint.rules.base import Rule


Handler = Callable[[cst.CSTNode], object]


def _dispatch_tables(rules: Iterable[Rule]) -> tuple[dict[str, list[Handler]], dict[str, list[Handler]]]:
    visits: dict[str, list[Handler]] = defaultdict(list)
    leaves: dict[str, list[Handler]] = defaultdict(list)
    for rule in rules:
        for prefix, node_type, attribute in _handlers_of(type(rule)):
            (visits if prefix == "visit" else leaves)[node_type].append(getattr(rule, attribute))
    return dict(visits), dict(leaves)


@lru_cache(maxsize=None)
def _handlers_of(rule_type: type) -> tuple[tuple[str, str, str], ...]:
    """(visit or leave, node type, method name) of a rule class's handlers: `dir` is slow, and
    every file asks again."""
    found = []
    for attribute in dir(rule_type):
        prefix, _, node_type = attribute.partition("_")
        if prefix in ("visit", "leave") and node_type:
            found.append((prefix, node_type, attribute))
    return tuple(found)


def walk(context: FileContext, rules: Iterable[Rule]) -> None:
    """Visit the whole module once, calling each rule's handlers in source order.

    Iterative (no Python recursion), so deeply nested code cannot overflow the stack here.
    """
    visits, leaves = _dispatch_tables(rules)
    plans: dict[type, tuple[Sequence[Handler], Sequence[Handler], bool]] = {}
    stack = context.stack
    # A node to visit, or (node, its leave handlers) to leave it once its children are done:
    # children go on as they are, without a tuple each (they are most of what is pushed).
    pending: list = [context.module]
    next_item, schedule, schedule_all = pending.pop, pending.append, pending.extend  # bound once: hot loop
    enter, leave = stack.append, stack.pop
    while pending:
        node = next_item()
        if type(node) is tuple:
            node, leaving = node
            for handler in leaving:
                handler(node)
            leave()
            continue
        kind = type(node)
        plan = plans.get(kind)
        if plan is None:
            plan = plans[kind] = (visits.get(kind.__name__, ()), leaves.get(kind.__name__, ()), is_leaf_type(kind))
        on_visit, on_leave, leaf = plan
        enter(node)
        for handler in on_visit:
            handler(node)
        if leaf:  # left at once: no children to schedule before it (half the nodes are names and literals)
            for handler in on_leave:
                handler(node)
            leave()
            continue
        schedule((node, on_leave))
        children = iter_children(node)
        if children:
            schedule_all(children[::-1])
