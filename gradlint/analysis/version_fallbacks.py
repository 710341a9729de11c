"""Code kept for older torch releases: a legacy API reached only when the modern one is missing.

`try: torch.amp.GradScaler(...) except AttributeError: torch.cuda.amp.GradScaler()` or
`new() if TORCH_GREATER_EQUAL_2_4 else old()` already run the modern API on a current torch; the
legacy branch exists on purpose, and rewriting it would break the releases it is there for.
"""

from __future__ import annotations

import re
from typing import Callable, Optional, Sequence

import libcst as cst

# A test on the torch release or on whether an API exists: `torch.__version__ >= "2.4"`,
# `is_torch_version(">=", "2.3")`, `_TORCH_GREATER_EQUAL_2_4`, `torch_1_10`, `hasattr(torch, "amp")`.
_VERSION_TEST = re.compile(r"version|hasattr|torch_(greater|less|\d)", re.IGNORECASE)
# What probing a missing API or argument raises.
_PROBE_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "TypeError"})


def in_version_fallback(stack: Sequence[cst.CSTNode], code_for: Callable[[cst.CSTNode], str]) -> bool:
    """The innermost node of `stack` is in a branch of an `if` / conditional expression on the
    torch version, or in an `except` handler for the errors a missing API raises."""
    for node, child in zip(stack, stack[1:]):
        if isinstance(node, cst.ExceptHandler) and child is node.body and _catches_probe_error(node.type):
            return True
        if isinstance(node, (cst.If, cst.IfExp)) and child is not node.test and _VERSION_TEST.search(code_for(node.test)):
            return True
    return False


def in_compatibility_layer(stack: Sequence[cst.CSTNode], code_for: Callable[[cst.CSTNode], str]) -> bool:
    """`in_version_fallback`, or in the body of a `try` that has handlers: there the code tries an
    API that may be gone (`try: torch.gesv(...) except AttributeError: torch.linalg.solve(...)`)
    and already chooses what runs on a modern torch."""
    if in_version_fallback(stack, code_for):
        return True
    return any(isinstance(node, cst.Try) and node.handlers and child is node.body for node, child in zip(stack, stack[1:]))


def _catches_probe_error(caught: Optional[cst.BaseExpression]) -> bool:
    if caught is None:
        return True  # a bare `except:` catches them too
    names = caught.elements if isinstance(caught, cst.Tuple) else [caught]
    return any(isinstance(_value(name), cst.Name) and _value(name).value in _PROBE_ERRORS for name in names)


def _value(element: cst.CSTNode) -> cst.CSTNode:
    return element.value if isinstance(element, cst.Element) else element
