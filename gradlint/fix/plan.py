"""The fix vocabulary: node-level changes a rule asks for, and how safe they are."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Optional, Union

import libcst as cst


class Applicability(str, Enum):
    """Whether a fix keeps the program's meaning (`safe`) or may change it (`unsafe`)."""

    SAFE = "safe"
    UNSAFE = "unsafe"

    # Printed, formatted and serialized as the bare value ("safe"), as before it was an enum.
    __str__ = str.__str__
    __format__ = str.__format__


class Availability(str, Enum):
    """Whether a rule's findings come with a fix: never, for some forms only, or always."""

    NONE = "none"
    SOMETIMES = "sometimes"
    ALWAYS = "always"

    __str__ = str.__str__
    __format__ = str.__format__


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


_RELEASE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


def torch_release(text: str) -> Optional[tuple[int, int, int]]:
    """`"2.1"` -> (2, 1, 0), `"0.4.1"` -> (0, 4, 1): a torch release as `needs_torch` and
    `target-torch` write it, comparable; None when `text` is not "X.Y" or "X.Y.Z"."""
    match = _RELEASE.fullmatch(text)
    if match is None:
        return None
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)


def describe_fix(availability: Availability, applicabilities: tuple[Applicability, ...]) -> str:
    """One word or three for listings: "none", "safe", "unsafe", "sometimes safe", "safe or unsafe"."""
    if availability is Availability.NONE:
        return "none"
    kinds = " or ".join(kind.value for kind in Applicability if kind in applicabilities)
    return kinds if availability is Availability.ALWAYS else f"sometimes {kinds}"
