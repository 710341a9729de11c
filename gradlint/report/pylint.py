"""Pylint's parseable line format, as ruff and flake8 write it: `path:row: [CODE] message`."""

from __future__ import annotations

from typing import Sequence

from gradlint.model import Finding
from gradlint.notebook import in_file
from gradlint.report.options import RenderOptions
from gradlint.report.paths import display_path


def render_pylint(findings: Sequence[Finding], options: RenderOptions) -> str:
    return "".join(
        f"{display_path(finding.path)}:{finding.location.row}: [{finding.code}] {finding.message}\n"
        for finding in in_file(findings, options.source_of)
    )
