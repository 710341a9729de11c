"""Reporters: pure functions from findings to text."""

from __future__ import annotations

from typing import Callable, Sequence

from gradlint.model import Finding
from gradlint.report.github import render_github
from gradlint.report.json import render_json
from gradlint.report.text import render_concise, render_statistics, render_text

FORMATS: dict[str, Callable[..., str]] = {
    "text": render_text,
    "concise": render_concise,
    "json": render_json,
    "github": render_github,
}


def render(findings: Sequence[Finding], output_format: str, *, quiet: bool = False) -> str:
    return FORMATS[output_format](findings, quiet=quiet)


__all__ = ["FORMATS", "render", "render_statistics"]
