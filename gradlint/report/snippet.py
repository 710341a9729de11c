"""Source excerpts for the text format: the offending line with carets, and a fix as a small diff."""

from __future__ import annotations

import re
import unicodedata
from typing import Callable, NamedTuple, Optional, Sequence

import click

from gradlint.model import Finding, Fix, Location
from gradlint.notebook import cell_sources
from gradlint.rules import severity_of
from gradlint.source import LineIndex

TAB = "    "
_NEWLINE = re.compile(r"\r\n|\r|\n")


def _cell_width(character: str) -> int:
    if unicodedata.combining(character):
        return 0
    return 2 if unicodedata.east_asian_width(character) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Terminal cells taken by `text` (tabs already expanded); wide CJK and emoji take two."""
    return sum(_cell_width(character) for character in text)


class Painter:
    """ANSI styles when colour is on, plain text otherwise."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, **style) -> str:
        return click.style(text, **style) if self.color else text


SEVERITY_COLORS = {"error": "red", "warning": "yellow"}


def paint_code(code: str, paint: Painter) -> str:
    """A rule's code in its severity's colour."""
    return paint(code, fg=SEVERITY_COLORS[severity_of(code)], bold=True)


class Source(NamedTuple):
    """A reported file's text with its line index, made once for all of its findings."""

    text: str
    index: LineIndex

    @classmethod
    def of(cls, text: str) -> "Source":
        return cls(text, LineIndex.of(text))

    def line(self, row: int) -> str:
        return self.text[self.index.line_start(row) : self.index.line_end(row)].rstrip("\r\n")


def source_key(finding: Finding) -> tuple[str, Optional[int]]:
    """What a finding's rows count in: its file, or the notebook cell it is in."""
    return finding.path, finding.cell


def sources_by_path(
    findings: Sequence[Finding], source_of: Callable[[str], Optional[str]]
) -> dict[tuple[str, Optional[int]], Optional[Source]]:
    """The text each finding's rows count in (its file's, or its notebook cell's), by
    `source_key`, each file read once (None where it cannot be read)."""
    sources: dict[tuple[str, Optional[int]], Optional[Source]] = {}
    for finding in findings:
        key = source_key(finding)
        if key not in sources:
            text = source_of(finding.path)
            if text is not None and finding.cell is not None:
                text = cell_sources(text).get(finding.cell)
            sources[key] = Source.of(text) if text is not None else None
    return sources


def _gutter(width: int, number: Optional[int] = None) -> str:
    return f"{number if number is not None else '':>{width}} |"


def code_frame(finding: Finding, source: Source, paint: Painter, context: int = 0) -> list[str]:
    """The finding's first line with carets under its span (to the line's end when it spans
    lines), with up to `context` lines before it and after its last line (ruff's `full` format:
    two, blank lines at the edges left out)."""
    start, end = finding.location, finding.end_location
    line_count = len(source.index.starts)
    if not 1 <= start.row <= line_count:
        return []
    line = source.line(start.row)
    last_column = end.column if end.row == start.row else len(line) + 1
    before = line[: start.column - 1].replace("\t", TAB)
    marked = line[start.column - 1 : last_column - 1].replace("\t", TAB)
    first_row, last_row = _context_rows(source, start.row, min(max(end.row, start.row), line_count), context)
    width = len(str(last_row))
    carets = "^" * max(1, display_width(marked))
    color = SEVERITY_COLORS[severity_of(finding.code)]

    def numbered(row: int) -> str:
        text = source.line(row).replace("\t", TAB)
        return paint(_gutter(width, row), fg="blue") + (" " + text if text else "")  # a blank line: no trailing space

    underline = (
        paint(_gutter(width), fg="blue") + " " + " " * display_width(before) + paint(f"{carets} {finding.code}", fg=color, bold=True)
    )
    return [
        paint(_gutter(width), fg="blue"),
        *(numbered(row) for row in range(first_row, start.row + 1)),
        underline,
        *(numbered(row) for row in range(start.row + 1, last_row + 1)),
        paint(_gutter(width), fg="blue"),
    ]


def _context_rows(source: Source, first: int, last: int, context: int) -> tuple[int, int]:
    """The rows shown around `first`..`last`: `context` more each side, without blank edges."""
    before, after = max(1, first - context), min(len(source.index.starts), last + context)
    while before < first and not source.line(before).strip():
        before += 1
    while after > last and not source.line(after).strip():
        after -= 1
    return before, after


def _affected_rows(fix: Fix) -> tuple[int, int]:
    first = min(edit.location.row for edit in fix.edits)
    last = max(edit.end_location.row - (edit.end_location.column == 1 and edit.end_location.row > edit.location.row) for edit in fix.edits)
    return first, max(first, last)


def _offset(index: LineIndex, location: Location) -> int:
    return index.offset(location.row, location.column - 1)


def fix_diff(fix: Fix, source: Source, paint: Painter) -> list[str]:
    """The lines a fix touches, before (`-`) and after (`+`)."""
    text, index = source
    first, last = _affected_rows(fix)
    if last > len(index.starts):
        return []
    begin, stop = index.line_start(first), index.line_end(last)
    after = text[begin:stop]
    for edit in sorted(fix.edits, key=lambda edit: edit.location, reverse=True):
        start, end = _offset(index, edit.location) - begin, _offset(index, edit.end_location) - begin
        after = after[:start] + edit.content + after[end:]
    before_lines = [source.line(row) for row in range(first, last + 1)]
    after_lines = _split_lines(after)
    width = len(str(max(last, first + len(after_lines))))
    removed = [_numbered(row, "-", line, width, paint, "red") for row, line in zip(range(first, last + 1), before_lines)]
    added = [_numbered(row, "+", line, width, paint, "green") for row, line in zip(range(first, first + len(after_lines)), after_lines)]
    return removed + added


def _split_lines(text: str) -> list[str]:
    lines = _NEWLINE.split(text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def _numbered(row: int, sign: str, line: str, width: int, paint: Painter, color: str) -> str:
    return paint(f"{row:>{width}} {sign} {line.replace(chr(9), TAB)}", fg=color)
