"""The language server's own protocol layer, without a server process: position encodings (UTF-16
columns with astral characters), the LSP's line breaks, incremental changes, the document store,
file URIs and the framing."""

from __future__ import annotations

import io

import pytest

from gradlint.server_documents import Documents
from gradlint.server_io import framed, read_message
from gradlint.server_text import (
    UTF8,
    UTF16,
    UTF32,
    InvalidParams,
    TextPositions,
    apply_change,
    choose_encoding,
    code_points,
    range_of,
    to_fs_path,
    units,
)

EMOJI = "\U0001f600"  # one code point, two UTF-16 code units, four UTF-8 bytes


@pytest.mark.parametrize(
    ("text", "utf8", "utf16", "utf32"),
    [
        ("abc", 3, 3, 3),
        ("größe", 7, 5, 5),
        (EMOJI, 4, 2, 1),
        (f'x = "{EMOJI}{EMOJI}"', 14, 10, 8),
        ("\ud800", 3, 1, 1),  # a lone surrogate, as JSON can carry it
    ],
)
def test_units_count_code_units_of_each_encoding(text, utf8, utf16, utf32):
    assert [units(text, encoding) for encoding in (UTF8, UTF16, UTF32)] == [utf8, utf16, utf32]
    assert units(text, UTF16) == len(text.encode("utf-16-le", "surrogatepass")) // 2


@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_columns_and_code_points_are_inverse_at_every_character_boundary(encoding):
    line = f'print("{EMOJI}", "ü", x{EMOJI})'
    for index in range(len(line) + 1):
        assert code_points(line, units(line[:index], encoding), encoding) == index


def test_a_column_inside_a_surrogate_pair_or_past_the_end():
    line = f"a{EMOJI}b"
    assert code_points(line, 2, UTF16) == 2  # half of the emoji: the emoji whole
    assert code_points(line, 99, UTF16) == len(line)
    assert code_points(line, 0, UTF16) == 0


def test_positions_round_trip_with_astral_characters_and_every_line_break():
    text = f'import torch\r\nx = "{EMOJI}"; y = loss.data[0]\rz = 1\x0c\u2028w = "{EMOJI}"\nlast'
    for encoding in (UTF8, UTF16, UTF32):
        positions = TextPositions(text, encoding)
        for offset in range(len(text) + 1):
            position = positions.position(offset)
            if text[offset - 1 : offset + 1] != "\r\n":  # not between the two characters of one break
                assert positions.offset(position) == offset, (encoding, offset)
    positions = TextPositions(text, UTF16)
    assert positions.position(text.index("y =")) == {"line": 1, "character": 10}  # the emoji counts twice
    # Form feed and U+2028 are not LSP line breaks: `w` is on the line of `z`.
    assert positions.position(text.index("w =")) == {"line": 2, "character": 7}
    assert positions.position(len(text)) == {"line": 3, "character": 4}
    assert positions.offset({"line": 1, "character": 999}) == text.index("\r", text.index("y ="))  # clamped before the break
    assert positions.offset({"line": 99, "character": 0}) == len(text)


def test_encoding_is_the_clients_first_supported_choice():
    assert choose_encoding({}) == UTF16
    assert choose_encoding({"general": {"positionEncodings": ["utf-32", "utf-16"]}}) == UTF32
    assert choose_encoding({"general": {"positionEncodings": ["latin-1", "utf-8"]}}) == UTF8
    assert choose_encoding({"general": {"positionEncodings": ["latin-1"]}}) == UTF16


