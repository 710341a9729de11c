"""ruff's `grouped` format: the findings under the name of their file, one line each
(`  row:col CODE [*] message`, aligned), then the summary."""

from __future__ import annotations

from typing import Sequence

from gradlint.model import Finding
from gradlint.report.options import RenderOptions
from gradlint.report.paths import display_path
from gradlint.report.snippet import Painter, paint_code
from gradlint.report.text import counts_as_fixable, summary_lines


def render_grouped(findings: Sequence[Finding], options: RenderOptions) -> str:
    paint = Painter(options.color)
    lines: list[str] = []
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        by_file.setdefault(finding.path, []).append(finding)
    for path, of_file in by_file.items():
        lines.append(paint(display_path(path), bold=True, underline=True) + ":")
        row_width = max(len(_row(finding)) for finding in of_file)
        column_width = max(len(str(finding.location.column)) for finding in of_file)
        for finding in of_file:
            marker = " [*]" if counts_as_fixable(finding, options.unsafe_fixes) else ""
            where = f"{_row(finding):>{row_width}}:{finding.location.column:<{column_width}}"
            lines.append(f"  {where} {paint_code(finding.code, paint)}{marker} {finding.message}")
        lines.append("")
    if not options.quiet:
        lines.extend(summary_lines(findings, options.unsafe_fixes, paint))
    return "".join(line + "\n" for line in lines)


def _row(finding: Finding) -> str:
    """The row, within its cell for a notebook (`cell 3:2`, as ruff writes it)."""
    return f"cell {finding.cell}:{finding.location.row}" if finding.cell is not None else str(finding.location.row)
