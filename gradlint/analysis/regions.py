"""What a run of statements hands to the code around it.

Running statements under another grad mode (inside `with torch.no_grad():`) changes only the
values computed there. These facts say which of those values the rest of the program still sees:
names bound in the run and read after it (before being bound again), objects from outside the
run that it stores into, and the values it returns or yields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Optional, Sequence

import libcst as cst

from gradlint.analysis.syntax import DEFINITIONS, child_statements, suite_statements
from gradlint.analysis.tree import descendants, iter_children

# Methods that store their arguments into the receiver.
STORING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft", "put", "push"})


@dataclass(frozen=True)
class Placement:
    """A statement and the block that holds it, on the way from the module to a node."""

    block: cst.CSTNode  # the Module or IndentedBlock
    statement: cst.CSTNode  # a member of `block.body`
    owner: Optional[cst.CSTNode]  # what the block belongs to (FunctionDef, For, Else...), None for the module
    depth: int  # the block's index in the stack

    @property
    def index(self) -> int:
        return list(self.block.body).index(self.statement)


_STATEMENT_TYPES = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


def placements(stack: Sequence[cst.CSTNode]) -> list[Placement]:
    """The statements around the last node of `stack` that sit in a block, outermost first."""
    found = []
    for depth in range(len(stack) - 1):
        block = stack[depth]
        # The child of a block that is a statement is one of its body's (the others are its header
        # and footer lines): a type test, where searching the body was quadratic in a long module.
        if isinstance(block, (cst.Module, cst.IndentedBlock)) and isinstance(stack[depth + 1], _STATEMENT_TYPES):
            owner = stack[depth - 1] if isinstance(block, cst.IndentedBlock) else None
            found.append(Placement(block, stack[depth + 1], owner, depth))
    return found


def loop_owner(placement: Placement, stack: Sequence[cst.CSTNode]) -> Optional[cst.CSTNode]:
    """The For / While whose body (not `else`) is the placement's block."""
    owner = placement.owner
    if isinstance(owner, (cst.For, cst.While)) and owner.body is placement.block:
        return owner
    return None


def own_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and what runs with it: nested function, class and lambda bodies excluded (their
    name, decorators and defaults are included)."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        kind = type(current)  # exact types: LibCST's isinstance goes through ABCMeta (slow)
        if kind is cst.FunctionDef:
            pending.extend(d.decorator for d in current.decorators)
            pending.extend(p.default for p in _params(current.params) if p.default is not None)
        elif kind is cst.ClassDef:
            pending.extend(d.decorator for d in current.decorators)
            pending.extend(arg.value for arg in current.bases)
        elif kind is cst.Lambda:
            pending.extend(p.default for p in _params(current.params) if p.default is not None)
        else:
            pending.extend(iter_children(current))


_BINDERS = (cst.Assign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.AsName)


def read_names(node: cst.CSTNode) -> set[str]:
    """Names read in `node`: not attribute names, keywords, or the names an assignment binds."""
    skipped: set[int] = set()
    names: set[str] = set()
    for current in own_nodes(node):
        kind = type(current)
        if kind is cst.Name:
            if id(current) not in skipped:
                names.add(current.value)
        elif kind is cst.Attribute:
            skipped.add(id(current.attr))
        elif kind is cst.Arg:
            if current.keyword is not None:
                skipped.add(id(current.keyword))
        elif kind in _BINDERS:
            skipped.update(id(target) for target in _bound_targets(current))
        elif kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.ImportAlias:
            skipped.update(id(child) for child in iter_children(current) if type(child) is cst.Name)
        elif kind in _COMPREHENSIONS:
            skipped.update(_comprehension_locals(current))
    return names


_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def _comprehension_locals(comprehension: cst.CSTNode) -> set[int]:
    """The Name nodes of a comprehension that read its own loop variables (they are local to it:
    `[net.eval() for net in nets]` reads `nets` only). The first `in` runs outside."""
    local: set[str] = set()
    clause = comprehension.for_in
    while clause is not None:
        local.update(target.value for target in _names_of_target(clause.target))
        clause = clause.inner_for_in
    outside = comprehension.for_in.iter
    found: set[int] = set()
    pending = [child for child in iter_children(comprehension) if child is not comprehension.for_in]
    pending.extend(child for child in iter_children(comprehension.for_in) if child is not outside)
    while pending:
        current = pending.pop()
        if type(current) is cst.Name and current.value in local:
            found.add(id(current))
        pending.extend(iter_children(current))
    return found


