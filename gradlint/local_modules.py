"""The local modules a file imports, read from disk when they are not part of the run.

A run over part of a project (`gradlint check train.py`, stdin, an editor, flake8) resolves the
names a file brings in from its sibling modules (`from model import *`) as a run over the whole
project does: the project index reads those modules here, only when an import names them.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Optional, Sequence

from gradlint.analysis.project import ProjectIndex
from gradlint.files import MAX_FILE_BYTES, SourceReadError, read_source
from gradlint.model.project import ProjectFacts
from gradlint.notebook import python_source
from gradlint.pipeline import Source, over_size_limit


def read_module(path: str, max_bytes: int = MAX_FILE_BYTES) -> Optional[bytes]:
    """The source of a module file; None when there is none, it cannot be read, or it is over
    the size limit (a run does not analyse such files either)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode) or over_size_limit(info.st_size, max_bytes):
        return None
    try:
        return read_source(Path(path))
    except SourceReadError:
        return None


def facts_beside(source: Source, name: str, roots: Sequence[str]) -> Optional[ProjectFacts]:
    """What a file given by its source (not read by the run) uses from the local modules next to
    `name` on disk; None for a nameless source ("-") and for a file that uses none."""
    if name == "-":
        return None
    raw = python_source(name, source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass"))
    path = os.path.abspath(name)
    return ProjectIndex([(path, raw)], [os.path.dirname(path), *roots], read_outside=read_module).facts_for(path)
