"""Rendering of long operator chains without recursion.

CPython keeps `a and b and c ...` flat, so a file may hold a chain of any length; LibCST nests it,
one `BooleanOperation` (or `BinaryOperation` for `+`, `*`, ...) per operator, left-deep, and renders
it recursively: two Python frames per operand. Rendering the statement of a finding inside a chain
of 20,000 operands (for its position, or for a fix) then overflowed the recursion limit.

`install()` gives both node types a rendering that walks the left spine of the chain in a loop. It
calls the same per-node steps as LibCST's (`before_codegen`, the parentheses and the recorded
position of `_parenthesize`, left, operator, right, `after_codegen`) in the same order, so the
code and every recorded position are those LibCST's own rendering gives.
"""

from __future__ import annotations

import sys
from typing import Union

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import MetadataWrapper, PositionProvider, WhitespaceInclusivePositionProvider

Chain = Union[cst.BooleanOperation, cst.BinaryOperation]
CHAIN_TYPES = (cst.BooleanOperation, cst.BinaryOperation)


def render_chain(node: Chain, state: CodegenState) -> None:
    """`node._codegen_impl(state)`, iteratively over the left operands that are chains themselves."""
    spine = [node]
    left = node.left
    while type(left) in CHAIN_TYPES:
        spine.append(left)
        left = left.left
    opened = []
    try:
        for depth, link in enumerate(spine):
            if depth:
                state.before_codegen(link)  # `_codegen` does this around `_codegen_impl`
            parentheses = link._parenthesize(state)
            parentheses.__enter__()
            opened.append(parentheses)
        left._codegen(state)
        for link in reversed(spine):
            link.operator._codegen(state)
            link.right._codegen(state)
            opened.pop().__exit__(None, None, None)
            if link is not node:
                state.after_codegen(link)
    except BaseException:
        # As the `with` statements of the recursive rendering would: each open node sees the error.
        error = sys.exc_info()
        while opened:
            opened.pop().__exit__(*error)
        raise


# LibCST's own rendering of each chain type, kept to compare with.
LIBCST_RENDERING = {node_type: node_type._codegen_impl for node_type in CHAIN_TYPES}
_installed = False
# Operators of both kinds, nested, parenthesised, with comments and line breaks.
_SAMPLE = "x = ((a) and b) or (c + (d - e) * f  # why\n  ) and not g\n"


def install() -> None:
    """Render every `BooleanOperation` and `BinaryOperation` through `render_chain` (idempotent).
    Left as they are when, on a sample, the code or a position would differ from LibCST's own
    (a LibCST whose internals moved): long chains then fail as before, nothing else does."""
    global _installed
    if _installed:
        return
    _installed = True
    sample = cst.parse_module(_SAMPLE)
    expected = _rendered(sample)
    for node_type in CHAIN_TYPES:
        node_type._codegen_impl = render_chain
    try:
        same = _rendered(sample) == expected
    except Exception:  # noqa: BLE001 - any failure means: keep LibCST's rendering
        same = False
    if not same:
        for node_type, rendering in LIBCST_RENDERING.items():
            node_type._codegen_impl = rendering


def _rendered(module: cst.Module) -> tuple[str, dict]:
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(WhitespaceInclusivePositionProvider)
    syntactic = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return module.code, {id(node): (where, syntactic.get(node)) for node, where in positions.items()}
