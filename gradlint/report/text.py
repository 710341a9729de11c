from __future__ import annotations

import json
from collections import Counter
from typing import Collection, Optional, Sequence

from gradlint.model import Finding
from gradlint.report.options import HUMAN_FORMATS, RenderOptions
from gradlint.report.paths import display_path
from gradlint.report.snippet import SEVERITY_COLORS, Painter, Source, code_frame, fix_diff, paint_code, source_key, sources_by_path
from gradlint.rules import rule_by_code, severity_of

# Formats a person reads; the others are parsed by tools, so nothing else may share their stream
# (and `--statistics` is a JSON list for them).
SEVERITIES = ("error", "warning")  # most severe first, as the summary and the statistics list them


def counts_as_fixable(finding: Finding, unsafe_fixes: bool) -> bool:
    """Whether `gradlint fix` (with the run's unsafe-fixes setting) applies the finding's fix."""
    return finding.has_safe_fix or (unsafe_fixes and finding.fix is not None)


def finding_line(finding: Finding, paint: Painter = Painter(False), unsafe_fixes: bool = False) -> str:
    marker = " [*]" if counts_as_fixable(finding, unsafe_fixes) else ""
    location = finding.location
    cell = f"cell {finding.cell}:" if finding.cell is not None else ""  # ruff's `notebook.ipynb:cell 3:4:9:`
    where = paint(display_path(finding.path), bold=True) + f":{cell}{location.row}:{location.column}:"
    return f"{where} {paint_code(finding.code, paint)}{marker} {finding.message}"


def render_concise(findings: Sequence[Finding], options: RenderOptions) -> str:
    """One line per finding, then ruff's summary (`Found 2 errors.`, what is fixable) unless quiet."""
    paint = Painter(options.color)
    lines = [finding_line(finding, paint, options.unsafe_fixes) for finding in findings]
    if not options.quiet:
        lines.extend(summary_lines(findings, options.unsafe_fixes, paint))
    return "".join(line + "\n" for line in lines)


def render_text(findings: Sequence[Finding], options: RenderOptions) -> str:
    """Each finding with its source line and carets (and its fix as a diff with `show_fixes`)."""
    return _with_frames(findings, options, context=0)


def render_full(findings: Sequence[Finding], options: RenderOptions) -> str:
    """ruff's `full`: as `text`, with two lines of the source around each finding's lines."""
    return _with_frames(findings, options, context=FULL_CONTEXT_LINES)


FULL_CONTEXT_LINES = 2  # ruff's


def _with_frames(findings: Sequence[Finding], options: RenderOptions, context: int) -> str:
    paint = Painter(options.color)
    sources = sources_by_path(findings, options.source_of)
    lines: list[str] = []
    for finding in findings:
        lines.append(finding_line(finding, paint, options.unsafe_fixes))
        lines.extend(_details(finding, sources[source_key(finding)], options, paint, context))
        lines.append("")
    if not options.quiet:
        lines.extend(summary_lines(findings, options.unsafe_fixes, paint))
    return "".join(line + "\n" for line in lines)


def _details(finding: Finding, source: Optional[Source], options: RenderOptions, paint: Painter, context: int = 0) -> list[str]:
    lines = code_frame(finding, source, paint, context) if source is not None else []
    if finding.fix is not None:
        kind = "safe fix" if finding.has_safe_fix else "unsafe fix" if options.unsafe_fixes else "unsafe fix (--unsafe-fixes)"
        lines.append(f"  = {kind}: {finding.fix.message}")
        if options.show_fixes and source is not None:
            lines.extend(fix_diff(finding.fix, source, paint))
    return lines


