"""The migration report as JSON, in a structure kept stable across releases (`schema` 1, described
in the README's "Migration report" section): a summary, then per file its status, the changes made,
the legacy constructs left with what to decide, and why a file was not migrated."""

from __future__ import annotations

import json
from typing import Optional

from gradlint import __version__
from gradlint.model.migration import AppliedChange, ChangedLines
from gradlint.report.migration import MIGRATED, NOT_MIGRATED, PARTLY_MIGRATED, FileReport, Left, MigrationReport, failure_advice, rule_name

SCHEMA_VERSION = 1


def render_migration_json(report: MigrationReport) -> str:
    document = {
        "schema": SCHEMA_VERSION,
        "gradlint": __version__,
        "rules": list(report.rules),
        "unsafe_fixes": report.unsafe_fixes,
        "written": report.written,
        "summary": {
            "changes": report.changes,
            "left": report.left,
            "files": {status: report.count(status) for status in (MIGRATED, PARTLY_MIGRATED, NOT_MIGRATED)},
        },
        "files": [_file(file) for file in report.files],
    }
    return json.dumps(document, indent=2) + "\n"


def _file(file: FileReport) -> dict:
    failure = None if file.failure is None else {"reason": file.failure, "advice": failure_advice(file.failure)}
    return {
        "path": file.path,
        "status": file.status,
        "not_migrated": failure,
        "changes": [_change(change) for change in file.changes],
        "left": [_left(left) for left in file.left],
        "other_findings": file.other_findings,
    }


def _change(change: AppliedChange) -> dict:
    return {
        "rule": change.code,
        "name": rule_name(change.code),
        **_position(change.cell, change.location.row, change.location.column),
        "message": change.message,
        "fix": change.fix,
        "applicability": str(change.applicability),
        "lines": [_lines(block) for block in change.lines],
    }


def _lines(block: ChangedLines) -> dict:
    return {"cell": block.cell, "line": block.row, "before": block.before, "after": block.after}


def _left(left: Left) -> dict:
    finding = left.finding
    fix = None if finding.fix is None else {"applicability": str(finding.fix.applicability), "message": finding.fix.message}
    return {
        "rule": finding.code,
        "name": rule_name(finding.code),
        **_position(finding.cell, finding.location.row, finding.location.column),
        "end_line": finding.end_location.row,
        "end_column": finding.end_location.column,
        "message": finding.message,
        "fix": fix,
        "decision": left.decision,
        "advice": left.advice,
    }


def _position(cell: Optional[int], line: int, column: int) -> dict:
    return {"cell": cell, "line": line, "column": column}
