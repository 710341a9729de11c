from __future__ import annotations

from typing import Sequence

from gradlint.fix.plan import Applicability, Availability
from gradlint.model import Edit, Finding, Fix, Location
from gradlint.noqa import Directive, NoqaLines, directive_text
from gradlint.rules.base import Invalid, Severity
from gradlint.rules.noqa_rule import NoqaRule


class UnusedNoqa(NoqaRule):
    """
    ## What it does
    Reports `# noqa: GLxxx` codes that suppress nothing on their line, codes that name no
    gradlint rule (`GL999`), and codes written twice. It is ruff's `RUF100` for gradlint's codes.

    ## Why is this bad?
    A stale `# noqa` outlives the code it was written for. After a migration has removed the
    `Variable(...)` call that `# noqa: GL101` excused, the comment stays behind and silently hides
    the next `Variable(...)` anyone writes on that line, and a misspelt code (`GL1O1`, `GL999`)
    suppresses nothing while it looks as if it did.

    ## Example
    ```python
    x = batch.detach()  # noqa: GL101, GL999
    ```

    With GL101 selected and `batch` no longer wrapped in `Variable(...)`, both codes are reported:
    GL101 as unused, GL999 as unknown.

    ## Use instead
    ```python
    x = batch.detach()
    ```

    ## Fix safety
    Safe: only the comment changes. The unused, unknown and duplicated codes are removed; the
    other codes and the rest of the comment are kept (`# noqa: GL101 see #12` becomes
    `# see #12`), and a `# noqa` left with no code is removed.

    ## Known limits
    Off unless selected, as `RUF100` is in ruff: `--extend-select GL900` (or a `select` that
    names `GL900`, `GL9`, `GL` or `ALL`). Only `GL` codes are judged: codes of other tools
    (`# noqa: E501`) and a bare `# noqa` are left alone. A code of a rule that is not selected
    for the file (by `--select`, `ignore`, `per-file-ignores` or `# gradlint: noqa: GL101`)
    cannot be judged and is left alone too (ruff reports such codes as non-enabled). A line
    whose `# noqa` names `GL900` itself is not judged. Under `--ignore-noqa` and in the flake8
    plugin (where flake8 handles `# noqa`) it reports nothing.
    """

    code = "GL900"
    name = "unused-noqa"
    summary = "`# noqa` codes that suppress nothing"
    severity = Severity.WARNING  # the code runs as written; only its comment is stale
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("noqa", "NOQA")
    opt_in = True

    VALID = (
        """
        from torch.autograd import Variable
        x = Variable(batch)  # noqa: GL101
        """,
        "x = batch.detach()  # noqa\n",
        "x = batch.detach()  # noqa: E501, F401\n",
        "x = batch.detach()  # noqa: GL101, GL900\n",
        "x = batch.detach()  # NOQA: E501\n",
        'text = """\n# noqa: GL999\n"""\n',
    )
    INVALID = (
        Invalid(
            "x = batch.detach()  # noqa: GL101\n",
            "x = batch.detach()\n",
            line=1,
            column=21,
            message="unused: `GL101`",
            fix_title="Remove unused `noqa` directive",
        ),
        Invalid("x = batch.detach()  # noqa: GL999, E501\n", "x = batch.detach()  # noqa: E501\n", line=1, message="unknown: `GL999`"),
        Invalid(
            """
            from torch.autograd import Variable
            x = Variable(batch)  # noqa: GL101, GL101
            """,
            """
            from torch.autograd import Variable
            x = Variable(batch)  # noqa: GL101
            """,
            line=2,
            message="duplicated: `GL101`",
            fix_title="Remove unused codes from `noqa` directive",
        ),
        Invalid("x = batch.detach()  # noqa: GL303 (the .data read)\n", "x = batch.detach()  # (the .data read)\n"),
        Invalid("# noqa: GL101\nx = batch.detach()\n", "x = batch.detach()\n"),
        Invalid("x = batch.detach()  # NOQA:GL303,E501\n", "x = batch.detach()  # noqa: E501\n"),
        Invalid("x = batch.detach()  # noqa: GL303  # type: ignore\n", "x = batch.detach()  # type: ignore\n"),
    )

    @classmethod
    def judge(
        cls, lines: NoqaLines, findings: Sequence[Finding], selected: frozenset[str], known: frozenset[str], path: str
    ) -> list[Finding]:
        found_on: dict[int, set[str]] = {}
        for finding in findings:
            found_on.setdefault(finding.noqa_row, set()).add(finding.code)
        judged = []
        for directive in lines.directives():
            if not directive.codes or any(cls.code.startswith(code.upper()) for code in directive.codes):
                continue  # a bare noqa is not judged, nor a line that excuses this rule
            kept, problems = _sort_codes(directive.codes, found_on.get(directive.row, set()), selected, known)
            if problems:
                judged.append(cls._finding(lines, directive, kept, problems, path))
        return judged

    @classmethod
    def _finding(cls, lines: NoqaLines, directive: Directive, kept: list[str], problems: dict[str, list[str]], path: str) -> Finding:
        described = "; ".join(f"{kind}: {', '.join(f'`{code}`' for code in codes)}" for kind, codes in problems.items() if codes)
        if kept:
            title, start, end, content = "Remove unused codes from `noqa` directive", directive.start, directive.end, directive_text(kept)
        else:
            title, (start, end, content) = "Remove unused `noqa` directive", _deletion(lines, directive)
        edit = Edit(start, end, content, _location(lines, start), _location(lines, end))
        return Finding(
            cls.code,
            f"Unused `noqa` directive ({described})",
            path,
            _location(lines, directive.start),
            _location(lines, directive.end),
            Fix(Applicability.SAFE, title, (edit,)),
            directive.row,
        )


