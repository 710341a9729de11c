"""Which fixes the oldest torch a project supports (`target-torch`) can take.

A fix whose replacement needs a newer torch than the target is still offered, as an unsafe one
whose title says why; the finding itself is reported as before. The findings a file's analysis
(or the result cache) gives are the same for every target: the target is applied to them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Optional

from gradlint.fix.kinds import unsafe_because
from gradlint.fix.plan import torch_release
from gradlint.model import Finding, Fix


def newer_than(needs: str, target: str) -> bool:
    """Whether the release `needs` came after `target` (both "X.Y" or "X.Y.Z")."""
    return _release(needs) > _release(target)


def within_target(findings: Iterable[Finding], target: Optional[str]) -> list[Finding]:
    """The findings as a project whose oldest torch is `target` sees them (all of them as they
    are when `target` is None)."""
    if target is None:
        return list(findings)
    return [_gated(finding, target) for finding in findings]


def _gated(finding: Finding, target: str) -> Finding:
    fix = finding.fix
    if fix is None or fix.needs_torch is None or not newer_than(fix.needs_torch, target):
        return finding
    return replace(finding, fix=_beyond_target(fix, target))


def _beyond_target(fix: Fix, target: str) -> Fix:
    return unsafe_because(fix, f"needs torch {fix.needs_torch}; target-torch is {target}")


def _release(text: str) -> tuple[int, int, int]:
    release = torch_release(text)
    if release is None:
        raise ValueError(f"not a torch release: {text!r}")
    return release
