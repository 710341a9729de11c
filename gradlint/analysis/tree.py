"""Iteration over LibCST trees: children in source order and whole subtrees, without recursion.

A leaf module: every analysis and the walker build on it, and it imports nothing of gradlint.
LibCST's own visitor rebuilds every node it passes (about half the cost of parsing); reading the
dataclass fields directly is an order of magnitude cheaper. Whitespace and punctuation fields are
never visited: no rule needs them.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from contextlib import contextmanager
from functools import lru_cache
from typing import Iterator, Optional

import libcst as cst

_SKIPPED_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "comma",
        "semicolon",
        "newline",
        "trailing_whitespace",
        "equal",
        "colon",
        "dot",
        "operator",
        "asynchronous",
        "star_tok",
        "default_comma",
        "whitespace",
        # the punctuation and whitespace of slices, relative imports, `match` and one-line suites
        "first_colon",
        "second_colon",
        "relative",
        "trailing_comma",
        "separator",
        "leading_whitespace",
        "last_line",
    }
)
_child_fields: dict[type, tuple[str, ...]] = {}


def _is_child_field(name: str) -> bool:
    return name not in _SKIPPED_FIELDS and not name.startswith("whitespace")


def _holds_text(field: dataclasses.Field) -> bool:
    """A field declared as text or a flag (`Name.value`, `Module.encoding`), never a node."""
    return field.type in (str, bool) or typing.get_origin(field.type) is typing.Literal


def _fields_of(node_type: type) -> tuple[str, ...]:
    names = _child_fields.get(node_type)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(node_type) if _is_child_field(f.name) and not _holds_text(f))
        _child_fields[node_type] = names
    return names


def is_leaf_type(node_type: type) -> bool:
    """Nodes of this type never have children to visit (`Name`, `Integer`, `SimpleString`, `Pass`)."""
    return not _fields_of(node_type)


@lru_cache(maxsize=None)
def reachable_node_types() -> frozenset[str]:
    """Names of the LibCST node types a traversal through `iter_children` can meet, from the
    declared types of the fields it follows (so `Comma` or `Add`, only ever in skipped fields, are
    not among them)."""
    concrete = [
        value
        for value in vars(cst).values()
        if isinstance(value, type) and issubclass(value, cst.CSTNode) and not inspect.isabstract(value)
    ]
    by_base: dict[object, list[type]] = {}
    for node_type in concrete:
        for base in node_type.__mro__:
            by_base.setdefault(base, []).append(node_type)
            by_base.setdefault(base.__name__, []).append(node_type)  # forward references name it

    def node_types_in(annotation: object) -> list[type]:
        if isinstance(annotation, typing.ForwardRef):
            annotation = annotation.__forward_arg__
        arguments = typing.get_args(annotation)
        if arguments:
            return [found for argument in arguments for found in node_types_in(argument)]
        return by_base.get(annotation, [])

    reached: set[type] = set()
    pending: list[type] = [cst.Module]
    while pending:
        node_type = pending.pop()
        if node_type in reached:
            continue
        reached.add(node_type)
        for field in dataclasses.fields(node_type):
            if _is_child_field(field.name):
                pending.extend(node_types_in(field.type))
    return frozenset(node_type.__name__ for node_type in reached)


class _NodeTypes(dict):
    """type -> whether it is a CSTNode. `isinstance` against LibCST's abstract base classes goes
    through ABCMeta, which is the single largest cost of a traversal; a dict lookup is not."""

    def __missing__(self, kind: type) -> bool:
        self[kind] = is_node = issubclass(kind, cst.CSTNode)
        return is_node


_IS_NODE = _NodeTypes()


# The children of each node met during one analysis (`children_remembered`), by the node's id
# (with the node, kept alive so that no other node takes its id): the rules and the facts walk the
# same subtrees many times, and a node never changes.
_children: Optional[dict[int, tuple[cst.CSTNode, list[cst.CSTNode]]]] = None


@contextmanager
def children_remembered() -> Iterator[None]:
    """Remember the children `iter_children` finds while the block runs; forget them after."""
    global _children
    outer = _children
    _children = {}
    try:
        yield
    finally:
        _children = outer


def iter_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The node's children in source order, without whitespace and punctuation (not to be changed:
    the list may be shared)."""
    remembered = _children
    if remembered is not None:
        found = remembered.get(id(node))
        if found is not None and found[0] is node:
            return found[1]
    children = []
    is_node = _IS_NODE
    for name in _fields_of(type(node)):
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            children += [item for item in value if is_node[type(item)]]
        elif is_node[kind]:
            children.append(value)
    if remembered is not None:
        remembered[id(node)] = (node, children)
    return children


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node below it (iteratively: deep trees cannot overflow the stack)."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(iter_children(current))
