"""A file too large to parse whole, analysed in pieces within a memory budget.

LibCST needs several hundred bytes of memory per byte of source while it parses, so a file over
the budget is cut into pieces of whole top-level statements (a class, a function with its
decorators and the comments above it, an import, an assignment...), and each piece is analysed on
its own, with the normal engine, in a *reduced text*: the file with every line outside the piece
and outside its context emptied (its line ending kept). Rows and columns of the lines kept are
those of the file, so findings need no moving; only the offsets of fix edits are recomputed from
their rows and columns. A piece keeps the findings that start on its own rows; the `# noqa`
comments are judged once, on the whole file, from every piece's findings.

The context of a piece is what its facts can depend on: every import (and the module docstring),
the statements that bind a name the piece uses, the statements that use a name it binds, and,
transitively, what those use. Peak memory is then that of the largest piece with its context,
which the planner keeps within the budget.
"""

from __future__ import annotations

import ast
import dataclasses
import gc
import io
import re
import symtable
import tokenize
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Optional, Union

from gradlint.analysis.async_keywords import repair_async_keywords
from gradlint.analysis.evaluation import FUNCTIONAL_DROPOUTS, MODE_LAYER
from gradlint.engine import after_noqa, analyse_text, invalid_syntax_findings, past_prefilter, rules_for
from gradlint.files import describe_size
from gradlint.model import Edit, Finding, Fix, Location
from gradlint.noqa import NoqaLines
from gradlint.source import LineIndex, lines_with_ends

if TYPE_CHECKING:
    from gradlint.model.project import ProjectFacts

ParseFailure = Callable[[str], Optional[tuple[str, Location]]]

# What a piece's own statements may take of the budget; the rest is for their context. A quarter:
# a 10 MB generated file peaks at 0.9 GB in 512 KB pieces (1.3 GB in 1 MB pieces, 25 % faster).
OWN_SHARE = 0.25
# A piece of this many characters leaves enough garbage (a tree of tens of megabytes) to collect
# before the next is parsed; a collection costs tens of milliseconds, more than a small piece.
COLLECT_AFTER = 100_000


@dataclass(frozen=True)
class Statement:
    """One top-level statement: its rows (1-based, inclusive, with the comments and blank lines
    above it), its size in characters, the module-level names it binds and the names it uses."""

    first_row: int
    last_row: int
    size: int
    binds: frozenset[str]
    uses: frozenset[str]
    everywhere: bool  # an import or the module docstring: in the context of every piece
    evidence: frozenset[str] = frozenset()  # kinds of whole-file evidence it holds (see `_evidence`)
    code: str = ""  # an import's code without the comments above it: a repeated import says nothing new
    docstring: bool = False  # the module docstring


@dataclass
class Piece:
    own: list[int]  # indices of its consecutive statements
    context: list[int] = field(default_factory=list)
    cut: bool = False  # some of its context did not fit in the budget


@dataclass
class PiecesOutcome:
    findings: list[Finding] = field(default_factory=list)
    error: Optional[str] = None
    warning: Optional[str] = None


