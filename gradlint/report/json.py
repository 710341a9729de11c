"""ruff's JSON: a list with one object per finding, keys in ruff's (alphabetical) order."""

from __future__ import annotations

import json
from typing import Sequence

from gradlint import RULE_DOCS_URL
from gradlint.model import Finding, Location
from gradlint.report.options import RenderOptions
from gradlint.report.paths import absolute_path
from gradlint.rules import rule_by_code, severity_of


def _location(location: Location) -> dict:
    return {"row": location.row, "column": location.column}


def finding_to_dict(finding: Finding) -> dict:
    fix = None
    if finding.fix is not None:
        fix = {
            "applicability": finding.fix.applicability,
            "message": finding.fix.message,
            "edits": [
                {"content": edit.content, "location": _location(edit.location), "end_location": _location(edit.end_location)}
                for edit in finding.fix.edits
            ],
        }
    return {
        "cell": finding.cell,  # a notebook's cell, in ruff's schema: rows and columns then count within it
        "code": finding.code,
        "name": rule_by_code(finding.code).name,
        "severity": severity_of(finding.code),
        "message": finding.message,
        "filename": absolute_path(finding.path),
        "location": _location(finding.location),
        "end_location": _location(finding.end_location),
        "fix": fix,
        "noqa_row": finding.noqa_row,
        "url": f"{RULE_DOCS_URL}{finding.code}.md",
    }


def render_json(findings: Sequence[Finding], options: RenderOptions) -> str:
    return json.dumps([finding_to_dict(finding) for finding in findings], indent=2, sort_keys=True) + "\n"
