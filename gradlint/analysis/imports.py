"""What each name in a file refers to: `ag.Variable` and `V` may both mean `torch.autograd.Variable`.

A name read resolves per scope and in source order, as Python resolves it (see scoped_imports.py):
a function-local `from torch.autograd import Variable` is what `Variable` means in that function,
whatever the module imports under the same name. Resolution stays conservative: a name the binding
of which is not one consistent import (a local `def`, `class`, assignment, loop target, parameter,
or imports of different things that may reach the read) resolves to nothing.

`bindings`, `is_imported` and `resolve_name` answer for the name over the whole file, whatever the
scope: "is `isinstance` rebound anywhere", "is `np` an imported module".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, Optional, Sequence

import libcst as cst

from gradlint.analysis.scoped_imports import BEFORE_BINDING, SHADOWED, STAR, UNBOUND, Alias, ImportScopes, Reads, Scope
from gradlint.analysis.syntax import child_statements, dotted_name, is_docstring, parameter_names
from gradlint.analysis.tree import descendants, iter_children

if TYPE_CHECKING:
    from gradlint.model.project import ProjectFacts

# Modules re-exporting a name under a second path: the canonical spelling wins.
CANONICAL = {
    "torch.autograd.variable.Variable": "torch.autograd.Variable",
}

_SHADOWED = SHADOWED
# The statements that bind names where they run (the others are skipped while building).
_BINDING_STATEMENTS = frozenset(
    {
        cst.Import,
        cst.ImportFrom,
        cst.FunctionDef,
        cst.ClassDef,
        cst.Assign,
        cst.AnnAssign,
        cst.AugAssign,
        cst.For,
        cst.With,
        cst.Global,
        cst.Nonlocal,
    }
)
_STAR_ONLY = frozenset([STAR])
_END_OF_SCOPE = object()
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
    bindings: dict[str, object] = field(default_factory=dict)  # local name -> target or _SHADOWED, over the whole file
    imports: list[ImportedName] = field(default_factory=list)
    star_modules: list[str] = field(default_factory=list)
    project: Optional["ProjectFacts"] = None  # names this file brings in from other files of its run
    project_stars: list[str] = field(default_factory=list)  # star imports of local modules, as written
    aliases: dict[str, cst.BaseExpression] = field(default_factory=dict)  # `V = autograd.Variable`
    # Names a relative import binds to what no facts resolve to an outside name (`from .. import
    # lowering as L`): modules or objects of the package, never a value the file computes.
    unresolved_relative: set[str] = field(default_factory=set)
    # id(attribute) -> (attribute, its qualified name): rules ask about the same attribute many
    # times; holding the node keeps its id from being reused by another.
    _resolved_attributes: dict[int, tuple[cst.Attribute, Optional[str]]] = field(default_factory=dict, repr=False, compare=False)
    _scopes: Optional[ImportScopes] = field(default=None, repr=False, compare=False)
    # Names whose reads depend on where they are (see scoped_imports.py); the others resolve file-wide.
    _followed: frozenset[str] = field(default_factory=frozenset, repr=False, compare=False)
    _imported_names: set[str] = field(default_factory=set, repr=False, compare=False)  # bound by an import somewhere
    _alias_roots: list[tuple[str, str]] = field(
        default_factory=list, repr=False, compare=False
    )  # (`V`, `autograd`) for `V = autograd.Variable`
    _reads: Optional[Reads] = field(default=None, repr=False, compare=False)
    _read_targets: dict[int, Optional[str]] = field(default_factory=dict, repr=False, compare=False)
    _resolving: set[int] = field(default_factory=set, repr=False, compare=False)

    @classmethod
    def build(cls, module: cst.Module, project: Optional["ProjectFacts"] = None) -> "ImportMap":
        result = cls(project=project or None)
        scopes = ImportScopes(module)
        # Every statement in source order, depth first; a scope's end is marked on the stack.
        scope = scopes.module
        pending: list[object] = list(reversed(module.body))
        while pending:
            statement = pending.pop()
            kind = type(statement)  # exact types: see analysis/syntax.py
            if kind is cst.SimpleStatementLine:
                for small in statement.body:
                    if type(small) in _BINDING_STATEMENTS:
                        result._record(small, scope, scopes)
                continue
            if statement is _END_OF_SCOPE:
                scope = scope.parent
                continue
            if kind in _BINDING_STATEMENTS:
                result._record(statement, scope, scopes)
                if kind is cst.FunctionDef or kind is cst.ClassDef:
                    scope = scopes.enter(statement, scope)
                    pending.append(_END_OF_SCOPE)
            pending.extend(reversed(child_statements(statement)))
        scopes.finish(result._meaningful_names(), bool(result.star_modules or result.project_stars))
        result._scopes = scopes
        result._followed = scopes.followed_names
        return result

    @property
    def followed_names(self) -> frozenset[str]:
        """The names whose meaning depends on where they are read (bound in a function or class
        body, or bound to different things at module level); the others mean one thing file-wide."""
        return self._followed

    def sole_from_import(self, local: str) -> Optional[ImportedName]:
        """The one `from ... import local` (without `as`) that binds `local` at module level."""
        found = [imported for imported in self.imports if imported.local == local]
        if len(found) != 1 or found[0].alias.asname is not None or not isinstance(found[0].statement, cst.ImportFrom):
            return None
        return found[0]

    def _record(self, statement: cst.CSTNode, scope: Scope, scopes: ImportScopes) -> None:
        kind = type(statement)
        if kind is cst.Global or kind is cst.Nonlocal:
            scopes.declare(statement, scope)
            return
        for local, value in self._bindings_of(statement, record=True):
            if value is SHADOWED:
                self.bindings[local] = _SHADOWED
            elif type(value) is Alias:
                self._alias_roots.append((local, _root_name(value.value)))
                self._bind_alias(local, value.value)
            else:
                self._imported_names.add(local)
                self._bind(local, value)
            scopes.bind(local, value, scope)

    def _bindings_of(self, statement: cst.CSTNode, record: bool = False) -> list[tuple[str, object]]:
        """(name, value) for each name the statement binds where it runs: a qualified name for an
        import, an `Alias`, or SHADOWED. `record`: also note the imports and star imports."""
        kind = type(statement)  # exact types: see analysis/syntax.py
        if kind is cst.Import:
            found = []
            for alias in statement.names:
                full = dotted_name(alias.name) or ""
                if alias.asname is None:
                    local = full.split(".", 1)[0]
                    found.append(self._imported(local, local, statement, alias, record))
                else:
                    found.append(self._imported(_asname(alias), full, statement, alias, record))
            return found
        if kind is cst.ImportFrom:
            return self._from_bindings(statement, record)
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            return [(statement.name.value, SHADOWED)]
        if kind is cst.Assign and _alias_assignment(statement) is not None:
            return [(statement.targets[0].target.value, Alias(statement.value))]
        if kind is cst.Assign or kind is cst.AnnAssign or kind is cst.AugAssign:
            targets = statement.targets if kind is cst.Assign else [statement]
            return [(name, SHADOWED) for target in targets for name in target_names(target.target)]
        if kind is cst.For:
            return [(name, SHADOWED) for name in target_names(statement.target)]
        if kind is cst.With:
            return [(name, SHADOWED) for item in statement.items if item.asname is not None for name in target_names(item.asname.name)]
        return []

    def _from_bindings(self, statement: cst.ImportFrom, record: bool) -> list[tuple[str, object]]:
        if statement.relative or statement.module is None:
            if self.project is not None:
                found = self._relative_bindings(statement, record)
                if found is not None:
                    return found
            names = [] if isinstance(statement.names, cst.ImportStar) else statement.names
            found = [(_asname(alias) or (dotted_name(alias.name) or ""), SHADOWED) for alias in names]
            if record:
                self.unresolved_relative.update(local for local, _ in found)
            return found
        module = dotted_name(statement.module) or ""
        if isinstance(statement.names, cst.ImportStar):
            if record:
                self.star_modules.append(module)
                if self.project is not None and module in self.project.stars:
                    self.project_stars.append(module)
            return []
        found = []
        for alias in statement.names:
            name = dotted_name(alias.name) or ""
            found.append(self._imported(_asname(alias) or name, f"{module}.{name}", statement, alias, record))
        return found

    def _imported(self, local: str, target: str, statement: cst.CSTNode, alias: cst.ImportAlias, record: bool) -> tuple[str, str]:
        target = CANONICAL.get(target, target)
        if record:
            self.imports.append(ImportedName(local, target, statement, alias))
        if self.project is not None:
            target = self.project.names.get(target, target)
        return local, target

    def _bind(self, local: str, target: str) -> None:
        """Merge an import into the file-wide answer for `local`."""
        previous = self.bindings.get(local)
        self.bindings[local] = target if previous is None or previous == target else _SHADOWED

    def _meaningful_names(self) -> set[str]:
        """The names an import binds somewhere in the file, and the aliases of those (`V =
        autograd.Variable`; `h = self.hidden` can mean nothing an import brings)."""
        names = set(self._imported_names)
        grown = True
        while grown:
            grown = False
            for local, root in self._alias_roots:
                if root in names and local not in names:
                    names.add(local)
                    grown = True
        return names

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
        """What `local` means wherever it is read in the file, or None (see `qualified_name`)."""
        target = self.bindings.get(local)
        if target is _SHADOWED:
            return None
        if target is _ALIAS:
            return self._resolve_alias(local) if local in self.aliases else None
        if target is None:
            return self._star_target(local)
        return target  # type: ignore[return-value]

    def qualified_name(self, node: cst.CSTNode) -> Optional[str]:
        """The fully qualified name an expression refers to, or None when unknown."""
        kind = type(node)  # exact types: see analysis/syntax.py
        if kind is cst.Name:
            if node.value in self._followed:
                return self._resolve_read(node)
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

    # -- names whose meaning depends on where they are read ----------------------------------------

    def _resolve_read(self, node: cst.Name) -> Optional[str]:
        if self._reads is None:
            self._reads = self._scopes.reads(self._bindings_of)
        key = id(node)
        found = self._reads.get(key)
        known = found is not None and found[0] is node
        if known and key in self._read_targets:
            return self._read_targets[key]
        if key in self._resolving:
            return None  # aliases that lead back to this read (`model = model.data` under `import *`)
        self._resolving.add(key)
        try:
            if not known:
                # Read where no binding but the module's can reach it (a function that does not bind
                # the name), or a node the file does not hold: whatever the module binds.
                module = self._scopes.module
                return self._target_of(module.any_time(node.value) if node.value in module.bound else _STAR_ONLY, node.value)
            target = self._target_of(found[1], node.value)
        finally:
            self._resolving.discard(key)
        self._read_targets[key] = target
        return target

    def reads_before_binding(self, node: cst.BaseExpression) -> bool:
        """`node` (a name, or the root of an attribute chain) is a function's read of its own local
        that none of its bindings reaches: it raises UnboundLocalError whenever it runs."""
        while type(node) is cst.Attribute:
            node = node.value
        if type(node) is not cst.Name or node.value not in self._followed:
            return False
        if self._reads is None:
            self._reads = self._scopes.reads(self._bindings_of)
        found = self._reads.get(id(node))
        return found is not None and found[0] is node and BEFORE_BINDING in found[1]

    def _target_of(self, values: frozenset, local: str) -> Optional[str]:
        """The one qualified name every binding value that can reach a read gives it, or None."""
        targets: set[str] = set()
        for value in values:
            if value is UNBOUND or value is BEFORE_BINDING:
                continue  # that path raises before the read
            if value is SHADOWED:
                return None
            if value is STAR:
                target = self._star_target(local)
            elif type(value) is Alias:
                target = self._alias_target(value.value)
            else:
                target = value
            if target is None:
                return None
            targets.add(target)
        return targets.pop() if len(targets) == 1 else None

    def _alias_target(self, value: cst.BaseExpression) -> Optional[str]:
        root = value
        while type(root) is cst.Attribute:
            root = root.value
        if not (type(root) is cst.Name and root.value in self.bindings):
            return None  # only names bound in this file (a star import's names are guesses)
        return self.qualified_name(value)

    def _star_target(self, local: str) -> Optional[str]:
        """What a name bound nowhere in the file may be: the one star import that can bring it."""
        if self.project_stars:
            found = self._from_project_star(local)
            if found is not None:
                return found
        if len(self.star_modules) == 1:
            return CANONICAL.get(f"{self.star_modules[0]}.{local}", f"{self.star_modules[0]}.{local}")
        return None

    def imports_of(self, target: str) -> Iterator[ImportedName]:
        """Imports written as `target` in this file (not those reaching it through another file)."""
        return (imported for imported in self.imports if imported.target == target)

    def imports_resolving_to(self, target: str) -> Iterator[ImportedName]:
        """Imports of `target` in this file, also those naming it through another file of the
        project (`from model import Variable`, where `model` imports it from torch)."""
        through = self.project.names if self.project is not None else {}
        return (imported for imported in self.imports if through.get(imported.target, imported.target) == target)

    # -- names from other files of the project (only with `project` facts) -----------------------

    def _relative_bindings(self, statement: cst.ImportFrom, record: bool) -> Optional[list[tuple[str, object]]]:
        """`from .model import Variable` where `model` imports it from outside: bind the outside
        name. None when the facts know nothing of this module (the import stays unresolved)."""
        spelling = "." * len(statement.relative) + (dotted_name(statement.module) or "" if statement.module else "")
        if isinstance(statement.names, cst.ImportStar):
            if spelling not in self.project.stars:
                return None
            if record:
                self.project_stars.append(spelling)
            return []
        found: list[tuple[str, object]] = []
        for alias in statement.names:
            name = dotted_name(alias.name) or ""
            target = self.project.names.get(f"{spelling}.{name}")
            if target is None:
                found.append((_asname(alias) or name, SHADOWED))
                if record:
                    self.unresolved_relative.add(_asname(alias) or name)
            else:
                found.append(self._imported(_asname(alias) or name, target, statement, alias, record))
        return found

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


def target_names(target: cst.CSTNode) -> Iterator[str]:
    """The names an assignment target binds (`a`, `a, (b, *c)`); none for attributes and items."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_names(target.value)


