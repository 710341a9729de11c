"""torch's grad-mode and autocast context managers, and what torch 2.13 does with each when the call
that creates it is left out (`with torch.no_grad:`, `@torch.autocast`) or when it is created and
never entered (`torch.no_grad()` as a statement of its own).

Measured under torch 2.13 on Python 3.11: `with` on any of these classes raises TypeError ("'type'
object does not support the context manager protocol"; AttributeError `__enter__` before Python
3.11), so a `with` without the call never runs its body. As bare decorators, `no_grad`,
`enable_grad` and `inference_mode` work (their classes accept a function since torch 2.1);
`autocast` and `torch.amp.autocast` raise ValueError when the function is defined,
`set_grad_enabled` raises TypeError there, and `torch.cuda.amp.autocast` / `torch.cpu.amp.autocast`
decorate without error but raise TypeError at every call of the function.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.torch_api.context_managers import CONTEXT_MANAGER_CLASSES, ContextManagerClass


# `torch.set_grad_enabled(flag)` sets the mode when it is created.
_SET_GRAD_ENABLED = CONTEXT_MANAGER_CLASSES["torch.set_grad_enabled"]


def context_manager_class(node: cst.BaseExpression, imports: ImportMap) -> Optional[ContextManagerClass]:
    """The torch context-manager class `node` names (`torch.no_grad`, `no_grad` imported from torch)."""
    if type(node) not in (cst.Name, cst.Attribute):
        return None
    qualified = imports.qualified_name(node)
    return CONTEXT_MANAGER_CLASSES.get(qualified) if qualified is not None else None


def discarded_context_manager(statement: cst.Expr, imports: ImportMap) -> Optional[ContextManagerClass]:
    """The context manager a statement of its own creates (or names) and drops without entering it:
    `torch.no_grad()`, `torch.autocast("cuda")`, `torch.no_grad`. Not `torch.set_grad_enabled(False)`,
    which sets the mode when it is created."""
    value = statement.value
    if type(value) is cst.Call:
        found = context_manager_class(value.func, imports)
        return None if found is None or found is _SET_GRAD_ENABLED else found
    return context_manager_class(value, imports)
