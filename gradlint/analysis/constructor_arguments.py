"""What the construction sites of a run pass to the constructor parameters a class keeps on `self`.

`Trainer.__init__(self, G, FE, D, Q)` stores `self.D = D`; `main.py` builds `Trainer(g, fe, d, q)`
with `d = D()`, a module class of `model.py` whose `forward` ends in `.view(-1, 1)`. Then, in
`trainer.py`, `self.D(x)` has the shape `(N, 1)` whatever `x` is. Likewise `self.loader` is a
`torch.utils.data.DataLoader` when every construction passes one (`loader = DataLoader(...)`,
or a tuple element of a project function's `return a, b` of such names).

A value counts only when every construction of the class in the run passes the same kind of value,
and every use of the class's name in the files that may see it is a call of it (or its own
`super(...)`): a subclass, an alias or an attribute spelling (`trainer.Trainer(...)`) leaves the
class unknown. The files are read with CPython's `ast` from the project index's trees; a class is
looked at only when its file's text stores a parameter on `self` and calls or iterates that
attribute, so most files are never parsed for this.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable, Iterator, Optional, Union

import libcst as cst

from gradlint.analysis.python_classes import dotted
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.model.project import PassedValue

Scope = Union[ast.Module, ast.FunctionDef, ast.AsyncFunctionDef]
Tree = Callable[[str], Optional[ast.Module]]  # a module file -> its tree (None: unreadable)
Definition = Callable[[str, str], Optional[tuple[str, ast.stmt]]]  # (file, name) -> the project's class or function it means
Outside = Callable[[str, str], Optional[str]]  # (file, name) -> the outside qualified name it stands for

# `self.loader = loader`, and the attribute called (`self.D(x)`) or iterated (`iter(self.loader)`).
_STORED = re.compile(rb"^[ \t]+self\.(\w+)[ \t]*=[ \t]*\w+[ \t]*(?:#.*)?$", re.MULTILINE)
_USED = re.compile(rb"\bself\s*\.\s*(\w+)\s*\(|\biter\(\s*self\s*\.\s*(\w+)\s*\)")
MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
_VIEW_METHODS = frozenset({"view", "reshape"})
_MAX_DEPTH = 4


def may_pass_stored_arguments(source: bytes) -> bool:
    """The text stores an attribute from a plain name and calls or iterates that attribute."""
    stored = {name.decode("utf-8", "replace") for name in _STORED.findall(source)}
    return bool(stored) and not stored.isdisjoint(used_attributes(source))


def used_attributes(source: bytes) -> frozenset[str]:
    """The attributes of `self` the text calls or iterates: the only ones whose passed values are asked for."""
    return frozenset(name.decode("utf-8", "replace") for pair in _USED.findall(source) for name in pair if name)


@dataclass(frozen=True)
class _Site:
    file: str
    call: ast.Call
    scope: Scope


Mention = tuple[ast.AST, ast.AST, Scope]  # a Name or Attribute node, its parent, the function it runs in


class ConstructorArguments:
    """`"Class.attribute"` -> what every construction passes for it, per class file; built once
    per run, it reads each file's names (one walk of its tree) at most once."""

    def __init__(
        self,
        tree: Tree,
        definition: Definition,
        outside: Outside,
        importers: Callable[[str], list[str]],
        words: Callable[[str], frozenset[str]],
    ) -> None:
        self._tree = tree
        self._definition = definition
        self._outside = outside
        self._importers = importers
        self._words = words
        self._mentions: dict[str, Optional[dict[str, list[Mention]]]] = {}

    def of(self, path: str, used: frozenset[str]) -> dict[str, PassedValue]:
        """The values passed for the stored parameters of `path`'s classes whose attribute is one of `used`."""
        tree = self._tree(path)
        if tree is None:
            return {}
        stored = {node.name: _stored_parameters(node, used) for node in tree.body if isinstance(node, ast.ClassDef)}
        stored = {name: attributes for name, attributes in stored.items() if attributes}
        found: dict[str, PassedValue] = {}
        for name, attributes in stored.items():
            sites = self._sites(path, name)
            if not sites:
                continue
            init = _method(_class(tree, name), "__init__")
            assert init is not None  # `_stored_parameters` found its assignments there
            signature = Signature.of(cst.ensure_type(cst.parse_statement(f"def f({ast.unparse(init.args)}): pass"), cst.FunctionDef))
            for attribute, parameter in attributes.items():
                values = {self._passed(site, signature, parameter) for site in sites}
                value = values.pop() if len(values) == 1 else None
                if value is not None:
                    found[f"{name}.{attribute}"] = value
        return found

    def _sites(self, path: str, name: str) -> Optional[list[_Site]]:
        """Every call of class `name` of `path` in the files that may see it; None when one of its
        uses there is not a call that resolves to it."""
        sites: list[_Site] = []
        for file in (path, *self._importers(path)):
            if name not in self._words(file):
                continue  # the file never spells the name
            mentions = self._mentions_in(file)
            if mentions is None:
                return None
            for node, parent, scope in mentions.get(name, ()):
                if isinstance(node, ast.Attribute):
                    return None  # `model.Trainer`: the module's attribute, not followed
                if isinstance(node.ctx, ast.Store) or (file == path and _is_super_argument(node, parent)):
                    continue
                if not (isinstance(parent, ast.Call) and parent.func is node):
                    return None
                if self._definition(file, name) != (path, _class(self._tree(path), name)):
                    return None
                sites.append(_Site(file, parent, scope))
        return sites

    def _mentions_in(self, file: str) -> Optional[dict[str, list[Mention]]]:
        if file not in self._mentions:
            tree = self._tree(file)
            self._mentions[file] = _mentions(tree) if tree is not None else None
        return self._mentions[file]

    def _passed(self, site: _Site, signature: Signature, parameter: str) -> Optional[PassedValue]:
        argument = _bound_argument(site.call, signature, parameter)
        return self._describe(site.file, argument, site.scope, None, 0) if argument is not None else None

    def _describe(self, file: str, value: ast.expr, scope: Scope, element: Optional[int], depth: int) -> Optional[PassedValue]:
        """What `value` (its `element`-th item when not None) evaluates to, in `scope` of `file`."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(value, ast.Name):
            bound = _bindings(scope, value.id)
            if not bound or (element is not None and any(position is not None for _, position in bound)):
                return None  # `a, b = pair` of a pair itself unpacked: not followed
            described = {
                self._describe(file, assigned, scope, element if position is None else position, depth + 1) for assigned, position in bound
            }
            return described.pop() if len(described) == 1 else None
        if isinstance(value, ast.Tuple) and element is not None:
            return self._describe(file, value.elts[element], scope, None, depth + 1) if element < len(value.elts) else None
        if isinstance(value, ast.Call) and not any(isinstance(arg, ast.Starred) for arg in value.args):
            return self._called(file, value.func, element, depth)
        return None

    def _called(self, file: str, func: ast.expr, element: Optional[int], depth: int) -> Optional[PassedValue]:
        if isinstance(func, ast.Name):
            defined = self._definition(file, func.id)
            if defined is not None:
                where, statement = defined
                if isinstance(statement, ast.ClassDef) and element is None:
                    shape = self._module_output(where, statement)
                    return PassedValue(output_shape=shape) if shape is not None else None
                if isinstance(statement, ast.FunctionDef) and element is not None:
                    returned = _single_return(statement)
                    return self._describe(where, returned, statement, element, depth + 1) if returned is not None else None
                return None
        spelled = dotted(func)
        if spelled is None or element is not None:
            return None
        first, _, rest = spelled.partition(".")
        if self._definition(file, first) is not None:
            return None
        outside = self._outside(file, first)
        return PassedValue(made_by=f"{outside}.{rest}" if rest else outside) if outside is not None else None

    def _module_output(self, file: str, statement: ast.ClassDef) -> Optional[tuple[Optional[int], ...]]:
        """The shape a module class's `forward(self, x)` returns whatever `x` is: a last `return`
        of `.view(...)` / `.reshape(...)` to literal sizes, or of a name bound once to one."""
        if len(statement.bases) != 1 or _method(statement, "__call__") is not None:
            return None
        base = dotted(statement.bases[0])
        first, _, rest = (base or "").partition(".")
        outside = self._outside(file, first) if first else None
        if outside is None or (f"{outside}.{rest}" if rest else outside) not in MODULE_BASES:
            return None
        forward = _method(statement, "forward")
        if forward is None or not _takes_one_input(forward.args):
            return None
        returned = _single_return(forward)
        if isinstance(returned, ast.Name):
            bound = _bindings(forward, returned.id)
            returned = bound[0][0] if len(bound) == 1 and bound[0][1] is None else None
        return _view_sizes(returned) if returned is not None else None


def _stored_parameters(node: ast.ClassDef, used: frozenset[str]) -> dict[str, str]:
    """attribute -> parameter, for each `self.<attribute> = <parameter>` of `__init__` (an
    attribute of `used`) that the class assigns nowhere else, the parameter being bound nowhere
    else in `__init__`."""
    init = _method(node, "__init__")
    if init is None or not init.args.args:
        return {}
    receiver = init.args.args[0].arg
    parameters = {arg.arg for arg in (*init.args.posonlyargs, *init.args.args[1:], *init.args.kwonlyargs)}
    stored: dict[str, str] = {}
    for statement in init.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.value, ast.Name):
            target = statement.targets[0]
            if _is_attribute_of(target, receiver) and target.attr in used and statement.value.id in parameters:  # type: ignore[attr-defined]
                stored[target.attr] = statement.value.id  # type: ignore[attr-defined]
    if not stored:
        return {}
    assigned: dict[str, int] = {}
    for inner in ast.walk(node):
        if isinstance(inner, ast.Attribute) and not isinstance(inner.ctx, ast.Load):
            assigned[inner.attr] = assigned.get(inner.attr, 0) + 1
    return {
        attribute: parameter for attribute, parameter in stored.items() if assigned.get(attribute) == 1 and not _rebinds(init, parameter)
    }


def _rebinds(function: ast.FunctionDef, name: str) -> bool:
    """`function`'s own code binds `name` again (or deletes it)."""
    return any(
        (isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load))
        or (isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names)
        for node in _own_nodes(function)
    )