def summary_lines(findings: Sequence[Finding], unsafe_fixes: bool = False, paint: Painter = Painter(False)) -> list[str]:
    if not findings:
        return ["All checks passed!"]
    lines = [found_line(findings, paint)]
    fixable = sum(1 for finding in findings if counts_as_fixable(finding, unsafe_fixes))
    if fixable:
        counts_unsafe = any(finding.fix is not None and not finding.has_safe_fix for finding in findings) and unsafe_fixes
        lines.append(f"[*] {fixable} fixable with `gradlint fix{' --unsafe-fixes' if counts_unsafe else ''}`.")
    unsafe = sum(1 for finding in findings if finding.fix is not None and not counts_as_fixable(finding, unsafe_fixes))
    if unsafe:
        lines.append(f"{unsafe} more fixable with `gradlint fix --unsafe-fixes`.")
    return lines


def found_line(findings: Sequence[Finding], paint: Painter = Painter(False)) -> str:
    """ruff's `Found 3 errors.`, with the findings counted by severity: `Found 3 errors (severity:
    1 error, 2 warning).` (ruff calls every finding an error; the severity says which matter most)."""
    count = len(findings)
    by_severity = Counter(severity_of(finding.code) for finding in findings)
    split = ", ".join(
        f"{by_severity[severity]} {paint(severity, fg=SEVERITY_COLORS[severity])}" for severity in SEVERITIES if by_severity[severity]
    )
    return f"Found {count} error{'s' if count != 1 else ''} (severity: {split})."


def render_statistics(
    findings: Sequence[Finding], output_format: str = "text", color: bool = False, quiet: bool = False, unsafe_fixes: bool = False
) -> str:
    """Counts per rule, most frequent first: a table to read, with its severity column, ruff's
    fixability marker (`[*]` every finding of the rule fixable, `[~]` some, `[ ]` none; no column
    when nothing is fixable) and the summary, or (for the formats tools parse) a JSON list of
    `{"code", "name", "severity", "count", "fixable", "fixable_count"}` (ruff's, with the severity;
    `fixable`: any of them is)."""
    counts = Counter(finding.code for finding in findings)
    fixable = Counter(finding.code for finding in findings if counts_as_fixable(finding, unsafe_fixes))
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if output_format not in HUMAN_FORMATS:
        rows_of = [
            {
                "code": code,
                "name": rule_by_code(code).name,
                "severity": severity_of(code),
                "count": count,
                "fixable": fixable[code] > 0,
                "fixable_count": fixable[code],
            }
            for code, count in ordered
        ]
        return json.dumps(rows_of, indent=2) + "\n"
    paint = Painter(color)
    rows = []
    for code, count in ordered:
        marker = _fixability_marker(fixable[code], count, paint) if fixable else ""
        severity = paint(f"{severity_of(code):<7}", fg=SEVERITY_COLORS[severity_of(code)])
        rows.append(f"{count:>5}\t{paint_code(code, paint)}\t{severity}\t{marker}{rule_by_code(code).name}\n")
    if findings and not quiet:
        rows.extend(line + "\n" for line in summary_lines(findings, unsafe_fixes, paint))
    return "".join(rows)


def _fixability_marker(fixable: int, count: int, paint: Painter) -> str:
    if fixable == count:
        return f"[{paint('*', fg='cyan')}] "
    return f"[{paint('~', fg='cyan')}] " if fixable else "[ ] "


def render_fixed_only(fixed: int, remaining: Sequence[Finding], unsafe_fixes: bool) -> str:
    """What `check --fix-only` says: only what it fixed (ruff's line), and how many more fixes
    `--unsafe-fixes` would apply; nothing of what remains."""
    hidden = sum(1 for finding in remaining if finding.fix is not None and not counts_as_fixable(finding, unsafe_fixes))
    head = f"Fixed {fixed} error{'s' if fixed != 1 else ''}" if fixed else "No errors fixed"
    if hidden:
        more = "additional " if fixed else ""
        head += f" ({hidden} {more}fix{'es' if hidden != 1 else ''} available with `--unsafe-fixes`)"
    return head + ".\n"


