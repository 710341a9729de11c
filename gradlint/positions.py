"""Positions of reported nodes without computing them for the whole module.

LibCST's PositionProvider renders the whole module and records every node: on a 10,000-line file
that costs more than the parse. Findings are few, so positions are resolved one statement at a
time: a top-level statement, or a member of a top-level class (test files are often one huge
class). The statement is rendered alone; its rows are shifted by the line on which CPython's own
parser (C, cheap) places it, and its columns by the indentation it lost, line by line, after
checking that every rendered line is the source line minus that indentation. Anything unexpected
falls back to the whole-module provider, so a position is never wrong.

LibCST leaves out of its tree the leading whitespace of a statement's line up to a form feed
(`\fx = 1` renders as `x = 1`), so its columns on such a line are short of the text's: the same
line-by-line comparison shifts them, for the whole-module provider too. Lines are split only at
`\r\n`, `\r` and `\n`, as LibCST and CPython count them (`str.splitlines` also splits at form
feeds, vertical tabs and other separators a string or comment may hold).
"""

from __future__ import annotations

import ast
from typing import Callable, Mapping, Optional

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from gradlint.analysis.tree import iter_children
from gradlint.chain_rendering import install as render_chains_without_recursion
from gradlint.source import lines_with_ends

render_chains_without_recursion()  # a finding's statement may hold an `and` chain of any length


class _Placed:
    """Positions of one statement rendered alone, and how to move them to the real file."""

    def __init__(self, positions, row_offset: int, column_shifts: list[int]) -> None:
        self.positions = positions
        self.row_offset = row_offset
        self.column_shifts = column_shifts  # per rendered row (1-based index - 1)

    def get(self, node: cst.CSTNode) -> Optional[CodeRange]:
        found = self.positions.get(node)
        if found is None:
            return None
        return CodeRange(self._moved(found.start), self._moved(found.end))

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        found = self.get(node)
        if found is None:
            raise KeyError(node)
        return found

    def _moved(self, position: CodePosition) -> CodePosition:
        row = position.line
        shift = self.column_shifts[row - 1] if row - 1 < len(self.column_shifts) else 0
        return CodePosition(row + self.row_offset, position.column + shift)


