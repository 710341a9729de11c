from __future__ import annotations

from collections import Counter
from typing import Sequence

from gradlint.model import Finding
from gradlint.report.paths import display_path
from gradlint.rules import rule_by_code


def finding_line(finding: Finding) -> str:
    marker = " [*]" if finding.has_safe_fix else ""
    location = finding.location
    return f"{display_path(finding.path)}:{location.row}:{location.column}: {finding.code}{marker} {finding.message}"


def render_concise(findings: Sequence[Finding], *, quiet: bool = False) -> str:
    return "".join(finding_line(finding) + "\n" for finding in findings)


def render_text(findings: Sequence[Finding], *, quiet: bool = False) -> str:
    lines = [finding_line(finding) for finding in findings]
    if not quiet:
        lines.extend(summary_lines(findings))
    return "".join(line + "\n" for line in lines)


def summary_lines(findings: Sequence[Finding]) -> list[str]:
    if not findings:
        return ["All checks passed!"]
    count = len(findings)
    lines = [f"Found {count} error{'s' if count != 1 else ''}."]
    fixable = sum(1 for finding in findings if finding.has_safe_fix)
    if fixable:
        lines.append(f"[*] {fixable} fixable with `gradlint fix`.")
    unsafe = sum(1 for finding in findings if finding.fix is not None and not finding.has_safe_fix)
    if unsafe:
        lines.append(f"{unsafe} more fixable with `gradlint fix --unsafe-fixes`.")
    return lines


def render_statistics(findings: Sequence[Finding]) -> str:
    counts = Counter(finding.code for finding in findings)
    fixable = {finding.code for finding in findings if finding.has_safe_fix}
    rows = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        marker = "[*]" if code in fixable else "   "
        rows.append(f"{count:>5}\t{code}\t{marker} {rule_by_code(code).name}\n")
    return "".join(rows)
