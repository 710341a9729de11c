"""`# noqa` comments: per line, and `# gradlint: noqa` for a whole file."""

from __future__ import annotations

import re
from typing import Optional

_LINE_NOQA = re.compile(r"#\s*noqa(?::[\s]*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"^[ \t]*#[ \t]*gradlint:[ \t]*noqa[ \t]*$", re.MULTILINE | re.IGNORECASE)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)

ALL = frozenset()  # a noqa comment that names no code


def file_is_exempt(text: str) -> bool:
    return "noqa" in text and _FILE_NOQA.search(text) is not None


def noqa_codes(line: str) -> Optional[frozenset[str]]:
    """None when the line has no noqa; ALL (empty) for a bare noqa; else the codes it names."""
    if "noqa" not in line.lower():
        return None
    match = _LINE_NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    return ALL if codes is None else frozenset(code.upper() for code in _CODE.findall(codes))


def is_suppressed(code: str, line: str) -> bool:
    codes = noqa_codes(line)
    if codes is None:
        return False
    return codes is ALL or not codes or any(code.startswith(named) for named in codes)
