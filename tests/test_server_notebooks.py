"""`gradlint server` and Jupyter notebooks (LSP 3.17 `notebookDocument/*`): diagnostics on each
cell's document, in the cell's own coordinates, the same findings as `gradlint check` of the
`.ipynb` file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import write
from test_server import LspSession, codes

IMPORTS = "import torch\nfrom torch.autograd import Variable\n"
EXPLORE = "%matplotlib inline\nx = 1\ny = Variable(t)  # GL101\nprint(loss.data[0])\n"  # a line magic, masked
MARKDOWN, CODE = 1, 2  # NotebookCellKind
NOTEBOOK_CLIENT = {"notebookDocument": {"synchronization": {}}}  # a client that syncs notebooks


def cell_uri(notebook: Path, index: int) -> str:
    return f"vscode-notebook-cell:{notebook.as_posix()}#cell{index}"


class Notebook:
    """A notebook open in the editor: its cells as (kind, text)."""

    def __init__(self, session: LspSession, path: Path, cells: list[tuple[int, str]]) -> None:
        self.session, self.path, self.version = session, path, 1
        self.cells = [(cell_uri(path, index), kind, text) for index, (kind, text) in enumerate(cells)]
        session.notify(
            "notebookDocument/didOpen",
            {
                "notebookDocument": {
                    "uri": path.as_uri(),
                    "notebookType": "jupyter-notebook",
                    "version": 1,
                    "cells": [{"kind": kind, "document": uri} for uri, kind, _ in self.cells],
                },
                "cellTextDocuments": [
                    {"uri": uri, "languageId": "python" if kind == CODE else "markdown", "version": 1, "text": text}
                    for uri, kind, text in self.cells
                ],
            },
        )

    def diagnostics(self, index: int) -> list[dict]:
        return self.session.diagnostics(self.cells[index][0])

    def edit(self, index: int, text: str) -> None:
        self.version += 1
        uri, kind, _ = self.cells[index]
        self.cells[index] = (uri, kind, text)
        change = {"textContent": [{"document": {"uri": uri, "version": self.version}, "changes": [{"text": text}]}]}
        self.session.notify(
            "notebookDocument/didChange",
            {"notebookDocument": {"uri": self.path.as_uri(), "version": self.version}, "change": {"cells": change}},
        )

    def delete(self, index: int) -> None:
        self.version += 1
        uri, _, _ = self.cells.pop(index)
        structure = {"array": {"start": index, "deleteCount": 1, "cells": []}, "didOpen": [], "didClose": [{"uri": uri}]}
        self.session.notify(
            "notebookDocument/didChange",
            {"notebookDocument": {"uri": self.path.as_uri(), "version": self.version}, "change": {"cells": {"structure": structure}}},
        )

    def close(self) -> None:
        self.session.notify(
            "notebookDocument/didClose",
            {"notebookDocument": {"uri": self.path.as_uri()}, "cellTextDocuments": [{"uri": uri} for uri, _, _ in self.cells]},
        )

    def ipynb(self) -> str:
        cells = [
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": text}
            if kind == CODE
            else {"cell_type": "markdown", "metadata": {}, "source": text}
            for _, kind, text in self.cells
        ]
        return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


@pytest.fixture
def server(tmp_path):
    session = LspSession(tmp_path)
    session.initialize(tmp_path, capabilities=NOTEBOOK_CLIENT)
    yield session
    session.stop()


def test_initialize_advertises_notebook_sync_for_python_cells_of_ipynb_files(server, tmp_path):
    (selector,) = server.capabilities["notebookDocumentSync"]["notebookSelector"]
    assert selector["notebook"] == {"pattern": "**/*.ipynb"}
    assert selector["cells"] == [{"language": "python"}]
    plain = LspSession(tmp_path)  # a client without notebook support is not offered it
    try:
        plain.initialize(tmp_path)
        assert "notebookDocumentSync" not in plain.capabilities
    finally:
        plain.stop()


def test_diagnostics_per_cell_in_cell_coordinates_as_gradlint_check(server, tmp_path, run_cli):
    path = tmp_path / "explore.ipynb"
    notebook = Notebook(server, path, [(MARKDOWN, "# Exploring"), (CODE, IMPORTS), (MARKDOWN, "A plot:"), (CODE, EXPLORE)])
    published = notebook.diagnostics(3)
    assert [(d["code"], d["range"]["start"], d["range"]["end"]) for d in published] == [
        ("GL101", {"line": 2, "character": 4}, {"line": 2, "character": 15}),
        ("GL103", {"line": 3, "character": 6}, {"line": 3, "character": 18}),
    ]
    write(path, notebook.ipynb())
    result = run_cli("check", "--no-cache", "--output-format", "json", str(path))
    reported = [(f["cell"], f["code"], f["location"], f["end_location"]) for f in json.loads(result.output)]
    assert reported == [
        (
            4,
            d["code"],
            {"row": d["range"]["start"]["line"] + 1, "column": d["range"]["start"]["character"] + 1},
            {"row": d["range"]["end"]["line"] + 1, "column": d["range"]["end"]["character"] + 1},
        )
        for d in published
    ]


def test_changes_republish_cells_and_close_clears_them(server, tmp_path):
    """Each check publishes the cells that have diagnostics and those that had some: every one of
    them is read here, so that none is mistaken for one of a later check."""
    path = tmp_path / "train.ipynb"
    notebook = Notebook(server, path, [(CODE, IMPORTS), (CODE, "a = Variable(t)\n"), (CODE, "b = Variable(t)\n")])
    assert (codes(notebook.diagnostics(1)), codes(notebook.diagnostics(2))) == (["GL101"], ["GL101"])
    notebook.edit(1, "a = t\n")  # fixed: the cell's diagnostics are cleared
    assert (codes(notebook.diagnostics(1)), codes(notebook.diagnostics(2))) == ([], ["GL101"])
    notebook.delete(0)  # without the import, `Variable` is not torch's: the last cell is cleared
    assert codes(notebook.diagnostics(1)) == []
    notebook.edit(0, IMPORTS + "a = Variable(t)\n")
    assert (codes(notebook.diagnostics(0)), codes(notebook.diagnostics(1))) == (["GL101"], ["GL101"])
    notebook.close()
    assert notebook.diagnostics(0) == [] and notebook.diagnostics(1) == []


def test_a_notebook_follows_its_configuration(server, tmp_path):
    write(tmp_path / "notebooks" / "gradlint.toml", 'ignore = ["GL101"]\n')
    notebook = Notebook(server, tmp_path / "notebooks" / "explore.ipynb", [(CODE, IMPORTS), (CODE, EXPLORE)])
    assert codes(notebook.diagnostics(1)) == ["GL103"]
