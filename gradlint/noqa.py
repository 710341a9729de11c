"""`# noqa` comments: per line; `# gradlint: noqa` (every code) and `# gradlint: noqa: GL101, GL3`
(those codes) on a line of their own for a whole file."""

from __future__ import annotations

import io
import re
import tokenize
from bisect import bisect_left
from dataclasses import dataclass
from typing import Iterable, Optional

from gradlint.source import LineIndex

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
    if _FILE_DIRECTIVE.search(text) is None and _LOOSE_LINE_NOQA.search(text) is None:
        return []  # no candidate anywhere: tokenizing (slow, in Python) would find none either
    problems = []
    lines = NoqaLines(text)
    for row, column, comment in lines.comments() or ():
        if "noqa" not in comment.lower():
            continue
        comment = comment.strip()
        if _FILE_DIRECTIVE.match(comment):
            line = f"{' ' * column}{comment}"
            if column and lines.line(row)[:column].strip():
                problems.append(f"line {row}: `{comment}` is not on a line of its own, so it suppresses nothing in the file")
            elif not (_FILE_NOQA.fullmatch(line) or _FILE_CODES.fullmatch(line)):
                problems.append(f"line {row}: malformed `{comment}`: write `# gradlint: noqa` or `# gradlint: noqa: GL101, GL3`")
        elif _LOOSE_LINE_NOQA.search(comment):
            problems.append(f"line {row}: `{comment}` names no valid code, so it suppresses every finding on its line")
    return problems


def noqa_codes(line: str) -> Optional[frozenset[str]]:
    """None when the line has no noqa; ALL (empty) for a bare noqa; else the codes it names."""
    if "noqa" not in line.lower():
        return None
    match = _LINE_NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    return ALL if codes is None else frozenset(code.upper() for code in _CODE.findall(codes))


def suppresses(codes: Optional[frozenset[str]], code: str) -> bool:
    """Whether a line's noqa `codes` (as `noqa_codes` gives them) suppress `code`."""
    if codes is None:
        return False
    return codes is ALL or not codes or any(code.startswith(named) for named in codes)


@dataclass(frozen=True)
class Directive:
    """A line's `# noqa` or `# noqa: CODES` in a real comment (never in a string)."""

    row: int
    start: int  # offset of its `#` in the text
    end: int  # offset just past `noqa`, or past its last code
    codes: tuple[str, ...]  # as written; () for a bare noqa

    @property
    def names_codes(self) -> bool:
        return bool(self.codes)


class NoqaLines:
    """Where each line's `# noqa` is read, and the noqa directives of a file's comments.

    A finding on a line that ends inside a multi-line string, or with a `\\` continuation, is
    suppressed at the end of that string or statement (as ruff does): a comment cannot go
    earlier. The file is tokenized only when a question needs it, once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._index: Optional[LineIndex] = None
        self._scanned = False
        self._line_ends: Optional[list[int]] = None  # rows that end outside any string and continuation
        self._comments: dict[int, tuple[int, str]] = {}  # row -> (offset, text) of its comment
        # Answers per row: each question reads the whole line, and one line may hold thousands of findings
        self._rows_for: dict[int, int] = {}
        self._codes_at: dict[int, Optional[frozenset[str]]] = {}

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex.of(self.text)
        return self._index

    def line(self, row: int) -> str:
        """The text of `row`, without its line ending."""
        return self.text[self.index.line_start(row) : self.index.line_end(row)].rstrip("\r\n")

    def row_for(self, row: int) -> int:
        """The row whose comment suppresses findings on `row`."""
        if row not in self._rows_for:
            self._rows_for[row] = self._row_for(row)
        return self._rows_for[row]

    def _row_for(self, row: int) -> int:
        if not 0 < row <= len(self.index.starts):
            return row
        line = self.line(row)
        if not (line.endswith("\\") or '"""' in line or "'''" in line):
            return row  # the line ends outside any string: its own comment counts
        ends = self._scan()[0]
        if ends is None:
            return row
        found = bisect_left(ends, row)
        return ends[found] if found < len(ends) else row

    def codes_at(self, row: int) -> Optional[frozenset[str]]:
        """None when `row` has no noqa; ALL for a bare one; else the codes it names."""
        if row not in self._codes_at:
            self._codes_at[row] = self._codes_on(row)
        return self._codes_at[row]

    def _codes_on(self, row: int) -> Optional[frozenset[str]]:
        if not 0 < row <= len(self.index.starts):
            return None
        line = self.line(row)
        if "noqa" not in line.lower():
            return None
        if ("'" in line or '"' in line) and self._scan()[0] is not None:
            directive = self.directive_at(row)  # only a real comment counts, not a string's text
            return None if directive is None else frozenset(code.upper() for code in directive.codes) or ALL
        return noqa_codes(line)  # no string on the line: every `#` starts a comment

    def directive_at(self, row: int) -> Optional[Directive]:
        comments = self._scan()[1]
        if row not in comments:
            return None
        return _directive(row, *comments[row])

    def comments(self) -> Optional[list[tuple[int, int, str]]]:
        """(row, column, text) of every comment, in order; None when the text does not tokenize."""
        ends, comments = self._scan()
        if ends is None:
            return None
        return [(row, offset - self.index.line_start(row), comment) for row, (offset, comment) in sorted(comments.items())]

    def directives(self) -> list[Directive]:
        """Every line directive in the file's comments, in order."""
        if _NOQA_WORD.search(self.text) is None:
            return []
        found = (self.directive_at(row) for row in sorted(self._scan()[1]))
        return [directive for directive in found if directive is not None]

    def _scan(self) -> tuple[Optional[list[int]], dict[int, tuple[int, str]]]:
        if not self._scanned:
            self._scanned = True
            ends, comments = [], {}
            try:
                for token in tokenize.generate_tokens(io.StringIO(self.text, newline=None).readline):
                    if token.type in (tokenize.NEWLINE, tokenize.NL):
                        ends.append(token.start[0])
                    elif token.type == tokenize.COMMENT:
                        row, column = token.start
                        comments[row] = (self.index.offset(row, column), token.string)
            except (tokenize.TokenError, SyntaxError, ValueError):
                ends = None  # not Python: each line is read on its own
            self._line_ends, self._comments = ends, comments
        return self._line_ends, self._comments


