"""Reporters: pure functions from findings (and, for text, the sources they point into) to text."""

from __future__ import annotations

from typing import Callable, Sequence

from gradlint.model import Finding
from gradlint.report.azure import render_azure
from gradlint.report.github import render_github
from gradlint.report.grouped import render_grouped
from gradlint.report.gitlab import render_gitlab
from gradlint.report.json import render_json
from gradlint.report.json_lines import render_json_lines
from gradlint.report.junit import render_junit
from gradlint.report.options import RenderOptions
from gradlint.report.pylint import render_pylint
from gradlint.report.rdjson import render_rdjson
from gradlint.report.sarif import render_sarif
from gradlint.report.text import (
    HUMAN_FORMATS,
    render_concise,
    render_fix_summary,
    render_fixed_only,
    render_full,
    render_statistics,
    render_text,
)

FORMATS: dict[str, Callable[[Sequence[Finding], RenderOptions], str]] = {
    "text": render_text,
    "full": render_full,
    "concise": render_concise,
    "grouped": render_grouped,
    "json": render_json,
    "json-lines": render_json_lines,
    "junit": render_junit,
    "github": render_github,
    "gitlab": render_gitlab,
    "pylint": render_pylint,
    "rdjson": render_rdjson,
    "sarif": render_sarif,
    "azure": render_azure,
}


def render(findings: Sequence[Finding], output_format: str, options: RenderOptions = RenderOptions()) -> str:
    return FORMATS[output_format](findings, options)


__all__ = ["FORMATS", "HUMAN_FORMATS", "RenderOptions", "render", "render_fix_summary", "render_fixed_only", "render_statistics"]
