"""Text as the Language Server Protocol addresses it: 0-based lines split at `\\n`, `\\r\\n` and `\\r`
only (not at the form feeds, U+2028 and the other breaks of `str.splitlines`), and columns counted
in the code units of the position encoding agreed at `initialize` (UTF-16 unless the client offers
another). Python strings index code points, so every column crosses this module.
"""

from __future__ import annotations

from typing import Any, Optional
from urllib.parse import unquote, urlparse

from gradlint.source import LineIndex

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
ENCODINGS = (UTF16, UTF8, UTF32)  # UTF-16 first: the one every client supports


class InvalidParams(ValueError):
    """A request's params do not have the shape its method requires (JSON-RPC -32602)."""


def choose_encoding(capabilities: dict) -> str:
    """The client's most preferred position encoding that the server supports (LSP 3.17
    `general.positionEncodings`, most preferred first); UTF-16 without one."""
    general = capabilities.get("general")
    offered = general.get("positionEncodings") if isinstance(general, dict) else None
    if isinstance(offered, list):
        for encoding in offered:
            if encoding in ENCODINGS:
                return encoding
    return UTF16


def units(text: str, encoding: str) -> int:
    """The length of `text` in code units of `encoding` (a lone surrogate counts as one UTF-16 unit
    and three UTF-8 bytes, as it is written with `surrogatepass`)."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF16:
        return len(text) + sum(1 for char in text if char > "\uffff")
    return len(text.encode("utf-8", "surrogatepass"))


def code_points(line: str, column: int, encoding: str) -> int:
    """How many code points of `line` the first `column` code units cover; a column inside a
    character (half of a surrogate pair) counts that character whole, a column past the end is the end."""
    if column <= 0:
        return 0
    if encoding == UTF32 or line.isascii():
        return min(column, len(line))
    counted = 0
    for index, char in enumerate(line):
        if counted >= column:
            return index
        counted += units(char, encoding)
    return len(line)


class TextPositions:
    """Offsets into a text as LSP positions and back, in one position encoding."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.index = LineIndex.of(text)
        self.encoding = encoding

    def line_text(self, line: int) -> str:
        """The 0-based `line` without its line break."""
        row = line + 1
        return self.text[self.index.line_start(row) : self.index.line_end(row)].rstrip("\r\n")

    def position(self, offset: int) -> dict:
        offset = min(max(offset, 0), len(self.text))
        row, _ = self.index.position(offset)
        start = self.index.line_start(row)
        return {"line": row - 1, "character": units(self.text[start:offset], self.encoding)}

    def offset(self, position: dict) -> int:
        """The offset of an LSP position; a line past the last is the end of the text, a column
        past its line's end is that end (the line break is not part of the line)."""
        line, column = position["line"], position["character"]
        if line >= len(self.index.starts):
            return len(self.text)
        line = max(line, 0)
        return self.index.line_start(line + 1) + code_points(self.line_text(line), column, self.encoding)

    def range(self, start: int, end: int) -> dict:
        return {"start": self.position(start), "end": self.position(end)}


def apply_change(text: str, change: dict, encoding: str) -> str:
    """`text` after one `TextDocumentContentChangeEvent`: the whole text, or a range replaced."""
    new_text = change["text"]
    if change.get("range") is None:
        return new_text
    positions = TextPositions(text, encoding)
    start, end = positions.offset(change["range"]["start"]), positions.offset(change["range"]["end"])
    if end < start:
        start, end = end, start
    return text[:start] + new_text + text[end:]


def to_fs_path(uri: str) -> Optional[str]:
    """The file system path of a `file:` URI (percent-decoded); None for another scheme."""
    try:
        parsed = urlparse(uri)
    except (TypeError, ValueError):
        return None
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if parsed.netloc and path:  # a UNC share: file://server/share/file
        return f"//{unquote(parsed.netloc)}{path}"
    if len(path) >= 3 and path[0] == "/" and path[1].isalpha() and path[2] == ":":  # file:///C:/dir
        return path[1].lower() + path[2:]
    return path


# Reading params: each accessor raises InvalidParams naming what is wrong.


def member(obj: Any, name: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
    if not isinstance(obj, dict):
        raise InvalidParams(f"expected an object holding `{name}`, got {type(obj).__name__}")
    if name not in obj or obj[name] is None:
        if optional:
            return None
        raise InvalidParams(f"`{name}` is missing")
    value = obj[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, (int,))):
        raise InvalidParams(f"`{name}` must be {_kind_name(kind)}, got {type(value).__name__}")
    return value


def uri_of(obj: Any, name: str = "textDocument") -> str:
    return member(member(obj, name, dict), "uri", str)


def position_of(obj: Any, name: str) -> dict:
    position = member(obj, name, dict)
    return {"line": _natural(position, "line"), "character": _natural(position, "character")}


def range_of(obj: Any, name: str = "range") -> dict:
    value = member(obj, name, dict)
    return {"start": position_of(value, "start"), "end": position_of(value, "end")}


def change_of(obj: Any) -> dict:
    """A `TextDocumentContentChangeEvent`: `text`, and `range` for an incremental one."""
    change = {"text": member(obj, "text", str)}
    if isinstance(obj, dict) and obj.get("range") is not None:
        change["range"] = range_of(obj)
    return change


def _natural(obj: dict, name: str) -> int:
    value = member(obj, name, int)
    if value < 0:
        raise InvalidParams(f"`{name}` must not be negative")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {dict: "an object", list: "an array", str: "a string", int: "an integer", bool: "a boolean"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(each, each.__name__) for each in kinds)
