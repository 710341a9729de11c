"""The words of the fix vocabulary that need no syntax tree: how safe a fix is, whether a rule
offers one, and torch releases as fixes and `target-torch` name them. The registry's catalog,
the configuration and the command line read these without importing LibCST."""

from __future__ import annotations

import re
from dataclasses import replace
from enum import Enum
from typing import Optional, TypeVar


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


Offered = TypeVar("Offered")  # a fix plan or a finding's fix: both have `applicability` and `message`


def unsafe_because(fix: Offered, reason: str) -> Offered:
    """`fix` offered as unsafe, its title saying why (a setting or the file cannot vouch for it)."""
    return replace(fix, applicability=Applicability.UNSAFE, message=f"{fix.message} ({reason})")
