"""The fix vocabulary: node-level changes a rule asks for, and how safe they are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import libcst as cst

# Re-exported: the vocabulary without nodes lives in `kinds`, which the command line reads without LibCST.
from gradlint.fix.kinds import Applicability, Availability, describe_fix, torch_release  # noqa: F401


@dataclass(frozen=True)
class Replace:
    """Replace `node` (without its own parentheses) by `replacement`."""

    node: cst.CSTNode
    replacement: Union[cst.CSTNode, str]


@dataclass(frozen=True)
class InsertLineBefore:
    """Insert a whole line of `text` before the line on which `statement` starts."""

    statement: cst.CSTNode
    text: str


@dataclass(frozen=True)
class RemoveLine:
    """Remove the line(s) holding `statement` (a statement alone on its line)."""

    statement: cst.CSTNode


@dataclass(frozen=True)
class ReplaceLines:
    """Replace the whole lines from `first`'s line to `last`'s line by `text` (complete lines)."""

    first: cst.CSTNode
    last: cst.CSTNode
    text: str


Change = Union[Replace, InsertLineBefore, RemoveLine, ReplaceLines]


@dataclass(frozen=True)
class FixPlan:
    applicability: Applicability
    message: str
    changes: tuple[Change, ...]
    # The oldest torch release that has what the fixed code calls ("2.3"); None when any has.
    needs_torch: Optional[str] = None
