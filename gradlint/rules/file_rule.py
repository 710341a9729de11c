"""File rules: rules about a file as a whole, reported when the file cannot be read as Python."""

from __future__ import annotations

from enum import Enum
from typing import ClassVar

from gradlint.model import Finding, Location
from gradlint.rules.base import Rule


class FileFailure(Enum):
    """Why a file cannot be analysed at all. Exactly one file rule reports each."""

    UNDECODABLE = "undecodable"  # its bytes are not text in the encoding it declares
    INVALID_SYNTAX = "invalid-syntax"  # its text is not valid Python 3


class FileRule(Rule):
    """A rule that reports `failure` for the whole file, found before any node is visited.

    It may visit nodes too, like any rule (the Python 2 forms LibCST still parses)."""

    failure: ClassVar[FileFailure]
    message_prefix: ClassVar[str] = ""  # followed by the reason (CPython's wording where it has one)

    @classmethod
    def finding(cls, reason: str, path: str, location: Location) -> Finding:
        return Finding(cls.code, f"{cls.message_prefix}{reason}", path, location, location, None, location.row)
