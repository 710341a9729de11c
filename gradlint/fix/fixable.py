"""Which rules' fixes a run may use (`fixable` / `unfixable`, as ruff's).

The finding of a rule that is not fixable is reported without its fix, as ruff does: it is not
counted as fixable, not applied by `fix`, and has no `fix` in the structured formats. The
findings a file's analysis (or the result cache) gives are the same for every choice: the choice
is applied to them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Optional

from gradlint.model import Finding


def only_fixable(findings: Iterable[Finding], fixable: Optional[frozenset[str]]) -> list[Finding]:
    """The findings with the fixes of the rules outside `fixable` dropped (all kept when None)."""
    if fixable is None:
        return list(findings)
    return [finding if finding.fix is None or finding.code in fixable else replace(finding, fix=None) for finding in findings]
