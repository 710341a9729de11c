"""Lint one file: decode, prefilter, parse once, run every selected rule in one traversal."""

from __future__ import annotations

import ast
import codecs
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Optional, Sequence

import libcst as cst

from gradlint.context import FileContext
from gradlint.model import Edit, FileResult, Finding, Fix, Location
from gradlint.noqa import file_is_exempt, is_suppressed
from gradlint.rules import all_rules
from gradlint.rules.base import FixPlan, InsertLineBefore, RemoveLine, Replace, ReplaceLines, Report, Rule
from gradlint.source import LineIndex, UndecodableSource, decode_source
from gradlint.walker import walk

if TYPE_CHECKING:
    from gradlint.analysis.project import ProjectFacts

PARSE_ERROR = "GL001"
DECODE_ERROR = "GL002"


@dataclass
class LintOutcome:
    findings: list[Finding] = field(default_factory=list)
    module: Optional[cst.Module] = None
    error: Optional[str] = None


def rules_for(codes: Iterable[str]) -> list[type[Rule]]:
    wanted = set(codes)
    return [rule for rule in all_rules() if rule.code in wanted and not rule.engine_only]


def lint_bytes(raw: bytes, path: str, codes: frozenset[str], project: Optional["ProjectFacts"] = None) -> FileResult:
    try:
        text, _ = decode_source(raw)
    except UndecodableSource as error:
        if DECODE_ERROR not in codes:
            return FileResult(path)
        message, location = _decode_error(raw, str(error))
        finding = _file_finding(DECODE_ERROR, f"could not decode: {message}", path, location)
        return FileResult(path, [finding])
    outcome = lint_text(text, path, codes, project=project)
    return FileResult(path, outcome.findings, outcome.error)


def lint_text(
    text: str,
    path: str,
    codes: frozenset[str],
    *,
    respect_noqa: bool = True,
    module: Optional[cst.Module] = None,
    prefilter: bool = True,
    project: Optional["ProjectFacts"] = None,
) -> LintOutcome:
    """Findings for `text`. Pass `module` when the caller has already parsed `text`, and `project`
    for what the file brings in from the other files of its run."""
    if respect_noqa and file_is_exempt(text):
        return LintOutcome()
    selected = rules_for(codes)
    rules = [rule for rule in selected if not prefilter or rule.applies_to(text) or _applies_through(rule, project)]
    if selected and not rules and (PARSE_ERROR not in codes or _compiles(text)):
        return LintOutcome()  # prefilter: nothing here any selected rule could match
    if module is None:
        module, parse_error = parse(text)
        if module is None:
            findings = []
            if PARSE_ERROR in codes:
                findings.append(_file_finding(PARSE_ERROR, f"could not parse: {parse_error[0]}", path, parse_error[1]))
            return LintOutcome(findings)
    context = FileContext(path, text, module, project)
    try:
        walk(context, [rule(context) for rule in rules])
        findings = _findings(context, context.reports) if context.reports else []
    except RecursionError:
        return LintOutcome(module=module, error="internal error: nesting too deep to analyse")
    except Exception as error:  # a rule bug must not stop the run
        return LintOutcome(module=module, error=f"internal error: {type(error).__name__}: {error}")
    if respect_noqa:
        lines = text.splitlines()
        findings = [f for f in findings if not _suppressed(f, lines)]
    return LintOutcome(sorted(findings, key=Finding.sort_key), module)


def _applies_through(rule: type[Rule], project: Optional["ProjectFacts"]) -> bool:
    """The prefilter also sees the names a file uses through other files (`V` from a module that
    does `from torch.autograd import Variable as V`)."""
    return project is not None and rule.applies_to(project.trigger_text())


