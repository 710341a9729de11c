"""Jupyter notebooks (`.ipynb`): their code cells as one Python module, and back.

The code cells are analysed together, as the notebook's kernel runs them: one module, each cell
followed by a line of its own that marks the boundary. IPython syntax that is not Python (line
magics `%time`, shell escapes `!pip` and `x = !ls`, help `obj?`) is masked by a `pass` placeholder
line; a cell magic (`%%bash`) takes the whole cell out, except those whose body is Python
(`%%time`), where only the magic line is masked. A cell indented as a whole is dedented, as
IPython's `leading_indent` does before it runs the cell. Markdown and raw cells are not code.

Findings are reported in the cell's own coordinates (`cell` is the cell's 1-based position among
all cells of the notebook, as ruff counts). A fix is applied only when it touches neither a
boundary nor a masked line; the fixed cells are written back into the notebook's JSON text in
place (a dedented cell with its indentation restored), so everything else (indentation, key order,
outputs, metadata, the final newline) stays byte for byte as it was.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import keyword
import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional, Sequence, Union

from gradlint.files import NOTEBOOK_SUFFIX
from gradlint.model import Edit, Finding, Fix, Location

SUFFIX = NOTEBOOK_SUFFIX

# Cell magics whose body is Python run in the kernel's namespace: only their first line is masked.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
# Line magics IPython runs without `%` (automagic), when such a line is not Python anyway.
AUTOMAGICS = frozenset(
    {"cd", "conda", "env", "history", "load_ext", "mamba", "matplotlib", "pip", "pwd", "reload_ext", "run", "set_env", "time", "timeit"}
)
_ESCAPES = ("%", "!", "?", "/", ";", ",")  # IPython's escapes at the start of a line
_SHELL_ASSIGNMENT = re.compile(r"[\w.\[\]'\", ]+=\s*[!%]")  # `files = !ls`, `names = %who_ls`
_WORD = re.compile(r"[^\W\d]\w*")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
MARK = "gradlint-ipynb"  # occurs in no notebook's code: the boundary and placeholder lines carry it
BOUNDARY = f"# {MARK} cell boundary"


class NotebookError(Exception):
    """The file is not a notebook gradlint can read; the message is a one-line reason."""


def is_notebook(name: str) -> bool:
    return name.lower().endswith(SUFFIX)


@dataclass(frozen=True)
class _CodeCell:
    number: int  # 1-based position among all cells
    text: str  # the cell's source as written
    masked: str  # the same, with IPython syntax replaced by placeholders
    restore: dict[str, str]  # placeholder line -> the original line
    rows: int  # lines the cell shows (an empty cell, or one ending in a newline, shows one more)
    indent: str = ""  # the indentation IPython removes from a cell indented as a whole
    shifted: frozenset[int] = frozenset()  # the rows (1-based) that lost `indent`: every line but blank ones

    def column(self, row: int, column: int) -> int:
        """The column in the cell as written of a column of its analysed (dedented) `row`."""
        return column + len(self.indent) if row in self.shifted else column


@dataclass(frozen=True)
class Notebook:
    text: str  # the JSON as read
    cells: tuple[_CodeCell, ...]
    code: str  # the module analysed: every code cell, with boundary lines between them
    starts: tuple[int, ...]  # 1-based row of `code` where each cell starts
    ends: tuple[int, ...] = ()  # offset in `code` of the newline that ends each cell (the cell does not have it)

    # -- from `code` back to the cells ---------------------------------------------------------

    def locate(self, location: Location) -> tuple[int, Location]:
        """The cell number and the position within that cell of a position in `code`."""
        index = max(bisect_right(self.starts, location.row) - 1, 0)
        cell = self.cells[index]
        row = location.row - self.starts[index] + 1
        if row > cell.rows:  # past the cell's last line (its boundary line, the end of the code): the end of the cell
            return cell.number, Location(cell.rows, len(cell.text) - max(cell.text.rfind("\n"), cell.text.rfind("\r")))
        return cell.number, Location(row, cell.column(row, location.column))

    def described(self, warning: Optional[str]) -> Optional[str]:
        """A warning about lines of `code` (`line 7: ...`) about the cells' lines instead."""

        def in_cell(match: re.Match) -> str:
            cell, location = self.locate(Location(int(match.group(1)), 1))
            return f"cell {cell}, line {location.row}:"

        return re.sub(r"\bline (\d+):", in_cell, warning) if warning is not None else None

    def masked_rows(self) -> frozenset[int]:
        return frozenset(row for row, line in enumerate(_NEWLINE.split(self.code), start=1) if MARK in line)

    def findings(self, findings: list[Finding]) -> list[Finding]:
        """Findings on `code`, placed in their cells; none on masked lines or boundaries, and no
        fix that would cross a boundary or rewrite a masked line."""
        masked, guard = self.masked_rows(), EditGuard()
        return [self._placed(finding, guard) for finding in findings if finding.location.row not in masked]

    def _placed(self, finding: Finding, guard: "EditGuard") -> Finding:
        cell, start = self.locate(finding.location)
        fix = finding.fix
        if fix is not None and not guard(self.code, fix):
            fix = None
        if fix is not None:
            edits = [self._edit(edit) for edit in fix.edits]
            fix = dataclasses.replace(fix, edits=tuple(edits)) if None not in edits else None
        noqa_row = self.locate(Location(finding.noqa_row, 1))[1].row if finding.noqa_row else 0
        return dataclasses.replace(
            finding,
            message=self._cell_lines(finding.message, cell),
            location=start,
            end_location=self.locate(finding.end_location)[1],
            fix=fix,
            noqa_row=noqa_row,
            cell=cell,
        )

    def _cell_lines(self, message: str, cell: int) -> str:
        """A message naming a line of `code` (`... backward() (line 6)`) names it within its cell,
        and the cell too when it is another one."""

        def in_cell(match: re.Match) -> str:
            other, location = self.locate(Location(int(match.group(1)), 1))
            return f"(line {location.row})" if other == cell else f"(cell {other}, line {location.row})"

        return re.sub(r"\(line (\d+)\)", in_cell, message)

    def _edit(self, edit: Edit) -> Optional[Edit]:
        index = max(bisect_right(self.starts, edit.location.row) - 1, 0)
        if self.cells[index].indent:
            return self._reindented_edit(edit, index)
        return dataclasses.replace(edit, location=self.locate(edit.location)[1], end_location=self.locate(edit.end_location)[1])

    def _reindented_edit(self, edit: Edit, index: int) -> Optional[Edit]:
        """An edit of a dedented cell, in the cell as written: the whole lines it touches,
        replaced by what the edit makes of them with the cell's indentation restored (a column
        shift alone would leave the lines an inserted line break starts without it). None for
        an edit that reaches past the cell's last line."""
        code, cell, content, edit_end = self.code, self.cells[index], edit.content, edit.end
        if edit_end == self.ends[index] + 1 and content.endswith("\n"):  # it rewrites the newline `code` adds to the cell
            content, edit_end = content[:-1], edit_end - 1
        if edit_end > self.ends[index]:
            return None
        start = code.rfind("\n", 0, edit.start) + 1
        end = _NEWLINE.search(code, edit_end)
        end = end.start() if end is not None else len(code)
        dedented = code[start : edit.start] + content + code[edit_end:end]
        content = "".join(_indented(_restore(line, cell.restore), cell.indent) for line in _LINES.findall(dedented))
        first, last = self.locate(edit.location)[1].row, self.locate(edit.end_location)[1].row
        written = _LINES.findall(cell.text)
        end_column = len(written[last - 1].rstrip("\r\n")) + 1 if last <= len(written) else 1
        return dataclasses.replace(edit, content=content, location=Location(first, 1), end_location=Location(last, end_column))

    # -- writing fixed code back ---------------------------------------------------------------

    def cell_texts(self, code: str) -> list[str]:
        """The source of each code cell in a fixed `code`, IPython syntax restored."""
        segments: list[list[str]] = [[]]
        for line in _LINES.findall(code):
            if line.rstrip("\r\n") == BOUNDARY:
                segments.append([])
            else:
                segments[-1].append(line)
        if len(segments) != len(self.cells):
            raise NotebookError("a fix moved a cell boundary; notebook left unchanged")
        texts = []
        for cell, lines in zip(self.cells, segments):
            restored = [_indented(_restore(line, cell.restore), cell.indent) for line in lines]
            if sum(1 for line in lines if MARK in line) != len(cell.restore):
                raise NotebookError(f"a fix removed an IPython line of cell {cell.number}; notebook left unchanged")
            text = "".join(restored)
            texts.append(text[:-1] if text.endswith("\n") else text)  # the newline that ended the cell in `code`
        return texts

    def written(self, code: str) -> str:
        """The notebook's JSON text with the cells of a fixed `code`, every other byte unchanged."""
        spans = source_spans(self.text)
        replaced = self.text
        changes = [(cell, text) for cell, text in zip(self.cells, self.cell_texts(code)) if text != cell.text]
        for cell, text in sorted(changes, key=lambda change: change[0].number, reverse=True):
            start, end = spans[cell.number - 1]
            replaced = replaced[:start] + _render_source(self.text, start, end, text) + replaced[end:]
        return replaced


