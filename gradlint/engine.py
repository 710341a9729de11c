"""Lint one file: decode, prefilter, parse once, run every selected rule in one traversal."""

from __future__ import annotations

import ast
import codecs
import dataclasses
import io
import re
import tokenize
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Iterable, Optional

import libcst as cst

from gradlint.analysis.async_keywords import AsyncKeywordRepair, repair_async_keywords
from gradlint.analysis.tree import children_remembered
from gradlint.chain_rendering import install as render_chains_without_recursion
from gradlint.context import FileContext
from gradlint.fix.edits import EditBuilder
from gradlint.fix.torch_code import outside_torch
from gradlint.messages import snippet
from gradlint.model import Edit, FileResult, Finding, Fix, Location, Report
from gradlint.noqa import NoqaLines, file_is_exempt, file_noqa_codes, suppresses, without_suppressed
from gradlint.parse_trust import unvalidated
from gradlint.rules import all_codes, noqa_rule_infos, noqa_rules, rule_by_code, rule_for_failure, rule_infos
from gradlint.rules.file_rule import FileFailure
from gradlint.rules.info import RuleInfo
from gradlint.source import LineIndex, UndecodableSource, decode_source, lines_with_ends, page_break_prefix
from gradlint.walker import walk

if TYPE_CHECKING:
    from gradlint.model.project import ProjectFacts

# Trees parsed here may hold `and` chains of any length: rendering them must not recurse per operand.
render_chains_without_recursion()


@dataclass
class LintOutcome:
    findings: list[Finding] = field(default_factory=list)
    module: Optional[cst.Module] = None
    error: Optional[str] = None


def rules_for(codes: Iterable[str]) -> list[RuleInfo]:
    """The selected rules that visit nodes (file rules that only report a failure visit nothing),
    as the catalog describes them: a rule's module is imported only for a file that gets past its
    prefilter."""
    wanted = set(codes)
    return [rule for rule in _visiting_rules() if rule.code in wanted]


@lru_cache(maxsize=None)
def _visiting_rules() -> tuple[RuleInfo, ...]:
    return tuple(rule for rule in rule_infos() if rule.visits)


def lint_bytes(raw: bytes, path: str, codes: frozenset[str], project: Optional["ProjectFacts"] = None) -> FileResult:
    try:
        text, _ = decode_source(raw)
    except UndecodableSource as error:
        return FileResult(path, undecodable_findings(raw, str(error), path, codes))
    outcome = lint_text(text, path, codes, project=project)
    return FileResult(path, outcome.findings, outcome.error)


def undecodable_findings(raw: bytes, reason: str, path: str, codes: frozenset[str]) -> list[Finding]:
    """The finding for bytes that are not text in their declared encoding, if its rule is selected."""
    rule = rule_for_failure(FileFailure.UNDECODABLE)
    if rule.code not in codes:
        return []
    message, location = _decode_error(raw, reason)
    return [rule.finding(message, path, location)]


def invalid_syntax_findings(reason: str, location: Location, path: str, codes: frozenset[str]) -> list[Finding]:
    """The finding for text that is not valid Python 3, if its rule is selected."""
    rule = rule_for_failure(FileFailure.INVALID_SYNTAX)
    return [rule.finding(reason, path, location)] if rule.code in codes else []


def lint_text(
    text: str,
    path: str,
    codes: frozenset[str],
    *,
    respect_noqa: bool = True,
    module: Optional[cst.Module] = None,
    prefilter: bool = True,
    project: Optional["ProjectFacts"] = None,
    analyse: Optional[Callable[..., LintOutcome]] = None,
) -> LintOutcome:
    """Findings for `text`. Pass `module` when the caller has already parsed `text`, and `project`
    for what the file brings in from the other files of its run. `analyse`: what analyses the text
    in place of `analyse_text` (an incremental analysis, which needs no tree)."""
    if respect_noqa and file_is_exempt(text):
        return LintOutcome()
    if respect_noqa:
        codes = without_suppressed(codes, file_noqa_codes(text))
    if analyse is not None:
        return analyse(text, path, codes, line_noqa=respect_noqa, project=project)
    return analyse_text(text, path, codes, line_noqa=respect_noqa, module=module, prefilter=prefilter, project=project)