def _root_name(value: cst.BaseExpression) -> str:
    """`autograd` for `autograd.Variable` (an alias's value is a dotted name)."""
    while type(value) is cst.Attribute:
        value = value.value
    return value.value


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


def imported_in_enclosing_function(outer: Sequence[cst.CSTNode], module: str) -> bool:
    """`module` (a top-level module name such as `torch`) means that module at a site whose
    ancestors are `outer`, through a function-local `import module`: the innermost function around
    the site that mentions the name at all imports it plainly in a statement of its own body,
    before the statement that holds the site, and uses it nowhere but as `module.attribute`.
    (A function-local import of torch is common in legacy utility files.)"""
    for index in range(len(outer) - 1, -1, -1):
        function = outer[index]
        if type(function) is not cst.FunctionDef:
            continue
        mentions = _mentions(function, module)
        if mentions is None:
            return False  # bound or used otherwise: leave it
        if not mentions:
            continue  # the name is the enclosing scope's
        holder = outer[index + 2] if index + 2 < len(outer) else None
        body = list(function.body.body) if type(function.body) is cst.IndentedBlock else []
        position = next((number for number, statement in enumerate(body) if statement is holder), 0)
        before = body[:position]
        return any(_imports_plainly(statement, module) for statement in before)
    return False


def _mentions(function: cst.FunctionDef, module: str) -> Optional[list[cst.CSTNode]]:
    """Every occurrence of the name in `function`'s own code (not in nested defs, classes or
    lambdas): None when one is neither a plain `import module` nor the root of `module.x`."""
    if module in parameter_names(function.params):
        return None
    found: list[cst.CSTNode] = []
    pending: list[tuple[cst.CSTNode, Optional[cst.CSTNode]]] = [(function.body, function)]
    while pending:
        node, parent = pending.pop()
        if type(node) in (cst.FunctionDef, cst.ClassDef):
            if node.name.value == module:
                return None
            continue  # a nested scope; its decorators and defaults are rare enough to ignore
        if type(node) is cst.Lambda or isinstance(node, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            continue
        if type(node) is cst.Import:
            for alias in node.names:
                if alias.asname is not None and _bound_name(alias.asname.name) == module:
                    return None
                if alias.asname is None and (dotted_name(alias.name) or "").split(".", 1)[0] == module:
                    found.append(alias)
            continue
        if type(node) is cst.ImportFrom:
            if not isinstance(node.names, cst.ImportStar) and any(
                _bound_name(alias.asname.name if alias.asname else alias.name) == module for alias in node.names
            ):
                return None
            continue
        if type(node) is cst.Name and node.value == module:
            if not (type(parent) is cst.Attribute and parent.value is node):
                return None
            found.append(node)
        pending.extend((child, node) for child in iter_children(node))
    return found


def _imports_plainly(statement: cst.CSTNode, module: str) -> bool:
    return type(statement) is cst.SimpleStatementLine and any(
        type(small) is cst.Import
        and any(alias.asname is None and (dotted_name(alias.name) or "").split(".", 1)[0] == module for alias in small.names)
        for small in statement.body
    )


def _bound_name(node: cst.CSTNode) -> Optional[str]:
    while type(node) is cst.Attribute:
        node = node.value
    return node.value if type(node) is cst.Name else None