def _sort_codes(
    codes: Sequence[str], found: set[str], selected: frozenset[str], known: frozenset[str]
) -> tuple[list[str], dict[str, list[str]]]:
    """The codes to keep, and the problems of the others (by kind, in ruff's order)."""
    kept: list[str] = []
    problems: dict[str, list[str]] = {"duplicated": [], "unknown": [], "unused": []}
    seen: set[str] = set()
    for written in codes:
        code = written.upper()
        if code in seen:
            problems["duplicated"].append(written)
            continue
        seen.add(code)
        if not code.startswith("GL"):
            kept.append(written)  # another tool's code
        elif not any(rule.startswith(code) for rule in known):
            problems["unknown"].append(written)
        elif any(rule.startswith(code) for rule in found) or not any(rule.startswith(code) for rule in selected):
            kept.append(written)  # it suppresses a finding, or its rules are off here and cannot be judged
        else:
            problems["unused"].append(written)
    return kept, {kind: codes for kind, codes in problems.items() if codes}


def _deletion(lines: NoqaLines, directive: Directive) -> tuple[int, int, str]:
    """The edit that removes a directive and the space around it, keeping the rest of its comment
    (ruff's rules): a comment line goes; `x  # noqa: GL101` keeps `x`; `# noqa: GL101  # more`
    keeps `# more`; `# noqa: GL101 reason` becomes `# reason`."""
    row = directive.row
    line_start = lines.index.line_start(row)
    line_end = line_start + len(lines.line(row))
    before = lines.text[line_start : directive.start]
    after = lines.text[directive.end : line_end]
    leading = len(before) - len(before.rstrip())
    trailing = len(after) - len(after.lstrip())
    if not before.strip() and not after.strip():
        return line_start, lines.index.line_end(row), ""
    if not after.strip():
        return directive.start - leading, line_end, ""
    if after.lstrip().startswith("#"):
        return directive.start, directive.end + trailing, ""
    return directive.start, directive.end + trailing, "# "


def _location(lines: NoqaLines, offset: int) -> Location:
    return Location(*lines.index.position(offset))
