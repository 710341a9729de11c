"""Positions of reported nodes without computing them for the whole module.

LibCST's PositionProvider renders the whole module and records every node: on a 10,000-line file
that costs more than the parse. Findings are few, so positions are resolved one top-level statement
at a time: the statement is rendered alone and its rows are shifted by the line on which CPython's
own parser (C, cheap) places it. Anything unexpected falls back to the whole-module provider, so a
position is never wrong.
"""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider


class LazyPositions:
    def __init__(self, module: cst.Module, text: str) -> None:
        self.module = module
        self.text = text
        self._by_statement: dict[int, tuple[object, int]] = {}  # id(top statement) -> (positions, row offset)
        self._full: Optional[object] = None
        self._first_rows: Optional[dict[int, int]] = None

    def lookup(self, node: cst.CSTNode, hint: Optional[cst.CSTNode] = None) -> CodeRange:
        """The node's range; `hint` is the top-level statement that probably contains it."""
        if self._full is not None:
            return self._full[node]
        for positions, offset in self._candidates(hint):
            found = positions.get(node)
            if found is not None:
                return _shifted(found, offset)
        return self._whole()[node]

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        return self.lookup(node)

    def _candidates(self, hint: Optional[cst.CSTNode]):
        if hint is not None and id(hint) not in self._by_statement:
            resolved = self._resolve_statement(hint)
            if resolved is not None:
                self._by_statement[id(hint)] = resolved
        return list(self._by_statement.values())

    def _whole(self):
        if self._full is None:
            self._full = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._full

    def _resolve_statement(self, statement: cst.CSTNode) -> Optional[tuple[object, int]]:
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
        positions = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
        offset = first_row - positions[statement].start.line
        if not self._agrees(alone, positions[statement].start.line, first_row):
            return None
        return positions, offset

    def _agrees(self, alone: cst.Module, row: int, first_row: int) -> bool:
        """The statement's first line, rendered alone, is the source line CPython placed it on."""
        rendered = alone.code.splitlines()
        lines = self.text.splitlines()
        return 0 < row <= len(rendered) and 0 < first_row <= len(lines) and rendered[row - 1] == lines[first_row - 1]

    def _statement_rows(self) -> dict[int, int]:
        """id(top-level LibCST statement) -> the row CPython's parser puts it on."""
        if self._first_rows is None:
            self._first_rows = {}
            try:
                tree = ast.parse(self.text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return self._first_rows
            statements = iter(tree.body)
            for statement in self.module.body:
                count = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
                taken = [next(statements, None) for _ in range(count)]
                if taken[0] is None:
                    return {}
                # LibCST places a decorated def/class on its `def`/`class` line, as CPython does.
                self._first_rows[id(statement)] = taken[0].lineno
            if next(statements, None) is not None:
                self._first_rows = {}  # the two parsers disagree on the statements: trust neither mapping
        return self._first_rows


def _shifted(found: CodeRange, offset: int) -> CodeRange:
    if offset == 0:
        return found
    return CodeRange(CodePosition(found.start.line + offset, found.start.column), CodePosition(found.end.line + offset, found.end.column))