def bound_names(statements: Sequence[cst.CSTNode]) -> set[str]:
    """Names that running `statements` may bind in their scope."""
    names: set[str] = set()
    for statement in statements:
        for current in own_nodes(statement):
            if isinstance(current, (cst.Assign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.AsName)):
                names.update(target.value for target in _bound_targets(current))
            elif isinstance(current, cst.AugAssign) and isinstance(current.target, cst.Name):
                names.add(current.target.value)
            elif isinstance(current, (cst.FunctionDef, cst.ClassDef)):
                names.add(current.name.value)
    return names


def binding_values(statements: Sequence[cst.CSTNode], name: str) -> Optional[list[cst.BaseExpression]]:
    """The values `statements` bind to `name`; None when one of them is not visible (a loop
    target, a tuple unpacked from one value, a `with ... as`, a definition)."""
    values: list[cst.BaseExpression] = []
    for statement in statements:
        for current in own_nodes(statement):
            if isinstance(current, cst.Assign):
                for target in current.targets:
                    if name in {t.value for t in _names_of_target(target.target)}:
                        value = _element_for(target.target, current.value, name)
                        if value is None:
                            return None
                        values.append(value)
            elif isinstance(current, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr)) and isinstance(current.target, cst.Name):
                if current.target.value == name and current.value is not None:
                    values.append(current.value)
            elif isinstance(current, (cst.For, cst.AsName)) and name in {t.value for t in _bound_targets(current)}:
                return None
            elif isinstance(current, (cst.FunctionDef, cst.ClassDef)) and current.name.value == name:
                return None
    return values


def reads_before_rebinding(statements: Sequence[cst.CSTNode], names: set[str]) -> set[str]:
    """Which of `names` running `statements` in order may read before binding them again."""
    read, _ = _scan(statements, set(names))
    return read


def continuation(path: Sequence[Placement], first: int, count: int, scope_depth: int) -> list[cst.CSTNode]:
    """The statements that may run after statements `first` .. `first + count - 1` of the block of
    `path[-1]`, in order, up to the end of the scope whose body is the block at `scope_depth`: the
    rest of each enclosing block, and the next iterations of enclosing loops."""
    following: list[cst.CSTNode] = []
    inner = path[-1]
    body = list(inner.block.body)
    following.extend(body[first + count :])
    for placement in reversed(path):
        if placement.depth < scope_depth:
            break
        body = list(placement.block.body)
        position = first if placement is inner else placement.index
        if placement is not inner:
            following.extend(body[position + 1 :])
        loop = placement.owner if isinstance(placement.owner, (cst.For, cst.While)) and placement.owner.body is placement.block else None
        if loop is not None:
            following.extend(body[:position])  # the next iteration
            if loop.orelse is not None:
                following.extend(suite_statements(loop.orelse.body))
    return following


def outer_stores(statements: Sequence[cst.CSTNode], local: set[str]) -> list[tuple[cst.CSTNode, cst.BaseExpression]]:
    """(target, value) for each value stored into an object that is not bound in `statements`
    (named by `local`): `self.x = v`, `d[k] = v`, `results.append(v)`, and the arguments of an
    in-place method (`total.add_(v)`: a tensor gains the history of what it is changed with)."""
    found = []
    for statement in statements:
        for current in own_nodes(statement):
            if isinstance(current, cst.Assign):
                found.extend((t.target, current.value) for t in current.targets if _is_outer_member(t.target, local))
            elif isinstance(current, (cst.AugAssign, cst.AnnAssign)) and current.value is not None:
                if _is_outer_member(current.target, local):
                    found.append((current.target, current.value))
            elif isinstance(current, cst.Call) and _writes_into(current) and _root_name(current.func.value) not in local:
                found.extend((current.func.value, arg.value) for arg in current.args)
    return found


def returned_values(statements: Sequence[cst.CSTNode]) -> list[cst.BaseExpression]:
    """The values that `return` and `yield` in `statements` hand out of their function."""
    found = []
    for statement in statements:
        for current in own_nodes(statement):
            if isinstance(current, (cst.Return, cst.Yield)) and isinstance(current.value, cst.BaseExpression):
                found.append(current.value)
    return found


