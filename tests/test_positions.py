"""Per-statement positions must equal LibCST's whole-module positions for every node."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from gradlint.analysis.async_keywords import repair_async_keywords
from gradlint.engine import parse
from gradlint.source import LineIndex
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
    # Characters `str.splitlines` ends a line at, Python does not
    "separators": "# page \f break, \v, \x1c and \u2028\ns = '\x85'\nclass A:\n    t = '\u2029'; w = x.data\ny = w.data\n",
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


FORM_FEEDS = {
    "statement": "import torch\n\fx = w.data\n",
    "several": "x = 1\n \f\fy = w.data\n",
    "line": "x = 1\n\f\ny = w.data\n",
    "block": "if a:\n\f    y = w.data\n    z = w.data\n",
    "dedent": "if a:\n    if b:\n\f        y = w.data\n    z = w.data\n",
    "ends_block": "if a:\n    y = 1\n    \fz = w.data\n",
    "member": "class A:\n\f    x = w.data\n\f    def f(self):\n\f        return self.w.data\n",
    "continuation": "x = (w.data,\n\f  v.data)\n\fy = w.data\n",
    "string": 's = """\n\fkept"""\n\fy = w.data\n',
    "cr": "x = 1\r\fy = w.data\r",
}


@pytest.mark.parametrize("name", sorted(FORM_FEEDS))
def test_positions_are_in_the_text_when_a_form_feed_opens_a_line(name):
    """LibCST leaves the form feed out of a statement line: its own columns there are short of the
    text's. Every node on one line is found at its text, per statement and by the whole-module
    fallback alike."""
    text = FORM_FEEDS[name]
    module, _ = parse(text)
    code = module.code
    in_code = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    text_index, code_index = LineIndex.of(text), LineIndex.of(code)
    per_statement, whole = LazyPositions(module, text), LazyPositions(module, text)
    whole._whole()
    for positions in (per_statement, whole):
        for top, node in all_nodes_by_top(module):
            if node not in in_code:
                continue
            expected, span = in_code[node], positions.lookup(node, top)
            if expected.start.line == expected.end.line:
                assert text[slice(*offsets(text_index, span))] == code[slice(*offsets(code_index, expected))], (name, node)
            else:  # its lines after the first may have lost form feeds; the first keeps its tail
                start, _ = offsets(text_index, span)
                code_start, _ = offsets(code_index, expected)
                assert text[start : text_index.line_end(span.start.line)] == code[code_start : code_index.line_end(expected.start.line)]
    assert per_statement._full is None


def offsets(index: LineIndex, span) -> tuple[int, int]:
    return index.offset(span.start.line, span.start.column), index.offset(span.end.line, span.end.column)


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
