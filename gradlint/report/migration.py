"""What a migration report says, file by file: the changes made, the legacy constructs left with
what the user must decide about each, and the files that could not be migrated at all. The
Markdown and JSON renderings read this, never the run itself."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Optional, Sequence

from gradlint.model import Finding
from gradlint.model.migration import AppliedChange
from gradlint.report.paths import display_path
from gradlint.report.text import overlapping_fix
from gradlint.rules import file_rule_codes, rule_by_code

# What the user must do about a construct left, from the most automatic to the least.
UNSAFE_FIX = "unsafe-fix"  # a fix exists that may change behaviour: review it, apply it with --unsafe-fixes
RUN_AGAIN = "run-again"  # its fix overlapped another change of the same run
AFTER_OTHER_FIX = "after-other-fix"  # fixed once another rule's fix on the same code is applied
BY_HAND = "by-hand"  # no automatic fix
DECISIONS = (UNSAFE_FIX, RUN_AGAIN, AFTER_OTHER_FIX, BY_HAND)

# What a file's migration came to.
MIGRATED = "migrated"  # changed, nothing left
PARTLY_MIGRATED = "partly-migrated"  # legacy constructs left (changed or not)
NOT_MIGRATED = "not-migrated"  # the file could not be read, parsed, fixed or written
STATUSES = (MIGRATED, PARTLY_MIGRATED, NOT_MIGRATED)


@dataclass(frozen=True)
class Left:
    """A legacy construct the migration left, why, and what the user must decide."""

    finding: Finding
    decision: str  # one of DECISIONS
    advice: str


@dataclass
class FileReport:
    path: str
    changes: list[AppliedChange] = field(default_factory=list)
    left: list[Left] = field(default_factory=list)
    failure: Optional[str] = None  # why the file was not migrated
    other_findings: int = 0  # findings of rules that are not migrations (bugs, not legacy code)

    @property
    def status(self) -> str:
        if self.failure is not None:
            return NOT_MIGRATED
        return PARTLY_MIGRATED if self.left else MIGRATED


@dataclass(frozen=True)
class MigrationReport:
    files: list[FileReport]
    rules: tuple[str, ...]  # the rules the run selected
    unsafe_fixes: bool
    written: bool  # False with --diff: the changes are what the migration would make

    @property
    def changes(self) -> int:
        return sum(len(file.changes) for file in self.files)

    @property
    def left(self) -> int:
        return sum(len(file.left) for file in self.files)

    def count(self, status: str) -> int:
        return sum(1 for file in self.files if file.status == status)


def migration_report(
    changes: Sequence[AppliedChange],
    remaining: Sequence[Finding],
    errors: Sequence[tuple[str, str]],
    *,
    rules: Sequence[str],
    unsafe_fixes: bool,
    written: bool,
) -> MigrationReport:
    """The report of one `gradlint fix` run: `remaining` is every finding left after it, `errors`
    the files it could not read, fix or write, with their one-line reasons."""
    files: dict[str, FileReport] = {}
    other_findings: Counter[str] = Counter()

    def of(path: str) -> FileReport:
        return files.setdefault(path, FileReport(display_path(path)))

    for change in changes:
        of(change.path).changes.append(change)
    for finding in sorted(remaining, key=Finding.sort_key):
        if finding.code in file_rule_codes():
            of(finding.path).failure = _failure(finding)
        elif rule_by_code(finding.code).migration is None:
            other_findings[finding.path] += 1  # counted where there is something to migrate, not a reason to list a file
        else:
            decision, advice = what_to_decide(finding, remaining, unsafe_fixes)
            of(finding.path).left.append(Left(finding, decision, advice))
    for path, reason in errors:
        of(path).failure = reason
    for path, file in files.items():
        if file.failure is not None:
            file.changes.clear()  # a file that failed is left as it was read
        file.changes.sort(key=lambda change: (change.cell or 0, change.location, change.code or ""))
        file.other_findings = other_findings[path]
    return MigrationReport(sorted(files.values(), key=lambda file: file.path), tuple(sorted(rules)), unsafe_fixes, written)


def _failure(finding: Finding) -> str:
    """A file-level finding as the reason its file was not migrated, with where a parse failed."""
    where = f" (line {finding.location.row})" if finding.location.row > 1 or finding.location.column > 1 else ""
    if finding.cell is not None:
        where = f" (cell {finding.cell}, line {finding.location.row})"
    return f"{finding.code} {finding.message}{where}"


def what_to_decide(finding: Finding, remaining: Sequence[Finding], unsafe_fixes: bool) -> tuple[str, str]:
    """The decision a construct left asks of the user, and the advice that goes with it."""
    fix = finding.fix
    if fix is not None and (finding.has_safe_fix or unsafe_fixes):
        return RUN_AGAIN, "Its fix overlapped another change of this run: run the migration again."
    if fix is not None:
        return UNSAFE_FIX, (
            f"An unsafe fix is available ({fix.message}): it may change behaviour. "
            "Review it, then apply it with `--unsafe-fixes`, or rewrite the code by hand."
        )
    blocking = overlapping_fix(finding, remaining)
    if blocking is not None:
        return AFTER_OTHER_FIX, f"Fixed once {blocking}'s fix on the same code is applied."
    return BY_HAND, f"No automatic fix: rewrite it by hand (`gradlint rule {finding.code}` explains how)."


def failure_advice(reason: str) -> str:
    """What to do about a file that was not migrated."""
    if reason.startswith("GL001"):
        return "Make the file parse under Python 3 (`python -m py_compile` shows where it fails), then run the migration again."
    if reason.startswith("GL002"):
        return "Save the file in the encoding it declares (or declare the one it uses), then run the migration again."
    return "The file was left as it was read; fix the cause, then run the migration again."


def rule_name(code: Optional[str]) -> str:
    return rule_by_code(code).name if code is not None else "unused-import"
