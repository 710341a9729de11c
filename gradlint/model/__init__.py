"""The values that cross layers: what a rule reports (`Report`), the `Finding` the engine makes of
it, and what reporters and the fixer receive. What one file needs from the other files of its run is
in `gradlint.model.project`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from gradlint.fix.plan import Applicability, FixPlan

SAFE = Applicability.SAFE
UNSAFE = Applicability.UNSAFE


@dataclass(frozen=True)
class Report:
    """What a rule reports while it visits a file: the engine turns it into a `Finding`."""

    code: str  # the reporting rule's code
    node: cst.CSTNode
    message: str
    fix: Optional[FixPlan]
    top: Optional[cst.CSTNode] = None  # the statement being visited when it was reported (a position hint)


@dataclass(frozen=True, order=True)
class Location:
    row: int  # 1-based
    column: int  # 1-based, in characters


@dataclass(frozen=True)
class Edit:
    """Replace text[start:end] with `content` (offsets into the decoded source)."""

    start: int
    end: int
    content: str
    location: Location
    end_location: Location


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]
    needs_torch: Optional[str] = None  # as FixPlan.needs_torch


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    path: str
    location: Location
    end_location: Location
    fix: Optional[Fix] = None
    noqa_row: int = 0
    cell: Optional[int] = None  # a notebook's cell (1-based, among all its cells); rows then count within it

    @property
    def has_safe_fix(self) -> bool:
        return self.fix is not None and self.fix.applicability == SAFE

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.location, self.code)


@dataclass
class FileResult:
    """Everything one file produced. `error` is a one-line reason the file could not be checked."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    error: Optional[str] = None
