"""Iteration over LibCST trees: children in source order and whole subtrees, without recursion.

A leaf module: every analysis and the walker build on it, and it imports nothing of gradlint.
LibCST's own visitor rebuilds every node it passes (about half the cost of parsing); reading the
dataclass fields directly is an order of magnitude cheaper. Whitespace and punctuation fields are
never visited: no rule needs them.
"""

from __future__ import annotations

import dataclasses
from typing import Iterator

import libcst as cst

_SKIPPED_FIELDS = frozenset(
    {
        "lpar", "rpar", "leading_lines", "lines_after_decorators", "header", "footer", "comma",
        "semicolon", "newline", "trailing_whitespace", "equal", "colon", "dot", "operator",
        "asynchronous", "star_tok", "default_comma", "whitespace",
    }
)
_child_fields: dict[type, tuple[str, ...]] = {}


def _fields_of(node_type: type) -> tuple[str, ...]:
    names = _child_fields.get(node_type)
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(node_type)
            if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
        )
        _child_fields[node_type] = names
    return names


class _NodeTypes(dict):
    """type -> whether it is a CSTNode. `isinstance` against LibCST's abstract base classes goes
    through ABCMeta, which is the single largest cost of a traversal; a dict lookup is not."""

    def __missing__(self, kind: type) -> bool:
        self[kind] = is_node = issubclass(kind, cst.CSTNode)
        return is_node


_IS_NODE = _NodeTypes()


def iter_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The node's children in source order, without whitespace and punctuation."""
    children = []
    is_node = _IS_NODE
    for name in _fields_of(type(node)):
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            children += [item for item in value if is_node[type(item)]]
        elif is_node[kind]:
            children.append(value)
    return children


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node below it (iteratively: deep trees cannot overflow the stack)."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(iter_children(current))