class EditGuard:
    """Whether a fix may be applied to a notebook's `code`: none of its edits may change a
    boundary or a masked line (an insertion just before or after one is fine)."""

    def __init__(self) -> None:
        self._text = ""
        self._protected: list[tuple[int, int]] = []

    def __call__(self, text: str, fix: Fix) -> bool:
        if text is not self._text:
            self._text = text
            self._protected = [
                (match.start(), match.end()) for match in re.finditer(rf"^[^\r\n]*{MARK}[^\r\n]*(?:\r\n|\r|\n)?", text, re.M)
            ]
        return not any(_touches(edit, start, end) for edit in fix.edits for start, end in self._protected)


def _touches(edit: Edit, start: int, end: int) -> bool:
    if edit.start == edit.end:
        return start < edit.start < end
    return edit.start < end and start < edit.end


# -- reading --------------------------------------------------------------------------------------


def read_notebook(source: Union[bytes, str]) -> Optional[Notebook]:
    """The notebook's code; None when it is not a Python notebook (an R notebook, say).
    NotebookError with a one-line reason when it is no valid notebook."""
    text = _decoded(source)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not a valid notebook: invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}") from None
    except RecursionError:
        raise NotebookError("not a valid notebook: JSON nested too deep") from None
    cells = _cells(data)
    if not _is_python(data):
        return None
    code_cells = [cell for number, raw in enumerate(cells, start=1) if (cell := _code_cell(number, raw)) is not None]
    if not code_cells:
        code_cells = [_CodeCell(0, "", "", {}, 1)]  # nothing to analyse: an empty module
    return _assembled(text, code_cells)


