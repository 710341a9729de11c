"""Per-statement positions must equal LibCST's whole-module positions for every node."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from gradlint.analysis.async_keywords import repair_async_keywords
from gradlint.positions import LazyPositions
from gradlint.analysis.tree import iter_children
from support import ROOT

TRICKY = {
    "decorators": "import torch\n\n\n@torch.no_grad()\n@other(\n    1,\n)\ndef f(x):\n    return x.data\n\n# trailing\n",
    "semicolons": "a = 1; b = a.data\nif a:\n    c = 2  # note\n        # indented comment\n# dedented comment\nd = b.data\n",
    "crlf": "x = 1\r\n\r\nclass A:\r\n    def m(self):\r\n        return self.w.data\r\ny = x\r\n",
    "strings": 's = """\nmulti\nline\n"""\nt = f"{s}"\\\n    .strip()\n',
    "no_trailing_newline": "import torch\nw = torch.zeros(3)\nw.data",
    "tabs": "if True:\n\tx = 1\n\tif x:\n\t\ty = x\n",
    "comment_header": '#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n\n"""doc"""\n\nimport os\n',
}
FILES = sorted(
    [
        *ROOT.glob("fixtures/GL[1-9]*/bad.py"),
        *ROOT.glob("examples/legacy/*.py"),
        ROOT / "gradlint" / "model" / "__init__.py",
        ROOT / "gradlint" / "cli.py",
    ]
)


def all_nodes_by_top(module):
    for top in module.body:
        pending = [top]
        while pending:
            node = pending.pop()
            yield top, node
            pending.extend(iter_children(node))


def assert_same_positions(text):
    module = cst.parse_module(text)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lazy = LazyPositions(module, text)
    for top, node in all_nodes_by_top(module):
        if node in expected:
            assert lazy.lookup(node, top) == expected[node], module.code_for_node(node)[:60]
    assert lazy._full is None or not module.body  # answered per statement, never by the fallback


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_layouts(name):
    assert_same_positions(TRICKY[name])


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_project_files(path):
    text = path.read_text(encoding="utf-8")
    repair = repair_async_keywords(text)  # what LibCST parses of a file with `async=` keywords
    assert_same_positions(repair.text if repair is not None else text)


def test_node_outside_the_hinted_statement_falls_back_correctly():
    text = "import torch\nx = torch.zeros(2)\ny = x.data\n"
    module = cst.parse_module(text)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lazy = LazyPositions(module, text)
    first, last = module.body[0], module.body[-1]
    assert lazy.lookup(first, last) == expected[first]


def class_members(i: str, newline: str = "\n") -> str:
    """Nested classes whose members use indentation unit `i`."""
    lines = [
        "import torch",
        "",
        "",
        "class Outer:",
        f"{i}class Test:",
        f"{i}{i}x = 1; y = 2",
        "",
        f"{i}{i}# comment",
        f"{i}{i}@staticmethod",
        f"{i}{i}def f(a,",
        "              b):",
        f"{i}{i}{i}s = '''",
        "keep",
        "  this'''",
        f"{i}{i}{i}return a.data + (b",
        "                .data)",
        "",
        f"{i}{i}def g(self): return self.w.data",
    ]
    return newline.join(lines) + newline


@pytest.mark.parametrize("text", [class_members("    "), class_members("    ", "\r\n"), class_members("\t"), class_members("  ")])
def test_class_members_are_placed_line_by_line(text):
    module = cst.parse_module(text)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lazy = LazyPositions(module, text)
    inner = module.body[-1].body.body[0]
    for member in inner.body.body:
        pending = [member]
        while pending:
            node = pending.pop()
            if node in expected:
                assert lazy.lookup(node, member) == expected[node], module.code_for_node(node)[:60]
            pending.extend(iter_children(node))
    assert lazy._full is None
