"""flake8 adapter: `flake8 --select GL` runs every gradlint rule on each file.

flake8 owns selection and `# noqa` handling here; gradlint only honours its own whole-file
`# gradlint: noqa` comment.
"""

from __future__ import annotations

import ast
from typing import Iterator, Sequence

from gradlint import __version__
from gradlint.engine import lint_text
from gradlint.noqa import file_is_exempt
from gradlint.rules import all_codes


class GradlintPlugin:
    name = "gradlint"
    version = __version__

    def __init__(self, tree: ast.AST, filename: str, lines: Sequence[str]) -> None:
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        text = "".join(self.lines)
        if file_is_exempt(text):
            return
        outcome = lint_text(text, self.filename, frozenset(all_codes()), respect_noqa=False)
        for finding in outcome.findings:
            # flake8 columns are 0-based offsets; it adds 1 when printing.
            yield finding.location.row, finding.location.column - 1, f"{finding.code} {finding.message}", type(self)