def _plain_parameters(function: ast.FunctionDef) -> set[str]:
    arguments = function.args
    return {arg.arg for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}


def _bound_argument(call: ast.Call, signature: Signature, parameter: str) -> Optional[ast.expr]:
    """The expression `call` passes for `parameter` (the receiver taking the first slot), through
    the one argument binder; None when it is not passed, or passed through `*`/`**`."""
    if any(keyword.arg is None for keyword in call.keywords):
        return None
    spelled = cst.ensure_type(cst.parse_expression(ast.unparse(call)), cst.Call)
    bound = bind(spelled, signature, receiver=cst.Name("self"))
    if bound.starred or not bound.fits:
        return None
    argument = bound.argument(parameter)
    if argument is None:
        return None
    if argument.keyword is not None:
        return next(keyword.value for keyword in call.keywords if keyword.arg == argument.keyword.value)
    position = [arg for arg in spelled.args if arg.keyword is None].index(argument)
    return call.args[position]


def _bindings(scope: Scope, name: str) -> list[tuple[ast.expr, Optional[int]]]:
    """The values `scope` assigns to `name`, each with its position when unpacked from a tuple
    (`a, b = f()`); empty when any other binding (a parameter, a loop, `with`, an import, `global`)
    may give it a value not written here."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and name in _plain_parameters(scope) | _star_parameters(scope):
        return []
    found: list[tuple[ast.expr, Optional[int]]] = []
    assigned: set[int] = set()  # the Name nodes the assignments above bind
    stores: list[ast.Name] = []
    for node in _own_nodes(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    found.append((node.value, None))
                    assigned.add(id(target))
                elif isinstance(target, (ast.Tuple, ast.List)):
                    names = [element.id if isinstance(element, ast.Name) else None for element in target.elts]
                    if name in names:
                        if None in names or names.count(name) != 1:
                            return []
                        found.append((node.value, names.index(name)))
                        assigned.add(id(target.elts[names.index(name)]))
        elif isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            stores.append(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return []
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (alias.asname or alias.name).split(".")[0] == name for alias in node.names
        ):
            return []
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return []
    if any(id(store) not in assigned for store in stores):
        return []  # a loop, `with`, augmented or walrus binding
    return found


def _star_parameters(function: Union[ast.FunctionDef, ast.AsyncFunctionDef]) -> set[str]:
    return {arg.arg for arg in (function.args.vararg, function.args.kwarg) if arg is not None}


def _own_nodes(scope: Scope) -> Iterator[ast.AST]:
    """The nodes of `scope`, not those of the functions, classes, lambdas and comprehensions in it."""
    pending = list(scope.body)
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.comprehension)):
            continue
        pending.extend(ast.iter_child_nodes(node))


def _mentions(tree: ast.Module) -> dict[str, list[Mention]]:
    """Identifier -> each Name spelling it and each Attribute naming it, with its parent and the
    function (or module) it runs in: one walk of the tree."""
    found: dict[str, list[Mention]] = {}
    pending: list[tuple[ast.AST, Scope]] = [(tree, tree)]
    while pending:
        node, scope = pending.pop()
        inner = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else scope
        for child in ast.iter_child_nodes(node):
            kind = type(child)
            if kind is ast.Name:
                found.setdefault(child.id, []).append((child, node, inner))  # type: ignore[attr-defined]
                continue  # its only child is its context
            if kind is ast.Attribute:
                found.setdefault(child.attr, []).append((child, node, inner))  # type: ignore[attr-defined]
            pending.append((child, inner))
    return found


def _is_super_argument(node: ast.Name, parent: Optional[ast.AST]) -> bool:
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "super" and node in parent.args


def _class(tree: Optional[ast.Module], name: str) -> Optional[ast.ClassDef]:
    found = [node for node in (tree.body if tree is not None else ()) if isinstance(node, ast.ClassDef) and node.name == name]
    return found[0] if len(found) == 1 else None


def _method(node: Optional[ast.ClassDef], name: str) -> Optional[ast.FunctionDef]:
    found = [member for member in (node.body if node is not None else ()) if isinstance(member, ast.FunctionDef) and member.name == name]
    return found[0] if len(found) == 1 else None


def _single_return(function: ast.FunctionDef) -> Optional[ast.expr]:
    """The value of the function's only `return`, written as its last statement."""
    returns = [node for node in _own_nodes(function) if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom))]
    last = function.body[-1] if function.body else None
    if len(returns) != 1 or returns[0] is not last or not isinstance(last, ast.Return):
        return None
    return last.value


def _takes_one_input(arguments: ast.arguments) -> bool:
    return (
        len(arguments.args) == 2
        and not arguments.posonlyargs
        and not arguments.kwonlyargs
        and arguments.vararg is None
        and arguments.kwarg is None
        and not arguments.defaults
    )


def _view_sizes(value: ast.expr) -> Optional[tuple[Optional[int], ...]]:
    """`t.view(-1, 1)` -> (None, 1): one dimension per literal size, -1 a size not spelled."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute) or value.func.attr not in _VIEW_METHODS:
        return None
    if value.keywords or not value.args:
        return None
    sizes = value.args[0].elts if len(value.args) == 1 and isinstance(value.args[0], ast.Tuple) else value.args
    shape: list[Optional[int]] = []
    for size in sizes:
        number = _integer(size)
        if number is None or number == 0 or number < -1:
            return None
        shape.append(None if number == -1 else number)
    return tuple(shape) if shape.count(None) <= 1 else None


def _integer(node: ast.expr) -> Optional[int]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _integer(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _is_attribute_of(node: ast.expr, receiver: str) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == receiver
