"""Whether a module ever reads a name: `X, _ = f()` can drop `_` when nothing reads it."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m


def is_never_read(module: cst.Module, name: str) -> bool:
    """True when every occurrence of `name` in `module` is a plain binding target (of `=`, `for`,
    `with ... as`, a comprehension): never read, and never a parameter, import or `global`."""
    occurrences = m.findall(module, m.Name(name))
    if not occurrences:
        return True
    bound: set[int] = set()
    for assign in m.findall(module, m.Assign()):
        for target in assign.targets:
            bound.update(_target_names(target.target))
    for loop in m.findall(module, m.For() | m.CompFor()):
        bound.update(_target_names(loop.target))
    for item in m.findall(module, m.WithItem()):
        if item.asname is not None:
            bound.update(_target_names(item.asname.name))
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
