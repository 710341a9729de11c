"""Apply fixes: non-overlapping edits per round, re-parse, repeat until nothing changes."""

from __future__ import annotations

import itertools
from bisect import bisect_left, insort
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Iterable, Optional

import libcst as cst

from gradlint.engine import LintOutcome, lint_text
from gradlint.fix.cleanup import codes_to_clean_up, parsed, remove_unused_imports
from gradlint.fix.edits import apply_edits
from gradlint.fix.fixable import only_fixable
from gradlint.fix.plan import Applicability
from gradlint.fix.record import ChangeLog
from gradlint.fix.target import within_target
from gradlint.model import Edit, Finding, Fix
from gradlint.model.migration import AppliedChange
from gradlint.rules import codes_fixed_first, migration_codes

if TYPE_CHECKING:
    from gradlint.fix.memory import FixMemory
    from gradlint.model.project import ProjectFacts

MAX_ROUNDS = 20


@dataclass
class FixResult:
    text: str
    applied: int = 0
    remaining: list[Finding] = field(default_factory=list)
    error: Optional[str] = None
    removed_imports: frozenset[str] = frozenset()  # names whose imports the clean-up dropped
    changes: list[AppliedChange] = field(default_factory=list)  # with `record`: each change made


# Whether a fix may be applied to the text at hand (a notebook's guard of its cell boundaries).
FixGuard = Callable[[str, Fix], bool]


def fix_text(
    text: str,
    path: str,
    codes: frozenset[str],
    *,
    unsafe: bool = False,
    respect_noqa: bool = True,
    project: Optional["ProjectFacts"] = None,
    guard: Optional[FixGuard] = None,
    record: bool = False,
    target_torch: Optional[str] = None,
    fixable: Optional[frozenset[str]] = None,
    in_pieces: Optional["PieceAnalysis"] = None,
    memory: Optional["FixMemory"] = None,
) -> FixResult:
    """Return the fixed text (or the original, untouched, with an error) and what remains.
    `respect_noqa` False: fix what noqa comments suppress too (`--ignore-noqa`). `project`: what
    the file uses from, and gives to, the other files of its run; `guard`: which fixes may be
    applied (all when None); `record`: list each change made (for a migration report);
    `target_torch`: the oldest torch the code must run on (a fix needing a newer one is unsafe);
    `fixable`: the rules whose fixes may be applied (all when None). `in_pieces`: a file too
    large to be parsed whole, analysed and checked piece by piece; its unused imports stay.
    `memory`: what the fix of an earlier version of the text found, which the fix of this one
    analyses and parses again only where the text changed."""
    log = ChangeLog(path, text) if record else None
    current, module = text, None
    applied = 0
    fixed_codes: set[str] = set()
    steps = itertools.count()

    def lint(current: str, module: Optional[cst.Module]) -> LintOutcome:
        step = next(steps)
        if in_pieces is not None:
            outcome = in_pieces.analyse(current)
        else:
            analyse = memory.analysis(step) if memory is not None else None
            outcome = lint_text(current, path, codes, respect_noqa=respect_noqa, module=module, project=project, analyse=analyse)
        return replace(outcome, findings=only_fixable(within_target(outcome.findings, target_torch), fixable))

    def valid(candidate: str) -> tuple[bool, Optional[cst.Module]]:
        if in_pieces is not None:
            return in_pieces.compiles(candidate), None
        if memory is not None:  # its analysis needs no tree
            return memory.trees.parses(candidate), None
        module = parsed(candidate)
        return module is not None, module

    for _ in range(MAX_ROUNDS):
        outcome = lint(current, module)
        if outcome.error is not None:
            return FixResult(text, 0, outcome.findings, outcome.error)
        if memory is None or outcome.module is not None:
            module = outcome.module  # the tree of `current` (None after a repair): the clean-up need not parse again
        allowed = outcome.findings if guard is None else [f for f in outcome.findings if f.fix is None or guard(current, f.fix)]
        chosen = choose_fixes(allowed, unsafe)
        if not chosen:
            break
        candidate = apply_edits(current, {edit for finding in chosen for edit in finding.fix.edits})
        fits, module = valid(candidate)
        if not fits:
            rules = ", ".join(culprits(current, chosen))
            return FixResult(text, 0, outcome.findings, f"internal error: a fix by {rules} produced invalid code; file left unchanged")
        if log is not None:
            log.record_round(current, chosen)
        current = candidate
        applied += len(chosen)
        fixed_codes.update(finding.code for finding in chosen)
    else:
        outcome = lint(current, module)
    if in_pieces is not None:  # the clean-up reads the whole tree
        return FixResult(current, applied, outcome.findings, changes=log.changes if log is not None else [])
    to_clean_up = codes_to_clean_up(current, fixed_codes, migration_codes(codes), project)
    cleaned = remove_unused_imports(current, module, to_clean_up, project, memory.trees if memory is not None else None)
    changes = log.changes if log is not None else []
    if cleaned is None:
        return FixResult(current, applied, outcome.findings, changes=changes)
    if log is not None:
        log.record_import_removal(current, cleaned.text, cleaned.removed)
    current, module = cleaned.text, cleaned.module
    outcome = lint(current, module)
    return FixResult(current, applied, outcome.findings, removed_imports=cleaned.removed, changes=changes)


