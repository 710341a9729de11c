"""GitHub Actions workflow commands (`::error ...::message`, `::warning` for the rules of that
severity), escaped per the runner's rules."""

from __future__ import annotations

from typing import Sequence

from gradlint.model import Finding
from gradlint.notebook import in_file
from gradlint.report.options import RenderOptions
from gradlint.report.paths import repository_path
from gradlint.rules import severity_of


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def render_github(findings: Sequence[Finding], options: RenderOptions) -> str:
    lines = []
    for finding in in_file(findings, options.source_of):
        properties = ",".join(
            [
                f"title={_escape_property(f'gradlint ({finding.code})')}",
                f"file={_escape_property(repository_path(finding.path))}",
                f"line={finding.location.row}",
                f"col={finding.location.column}",
                f"endLine={finding.end_location.row}",
                f"endColumn={finding.end_location.column}",
            ]
        )
        lines.append(f"::{severity_of(finding.code)} {properties}::{_escape_data(f'{finding.code} {finding.message}')}\n")
    return "".join(lines)
