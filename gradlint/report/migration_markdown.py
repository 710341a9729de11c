"""The migration report as Markdown: a summary, then per file the changes made (each with its
lines before and after, as a diff) and the legacy constructs left with what to decide, as
TensorFlow's `tf_upgrade_v2` report lists its changes and the code it could not convert."""

from __future__ import annotations

import re
from typing import Optional

from gradlint.model.migration import AppliedChange, ChangedLines
from gradlint.report.migration import NOT_MIGRATED, FileReport, Left, MigrationReport, failure_advice, rule_name


def render_migration_markdown(report: MigrationReport) -> str:
    parts = [_heading(report), *(_file_section(file) for file in report.files)]
    return "\n".join(parts).rstrip("\n") + "\n"


def _heading(report: MigrationReport) -> str:
    fixes = "Safe and unsafe fixes (`--unsafe-fixes`)." if report.unsafe_fixes else "Safe fixes only."
    how = (
        "The files were rewritten." if report.written else "Nothing was written (`--diff`): these are the changes the migration would make."
    )
    totals = (
        f"{_count(report.changes, 'change')} made, {_count(report.left, 'legacy construct')} left, "
        f"{_count(report.count(NOT_MIGRATED), 'file')} not migrated."
    )
    lines = [
        "# Migration report",
        "",
        f"{fixes} {how}",
        "",
        f"**{totals}**",
        "",
        "A change's line counts in the file as it was read; a construct left, in the migrated file.",
        "",
    ]
    if not report.files:
        lines += ["Nothing to migrate.", ""]
    return "\n".join(lines)


def _file_section(file: FileReport) -> str:
    lines = [f"## `{file.path}`: {file.status.replace('-', ' ')}", ""]
    if file.failure is not None:
        lines += [f"Not migrated: {file.failure}", "", f"To do: {failure_advice(file.failure)}", ""]
        return "\n".join(lines)
    if file.changes:
        lines += [f"### Changes made ({len(file.changes)})", ""]
        for change in file.changes:
            lines += _change(change)
    if file.left:
        lines += [f"### Left to decide ({len(file.left)})", ""]
        for left in file.left:
            lines += _left(left)
    if file.other_findings:
        lines += [f"{_count(file.other_findings, 'other finding')} (not legacy code): see `gradlint check`.", ""]
    return "\n".join(lines)


def _change(change: AppliedChange) -> list[str]:
    code = f"{change.code} " if change.code is not None else ""
    unsafe = " (unsafe fix)" if change.applicability == "unsafe" else ""
    lines = [f"- {_where(change.cell, change.location.row)}: {code}`{rule_name(change.code)}`: {change.fix}{unsafe}", ""]
    lines += ["  " + row if row else "" for row in _diff(change.lines)]
    return lines + [""]


def _left(left: Left) -> list[str]:
    finding = left.finding
    where = f"{_where(finding.cell, finding.location.row)}, column {finding.location.column}"
    return [
        f"- {where}: {finding.code} `{rule_name(finding.code)}`: {finding.message}",
        f"  - To decide ({left.decision}): {left.advice}",
        "",
    ]


def _where(cell: Optional[int], row: int) -> str:
    return f"Cell {cell}, line {row}" if cell is not None else f"Line {row}"


def _diff(blocks: tuple[ChangedLines, ...]) -> list[str]:
    body: list[str] = []
    for block in blocks:
        if len(blocks) > 1:
            body.append(f"@@ {_where(block.cell, block.row).lower()} @@")
        body += ["-" + line for line in block.before.splitlines()]
        body += ["+" + line for line in block.after.splitlines()]
    fence = _fence(body)
    return [fence + "diff", *body, fence]


def _fence(body: list[str]) -> str:
    """A code fence longer than any run of backticks in the code it holds."""
    longest = max((len(run) for line in body for run in re.findall(r"`+", line)), default=0)
    return "`" * max(3, longest + 1)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
