"""One traversal of a LibCST tree that dispatches to every rule's visit_/leave_ methods."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Callable, Iterable

import libcst as cst

from gradlint.analysis.tree import iter_children

if TYPE_CHECKING:
    from gradlint.context import FileContext
    from gradlint.rules.base import Rule


Handler = Callable[[cst.CSTNode], object]


def _dispatch_tables(rules: Iterable[Rule]) -> tuple[dict[str, list[Handler]], dict[str, list[Handler]]]:
    visits: dict[str, list[Handler]] = defaultdict(list)
    leaves: dict[str, list[Handler]] = defaultdict(list)
    for rule in rules:
        for attribute in dir(type(rule)):
            if attribute.startswith("visit_"):
                visits[attribute[6:]].append(getattr(rule, attribute))
            elif attribute.startswith("leave_"):
                leaves[attribute[6:]].append(getattr(rule, attribute))
    return dict(visits), dict(leaves)


def walk(context: FileContext, rules: Iterable[Rule]) -> None:
    """Visit the whole module once, calling each rule's handlers in source order.

    Iterative (no Python recursion), so deeply nested code cannot overflow the stack here.
    """
    visits, leaves = _dispatch_tables(rules)
    stack = context.stack
    pending: list[tuple[cst.CSTNode, bool]] = [(context.module, False)]
    next_item, schedule, schedule_all = pending.pop, pending.append, pending.extend  # bound once: hot loop
    enter, leave = stack.append, stack.pop
    while pending:
        node, leaving = next_item()
        if leaving:
            for handler in leaves.get(type(node).__name__, ()):
                handler(node)
            leave()
            continue
        enter(node)
        for handler in visits.get(type(node).__name__, ()):
            handler(node)
        schedule((node, True))
        children = iter_children(node)
        if children:
            children.reverse()
            schedule_all([(child, False) for child in children])