def test_incremental_changes_use_lsp_lines_and_the_negotiated_encoding():
    text = f'x = "{EMOJI}"\x0cy = 1\r\nz = 2\n'
    change = {"range": {"start": {"line": 0, "character": 13}, "end": {"line": 0, "character": 14}}, "text": "2"}
    assert apply_change(text, change, UTF16) == f'x = "{EMOJI}"\x0cy = 2\r\nz = 2\n'  # `1` after the form feed, same line
    change = {"range": {"start": {"line": 0, "character": 12}, "end": {"line": 0, "character": 13}}, "text": "2"}
    assert apply_change(text, change, UTF32) == f'x = "{EMOJI}"\x0cy = 2\r\nz = 2\n'
    across = {"range": {"start": {"line": 0, "character": 4}, "end": {"line": 1, "character": 3}}, "text": "0\n"}
    assert apply_change(text, across, UTF16) == "x = 0\n 2\n"
    at_the_end = {"range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}}, "text": "w = 3\n"}
    assert apply_change(text, at_the_end, UTF16) == text + "w = 3\n"
    assert apply_change(text, {"text": "whole"}, UTF16) == "whole"


def test_the_document_store_applies_changes_in_order_and_keys_by_decoded_uri():
    documents = Documents(UTF16)
    documents.open({"uri": "file:///tmp/a%20b.py", "languageId": "python", "version": 1, "text": "a = 1\nb = 2\n"})
    changes = [
        {"range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 5}}, "text": "3"},
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": f"# {EMOJI}\n"},
        {"range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 4}}, "text": "!"},  # after the emoji
    ]
    document = documents.change({"uri": "file:///tmp/a b.py", "version": 2}, changes)
    assert document is documents.text("file:///tmp/a%20b.py")
    assert (document.text, document.version) == (f"# {EMOJI}!\na = 1\nb = 3\n", 2)
    assert documents.change({"uri": "file:///tmp/closed.py", "version": 2}, []) is None
    with pytest.raises(InvalidParams):
        documents.change({"uri": "file:///tmp/a b.py", "version": 3}, [{"range": {"start": {"line": 0}}, "text": ""}])
    documents.close("file:///tmp/a b.py")
    assert documents.text("file:///tmp/a%20b.py") is None


def test_notebook_cells_are_added_removed_and_edited():
    documents = Documents()
    cell = lambda index: f"vscode-notebook-cell:/n.ipynb#cell{index}"  # noqa: E731
    documents.open_notebook(
        {
            "notebookDocument": {"uri": "file:///n.ipynb", "version": 1, "cells": [{"kind": 2, "document": cell(0)}]},
            "cellTextDocuments": [{"uri": cell(0), "languageId": "python", "version": 1, "text": "x = 1\n"}],
        }
    )
    structure = {
        "array": {"start": 1, "deleteCount": 0, "cells": [{"kind": 1, "document": cell(1)}]},
        "didOpen": [{"uri": cell(1), "languageId": "markdown", "version": 1, "text": "# notes"}],
    }
    text_content = [{"document": {"uri": cell(0), "version": 2}, "changes": [{"text": "x = 2\n"}]}]
    notebook = documents.change_notebook(
        {
            "notebookDocument": {"uri": "file:///n.ipynb", "version": 2},
            "change": {"cells": {"structure": structure, "textContent": text_content}},
        }
    )
    assert [(c.kind, c.document) for c in notebook.cells] == [(2, cell(0)), (1, cell(1))]
    assert documents.text(cell(0)).text == "x = 2\n" and documents.text(cell(1)).text == "# notes"
    removal = {"array": {"start": 0, "deleteCount": 1}, "didClose": [{"uri": cell(0)}]}
    documents.change_notebook({"notebookDocument": {"uri": "file:///n.ipynb", "version": 3}, "change": {"cells": {"structure": removal}}})
    assert [c.document for c in notebook.cells] == [cell(1)] and documents.text(cell(0)) is None
    assert documents.close_notebook({"notebookDocument": {"uri": "file:///n.ipynb"}, "cellTextDocuments": [{"uri": cell(1)}]}) == (
        "file:///n.ipynb",
        [cell(1)],
    )
    assert documents.notebooks == {} and documents.texts == {}


@pytest.mark.parametrize(
    ("params", "problem"),
    [
        ({"range": 5}, "`range` must be an object"),
        ({"range": {"start": {"line": 0, "character": 0}}}, "`end` is missing"),
        ({"range": {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}}}, "`line` must not be negative"),
        ({"range": {"start": {"line": True, "character": 0}, "end": {"line": 0, "character": 0}}}, "`line` must be an integer"),
    ],
)
def test_params_of_the_wrong_shape_are_invalid_params(params, problem):
    with pytest.raises(InvalidParams, match=problem):
        range_of(params)


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("file:///home/me/train.py", "/home/me/train.py"),
        ("file:///home/me/a%20b%23c.py", "/home/me/a b#c.py"),
        ("file:///C:/work/train.py", "c:/work/train.py"),
        ("file://server/share/train.py", "//server/share/train.py"),
        ("untitled:Untitled-1", None),
        ("vscode-notebook-cell:/n.ipynb#cell0", None),
    ],
)
def test_file_uris_become_paths(uri, path):
    assert to_fs_path(uri) == path


def test_framing_round_trips_and_skips_a_message_without_content_length():
    complaints: list[str] = []
    stream = io.BytesIO(
        b'Content-Type: application/json\r\n\r\n{"no": "length"}'
        + framed({"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"text": "\ud800" + EMOJI}})
        + b"Content-Length: 10\r\n\r\n{"
    )
    body = read_message(stream, complaints.append)
    assert body is not None and b'"id": 1' in body and body.isascii()  # a lone surrogate goes out escaped
    assert complaints == ["skipped a message without a valid Content-Length header"]
    assert read_message(stream, complaints.append) is None
    assert complaints[-1] == "the input ended in the middle of a message"