def analyse_in_pieces(
    text: str,
    path: str,
    codes: frozenset[str],
    *,
    budget: int,
    line_noqa: bool = True,
    project: Optional["ProjectFacts"] = None,
    piece_bytes: Optional[int] = None,
    parse_failure: Optional[ParseFailure] = None,
) -> PiecesOutcome:
    """The findings of `text` analysed piece by piece: each piece's reduced text is at most
    `budget` characters (its own statements at most `piece_bytes`, by default `OWN_SHARE` of the
    budget). A statement larger than the budget is not analysed; the warning says so, and says
    when a piece's context had to be cut. `parse_failure(source)`: why CPython refuses `source`,
    and where (None when it parses); each statement is parsed on its own first, and the first
    refused is GL001."""
    lines = lines_with_ends(text)
    statements = top_level_statements(text, lines)
    if statements is None:  # it does not tokenize: parsed whole, for CPython's own reason
        failure = parse_failure(text) if parse_failure is not None else None
        if failure is not None:
            return PiecesOutcome(invalid_syntax_findings(*failure, path, codes))
        return PiecesOutcome(warning="not analysed: the file could not be cut into statements")
    failure = _first_refused(lines, statements, parse_failure) if parse_failure is not None else None
    if failure is not None:
        return PiecesOutcome(invalid_syntax_findings(*failure, path, codes))
    repair = repair_async_keywords(text)  # the engine's prefilter reads `async=` as the rules see it
    rules = past_prefilter(rules_for(codes), repair.text if repair is not None else text, project)
    outcome = PiecesOutcome()
    too_large: list[Statement] = []
    cut = False
    # The prefilter has seen the whole file: each piece runs the rules that passed it.
    piece_codes = frozenset(rule.code for rule in rules)
    for piece in plan_pieces(statements, budget, piece_bytes or max(1, int(budget * OWN_SHARE))) if rules else []:
        if _size(statements, piece.own) > budget:
            too_large += [statements[number] for number in piece.own]
            continue
        cut = cut or piece.cut
        found = _piece_findings(lines, statements, piece, path, piece_codes, project, text)
        if isinstance(found, str):
            return PiecesOutcome(error=found)
        outcome.findings += found
    noqa_lines = NoqaLines(text)
    index = LineIndex.of(text)
    findings = [_in_file(finding, index, noqa_lines) for finding in outcome.findings]
    if line_noqa:
        findings = after_noqa(findings, noqa_lines, path, codes)
    return PiecesOutcome(sorted(findings, key=Finding.sort_key), warning=_warning(too_large, cut, budget))


def _piece_findings(
    lines: list[str],
    statements: list[Statement],
    piece: Piece,
    path: str,
    codes: frozenset[str],
    project: Optional["ProjectFacts"],
    text: str,
) -> Union[list[Finding], str]:
    """The findings that start on the piece's own rows, from its reduced text (before `# noqa`),
    or the analysis's internal error. `text`: the whole file's."""
    reduced = reduced_text(lines, statements, piece)
    outcome = analyse_text(reduced, path, codes, line_noqa=False, prefilter=False, project=project, file_text=text)
    if outcome.error is not None:
        return outcome.error
    first, last = statements[piece.own[0]].first_row, statements[piece.own[-1]].last_row
    found = [finding for finding in outcome.findings if first <= finding.location.row <= last]
    del outcome
    if _size(statements, piece.own + piece.context) >= COLLECT_AFTER:
        gc.collect()  # a large piece's tree and facts hold cycles: gone before the next piece is parsed
    return found


def refused_statement(text: str, compile_failure: ParseFailure) -> Optional[tuple[str, Location]]:
    """What CPython's compiler refuses in `text`, judged statement by statement (compiling a file
    of many megabytes whole takes gigabytes): the first statement it refuses on its own (`break`
    outside a loop), or a `from __future__` import after the file's beginning; None otherwise."""
    lines = lines_with_ends(text)
    statements = top_level_statements(text, lines)
    if statements is None:  # it does not tokenize: CPython says why
        return compile_failure(text)
    opening = True  # still among the docstring and the `__future__` imports that may open a file
    for number, statement in enumerate(statements):
        row = _first_code_row(lines, statement)
        future = lines[row - 1].startswith("from __future__ ")
        if future and not opening:
            return "from __future__ imports must occur at the beginning of the file", Location(row, 1)
        opening = opening and (future or (number == 0 and _is_docstring(statement, lines)))
    return _first_refused(lines, statements, compile_failure)


def _first_code_row(lines: list[str], statement: Statement) -> int:
    """The statement's own first row, past the comments and blank lines above it."""
    row = statement.first_row
    while row < statement.last_row and lines[row - 1].strip(" \t\f\r\n")[:1] in ("", "#"):
        row += 1
    return row


def _first_refused(lines: list[str], statements: list[Statement], parse_failure: ParseFailure) -> Optional[tuple[str, Location]]:
    """GL001's reason and location: the first statement CPython refuses on its own, unless it is
    refused only for `async=` keyword arguments, which the analysis reads (GL501)."""
    for statement in statements:
        source = "".join(lines[statement.first_row - 1 : statement.last_row])
        failure = parse_failure(source)
        if failure is None:
            continue
        repair = repair_async_keywords(source)
        if repair is not None and parse_failure(repair.text) is None:
            continue
        reason, location = failure
        return reason, Location(location.row + statement.first_row - 1, location.column)
    return None


