"""What the code on the way to a read proves about the value read there, where the bindings of
the name alone do not tell:

- in the branch an `isinstance(x, torch.Tensor)` test takes (also `nn.Parameter`, `Variable`, a
  tuple of those, one operand of an `and`), `x` is a tensor, and a parameter when every class
  tested is `nn.Parameter`;
- after a torch call that raises unless its argument is a tensor (`F.nll_loss(output, label)`:
  the API table's `demands-tensor` rows, each measured under torch 2.13), the name passed is a
  tensor; nothing is learned about its history;
- after `self.attr = <tensor>` in a method (also followed by `if cond: self.attr =
  self.attr.cuda()`), `self.attr` is a tensor while nothing may have rebound it: no other write
  of it, no call handed `self`, no call of something reached through `self`, no `super()`, no
  yield, no class of the hierarchy with its own `__setattr__` or a class attribute of that name.

A fact holds at a read only when its test, call or assignment runs on every path to the read in
the same function and nothing between them may rebind the name: the read sits in the code after
it (inside `if`, `with`, `try` or loops there; a loop around the read counts whole, as its next
iteration runs its later code first), never in a lambda or comprehension, and the name is a local
of the function, bound nowhere by `with`, `global`, `del`, `:=` or an import. Everything is read
from the function's occurrence index (`ScopeUses`): no walk of its own.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional, Sequence

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, self_name
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.semantic.nodes import BLOCKS, NodeIndex
from gradlint.analysis.semantic.scope import ScopeUses, ScopeUsesTable, is_binding_position, is_write_target

# `isinstance(x, C)` holds only for tensors; for the `parameter` rows, only for parameters.
_TENSOR_CLASSES = torch_api.functions("tensor-class")
_PARAMETER_CLASSES = _TENSOR_CLASSES & torch_api.functions("parameter")
# `self.w = self.w.cuda()`: a tensor again when `self.w` was one.
_SAME_TENSOR_METHODS = torch_api.methods("same-values")
# Bases whose attribute assignment stores the value read back (`nn.Module` keeps a tensor as it is).
_PLAIN_BASES = frozenset({"torch.nn.Module", "object"})
# Code run later, or in a scope of its own: a read there is not on the path the fact is about.
_DEFERRED = (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)
_ATTRIBUTE_HOOKS = frozenset({"__setattr__", "__getattribute__", "__delattr__"})

PARAMETER = "parameter"
TENSOR = "tensor"


class _Fact(NamedTuple):
    """What a test, call or assignment proves, and from where: the reads after `after`, in the
    blocks `starts` holds after the given statement index, learn `kind`."""

    kind: str
    after: cst.CSTNode  # the region that may rebind starts after this node
    starts: tuple[tuple[cst.CSTNode, int], ...]  # (block, index of the statement holding the fact)
    statement: Optional[cst.CSTNode]  # the statement holding the fact, which must not rebind the name


class Narrowing:
    """Per file: `kind(node, scope)`, PARAMETER, TENSOR or None, for a name or `self.attr` read."""

    def __init__(
        self,
        imports: ImportMap,
        nodes: NodeIndex,
        scope_uses: Callable[[], ScopeUsesTable],
        known_tensor: Callable[[cst.BaseExpression, Scope], bool],
        class_of: Callable[[cst.FunctionDef], Optional[cst.ClassDef]],
    ) -> None:
        """`known_tensor`: the value model's answer for an assigned value (`torch.empty(n)`);
        `class_of`: the class a method is defined in."""
        self.imports = imports
        self.nodes = nodes
        self._scope_uses = scope_uses
        self._known_tensor = known_tensor
        self._class_of = class_of
        self._facts: dict[tuple[int, str], list[_Fact]] = {}

    def kind(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Optional[str]:
        if type(scope) is not cst.FunctionDef:
            return None  # at module level any call may rebind a global
        if type(node) is cst.Name:
            return self._name_kind(node, scope)
        if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == self_name(scope):
            return TENSOR if self._assigned_tensor(node, scope) else None
        return None

    # -- names ------------------------------------------------------------------------------------

    def _name_kind(self, node: cst.Name, scope: cst.FunctionDef) -> Optional[str]:
        uses = self._scope_uses().of(scope)
        name = node.value
        if uses.in_nested_function(node) or _binds(uses, node) or not self._is_local(uses, name):
            return None  # a target holds the value assigned, not the one tested
        kinds = {fact.kind for fact in self._name_facts(uses, scope, name) if self._holds(uses, fact, node, name)}
        return PARAMETER if PARAMETER in kinds else TENSOR if kinds else None

    def _is_local(self, uses: ScopeUses, name: str) -> bool:
        """Bound in the function by its parameters, assignments or loops only: no other code can
        rebind it between two statements."""
        if name in uses.hidden_bindings:
            return False
        return name in uses.parameters or any(
            not uses.in_nested_function(occurrence) and _binds(uses, occurrence) for occurrence in uses.occurrences(name)
        )

    def _name_facts(self, uses: ScopeUses, scope: cst.FunctionDef, name: str) -> list[_Fact]:
        key = (id(scope), name)
        found = self._facts.get(key)
        if found is None:
            found = self._facts[key] = []
            for occurrence in uses.occurrences(name):
                fact = None if uses.in_nested_function(occurrence) else self._isinstance_fact(occurrence) or self._demand_fact(occurrence)
                if fact is not None:
                    found.append(fact)
        return found

    def _argument_call(self, occurrence: cst.Name) -> Optional[cst.Call]:
        arg = self.nodes.parent(occurrence)
        if type(arg) is not cst.Arg or arg.value is not occurrence or arg.star:
            return None
        call = self.nodes.parent(arg)
        return call if type(call) is cst.Call else None

    def _isinstance_fact(self, occurrence: cst.Name) -> Optional[_Fact]:
        """`if isinstance(x, nn.Parameter):` (or an `and` with it): the reads of `x` in its body."""
        call = self._argument_call(occurrence)
        if call is None or type(call.func) is not cst.Name or call.func.value != "isinstance" or self.imports.is_imported("isinstance"):
            return None
        if len(call.args) != 2 or call.args[0].value is not occurrence or any(arg.keyword or arg.star for arg in call.args):
            return None
        kind = self._tested_kind(call.args[1].value)
        test = call
        parent = self.nodes.parent(test)
        while type(parent) is cst.BooleanOperation and type(parent.operator) is cst.And:
            test, parent = parent, self.nodes.parent(parent)
        if kind is None or type(parent) is not cst.If or parent.test is not test:
            return None
        return _Fact(kind, parent.test, ((parent.body, -1),), None)

    def _tested_kind(self, classes: cst.BaseExpression) -> Optional[str]:
        members = [element.value for element in classes.elements] if type(classes) is cst.Tuple else [classes]
        if not members or any(type(member) is cst.StarredElement for member in members):
            return None
        names = [self.imports.qualified_name(member) for member in members]
        if not all(name in _TENSOR_CLASSES for name in names):
            return None
        return PARAMETER if all(name in _PARAMETER_CLASSES for name in names) else TENSOR

    def _demand_fact(self, occurrence: cst.Name) -> Optional[_Fact]:
        """`loss = F.nll_loss(output, label)` run whole: the reads of `label` after the statement."""
        call = self._argument_call(occurrence)
        if call is None:
            return None
        row = torch_api.function(self.imports.qualified_name(call.func) or "")
        demanded = row.value("demands-tensor") if row is not None else None
        if not demanded:
            return None
        names = demanded.split(",")
        bound = bind(call, Signature.of_names((*names, "*args", "**kwargs")))
        if bound.starred or not bound.fits or not any(bound.passed(name) is occurrence for name in names):
            return None
        small = self._always_evaluated(call)
        if small is None:
            return None
        line = self.nodes.parent(small)
        starts = [(line, _index_in(line, small))]
        if type(line) is cst.SimpleStatementLine:
            block = self.nodes.parent(line)
            starts.append((block, _index_in(block, line)))
        return _Fact(TENSOR, call, tuple(starts), small)

    def _always_evaluated(self, call: cst.Call) -> Optional[cst.CSTNode]:
        """The small statement that evaluates `call` whenever it runs (not behind `and`, `or`, a
        conditional expression, a lambda or a comprehension), or None."""
        child, parent = call, self.nodes.parent(call)
        while parent is not None:
            if type(parent) in (cst.Assign, cst.AugAssign, cst.AnnAssign):
                return parent if parent.value is child else None
            if type(parent) in (cst.Expr, cst.Return):
                return parent
            if not _evaluates_always(parent, child):
                return None
            child, parent = parent, self.nodes.parent(parent)
        return None

    def _holds(self, uses: ScopeUses, fact: _Fact, read: cst.CSTNode, name: str) -> bool:
        loops = self._path(fact.starts, read)
        if loops is None:
            return False
        for occurrence in uses.occurrences(name):
            if occurrence is read or not _binds(uses, occurrence) or self._bound_after(occurrence, read):
                continue
            if fact.statement is not None and self.nodes.contains(fact.statement, occurrence):
                return False  # `label = F.nll_loss(output, label)`
            if self._between(fact.after, occurrence, read) or any(self.nodes.contains(loop, occurrence) for loop in loops):
                return False
        return True

    def _bound_after(self, target: cst.Name, read: cst.CSTNode) -> bool:
        """`param = param.data`: the target of the assignment whose value holds `read` is bound
        after the value is evaluated."""
        statement = self.nodes.statement_of(read)
        return (
            type(statement) in (cst.Assign, cst.AugAssign, cst.AnnAssign)
            and statement.value is not None
            and self.nodes.contains(statement.value, read)
            and self.nodes.contains(statement, target)
            and not self.nodes.contains(statement.value, target)
        )

    def _between(self, after: cst.CSTNode, node: cst.CSTNode, read: cst.CSTNode) -> bool:
        return self.nodes.comes_after(node, after) and self.nodes.comes_before(node, read)

    def _path(self, starts: Sequence[tuple[cst.CSTNode, int]], read: cst.CSTNode) -> Optional[list[cst.CSTNode]]:
        """The loops entered between a start and `read` when a start's block holds `read` in a
        later statement (every path to `read` then runs the start first); None otherwise."""
        loops: list[cst.CSTNode] = []
        child = read
        for parent in self.nodes.ancestors(read):
            kind = type(parent)
            if kind in _DEFERRED:
                return None
            if kind in BLOCKS:
                for block, index in starts:
                    if parent is block:
                        return loops if _index_in(parent, child) > index else None
            elif (kind is cst.For and child is parent.body) or (kind is cst.While and child in (parent.body, parent.test)):
                loops.append(parent)
            child = parent
        return None

    # -- `self.attr` ------------------------------------------------------------------------------

    def _assigned_tensor(self, read: cst.Attribute, scope: cst.FunctionDef) -> bool:
        """`self.attr = torch.empty(n)` earlier in the method, nothing between able to rebind it."""
        receiver = read.value.value
        uses = self._scope_uses().of(scope)
        if self._written(read):
            return False  # a target holds the value assigned
        if (
            uses.yields
            or uses.in_nested_function(read)
            or receiver in uses.hidden_bindings
            or not self._plain_class(scope, read.attr.value)
        ):
            return False
        if any(_binds(uses, occurrence) or uses.in_nested_function(occurrence) for occurrence in uses.occurrences(receiver)):
            return False  # `self` rebound, or captured by a function that may run in between
        assignment = self._dominating_assignment(uses, read, scope)
        if assignment is None:
            return False
        value = assignment.value
        if not self._known_tensor(value, scope):
            return False
        statement = self.nodes.statement_of(read)
        return self._untouched(uses, receiver, read, assignment, statement)

    def _dominating_assignment(self, uses: ScopeUses, read: cst.Attribute, scope: cst.FunctionDef) -> Optional[cst.Assign]:
        """The plain `self.attr = value` that every path to `read` runs last, passing over
        statements that only rebind it to itself moved or converted (`self.attr.cuda()`)."""
        writes = [
            occurrence
            for occurrence in uses.attribute_occurrences(read.value.value, read.attr.value)
            if occurrence is not read and self._written(occurrence)
        ]
        for statement in self._statements_before(read, scope):
            inside = [write for write in writes if self.nodes.contains(statement, write)]
            if not inside or all(self._keeps_a_tensor(write) for write in inside):
                continue
            if len(inside) != 1 or type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
                return None
            assign = statement.body[0]
            if type(assign) is not cst.Assign or len(assign.targets) != 1 or assign.targets[0].target is not inside[0]:
                return None
            return assign
        return None

    def _statements_before(self, read: cst.CSTNode, scope: cst.FunctionDef) -> list[cst.CSTNode]:
        """The earlier statements of each block around `read` up to the method's body, latest
        first: each runs before `read` on every path (what a loop runs after `read` before its
        next iteration is `_untouched`'s)."""
        positions = self.nodes.positions_in_body(read)
        if not positions or positions[-1].owner is not scope:
            return []
        return [statement for position in positions for statement in position.earlier]

    def _written(self, attribute: cst.Attribute) -> bool:
        parent = self.nodes.parent(attribute)
        kind = type(parent)
        if kind in (cst.AssignTarget, cst.Del):
            return True
        return kind in (cst.AugAssign, cst.AnnAssign) and parent.target is attribute

    def _keeps_a_tensor(self, write: cst.Attribute) -> bool:
        """`self.w = self.w.cuda()`: the same tensor moved or converted, in a statement of its own."""
        target = self.nodes.parent(write)
        assign = self.nodes.parent(target)
        if type(target) is not cst.AssignTarget or type(assign) is not cst.Assign or len(assign.targets) != 1:
            return False
        value = assign.value
        if type(value) is not cst.Call or type(value.func) is not cst.Attribute or value.func.attr.value not in _SAME_TENSOR_METHODS:
            return False
        source = value.func.value
        return (
            type(source) is cst.Attribute
            and type(source.value) is cst.Name
            and source.value.value == write.value.value
            and source.attr.value == write.attr.value
            and all(_is_plain_argument(arg) for arg in value.args)
        )

    def _untouched(self, uses: ScopeUses, receiver: str, read: cst.Attribute, assignment: cst.Assign, statement) -> bool:
        """Between the assignment and the end of the read's statement, `self` is used only to read
        attributes: never handed to a call, never the root of a called or written expression
        (other than the moves of `_keeps_a_tensor`), and no `super()` runs."""
        loops = self.nodes.enclosing_loops(read)
        end = statement if statement is not None else read

        def in_region(node: cst.CSTNode) -> bool:
            after = self.nodes.comes_after(node, assignment)
            return (after and not self.nodes.comes_after(node, end)) or any(
                self.nodes.contains(loop, node) and not self.nodes.contains(loop, assignment) for loop in loops
            )

        if any(in_region(occurrence) for occurrence in uses.occurrences("super")):
            return False
        for occurrence in uses.occurrences(receiver):
            if occurrence is read.value:
                continue
            if in_region(occurrence) and not self._reads_an_attribute(occurrence):
                return False
            if not in_region(occurrence) and not self._leaves_no_alias(occurrence):
                return False  # `me = self` earlier: `me.w = ...` between would not be seen
        return True

    def _leaves_no_alias(self, occurrence: cst.Name) -> bool:
        """`self.x` or `super(Net, self)`: a use of `self` outside the region that keeps no other
        name or object holding it."""
        parent = self.nodes.parent(occurrence)
        if type(parent) is cst.Attribute and parent.value is occurrence:
            return True
        call = self.nodes.parent(parent) if type(parent) is cst.Arg else None
        return type(call) is cst.Call and type(call.func) is cst.Name and call.func.value == "super"

    def _reads_an_attribute(self, occurrence: cst.Name) -> bool:
        """`self.x` read as a value: not called, not written, not handed on as `self` itself; or
        the move of `self.w = self.w.cuda()` (its write and its read)."""
        attribute = self.nodes.parent(occurrence)
        if type(attribute) is not cst.Attribute or attribute.value is not occurrence:
            return False
        if self._written(attribute):
            return self._keeps_a_tensor(attribute)
        top, parent = attribute, self.nodes.parent(attribute)
        while (type(parent) is cst.Attribute and parent.value is top) or (type(parent) is cst.Subscript and parent.value is top):
            if type(parent) is cst.Subscript and self._written(parent):
                return False
            top, parent = parent, self.nodes.parent(parent)
        if type(parent) is cst.Call and parent.func is top:
            return self._is_the_move(parent, attribute)
        return not self._written(top)

    def _is_the_move(self, call: cst.Call, attribute: cst.Attribute) -> bool:
        """`self.w.cuda()` as the value of `self.w = self.w.cuda()`."""
        assign = self.nodes.parent(call)
        return (
            type(assign) is cst.Assign
            and assign.value is call
            and len(assign.targets) == 1
            and type(assign.targets[0].target) is cst.Attribute
            and call.func.value is attribute
            and self._keeps_a_tensor(assign.targets[0].target)
        )

    def _plain_class(self, method: cst.FunctionDef, attribute: str) -> bool:
        """`method` is a plain method of a class of the file whose hierarchy (classes of the file
        down to `nn.Module` or `object`) stores an assigned attribute as it is: no `__setattr__`,
        `__getattribute__` or `__delattr__` of its own, and no class attribute named `attribute`
        (a property or descriptor)."""
        if method.decorators:
            return False
        owner = self._class_of(method)
        seen: set[int] = set()
        pending = [owner] if owner is not None else []
        if not pending:
            return False
        while pending:
            current = pending.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            if _class_names(current) & (_ATTRIBUTE_HOOKS | {attribute}):
                return False
            for base in current.bases:
                if base.keyword is not None or base.star:
                    return False
                qualified = self.imports.qualified_name(base.value)
                if qualified in _PLAIN_BASES:
                    continue
                local = self._file_class(base.value)
                if local is None:
                    return False
                pending.append(local)
        return True

    def _file_class(self, base: cst.BaseExpression) -> Optional[cst.ClassDef]:
        """The top-level class of the file a base names, when the file defines it once."""
        root = self.nodes.root
        if type(base) is not cst.Name or type(root) is not cst.Module or self.imports.is_imported(base.value):
            return None
        found = [statement for statement in root.body if type(statement) is cst.ClassDef and statement.name.value == base.value]
        return found[0] if len(found) == 1 else None


def _class_names(class_def: cst.ClassDef) -> set[str]:
    """The names the class body binds: its methods, nested classes and class attributes."""
    names: set[str] = set()
    body = class_def.body.body if isinstance(class_def.body, cst.IndentedBlock) else ()
    for statement in body:
        if type(statement) in (cst.FunctionDef, cst.ClassDef):
            names.add(statement.name.value)
        elif type(statement) is cst.SimpleStatementLine:
            for small in statement.body:
                targets = [t.target for t in small.targets] if type(small) is cst.Assign else []
                if type(small) in (cst.AnnAssign, cst.AugAssign):
                    targets = [small.target]
                names.update(target.value for target in targets if type(target) is cst.Name)
        else:
            names.add("__setattr__")  # a compound statement in a class body: bindings not followed
    return names


def _binds(uses: ScopeUses, occurrence: cst.Name) -> bool:
    return is_binding_position(uses, occurrence) or is_write_target(uses, occurrence)


def _index_in(block: cst.CSTNode, child: cst.CSTNode) -> int:
    return next(index for index, statement in enumerate(block.body) if statement is child)


def _evaluates_always(parent: cst.CSTNode, child: cst.CSTNode) -> bool:
    """`parent` evaluates its part `child` whenever `parent` itself is evaluated."""
    kind = type(parent)
    if kind in (cst.Arg, cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Tuple, cst.List, cst.Element, cst.Index):
        return True
    if kind in (cst.Attribute, cst.Subscript):
        return parent.value is child or kind is cst.Subscript
    if kind is cst.SubscriptElement:
        return True
    if kind is cst.BooleanOperation:
        return parent.left is child
    if kind is cst.IfExp:
        return parent.test is child
    if kind is cst.Comparison:
        return parent.left is child
    return False


def _is_plain_argument(arg: cst.Arg) -> bool:
    """An argument whose evaluation calls nothing: a name, a literal, an attribute read."""
    return not arg.star and type(arg.value) in (cst.Name, cst.Integer, cst.SimpleString, cst.Attribute)
