"""Which bindings of a name a read can see: per scope and in source order, as Python resolves it.

A read in a function sees the function's own bindings of the name (an import, an assignment, a
parameter) wherever they are written in it, since Python makes the name local; a read that no
binding reaches raises UnboundLocalError when it runs, yet names nothing but that local: it
resolves to every binding of the function, marked `BEFORE_BINDING` (a fix must not make it run). A name the function does not bind is looked
up in the enclosing functions (class bodies are not enclosing scopes for the code of their
methods), then at module level. Where a scope's code runs as it is read (the module, a class body,
a function's own body), the bindings that reach the read in source order count, through branches
and loops; a read from a nested function may run at any time, so it sees every binding of the
name in the scope it finds it in.

`ImportScopes` holds each scope's bindings, collected while the import map reads the file's
statements. Only names that need it are followed (bound in a function or class body, or bound at
module level to different things, and imported or aliased to an import somewhere in the file);
`ImportScopes.reads` finds their reads in one walk of the code that can see such a binding, on the
first question. A shared scope model
with reaching definitions can take this module's place: the import map only needs, for each read,
the binding values that can reach it (`Reads`), and turns them into a qualified name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Optional

import libcst as cst

from gradlint.analysis.syntax import child_statements, dotted_name, parameter_names, suite_statements
from gradlint.analysis.tree import iter_children

# The values a binding gives a name: a qualified name (an import), an `Alias`, or one of these.
SHADOWED = object()  # a def, class, parameter, assignment or loop target: not an import
UNBOUND = object()  # not bound yet on some path through the scope
STAR = object()  # bound nowhere in the file: what a star import may bring
BEFORE_BINDING = object()  # a function's read that none of its bindings reaches: it raises UnboundLocalError


@dataclass(frozen=True, eq=False)
class Alias:
    """`V = autograd.Variable`: the name means what the expression means."""

    value: cst.BaseExpression


# (name, value) for each name a statement binds in the scope it runs in.
Binder = Callable[[cst.CSTNode], Iterable[tuple[str, object]]]
# id(read) -> (the Name read, the values of the bindings that can reach it)
Reads = dict[int, tuple[cst.Name, frozenset]]

_MODULE, _FUNCTION, _CLASS = "module", "function", "class"


class Scope:
    """A module, function or class body, with the values its bindings give each local name."""

    __slots__ = ("node", "kind", "parent", "bound", "declared", "unordered", "followed", "walked", "_any_time")

    def __init__(self, node: cst.CSTNode, kind: str, parent: Optional["Scope"]) -> None:
        self.node = node
        self.kind = kind
        self.parent = parent
        self.bound: dict[str, list[object]] = {}  # local name -> its binding values, in source order
        # name -> True for `global`, False for `nonlocal`: its bindings here are not the scope's
        self.declared: Optional[dict[str, bool]] = None
        self.unordered: frozenset[str] = frozenset()  # also bound from nested code, at times the source order does not tell
        self.followed: frozenset[str] = frozenset()  # local names whose reads are resolved by position
        self.walked = False  # the walk enters this scope: it or a scope inside it follows a name
        self._any_time: Optional[dict[str, frozenset]] = None

    def any_time(self, name: str) -> frozenset:
        """The values a read of `name` from nested code may see: any binding of the scope."""
        if self._any_time is None:
            self._any_time = {}
        found = self._any_time.get(name)
        if found is None:
            found = self._any_time[name] = frozenset(self.bound[name])
        return found


class ImportScopes:
    """The scopes of one file and their bindings, recorded in source order by the import map."""

    def __init__(self, module: cst.Module) -> None:
        self.module = Scope(module, _MODULE, None)
        self.nested: list[Scope] = []  # function and class scopes, outer ones first
        self.by_node: dict[int, Scope] = {}
        self.followed_names: frozenset[str] = frozenset()
        self._nonlocal_bindings: list[tuple[Scope, str]] = []

    def enter(self, definition: cst.CSTNode, parent: Scope) -> Scope:
        """The scope of a def or class body; a function's parameters are bound on entry."""
        is_function = type(definition) is cst.FunctionDef
        scope = Scope(definition, _FUNCTION if is_function else _CLASS, parent)
        self.nested.append(scope)
        self.by_node[id(definition)] = scope
        if is_function:
            bound = scope.bound
            for name in parameter_names(definition.params):
                bound[name] = [SHADOWED]  # a parameter name is bound once, before anything else
        return scope

    def declare(self, statement: cst.CSTNode, scope: Scope) -> None:
        """`global` / `nonlocal` in `scope`: its later bindings of those names are not its own."""
        if scope.declared is None:
            scope.declared = {}
        is_global = type(statement) is cst.Global
        for item in statement.names:
            scope.declared[item.name.value] = is_global

    def bind(self, name: str, value: object, scope: Scope) -> None:
        declared = scope.declared
        if declared is None or name not in declared:
            values = scope.bound.get(name)
            if values is None:
                scope.bound[name] = [value]
            else:
                values.append(value)
        elif declared[name]:
            self.module.bound.setdefault(name, []).append(value)
            self.module.unordered |= {name}  # bound whenever the function runs
        else:
            self._nonlocal_bindings.append((scope, name))

    def finish(self, imported: set[str], star: bool) -> None:
        """Choose the names to follow: those a read could resolve otherwise than through the
        module-wide answer. `imported`: the names an import or alias binds somewhere in the file;
        `star`: a star import may bring any name."""
        for scope, name in self._nonlocal_bindings:
            owner = next((outer for outer in _enclosing_functions(scope) if name in outer.bound), None)
            if owner is not None:
                owner.bound[name].append(SHADOWED)  # whatever the nested function binds, whenever it runs
                owner.unordered |= {name}
        followed: set[str] = set()
        for scope in self.nested:
            if not scope.bound:
                continue
            names = frozenset(scope.bound) if star else scope.bound.keys() & imported
            if names:
                scope.followed = frozenset(names)
                followed |= names
                _mark_walked(scope)
        module = self.module
        names = frozenset(
            name for name, values in module.bound.items() if name not in module.unordered and _disagree(values) and _imports_any(values)
        )
        if names:
            module.followed = names
            module.walked = True
            followed |= names
        self.followed_names = frozenset(followed)

    def reads(self, binder: Binder) -> Reads:
        """Each read of a followed name in the code that can see a followed binding."""
        return _ReadWalk(self, binder).run()