def analyse_text(
    text: str,
    path: str,
    codes: frozenset[str],
    *,
    line_noqa: bool = True,
    module: Optional[cst.Module] = None,
    prefilter: bool = True,
    project: Optional["ProjectFacts"] = None,
    file_text: Optional[str] = None,
) -> LintOutcome:
    """Prefilter, parse, run the rules, drop what `# noqa` comments suppress (`line_noqa`).
    The whole-file `# gradlint: noqa` is the caller's to check. `file_text`: the whole file, when
    `text` holds only some of its statements (what rules ask of the file anywhere is asked of it)."""
    selected = rules_for(codes)
    # `x.cuda(async=True)` cannot be parsed since Python 3.7: the rules see the repaired text,
    # and their findings are moved back to the text as written.
    repair = repair_async_keywords(text)
    source = repair.text if repair is not None else text
    rules = past_prefilter(selected, source, project) if prefilter else selected
    if selected and not rules and (rule_for_failure(FileFailure.INVALID_SYNTAX).code not in codes or _compiles(source)):
        # prefilter: nothing here any selected rule could match; the noqa comments may still be judged
        return LintOutcome(after_noqa([], NoqaLines(text), path, codes) if line_noqa and _judges_noqa(text, codes) else [])
    if module is None:
        module, parse_error = _parse(source)
        if module is None:
            reason, location = parse_error
            if repair is not None:
                location = _AsWritten(repair).location(location)
            return LintOutcome(invalid_syntax_findings(reason, location, path, codes))
    context = FileContext(path, text, module, project, file_text)
    noqa_lines = NoqaLines(text)
    try:
        classes = [rule_by_code(rule.code) for rule in rules]
        with children_remembered():
            walk(context, [rule(context) for rule in classes])
            python_only = frozenset(rule.code for rule in classes if not rule.rewrites_torch)
            findings = _findings(context, context.reports, noqa_lines, python_only) if context.reports else []
    except RecursionError:
        return LintOutcome(module=module, error="internal error: nesting too deep to analyse")
    except Exception as error:  # a rule bug must not stop the run
        return LintOutcome(module=module, error=f"internal error: {type(error).__name__}: {error}")
    if repair is not None:
        as_written = _AsWritten(repair)
        findings = [as_written.finding(finding) for finding in findings]
    if line_noqa:
        findings = after_noqa(findings, noqa_lines, path, codes)
    # The tree goes back to the caller only when it is the tree of `text` itself, not of a repair.
    return LintOutcome(sorted(findings, key=Finding.sort_key), module if repair is None else None)


def past_prefilter(selected: list[RuleInfo], source: str, project: Optional["ProjectFacts"] = None) -> list[RuleInfo]:
    """The rules of `selected` that could match `source`: their triggers appear in it or, since the
    prefilter also sees the names a file uses through other files (`V` from a module that does
    `from torch.autograd import Variable as V`), in those names."""
    borrowed = project.trigger_text() if project is not None else ""
    text = f"{source}\n{borrowed}" if borrowed else source  # a rule may need strings of both
    return [rule for rule in selected if rule.applies_to(text)]


def _judges_noqa(text: str, codes: frozenset[str]) -> bool:
    return any(rule.code in codes and rule.applies_to(text) for rule in noqa_rule_infos())


def after_noqa(findings: list[Finding], lines: NoqaLines, path: str, codes: frozenset[str]) -> list[Finding]:
    """The findings no `# noqa` suppresses, and what the rules about `# noqa` comments say,
    judged from every finding before suppression."""
    kept = [finding for finding in findings if not suppresses(lines.codes_at(finding.noqa_row), finding.code)]
    if _judges_noqa(lines.text, codes):
        known = frozenset(all_codes())
        for rule in noqa_rules():
            if rule.code in codes and rule.applies_to(lines.text):
                kept += rule.judge(lines, findings, codes, known, path)
    return kept


class _AsWritten:
    """Positions in a repaired text moved back to the text as written (rows never move)."""

    def __init__(self, repair: AsyncKeywordRepair) -> None:
        self.repair = repair
        self.repaired_lines = LineIndex.of(repair.text)
        self.original_lines = LineIndex.of(repair.original)

    def offset(self, offset: int) -> int:
        return self.repair.original_offset(offset)

    def location(self, location: Location) -> Location:
        offset = self.repaired_lines.offset(location.row, location.column - 1)
        return Location(*self.original_lines.position(self.offset(offset)))

    def finding(self, finding: Finding) -> Finding:
        fix = finding.fix
        if fix is not None:
            fix = Fix(fix.applicability, fix.message, tuple(self._edit(edit) for edit in fix.edits), fix.needs_torch)
        return dataclasses.replace(
            finding, location=self.location(finding.location), end_location=self.location(finding.end_location), fix=fix
        )

    def _edit(self, edit: Edit) -> Edit:
        start, end = self.offset(edit.start), self.offset(edit.end)
        return Edit(start, end, edit.content, Location(*self.original_lines.position(start)), Location(*self.original_lines.position(end)))