def _warning(too_large: list[Statement], cut: bool, budget: int) -> Optional[str]:
    if too_large:
        first = too_large[0]
        where = f"lines {first.first_row}-{first.last_row}" if first.first_row != first.last_row else f"line {first.first_row}"
        more = f" and {len(too_large) - 1} more" if len(too_large) > 1 else ""
        size = describe_size(first.size)
        return (
            f"partly analysed: a statement of {size} ({where}{more}) is over the {describe_size(budget)} "
            "size limit (raise it with --max-file-size)"
        )
    if cut:
        return (
            f"analysed in pieces: the context of a piece was cut to the {describe_size(budget)} size limit; "
            "findings may differ from a whole-file analysis (raise it with --max-file-size)"
        )
    return None


def _in_file(finding: Finding, index: LineIndex, noqa_lines: NoqaLines) -> Finding:
    """A finding of a reduced text in the file: its rows and columns are the file's; its fix
    edits' offsets and the row of its `# noqa` are the file's own."""
    fix = finding.fix
    if fix is not None:
        edits = tuple(_edit_in_file(edit, index) for edit in fix.edits)
        fix = Fix(fix.applicability, fix.message, edits, fix.needs_torch)
    return dataclasses.replace(finding, fix=fix, noqa_row=noqa_lines.row_for(finding.location.row))


def _edit_in_file(edit: Edit, index: LineIndex) -> Edit:
    start = index.offset(edit.location.row, edit.location.column - 1)
    end = index.offset(edit.end_location.row, edit.end_location.column - 1)
    return Edit(start, end, edit.content, edit.location, edit.end_location)


# -- cutting the file into statements --------------------------------------------------------


def top_level_statements(text: str, lines: Optional[list[str]] = None) -> Optional[list[Statement]]:
    """The top-level statements of `text` in order, covering every row; None when it does not
    tokenize."""
    lines = lines_with_ends(text) if lines is None else lines
    spans = statement_rows(text, len(lines))
    return None if spans is None else statements_at(lines, spans)


def statements_at(
    lines: list[str], spans: list[tuple[int, int]], facts: Optional[dict[str, tuple]] = None, sources: Optional[list[str]] = None
) -> list[Statement]:
    """The statements of the given (first row, last row) spans. `facts`: what is known of each
    statement's source from earlier calls, by source (filled in here); `sources`: the spans'
    `statement_sources`, when the caller has them."""
    statements = []
    for (first, last), source in zip(spans, sources if sources is not None else statement_sources(lines, spans)):
        known = facts.get(source) if facts is not None else None
        if known is None:
            binds, uses, everywhere, evidence = _names(source)
            known = (binds, uses, everywhere, evidence, _code(source) if everywhere else "")
            if facts is not None:
                facts[source] = known
        statements.append(Statement(first, last, len(source), *known))
    if statements and _is_docstring(statements[0], lines):
        statements[0] = dataclasses.replace(statements[0], everywhere=True, docstring=True)
    return statements


def statement_sources(lines: list[str], spans: list[tuple[int, int]]) -> list[str]:
    """The text of each (first row, last row) span, its line endings kept."""
    return ["".join(lines[first - 1 : last]) for first, last in spans]


# Clauses that continue the compound statement above them (`try:` ... `except:`).
_CLAUSES = frozenset({"elif", "else", "except", "finally"})


def statement_rows(text: str, rows: int) -> Optional[list[tuple[int, int]]]:
    """(first row, last row) of each top-level statement. A statement starts on the row after the
    logical line before it ends, so the comments and blank lines above a statement are its own;
    decorators go with what they decorate, and `else:`, `except:`... with their statement."""
    tokens = statement_starts(text)
    if tokens is None:
        return None
    starts = tokens.starts
    if not starts:
        return [(1, rows)] if rows else []
    starts[0] = 1
    ends = [start - 1 for start in starts[1:]] + [rows]
    return list(zip(starts, ends))


@dataclass
class Starts:
    """What tokenizing a text tells of its top-level statements."""

    starts: list[int]  # the first row of each (its comments above it included)
    opening: Optional[tokenize.TokenInfo]  # the first token of code
    decorating: bool  # the text ends with a decorator still waiting for what it decorates

    @property
    def whole_statements(self) -> bool:
        """The text is whole top-level statements, as it would be in any file after a statement:
        it holds code, which starts unindented and not with a clause (`else:`), and it does not
        end with a lone decorator."""
        opening = self.opening
        return (
            bool(self.starts) and opening is not None and opening.start[1] == 0 and opening.string not in _CLAUSES and not self.decorating
        )