def render_fix_summary(
    fixed: int,
    remaining: Sequence[Finding],
    unsafe_enabled: bool,
    changed_files: int = 0,
    table: bool = True,
    unfixable: frozenset[str] = frozenset(),
    unwritten: Collection[str] = (),
) -> str:
    """What `gradlint fix` did and, rule by rule, what is left and what it takes to finish it
    (`table` False: the first line only, when `--statistics` has listed what is left;
    `unfixable`: the rules whose fixes the `fixable`/`unfixable` settings hold back;
    `unwritten`: the files whose fixes could not be written, each said on stderr)."""
    head = f"Fixed {fixed} error{'s' if fixed != 1 else ''}, {len(remaining)} remaining"
    if changed_files and not fixed:
        # Nothing to fix, yet files changed: legacy imports that fixes of an earlier run left unused.
        head += f" ({changed_files} file{'s' if changed_files != 1 else ''} rewritten to remove imports earlier fixes left unused)"
    if not remaining or not table:
        return head + ".\n"
    by_rule: dict[str, list[Finding]] = {}
    for finding in remaining:
        by_rule.setdefault(finding.code, []).append(finding)
    width = max(30, *(len(rule_by_code(code).name) for code in by_rule))
    # Only a fixable finding can hold up another: thousands of unfixable ones on a line need not
    # each be compared with all the others.
    fixable = [finding for finding in remaining if finding.fix is not None]
    rows = [head + ":"]
    for code, of_rule in sorted(by_rule.items()):
        blocked = [finding for finding in of_rule if finding.path in unwritten and finding.fix is not None]
        steps = _what_it_takes(
            [finding for finding in of_rule if not (finding.path in unwritten and finding.fix is not None)],
            fixable,
            unsafe_enabled,
            code in unfixable,
        )
        if blocked:
            steps = "; ".join(filter(None, [f"{len(blocked)} in files that could not be written", steps]))
        rows.append(f"{len(of_rule):>5}  {code}  {rule_by_code(code).name:<{width}} {steps}")
    return "".join(row + "\n" for row in rows)


def _what_it_takes(findings: Sequence[Finding], fixable: Sequence[Finding], unsafe_enabled: bool, held_back: bool = False) -> str:
    """The next step for one rule's remaining findings, most automatic first (`fixable`: the
    remaining findings that have a fix; `held_back`: the rule is not fixable here)."""
    if held_back:
        return "not fixed: the rule is not fixable here (`fixable`/`unfixable`)"
    safe = sum(1 for finding in findings if finding.has_safe_fix)
    unsafe = sum(1 for finding in findings if finding.fix is not None and not finding.has_safe_fix)
    unfixed = [finding for finding in findings if finding.fix is None]
    waiting = Counter(code for finding in unfixed if (code := overlapping_fix(finding, fixable)) is not None)
    manual = len(unfixed) - sum(waiting.values())
    steps = []
    if safe or (unsafe and unsafe_enabled):
        steps.append(f"{safe + (unsafe if unsafe_enabled else 0)} blocked by other edits: run `gradlint fix` again")
    if unsafe and not unsafe_enabled:
        steps.append(f"{unsafe} fixable with `--unsafe-fixes` (review them)")
    for code, count in sorted(waiting.items()):
        steps.append(f"{count} fixable once {code}'s finding is fixed")
    if manual:
        steps.append(f"{manual} need{'s' if manual == 1 else ''} a person (no automatic fix)")
    return "; ".join(steps)


def overlapping_fix(finding: Finding, remaining: Sequence[Finding]) -> Optional[str]:
    """The code of another rule's fixable finding on the same code as `finding` (which has no fix
    while that one stands, e.g. a `Variable(...)` call waiting for its `volatile=` to go)."""
    for other in remaining:
        if other is finding or other.fix is None or (other.path, other.cell) != (finding.path, finding.cell) or other.code == finding.code:
            continue
        if other.location < finding.end_location and finding.location < other.end_location:
            return other.code
    return None