def _directive(row: int, offset: int, comment: str) -> Optional[Directive]:
    match = _LINE_NOQA.search(comment)
    if match is None:
        return None
    codes = tuple(_CODE.findall(match.group("codes"))) if match.group("codes") else ()
    return Directive(row, offset + match.start(), offset + match.end(), codes)


def directive_text(codes: Iterable[str]) -> str:
    return f"# noqa: {', '.join(codes)}"


def merged_codes(existing: Iterable[str], added: Iterable[str]) -> list[str]:
    """Sorted, each code once (as first written)."""
    kept: dict[str, str] = {}
    for code in (*existing, *added):
        kept.setdefault(code.upper(), code)
    return sorted(kept.values(), key=str.upper)


def add_noqa(text: str, wanted: dict[int, set[str]], lines: Optional[NoqaLines] = None) -> tuple[str, int]:
    """`text` with `# noqa: CODES` on each row of `wanted` (rows where noqa is read), merged into
    the row's noqa directive when it has one, else appended after the code and any comment.
    Returns the new text and how many rows were changed."""
    lines = lines or NoqaLines(text)
    edits = [edit for row in sorted(wanted) if (edit := noqa_edit(lines, row, wanted[row])) is not None]
    pieces, last = [], 0
    for start, end, content in edits:
        pieces += [text[last:start], content]
        last = end
    return "".join(pieces) + text[last:], len(edits)


def noqa_edit(lines: NoqaLines, row: int, codes: Iterable[str]) -> Optional[tuple[int, int, str]]:
    """The edit, as (start, end, replacement) offsets in the text, that makes `row` name `codes`:
    merged into its `# noqa: ...`, else `  # noqa: CODES` after its code and any comment. None
    for a bare `# noqa`, which already suppresses everything."""
    directive = lines.directive_at(row)
    if directive is not None:
        if not directive.names_codes:
            return None
        return directive.start, directive.end, directive_text(merged_codes(directive.codes, codes))
    start = lines.index.line_start(row)
    content = lines.line(row)
    kept = content.rstrip()
    return start + len(kept), start + len(content), f"  {directive_text(merged_codes((), codes))}"


def with_noqa_code(line: str, code: str) -> Optional[tuple[int, int, str]]:
    """The edit that makes `line` (without its line break) suppress `code`, as (start, end,
    replacement) within the line, as `--add-noqa` makes it. None when the line already
    suppresses `code` or cannot take a comment (it continues with a backslash)."""
    lines = NoqaLines(line)
    if suppresses(lines.codes_at(1), code) or line.rstrip().endswith("\\"):
        return None
    return noqa_edit(lines, 1, [code])
