"""What each name in a file refers to: `ag.Variable` and `V` may both mean `torch.autograd.Variable`.

Resolution is file-wide and deliberately conservative: a name with any binding other than one
consistent import (a local `def`, `class`, assignment, loop target...) resolves to nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, Optional

import libcst as cst

from gradlint.analysis.syntax import dotted_name, is_docstring, iter_statements
from gradlint.analysis.tree import descendants

if TYPE_CHECKING:
    from gradlint.model.project import ProjectFacts

# Modules re-exporting a name under a second path: the canonical spelling wins.
CANONICAL = {
    "torch.autograd.variable.Variable": "torch.autograd.Variable",
}

_SHADOWED = object()
_ALIAS = object()  # bound by `V = autograd.Variable`: resolved through the aliased expression


@dataclass(frozen=True)
class ImportedName:
    """One `import` binding: `alias` in `statement` binds `local` to `target`."""

    local: str
    target: str
    statement: cst.CSTNode  # the Import / ImportFrom small statement
    alias: cst.ImportAlias


@dataclass
class ImportMap:
    bindings: dict[str, object] = field(default_factory=dict)  # local name -> target or _SHADOWED
    imports: list[ImportedName] = field(default_factory=list)
    star_modules: list[str] = field(default_factory=list)
    project: Optional["ProjectFacts"] = None  # names this file brings in from other files of its run
    project_stars: list[str] = field(default_factory=list)  # star imports of local modules, as written
    aliases: dict[str, cst.BaseExpression] = field(default_factory=dict)  # `V = autograd.Variable`
    # id(attribute) -> (attribute, its qualified name): rules ask about the same attribute many
    # times; holding the node keeps its id from being reused by another.
    _resolved_attributes: dict[int, tuple[cst.Attribute, Optional[str]]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(cls, module: cst.Module, project: Optional["ProjectFacts"] = None) -> "ImportMap":
        result = cls(project=project or None)
        for statement in iter_statements(module.body):
            result._record(statement)
        return result

    def sole_from_import(self, local: str) -> Optional[ImportedName]:
        """The one `from ... import local` (without `as`) that binds `local` at module level."""
        found = [imported for imported in self.imports if imported.local == local]
        if len(found) != 1 or found[0].alias.asname is not None or not isinstance(found[0].statement, cst.ImportFrom):
            return None
        return found[0]

    def _record(self, statement: cst.CSTNode) -> None:
        kind = type(statement)  # exact types: see analysis/syntax.py
        if kind is cst.Import:
            for alias in statement.names:
                full = dotted_name(alias.name) or ""
                if alias.asname is None:
                    local = full.split(".", 1)[0]
                    self._bind_import(local, local, statement, alias)
                else:
                    self._bind_import(_asname(alias), full, statement, alias)
        elif kind is cst.ImportFrom:
            self._record_from(statement)
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            self._shadow(statement.name.value)
        elif kind is cst.Assign and _alias_assignment(statement) is not None:
            self._bind_alias(statement.targets[0].target.value, statement.value)
        elif kind is cst.Assign or kind is cst.AnnAssign or kind is cst.AugAssign:
            targets = statement.targets if kind is cst.Assign else [statement]
            for target in targets:
                for name in _target_names(target.target):
                    self._shadow(name)
        elif kind is cst.For:
            for name in _target_names(statement.target):
                self._shadow(name)
        elif kind is cst.With:
            for item in statement.items:
                if item.asname is not None:
                    for name in _target_names(item.asname.name):
                        self._shadow(name)

    def _record_from(self, statement: cst.ImportFrom) -> None:
        if statement.relative or statement.module is None:
            if self.project is not None and self._record_relative_from(statement):
                return
            names = [] if isinstance(statement.names, cst.ImportStar) else statement.names
            for alias in names:
                self._shadow(_asname(alias) or (dotted_name(alias.name) or ""))
            return
        module = dotted_name(statement.module) or ""
        if isinstance(statement.names, cst.ImportStar):
            self.star_modules.append(module)
            if self.project is not None and module in self.project.stars:
                self.project_stars.append(module)
            return
        for alias in statement.names:
            name = dotted_name(alias.name) or ""
            self._bind_import(_asname(alias) or name, f"{module}.{name}", statement, alias)

    def _bind_import(self, local: str, target: str, statement: cst.CSTNode, alias: cst.ImportAlias) -> None:
        target = CANONICAL.get(target, target)
        self.imports.append(ImportedName(local, target, statement, alias))
        if self.project is not None:
            target = self.project.names.get(target, target)
        previous = self.bindings.get(local)
        if previous is None or previous == target:
            self.bindings[local] = target
        else:
            self.bindings[local] = _SHADOWED

    def _shadow(self, local: str) -> None:
        self.bindings[local] = _SHADOWED

    def _bind_alias(self, local: str, value: cst.BaseExpression) -> None:
        """`local = value` is its only kind of binding: `local` means what `value` means."""
        previous = self.bindings.get(local)
        if previous is None or previous is _ALIAS and dotted_name(self.aliases[local]) == dotted_name(value):
            self.bindings[local] = _ALIAS
            self.aliases[local] = value
        else:
            self._shadow(local)

    def _resolve_alias(self, local: str) -> Optional[str]:
        value = self.aliases.pop(local)  # taken out while resolving: `a = b; b = a` ends here
        try:
            root = value
            while isinstance(root, cst.Attribute):
                root = root.value
            if not (isinstance(root, cst.Name) and root.value in self.bindings):
                return None  # only names bound in this file (a star import's names are guesses)
            return self.qualified_name(value)
        finally:
            self.aliases[local] = value

    def is_imported(self, local: str) -> bool:
        """True when `local` is bound by imports only (a module or an imported object), directly
        or through aliases."""
        bound = self.bindings.get(local)
        if bound is _ALIAS:
            return self.resolve_name(local) is not None
        return bound is not None and bound is not _SHADOWED

    def resolve_name(self, local: str) -> Optional[str]:
        target = self.bindings.get(local)
        if target is _SHADOWED:
            return None
        if target is _ALIAS:
            return self._resolve_alias(local) if local in self.aliases else None
        if target is None:
            if self.project_stars:
                found = self._from_project_star(local)
                if found is not None:
                    return found
            if len(self.star_modules) == 1:
                return CANONICAL.get(f"{self.star_modules[0]}.{local}", f"{self.star_modules[0]}.{local}")
            return None
        return target  # type: ignore[return-value]

    def qualified_name(self, node: cst.CSTNode) -> Optional[str]:
        """The fully qualified name an expression refers to, or None when unknown."""
        kind = type(node)  # exact types: see analysis/syntax.py
        if kind is cst.Name:
            return self.resolve_name(node.value)
        if kind is not cst.Attribute:
            return None
        known = self._resolved_attributes.get(id(node))
        if known is not None and known[0] is node:
            return known[1]
        full = self.qualified_name(node.value)
        if full is not None:
            full = f"{full}.{node.attr.value}"
            if self.project is not None:
                full = self.project.names.get(full, full)
            full = CANONICAL.get(full, full)
        self._resolved_attributes[id(node)] = (node, full)
        return full

    def imports_of(self, target: str) -> Iterator[ImportedName]:
        """Imports written as `target` in this file (not those reaching it through another file)."""
        return (imported for imported in self.imports if imported.target == target)

    def imports_resolving_to(self, target: str) -> Iterator[ImportedName]:
        """Imports of `target` in this file, also those naming it through another file of the
        project (`from model import Variable`, where `model` imports it from torch)."""
        through = self.project.names if self.project is not None else {}
        return (imported for imported in self.imports if through.get(imported.target, imported.target) == target)

    # -- names from other files of the project (only with `project` facts) -----------------------

    def _record_relative_from(self, statement: cst.ImportFrom) -> bool:
        """`from .model import Variable` where `model` imports it from outside: bind the outside
        name. False when the facts know nothing of this module (the import stays unresolved)."""
        spelling = "." * len(statement.relative) + (dotted_name(statement.module) or "" if statement.module else "")
        if isinstance(statement.names, cst.ImportStar):
            if spelling not in self.project.stars:
                return False
            self.project_stars.append(spelling)
            return True
        for alias in statement.names:
            name = dotted_name(alias.name) or ""
            target = self.project.names.get(f"{spelling}.{name}")
            if target is None:
                self._shadow(_asname(alias) or name)
            else:
                self._bind_import(_asname(alias) or name, target, statement, alias)
        return True

    def _from_project_star(self, local: str) -> Optional[str]:
        """The outside name an unbound `local` stands for when exactly one star import can bring
        it and that one is (or leads through a local module to) an outside module."""
        candidates: list[Optional[str]] = []
        for module in self.star_modules + [star for star in self.project_stars if star.startswith(".")]:
            star = self.project.stars.get(module) if module in self.project_stars else None
            if star is None:
                candidates.append(None if module.startswith(".") else f"{module}.{local}")
            elif local in star.names:
                candidates.append(self.project.names.get(f"{module}.{local}"))
            elif not star.closed:
                candidates.append(f"{star.fallback}.{local}" if star.fallback else None)
            if len(candidates) > 1:
                return None
        if len(candidates) != 1 or candidates[0] is None:
            return None
        return CANONICAL.get(candidates[0], candidates[0])


def _asname(alias: cst.ImportAlias) -> Optional[str]:
    if alias.asname is None:
        return None
    name = alias.asname.name
    return name.value if isinstance(name, cst.Name) else None


def _target_names(target: cst.CSTNode) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)


def _alias_assignment(statement: cst.Assign) -> Optional[str]:
    """`V` for `V = autograd.Variable`: one name bound to a dotted name."""
    targets, value = statement.targets, statement.value
    if len(targets) != 1 or type(targets[0].target) is not cst.Name:
        return None
    if type(value) is not cst.Name and type(value) is not cst.Attribute or dotted_name(value) is None:
        return None
    return targets[0].target.value


def module_level_alias(module: cst.Module, imports: ImportMap, target: str) -> Optional[str]:
    """A name bound to `target` by an import at the top level of the module (usable anywhere)."""
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Import):
                continue
            for alias in small.names:
                full = dotted_name(alias.name) or ""
                local = _asname(alias) or full.split(".", 1)[0]
                bound = full if alias.asname is not None else local
                if bound == target and imports.bindings.get(local) == target:
                    return local
    return None


def import_anchor(module: cst.Module, near: Optional[str] = None) -> Optional[cst.CSTNode]:
    """The statement before which a new top-level import goes: after the docstring and `__future__`,
    or, for `import torch` (`near="torch"`), before the file's first import from torch among its
    leading imports, so that it joins the torch imports instead of preceding the standard library."""
    if near is not None:
        joined = _first_import_of(module, near)
        if joined is not None:
            return joined
    for index, statement in enumerate(module.body):
        if index == 0 and is_docstring(statement):
            continue
        if isinstance(statement, cst.SimpleStatementLine) and any(
            isinstance(small, cst.ImportFrom) and dotted_name(small.module or cst.Name("_")) == "__future__" for small in statement.body
        ):
            continue
        decorators = getattr(statement, "decorators", ())
        return decorators[0] if decorators else statement
    return None


def _first_import_of(module: cst.Module, package: str) -> Optional[cst.CSTNode]:
    for index, statement in enumerate(module.body):
        if index == 0 and is_docstring(statement):
            continue
        if not (
            isinstance(statement, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)
        ):
            return None  # past the leading imports
        for small in statement.body:
            names = [alias.name for alias in small.names] if isinstance(small, cst.Import) else [small.module] if small.module else []
            if small is statement.body[0] and any(_in_package(dotted_name(name), package) for name in names if name is not None):
                return statement
    return None


def _in_package(dotted: Optional[str], package: str) -> bool:
    return dotted is not None and (dotted == package or dotted.startswith(package + "."))


def uses_outside_imports(module: cst.Module, local: str) -> int:
    """How many times the name `local` occurs in the module outside its `from` imports."""
    imports = [node for node in descendants(module) if type(node) is cst.ImportFrom]
    return _occurrences(module, local) - sum(_occurrences(statement, local) for statement in imports)


def _occurrences(node: cst.CSTNode, name: str) -> int:
    return sum(1 for current in descendants(node) if type(current) is cst.Name and current.value == name)
