"""The analysis of a document as it is edited: an edit is analysed only where it can change findings.

The analysis in pieces (`gradlint.pieces`) rests on one fact: the findings of a top-level statement
depend only on the statement and its context (the imports, the statements whose names it uses and
those that use its names, and the first statement with each kind of whole-file evidence). So the
findings of each statement of the last version are kept under the text of the statement and of its
context. After an edit, the statements whose key is new are analysed together, in one reduced
text that holds them and their contexts; every other statement's findings are those of the last
version, moved to its rows. An edit that reaches most of the file (an import is in every context)
is analysed whole, as is every text that does not tokenize or parse.

Only the text between the first and the last changed line is tokenized again: the statements
above and below it keep their bounds.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from gradlint.analysis.async_keywords import repair_async_keywords
from gradlint.engine import LintOutcome, after_noqa, analyse_text, past_prefilter, rules_for
from gradlint.model import Edit, Finding, Fix, Location
from gradlint.noqa import NoqaLines
from gradlint.pieces import Piece, Statement, plan_pieces, statement_of, statement_sources, statement_spans, statements_at
from gradlint.rules import file_rule_codes, rule_for_failure
from gradlint.rules.file_rule import FileFailure
from gradlint.source import FileText, LineIndex, answers_hold, lines_with_ends

if TYPE_CHECKING:
    from gradlint.model.project import ProjectFacts
    from gradlint.rules.info import RuleInfo

# Past this share of the file, the statements to analyse again are analysed in the whole file:
# a reduced text of most of it costs as much, and the whole file needs no planning.
WHOLE_SHARE = 0.5
_SYNTAX = rule_for_failure(FileFailure.INVALID_SYNTAX).code
# What a message says of another line ("computed ... (line 12)"): such findings move only with it.
_NAMES_A_LINE = re.compile(r"\blines? \d")
_LINE_NUMBER = re.compile(r"(\bline )(\d+)")
_FACTS_KEPT = 20_000  # statements' name facts remembered across versions


@dataclass(frozen=True)
class _Entry:
    """The findings of one statement, rows counted from its first row (1 is its first row). It is
    kept under the statement's key with, when a finding depends on where the statements around it
    are (a message names another line, an edit reaches outside the statement), their `_layout`
    (None when they may move)."""

    findings: tuple[Finding, ...]


class IncrementalAnalysis:
    """`analyse_text` for successive versions of one document: the same findings, computed from
    what changed since the last version it analysed."""

    def __init__(self) -> None:
        self._setting: Optional[tuple] = None  # (path, codes, project) the entries were found under
        self._entries: dict[tuple, _Entry] = {}
        # What the analyses behind the entries asked of the whole file's text, with the answers:
        # an entry holds while the text answers the same (`weights_only=False` written elsewhere).
        self._asked: dict[tuple[str, object], bool] = {}
        self._last: Optional[tuple[list[str], list[tuple[int, int]]]] = None  # the last version's lines and statement rows
        self._facts: dict[str, tuple] = {}
        self._planned: Optional[tuple[list, list[Piece]]] = None
        self._sources: list[str] = []  # the text of each statement of the version being analysed
        # What the last call did (for measurement): the share of the text analysed again, and how
        # many statements kept the findings of an earlier version.
        self.analysed_share = 1.0
        self.reused = 0

    def __call__(
        self, text: str, path: str, codes: frozenset[str], *, line_noqa: bool = True, project: Optional["ProjectFacts"] = None
    ) -> LintOutcome:
        # The rules the text passes the prefilter for ran for every entry: an edit that adds a
        # rule's trigger anywhere may give it findings anywhere.
        repair = repair_async_keywords(text)
        rules = past_prefilter(rules_for(codes), repair.text if repair is not None else text, project)
        setting = (path, codes, frozenset(rule.code for rule in rules), project)
        if self._setting is None or self._setting[:3] != setting[:3] or self._setting[3] != project or not answers_hold(self._asked, text):
            self._setting, self._entries, self._asked = setting, {}, {}
        lines = lines_with_ends(text)
        spans = statement_spans(text, lines, self._last)
        if spans is None:
            self._forget()
            self.reused = 0
            return self._whole(text, path, codes, line_noqa, project)
        if len(self._facts) > _FACTS_KEPT:
            self._facts = {}
        self._sources = sources = statement_sources(lines, spans)
        statements = statements_at(lines, spans, self._facts, sources)
        self._last = (lines, spans)
        pieces = self._plan(statements)
        keys = [_key(statements, sources, piece) for piece in pieces]
        found = [self._found(key, statements, piece) for key, piece in zip(keys, pieces)]
        missing = [number for number, entry in enumerate(found) if entry is None]
        self.analysed_share, self.reused = 0.0, len(keys) - len(missing)
        if missing:
            outcome = self._analyse(text, lines, statements, pieces, keys, missing, rules, path, codes, project, line_noqa)
            if outcome is not None:
                return outcome
            if self.reused == 0:  # analysed whole: every entry was written again, under its key
                missing = range(len(keys))
            for number in missing:
                found[number] = self._found(keys[number], statements, pieces[number])
        current = {id(entry) for entry in found}
        self._entries = {entry_key: entry for entry_key, entry in self._entries.items() if id(entry) in current}
        index = LineIndex.of(text)
        findings = []
        for statement, entry in zip(statements, found):
            findings += [_moved(finding, statement.first_row - 1, index) for finding in entry.findings]
        return self._finish(findings, text, path, codes, line_noqa)

    # -- the statements --------------------------------------------------------------------

    def _plan(self, statements: list[Statement]) -> list[Piece]:
        """A piece per statement, with its context: the last version's, when every statement binds
        and uses the same names (an edit inside a function, mostly), as the context depends on
        nothing else."""
        names = [(statement.binds, statement.uses, statement.everywhere, statement.evidence, statement.code) for statement in statements]
        if self._planned is None or self._planned[0] != names:
            self._planned = (names, plan_pieces(statements, sys.maxsize, 1))
        return self._planned[1]

    def _forget(self) -> None:
        self._last, self._entries, self._asked = None, {}, {}

    # -- the findings ----------------------------------------------------------------------

    def _found(self, key: tuple, statements: list[Statement], piece: Piece) -> Optional[_Entry]:
        """The statement's findings when they are known: found with the same texts around it, and,
        when they depend on where things are, with the same statements above it and the same
        distances to them and to its context."""
        entry = self._entries.get((key, None))
        return entry if entry is not None else self._entries.get((key, _layout(statements, self._sources, piece)))

    def _analyse(
        self,
        text: str,
        lines: list[str],
        statements: list[Statement],
        pieces: list[Piece],
        keys: list[tuple],
        missing: list[int],
        rules: list["RuleInfo"],
        path: str,
        codes: frozenset[str],
        project: Optional["ProjectFacts"],
        line_noqa: bool,
    ) -> Optional[LintOutcome]:
        """Analyse the statements `missing` and remember their findings; or, for a text that could
        not be analysed (it does not parse, a rule failed), the outcome to give as it is."""
        kept = set(missing)
        for number in missing:
            kept.update(pieces[number].context)
        total = sum(statement.size for statement in statements)
        share = sum(statements[number].size for number in kept) / max(total, 1)
        if self._entries and rules and share <= WHOLE_SHARE:
            self.analysed_share = share
            together = _Together(statements, self._sources, sorted(kept))
            # The syntax rule always: a reduced text that does not parse must not pass for one without findings.
            selected = frozenset(rule.code for rule in rules) | {_SYNTAX}
            file_text = FileText(text)
            outcome = analyse_text(together.text, path, selected, line_noqa=False, prefilter=False, project=project, file_text=file_text)
            self._asked.update(file_text.asked)
            findings = [together.in_file(finding) for finding in outcome.findings]
            if outcome.error is None and not _not_analysed(outcome) and not _edits_elsewhere(findings, statements, missing):
                self._remember(findings, statements, pieces, keys, missing)
                return None
        self.analysed_share, self.reused = 1.0, 0
        file_text = FileText(text)
        outcome = analyse_text(text, path, codes | {_SYNTAX}, line_noqa=False, project=project, file_text=file_text)
        self._asked.update(file_text.asked)
        if outcome.error is None and not _not_analysed(outcome):
            self._remember(outcome.findings, statements, pieces, keys, range(len(pieces)))
            return None
        self._forget()
        return outcome if outcome.error is not None else analyse_text(text, path, codes, line_noqa=line_noqa, project=project)

    def _remember(self, findings: list[Finding], statements: list[Statement], pieces: list[Piece], keys: list[tuple], numbers) -> None:
        starts = [statement.first_row for statement in statements]
        by_statement: dict[int, list[Finding]] = {}
        for finding in findings:
            by_statement.setdefault(statement_of(starts, finding.location.row), []).append(finding)
        for number in numbers:
            statement = statements[number]
            own = by_statement.get(number, [])
            sensitive = any(_depends_on_rows(finding, statement) for finding in own)
            layout = _layout(statements, self._sources, pieces[number]) if sensitive else None
            self._entries[(keys[number], layout)] = _Entry(tuple(_moved(finding, 1 - statement.first_row) for finding in own))

    def _whole(self, text: str, path: str, codes: frozenset[str], line_noqa: bool, project: Optional["ProjectFacts"]) -> LintOutcome:
        self.analysed_share = 1.0
        return analyse_text(text, path, codes, line_noqa=line_noqa, project=project)

    def _finish(self, findings: list[Finding], text: str, path: str, codes: frozenset[str], line_noqa: bool) -> LintOutcome:
        noqa_lines = NoqaLines(text)
        findings = [dataclasses.replace(finding, noqa_row=noqa_lines.row_for(finding.location.row)) for finding in findings]
        if line_noqa:
            findings = after_noqa(findings, noqa_lines, path, codes)
        return LintOutcome(sorted(findings, key=Finding.sort_key))


class _Together:
    """Statements of a file one after another, without the lines between them: a text LibCST
    parses faster than the file with every other line emptied. Its findings are moved to the
    file's rows, the lines their messages name too."""

    def __init__(self, statements: list[Statement], sources: list[str], numbers: list[int]) -> None:
        self.statements = [statements[number] for number in numbers]
        self.text = "".join(sources[number] for number in numbers)
        self.starts: list[int] = []  # each statement's first row in the text
        row = 1
        for statement in self.statements:
            self.starts.append(row)
            row += statement.last_row - statement.first_row + 1

    def row(self, row: int) -> int:
        """The file's row of the text's `row`."""
        index = max(bisect_right(self.starts, row) - 1, 0)
        return self.statements[index].first_row + row - self.starts[index]

    def location(self, location: Location, end: bool = False) -> Location:
        """An end at the start of a statement's first line ends the statement before it: just after
        that statement's last line in the file."""
        index = bisect_right(self.starts, location.row) - 1
        if end and location.column == 1 and index > 0 and location.row == self.starts[index]:
            return Location(self.statements[index - 1].last_row + 1, 1)
        return Location(self.row(location.row), location.column)

    def in_file(self, finding: Finding) -> Finding:
        fix = finding.fix
        if fix is not None:
            edits = tuple(
                Edit(0, 0, edit.content, self.location(edit.location), self.location(edit.end_location, end=True)) for edit in fix.edits
            )
            fix = Fix(fix.applicability, fix.message, edits, fix.needs_torch)
        message = _LINE_NUMBER.sub(lambda match: f"{match.group(1)}{self.row(int(match.group(2)))}", finding.message)
        return dataclasses.replace(
            finding,
            message=message,
            location=self.location(finding.location),
            end_location=self.location(finding.end_location, end=True),
            fix=fix,
        )


