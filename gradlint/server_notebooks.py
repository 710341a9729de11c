"""Jupyter notebooks in the language server (LSP 3.17 notebook synchronisation).

The editor sends a notebook as its cells, each a text document of its own. The cells are put
together as the notebook's JSON and checked as `gradlint check` checks an `.ipynb` file (see
gradlint/notebook.py: every code cell in one module, IPython syntax masked); each finding comes
back with its cell's number and a position within that cell, so it is published on the cell's
document, in the cell's own coordinates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from gradlint.files import NOTEBOOK_SUFFIX as SUFFIX
from gradlint.server_settings import ClientSettings, settings_for
from gradlint.server_text import to_fs_path

if TYPE_CHECKING:
    from gradlint.model import Finding

# The notebooks whose Python cells the server is sent: every `.ipynb` file's.
NOTEBOOK_SYNC = {"notebookSelector": [{"notebook": {"pattern": f"**/*{SUFFIX}"}, "cells": [{"language": "python"}]}]}


@dataclass(frozen=True)
class NotebookAnalysis:
    name: str
    findings: tuple[Finding, ...]  # each with its cell (1-based among all cells) and in-cell positions

    def by_cell(self, cells: int) -> dict[int, list[Finding]]:
        grouped: dict[int, list[Finding]] = {}
        for finding in self.findings:
            if 1 <= finding.cell <= cells:
                grouped.setdefault(finding.cell, []).append(finding)
        return grouped


def notebook_json(cells: tuple[tuple[str, bool, str], ...]) -> str:
    """The nbformat 4 JSON of cells given as (URI, is Python code, text)."""

    def cell(code: bool, text: str) -> dict:
        if code:
            return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": text}
        return {"cell_type": "markdown", "metadata": {}, "source": text}

    return json.dumps({"cells": [cell(code, text) for _, code, text in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def analyse_notebook(uri: str, text: str, roots: tuple[Path, ...], client: ClientSettings) -> tuple[Optional[NotebookAnalysis], list[str]]:
    """In the worker process: the findings of the notebook `text` (its JSON), None when its file is excluded."""
    from gradlint.discovery import is_excluded
    from gradlint.runner import check_stdin

    problems: list[str] = []
    fs_path = to_fs_path(uri)
    path = Path(fs_path) if fs_path else None
    settings = settings_for(path, roots, problems, client)
    if path is not None and is_excluded(path, settings):
        return None, problems
    name = str(path) if path is not None else uri
    if not name.lower().endswith(SUFFIX):
        name += SUFFIX  # checked as a notebook whatever the editor calls it
    summary = check_stdin(text, name, settings)
    problems.extend(f"{name}: {reason}" for _, reason in summary.errors + summary.warnings)
    return NotebookAnalysis(name, tuple(summary.findings)), problems
