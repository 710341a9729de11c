"""Reviewdog Diagnostic Format (ruff's shape, plus each finding's severity), for reviewdog's
`-f=rdjson`. Columns count UTF-8 bytes, as the format defines them."""

from __future__ import annotations

import json
from typing import Optional, Sequence

from gradlint import RULE_DOCS_URL
from gradlint.model import Finding, Location
from gradlint.report.options import RenderOptions
from gradlint.report.paths import absolute_path
from gradlint.report.sarif import INFORMATION_URI
from gradlint.notebook import in_file
from gradlint.report.snippet import Source, source_key, sources_by_path
from gradlint.rules import severity_of


def _position(location: Location, source: Optional[Source]) -> dict:
    column = location.column
    if source is not None and 1 <= location.row <= len(source.index.starts):
        before = source.line(location.row)[: column - 1]
        column = len(before.encode("utf-8", "surrogatepass")) + 1 + max(column - 1 - len(before), 0)
    return {"line": location.row, "column": column}


def _range(start: Location, end: Location, source: Optional[Source]) -> dict:
    return {"start": _position(start, source), "end": _position(end, source)}


def _diagnostic(finding: Finding, source: Optional[Source]) -> dict:
    diagnostic = {
        "code": {"url": f"{RULE_DOCS_URL}{finding.code}.md", "value": finding.code},
        "location": {"path": absolute_path(finding.path), "range": _range(finding.location, finding.end_location, source)},
        "message": finding.message,
        "severity": severity_of(finding.code).upper(),
    }
    if finding.fix is not None:
        diagnostic["suggestions"] = [
            {"range": _range(edit.location, edit.end_location, source), "text": edit.content} for edit in finding.fix.edits
        ]
    return diagnostic


def render_rdjson(findings: Sequence[Finding], options: RenderOptions) -> str:
    findings = in_file(findings, options.source_of)  # reviewdog places lines of files
    sources = sources_by_path(findings, options.source_of)
    diagnostics = [_diagnostic(finding, sources[source_key(finding)]) for finding in findings]
    result = {"diagnostics": diagnostics, "severity": "WARNING", "source": {"name": "gradlint", "url": INFORMATION_URI}}
    return json.dumps(result, indent=2, sort_keys=True) + "\n"
