"""One file, from its bytes (or text) to its findings or its fixed source.

Every front end (the CLI's files and stdin, the language server, the flake8 plugin) goes through
`check_source` or `fix_source`, so every guard runs once, in one order: decode, whole-file
`# gradlint: noqa`, size limit, CPython's compile check (where a scan cannot rule out its nesting
limits), then prefilter, parse, analysis on the deep stack, and `# noqa` filtering.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Optional, Union

from gradlint.analysis.async_keywords import repair_async_keywords
from gradlint.deepstack import run_deep
from gradlint.engine import LintOutcome, analyse_text, invalid_syntax_findings, parse, rules_for, undecodable_findings
from gradlint.files import MAX_FILE_BYTES, describe_size
from gradlint.fix.apply import FixGuard, PieceAnalysis, fix_text
from gradlint.model import FileResult, Finding, Location
from gradlint.model.migration import AppliedChange, ChangedLines
from gradlint.nesting import may_exceed_nesting_limits
from gradlint.noqa import add_noqa, file_is_exempt, file_noqa_codes, malformed_suppressions, without_suppressed
from gradlint.notebook import EditGuard, Notebook, NotebookError, is_notebook, read_notebook
from gradlint.pieces import analyse_in_pieces, refused_statement
from gradlint.rules import file_rule_codes
from gradlint.source import UndecodableSource, decode_source, dominant_newline, encode_source

if TYPE_CHECKING:
    from gradlint.fix.memory import FixMemory
    from gradlint.model.project import ProjectFacts

Source = Union[bytes, str]  # a file's bytes, or text already decoded (an editor buffer, flake8's lines)
# analyse(text, path, codes, line_noqa=..., project=...): `engine.analyse_text`, or what gives its findings
Analyse = Callable[..., LintOutcome]

PYTHON_RECURSION_LIMIT = 1_000  # CPython's default: what `python file.py` compiles with
# CPython's own nesting limits: a file over them does not compile, so it is reported as GL001
# without handing it to LibCST, which can take seconds and gigabytes on such input.
_PYTHON_NESTING_LIMITS = ("too many nested parentheses", "too many levels of indentation", "too many statically nested blocks")


@dataclass
class SourceResult(FileResult):
    """What one file produced. `error` and `warning` are one-line reasons (an error means the file
    could not be checked or fixed; a warning does not change the exit code)."""

    warning: Optional[str] = None
    fixed: Optional[Source] = None  # fix_source: the fixed source (the input itself when unchanged); None when not fixed
    applied: int = 0  # fix_source: how many fixes were applied
    cacheable: bool = True  # False when the outcome depends on the size limit rather than on the source
    removed_imports: frozenset[str] = frozenset()  # fix_source: names whose now unused imports were dropped
    changes: list[AppliedChange] = field(default_factory=list)  # fix_source with `record_changes`: each change made


@dataclass(frozen=True)
class _Decoded:
    text: str
    encoding: Optional[str]  # None when the source was given as text
    size: int  # in bytes
    exempt: bool = False  # `# gradlint: noqa`: nothing to report, nothing to fix
    suppressed: frozenset[str] = frozenset()  # `# gradlint: noqa: GL101, GL3`: codes off for the file
    pieces: bool = False  # over the size limit: to be analysed in pieces


def check_source(
    source: Source,
    name: str,
    codes: frozenset[str],
    *,
    max_bytes: int = MAX_FILE_BYTES,
    own_noqa: bool = True,
    respect_noqa: bool = True,
    project: Optional["ProjectFacts"] = None,
    analyse: Optional[Analyse] = None,
) -> SourceResult:
    """Findings for one file (a Jupyter notebook's in its cells). Never raises: a failure is a
    one-line internal error.

    `own_noqa`: drop findings suppressed by `# noqa` comments (False where the host, flake8,
    handles them; the whole-file `# gradlint: noqa` is honoured either way). `respect_noqa`:
    False ignores every noqa comment, line and whole-file (`--ignore-noqa`). `project`: what the
    file uses from the other files of its run (None: the file alone). `analyse`: how a text within
    the size limit is analysed, if not by `engine.analyse_text` (an editor's document:
    `incremental.IncrementalAnalysis`)."""
    if is_notebook(name):
        return _in_notebook(source, name, lambda code: _check_python(code, name, codes, max_bytes, own_noqa, respect_noqa, project))
    return _check_python(source, name, codes, max_bytes, own_noqa, respect_noqa, project, analyse)


def _check_python(
    source: Source,
    name: str,
    codes: frozenset[str],
    max_bytes: int,
    own_noqa: bool,
    respect_noqa: bool,
    project: Optional["ProjectFacts"],
    analyse: Optional[Analyse] = None,
) -> SourceResult:
    try:
        decoded, early = _guards(source, name, codes, max_bytes, respect_noqa, in_pieces=True)
        if early is not None:
            return early
        selected = without_suppressed(codes, decoded.suppressed)
        line_noqa = own_noqa and respect_noqa
        if decoded.pieces:
            return _check_in_pieces(decoded, name, selected, max_bytes, line_noqa, project)
        analysing = analyse if analyse is not None else analyse_text
        outcome = run_deep(lambda: analysing(decoded.text, name, selected, line_noqa=line_noqa, project=project))
        refused = _refused_by_cpython(decoded.text, name, codes) if _analysed_with_findings(outcome.findings) else None
        if refused is not None:
            return SourceResult(name, refused)
        return SourceResult(name, outcome.findings, outcome.error, warning=_suppression_warning(decoded.text))
    except Exception as error:
        return SourceResult(name, error=describe_internal_error(error))


def _check_in_pieces(
    decoded: _Decoded, name: str, codes: frozenset[str], max_bytes: int, line_noqa: bool, project: Optional["ProjectFacts"]
) -> SourceResult:
    """A file over the size limit, analysed piece by piece, each piece within the limit. Not
    cached: what is analysed depends on the limit."""
    outcome = run_deep(
        lambda: analyse_in_pieces(
            decoded.text, name, codes, budget=max_bytes, parse_failure=_python_parse_failure, line_noqa=line_noqa, project=project
        )
    )
    if _analysed_with_findings(outcome.findings):
        refused = _refused_by_cpython(decoded.text, name, codes, statement_by_statement=True)
        if refused is not None:
            return SourceResult(name, refused, cacheable=False)
    warnings_ = [warning for warning in (outcome.warning, _suppression_warning(decoded.text)) if warning]
    return SourceResult(name, outcome.findings, outcome.error, warning="; ".join(warnings_) or None, cacheable=False)


def _piece_analysis(
    name: str, codes: frozenset[str], max_bytes: int, respect_noqa: bool, project: Optional["ProjectFacts"]
) -> PieceAnalysis:
    """A file over the size limit, fixed piece by piece: analysed as `check` does, and each round's
    text compiled statement by statement in place of LibCST's parse of the whole."""

    def analyse(text: str) -> LintOutcome:
        outcome = analyse_in_pieces(
            text, name, codes, budget=max_bytes, parse_failure=_python_parse_failure, line_noqa=respect_noqa, project=project
        )
        return LintOutcome(outcome.findings, error=outcome.error)

    return PieceAnalysis(analyse, lambda text: refused_statement(text, _python_compile_failure) is None)


def fix_source(
    source: Source,
    name: str,
    codes: frozenset[str],
    *,
    unsafe: bool = False,
    max_bytes: int = MAX_FILE_BYTES,
    respect_noqa: bool = True,
    project: Optional["ProjectFacts"] = None,
    record_changes: bool = False,
    target_torch: Optional[str] = None,
    fixable: Optional[frozenset[str]] = None,
    memory: Optional["FixMemory"] = None,
) -> SourceResult:
    """The fixed source in `fixed` (same type, encoding, BOM, line endings and final newline as
    `source`; `source` itself when nothing changed), or None when it could not be fixed, with
    what remains in `findings`. A notebook's fixes are written into its cells. Never raises:
    failures are one-line errors, the file unchanged. `record_changes`: list each change made in
    `changes` (for a migration report); `target_torch`: the oldest torch the code must run on;
    `fixable`: the rules whose fixes may be applied (all when None); `memory`: see `fix_text`."""
    options = _FixOptions(unsafe, respect_noqa, record_changes, target_torch, fixable, memory)
    if is_notebook(name):
        fix = lambda code: _fix_python(code, name, codes, options, max_bytes, project, EditGuard())  # noqa: E731
        return _in_notebook(source, name, fix, fixing=True)
    return _fix_python(source, name, codes, options, max_bytes, project)


@dataclass(frozen=True)
class _FixOptions:
    unsafe: bool
    respect_noqa: bool
    record_changes: bool
    target_torch: Optional[str]
    fixable: Optional[frozenset[str]]
    memory: Optional["FixMemory"] = None


def _fix_python(
    source: Source,
    name: str,
    codes: frozenset[str],
    options: _FixOptions,
    max_bytes: int,
    project: Optional["ProjectFacts"],
    guard: Optional[FixGuard] = None,
) -> SourceResult:
    try:
        decoded, early = _guards(source, name, codes, max_bytes, options.respect_noqa, in_pieces=True)
    except Exception as error:
        return SourceResult(name, error=f"{describe_internal_error(error)}; file left unchanged")
    if early is not None:
        if decoded.exempt:
            early.fixed = source
        return early
    text, selected = decoded.text, without_suppressed(codes, decoded.suppressed)
    try:
        result = run_deep(
            lambda: fix_text(
                text,
                name,
                selected,
                unsafe=options.unsafe,
                respect_noqa=options.respect_noqa,
                project=project,
                guard=guard,
                record=options.record_changes,
                target_torch=options.target_torch,
                fixable=options.fixable,
                in_pieces=_piece_analysis(name, selected, max_bytes, options.respect_noqa, project) if decoded.pieces else None,
                memory=options.memory,
            )
        )
    except Exception as error:
        return SourceResult(name, error=f"{describe_internal_error(error)}; file left unchanged")
    if result.error is not None:
        return SourceResult(name, result.remaining, result.error)
    if result.text != text or _analysed_with_findings(result.remaining):
        refused = _refused_by_cpython(text, name, codes, statement_by_statement=decoded.pieces)
        if refused is not None:
            return SourceResult(name, refused, fixed=source)  # a program that does not run is not fixed
    outcome = SourceResult(name, result.remaining, applied=result.applied, removed_imports=result.removed_imports, changes=result.changes)
    if result.text == text:
        outcome.fixed = source
        return outcome
    fixed_text = _keep_final_newline(text, result.text)
    try:
        outcome.fixed = _as_given(fixed_text, decoded)
    except UnicodeEncodeError:
        return SourceResult(name, result.remaining, f"fixed text cannot be encoded as {decoded.encoding}; file left unchanged")
    return outcome


def add_noqa_source(
    source: Source, name: str, codes: frozenset[str], *, max_bytes: int = MAX_FILE_BYTES, project: Optional["ProjectFacts"] = None
) -> SourceResult:
    """`source` with `# noqa: CODES` added on each line where findings remain (`gradlint check
    --add-noqa`), in `fixed`, and how many lines were changed in `applied`; `source` itself when
    nothing is added. Files that cannot be decoded or parsed get none (a line's comment does not
    suppress GL001 and GL002 there). A notebook's comments go into its cells. Never raises."""
    if is_notebook(name):
        return _in_notebook(source, name, lambda code: _add_noqa_python(code, name, codes, max_bytes, project), fixing=True)
    return _add_noqa_python(source, name, codes, max_bytes, project)


def _add_noqa_python(source: Source, name: str, codes: frozenset[str], max_bytes: int, project: Optional["ProjectFacts"]) -> SourceResult:
    try:
        decoded, early = _guards(source, name, codes, max_bytes)
        if early is not None:
            return SourceResult(name, error=early.error, warning=early.warning, fixed=source)
        selected = without_suppressed(codes, decoded.suppressed)
        outcome = run_deep(lambda: analyse_text(decoded.text, name, selected, project=project))
        if outcome.error is not None:
            return SourceResult(name, error=f"{outcome.error}; file left unchanged")
        if outcome.module is None and any(finding.code in file_rule_codes() for finding in outcome.findings):
            return SourceResult(name, fixed=source)  # the text did not parse
        wanted: dict[int, set[str]] = {}
        for finding in outcome.findings:
            wanted.setdefault(finding.noqa_row, set()).add(finding.code)
        if not wanted or (_analysed_with_findings(outcome.findings) and _refused_by_cpython(decoded.text, name, codes) is not None):
            return SourceResult(name, fixed=source)
        text, added = add_noqa(decoded.text, wanted)
        return SourceResult(name, fixed=_as_given(text, decoded), applied=added)
    except Exception as error:
        return SourceResult(name, error=f"{describe_internal_error(error)}; file left unchanged")


def _as_given(text: str, decoded: _Decoded) -> Source:
    """`text` as the source was given: text, or bytes in the source's encoding (BOM included)."""
    return text if decoded.encoding is None else encode_source(text, decoded.encoding)


def _in_notebook(source: Source, name: str, run: Callable[[str], SourceResult], *, fixing: bool = False) -> SourceResult:
    """`run` (a check or a fix) over a notebook's code cells, its findings placed in their cells
    and, for a fix, the fixed cells written back into the notebook."""
    try:
        notebook = read_notebook(source)
    except NotebookError as error:
        return SourceResult(name, error=str(error))
    if notebook is None:
        return SourceResult(name, fixed=source if fixing else None)  # not a Python notebook: nothing to check
    result = run(notebook.code)
    result.changes = [_in_cell(notebook, change) for change in result.changes]
    if not fixing or result.fixed is None or result.fixed == notebook.code:
        result.findings, result.warning = notebook.findings(result.findings), notebook.described(result.warning)
        result.fixed = source if fixing and result.fixed is not None else None
        return result
    try:
        written = notebook.written(result.fixed)
    except NotebookError as error:
        return SourceResult(name, notebook.findings(result.findings), error=str(error))
    fixed = read_notebook(written)
    if fixed.code != result.fixed:  # a fix took the newline that ended a cell: the rows moved
        result.findings = run(fixed.code).findings
    result.findings, result.warning = fixed.findings(result.findings), fixed.described(result.warning)
    result.fixed = written if isinstance(source, str) else written.encode("utf-8-sig" if source.startswith(b"\xef\xbb\xbf") else "utf-8")
    return result


def _in_cell(notebook: Notebook, change: AppliedChange) -> AppliedChange:
    """A change recorded on a notebook's joined code, placed in its cell."""
    cell, location = notebook.locate(change.location)
    return replace(change, location=location, cell=cell, lines=tuple(_lines_in_cell(notebook, lines) for lines in change.lines))


def _lines_in_cell(notebook: Notebook, lines: ChangedLines) -> ChangedLines:
    cell, location = notebook.locate(Location(lines.row, 1))
    return replace(lines, row=location.row, cell=cell)


def _suppression_warning(text: str) -> Optional[str]:
    problems = malformed_suppressions(text)
    return "; ".join(problems) if problems else None


def over_size_limit(size: int, max_bytes: int) -> bool:
    return max_bytes > 0 and size > max_bytes


def describe_internal_error(error: BaseException) -> str:
    if isinstance(error, RecursionError):
        return "internal error: nesting too deep to analyse"
    if isinstance(error, MemoryError):
        return "internal error: out of memory"
    lines = str(error).strip().splitlines()
    return f"internal error: {type(error).__name__}" + (f": {lines[0][:200]}" if lines else "")


def _guards(
    source: Source, name: str, codes: frozenset[str], max_bytes: int, respect_noqa: bool = True, in_pieces: bool = False
) -> tuple[_Decoded, Optional[SourceResult]]:
    """The checks before analysis, in order. The result when one of them decides the file.
    `respect_noqa` False: whole-file noqa comments are ignored too. `in_pieces`: a file over the
    size limit is to be analysed in pieces (`pieces` in the result) rather than skipped."""
    if isinstance(source, str):
        decoded = _Decoded(source, None, len(source.encode("utf-8", errors="surrogatepass")))
    else:
        try:
            text, encoding = decode_source(source)
        except UndecodableSource as error:
            return _Decoded("", None, len(source)), SourceResult(name, undecodable_findings(source, str(error), name, codes))
        decoded = _Decoded(text, encoding, len(source))
    if respect_noqa and file_is_exempt(decoded.text):
        return _Decoded(decoded.text, decoded.encoding, decoded.size, exempt=True), SourceResult(name)
    suppressed = file_noqa_codes(decoded.text) if respect_noqa else frozenset()
    if suppressed:
        decoded = _Decoded(decoded.text, decoded.encoding, decoded.size, suppressed=suppressed)
        codes = without_suppressed(codes, suppressed)
    if over_size_limit(decoded.size, max_bytes):
        return _over_size_limit(decoded, name, codes, max_bytes, in_pieces)
    refused = _refused_by_python(decoded.text, name, codes)
    return decoded, (SourceResult(name, refused) if refused is not None else None)


def _over_size_limit(
    decoded: _Decoded, name: str, codes: frozenset[str], max_bytes: int, in_pieces: bool
) -> tuple[_Decoded, Optional[SourceResult]]:
    """A file over the size limit is not parsed whole with LibCST: it is analysed in pieces
    (`in_pieces`; CPython parses it statement by statement there, as its compiler too takes a
    gigabyte for 10 MB whole), or compiled whole (GL001) and skipped with a warning."""
    if in_pieces:
        return replace(decoded, pieces=True), None
    return decoded, _unanalysed(decoded, name, codes, max_bytes)


def _unanalysed(decoded: _Decoded, name: str, codes: frozenset[str], max_bytes: int) -> SourceResult:
    """A file over the size limit: compiled by CPython (GL001), but not parsed with LibCST. A
    warning says so when any selected rule could have found something in it."""
    result = SourceResult(name, cacheable=False)
    failure = _python_compile_failure(decoded.text)
    repair = repair_async_keywords(decoded.text) if failure is not None else None
    if repair is not None and _python_compile_failure(repair.text) is None:
        failure = None  # GL501's `async=`: the analysis reads the text with it renamed
    if failure is not None:
        reason, location = failure
        result.findings = invalid_syntax_findings(reason, location, name, codes)
    elif any(rule.applies_to(decoded.text) for rule in rules_for(codes)):
        result.warning = (
            f"not analysed: {describe_size(decoded.size)} is over the {describe_size(max_bytes)} size limit (raise it with --max-file-size)"
        )
    return result


def _refused_by_python(text: str, name: str, codes: frozenset[str]) -> Optional[list[Finding]]:
    """GL001 (or nothing, when GL001 is not selected) for text that CPython refuses because it is
    nested beyond CPython's own limits; None for every other text (the analysis decides). The
    compiler runs only on text a cheap scan cannot clear of those limits."""
    if not may_exceed_nesting_limits(text):
        return None
    failure = _python_compile_failure(text)
    if failure is None:
        return None
    reason, location = failure
    if not (reason.startswith(_PYTHON_NESTING_LIMITS) or "RecursionError" in reason or "MemoryError" in reason):
        return None
    return invalid_syntax_findings(reason, location, name, codes)


def _analysed_with_findings(findings: list[Finding]) -> bool:
    """Findings of the analysis, not of a file that could not be read or parsed."""
    return bool(findings) and not any(finding.code in file_rule_codes() for finding in findings)


def _refused_by_cpython(text: str, name: str, codes: frozenset[str], statement_by_statement: bool = False) -> Optional[list[Finding]]:
    """GL001 (or nothing, when GL001 is not selected) for text LibCST parsed but the running CPython
    refuses after parsing (`return` outside a function, `nonlocal` without a binding, `break`
    outside a loop, a parameter named twice); None when CPython compiles it. Asked only of files
    with findings: their fixes would otherwise turn a program that does not run into another.
    `x.cuda(async=True)` counts as compiling: GL501 fixes it. A notebook cell may `await`.
    `statement_by_statement`: a file too large to be compiled whole (see `pieces.refused_statement`)."""
    notebook = is_notebook(name)
    if statement_by_statement:
        refused = refused_statement(text, lambda statement: _python_compile_failure(statement, notebook))
        return invalid_syntax_findings(*refused, name, codes) if refused is not None else None
    failure = _python_compile_failure(text, notebook)
    if failure is None:
        return None
    repair = repair_async_keywords(text)
    if repair is not None and _python_compile_failure(repair.text, notebook) is None:
        return None
    reason, location = failure
    return invalid_syntax_findings(reason, location, name, codes)


def _python_compile_failure(text: str, top_level_await: bool = False) -> Optional[tuple[str, Location]]:
    """Why CPython, with its default recursion limit, refuses `text`, and where; None if it compiles."""
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT if top_level_await else 0
    return run_deep(lambda: _compile_failure(text, flags), PYTHON_RECURSION_LIMIT)


def _python_parse_failure(text: str) -> Optional[tuple[str, Location]]:
    """Why CPython's parser refuses `text`, and where; None if it parses. What only the compiler
    refuses (`break` outside a loop, a late `from __future__` import), LibCST parses, and so
    does the analysis of a whole file."""
    return run_deep(lambda: _compile_failure(text, ast.PyCF_ONLY_AST), PYTHON_RECURSION_LIMIT)


def _compile_failure(text: str, flags: int = 0) -> Optional[tuple[str, Location]]:
    # Compiled to bytecode, as `import` does: four times faster than building Python AST objects,
    # and the only way to meet the errors CPython raises after parsing.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings are not ours to print (nor errors under -W error)
            compile(text, "<gradlint>", "exec", flags, dont_inherit=True)
    except SyntaxError as error:
        reason = (error.msg or "invalid syntax").splitlines()[0]
        return reason, Location(max(error.lineno or 1, 1), max(error.offset or 1, 1))
    except RecursionError:
        return "nesting too deep for Python's compiler (RecursionError)", Location(1, 1)
    except MemoryError:
        return "too complex for Python's parser (MemoryError)", Location(1, 1)
    except ValueError as error:  # null bytes
        return str(error).splitlines()[0] if str(error) else "invalid source", Location(1, 1)
    return None


def _ends_with_newline(text: str) -> bool:
    return text.endswith(("\n", "\r"))


def _keep_final_newline(original: str, fixed: str) -> str:
    """A fix that removed or rewrote the last line must not add or drop the final newline."""
    if _ends_with_newline(original) == _ends_with_newline(fixed) or not fixed:
        return fixed
    if _ends_with_newline(fixed):
        candidate = fixed[:-2] if fixed.endswith("\r\n") else fixed[:-1]
    else:
        candidate = fixed + dominant_newline(original)
    module, _ = parse(candidate)
    return candidate if module is not None else fixed
