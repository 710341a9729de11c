from __future__ import annotations

import libcst as cst

from gradlint.rules.base import Invalid, Severity
from gradlint.rules.file_rule import FileFailure, FileRule


class InvalidSyntax(FileRule):
    """
    ## What it does
    Reports a file that is not valid Python 3 (a syntax error, or a Python 2 file with
    `print x` or `except E, e:`), at the position of the error.

    ## Why is this bad?
    Such a file cannot be analysed, so none of its mistakes can be found; under Python 3 it
    raises `SyntaxError` on import.

    ## Example
    ```python
    print "epoch", epoch
    ```

    ## Use instead
    ```python
    print("epoch", epoch)
    ```

    `except E, e:` is reported too: Python 2 meant "bind the exception to `e`", Python 3.9-3.13
    reject it, and Python 3.14 reads it as "catch E or e".

    ## Fix safety
    No fix.

    ## Known limits
    Only the first syntax error of a file is reported, at the position CPython gives it. A
    notebook's code cells are read as the kernel runs them: IPython syntax (magics, shell escapes,
    help) is masked, and a cell indented as a whole is dedented first, as IPython does; a cell
    whose later lines are indented less than its first is reported (IPython 9 raises on it).
    Valid Python beyond LibCST's parser (an expression of several thousand implicitly joined
    strings) cannot be analysed either: it is reported with a reason that says so.
    Suppress with `--ignore GL001`.
    """

    code = "GL001"
    name = "invalid-syntax"
    summary = "file could not be parsed"
    severity = Severity.ERROR
    failure = FileFailure.INVALID_SYNTAX
    message_prefix = "could not parse: "
    # Parse failures are reported before any node is visited; this visitor adds Python 2
    # `except E, e:`, which LibCST parses.
    triggers = ("except",)

    VALID = (
        "try:\n    pass\nexcept (E, F):\n    pass\n",
        "try:\n    pass\nexcept E as e:\n    pass\n",
    )
    INVALID = (Invalid("try:\n    pass\nexcept E, e:\n    pass\n"),)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        kind = node.type
        if isinstance(kind, cst.Tuple) and not kind.lpar and len(kind.elements) == 2 and node.name is None:
            self.report(kind, "could not parse: Python 2 syntax `except E, e:`; use `except E as e:`")
