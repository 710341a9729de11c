"""What a fix run changed in one file, change by change: the record a migration report is written
from. Positions count in the file as it was read (a notebook's within its cells)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from gradlint.fix.plan import Applicability
from gradlint.model import Location


@dataclass(frozen=True)
class ChangedLines:
    """Whole lines as a change found them and as it left them; `row` is the first of them."""

    row: int
    before: str
    after: str
    cell: Optional[int] = None


@dataclass(frozen=True)
class AppliedChange:
    """One fix applied to one finding, or (`code` None) an import the fixes left unused, removed.
    Lines an earlier fix of the same run rewrote show as that fix left them."""

    path: str
    code: Optional[str]
    message: str  # the finding's message (for a removed import: what was removed)
    fix: str  # what the fix does
    applicability: Applicability
    location: Location
    lines: tuple[ChangedLines, ...]
    cell: Optional[int] = None
