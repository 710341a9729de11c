"""What the registry knows of a rule without importing it: the values of its class attributes that
listings, documentation, configuration and the prefilter read. The generated `_catalog` module holds
one `RuleInfo` per rule, so that `gradlint --version`, `gradlint rules`, `gradlint rule CODE`, the
validation of configured codes and the language server's start import no rule and no LibCST; a
rule's module is imported only when a file gets past its prefilter (`load`)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from gradlint.fix.kinds import Applicability, Availability, describe_fix
from gradlint.rules.severity import Severity

if TYPE_CHECKING:
    from gradlint.rules.base import Rule


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    summary: str
    severity: Severity
    fix_availability: Availability
    fix_applicabilities: tuple[Applicability, ...]
    triggers: tuple[str, ...]
    also_required: tuple[str, ...]
    migration: Optional[str]
    fixes_first: bool
    opt_in: bool
    visits: bool  # the rule has visit_/leave_ handlers (a file rule may have none)
    failure: Optional[str]  # for a file rule: the value of the FileFailure it reports
    judges_noqa: bool  # a rule about suppression comments (a NoqaRule)
    module: str
    class_name: str
    doc: str

    def __post_init__(self) -> None:
        # The catalog is written with plain values: the enums are made here.
        object.__setattr__(self, "severity", Severity(self.severity))
        object.__setattr__(self, "fix_availability", Availability(self.fix_availability))
        object.__setattr__(self, "fix_applicabilities", tuple(Applicability(kind) for kind in self.fix_applicabilities))

    # The same questions as the rule class answers (`Rule.fix_summary`, `documentation`, `applies_to`).
    def fix_summary(self) -> str:
        return describe_fix(self.fix_availability, self.fix_applicabilities)

    def documentation(self) -> str:
        return self.doc

    def applies_to(self, text: str) -> bool:
        return any(trigger in text for trigger in self.triggers) and all(required in text for required in self.also_required)

    def load(self) -> "type[Rule]":
        """The rule class, its module imported now."""
        return getattr(importlib.import_module(self.module), self.class_name)