def _enclosing_functions(scope: Scope) -> Iterator[Scope]:
    outer = scope.parent
    while outer is not None and outer.kind != _MODULE:
        if outer.kind == _FUNCTION:
            yield outer
        outer = outer.parent


def _mark_walked(scope: Optional[Scope]) -> None:
    while scope is not None and not scope.walked:
        scope.walked = True
        scope = scope.parent


def _disagree(values: list[object]) -> bool:
    """More than one meaning: the import map's module-wide answer for the name is nothing."""
    first = values[0]
    if type(first) is Alias:
        return any(type(value) is not Alias or dotted_name(value.value) != dotted_name(first.value) for value in values)
    return first is SHADOWED or any(value != first for value in values)


def _imports_any(values: list[object]) -> bool:
    return any(type(value) is str or type(value) is Alias for value in values)


class _Frame:
    """A scope being walked: the values reaching the current point for each name it follows."""

    __slots__ = ("scope", "state", "reading")

    def __init__(self, scope: Scope, state: dict[str, frozenset], reading: bool) -> None:
        self.scope = scope
        self.state = state
        self.reading = reading  # its reads can resolve otherwise than through the module-wide answer


_UNBOUND_ONLY = frozenset([UNBOUND])
_SHADOWED_ONLY = frozenset([SHADOWED])
_STAR_ONLY = frozenset([STAR])
_BEFORE_BINDING_ONLY = frozenset([BEFORE_BINDING])