def yields_or_awaits(statements: Sequence[cst.CSTNode]) -> bool:
    """Running `statements` may suspend (a `yield` or `await`) and resume later."""
    return any(isinstance(node, (cst.Yield, cst.Await)) for statement in statements for node in own_nodes(statement))


def derived_names(statements: Sequence[cst.CSTNode], sources: Sequence[cst.CSTNode], seed: Iterable[str] = ()) -> set[str]:
    """Names that `statements` bind (or fill: `outputs.append(v)`) with values computed from the
    `sources` nodes or from the names of `seed`, transitively."""
    source_ids = {id(source) for source in sources}
    flows = []  # (names read, reads a source, names bound) for each binding
    for statement in statements:
        for current in own_nodes(statement):
            value, targets = _flow(current)
            if value is not None and targets:
                flows.append((read_names(value), mentions_source(value, source_ids), targets))
    known = set(seed)
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for reads, from_source, targets in flows:
            if (from_source or reads & known) and not targets <= found:
                found |= targets
                known |= targets
                changed = True
    return found


def _flow(node: cst.CSTNode) -> tuple[Optional[cst.CSTNode], set[str]]:
    """(the value, the names it flows into) for a binding node; (None, empty) for others."""
    if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.NamedExpr)) and node.value is not None:
        return node.value, _assigned_names(node)
    if isinstance(node, (cst.For, cst.CompFor)):
        return node.iter, {target.value for target in _bound_targets(node)}
    if isinstance(node, cst.Call) and _stores_into(node):
        root = _root_name(node.func.value)
        return node, ({root} if root is not None else set())  # `outputs.append(model(x))`
    return None, set()


def mentions_source(node: cst.CSTNode, source_ids: set[int]) -> bool:
    return bool(source_ids) and any(id(current) in source_ids for current in own_nodes(node))


def uses(statements: Sequence[cst.CSTNode], sources: Sequence[cst.CSTNode]) -> list[int]:
    """Indices of the statements after the first (which holds the `sources` nodes) that use a
    value computed from the sources: they read a name bound to such a value before it is bound
    to something else."""
    derived = derived_names(statements[:1], sources)
    found = []
    for index, statement in enumerate(statements[1:], 1):
        if read_names(statement) & derived:
            found.append(index)
        derived = (derived - bound_names([statement])) | derived_names([statement], (), derived)
    return found


def holds_only(value: cst.CSTNode, free: Callable[[cst.BaseExpression], bool]) -> bool:
    """`value` is a Python container whose items are all `free`: a list, tuple or set display of
    such values, or `list(x)`, `tuple(x)`, `sorted(x)` of a value that is `free` (the items of a
    tensor without history have none) or is itself such a container."""
    if isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        return all(_item_free(element.value, free) for element in value.elements)
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value in _COPYING_BUILTINS
        and len(value.args) == 1
        and not value.args[0].star
        and value.args[0].keyword is None
    ):
        return _item_free(value.args[0].value, free)
    return False


_COPYING_BUILTINS = frozenset({"list", "tuple", "sorted", "reversed"})


def _item_free(value: cst.BaseExpression, free: Callable[[cst.BaseExpression], bool]) -> bool:
    return free(value) or holds_only(value, free)


def contains(outer: Sequence[cst.CSTNode], inner: Sequence[cst.CSTNode]) -> bool:
    """Every statement of `inner` is one of `outer` or nested in one."""
    nodes = _nodes_of(outer)
    return all(id(statement) in nodes for statement in inner)


def overlap(groups: Sequence[Sequence[cst.CSTNode]]) -> bool:
    """Two of the groups of statements share a statement (or one nests in the other's)."""
    seen: set[int] = set()
    for group in groups:
        nodes = _nodes_of(group)
        if nodes & seen:
            return True
        seen |= nodes
    return False


def _nodes_of(statements: Sequence[cst.CSTNode]) -> set[int]:
    return {id(node) for statement in statements for node in descendants(statement)}