def statement_starts(text: str) -> Optional[Starts]:
    """Where the top-level statements of `text` start; None when it does not tokenize."""
    starts: list[int] = []
    opening = None
    depth, line_start, after_newline, decorating = 0, True, 0, False
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):  # rows end at \r too
            kind = token.type
            if kind == tokenize.INDENT:
                depth += 1
            elif kind == tokenize.DEDENT:
                depth -= 1
            elif kind == tokenize.NEWLINE:
                line_start, after_newline = True, token.start[0]
            elif kind in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER):
                continue
            elif line_start:
                line_start = False
                opening = opening or token
                if depth == 0:
                    if not decorating and token.string not in _CLAUSES:
                        starts.append(after_newline + 1)
                    decorating = token.string == "@"
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return Starts(starts, opening, decorating)


def _code(source: str) -> str:
    return "".join(line.strip() for line in source.splitlines() if line.strip() and not line.lstrip().startswith("#"))


_IDENTIFIER = re.compile(r"[^\W\d]\w*")


def _names(source: str) -> tuple[frozenset[str], frozenset[str], bool, frozenset[str]]:
    """(names bound at module level, names used, an import, kinds of whole-file evidence) of one
    statement's source."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # CPython compiled the whole file, so this is text it reads differently on its own
        # (`x.cuda(async=True)`): every identifier counts as both bound and used.
        every = frozenset(_IDENTIFIER.findall(source))
        return every, every, "import" in every, frozenset(_EVIDENCE)
    bound: set[str] = set()
    used: set[str] = set()
    everywhere = False
    for statement in tree.body:
        everywhere = everywhere or _imports(statement)
        _module_bindings(statement, bound)
    evidence: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Store):  # a binding alone depends on no other
                used.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            used.add(node.target.id)
        elif isinstance(node, ast.Global):
            bound.update(node.names)
        elif isinstance(node, ast.Call):
            evidence.update(_evidence(node))
    return frozenset(bound), frozenset(used & _module_level_names(source, used)), everywhere, frozenset(evidence)


def _module_level_names(source: str, used: set[str]) -> set[str]:
    """The names of `used` that can mean a module-level name: all but those every function of
    the statement that mentions them holds as its own (a parameter, a local, a comprehension's
    variable)."""
    try:
        table = symtable.symtable(source, "<statement>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return used
    names: set[str] = set()
    pending = [table]
    while pending:
        scope = pending.pop()
        function = scope.get_type() == "function"
        # Outside functions every name counts (a class body reads a module-level name it also assigns).
        names.update(symbol.get_name() for symbol in scope.get_symbols() if not function or symbol.is_global())
        pending.extend(scope.get_children())
    return names


# Facts the analysis takes from anywhere in a file, whatever the names: "the file switches a model
# to evaluation mode", "builds a dropout or batch-norm layer", "registers a hook", "changes the
# default dtype or device". The first statement with each kind of call goes into every piece's
# context (the first, as a message may name it).
_EVIDENCE = {
    "mode switch": re.compile(r"^(?:eval|train)$"),
    "mode layer": re.compile(rf"{MODE_LAYER.pattern}|^(?:{'|'.join(sorted(FUNCTIONAL_DROPOUTS))})$|^(?:models|timm|torchvision)$"),
    "hook": re.compile(r"^register_\w*hook$|^compile$"),
    "defaults": re.compile(r"^set_default_"),
}


def _evidence(call: ast.Call) -> Iterable[str]:
    names = []
    func = call.func
    while isinstance(func, ast.Attribute):
        names.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        names.append(func.id)
    return [kind for kind, pattern in _EVIDENCE.items() if any(pattern.match(name) for name in names)]


def _imports(statement: ast.stmt) -> bool:
    """An import, or a block at module level holding one (`try: import apex`)."""
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    return any(_imports(child) for child in _child_statements(statement))


def _child_statements(statement: ast.stmt) -> Iterable[ast.stmt]:
    for name in ("body", "orelse", "finalbody"):
        yield from getattr(statement, name, [])
    for handler in getattr(statement, "handlers", []):
        yield from handler.body
    for case in getattr(statement, "cases", []):
        yield from case.body


def _module_bindings(statement: ast.stmt, bound: set[str]) -> None:
    """The names `statement` binds in the module's namespace (a target's base name too: `model.fc
    = ...` changes what `model` is)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        bound.add(statement.name)
        return
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        for alias in statement.names:
            bound.add((alias.asname or alias.name).split(".")[0])
        return
    targets: list[ast.AST] = []
    if isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        targets = [statement.target]
    elif isinstance(statement, (ast.For, ast.AsyncFor)):
        targets = [statement.target]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in statement.items if item.optional_vars is not None]
    elif isinstance(statement, ast.Delete):
        targets = list(statement.targets)
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and isinstance(statement.value.func, ast.Attribute):
        targets = [statement.value.func.value]  # a method may change its receiver: `model.cuda()`
    for target in targets:
        bound.update(_base_names(target))
    for node in ast.walk(statement):
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            bound.add(node.target.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    for child in _child_statements(statement):
        _module_bindings(child, bound)


def _base_names(target: ast.AST) -> set[str]:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_base_names(element) for element in target.elts)) if target.elts else set()
    if isinstance(target, ast.Starred):
        return _base_names(target.value)
    if isinstance(target, (ast.Attribute, ast.Subscript)):
        return _base_names(target.value)
    if isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute):
        return _base_names(target.func.value)
    return set()