@dataclass(frozen=True)
class PieceAnalysis:
    """How a file too large to be parsed whole is analysed (`analyse`) and told valid (`compiles`)."""

    analyse: Callable[[str], LintOutcome]
    compiles: Callable[[str], bool]


def choose_fixes(findings: Iterable[Finding], unsafe: bool) -> list[Finding]:
    """Fixable findings whose edits overlap no edit already chosen in this round."""
    chosen: list[Finding] = []
    taken = _TakenSpans()
    candidates = [f for f in findings if f.fix is not None and (unsafe or f.fix.applicability == Applicability.SAFE)]
    first = [f for f in candidates if f.code in codes_fixed_first()]
    candidates = first or candidates  # the others see the code those fixes leave
    shared: set[tuple[Edit, ...]] = set()
    for finding in sorted(candidates, key=lambda f: f.fix.edits[0].start if f.fix.edits else 0):
        edits = finding.fix.edits
        if edits in shared:
            chosen.append(finding)  # one fix serving several findings (a grouped rewrite)
            continue
        if any(taken.conflicts(edit) for edit in edits):
            continue
        chosen.append(finding)
        shared.add(edits)
        taken.add(edits)
    return chosen


def culprits(text: str, chosen: list[Finding]) -> list[str]:
    """The rules whose fixes, applied alone, break `text`; every rule of the round if none does
    alone (the breakage comes from fixes combined)."""
    codes = sorted({finding.code for finding in chosen})
    alone = [
        code
        for code in codes
        if parsed(apply_edits(text, {edit for finding in chosen if finding.code == code for edit in finding.fix.edits})) is None
    ]
    return alone or codes


class _TakenSpans:
    """The spans of the edits chosen so far, sorted. Chosen edits never overlap (one fix may put an
    insertion where its own replacement starts, sorted before it), so their ends are sorted too:
    an edit conflicts with one that starts where it does, or with the last one starting before
    its end if that one reaches past the edit's start. Comparing with every chosen edit instead
    made choosing quadratic in the findings."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []

    def conflicts(self, edit: Edit) -> bool:
        same = bisect_left(self.spans, (edit.start, -1))
        if same < len(self.spans) and self.spans[same][0] == edit.start:
            return True
        last_before_end = bisect_left(self.spans, (edit.end, -1)) - 1
        return last_before_end >= 0 and self.spans[last_before_end][1] > edit.start

    def add(self, edits: Iterable[Edit]) -> None:
        for edit in edits:
            insort(self.spans, (edit.start, edit.end))