def _key(statements: list[Statement], sources: list[str], piece: Piece) -> tuple:
    """The texts the statement's findings depend on: its own and its context's, in the file's order,
    and which of them is its own (a statement may be written twice). What the module docstring
    says is no other statement's concern (the rules read no string's words, and what they ask of
    the whole file's text is checked apart): a stand-in for it keeps findings while it is edited."""
    (own,) = piece.own
    kept = sorted([own, *piece.context])
    return (kept.index(own), *(_DOCSTRING if statements[number].docstring and number != own else sources[number] for number in kept))


_DOCSTRING = ("the module docstring",)


def _layout(statements: list[Statement], sources: list[str], piece: Piece) -> tuple:
    """The statements above the piece's own and those of its context, with their distances from it:
    what a finding that names another line, or edits one (an import added at the top), depends on."""
    (own,) = piece.own
    first = statements[own].first_row
    around = sorted({*range(own), *piece.context})
    return tuple((sources[number], statements[number].first_row - first) for number in around)


def _not_analysed(outcome: LintOutcome) -> bool:
    """Findings of a text that could not be parsed (GL001...), not of its analysis."""
    return any(finding.code in file_rule_codes() for finding in outcome.findings)


def _edits_elsewhere(findings: list[Finding], statements: list[Statement], numbers: list[int]) -> bool:
    """A finding of the statements `numbers` has a fix that edits another statement: where it goes
    (an import added among the imports) may depend on statements a reduced text leaves out."""
    starts = [statement.first_row for statement in statements]
    wanted = set(numbers)
    for finding in findings:
        number = statement_of(starts, finding.location.row)
        if number in wanted and _edits_outside(finding, statements[number]):
            return True
    return False