def _compiles(text: str) -> bool:
    """CPython's own parser (C, far cheaper than LibCST's): is `text` plausibly valid Python 3?"""
    try:
        compile(text, "<gradlint>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def parse(text: str) -> tuple[Optional[cst.Module], tuple[str, Location]]:
    """(module, _) on success, (None, (reason, location)) when the text is not valid Python 3.
    The module is that of the repaired text when the text has `async=` keyword arguments."""
    repair = repair_async_keywords(text)
    if repair is None:
        return _parse(text)
    module, (reason, location) = _parse(repair.text)
    return module, (reason, location if module is not None else _AsWritten(repair).location(location))


def _parse(text: str) -> tuple[Optional[cst.Module], tuple[str, Location]]:
    try:
        with unvalidated():
            module = cst.parse_module(_form_feeds_out_of_indentation(text) if "\f" in text else text)
        return module, ("", Location(1, 1))
    except cst.ParserSyntaxError as error:
        return None, _syntax_error(text, error)
    except RecursionError:
        return None, ("nesting too deep", Location(1, 1))
    except Exception as error:  # the native parser reports some failures as other types
        return None, (f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}", Location(1, 1))


def _form_feeds_out_of_indentation(text: str) -> str:
    """`text` without the whitespace up to a form feed that opens a line of code. CPython starts
    measuring the indentation again after it; LibCST leaves it out of a statement, takes it for the
    indentation of a block that starts with it, and then rejects valid dedents. The text parsed
    differs from the one written by whitespace at line starts only, which positions account for.
    Lines inside a string keep theirs (it is the string's), and so do blank and comment lines,
    which LibCST keeps as written."""
    lines = lines_with_ends(text)
    inside = _rows_inside_strings(text)
    if inside is None:
        return text
    for row, line in enumerate(lines, start=1):
        if row not in inside and line.strip(" \t\f\r\n")[:1] not in ("", "#"):
            lines[row - 1] = line[page_break_prefix(line) :]
    return "".join(lines)


def _rows_inside_strings(text: str) -> Optional[set[int]]:
    """The rows that continue a string begun on an earlier row (None: the text does not tokenize)."""
    rows: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):  # rows end at \r too
            if token.start[0] < token.end[0] and token.type not in (tokenize.NEWLINE, tokenize.NL):
                rows.update(range(token.start[0] + 1, token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return rows


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
    else:
        # CPython reads it: a limit of LibCST's parser (thousands of implicitly joined strings).
        return f"valid Python that LibCST's parser cannot read ({snippet(_libcst_reason(error), 60)})", location
    return snippet(_libcst_reason(error), 80), location


def _libcst_reason(error: cst.ParserSyntaxError) -> str:
    return error.message.splitlines()[0] if error.message else "invalid syntax"


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
        encoding, body = "utf-8", raw[len(codecs.BOM_UTF8) :]
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


# A finding on a compound statement covers its header only (`for x in loader:`), as a reader and
# an editor expect, not the whole body: the anchor is the header's last expression.
_HEADER_ANCHORS = {
    cst.For: lambda node: node.iter,
    cst.While: lambda node: node.test,
    cst.If: lambda node: node.test,
    cst.With: lambda node: node.items[-1],
}


def _header_end(node: cst.CSTNode, converter: EditBuilder, lines: LineIndex) -> Optional[Location]:
    """Where the header of a compound statement ends (just past its colon); for a `def` or
    `class`, the end of its name. None for other nodes, or when the text does not show it."""
    kind = type(node)
    if kind is cst.FunctionDef or kind is cst.ClassDef:
        span = converter.positions.lookup(node.name, converter.hint)
        return Location(span.end.line, span.end.column + 1)
    anchor = _HEADER_ANCHORS.get(kind)
    if anchor is None:
        return None
    span = converter.positions.lookup(anchor(node), converter.hint)
    text = converter.context.text
    offset = lines.offset(span.end.line, span.end.column)
    while offset < len(text) and text[offset] in " \t)\\\r\n":  # closing parentheses, continuations
        offset += 1
    if offset >= len(text) or text[offset] != ":":
        return None
    return Location(*lines.position(offset + 1))


def _findings(
    context: FileContext, reports: list[Report], noqa_lines: NoqaLines, python_only: frozenset[str] = frozenset()
) -> list[Finding]:
    """The reports as findings; outside torch code (`context.uses_torch`) the fixes of rules that
    rewrite torch code (all but `python_only`) are unsafe."""
    positions = context.positions
    # Positions are in the text the module was parsed from (repaired `async=` keywords included);
    # rows are the same in the text as written, where noqa comments are read.
    lines = noqa_lines.index if context.text is noqa_lines.text else LineIndex.of(context.text)
    converter = EditBuilder(context, positions, lines)
    findings = []
    seen = set()
    for report in reports:
        # Reported outside the traversal (a whole-file rule): find the statement holding the node.
        converter.hint = report.top if report.top is not None else context.placement_of(report.node)
        span = positions.lookup(report.node, converter.hint)
        start = Location(span.start.line, span.start.column + 1)
        end = _header_end(report.node, converter, lines) or Location(span.end.line, span.end.column + 1)
        key = (report.code, start, end, report.message)
        if key in seen:
            continue
        seen.add(key)
        plan = report.fix
        if plan is not None and report.code not in python_only and not context.uses_torch:
            plan = outside_torch(plan)
        fix = converter.fix(plan) if plan else None
        findings.append(Finding(report.code, report.message, context.path, start, end, fix, noqa_lines.row_for(start.row)))
    return findings