def _is_docstring(statement: Statement, lines: list[str]) -> bool:
    try:
        tree = ast.parse("".join(lines[statement.first_row - 1 : statement.last_row]))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    first = tree.body[0] if tree.body else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)


# -- planning pieces and their context -------------------------------------------------------


def plan_pieces(statements: list[Statement], budget: int, piece_bytes: int) -> list[Piece]:
    """Consecutive statements grouped up to `piece_bytes`, each group with its context within
    `budget` (a statement over the budget is a piece of its own, without context)."""
    binders: dict[str, list[int]] = {}
    users: dict[str, list[int]] = {}
    for number, statement in enumerate(statements):
        for name in statement.binds:
            binders.setdefault(name, []).append(number)
        for name in statement.uses:
            users.setdefault(name, []).append(number)
    everywhere: set[int] = set()
    imported: set[str] = set()
    for number, statement in enumerate(statements):
        if statement.everywhere and statement.code not in imported:
            everywhere.add(number)
            imported.add(statement.code)  # the same import again (one per vendored module): its first is enough
    for kind in _EVIDENCE:
        first = next((number for number, statement in enumerate(statements) if kind in statement.evidence), None)
        if first is not None:
            everywhere.add(first)
    pieces: list[Piece] = []
    for own in _groups(statements, piece_bytes):
        piece = Piece(own)
        if _size(statements, own) <= budget:
            piece.context, piece.cut = _context(statements, own, everywhere, binders, users, budget)
        pieces.append(piece)
    return pieces


def _groups(statements: list[Statement], piece_bytes: int) -> list[list[int]]:
    groups: list[list[int]] = []
    size = 0
    for number, statement in enumerate(statements):
        if groups and size + statement.size <= piece_bytes:
            groups[-1].append(number)
            size += statement.size
        else:
            groups.append([number])
            size = statement.size
    return groups


def _context(
    statements: list[Statement],
    own: list[int],
    everywhere: Iterable[int],
    binders: dict[str, list[int]],
    users: dict[str, list[int]],
    budget: int,
) -> tuple[list[int], bool]:
    """The statements outside `own` that its facts can depend on, the closest links first, as many
    as fit in the budget."""
    chosen = set(own)
    context: list[int] = []
    taken: set[int] = set()
    room = budget - _size(statements, own)
    cut = False

    def take(number: int) -> bool:
        nonlocal room, cut
        if number in chosen:
            return False
        chosen.add(number)
        if statements[number].size > room:
            cut = True
            return False
        room -= statements[number].size
        context.append(number)
        taken.add(number)
        return True

    # Forward: what the piece binds flows into its users, and on into theirs (a fix may wrap all of
    # them); backward: what the piece and those users read, from the statements that bind it.
    waiting: deque[tuple[int, bool]] = deque()
    forward: set[int] = set()
    for number in sorted(everywhere):
        if take(number):
            waiting.append((number, False))
    for number in own:
        waiting.append((number, not statements[number].everywhere))  # an import's users are the whole file
    # A name's users (binders) are followed once: following them again adds nothing.
    followed_forward: set[str] = set()
    followed_back: set[str] = set()
    while waiting:
        number, onward = waiting.popleft()
        statement = statements[number]
        if onward and number not in forward:
            forward.add(number)
            for name in statement.binds - followed_forward:
                followed_forward.add(name)
                for user in users.get(name, ()):
                    if take(user) or (user in taken and user not in forward):
                        waiting.append((user, True))
        for name in statement.uses - followed_back:
            followed_back.add(name)
            for binder in binders.get(name, ()):
                if not statements[binder].everywhere and take(binder):  # the imports are in already
                    waiting.append((binder, False))
    return sorted(context), cut


