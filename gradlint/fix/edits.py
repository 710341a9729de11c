"""From node-level fix plans to text edits, once positions are known; and applying text edits."""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

import libcst as cst

from gradlint.context import FileContext
from gradlint.fix.builders import render_at
from gradlint.fix.plan import FixPlan, InsertLineBefore, RemoveLine, Replace, ReplaceLines
from gradlint.model import Edit, Fix, Location
from gradlint.positions import LazyPositions
from gradlint.source import LineIndex, indentation


def plan_edits(text: str, module: cst.Module, plan: FixPlan, path: str = "<fix>", statements: Sequence[cst.CSTNode] = ()) -> Optional[Fix]:
    """Text edits for a fix plan over an already parsed module (used by the fixer's clean-ups).

    `statements`: the top-level statements the changes are in, so that positions are resolved
    there instead of over the whole module (which can be too deep to render)."""
    context = FileContext(path, text, module)
    for statement in statements:
        context.positions.lookup(statement, statement)
    return EditBuilder(context, context.positions, LineIndex.of(text)).fix(plan)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """The text with every edit made. Insertions at one offset land in the order of the
    back-to-front application this replaces (the later one first)."""
    backwards = sorted(edits, key=lambda e: (e.start, e.end), reverse=True)
    pieces: list[str] = []
    cursor = 0
    for edit in reversed(backwards):
        if edit.start < cursor:  # overlapping edits: only the back-to-front order defines a result
            return _apply_back_to_front(text, backwards)
        pieces += (text[cursor : edit.start], edit.content)
        cursor = edit.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _apply_back_to_front(text: str, backwards: list[Edit]) -> str:
    for edit in backwards:
        text = text[: edit.start] + edit.content + text[edit.end :]
    return text


class EditBuilder:
    """Turns node-level fix plans into text edits once positions are known."""

    def __init__(self, context: FileContext, positions: LazyPositions, index: LineIndex) -> None:
        self.context = context
        self.positions = positions
        self.index = index
        self.hint: Optional[cst.CSTNode] = None  # top-level statement of the finding being converted

    def fix(self, plan: FixPlan) -> Optional[Fix]:
        edits = []
        for change in plan.changes:
            edit = self._edit(change)
            if edit is None:
                return None  # a fix is all or nothing
            edits.append(edit)
        edits.sort(key=lambda e: (e.start, e.end))
        if any(a.end > b.start for a, b in zip(edits, edits[1:])):
            return None
        return Fix(plan.applicability, plan.message, tuple(edits), plan.needs_torch)

    def _edit(self, change) -> Optional[Edit]:
        if isinstance(change, Replace):
            start, end = self._span(change.node)
            content = change.replacement
            if not isinstance(content, str):
                if wraps_parenthesized(content, change.node):
                    start, end = self._span_with_parentheses(change.node, start, end)
                content = self._render(content, change.node)
            return self._make(start, end, content)
        if isinstance(change, InsertLineBefore):
            row = self._position(change.statement).start.line
            indent = self._indent_if_alone(change.statement)
            if indent is None:
                return None
            offset = self.index.code_start(self.context.text, row)
            return self._make(offset, offset, indent + change.text + self.context.module.default_newline)
        if isinstance(change, ReplaceLines):
            if self._indent_if_alone(change.first) is None or self._indent_if_alone(change.last) is None:
                return None
            start = self.index.code_start(self.context.text, self._position(change.first).start.line)
            return self._make(start, self.index.line_end(self._last_line(change.last)), change.text)
        if isinstance(change, RemoveLine):
            span = self._position(change.statement)
            if self._indent_if_alone(change.statement) is None:
                return None
            start = self.index.code_start(self.context.text, span.start.line)
            return self._make(start, self.index.line_end(span.end.line), "")
        raise TypeError(change)

    def _render(self, replacement: cst.CSTNode, original: cst.CSTNode) -> str:
        """The replacement's source where `original` stands. LibCST writes a line broken inside
        brackets relative to the indentation of the block it is in, so a replacement spanning lines
        is rendered at the indentation of the statement that holds `original`."""
        code = self.context.code_for(replacement)
        if "\n" not in code and "\r" not in code:
            return code
        statement = self.context.nodes.statement_of(original)
        if statement is None:
            return code
        row = self._position(statement).start.line
        line = self.context.text[self.index.line_start(row) : self.index.line_end(row)]
        return render_at(self.context, replacement, indentation(line))

    def _last_line(self, statement: cst.CSTNode) -> int:
        """The last line of a statement, with the comment lines that close its blocks (which
        belong to it in the tree but not to its position range)."""
        span = self._position(statement)
        if not isinstance(statement, cst.BaseCompoundStatement):
            return span.end.line
        code = self.context.code_for(statement.with_changes(leading_lines=()))
        lines = len(LineIndex.of(code).starts) - (1 if code.endswith(("\n", "\r")) else 0)
        return max(span.end.line, span.start.line + lines - 1)

    def _position(self, node: cst.CSTNode):
        return self.positions.lookup(node, self.hint)

    def _span(self, node: cst.CSTNode) -> tuple[int, int]:
        span = self._position(node)
        return (
            self.index.offset(span.start.line, span.start.column),
            self.index.offset(span.end.line, span.end.column),
        )

    def _span_with_parentheses(self, node: cst.CSTNode, start: int, end: int) -> tuple[int, int]:
        """Widen `start, end` over the node's own parentheses (the replacement renders them itself)."""
        text = self.context.text
        for _ in node.lpar:
            before = start - 1
            while before >= 0 and text[before] in " \t":
                before -= 1
            after = end
            while after < len(text) and text[after] in " \t":
                after += 1
            if before < 0 or after >= len(text) or text[before] != "(" or text[after] != ")":
                return start, end
            start, end = before, after + 1
        return start, end

    def _indent_if_alone(self, statement: cst.CSTNode) -> Optional[str]:
        """The indentation of the statement's line, if nothing but a comment shares its lines."""
        span = self._position(statement)
        text = self.context.text
        line_start = self.index.code_start(text, span.start.line)
        start, end = self._span(statement)
        before = text[line_start:start]
        after = text[end : self.index.line_end(span.end.line)].strip()
        if before.strip() or (after and not after.startswith("#")):
            return None
        return before

    def _make(self, start: int, end: int, content: str) -> Edit:
        return Edit(start, end, content, Location(*self.index.position(start)), Location(*self.index.position(end)))


def wraps_parenthesized(replacement: cst.CSTNode, node: cst.CSTNode) -> bool:
    """`replacement` is `node.method(...)` or `node.attr` built around a node that has parentheses."""
    if not getattr(node, "lpar", None):
        return False
    func = replacement.func if isinstance(replacement, cst.Call) else replacement
    return isinstance(func, cst.Attribute) and func.value is node
