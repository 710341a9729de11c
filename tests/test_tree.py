"""The traversal every analysis shares: fields declared as text are skipped, never a node."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import libcst as cst

from gradlint.analysis import tree
from gradlint.analysis.tree import descendants, is_leaf_type

ROOT = Path(__file__).resolve().parent.parent


def every_child_field(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Children through every followed field, text-typed ones included."""
    children: list[cst.CSTNode] = []
    for field in dataclasses.fields(node):
        if not tree._is_child_field(field.name):
            continue
        value = getattr(node, field.name)
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(item, cst.CSTNode):
                children.append(item)
    return children


def reference_walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Every node below `node`, whatever the order."""
    found, pending = [], [node]
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(every_child_field(current))
    return found


SOURCE = """
import torch as t
x: int = -1.5j + 0x1F
y = f"{x!r:>{w}} and {{braces}}" "plain"
b = rb"bytes"
z = [a async for a in b if not a] or {k: v for k, v in d.items()} and ...
@decorator(1)
class C(Base, metaclass=M):
    def f(self, *args, key=None, **kwargs) -> "C":
        global g
        with open(p) as f, t.no_grad():
            return (yield from self.g[1:2, ::3])
match point:
    case {"x": 0, **rest} | [1, *others] if rest:
        pass
"""


def test_skipping_text_fields_loses_no_node():
    sources = [SOURCE] + [path.read_text(encoding="utf-8") for path in sorted((ROOT / "examples").rglob("*.py"))[:20]]
    for source in sources:
        module = cst.parse_module(source)
        assert sorted(id(node) for node in descendants(module)) == sorted(id(node) for node in reference_walk(module))


def test_names_and_literals_are_leaves():
    assert all(is_leaf_type(kind) for kind in (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Pass))
    assert not any(is_leaf_type(kind) for kind in (cst.Call, cst.Attribute, cst.FormattedString, cst.Module))