class _ReadWalk:
    def __init__(self, scopes: ImportScopes, binder: Binder) -> None:
        self.scopes = scopes
        self.binder = binder
        self.names = scopes.followed_names
        self.frames: list[_Frame] = []
        self.reads: Reads = {}

    def run(self) -> Reads:
        module = self.scopes.module
        self._push(module, {name: _UNBOUND_ONLY for name in module.followed})
        self._block(module.node.body)
        return self.reads

    # -- frames ------------------------------------------------------------------------------

    def _push(self, scope: Scope, state: dict[str, frozenset]) -> _Frame:
        frame = _Frame(scope, state, False)
        self.frames.append(frame)
        frame.reading = self._sees_followed_binding()
        return frame

    def _sees_followed_binding(self) -> bool:
        """Some read here could see a followed binding: of its own scope, of an enclosing
        function, or of a class body or the module whose code runs as it is read."""
        frames = self.frames
        if frames[-1].scope.followed:
            return True
        deferred = frames[-1].scope.kind == _FUNCTION
        for frame in reversed(frames[:-1]):
            kind = frame.scope.kind
            if kind == _CLASS:
                continue
            if frame.scope.followed and (kind == _FUNCTION or not deferred):
                return True
            deferred = deferred or kind == _FUNCTION
        return False

    def _reaching(self, name: str) -> frozenset:
        """The values that can reach a read of `name` at the current point."""
        found: frozenset = frozenset()
        frames = self.frames
        innermost = len(frames) - 1
        deferred = False  # crossed a function: the read may run at any time for the outer scopes
        for position in range(innermost, -1, -1):
            frame = frames[position]
            scope = frame.scope
            if scope.kind == _CLASS and position != innermost:
                continue
            if name in scope.bound:
                if deferred or name not in frame.state or name in scope.unordered:
                    return found | scope.any_time(name)
                values = frame.state[name]
                if scope.kind == _FUNCTION and values == _UNBOUND_ONLY:
                    return found | scope.any_time(name) | _BEFORE_BINDING_ONLY
                if scope.kind != _CLASS or UNBOUND not in values:
                    return found | values
                found = values - _UNBOUND_ONLY  # a class body not binding it yet reads it outside
            deferred = deferred or scope.kind == _FUNCTION
        return found | _STAR_ONLY

    # -- statements --------------------------------------------------------------------------

    def _block(self, statements: Iterable[cst.CSTNode]) -> None:
        for statement in statements:
            self._statement(statement)

    def _statement(self, statement: cst.CSTNode) -> None:
        kind = type(statement)
        if kind is cst.FunctionDef:
            self._function(statement)
        elif kind is cst.ClassDef:
            self._class(statement)
        elif not self.frames[-1].reading:
            self._block(child_statements(statement))  # only to reach the scopes inside
        elif kind is cst.SimpleStatementLine:
            for small in statement.body:
                self._small(small)
        elif kind is cst.If:
            self._if(statement)
        elif kind is cst.For:
            self._for(statement)
        elif kind is cst.While:
            self._while(statement)
        elif kind is cst.Try or kind is cst.TryStar:
            self._try(statement)
        elif kind is cst.With:
            for item in statement.items:
                self._read(item.item)
            self._bind(statement)
            for item in statement.items:
                if item.asname is not None:
                    self._read(item.asname.name)
            self._block(suite_statements(statement.body))
        elif kind is cst.Match:
            self._match(statement)
        elif kind in _COMPOUND:
            self._block(child_statements(statement))
        else:
            self._small(statement)  # a small statement of a one-line suite

    def _small(self, statement: cst.CSTNode) -> None:
        if type(statement) is cst.Import or type(statement) is cst.ImportFrom:
            self._bind(statement)  # the names in an import are read as what it binds
            self._read(statement)
        else:
            self._read(statement)
            self._bind(statement)

    def _bind(self, statement: cst.CSTNode) -> None:
        state = self.frames[-1].state
        if not state:
            return
        new: dict[str, list[object]] = {}
        for name, value in self.binder(statement):
            if name in state:
                new.setdefault(name, []).append(value)
        for name, values in new.items():
            state[name] = frozenset(values[-1:])  # the last binding of a statement wins

    def _if(self, statement: cst.If) -> None:
        self._read(statement.test)
        frame = self.frames[-1]
        before = dict(frame.state)
        self._block(suite_statements(statement.body))
        after_body = frame.state
        frame.state = dict(before)
        orelse = statement.orelse
        if type(orelse) is cst.If:
            self._if(orelse)
        elif orelse is not None:
            self._block(suite_statements(orelse.body))
        frame.state = _join(frame.state, after_body)

    def _for(self, statement: cst.For) -> None:
        self._read(statement.iter)
        frame = self.frames[-1]
        entry = self._loop_entry(statement)
        frame.state = dict(entry)
        self._bind(statement)
        self._read(statement.target)
        self._block(suite_statements(statement.body))
        frame.state = _join(entry, frame.state)
        if statement.orelse is not None:
            self._block(suite_statements(statement.orelse.body))

    def _while(self, statement: cst.While) -> None:
        frame = self.frames[-1]
        entry = self._loop_entry(statement)
        frame.state = dict(entry)
        self._read(statement.test)
        self._block(suite_statements(statement.body))
        frame.state = _join(entry, frame.state)
        if statement.orelse is not None:
            self._block(suite_statements(statement.orelse.body))

    def _loop_entry(self, loop: cst.CSTNode) -> dict[str, frozenset]:
        """The values at the head of a loop: those before it, and those its body binds (they
        reach the next iteration)."""
        frame = self.frames[-1]
        bound = self._bound_in([loop])
        return {name: values | bound[name] if name in bound else values for name, values in frame.state.items()}

    def _try(self, statement: cst.CSTNode) -> None:
        frame = self.frames[-1]
        bound = self._bound_in(suite_statements(statement.body))
        before = frame.state
        handlers_entry = {name: values | bound[name] if name in bound else values for name, values in before.items()}
        frame.state = dict(before)
        self._block(suite_statements(statement.body))
        if statement.orelse is not None:
            self._block(suite_statements(statement.orelse.body))
        ends = [frame.state]
        for handler in statement.handlers:
            frame.state = dict(handlers_entry)
            if handler.type is not None:
                self._read(handler.type)
            self._block(suite_statements(handler.body))
            ends.append(frame.state)
        joined = ends[0]
        for end in ends[1:]:
            joined = _join(joined, end)
        frame.state = joined
        if statement.finalbody is not None:
            frame.state = _join(frame.state, handlers_entry)  # it also runs after an exception no handler took
            self._block(suite_statements(statement.finalbody.body))

    def _match(self, statement: cst.Match) -> None:
        self._read(statement.subject)
        frame = self.frames[-1]
        before = frame.state
        joined = before
        for case in statement.cases:
            frame.state = dict(before)
            self._read(case.pattern)
            if case.guard is not None:
                self._read(case.guard)
            self._block(suite_statements(case.body))
            joined = _join(joined, frame.state)
        frame.state = joined

    def _bound_in(self, statements: Iterable[cst.CSTNode]) -> dict[str, frozenset]:
        """The values the statements (and those nested in them, outside other scopes) give the
        followed names of the current frame."""
        state = self.frames[-1].state
        found: dict[str, frozenset] = {}
        if not state:
            return found
        pending = list(statements)
        while pending:
            statement = pending.pop()
            kind = type(statement)
            smalls = statement.body if kind is cst.SimpleStatementLine else (statement,)
            for small in smalls:
                for name, value in self.binder(small):
                    if name in state:
                        found[name] = found.get(name, frozenset()) | {value}
            if kind is not cst.FunctionDef and kind is not cst.ClassDef and kind is not cst.SimpleStatementLine:
                pending.extend(child_statements(statement))
        return found

    # -- scopes inside ------------------------------------------------------------------------

    def _function(self, definition: cst.FunctionDef) -> None:
        if self.frames[-1].reading:
            for decorator in definition.decorators:
                self._read(decorator.decorator)
            self._read_parameters(definition.params)
            if definition.returns is not None:
                self._read(definition.returns)
        scope = self.scopes.by_node.get(id(definition))
        if scope is not None:  # else not a statement the import map read: nothing in it is followed
            self._push(scope, _entry_state(scope))
            if self.frames[-1].reading or scope.walked:
                self._block(suite_statements(definition.body))
            self.frames.pop()
        self._bind(definition)

    def _class(self, definition: cst.ClassDef) -> None:
        if self.frames[-1].reading:
            for decorator in definition.decorators:
                self._read(decorator.decorator)
            for argument in (*definition.bases, *definition.keywords):
                self._read(argument.value)
        scope = self.scopes.by_node.get(id(definition))
        if scope is not None:  # else not a statement the import map read: nothing in it is followed
            self._push(scope, {name: _UNBOUND_ONLY for name in scope.followed})
            if self.frames[-1].reading or scope.walked:
                self._block(suite_statements(definition.body))
            self.frames.pop()
        self._bind(definition)

    def _lambda(self, node: cst.Lambda) -> None:
        """A lambda's body runs when it is called, in a scope where its parameters are bound."""
        self._read_parameters(node.params)
        scope = Scope(node, _FUNCTION, self.frames[-1].scope)
        for name in parameter_names(node.params):
            if name in self.names:
                scope.bound[name] = [SHADOWED]
        scope.followed = frozenset(scope.bound)
        self._push(scope, {name: _SHADOWED_ONLY for name in scope.bound})
        self._read(node.body)
        self.frames.pop()

    def _read_parameters(self, params: cst.Parameters) -> None:
        for param in _all_params(params):
            if param.default is not None:
                self._read(param.default)
            if param.annotation is not None:
                self._read(param.annotation.annotation)

    # -- reads ----------------------------------------------------------------------------------

    def _read(self, node: cst.CSTNode) -> None:
        """Record each read of a followed name in `node` (an expression or a small statement)."""
        names = self.names
        reads = self.reads
        pending = [node]
        while pending:
            current = pending.pop()
            kind = type(current)
            if kind is cst.Name:
                if current.value in names:
                    reads[id(current)] = (current, self._reaching(current.value))
            elif kind is cst.Lambda:
                self._lambda(current)
            else:
                pending.extend(iter_children(current))


_COMPOUND = (cst.FunctionDef, cst.ClassDef, cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.With, cst.Match)


def _all_params(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    yield from params.kwonly_params
    for star in (params.star_arg, params.star_kwarg):
        if type(star) is cst.Param:
            yield star


def _entry_state(scope: Scope) -> dict[str, frozenset]:
    """A function's followed names on entry: its parameters are bound, its other locals not yet."""
    parameters = set(parameter_names(scope.node.params))
    return {name: _SHADOWED_ONLY if name in parameters else _UNBOUND_ONLY for name in scope.followed}


def _join(first: dict[str, frozenset], second: dict[str, frozenset]) -> dict[str, frozenset]:
    return {name: values | second[name] for name, values in first.items()}