class LazyPositions:
    def __init__(
        self, module: cst.Module, text: str, placement_of: Optional[Callable[[cst.CSTNode], Optional[cst.CSTNode]]] = None
    ) -> None:
        self.module = module
        self.text = text
        self._placement_of = placement_of
        self._placed: dict[int, Optional[_Placed]] = {}  # id(statement) -> its positions; None: cannot be placed
        self._full: Optional[_Placed] = None
        self._rows: Optional[dict[int, int]] = None
        self._lines: Optional[list[str]] = None

    def lookup(self, node: cst.CSTNode, hint: Optional[cst.CSTNode] = None) -> CodeRange:
        """The node's range; `hint` is the statement (top-level or class member) that probably holds it.
        Only the hinted statement and the one the node belongs to are searched: searching every
        statement placed so far made the cost grow with the square of the findings."""
        try:
            if self._full is not None:
                return self._full[node]
            found = self._within(node, hint)
            if found is None:
                unit = self._unit_of(node)
                if unit is not hint:
                    found = self._within(node, unit)
            return found if found is not None else self._whole()[node]
        except KeyError as error:
            # Rendering code nested deeper than the recursion limit (a chain of thousands of
            # `and`s) fails in LibCST's position recorder while the RecursionError unwinds.
            if isinstance(error.__context__, RecursionError):
                raise error.__context__ from None
            raise

    def _within(self, node: cst.CSTNode, statement: Optional[cst.CSTNode]) -> Optional[CodeRange]:
        if statement is None:
            return None
        key = id(statement)
        if key not in self._placed:
            self._placed[key] = self._place(statement)
        placed = self._placed[key]
        return None if placed is None else placed.get(node)

    def _unit_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        if self._placement_of is None:
            units = placement_map(self.module)
            self._placement_of = lambda other: units.get(id(other))
        return self._placement_of(node)

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        return self.lookup(node)

    def _whole(self) -> _Placed:
        if self._full is None:
            positions, code = _rendered_with_positions(self.module)
            # Rows of the code the tree renders missing a form feed line's leading whitespace:
            # no other difference is known, so a line that is otherwise different keeps its columns.
            shifts = [] if code == self.text else self._column_shifts(split_lines(code), 0, lenient=True)
            self._full = _Placed(positions, 0, shifts)
        return self._full

    def _place(self, statement: cst.CSTNode) -> Optional[_Placed]:
        first_row = self._statement_rows().get(id(statement))
        if first_row is None:
            return None
        alone = cst.Module(
            body=[statement],
            header=[],
            footer=[],
            encoding=self.module.encoding,
            default_indent=self.module.default_indent,
            default_newline=self.module.default_newline,
            has_trailing_newline=True,
        )
        positions, code = _rendered_with_positions(alone)
        row_offset = first_row - positions[statement].start.line
        shifts = self._column_shifts(split_lines(code), row_offset)
        return None if shifts is None else _Placed(positions, row_offset, shifts)

    def _column_shifts(self, rendered: list[str], row_offset: int, lenient: bool = False) -> Optional[list[int]]:
        """For each rendered line, the whitespace the source line has in front of it; None when a
        line is not the source line (then the placement is wrong and the caller falls back), or,
        `lenient`, no shift for that line."""
        lines = self._source_lines()
        shifts = []
        for index, line in enumerate(rendered):
            row = index + 1 + row_offset
            if not 0 < row <= len(lines):
                if line.strip():
                    return None
                shifts.append(0)  # leading blank/comment lines outside the file: never positions
                continue
            source = lines[row - 1]
            if not source.endswith(line) or source[: len(source) - len(line)].strip(" \t\f"):
                if not lenient:
                    return None
                shifts.append(0)
                continue
            shifts.append(len(source) - len(line))
        return shifts

    def _source_lines(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    def _statement_rows(self) -> dict[int, int]:
        """id(LibCST statement) -> the row CPython's parser puts it on, for top-level statements
        and the members of classes nested in them."""
        if self._rows is None:
            self._rows = {}
            try:
                tree = ast.parse(self.text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return self._rows
            if not _pair(self.module.body, tree.body, self._rows):
                self._rows = {}  # the two parsers disagree on the statements: trust neither mapping
        return self._rows


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their line breaks, which are `\r\n`, `\r` or `\n` only."""
    return [line.rstrip("\r\n") for line in lines_with_ends(text)]


def _rendered_with_positions(module: cst.Module) -> tuple[Mapping[cst.CSTNode, CodeRange], str]:
    """The module's code and the position of every node in it, from one rendering. MetadataWrapper
    would also walk the whole tree for batchable providers (there are none here) and the code would
    be rendered a second time: three passes where one does."""
    try:
        provider = PositionProvider()
        state = PositionProvidingCodegenState(
            default_indent=module.default_indent, default_newline=module.default_newline, provider=provider
        )
        module._codegen(state)
        return provider._computed, "".join(state.tokens)
    except (AttributeError, TypeError):  # LibCST's internals moved: take the public, slower road
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider), module.code


def _pair(statements, nodes: list[ast.stmt], rows: dict[int, int]) -> bool:
    """Match LibCST statements with CPython's (`a; b` is one LibCST line, two CPython statements)."""
    position = 0
    for statement in statements:
        count = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
        if position + count > len(nodes):
            return False
        node = nodes[position]
        position += count
        # LibCST places a decorated def/class on its `def`/`class` line, as CPython does.
        rows[id(statement)] = node.lineno
        if isinstance(statement, cst.ClassDef) and isinstance(node, ast.ClassDef):
            body = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else ()
            if body and not _pair(body, node.body, rows):
                return False
    return position == len(nodes)


def member_statement(stack) -> Optional[cst.CSTNode]:
    """The statement to resolve positions in for the innermost node of a traversal `stack`: the
    top-level statement, or the innermost member of the (possibly nested) classes it opens."""
    if len(stack) < 2:
        return None
    index = 1
    while isinstance(stack[index], cst.ClassDef) and len(stack) > index + 2 and isinstance(stack[index + 1], cst.IndentedBlock):
        index += 2
    return stack[index]


def placement_map(module: cst.Module) -> dict[int, cst.CSTNode]:
    """id(node) -> the statement `member_statement` would pick for it, for every node the traversal
    reaches: one linear pass, for nodes reported outside the traversal."""
    units: dict[int, cst.CSTNode] = {}
    pending: list[tuple[cst.CSTNode, cst.CSTNode]] = [(statement, statement) for statement in module.body]
    while pending:
        node, unit = pending.pop()
        units[id(node)] = unit
        children = iter_children(node)
        if node is unit and isinstance(node, cst.ClassDef) and isinstance(node.body, cst.IndentedBlock):
            # The members of a class are placement units of their own (see `member_statement`).
            units[id(node.body)] = unit
            pending.extend((member, member) for member in node.body.body)
            children = [child for child in children if child is not node.body]
        pending.extend((child, unit) for child in children)
    return units
