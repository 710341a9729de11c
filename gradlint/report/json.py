from __future__ import annotations

import json
from typing import Sequence

from gradlint import RULE_DOCS_URL
from gradlint.model import Finding, Location
from gradlint.report.options import RenderOptions
from gradlint.report.paths import absolute_path


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
        "code": finding.code,
        "message": finding.message,
        "filename": absolute_path(finding.path),
        "location": _location(finding.location),
        "end_location": _location(finding.end_location),
        "fix": fix,
        "noqa_row": finding.noqa_row,
        "cell": finding.cell,  # a notebook's cell (as ruff's JSON); rows and columns are then within it
        "url": f"{RULE_DOCS_URL}{finding.code}.md",
    }


def render_json(findings: Sequence[Finding], options: RenderOptions) -> str:
    return json.dumps([finding_to_dict(finding) for finding in findings], indent=2) + "\n"
