"""After fixes: drop the imports they left unused (declared per rule in `cleanup_imports`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Sequence

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.tree import iter_children
from gradlint.engine import parse
from gradlint.fix.edits import apply_edits, plan_edits
from gradlint.fix.plan import Applicability, FixPlan, RemoveLine, Replace
from gradlint.rules import rule_by_code

if TYPE_CHECKING:
    from gradlint.analysis.imports import ImportedName
    from gradlint.model.project import ProjectFacts


def parsed(text: str) -> Optional[cst.Module]:
    """The module, or None when `text` does not parse."""
    module, _ = parse(text)
    return module


@dataclass(frozen=True)
class Cleaned:
    text: str
    module: cst.Module
    removed: frozenset[str]  # the local names whose imports were dropped


def codes_to_clean_up(text: str, fixed_codes: set[str], migration: set[str], project: Optional["ProjectFacts"] = None) -> set[str]:
    """The rules whose imports the clean-up drops when unused: those that fixed something, and the
    selected migration rules whose obsolete names the text may still import (the last use went in
    an earlier run, or by hand, while another file still needed the import then)."""
    outside = set(project.names.values()) if project is not None else set()
    leftovers = {
        code for code in migration - fixed_codes if any(_may_import(text, name, outside) for name in rule_by_code(code).cleanup_imports)
    }
    return fixed_codes | leftovers


def _may_import(text: str, name: str, outside: set[str]) -> bool:
    return name.rsplit(".", 1)[-1] in text or name in outside


def remove_unused_imports(
    text: str, module: Optional[cst.Module], fixed_codes: set[str], project: Optional["ProjectFacts"] = None
) -> Optional[Cleaned]:
    """Drop imports of names (declared by the rules that fixed something) that the fixes left
    unused: imports of the name itself, and imports of it from another file of the project
    (`from model import Variable`, where `model` imports it from torch)."""
    targets = {name for code in fixed_codes for name in rule_by_code(code).cleanup_imports}
    if not targets:
        return None
    if module is None:
        module = parsed(text)
        if module is None:
            return None
    imports = ImportMap.build(module, project)
    used = _used_names(module)
    # One change per import statement: two names dropped from one `from ... import` are one edit.
    unused: dict[int, list["ImportedName"]] = {}
    for target in sorted(targets):
        for imported in imports.imports_resolving_to(target):
            if imported.local in used or not isinstance(imported.statement, cst.ImportFrom):
                continue
            if imported_by_other_files(imported, project):
                continue
            unused.setdefault(id(imported.statement), []).append(imported)
    changes, lines, removed = [], [], set()
    for dropped in unused.values():
        statement = dropped[0].statement
        place = _import_line(module, statement)
        change = _removal(place, statement, {id(imported.alias) for imported in dropped}) if place is not None else None
        if change is not None:
            changes.append(change)
            lines.append(place.top_level)
            removed.update(imported.local for imported in dropped)
    if not changes:
        return None
    fix = plan_edits(text, module, FixPlan(Applicability.SAFE, "remove unused import", tuple(changes)), statements=lines)
    if fix is None:
        return None
    candidate = apply_edits(text, fix.edits)
    candidate_module = parsed(candidate)
    return Cleaned(candidate, candidate_module, frozenset(removed)) if candidate_module is not None else None


def imported_by_other_files(imported: "ImportedName", project: Optional["ProjectFacts"]) -> bool:
    """Another file of the project imports this name from this module (`from model import
    Variable`, `from model import *`, `model.Variable`): removing it here would break that file."""
    return project is not None and imported.local in project.reimported


def _used_names(module: cst.Module) -> set[str]:
    """Names the module reads, and the names its `__all__` lists (a star import of it needs them)."""
    used = _dunder_all_names(module)
    pending: list[cst.CSTNode] = [module]
    while pending:
        node = pending.pop()
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            continue
        if isinstance(node, cst.Name):
            used.add(node.value)
        elif isinstance(node, cst.Attribute):
            pending.append(node.value)  # `torch.sigmoid` reads `torch`, not a name `sigmoid`
            continue
        pending.extend(iter_children(node))
    return used


def _dunder_all_names(module: cst.Module) -> set[str]:
    names: set[str] = set()
    for line in module.body:
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            targets = [target.target for target in small.targets] if isinstance(small, cst.Assign) else [getattr(small, "target", None)]
            if not any(isinstance(target, cst.Name) and target.value == "__all__" for target in targets):
                continue
            pending: list[cst.CSTNode] = [small.value] if small.value is not None else []
            while pending:
                node = pending.pop()
                if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
                    names.add(node.evaluated_value)
                pending.extend(iter_children(node))
    return names


@dataclass(frozen=True)
class _ImportLine:
    line: cst.SimpleStatementLine  # the line holding the import
    emptiable: bool  # the line may go alone: a module may be empty, a function's block may not
    top_level: cst.CSTNode  # the module-level statement the line is in


def _import_line(module: cst.Module, statement: cst.ImportFrom) -> Optional[_ImportLine]:
    """Where `statement` is: at module level, or in a function's block, also nested (`def
    eval_model(...): from torch.autograd import Variable`); None when it is not a line of its own
    in a block (`if x: import a`, a `try` body, whose emptying would need a `pass`)."""
    for top_level in module.body:
        found = _line_in(top_level, module.body, statement)
        if found is not None:
            line, block = found
            return _ImportLine(line, block is module.body or len(block) > 1, top_level)
    return None


def _line_in(node: cst.CSTNode, block: Sequence[cst.CSTNode], statement: cst.ImportFrom):
    if isinstance(node, cst.SimpleStatementLine):
        return (node, block) if any(small is statement for small in node.body) else None
    # Not a class body: there an import is an attribute too (`self.Variable`), a read no name shows.
    if isinstance(node, cst.FunctionDef) and isinstance(node.body, cst.IndentedBlock):
        for child in node.body.body:
            found = _line_in(child, node.body.body, statement)
            if found is not None:
                return found
    return None


def _removal(place: _ImportLine, statement: cst.ImportFrom, aliases: set[int]):
    """Remove aliases (by id) from a `from ... import` (or the whole line if none is left and
    its block keeps another statement)."""
    names = statement.names
    if isinstance(names, cst.ImportStar):
        return None
    kept = [name for name in names if id(name) not in aliases]
    if not kept:
        return RemoveLine(place.line) if len(place.line.body) == 1 and place.emptiable else None
    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return Replace(statement, statement.with_changes(names=kept))