def _edits_outside(finding: Finding, statement: Statement) -> bool:
    """The finding's fix edits rows outside its statement."""
    edits = finding.fix.edits if finding.fix is not None else ()
    return not all(_within(statement, edit.location) and _within(statement, edit.end_location) for edit in edits)


def _within(statement: Statement, location: Location) -> bool:
    """`location` is in the statement's rows, or just after its last line."""
    return statement.first_row <= location.row <= statement.last_row or (location.row == statement.last_row + 1 and location.column == 1)


def _depends_on_rows(finding: Finding, statement: Statement) -> bool:
    """The finding names or edits a row outside its statement: it holds only where the statements
    around keep their places."""
    return bool(_NAMES_A_LINE.search(finding.message)) or not _within(statement, finding.end_location) or _edits_outside(finding, statement)


def _moved(finding: Finding, rows: int, index: Optional[LineIndex] = None) -> Finding:
    """`finding` `rows` rows further down; with `index`, its edits' offsets are those of its text."""

    def move(location: Location) -> Location:
        return Location(location.row + rows, location.column)

    fix = finding.fix
    if fix is not None:
        edits = []
        for edit in fix.edits:
            start, end = move(edit.location), move(edit.end_location)
            offsets = (index.offset(start.row, start.column - 1), index.offset(end.row, end.column - 1)) if index else (0, 0)
            edits.append(Edit(*offsets, edit.content, start, end))
        fix = Fix(fix.applicability, fix.message, tuple(edits), fix.needs_torch)
    return dataclasses.replace(finding, location=move(finding.location), end_location=move(finding.end_location), fix=fix)