def _compiles(text: str) -> bool:
    """CPython's own parser (C, far cheaper than LibCST's): is `text` plausibly valid Python 3?"""
    try:
        compile(text, "<gradlint>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def parse(text: str) -> tuple[Optional[cst.Module], tuple[str, Location]]:
    """(module, _) on success, (None, (reason, location)) when the text is not valid Python 3."""
    try:
        return cst.parse_module(text), ("", Location(1, 1))
    except cst.ParserSyntaxError as error:
        return None, _syntax_error(text, error)
    except RecursionError:
        return None, ("nesting too deep", Location(1, 1))
    except Exception as error:  # the native parser reports some failures as other types
        return None, (f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}", Location(1, 1))


def plan_edits(
    text: str, module: cst.Module, plan: FixPlan, path: str = "<fix>", statements: Sequence[cst.CSTNode] = ()
) -> Optional[Fix]:
    """Text edits for a fix plan over an already parsed module (used by the fixer's clean-ups).

    `statements`: the top-level statements the changes are in, so that positions are resolved
    there instead of over the whole module (which can be too deep to render)."""
    context = FileContext(path, text, module)
    for statement in statements:
        context.positions.lookup(statement, statement)
    return _EditBuilder(context, context.positions, LineIndex.of(text)).fix(plan)


def _syntax_error(text: str, error: cst.ParserSyntaxError) -> tuple[str, Location]:
    """Prefer CPython's wording ("Missing parentheses in call to 'print'...") when it agrees."""
    location = Location(max(error.raw_line, 1), error.raw_column + 1)
    try:
        compile(text, "<gradlint>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as python_error:
        reason = (python_error.msg or "invalid syntax").splitlines()[0]
        if python_error.lineno:
            location = Location(python_error.lineno, max(python_error.offset or 1, 1))
        return reason, location
    except (ValueError, RecursionError, MemoryError):
        pass
    reason = error.message.splitlines()[0] if error.message else "invalid syntax"
    return (reason if len(reason) <= 80 else reason[:77] + "..."), location


def _suppressed(finding: Finding, lines: Sequence[str]) -> bool:
    row = finding.noqa_row
    return 0 < row <= len(lines) and is_suppressed(finding.code, lines[row - 1])


_CODING_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=]")


def _decode_error(raw: bytes, reason: str) -> tuple[str, Location]:
    """Where CPython refuses undecodable bytes: at the first invalid byte (CPython's "on line N"),
    or at the coding cookie when it names an unknown encoding or contradicts a BOM."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as error:
        if not str(error).startswith("invalid or missing encoding declaration"):
            return reason, _cookie_location(raw)
        encoding = "utf-8"  # no cookie, and the first two lines are not UTF-8
    body = raw
    if encoding == "utf-8-sig":
        encoding, body = "utf-8", raw[len(codecs.BOM_UTF8):]
    try:
        body.decode(encoding)
    except UnicodeDecodeError as error:
        before = body[: error.start].decode(encoding, errors="replace")
        row, column = LineIndex.of(before).position(len(before))
        return f"invalid {encoding} byte 0x{body[error.start]:02x} on line {row}", Location(row, column)
    except LookupError:
        return reason, _cookie_location(raw)
    return reason, Location(1, 1)


def _cookie_location(raw: bytes) -> Location:
    for row, line in enumerate(raw.splitlines()[:2], start=1):
        if _CODING_COOKIE.match(line):
            return Location(row, 1)
    return Location(1, 1)


def _file_finding(code: str, message: str, path: str, location: Location) -> Finding:
    return Finding(code, message, path, location, location, None, location.row)


def _findings(context: FileContext, reports: list[Report]) -> list[Finding]:
    positions = context.positions
    converter = _EditBuilder(context, positions, LineIndex.of(context.text))
    findings = []
    seen = set()
    for report in reports:
        converter.hint = report.top
        span = positions.lookup(report.node, report.top)
        start = Location(span.start.line, span.start.column + 1)
        end = Location(span.end.line, span.end.column + 1)
        key = (report.rule.code, start, end, report.message)
        if key in seen:
            continue
        seen.add(key)
        fix = converter.fix(report.fix) if report.fix else None
        findings.append(Finding(report.rule.code, report.message, context.path, start, end, fix, start.row))
    return findings


class _EditBuilder:
    """Turns node-level fix plans into text edits once positions are known."""

    def __init__(self, context: FileContext, positions, index: LineIndex) -> None:
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
        return Fix(plan.applicability, plan.message, tuple(edits))

    def _edit(self, change) -> Optional[Edit]:
        if isinstance(change, Replace):
            start, end = self._span(change.node)
            content = change.replacement
            if not isinstance(content, str):
                if _wraps_parenthesized(content, change.node):
                    start, end = self._span_with_parentheses(change.node, start, end)
                content = self.context.code_for(content)
            return self._make(start, end, content)
        if isinstance(change, InsertLineBefore):
            row = self._position(change.statement).start.line
            indent = self._indent_if_alone(change.statement)
            if indent is None:
                return None
            offset = self.index.line_start(row)
            return self._make(offset, offset, indent + change.text + self.context.module.default_newline)
        if isinstance(change, ReplaceLines):
            if self._indent_if_alone(change.first) is None or self._indent_if_alone(change.last) is None:
                return None
            start = self.index.line_start(self._position(change.first).start.line)
            return self._make(start, self.index.line_end(self._position(change.last).end.line), change.text)
        if isinstance(change, RemoveLine):
            span = self._position(change.statement)
            if self._indent_if_alone(change.statement) is None:
                return None
            start = self.index.line_start(span.start.line)
            return self._make(start, self.index.line_end(span.end.line), "")
        raise TypeError(change)

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
        line_start = self.index.line_start(span.start.line)
        start, end = self._span(statement)
        before = text[line_start:start]
        after = text[end : self.index.line_end(span.end.line)].strip()
        if before.strip() or (after and not after.startswith("#")):
            return None
        return before

    def _make(self, start: int, end: int, content: str) -> Edit:
        return Edit(start, end, content, Location(*self.index.position(start)), Location(*self.index.position(end)))


def _wraps_parenthesized(replacement: cst.CSTNode, node: cst.CSTNode) -> bool:
    """`replacement` is `node.method(...)` or `node.attr` built around a node that has parentheses."""
    if not getattr(node, "lpar", None):
        return False
    func = replacement.func if isinstance(replacement, cst.Call) else replacement
    return isinstance(func, cst.Attribute) and func.value is node
