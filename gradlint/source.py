"""Reading source bytes into text and back, keeping encoding, BOM and line endings."""

from __future__ import annotations

import io
import re
import tokenize
from bisect import bisect_right
from dataclasses import dataclass
from typing import Optional

_NEWLINE = re.compile(r"\r\n|\r|\n")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


class UndecodableSource(Exception):
    """The bytes are not valid text in the encoding the file declares."""


def decode_source(raw: bytes) -> tuple[str, str]:
    """Return (text, encoding). The encoding round-trips through `encode_source`.

    A UTF-8 BOM is reported as `utf-8-sig` so that writing the text back restores it.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as error:
        raise UndecodableSource(str(error)) from None
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        raise UndecodableSource(_describe_decode_error(raw, encoding, error)) from None
    return text, encoding


def _describe_decode_error(raw: bytes, encoding: str, error: Exception) -> str:
    if isinstance(error, UnicodeDecodeError):
        line = raw.count(b"\n", 0, error.start) + 1
        return f"invalid {encoding} byte 0x{raw[error.start]:02x} on line {line}"
    return f"unknown encoding {encoding!r}"


def encode_source(text: str, encoding: str) -> bytes:
    return text.encode(encoding)


def dominant_newline(text: str) -> str:
    first = _NEWLINE.search(text)
    return first.group() if first else "\n"


def lines_with_ends(text: str) -> list[str]:
    """The lines of `text` with their line breaks, which are `\r\n`, `\r` or `\n` only (not the
    form feeds and other separators `str.splitlines` also splits at)."""
    return _LINE.findall(text)


def page_break_prefix(line: str) -> int:
    """The length of `line`'s leading whitespace up to its last form feed. CPython starts counting
    the indentation again after a form feed, and LibCST leaves that part out of the statement: an
    edit of the statement's lines keeps it, and the indentation is what follows it."""
    whitespace = line[: len(line) - len(line.lstrip(" \t\f"))]
    return whitespace.rfind("\f") + 1


def indentation(line: str) -> str:
    """The indentation of a line of code as CPython measures it: after any leading form feed."""
    start = page_break_prefix(line)
    rest = line[start:]
    return rest[: len(rest) - len(rest.lstrip(" \t"))]


@dataclass(frozen=True)
class LineIndex:
    """Maps between string offsets and 1-based (row, column) pairs; columns count characters."""

    starts: tuple[int, ...]
    length: int

    @classmethod
    def of(cls, text: str) -> "LineIndex":
        return cls((0, *(match.end() for match in _NEWLINE.finditer(text))), len(text))

    def offset(self, row: int, column: int) -> int:
        """`column` is 0-based here, as LibCST reports it."""
        return self.starts[row - 1] + column

    def position(self, offset: int) -> tuple[int, int]:
        row = bisect_right(self.starts, offset)
        return row, offset - self.starts[row - 1] + 1

    def line_start(self, row: int) -> int:
        return self.starts[row - 1]

    def code_start(self, text: str, row: int) -> int:
        """Where `row`'s statement line starts for an edit of whole lines: after the form feeds
        that open it (see `page_break_prefix`), which stay where they are."""
        start = self.starts[row - 1]
        return start + page_break_prefix(text[start : self.line_end(row)])

    def line_end(self, row: int) -> int:
        """Offset just past the newline that ends `row` (or the end of the text)."""
        return self.starts[row] if row < len(self.starts) else self.length


class FileText(str):
    """A whole file's text as the rules ask things of it anywhere (`weights_only=False` somewhere):
    each question (`needle in text`, `text.search(pattern)`) is noted with its answer in `asked`,
    so that findings kept from an earlier version of the file are kept only while the answers hold."""

    asked: dict[tuple[str, object], bool]

    def __new__(cls, text: str) -> "FileText":
        made = super().__new__(cls, text)
        made.asked = {}
        return made

    def __contains__(self, needle: object) -> bool:
        answer = str.__contains__(self, needle)
        self.asked[("in", needle)] = answer
        return answer

    def search(self, pattern: "re.Pattern[str]") -> Optional["re.Match[str]"]:
        match = pattern.search(self)
        self.asked[("search", pattern)] = match is not None
        return match


def found_in(text: str, pattern: "re.Pattern[str]") -> Optional["re.Match[str]"]:
    """`pattern.search(text)`, noted as a question when `text` is a `FileText`."""
    return text.search(pattern) if isinstance(text, FileText) else pattern.search(text)


def answers_hold(asked: dict[tuple[str, object], bool], text: str) -> bool:
    """Whether `text` answers each question of a `FileText.asked` as noted."""
    for (kind, question), answer in asked.items():
        found = question in text if kind == "in" else question.search(text) is not None
        if found != answer:
            return False
    return True
