"""flake8 adapter: `flake8 --select GL` runs every gradlint rule on each file.

flake8 owns selection and `# noqa` handling here; gradlint only honours its own whole-file
`# gradlint: noqa` comment. Each file goes through the same pipeline as `gradlint check` (deep
stack, CPython's nesting limits, the size limit), with the names it brings in from the local
modules next to it on disk (`from model import *`).

What `gradlint check` says on stderr about a file is a row here: flake8 has no other channel, and
a file gradlint could not analyse must not pass silently. GL000 is an error (the file was not
checked: too large, an invalid notebook, an internal error), GL009 a warning (a malformed
`# gradlint: noqa`), both on the first line.
"""

from __future__ import annotations

import ast
from typing import Iterator, Sequence

from gradlint import __version__
from gradlint.local_modules import facts_beside
from gradlint.notebook import json_location
from gradlint.pipeline import check_source
from gradlint.rules import all_codes


_NAMELESS = ("-", "stdin")  # flake8's names for source read from stdin without a display name
NOT_CHECKED = "GL000"
WARNING = "GL009"


class GradlintPlugin:
    name = "gradlint"
    version = __version__

    def __init__(self, tree: ast.AST, filename: str, lines: Sequence[str]) -> None:
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        source = "".join(self.lines)
        project = facts_beside(source, self.filename, ()) if self.filename not in _NAMELESS else None
        result = check_source(source, self.filename, frozenset(all_codes()), own_noqa=False, project=project)
        for code, reason in ((NOT_CHECKED, result.error), (WARNING, result.warning)):
            if reason is not None:
                yield 1, 0, f"{code} gradlint: {reason}", type(self)
        for finding in result.findings:
            # A notebook's rows count within its cells; flake8 prints rows of the file (its JSON).
            where = json_location(source, finding.cell, finding.location) if finding.cell is not None else finding.location
            # flake8 columns are 0-based offsets; it adds 1 when printing.
            yield where.row, where.column - 1, f"{finding.code} {finding.message}", type(self)
