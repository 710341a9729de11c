"""Where autograd is off: `with torch.no_grad():`, `inference_mode`, `set_grad_enabled(False)`,
and functions decorated with them."""

from __future__ import annotations

import re
from typing import Optional, Sequence

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.syntax import is_bool_literal
from gradlint.analysis.torch_api.context_managers import grad_mode_managers
from gradlint.analysis.tree import iter_children

NO_GRAD = grad_mode_managers("disables")
SET_GRAD_ENABLED = grad_mode_managers("sets")


def disables_grad(expression: cst.BaseExpression, imports: ImportMap) -> bool:
    """`torch.no_grad()`, `torch.no_grad` (as a decorator), `torch.set_grad_enabled(False)`."""
    if isinstance(expression, cst.Call):
        qualified = imports.qualified_name(expression.func)
        if qualified in NO_GRAD:
            return True
        if qualified in SET_GRAD_ENABLED and expression.args:
            return is_bool_literal(expression.args[0].value, False)
        return False
    return imports.qualified_name(expression) in NO_GRAD


def is_no_grad_with(statement: cst.CSTNode, imports: ImportMap) -> bool:
    return isinstance(statement, cst.With) and any(disables_grad(item.item, imports) for item in statement.items)


def runs_without_grad(stack: Sequence[cst.CSTNode], imports: ImportMap) -> bool:
    """True when the innermost node of `stack` runs with autograd off.

    A `def` body runs when called, not where it is written: the search stops at the nearest
    function, which counts only through its own decorators.
    """
    for node in reversed(stack[:-1]):
        if is_no_grad_with(node, imports):
            return True
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            return isinstance(node, cst.FunctionDef) and any(disables_grad(d.decorator, imports) for d in node.decorators)
    return False


def functions_called_without_grad(module: cst.Module, imports: ImportMap) -> frozenset[str]:
    """Names of functions and methods called somewhere inside a no-grad block of `module`."""
    names: set[str] = set()
    pending: list[tuple[cst.CSTNode, bool]] = [(module, False)]
    while pending:
        node, off = pending.pop()
        if isinstance(node, cst.Call) and off:
            func = node.func
            if isinstance(func, cst.Name):
                names.add(func.value)
            elif isinstance(func, cst.Attribute):
                names.add(func.attr.value)
        if isinstance(node, cst.FunctionDef):
            off = any(disables_grad(d.decorator, imports) for d in node.decorators)
        elif is_no_grad_with(node, imports):
            off = True
        pending.extend((child, off) for child in iter_children(node))
    return frozenset(names)


ENABLE_GRAD = grad_mode_managers("enables")


def may_enable_grad(expression: cst.BaseExpression, imports: ImportMap) -> bool:
    """`torch.enable_grad()`, or `torch.set_grad_enabled(flag)` with a flag that is not literally False."""
    if isinstance(expression, cst.Call):
        qualified = imports.qualified_name(expression.func)
        if qualified in ENABLE_GRAD:
            return True
        return qualified in SET_GRAD_ENABLED and not (expression.args and is_bool_literal(expression.args[0].value, False))
    return imports.qualified_name(expression) in ENABLE_GRAD


def grad_mode_of(withs, imports: ImportMap) -> Optional[bool]:
    """The grad mode the innermost grad-mode `with` (of `withs`, outermost first) sets: False for
    no_grad / inference_mode / set_grad_enabled(False), True for enable_grad (or a flag that may be
    True), None when no `with` sets it. `with torch.no_grad(): with torch.enable_grad():` is True."""
    for statement in reversed(tuple(withs)):
        if not isinstance(statement, cst.With):
            continue
        for item in reversed(statement.items):
            if disables_grad(item.item, imports):
                return False
            if may_enable_grad(item.item, imports):
                return True
    return None


# A project's own wrapper of no_grad / inference_mode: `@smart_inference_mode()`, `@utils.no_grad_if(cond)`.
_NO_GRAD_LIKE = re.compile(r"(^|_)(no_grad|inference_mode)($|_)", re.IGNORECASE)


def decorated_like_no_grad(function: cst.FunctionDef) -> bool:
    """A decorator of `function` is named like a no-grad wrapper (evidence, not proof, that its body runs without autograd)."""
    for decorator in function.decorators:
        expression = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        while isinstance(expression, cst.Attribute):
            expression = expression.attr
        if isinstance(expression, cst.Name) and _NO_GRAD_LIKE.search(expression.value):
            return True
    return False
