"""What the code of one function (or the module) does with each name: where it occurs, the bindings
`scopes.Bindings` does not record (`with` targets, imports, `global`...), the full path of each loop
target, its returns and yields, and, in source order, which plain assignment a read sees.

One `ScopeUses` per scope, built on the file's node index on the first question about the scope
(`ScopeUsesTable.of`): its parent links are the index's, confined to the scope.
"""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from gradlint.analysis.scopes import Bindings, Scope
from gradlint.analysis.semantic.nodes import BLOCKS, NodeIndex
from gradlint.analysis.syntax import DEFINITIONS
from gradlint.analysis.tree import descendants, iter_children


class ScopeUsesTable:
    """The `ScopeUses` of each scope of one file, each built once, when first asked for."""

    def __init__(self, nodes: NodeIndex) -> None:
        self.nodes = nodes
        self._uses: dict[int, ScopeUses] = {}

    def of(self, scope: Scope) -> "ScopeUses":
        found = self._uses.get(id(scope))
        if found is None:
            found = self._uses[id(scope)] = ScopeUses(scope, self.nodes)
        return found


class ScopeUses:
    """The occurrences of each name in a function (nested functions included), plus the bindings
    `Bindings` does not see and the full path of each loop target. Parent links and source order
    come from the file's node index, confined to the function: the parent of its body is None."""

    def __init__(self, scope: Scope, nodes: NodeIndex) -> None:
        self._nodes = nodes
        self._nested_function: dict[int, cst.CSTNode] = {}  # node -> the nearest def or lambda inside the scope
        self._occurrences: dict[str, list[cst.Name]] = {}
        self._binding_occurrences: dict[str, list[cst.Name]] = {}  # per name, on first question
        self._attributes: dict[tuple[str, str], list[cst.Attribute]] = {}
        self.unseen_bindings: set[str] = set()
        self.loop_targets: dict[str, list[tuple[cst.BaseExpression, tuple[int, ...]]]] = {}
        self.returns: list[Optional[cst.BaseExpression]] = []  # the function's own `return` values
        self.yields = False
        self.parameters: set[str] = set()
        root = scope.body if isinstance(scope, cst.FunctionDef) else scope
        self._root = root
        if isinstance(scope, cst.FunctionDef):
            params = scope.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                self.parameters.add(param.name.value)
            for star in (params.star_arg, params.star_kwarg):
                if isinstance(star, cst.Param):
                    self.parameters.add(star.name.value)
        functions: list[tuple[cst.CSTNode, int]] = []  # the defs and lambdas around the current node, with their last position
        for position, node in enumerate(nodes.subtree(root), start=nodes.span(root)[0]):
            while functions and functions[-1][1] < position:
                functions.pop()
            if functions:
                self._nested_function[id(node)] = functions[-1][0]
            if type(node) in (cst.FunctionDef, cst.Lambda):
                functions.append((node, nodes.span(node)[1]))
            self._note(node)
        self._drop_shadowed()
        # Bindings other than parameters whose values are not seen (`with` targets, `global`...).
        self.hidden_bindings = set(self.unseen_bindings)
        self.unseen_bindings |= self.parameters

    def _drop_shadowed(self) -> None:
        """A name a nested function binds for itself (a parameter, an assignment) is another
        variable there: `x` in `def forward(self, x): return x` is not the outer `x`."""
        local_names: dict[int, set[str]] = {}
        for name, occurrences in self._occurrences.items():
            kept = []
            for occurrence in occurrences:
                function = self._enclosing_nested_function(occurrence)
                if function is not None and id(function) not in local_names:
                    local_names[id(function)] = _local_names(function)
                if function is None or name not in local_names[id(function)]:
                    kept.append(occurrence)
            occurrences[:] = kept

    def _enclosing_nested_function(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        # Recorded during the walk: climbing the parents for every name is quadratic in the depth.
        return self._nested_function.get(id(node))

    def _note(self, node: cst.CSTNode) -> None:
        kind = type(node)
        if kind is cst.Name:
            parent = self._nodes.parent(node)  # never the root: a name sits in the function
            if not _is_label(parent, node):
                self._occurrences.setdefault(node.value, []).append(node)
        elif kind is cst.Attribute and type(node.value) is cst.Name:
            self._attributes.setdefault((node.value.value, node.attr.value), []).append(node)
        elif kind is cst.For and self._in_own_body(node):
            for name, path in target_paths(node.target, ()):
                self.loop_targets.setdefault(name, []).append((node.iter, path))
        elif kind is cst.Return and self._in_own_body(node):
            self.returns.append(node.value)
        elif kind in (cst.Yield, cst.Await) and self._in_own_body(node):
            self.yields = True
        elif kind is cst.WithItem and node.asname is not None:
            for target in descendants(node.asname.name):
                if type(target) is cst.Name:
                    self.unseen_bindings.add(target.value)
        elif kind in (cst.Global, cst.Nonlocal):
            self.unseen_bindings.update(item.name.value for item in node.names)
        elif kind is cst.NamedExpr and type(node.target) is cst.Name:
            self.unseen_bindings.add(node.target.value)
        elif kind is cst.ExceptHandler and node.name is not None and type(node.name.name) is cst.Name:
            self.unseen_bindings.add(node.name.name.value)
        elif kind in (cst.Import, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                local = alias.asname.name if alias.asname is not None else alias.name
                while type(local) is cst.Attribute:
                    local = local.value
                if type(local) is cst.Name:
                    self.unseen_bindings.add(local.value)
        elif kind in (cst.FunctionDef, cst.ClassDef):
            self.unseen_bindings.add(node.name.value)
        elif kind is cst.Del:
            for target in descendants(node.target):
                if type(target) is cst.Name:
                    self.unseen_bindings.add(target.value)
        elif kind is cst.MatchAs and node.name is not None:
            self.unseen_bindings.add(node.name.value)

    def _in_own_body(self, node: cst.CSTNode) -> bool:
        """Not inside a nested function or class (whose loop targets are its own)."""
        parent = self.parent(node)
        while parent is not None:
            if type(parent) in DEFINITIONS:
                return False
            parent = self.parent(parent)
        return True

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The node holding `node` in the function; None for its body and for nodes outside it."""
        if node is self._root or not self._nodes.contains(self._root, node):
            return None
        return self._nodes.parent(node)

    # -- source order -----------------------------------------------------------------------

    def comes_after(self, node: cst.CSTNode, other: cst.CSTNode) -> bool:
        """`node` starts after everything in `other` in source order."""
        return self._nodes.comes_after(node, other)

    def contains(self, outer: cst.CSTNode, node: cst.CSTNode) -> bool:
        return self._nodes.contains(outer, node)

    def in_nested_function(self, node: cst.CSTNode) -> bool:
        return self._enclosing_nested_function(node) is not None

    def first_binding_statement(self, name: str, body: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The first statement of the block `body` (directly in it) binding `name`; None when
        an earlier binding sits deeper (in a branch) or there is none."""
        for statement in body.body:
            if self._binds(statement, name):
                return statement if simple_assignment(statement, name) is not None else None
        return None

    def enclosing_with(self, node: cst.CSTNode) -> Optional[cst.With]:
        """The innermost `with` statement of the function around `node`."""
        parent = self.parent(node)
        while parent is not None and type(parent) not in DEFINITIONS:
            if type(parent) is cst.With:
                return parent
            parent = self.parent(parent)
        return None

    def enclosing_loops(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        """The `for` and `while` statements of the function around `node`, innermost first."""
        loops = []
        parent = self.parent(node)
        while parent is not None and type(parent) not in DEFINITIONS:
            if type(parent) in (cst.For, cst.While):
                loops.append(parent)
            parent = self.parent(parent)
        return loops

    def reaching_assignment(self, node: cst.Name) -> Optional[cst.Assign]:
        """The `name = value` statement whose binding the read `node` sees: the first statement
        binding the name met walking back from `node` through the statements before it, in its
        block and then in the blocks around it (an `if`'s or `with`'s). None when another kind of
        binding, a loop (which may repeat), a `try`, or the start of the function comes first."""
        binding = self.reaching_binding(node)
        return simple_assignment(binding, node.value) if binding is not None else None

    def reaching_binding(self, node: cst.Name) -> Optional[cst.CSTNode]:
        """The statement binding the name that the read `node` sees, found as `reaching_assignment`
        finds it, whatever kind of binding it is (`a, name = f(x)`)."""
        name = node.value
        statement = self._statement_of(node)
        while statement is not None:
            block = self.parent(statement)
            body = list(block.body)
            for sibling in reversed(body[: body.index(statement)]):
                if self._binds(sibling, name):
                    return sibling
            statement = self._statement_around(block)
        return None

    def _statement_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        parent = self.parent(node)
        while parent is not None and type(parent) not in BLOCKS:
            if type(parent) in DEFINITIONS:
                return None
            node, parent = parent, self.parent(parent)
        return node if parent is not None else None

    def _statement_around(self, block: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The statement the block `block` belongs to, when its body runs once after the code
        before that statement: a line of small statements, an `if` branch, a `with` body."""
        if type(block) is cst.SimpleStatementLine:
            return block
        owner = self.parent(block)
        while type(owner) in (cst.If, cst.Else) and type(self.parent(owner)) is cst.If:
            owner = self.parent(owner)  # an `elif` or `else` branch: the whole `if` statement
        if type(owner) not in (cst.If, cst.With) or self.parent(owner) is None or type(self.parent(owner)) not in BLOCKS:
            return None
        return owner

    def _binds(self, statement: cst.CSTNode, name: str) -> bool:
        return any(self.contains(statement, occurrence) for occurrence in self._bindings_of(name))

    def _bindings_of(self, name: str) -> list[cst.Name]:
        """The occurrences of `name` that bind or write it. Sorted out once: asked for each read,
        going through every occurrence made a line of n reads of one name cost n squared."""
        found = self._binding_occurrences.get(name)
        if found is None:
            found = self._binding_occurrences[name] = [
                occurrence
                for occurrence in self.occurrences(name)
                if is_binding_position(self, occurrence) or is_write_target(self, occurrence)
            ]
        return found

    def occurrences(self, name: str) -> list[cst.Name]:
        return self._occurrences.get(name, [])

    def attribute_occurrences(self, receiver: str, attribute: str) -> list[cst.Attribute]:
        """`receiver.attribute` wherever it is read or written."""
        return self._attributes.get((receiver, attribute), [])

    def assigned_value(self, target: cst.CSTNode) -> Optional[cst.BaseExpression]:
        """The value written by the assignment whose target is `target`."""
        parent = self.parent(target)
        if type(parent) is cst.AssignTarget:
            statement = self.parent(parent)
            return statement.value if type(statement) is cst.Assign else None
        if type(parent) in (cst.AugAssign, cst.AnnAssign):
            return parent.value
        return None

    def derived_names(self, name: str, bindings: Bindings) -> set[str]:
        """Names bound to an expression rooted at `name` (views, slices, conversions of it)."""
        found = {name}
        changed = True
        while changed:
            changed = False
            for other, values in bindings.values.items():
                if other not in found and any(_root_name(value) in found for value in values):
                    found.add(other)
                    changed = True
        return found


def _local_names(function: cst.CSTNode) -> set[str]:
    """The names a function or lambda binds for itself: parameters and the targets of its own
    assignments and loops, less those it declares `global` or `nonlocal`."""
    params = function.params
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    names.update(star.name.value for star in (params.star_arg, params.star_kwarg) if isinstance(star, cst.Param))
    if type(function) is cst.Lambda:
        return names
    declared: set[str] = set()
    pending: list[cst.CSTNode] = [function.body]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind in DEFINITIONS:
            continue
        if kind in (cst.Global, cst.Nonlocal):
            declared.update(item.name.value for item in node.names)
        if kind in (cst.AssignTarget, cst.For, cst.AugAssign, cst.AnnAssign):
            names.update(name for name, _ in target_paths(node.target, ()))
        pending.extend(iter_children(node))
    return names - declared


def simple_assignment(statement: cst.CSTNode, name: str) -> Optional[cst.Assign]:
    """`statement` is `name = value`, alone (not `a = name = value`, not unpacking)."""
    if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1:
        statement = statement.body[0]
    if type(statement) is not cst.Assign or len(statement.targets) != 1:
        return None
    target = statement.targets[0].target
    return statement if type(target) is cst.Name and target.value == name else None


def _root_name(node: cst.BaseExpression) -> Optional[str]:
    while True:
        if type(node) is cst.Call:
            node = node.func
        elif type(node) in (cst.Attribute, cst.Subscript):
            node = node.value
        else:
            return node.value if type(node) is cst.Name else None


def target_paths(target: cst.CSTNode, path: tuple[int, ...]) -> Iterator[tuple[str, tuple[int, ...]]]:
    if type(target) is cst.Name:
        yield target.value, path
    elif type(target) in (cst.Tuple, cst.List):
        if any(type(element) is cst.StarredElement for element in target.elements):
            return
        for position, element in enumerate(target.elements):
            yield from target_paths(element.value, (*path, position))


def _is_label(parent: Optional[cst.CSTNode], node: cst.Name) -> bool:
    """A Name that is not a variable reference: an attribute's name, a keyword, a def's name."""
    kind = type(parent)
    if kind is cst.Attribute:
        return parent.attr is node
    if kind is cst.Arg:
        return parent.keyword is node
    return kind in (cst.FunctionDef, cst.ClassDef, cst.Param, cst.ImportAlias, cst.Global, cst.Nonlocal)


def is_binding_position(uses: "ScopeUses", node: cst.CSTNode) -> bool:
    """`node` is a target (`x` in `x, y = ...` or `for x, y in ...`) or an element of a tuple
    unpacked into names (`a, b = x, y`): a binding, not a container."""
    child, parent = node, uses.parent(node)
    while type(parent) in (cst.Element, cst.StarredElement, cst.Tuple, cst.List):
        child, parent = parent, uses.parent(parent)
    kind = type(parent)
    if kind is cst.AssignTarget or (kind is cst.For and parent.target is child):
        return True
    if kind is cst.Assign and parent.value is child and type(child) in (cst.Tuple, cst.List):
        return all(type(target.target) in (cst.Tuple, cst.List) for target in parent.targets)
    return False


def is_write_target(uses: ScopeUses, node: cst.CSTNode) -> bool:
    """`node` is written: an assignment's target, the target of `+=` or an annotation, deleted."""
    parent = uses.parent(node)
    kind = type(parent)
    if kind is cst.AssignTarget:
        return True
    if kind in (cst.AugAssign, cst.AnnAssign):
        return parent.target is node
    return kind is cst.Del
