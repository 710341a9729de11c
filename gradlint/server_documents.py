"""The documents the editor has open, as it last sent them: text documents (`didOpen`,
`didChange` with whole texts or ranges, `didClose`) and notebooks, whose cells are text documents
of their own (LSP 3.17 notebook synchronisation). Keyed by percent-decoded URI: clients spell the
same URI with and without escapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import unquote

from gradlint.server_text import UTF16, InvalidParams, apply_change, change_of, member, uri_of

CODE_CELL = 2  # NotebookCellKind.Code (1 is Markup)


@dataclass
class TextDocument:
    uri: str
    text: str
    version: Optional[int]
    language_id: Optional[str]


@dataclass
class Cell:
    kind: int
    document: str  # the cell's text document URI


@dataclass
class Notebook:
    uri: str
    version: int
    cells: list[Cell] = field(default_factory=list)


def _key(uri: str) -> str:
    return unquote(uri)


class Documents:
    def __init__(self, encoding: str = UTF16) -> None:
        self.encoding = encoding  # of the columns in incremental changes
        self.texts: dict[str, TextDocument] = {}
        self.notebooks: dict[str, Notebook] = {}

    def text(self, uri: str) -> Optional[TextDocument]:
        return self.texts.get(_key(uri))

    def notebook(self, uri: str) -> Optional[Notebook]:
        return self.notebooks.get(_key(uri))

    def cell_uris(self) -> set[str]:
        return {cell.document for notebook in self.notebooks.values() for cell in notebook.cells}

    # Text documents

    def open(self, item: Any) -> TextDocument:
        """A `TextDocumentItem`."""
        document = TextDocument(
            uri=member(item, "uri", str),
            text=member(item, "text", str),
            version=member(item, "version", int, optional=True),
            language_id=member(item, "languageId", str, optional=True),
        )
        self.texts[_key(document.uri)] = document
        return document

    def change(self, identifier: Any, changes: Any) -> Optional[TextDocument]:
        """Apply `contentChanges` in order (each range is in the text the previous ones left);
        None for a document that is not open."""
        uri, version = member(identifier, "uri", str), member(identifier, "version", int, optional=True)
        if not isinstance(changes, list):
            raise InvalidParams("`contentChanges` must be an array")
        parsed = [change_of(change) for change in changes]
        document = self.text(uri)
        if document is None:
            return None
        for change in parsed:
            document.text = apply_change(document.text, change, self.encoding)
        document.version = version
        return document

    def close(self, uri: str) -> None:
        self.texts.pop(_key(uri), None)

    # Notebooks

    def open_notebook(self, params: Any) -> Notebook:
        """`notebookDocument/didOpen`: the notebook and its cells' text documents."""
        given = member(params, "notebookDocument", dict)
        cell_documents = member(params, "cellTextDocuments", list)
        notebook = Notebook(member(given, "uri", str), member(given, "version", int), _cells(member(given, "cells", list)))
        for item in cell_documents:
            self.open(item)
        self.notebooks[_key(notebook.uri)] = notebook
        return notebook

    def change_notebook(self, params: Any) -> Optional[Notebook]:
        """`notebookDocument/didChange`: new cells, removed ones, their kinds, their texts."""
        identifier = member(params, "notebookDocument", dict)
        uri, version = member(identifier, "uri", str), member(identifier, "version", int)
        change = member(params, "change", dict)
        cells = member(change, "cells", dict, optional=True) or {}
        notebook = self.notebook(uri)
        if notebook is None:
            return None
        notebook.version = version
        for data in member(cells, "data", list, optional=True) or []:
            kind, document = member(data, "kind", int), member(data, "document", str)
            for cell in notebook.cells:
                if cell.document == document:
                    cell.kind = kind
        structure = member(cells, "structure", dict, optional=True)
        if structure is not None:
            array = member(structure, "array", dict)
            start, deleted = member(array, "start", int), member(array, "deleteCount", int)
            inserted = _cells(member(array, "cells", list, optional=True) or [])
            notebook.cells[start : start + deleted] = inserted
            for item in member(structure, "didOpen", list, optional=True) or []:
                self.open(item)
            for closed in member(structure, "didClose", list, optional=True) or []:
                self.close(member(closed, "uri", str))
        for content in member(cells, "textContent", list, optional=True) or []:
            self.change(member(content, "document", dict), member(content, "changes", list))
        return notebook

    def close_notebook(self, params: Any) -> tuple[str, list[str]]:
        """`notebookDocument/didClose`: the notebook's URI and its cells' URIs."""
        uri = uri_of(params, "notebookDocument")
        cell_uris = [member(cell, "uri", str) for cell in member(params, "cellTextDocuments", list)]
        self.notebooks.pop(_key(uri), None)
        for cell_uri in cell_uris:
            self.close(cell_uri)
        return uri, cell_uris


def _cells(cells: list) -> list[Cell]:
    return [Cell(member(cell, "kind", int), member(cell, "document", str)) for cell in cells]
