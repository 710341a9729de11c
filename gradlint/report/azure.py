"""Azure Pipelines logging commands, as ruff's `azure` format writes them:
`##vso[task.logissue type=error;sourcepath=...;linenumber=...;columnnumber=...;code=...;]message`,
with `type=warning` for the rules of that severity."""

from __future__ import annotations

from typing import Sequence

from gradlint.model import Finding
from gradlint.notebook import in_file
from gradlint.report.options import RenderOptions
from gradlint.report.paths import display_path
from gradlint.rules import severity_of

# What the agent reads as the end of a property or of the command, escaped per its rules.
_PROPERTY_ESCAPES = (("%", "%AZP25"), (";", "%3B"), ("\r", "%0D"), ("\n", "%0A"), ("]", "%5D"))
_MESSAGE_ESCAPES = (("%", "%AZP25"), ("\r", "%0D"), ("\n", "%0A"))


def _escaped(value: str, escapes) -> str:
    for raw, escaped in escapes:
        value = value.replace(raw, escaped)
    return value


def render_azure(findings: Sequence[Finding], options: RenderOptions) -> str:
    lines = []
    for finding in in_file(findings, options.source_of):
        properties = (
            f"type={severity_of(finding.code)};"
            f"sourcepath={_escaped(display_path(finding.path), _PROPERTY_ESCAPES)};"
            f"linenumber={finding.location.row};"
            f"columnnumber={finding.location.column};"
            f"code={finding.code};"
        )
        lines.append(f"##vso[task.logissue {properties}]{_escaped(finding.message, _MESSAGE_ESCAPES)}\n")
    return "".join(lines)