def _size(statements: list[Statement], numbers: Iterable[int]) -> int:
    return sum(statements[number].size for number in numbers)


def reduced_text(lines: list[str], statements: list[Statement], piece: Piece) -> str:
    """The file with only the rows of the piece and of its context: every other line emptied,
    its line ending kept, so that every row keeps its number and every kept line its columns."""
    kept = sorted(piece.own + piece.context)
    parts: list[str] = []
    row = 1
    for number in kept:
        statement = statements[number]
        _empty_lines(lines[row - 1 : statement.first_row - 1], parts)
        parts += lines[statement.first_row - 1 : statement.last_row]
        row = statement.last_row + 1
    _empty_lines(lines[row - 1 :], parts)
    return "".join(parts)


def _empty_lines(lines: list[str], parts: list[str]) -> None:
    for line in lines:
        ending = "\r\n" if line.endswith("\r\n") else line[-1] if line[-1:] in ("\r", "\n") else ""
        if ending[:1] == "\n" and parts and parts[-1].endswith("\r"):
            ending = " " + ending  # not `\r` then `\n`: one line break, one row less
        parts.append(ending)


def statement_of(starts: list[int], row: int) -> int:
    """The number of the statement holding `row`, given each statement's first row."""
    return max(bisect_right(starts, row) - 1, 0)


def respanned(old: list[str], spans: list[tuple[int, int]], lines: list[str]) -> Optional[list[tuple[int, int]]]:
    """The statement rows of `lines` from the rows `spans` of an earlier version `old`: the
    statements around the changed lines keep their bounds (moved), the ones they touch are
    tokenized again. None when that cannot be decided from the changed lines alone (they leave a
    bracket or a string open, start indented or with `else:`, end with a lone decorator...)."""
    if not spans:
        return None
    prefix, suffix = common_ends(old, lines)
    if prefix == len(old) == len(lines):
        return list(spans)
    starts = [first for first, _ in spans]
    # The statements from the one holding the line above the change to the one holding the line
    # below it: a change at a statement's edge may join it to its neighbour.
    first = statement_of(starts, max(prefix, 1))
    last_number = statement_of(starts, min(len(old) - suffix + 1, len(old)))
    shift = len(lines) - len(old)
    top, bottom = spans[first][0], spans[last_number][1] + shift
    if bottom < top:
        return None
    region = "".join(lines[top - 1 : bottom])
    found = statement_starts(region)
    if found is None or not found.whole_statements:
        return None
    rows = bottom - top + 1
    found.starts[0] = 1
    middle = [(start + top - 1, end + top - 1) for start, end in zip(found.starts, [s - 1 for s in found.starts[1:]] + [rows])]
    return [*spans[:first], *middle, *((a + shift, b + shift) for a, b in spans[last_number + 1 :])]


def common_ends(old: list[str], new: list[str]) -> tuple[int, int]:
    """How many lines `new` starts with as `old` does, and how many of the rest it ends with."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return prefix, suffix


def statement_spans(
    text: str, lines: list[str], earlier: Optional[tuple[list[str], list[tuple[int, int]]]] = None
) -> Optional[list[tuple[int, int]]]:
    """The (first row, last row) of each top-level statement of `text` (its `lines`): from the
    `earlier` version's (lines, spans) where that can decide them, else by tokenizing the text;
    None when it does not tokenize."""
    spans = respanned(*earlier, lines) if earlier is not None else None
    return spans if spans is not None else statement_rows(text, len(lines))
