"""Noqa rules: rules about the suppression comments themselves, judged after every other rule."""

from __future__ import annotations

from typing import Sequence

from gradlint.model import Finding
from gradlint.noqa import NoqaLines
from gradlint.rules.base import Rule


class NoqaRule(Rule):
    """A rule that reads a file's `# noqa` comments against the findings of the other rules
    before suppression. It visits no node; the engine calls `judge` once the others are done."""

    @classmethod
    def judge(
        cls, lines: NoqaLines, findings: Sequence[Finding], selected: frozenset[str], known: frozenset[str], path: str
    ) -> list[Finding]:
        """Findings about the comments of `lines`, given every finding of the `selected` rules
        (suppressed ones included) and the codes of every rule (`known`)."""
        raise NotImplementedError
