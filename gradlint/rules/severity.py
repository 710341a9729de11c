"""A rule's severity, apart from the rule contract: the registry's catalog and every output
format read it without importing a rule (or LibCST)."""

from __future__ import annotations

from enum import Enum


class Severity(str, Enum):
    """How bad a rule's findings are, the same in every output format (the policy is in
    CONTRIBUTING.md, "Severity"; `meaning` states it in each rule's page)."""

    ERROR = "error"
    WARNING = "warning"

    __str__ = str.__str__
    __format__ = str.__format__

    @property
    def meaning(self) -> str:
        if self is Severity.ERROR:
            return "the reported code raises, or silently goes wrong, under the current torch"
        return "the reported code runs as meant, through a legacy or deprecated API or at a cost in memory or time"