def path_to(root: cst.CSTNode, target: cst.CSTNode) -> Optional[list[cst.CSTNode]]:
    """The nodes from `root` down to `target`, both included (what the walker's stack holds when
    it visits `target`); None when `target` is not in `root`."""
    pending: list[tuple[cst.CSTNode, int]] = [(root, 0)]
    path: list[cst.CSTNode] = []
    while pending:
        node, depth = pending.pop()
        del path[depth:]
        path.append(node)
        if node is target:
            return path
        pending.extend((child, depth + 1) for child in reversed(iter_children(node)))
    return None


def mentions(node: cst.CSTNode, names: set[str], source_ids: set[int]) -> bool:
    return mentions_source(node, source_ids) or bool(read_names(node) & names)


def scope_depth(stack: Sequence[cst.CSTNode], path: Sequence[Placement]) -> int:
    """The stack index of the block that is the body of the innermost scope (function or module)."""
    for placement in reversed(path):
        if isinstance(placement.owner, cst.FunctionDef):
            return placement.depth
    return 0


# -- helpers ------------------------------------------------------------------------------------


def _params(params: cst.Parameters) -> list[cst.Param]:
    stars = [star for star in (params.star_arg, params.star_kwarg) if isinstance(star, cst.Param)]
    return [*params.posonly_params, *params.params, *params.kwonly_params, *stars]


def _bound_targets(node: cst.CSTNode) -> list[cst.Name]:
    """The Name nodes an assignment-like node binds."""
    if isinstance(node, cst.Assign):
        return [name for target in node.targets for name in _names_of_target(target.target)]
    if isinstance(node, (cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr)):
        return _names_of_target(node.target)
    if isinstance(node, cst.AsName):
        return _names_of_target(node.name)
    return []


def _assigned_names(node: cst.CSTNode) -> set[str]:
    if isinstance(node, cst.AugAssign):
        return {node.target.value} if isinstance(node.target, cst.Name) else set()
    return {target.value for target in _bound_targets(node)}


def _names_of_target(target: cst.CSTNode) -> list[cst.Name]:
    names = []
    pending = [target]
    while pending:
        current = pending.pop()
        if isinstance(current, cst.Name):
            names.append(current)
        elif isinstance(current, (cst.Tuple, cst.List)):
            pending.extend(element.value for element in current.elements)
        elif isinstance(current, cst.StarredElement):
            pending.append(current.value)
    return names


def _element_for(target: cst.CSTNode, value: cst.BaseExpression, name: str) -> Optional[cst.BaseExpression]:
    """The part of `value` that `target = value` binds to `name` (None when it is not visible)."""
    if isinstance(target, cst.Name):
        return value
    if not (isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))):
        return None
    if len(value.elements) != len(target.elements):
        return None
    for element, item in zip(target.elements, value.elements):
        if isinstance(item, cst.StarredElement) or isinstance(element, cst.StarredElement):
            return None
        if name in {t.value for t in _names_of_target(element.value)}:
            return _element_for(element.value, item.value, name)
    return None


def _stores_into(call: cst.Call) -> bool:
    """`receiver.append(...)` and the other storing methods."""
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in STORING_METHODS


def _writes_into(call: cst.Call) -> bool:
    """`receiver.append(...)` and the other storing methods, or an in-place method (`total.add_(v)`)."""
    return _stores_into(call) or (isinstance(call.func, cst.Attribute) and in_place_method(call.func.attr.value))


def in_place_method(method: str) -> bool:
    """`add_`, `normal_`: a tensor method that changes its receiver (`__iadd__` is not a call here)."""
    return method.endswith("_") and not method.startswith("_")


def _root_name(node: cst.CSTNode) -> Optional[str]:
    while isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else None


def _is_outer_member(target: cst.CSTNode, local: set[str]) -> bool:
    """`obj.attr` or `obj[key]` where `obj` is not bound locally."""
    return isinstance(target, (cst.Attribute, cst.Subscript)) and _root_name(target) not in local