def _decoded(source: Union[bytes, str]) -> str:
    if isinstance(source, str):
        return source
    try:
        return source.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise NotebookError(f"not a valid notebook: invalid UTF-8 byte 0x{source[error.start]:02x}") from None


def _cells(data: object) -> list:
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("not a valid notebook: no list of `cells` (nbformat 4 expected)")
    version = data.get("nbformat")
    if version != 4:
        raise NotebookError(
            f"unsupported notebook format {version!r} (nbformat 4 expected; convert it with `jupyter nbconvert --to notebook`)"
        )
    for number, cell in enumerate(data["cells"], start=1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise NotebookError(f"not a valid notebook: cell {number} has no `cell_type`")
        source = cell.get("source")
        if not (isinstance(source, str) or isinstance(source, list) and all(isinstance(line, str) for line in source)):
            raise NotebookError(f"not a valid notebook: the `source` of cell {number} is neither a string nor a list of strings")
        surrogate = _LONE_SURROGATE.search(_joined(source))
        if surrogate is not None:  # JSON escapes any UTF-16 unit; one that pairs with none is no character
            raise NotebookError(
                f"not a valid notebook: the `source` of cell {number} holds a lone surrogate \\u{ord(surrogate.group()):04x}"
            )
    return data["cells"]


def _is_python(data: dict) -> bool:
    metadata = data.get("metadata")
    language = metadata.get("language_info") if isinstance(metadata, dict) else None
    name = language.get("name") if isinstance(language, dict) else None
    return not isinstance(name, str) or name.lower() == "python"


def _joined(source: Union[str, list]) -> str:
    return source if isinstance(source, str) else "".join(source)


def _code_cell(number: int, raw: dict) -> Optional[_CodeCell]:
    if raw["cell_type"] != "code":
        return None
    text = _joined(raw["source"])
    dedent = _leading_indent(_LINES.findall(text))
    lines = [line[len(dedent) :] if line.strip() else line for line in _LINES.findall(text)]
    shifted = frozenset(row for row, line in enumerate(lines, start=1) if dedent and line.strip())
    first = lines[0].strip() if lines else ""
    magic_lines: set[int] = set()
    if first.startswith("%%"):
        if (first[2:].split() or [""])[0] not in PYTHON_CELL_MAGICS:
            return None  # `%%bash`, `%%writefile`, ...: the cell is not Python
        magic_lines.add(0)
    magic_lines |= _ipython_lines(lines, skip=magic_lines)
    restore: dict[str, str] = {}
    masked = []
    indent = ""
    for row, line in enumerate(lines):
        if row not in magic_lines:
            masked.append(line)
            continue
        if not (row - 1 in magic_lines and lines[row - 1].rstrip("\r\n").endswith("\\")):  # a continuation keeps the indent
            indent = line[: len(line) - len(line.lstrip(" \t"))]
        placeholder = f"{indent}{_names_read(line)}  # {MARK} {number}:{row}"
        restore[placeholder] = line.rstrip("\r\n")
        masked.append(placeholder + line[len(line.rstrip("\r\n")) :])
    return _CodeCell(number, text, "".join(masked), restore, len(_NEWLINE.findall(text)) + 1, dedent, shifted)


def _leading_indent(lines: list[str]) -> str:
    """The indentation IPython removes before it runs a cell (`leading_indent` of
    `IPython.core.inputtransformer2`): that of the first line that is not blank, when every line
    that is not blank starts with it. IPython 8 removes the first line's indentation from each
    line that starts with it, IPython 9 the indentation all lines share; where a line is
    indented less than the first, they differ, and the cell is left as it is."""
    written = [line for line in lines if line.strip()]
    if not written:
        return ""
    first = written[0]
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    return indent if indent and all(line.startswith(indent) for line in written) else ""


def _indented(line: str, indent: str) -> str:
    """A line of a dedented cell as the cell writes it: blank lines were left as they were."""
    return indent + line if indent and line.strip() else line


def _ipython_lines(lines: list[str], skip: set[int]) -> set[int]:
    """The rows (0-based) of IPython syntax that begin a logical line, with their continuation lines."""
    found: set[int] = set()
    quote, depth, continued = None, 0, False
    for row, line in enumerate(lines):
        at_start = quote is None and depth == 0 and not continued
        if row in skip or at_start and _is_ipython(line) or row - 1 in found and continued:
            found.add(row)
            continued = line.rstrip("\r\n").endswith("\\")
            continue
        quote, depth, continued, help_mark = _scan(line, quote, depth)
        if at_start and help_mark:
            found.add(row)
    return found


def _is_ipython(line: str) -> bool:
    stripped = line.strip()
    if stripped.startswith(_ESCAPES) or _SHELL_ASSIGNMENT.match(stripped):
        return True
    word = stripped.split(maxsplit=1)[:1]
    return bool(word) and word[0] in AUTOMAGICS and " " in stripped and not _compiles(stripped)


def _names_read(line: str) -> str:
    """The placeholder statement of a masked line: a tuple of the names it mentions (`%time y =
    Variable(x)` still uses `Variable`, so the import clean-up keeps its import), or `pass`."""
    names = dict.fromkeys(word for word in _WORD.findall(line) if word.isidentifier() and not keyword.iskeyword(word))
    return f"({', '.join(names)},)" if names else "pass"


def _compiles(line: str) -> bool:
    try:
        compile(line, "<cell>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _scan(line: str, quote: Optional[str], depth: int) -> tuple[Optional[str], int, bool, bool]:
    """After `line`: the open string quote, bracket depth, backslash continuation, and whether a
    `?` stood outside strings and comments (IPython's help)."""
    help_mark, index, length = False, 0, len(line)
    while index < length:
        char = line[index]
        if quote is not None:
            if char == "\\":
                index += 2
                continue
            if line.startswith(quote, index):
                index += len(quote)
                quote = None
                continue
        elif char == "#":
            return None, depth, False, help_mark
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif char == "?":
            help_mark = True
        elif char in "'\"":
            quote = line[index : index + 3] if line[index : index + 3] in ("'''", '"""') else char
            index += len(quote)
            continue
        index += 1
    body = line.rstrip("\r\n")
    continued = body.endswith("\\")
    if quote is not None and len(quote) == 1 and not continued:
        quote = None  # an unterminated string ends with its line
    return quote, depth, continued, help_mark


def _restore(line: str, restore: dict[str, str]) -> str:
    body = line.rstrip("\r\n")
    return restore[body] + line[len(body) :] if body in restore else line


def _assembled(text: str, cells: list[_CodeCell]) -> Notebook:
    parts, starts, ends, row, offset = [], [], [], 1, 0
    for index, cell in enumerate(cells):
        if index:
            parts.append(BOUNDARY + "\n")
            row += 1
            offset += len(BOUNDARY) + 1
        starts.append(row)
        parts.append(cell.masked + "\n")
        row += cell.rows
        offset += len(cell.masked) + 1
        ends.append(offset - 1)
    return Notebook(text, tuple(cells), "".join(parts), tuple(starts), tuple(ends))


# -- the JSON text, in place ----------------------------------------------------------------------


def source_spans(text: str) -> list[tuple[int, int]]:
    """Where the `source` value of each cell lies in the notebook's JSON text (start, end)."""
    decoder = json.JSONDecoder()
    spans: list[tuple[int, int]] = []

    def skip_value(key: str, index: int) -> int:
        return decoder.raw_decode(text, index)[1]

    def cell_member(key: str, index: int) -> int:
        end = skip_value(key, index)
        if key == "source":
            spans.append((index, end))
        return end

    def top_member(key: str, index: int) -> int:
        if key != "cells":
            return skip_value(key, index)
        index = _expect(text, index, "[")
        while text[index] != "]":
            index = _object(text, index, cell_member)
            if text[index] == ",":
                index = _skip(text, index + 1)
        return index + 1

    try:
        _object(text, _skip(text, 0), top_member)
    except (IndexError, ValueError) as error:
        raise NotebookError(f"not a valid notebook: {error}") from None
    return spans


def json_location(text: str, cell: int, location: Location) -> Location:
    """Where a position in a cell (1-based cell among all cells, row and column within it) lies in
    the notebook's JSON text: for a host that knows only the file's rows (flake8). The column is
    exact for a line held as its own string without escapes before it; otherwise it is the line's
    opening quote."""
    start, _ = source_spans(text)[cell - 1]
    index = _skip(text, start)
    if text[index] == "[":
        index = _skip(text, index + 1)
        decoder = json.JSONDecoder()
        for _ in range(location.row - 1):
            if text[index] != '"':
                break
            following = _skip(text, decoder.raw_decode(text, index)[1])
            if text[following] != ",":
                break
            index = _skip(text, following + 1)
    offset = index
    if text[index] == '"' and "\\" not in text[index + 1 : index + location.column]:
        offset = index + location.column
    line_start = text.rfind("\n", 0, offset) + 1
    return Location(text.count("\n", 0, offset) + 1, offset - line_start + 1)


def _object(text: str, index: int, member: Callable[[str, int], int]) -> int:
    """Walk the JSON object at `index`, `member(key, value_index) -> value_end` for each member;
    the index past the object (and the whitespace after it)."""
    index = _expect(text, index, "{")
    while text[index] != "}":
        if text[index] != '"':
            raise NotebookError(f"not a valid notebook: a key expected at offset {index}")
        key, index = json.decoder.scanstring(text, index + 1)
        index = _skip(text, member(key, _expect(text, _skip(text, index), ":")))
        if text[index] == ",":
            index = _skip(text, index + 1)
    return _skip(text, index + 1)


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _expect(text: str, index: int, char: str) -> int:
    """Past `char` at `index` and the whitespace after it."""
    if text[index] != char:
        raise NotebookError(f"not a valid notebook: `{char}` expected at offset {index}")
    return _skip(text, index + 1)


def _render_source(text: str, start: int, end: int, source: str) -> str:
    """`source` as the JSON value at text[start:end] was written: a string, or a list of lines
    with the same layout (the whitespace after `[`, between items and before `]`)."""
    ascii_only = "\\u" in text and not any(ord(char) > 127 for char in text)
    original = text[start:end]
    if not original.startswith("["):
        return json.dumps(source, ensure_ascii=ascii_only)
    lines = [json.dumps(line, ensure_ascii=ascii_only) for line in _LINES.findall(source)]
    inner = original[1:-1]
    if inner.strip():
        opening = inner[: len(inner) - len(inner.lstrip())]
        closing = inner[len(inner.rstrip()) :]
    else:
        indent = _line_indent(text, start)
        opening, closing = "\n" + indent + " ", "\n" + indent
    separator = "," + opening if "\n" in opening else ", "
    return "[" + opening + separator.join(lines) + closing + "]" if lines else "[]"


def _line_indent(text: str, offset: int) -> str:
    line_start = text.rfind("\n", 0, offset) + 1
    line = text[line_start:offset]
    return line[: len(line) - len(line.lstrip(" \t"))]


# -- for reporters --------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def cell_sources(text: str) -> dict[int, str]:
    """The source of every cell of the notebook JSON `text`, by cell number; {} when unreadable."""
    try:
        return {number: _joined(cell["source"]) for number, cell in enumerate(_cells(json.loads(text)), start=1)}
    except (NotebookError, ValueError, RecursionError):
        return {}


class _NotebookText:
    """A notebook's JSON text, read once to place any number of cell positions in it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._line_starts = [0, *(match.end() for match in re.finditer("\n", text))]
        try:
            self._spans: Optional[list[tuple[int, int]]] = source_spans(text)
        except (NotebookError, ValueError):
            self._spans = None

    def location(self, cell: int, location: Location) -> Location:
        """Where a position within a cell lies in the notebook file itself (row and column of the
        JSON text), for formats that point into files (SARIF, GitHub annotations); the start of
        the cell's source when it cannot be placed more precisely."""
        if self._spans is None:
            return Location(1, 1)
        try:
            start, end = self._spans[cell - 1]
        except IndexError:
            return Location(1, 1)
        text = self.text
        strings = list(re.finditer(r'"(?:[^"\\]|\\.)*"', text[start:end]))
        if not strings:
            return self._position(start)
        if text[start] == "[":  # one JSON string per line of the cell
            index = min(location.row, len(strings)) - 1
            before = json.loads(strings[index].group())[: location.column - 1] if location.row <= len(strings) else ""
        else:  # the whole cell in one string
            index, lines = 0, _LINES.findall(json.loads(strings[0].group()))
            before = "".join(lines[: location.row - 1]) + (
                lines[location.row - 1][: location.column - 1] if location.row <= len(lines) else ""
            )
        string = strings[index]
        escaped = json.dumps(before, ensure_ascii="\\u" in string.group())[1:-1]
        return self._position(start + string.start() + 1 + len(escaped))

    def _position(self, offset: int) -> Location:
        row = bisect_right(self._line_starts, offset)
        return Location(row, offset - self._line_starts[row - 1] + 1)


def cell_diff(before: bytes, after: bytes, name: str) -> str:
    """A unified diff per changed cell, headed `a/name:cell N`."""
    old, new = cell_sources(_decoded(before)), cell_sources(_decoded(after))
    parts = []
    for number in sorted(new):
        if old.get(number) == new[number]:
            continue
        parts.extend(
            difflib.unified_diff(
                _LINES.findall(_with_newline(old.get(number, ""))),
                _LINES.findall(_with_newline(new[number])),
                fromfile=f"a/{name}:cell {number}",
                tofile=f"b/{name}:cell {number}",
            )
        )
    return "".join(parts)


def _with_newline(text: str) -> str:
    return text if not text or text.endswith(("\n", "\r")) else text + "\n"


def python_source(name: str, raw: bytes) -> bytes:
    """What the project index reads of a file: a notebook's code cells (nothing when it cannot
    be read), any other file as it is."""
    if not is_notebook(name):
        return raw
    try:
        notebook = read_notebook(raw)
    except NotebookError:
        return b""
    return notebook.code.encode("utf-8") if notebook is not None else b""


def in_file(findings: Sequence[Finding], source_of: Callable[[str], Optional[str]]) -> list[Finding]:
    """Findings as the formats that point into files need them (SARIF, GitHub, GitLab, reviewdog,
    pylint, JUnit): a notebook's placed at the line and column of the notebook's JSON text that
    holds their code, the cell named in the message, and without fix (its edits are in the
    cell's coordinates)."""
    placed = []
    notebooks: dict[str, Optional[_NotebookText]] = {}  # each notebook read and indexed once
    for finding in findings:
        if finding.cell is not None and finding.path not in notebooks:
            text = source_of(finding.path)
            notebooks[finding.path] = _NotebookText(text) if text is not None else None
        notebook = notebooks.get(finding.path) if finding.cell is not None else None
        if notebook is None:
            placed.append(finding)
            continue
        where = f"cell {finding.cell}, line {finding.location.row}: "
        placed.append(
            dataclasses.replace(
                finding,
                message=where + finding.message,
                location=notebook.location(finding.cell, finding.location),
                end_location=notebook.location(finding.cell, finding.end_location),
                fix=None,
                cell=None,  # its rows now count in the file
            )
        )
    return placed
