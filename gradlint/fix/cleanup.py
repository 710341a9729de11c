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
from gradlint.model import Edit, Location
from gradlint.rules import rule_by_code
from gradlint.statement_trees import StatementTree, StatementTrees

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
    module: Optional[cst.Module]  # None when the text was checked statement by statement
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
    text: str,
    module: Optional[cst.Module],
    fixed_codes: set[str],
    project: Optional["ProjectFacts"] = None,
    trees: Optional[StatementTrees] = None,
) -> Optional[Cleaned]:
    """Drop imports of names (declared by the rules that fixed something) that the fixes left
    unused: imports of the name itself, and imports of it from another file of the project
    (`from model import Variable`, where `model` imports it from torch). `trees`: the statements
    of the document's last texts, when it has no `module`; then only statements not seen in them
    are parsed (the cleaned text's `module` is None)."""
    targets = {name for code in fixed_codes for name in rule_by_code(code).cleanup_imports}
    if not targets:
        return None
    statements = trees.of(text) if module is None and trees is not None else None
    if statements is not None and all(statement.module is not None for statement in statements):
        return _cleaned_statement_by_statement(text, statements, targets, project, trees)
    if module is None:
        module = parsed(text)
        if module is None:
            return None
    found = _removals(text, module, targets, _used_names(module), project)
    if found is None:
        return None
    edits, removed = found
    candidate = apply_edits(text, edits)
    candidate_module = parsed(candidate)
    return Cleaned(candidate, candidate_module, removed) if candidate_module is not None else None


def _cleaned_statement_by_statement(
    text: str, statements: list[StatementTree], targets: set[str], project: Optional["ProjectFacts"], trees: StatementTrees
) -> Optional[Cleaned]:
    """The clean-up of each statement parsed alone: the names used anywhere, the imports each
    statement holds, its edits moved to its place in `text`."""
    used: set[str] = set()
    for statement in statements:
        used |= _statement_used_names(statement)
    edits: list[Edit] = []
    removed: set[str] = set()
    for statement in statements:
        if "import" not in statement.source:
            continue
        found = _removals(statement.source, statement.module, targets, used, project)
        if found is None:
            continue
        edits += (_moved(edit, statement) for edit in found[0])
        removed |= found[1]
    if not edits:
        return None
    candidate = apply_edits(text, edits)
    return Cleaned(candidate, None, frozenset(removed)) if trees.parses(candidate) else None


def _statement_used_names(statement: StatementTree) -> frozenset[str]:
    used = statement.facts.get(_USED_NAMES)
    if used is None:
        used = statement.facts[_USED_NAMES] = frozenset(_used_names(statement.module))
    return used


_USED_NAMES = "names the clean-up sees used"


def _moved(edit: Edit, statement: StatementTree) -> Edit:
    rows = statement.first_row - 1
    return Edit(
        edit.start + statement.offset,
        edit.end + statement.offset,
        edit.content,
        Location(edit.location.row + rows, edit.location.column),
        Location(edit.end_location.row + rows, edit.end_location.column),
    )


def _removals(
    text: str, module: cst.Module, targets: set[str], used: set[str] | frozenset[str], project: Optional["ProjectFacts"]
) -> Optional[tuple[tuple[Edit, ...], frozenset[str]]]:
    """The edits that drop the imports of `targets` that `used` does not hold, and the local names
    they drop; None when there are none."""
    imports = ImportMap.build(module, project)
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
    return (fix.edits, frozenset(removed)) if fix is not None else None


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