def _scan(statements: Sequence[cst.CSTNode], live: set[str]) -> tuple[set[str], set[str]]:
    """(names of `live` read before being bound again, names still live after `statements`)."""
    read: set[str] = set()
    for statement in statements:
        if not live:
            break
        if isinstance(statement, (cst.SimpleStatementLine, cst.BaseSmallStatement)):
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else [statement]:
                read |= read_names(small) & live
                if isinstance(small, cst.AugAssign):
                    read |= _assigned_names(small) & live
                elif isinstance(small, (cst.Assign, cst.AnnAssign)):
                    live = live - _assigned_names(small)
            continue
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            read |= _reads_anywhere(statement) & live  # a closure may read them whenever it runs
            live = live - {statement.name.value}
            continue
        read |= _header_reads(statement) & live
        body = suite_statements(getattr(statement, "body", None))
        bound_first = {t.value for t in _bound_targets(statement)} if isinstance(statement, cst.For) else set()
        if isinstance(statement, cst.With):
            bound_first = {t.value for item in statement.items if item.asname for t in _bound_targets(item.asname)}
        body_read, after_body = _scan(body, live - bound_first)
        read |= body_read
        rest = [s for s in child_statements(statement) if all(s is not b for b in body)]
        read |= _scan(rest, live)[0]
        if isinstance(statement, cst.With):
            live = after_body  # the body always runs
    return read, live


def _reads_anywhere(node: cst.CSTNode) -> set[str]:
    names: set[str] = set()
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, cst.Name):
            names.add(current.value)
        pending.extend(iter_children(current))
    return names


def _header_reads(statement: cst.CSTNode) -> set[str]:
    """Names read by the parts of a compound statement outside its blocks."""
    names: set[str] = set()
    if isinstance(statement, cst.For):
        names |= read_names(statement.iter)
    elif isinstance(statement, (cst.While, cst.If)):
        names |= read_names(statement.test)
    elif isinstance(statement, cst.With):
        for item in statement.items:
            names |= read_names(item.item)
    elif isinstance(statement, (cst.Try, cst.TryStar)):
        for handler in statement.handlers:
            if handler.type is not None:
                names |= read_names(handler.type)
    elif isinstance(statement, cst.Match):
        names |= _reads_anywhere(statement)  # patterns and guards: read everything, conservatively
    return names


# -- runs of statements that use a value --------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """Consecutive statements of one block that use a value, and the way down to them."""

    statements: tuple[cst.BaseStatement, ...]
    path: tuple[Placement, ...]  # down to the block: the last placement holds the first statement
    ancestors: tuple[cst.CSTNode, ...]  # the nodes from the module down to the block
    first: int  # the index of the first statement in its block


def use_runs(
    path: Sequence[Placement],
    ancestors: Sequence[cst.CSTNode],
    start: int,
    names: set[str],
    trains: Callable[[Sequence[cst.CSTNode]], bool],
    sources: Sequence[cst.CSTNode] = (),
) -> Optional[list[Run]]:
    """The smallest runs of statements that use `names` (or hold one of the `sources` nodes),
    from statement `start` of the block of `path[-1]` (whose ancestors are `ancestors`) to its
    end. A statement that uses them is in a run unless it `trains`: then its blocks are searched
    for runs, as are those of an `if` that starts a run and whose test does not use them. Uses
    next to each other, or apart only by statements that neither use them, train nor define
    anything, make one run. None when a use cannot be separated from training (a simple
    statement, or the header of a compound one) or sits in a function or lambda defined there
    (it runs later)."""
    source_ids = {id(source) for source in sources}
    placement = path[-1]
    body = list(placement.block.body)
    runs: list[Run] = []
    current: list[int] = []  # the indices of the uses in the run being extended
    for index in range(start, len(body)):
        statement = body[index]
        if _defines_reader(statement, names):
            return None
        if not (read_names(statement) & names or mentions_source(statement, source_ids)):
            if trains([statement]) or isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                current = []  # the run ends here
            continue
        if not current and isinstance(statement, cst.If) and not _header_reads(statement) & names:
            nested = _nested_runs(statement, path[:-1], ancestors, placement, names, trains, sources)
            if nested is not None:  # `if step % 50 == 0:` stays outside: only the uses are wrapped
                runs.extend(nested)
                continue
        if not trains([statement]):
            if current:
                runs.pop()
            current.append(index)
            runs.append(_run(path, ancestors, placement, body, current))
            continue
        current = []
        nested = _nested_runs(statement, path[:-1], ancestors, placement, names, trains, sources)
        if nested is None:
            return None
        runs.extend(nested)
    return runs


