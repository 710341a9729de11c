"""Apply fixes: non-overlapping edits per round, re-parse, repeat until nothing changes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Optional

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.engine import lint_text, parse, plan_edits
from gradlint.model import SAFE, Edit, Finding
from gradlint.rules import rule_by_code
from gradlint.rules.base import FixPlan, RemoveLine, Replace
from gradlint.analysis.tree import iter_children

if TYPE_CHECKING:
    from gradlint.analysis.imports import ImportedName
    from gradlint.analysis.project import ProjectFacts

MAX_ROUNDS = 20


@dataclass
class FixResult:
    text: str
    applied: int = 0
    remaining: list[Finding] = field(default_factory=list)
    error: Optional[str] = None


def fix_text(
    text: str, path: str, codes: frozenset[str], *, unsafe: bool = False, project: Optional["ProjectFacts"] = None
) -> FixResult:
    """Return the fixed text (or the original, untouched, with an error) and what remains.
    `project`: what the file uses from, and gives to, the other files of its run."""
    current, module = text, None
    applied = 0
    fixed_codes: set[str] = set()
    for _ in range(MAX_ROUNDS):
        outcome = lint_text(current, path, codes, module=module, project=project)
        if outcome.error is not None:
            return FixResult(text, 0, outcome.findings, outcome.error)
        chosen = choose_fixes(outcome.findings, unsafe)
        if not chosen:
            break
        candidate = apply_edits(current, {edit for finding in chosen for edit in finding.fix.edits})
        module = _parsed(candidate)
        if module is None:
            rules = ", ".join(culprits(current, chosen))
            return FixResult(text, 0, outcome.findings, f"internal error: a fix by {rules} produced invalid code; file left unchanged")
        current = candidate
        applied += len(chosen)
        fixed_codes.update(finding.code for finding in chosen)
    else:
        outcome = lint_text(current, path, codes, module=module, project=project)
    cleaned = _remove_unused_imports(current, module, fixed_codes, project)
    if cleaned is not None:
        current, module = cleaned
        outcome = lint_text(current, path, codes, module=module, project=project)
    return FixResult(current, applied, outcome.findings)


def choose_fixes(findings: Iterable[Finding], unsafe: bool) -> list[Finding]:
    """Fixable findings whose edits overlap no edit already chosen in this round."""
    chosen: list[Finding] = []
    taken: list[Edit] = []
    candidates = [f for f in findings if f.fix is not None and (unsafe or f.fix.applicability == SAFE)]
    shared: set[tuple[Edit, ...]] = set()
    for finding in sorted(candidates, key=lambda f: (f.fix.edits[0].start if f.fix.edits else 0)):
        edits = finding.fix.edits
        if edits in shared:
            chosen.append(finding)  # one fix serving several findings (a grouped rewrite)
            continue
        if any(_conflict(edit, other) for edit in edits for other in taken):
            continue
        chosen.append(finding)
        shared.add(edits)
        taken.extend(edits)
    return chosen


def culprits(text: str, chosen: list[Finding]) -> list[str]:
    """The rules whose fixes, applied alone, break `text`; every rule of the round if none does
    alone (the breakage comes from fixes combined)."""
    codes = sorted({finding.code for finding in chosen})
    alone = [
        code
        for code in codes
        if _parsed(apply_edits(text, {edit for finding in chosen if finding.code == code for edit in finding.fix.edits})) is None
    ]
    return alone or codes


def _conflict(a: Edit, b: Edit) -> bool:
    return a.start == b.start or (a.start < b.end and b.start < a.end)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: edit.start] + edit.content + text[edit.end :]
    return text


def _parsed(text: str) -> Optional[cst.Module]:
    module, _ = parse(text)
    return module


def _remove_unused_imports(
    text: str, module: Optional[cst.Module], fixed_codes: set[str], project: Optional["ProjectFacts"] = None
) -> Optional[tuple[str, cst.Module]]:
    """Drop imports of names (declared by the rules that fixed something) that the fixes left unused."""
    targets = {name for code in fixed_codes for name in rule_by_code(code).cleanup_imports}
    if not targets:
        return None
    if module is None:
        module = _parsed(text)
        if module is None:
            return None
    imports = ImportMap.build(module)
    used = _used_names(module)
    changes, lines = [], []
    for target in sorted(targets):
        for imported in imports.imports_of(target):
            if imported.local in used or not isinstance(imported.statement, cst.ImportFrom):
                continue
            if imported_by_other_files(imported, project):
                continue
            line = _top_level_line(module, imported.statement)
            change = _removal(line, imported.statement, imported.alias) if line is not None else None
            if change is not None:
                changes.append(change)
                lines.append(line)
    if not changes:
        return None
    fix = plan_edits(text, module, FixPlan(SAFE, "remove unused import", tuple(changes)), statements=lines)
    if fix is None:
        return None
    candidate = apply_edits(text, fix.edits)
    candidate_module = _parsed(candidate)
    return (candidate, candidate_module) if candidate_module is not None else None


def imported_by_other_files(imported: "ImportedName", project: Optional["ProjectFacts"]) -> bool:
    """Another file of the project imports this name from this module (`from model import
    Variable`, `from model import *`, `model.Variable`): removing it here would break that file."""
    return project is not None and imported.local in project.reimported


def _used_names(module: cst.Module) -> set[str]:
    used: set[str] = set()
    pending: list[cst.CSTNode] = [module]
    while pending:
        node = pending.pop()
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            continue
        if isinstance(node, cst.Name):
            used.add(node.value)
        pending.extend(iter_children(node))
    return used


def _top_level_line(module: cst.Module, statement: cst.ImportFrom) -> Optional[cst.SimpleStatementLine]:
    """The module-level line holding `statement`; None inside a block (removing it could empty the block)."""
    return next(
        (
            node
            for node in module.body
            if isinstance(node, cst.SimpleStatementLine) and any(small is statement for small in node.body)
        ),
        None,
    )


def _removal(line: cst.SimpleStatementLine, statement: cst.ImportFrom, alias: cst.ImportAlias):
    """Remove one alias from a top-level `from ... import` (or the whole line if it was the last)."""
    names = statement.names
    if isinstance(names, cst.ImportStar):
        return None
    kept = [name for name in names if name is not alias]
    if not kept:
        return RemoveLine(line) if len(line.body) == 1 else None
    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return Replace(statement, statement.with_changes(names=kept))
