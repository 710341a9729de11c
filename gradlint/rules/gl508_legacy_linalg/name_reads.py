"""Whether a module ever reads a name: `X, _ = f()` can drop `_` when nothing reads it."""

from __future__ import annotations

import libcst as cst

from gradlint.analysis.tree import descendants


def is_never_read(module: cst.Module, name: str) -> bool:
    """True when every occurrence of `name` in `module` is a plain binding target (of `=`, `for`,
    `with ... as`, a comprehension): never read, and never a parameter, import or `global`."""
    occurrences: list[cst.Name] = []
    bound: set[int] = set()
    for node in descendants(module):
        kind = type(node)  # exact types: see analysis/syntax.py
        if kind is cst.Name and node.value == name:
            occurrences.append(node)
        elif kind is cst.Assign:
            for target in node.targets:
                bound.update(_target_names(target.target))
        elif kind is cst.For or kind is cst.CompFor:
            bound.update(_target_names(node.target))
        elif kind is cst.WithItem and node.asname is not None:
            bound.update(_target_names(node.asname.name))
    return all(id(node) in bound for node in occurrences)


def _target_names(target: cst.BaseExpression) -> set[int]:
    """The ids of the Name nodes a target binds (through tuples, lists and `*rest`)."""
    if isinstance(target, cst.Name):
        return {id(target)}
    if isinstance(target, (cst.Tuple, cst.List)):
        names: set[int] = set()
        for element in target.elements:
            names.update(_target_names(element.value))
        return names
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return set()
