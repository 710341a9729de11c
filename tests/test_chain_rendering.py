"""Operator chains render without recursion, to the same code and positions as LibCST's own rendering."""

from __future__ import annotations

import ast
import sys
from contextlib import contextmanager

import libcst as cst
import pytest
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider, WhitespaceInclusivePositionProvider

from gradlint import chain_rendering
from gradlint.deepstack import run_deep
from gradlint.positions import LazyPositions
from support import ROOT, parses

chain_rendering.install()

CHAINS = (
    "x = a and b or c and (d or e) and not f\n",
    "x = ((a and b)) or (c + d * e - (f // g)) and h\n",
    "x = (a\n    and b  # why\n    or c) and (\n  d or\n  e\n)\n",
    "x = a + b - c * d @ e / f % g ** h << i >> j | k & l ^ m\n",
    "x = f(a and b, c + d)[e or g] if h and i else j or k\n",
)


def name_ranges_from_libcst(source: str) -> list[tuple[str, int, int, int, int]]:
    wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    found = []
    for node, where in positions.items():
        if isinstance(node, cst.Name):
            found.append((node.value, where.start.line, where.start.column, where.end.line, where.end.column))
    return sorted(found)


def name_ranges_from_cpython(source: str) -> list[tuple[str, int, int, int, int]]:
    return sorted(
        (node.id, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Name)
    )


@pytest.mark.parametrize("source", CHAINS)
def test_chains_render_as_written_with_cpythons_positions(source):
    assert cst.parse_module(source).code == source
    assert name_ranges_from_libcst(source) == name_ranges_from_cpython(source)


def every_range(source: str) -> list[list[tuple]]:
    """Every node's range from both of LibCST's position providers, in rendering order."""
    module = cst.parse_module(source)
    ranges = []
    for provider in (PositionProvider, WhitespaceInclusivePositionProvider):
        positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(provider)
        ranges.append([(type(node).__name__, *astuple(where)) for node, where in positions.items()])
    return ranges


def astuple(where) -> tuple[int, int, int, int]:
    return (where.start.line, where.start.column, where.end.line, where.end.column)


SOURCES = [path for path in sorted(ROOT.glob("fixtures/GL[1-9]*/bad.py")) + sorted(ROOT.glob("examples/legacy/*.py")) if parses(path)]


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_positions_equal_libcsts_own_rendering(path, monkeypatch):
    source = path.read_text(encoding="utf-8") + "".join(f"\n{chain}" for chain in CHAINS)
    ours = every_range(source)
    for node_type, rendering in chain_rendering.LIBCST_RENDERING.items():
        monkeypatch.setattr(node_type, "_codegen_impl", rendering)
    assert every_range(source) == ours


def test_operands_and_operators_keep_their_positions():
    source = "y = (a or b) and c\n"
    module = cst.parse_module(source)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    outer = module.body[0].body[0].value
    spans = {
        "outer": positions[outer],
        "inner": positions[outer.left],
        "operator": positions[outer.operator],
        "c": positions[outer.right],
    }
    assert {key: (span.start.column, span.end.column) for key, span in spans.items()} == {
        "outer": (4, 18),
        "inner": (5, 11),  # inside its parentheses, as LibCST records a parenthesised node
        "operator": (13, 16),  # the word; its spaces are its whitespace fields
        "c": (17, 18),
    }


def test_a_chain_deeper_than_the_recursion_limit_renders_with_positions():
    operands = sys.getrecursionlimit() * 5
    source = "x = (" + " and ".join(f"a{index % 7} + b" for index in range(operands)) + ")\n"
    module = run_deep(lambda: cst.parse_module(source))  # LibCST's parser recurses, its rendering no longer
    assert module.code == source
    last = module.body[0].body[0].value.right
    expected = CodeRange(CodePosition(1, len(source) - 8), CodePosition(1, len(source) - 2))
    assert LazyPositions(module, source).lookup(last) == expected
    whole_module = LazyPositions(module, source)
    assert whole_module._whole()[last] == expected


class RecordingState(CodegenState):
    """Logs each node whose recorded position opens and closes."""

    def __init__(self, log: list) -> None:
        super().__init__(default_indent="    ", default_newline="\n")
        self.log = log

    @contextmanager
    def record_syntactic_position(self, node, **kwargs):
        self.log.append(("open", type(node).__name__))
        try:
            yield
        finally:
            self.log.append(("close", type(node).__name__))


def test_an_error_inside_a_chain_closes_every_open_node_as_libcst_does(monkeypatch):
    class Failing(cst.Name):
        def _codegen_impl(self, state):
            raise ValueError("no")

    chain = cst.parse_expression("a and b and c")
    chain = chain.with_changes(left=chain.left.with_changes(right=Failing("b")))

    def rendering_log() -> list:
        log: list = []
        with pytest.raises(ValueError):
            chain._codegen(RecordingState(log))
        return log

    ours = rendering_log()
    assert ours[-2:] == [("close", "BooleanOperation"), ("close", "BooleanOperation")]
    for node_type, rendering in chain_rendering.LIBCST_RENDERING.items():
        monkeypatch.setattr(node_type, "_codegen_impl", rendering)
    assert rendering_log() == ours


def test_libcsts_rendering_stays_when_the_loop_would_render_otherwise(monkeypatch):
    """A LibCST whose internals moved keeps its own rendering: only long chains fail then."""
    for node_type in chain_rendering.CHAIN_TYPES:
        monkeypatch.setattr(node_type, "_codegen_impl", node_type._codegen_impl)  # undone afterwards
    monkeypatch.setattr(chain_rendering, "_installed", False)

    def moved_internals(node, state):
        raise AttributeError("_parenthesize")

    monkeypatch.setattr(chain_rendering, "render_chain", moved_internals)
    chain_rendering.install()
    for node_type, rendering in chain_rendering.LIBCST_RENDERING.items():
        assert node_type._codegen_impl is rendering
    assert cst.parse_module("x = a and b + c\n").code == "x = a and b + c\n"


def test_the_loop_is_installed():
    for node_type in chain_rendering.CHAIN_TYPES:
        assert node_type._codegen_impl is chain_rendering.render_chain
