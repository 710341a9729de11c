"""`# noqa` comments: per line; `# gradlint: noqa` (every code) and `# gradlint: noqa: GL101, GL3`
(those codes) on a line of their own for a whole file."""

from __future__ import annotations

import io
import re
import tokenize
from typing import Optional

_LINE_NOQA = re.compile(r"#\s*noqa(?::[\s]*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"^[ \t]*#[ \t]*gradlint:[ \t]*noqa[ \t]*$", re.MULTILINE | re.IGNORECASE)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)
_FILE_CODES = re.compile(
    r"^[ \t]*#[ \t]*gradlint:[ \t]*noqa:[ \t]*(?P<codes>[A-Z]+[0-9]*(?:[ \t]*,?[ \t]*[A-Z]+[0-9]*)*)[ \t]*,?[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)
# A comment meant as a whole-file suppression, well formed or not.
_FILE_DIRECTIVE = re.compile(r"#[ \t]*gradlint\b[ \t]*:?[ \t]*noqa", re.IGNORECASE)
# A line suppression whose colon is followed by no code: it suppresses everything on its line.
_LOOSE_LINE_NOQA = re.compile(r"#\s*noqa\s*:\s*(?![A-Z]+[0-9]+)\S", re.IGNORECASE)

ALL = frozenset()  # a noqa comment that names no code


_NOQA_WORD = re.compile("noqa", re.IGNORECASE)


def file_is_exempt(text: str) -> bool:
    return _NOQA_WORD.search(text) is not None and _FILE_NOQA.search(text) is not None


def file_noqa_codes(text: str) -> frozenset[str]:
    """The codes (or code prefixes) a `# gradlint: noqa: GL101, GL3` line suppresses in the whole file."""
    if _NOQA_WORD.search(text) is None:
        return frozenset()
    return frozenset(code.upper() for found in _FILE_CODES.finditer(text) for code in _CODE.findall(found.group("codes")))


def without_suppressed(codes: frozenset[str], suppressed: frozenset[str]) -> frozenset[str]:
    return frozenset(code for code in codes if not any(code.startswith(prefix) for prefix in suppressed)) if suppressed else codes


def malformed_suppressions(text: str) -> list[str]:
    """One line of advice per suppression comment that does not do what it seems to: a whole-file
    one that is not on a line of its own or not spelled `# gradlint: noqa[: CODES]`, and a line
    `# noqa:` followed by no valid code (which then suppresses everything on its line)."""
    if _NOQA_WORD.search(text) is None:
        return []
    problems = []
    lines = text.splitlines()
    for row, column, comment in _comments(text):
        if _FILE_DIRECTIVE.match(comment):
            line = f"{' ' * column}{comment}"
            if column and lines[row - 1][:column].strip():
                problems.append(f"line {row}: `{comment}` is not on a line of its own, so it suppresses nothing in the file")
            elif not (_FILE_NOQA.fullmatch(line) or _FILE_CODES.fullmatch(line)):
                problems.append(f"line {row}: malformed `{comment}`: write `# gradlint: noqa` or `# gradlint: noqa: GL101, GL3`")
        elif _LOOSE_LINE_NOQA.search(comment):
            problems.append(f"line {row}: `{comment}` names no valid code, so it suppresses every finding on its line")
    return problems


def _comments(text: str) -> list[tuple[int, int, str]]:
    """(row, column, text) of the comments that mention noqa; none when the text does not tokenize."""
    try:
        return [
            (token.start[0], token.start[1], token.string.strip())
            for token in tokenize.generate_tokens(io.StringIO(text).readline)
            if token.type == tokenize.COMMENT and "noqa" in token.string.lower()
        ]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return []


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


def with_noqa_code(line: str, code: str) -> Optional[tuple[int, int, str]]:
    """The edit that makes `line` (without its line break) suppress `code`, as (start, end,
    replacement) within the line: `, CODE` after the codes of its `# noqa: ...`, else `  # noqa:
    CODE` at its end (after any comment, which is kept). None when the line already suppresses
    `code` or cannot take a comment (it continues with a backslash)."""
    if is_suppressed(code, line):
        return None
    match = _LINE_NOQA.search(line) if "noqa" in line.lower() else None
    if match is not None and match.group("codes") is not None:
        end = match.end("codes")
        return end, end, f", {code}"
    content = line.rstrip()
    if content.endswith("\\"):
        return None
    return len(content), len(line), f"{'  ' if content else ''}# noqa: {code}"
