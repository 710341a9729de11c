from __future__ import annotations

from gradlint.rules.base import Severity
from gradlint.rules.file_rule import FileFailure, FileRule


class UndecodableFile(FileRule):
    """
    ## What it does
    Reports a file whose bytes are not valid text in the encoding it declares (UTF-8 unless a
    PEP 263 coding cookie such as `# -*- coding: latin-1 -*-` says otherwise), at the first
    invalid byte (the line CPython names in its error), or at the coding cookie when that names
    an unknown encoding or contradicts a UTF-8 BOM.

    ## Why is this bad?
    Python refuses to import it (`SyntaxError: Non-UTF-8 code starting with '\\xe9' in file ... on
    line 6, but no encoding declared`), and it cannot be analysed.

    ## Example
    A file saved as Latin-1 (`é` is the byte `0xe9`) with no coding cookie.

    ## Use instead
    Save the file as UTF-8, or declare its encoding on the first or second line:
    `# -*- coding: latin-1 -*-`.

    ## Fix safety
    No fix.

    ## Known limits
    Suppress with `--ignore GL002`.
    """

    code = "GL002"
    name = "undecodable-file"
    summary = "file is not valid text in its declared encoding"
    severity = Severity.ERROR
    failure = FileFailure.UNDECODABLE
    message_prefix = "could not decode: "