def _run(path: Sequence[Placement], ancestors: Sequence[cst.CSTNode], placement: Placement, body: list, indices: list[int]) -> Run:
    first, last = indices[0], indices[-1]
    here = Placement(placement.block, body[first], placement.owner, placement.depth)
    return Run(tuple(body[first : last + 1]), (*path[:-1], here), tuple(ancestors), first)


def _nested_runs(
    statement: cst.CSTNode,
    outer_path: Sequence[Placement],
    ancestors: Sequence[cst.CSTNode],
    placement: Placement,
    names: set[str],
    trains: Callable[[Sequence[cst.CSTNode]], bool],
    sources: Sequence[cst.CSTNode],
) -> Optional[list[Run]]:
    """The runs in the blocks of a compound statement that trains (see `use_runs`)."""
    # Not into a `with`: its context (`torch.enable_grad()`, a lock) is what the code relies on.
    if not isinstance(statement, (cst.For, cst.While, cst.If, cst.Try)) or _header_reads(statement) & names:
        return None
    here = Placement(placement.block, statement, placement.owner, placement.depth)
    suites = _suites(statement)
    if suites is None:
        return None
    runs: list[Run] = []
    for between, block in suites:
        inner_ancestors = (*ancestors, statement, *between, block)
        owner = between[-1] if between else statement
        if not block.body:
            continue
        inner = Placement(block, block.body[0], owner, len(inner_ancestors) - 1)
        found = use_runs((*outer_path, here, inner), inner_ancestors, 0, names, trains, sources)
        if found is None:
            return None
        runs.extend(found)
    return runs


def _suites(statement: cst.CSTNode) -> Optional[list[tuple[tuple[cst.CSTNode, ...], cst.IndentedBlock]]]:
    """(the nodes between the statement and the block, the block) for each indented block of a
    For / While / If / Try; None for an `elif` (its test would need the same analysis)."""
    blocks: list[tuple[tuple[cst.CSTNode, ...], cst.CSTNode]] = [((), statement.body)]
    blocks.extend(((handler,), handler.body) for handler in getattr(statement, "handlers", ()))
    for name in ("orelse", "finalbody"):
        clause = getattr(statement, name, None)
        if isinstance(clause, cst.If):
            return None
        if clause is not None:
            blocks.append(((clause,), clause.body))
    return [(between, block) for between, block in blocks if isinstance(block, cst.IndentedBlock)]


def _defines_reader(statement: cst.CSTNode, names: set[str]) -> bool:
    """A function, class or lambda defined in `statement` reads one of `names` (when it runs is not known)."""
    return any(isinstance(node, DEFINITIONS) and _free_names(node) & names for node in own_nodes(statement))


def _free_names(definition: cst.CSTNode) -> set[str]:
    """Names a function, class or lambda body reads that it does not bind itself."""
    body = [definition.body] if isinstance(definition, cst.Lambda) else list(suite_statements(definition.body))
    bound = {param.name.value for param in _params(definition.params)} if not isinstance(definition, cst.ClassDef) else set()
    reads: set[str] = set()
    for statement in body:
        reads |= read_names(statement)
        for node in own_nodes(statement):
            if isinstance(node, DEFINITIONS):
                reads |= _free_names(node)
    if not isinstance(definition, cst.ClassDef):
        bound |= bound_names(body)
    return reads - bound


def stable_derived_names(statements: Sequence[cst.CSTNode], sources: Sequence[cst.CSTNode]) -> set[str]:
    """The names of `derived_names` that every binding in `statements` fills with a value
    computed from the sources or from other such names: wherever they are read, they hold such a
    value (a name also bound to something else, by `with ... as`, or by a definition is left out)."""
    source_ids = {id(source) for source in sources}
    values: dict[str, list[cst.CSTNode]] = {}
    opaque: set[str] = set()
    for statement in statements:
        for current in own_nodes(statement):
            value, targets = _flow(current)
            for target in targets:
                values.setdefault(target, []).append(value)
            if isinstance(current, cst.AsName):
                opaque.update(target.value for target in _bound_targets(current))
            elif isinstance(current, (cst.FunctionDef, cst.ClassDef)):
                opaque.add(current.name.value)
    names = derived_names(statements, sources) - opaque
    while True:
        mixed = {name for name in names if not all(mentions(value, names, source_ids) for value in values.get(name, ()))}
        if not mixed:
            return names
        names -= mixed
