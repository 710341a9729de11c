"""Which attributes the code of a run may write on an object: what a project callable writes on
an argument handed to it, and which attributes of a class's instances only its own methods store.

`model = RN(args)` hands the command-line namespace to `RN.__init__(self, args)`, which reads
`args.batch_size` and hands `args` on to `super(RN, self).__init__(args, 'RN')`. When every use of
the parameter, in the callable and in the project callables it is handed on to, is an attribute
read, an attribute store (whose name is recorded), printing, or such a call, the names recorded
are all the call can change on the object. Anything else (keeping the object, returning it,
handing it to outside code, calling one of its methods, a dunder attribute) leaves it unknown.

`self.batch_size = 100` in `Trainer.__init__` is sealed when the class has no base but `object`
(no outside class can define the attribute as a property), no metaclass, decorator or attribute
hook of its own, and no method rebinding its first parameter; the run uses its name only to
construct it; every store to a `.batch_size` of anything in the run is a plain assignment to the
first parameter of one of its undecorated methods; no class body of the run binds the name; and no
file of the run writes attributes by name (`setattr`, `__dict__`, `vars()`, ...) or assigns an
object's `__class__`. Only attributes a method assigns an int literal are looked at. A read of
`self.batch_size` in one of its methods then sees one of the values its methods assign, or raises
AttributeError. Code outside the run is taken not to store attributes on objects of a class it
does not define.

The files are read with CPython's `ast` from the project index's trees, and only files whose
text spells the names in question are parsed.
"""

from __future__ import annotations

import ast
import re
from typing import Callable, Iterable, Iterator, Optional, Sequence

import libcst as cst

from gradlint.analysis.python_classes import Function, class_body_names, is_plain_class, rebinds
from gradlint.analysis.semantic.arguments import Signature, bind

Tree = Callable[[str], Optional[ast.Module]]  # a module file -> its tree (None: unreadable)
Definition = Callable[[str, str], Optional[tuple[str, ast.stmt]]]  # (file, name) -> the project's class or function it means

# A module-level namespace from the command line (`args = parser.parse_args()`).
_PARSES_ARGUMENTS = re.compile(rb"^(\w+)\s*=\s*\w+\.parse_args\(", re.MULTILINE)
# A class with no base but `object`.
_BASELESS_CLASS = re.compile(rb"^class\s+\w+\s*(?:\(\s*(?:object)?\s*\))?\s*:", re.MULTILINE)
# `self.batch_size = 100`: an attribute assigned an int literal.
_INT_STORE = re.compile(rb"^[ \t]+\w+\.\w+[ \t]*=[ \t]*-?\d+[ \t]*(?:#.*)?$", re.MULTILINE)
# Spellings that write an object's attributes by name, or change its class.
_WRITES_BY_NAME = re.compile(
    rb"\b(?:setattr|delattr|vars)\s*\(|__dict__|__setattr__|__delattr__|__getattribute__|__class__\s*=(?!=)|__func__|__set__"
)
# Modules imported by a name computed at run time: any file may then reach any other.
_IMPORTS_BY_NAME = re.compile(rb"\bimportlib\b|\b__import__\b|\bimport_module\b")
# Builtins a namespace may be given to without being changed.
_READERS = frozenset({"print", "str", "repr", "format"})
_MAX_DEPTH = 6


class AttributeWrites:
    """Per run: `argument_writes(path)` and `sealed_attributes(path)`, each file read once."""

    def __init__(
        self,
        tree: Tree,
        definition: Definition,
        files: Callable[[], Sequence[str]],
        source: Callable[[str], bytes],
        words: Callable[[str], frozenset[str]],
        imported: Callable[[str], Iterable[str]],
    ) -> None:
        self._tree = tree
        self._definition = definition
        self._files = files  # every file of the run, and the local modules it reads
        self._source = source
        self._words = words  # every identifier-like word of a file
        self._imported = imported  # the local modules a file's imports name
        self._names: dict[str, Optional[_FileNames]] = {}
        self._components: Optional[dict[str, frozenset[str]]] = None
        self._summaries: dict[tuple[str, int, str], Optional[frozenset[str]]] = {}
        self._writes_by_name: dict[frozenset[str], bool] = {}

    # -- what a callable writes on an argument ------------------------------------------------------

    def argument_writes(self, path: str) -> dict[str, frozenset[str]]:
        """`"RN(0)"` / `"RN(config=)"` -> the attributes the project callable `RN` may write on
        the object passed in that slot, for the callables the file hands one of its module-level
        command-line namespaces to; a callable left out is unknown."""
        source = self._source(path)
        namespaces = {match.decode() for match in _PARSES_ARGUMENTS.findall(source)}
        tree = self._tree(path) if namespaces else None
        if tree is None:
            return {}
        found: dict[str, frozenset[str]] = {}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            for slot, value in _slots(node):
                if isinstance(value, ast.Name) and value.id in namespaces:
                    key = f"{node.func.id}({slot})"
                    if key not in found:
                        written = self._call_writes(path, node, value, None, 0)
                        if written is not None:
                            found[key] = written
        return found

    def _call_writes(
        self, file: str, call: ast.Call, argument: ast.expr, method_of: Optional[ast.ClassDef], depth: int
    ) -> Optional[frozenset[str]]:
        """What `call` (of a project function or class, or `super().__init__` in a method of
        `method_of`) may write on `argument`, one of its arguments."""
        callee = self._callee(file, call, method_of)
        if callee is None:
            return None
        where, function, is_method = callee
        parameter = _parameter_for(call, argument, function, is_method)
        if parameter is None:
            return None
        return self._parameter_writes(where, function, parameter, depth + 1)

    def _callee(self, file: str, call: ast.Call, method_of: Optional[ast.ClassDef]) -> Optional[tuple[str, Function, bool]]:
        """(its file, the function run, whether it is a method) for a call of a project function
        or class, or of `super().__init__` / `super(C, self).__init__` in a method of `method_of`."""
        func = call.func
        if isinstance(func, ast.Name):
            defined = self._definition(file, func.id)
            if defined is None:
                return None
            where, statement = defined
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return (where, statement, False) if not statement.decorator_list else None
            return self._constructor(where, statement) if isinstance(statement, ast.ClassDef) else None
        if method_of is not None and _is_super_init(func):
            bases = method_of.bases
            if len(bases) != 1 or not isinstance(bases[0], ast.Name):
                return None
            defined = self._definition(file, bases[0].id)
            return self._constructor(*defined) if defined is not None and isinstance(defined[1], ast.ClassDef) else None
        return None

    def _constructor(self, where: str, statement: ast.stmt) -> Optional[tuple[str, Function, bool]]:
        """The `__init__` a construction of the class runs with its arguments: its own, in a class
        without `__new__`, metaclass or decorators."""
        if not isinstance(statement, ast.ClassDef) or statement.decorator_list or statement.keywords:
            return None
        if _method(statement, "__new__") is not None:
            return None
        init = _method(statement, "__init__")
        return (where, init, True) if init is not None and not init.decorator_list else None

    def _parameter_writes(self, file: str, function: Function, parameter: str, depth: int) -> Optional[frozenset[str]]:
        key = (file, id(function), parameter)
        if key in self._summaries:
            return self._summaries[key]
        self._summaries[key] = None  # a recursive call of the function is not followed
        found = self._uses_of(file, function, parameter, depth) if depth <= _MAX_DEPTH else None
        self._summaries[key] = found
        return found

    def _uses_of(self, file: str, function: Function, parameter: str, depth: int) -> Optional[frozenset[str]]:
        if rebinds(function, parameter):
            return None
        method_of = self._class_of(file, function)
        written: set[str] = set()
        for node, parent, grandparent in _named(function, parameter):
            if node is None:
                return None  # a nested function, class or comprehension target spells it
            if isinstance(parent, ast.Attribute):
                if parent.attr.startswith("__"):
                    return None
                if not isinstance(parent.ctx, ast.Load):
                    written.add(parent.attr)
                elif isinstance(grandparent, ast.Call) and grandparent.func is parent:
                    return None  # a method of the object: it may change it
                continue
            call = grandparent if isinstance(parent, ast.keyword) else parent
            if not isinstance(call, ast.Call) or call.func is node:
                return None
            if isinstance(call.func, ast.Name) and call.func.id in _READERS and _is_builtin(self._tree(file), call.func.id):
                continue
            if isinstance(call.func, ast.Name) and (rebinds(function, call.func.id) or call.func.id in _parameters(function)):
                return None  # a local name, not the module's callable
            inner = self._call_writes(file, call, node, method_of, depth)
            if inner is None:
                return None
            written |= inner
        return frozenset(written)

    def _class_of(self, file: str, function: Function) -> Optional[ast.ClassDef]:
        tree = self._tree(file)
        for statement in tree.body if tree is not None else ():
            if isinstance(statement, ast.ClassDef) and any(member is function for member in statement.body):
                return statement
        return None

    # -- attributes only a class's own methods store -------------------------------------------------

    def sealed_attributes(self, path: str) -> frozenset[str]:
        """`"Trainer.batch_size"` for each attribute of a base-less class of `path` that a method
        assigns an int literal and that only the class's methods store on their first parameter,
        in the files of the run its objects can reach (see the module's text). Other attributes
        are not looked at: an int is the only answer read from them."""
        source = self._source(path)
        if not _BASELESS_CLASS.search(source) or not _INT_STORE.search(source):
            return frozenset()
        tree = self._tree(path)
        found = set()
        for statement in tree.body if tree is not None else ():
            if not isinstance(statement, ast.ClassDef) or not is_plain_class(statement):
                continue
            candidates = {target.attr for target, value in _self_stores(statement) if _is_int_literal(value)}
            if not candidates:
                continue
            files = self._component(path)
            if not self._writes_by_name_in(files) and self._only_constructed(files, statement.name):
                found |= {f"{statement.name}.{name}" for name in candidates if self._stored_only_by(files, path, statement, name)}
        return frozenset(found)

    def _component(self, path: str) -> frozenset[str]:
        """The files whose code can hold an object of a class of `path`: those connected to it by
        imports either way (an object is handed on only through calls one module makes of
        another's code), or every file when one imports modules by name at run time."""
        if self._components is None:
            files = list(self._files())
            if any(_IMPORTS_BY_NAME.search(self._source(file)) for file in files):
                everything = frozenset(files)
                self._components = {file: everything for file in files}
            else:
                self._components = _components(files, self._imported)
        return self._components.get(path, frozenset({path}))

    def _writes_by_name_in(self, files: frozenset[str]) -> bool:
        if files not in self._writes_by_name:
            self._writes_by_name[files] = any(_WRITES_BY_NAME.search(self._source(file)) for file in files)
        return self._writes_by_name[files]

    def _spelling(self, files: frozenset[str], word: str) -> Iterator[tuple[str, Optional[_FileNames]]]:
        """The files among `files` whose text spells `word`, with their names; None for a file
        that cannot be read (the caller then knows nothing)."""
        for file in sorted(files):
            if word in self._words(file):
                yield file, self._names_of(file)

    def _names_of(self, file: str) -> Optional[_FileNames]:
        if file not in self._names:
            tree = self._tree(file)
            self._names[file] = _FileNames.of(tree) if tree is not None else None
        return self._names[file]

    def _only_constructed(self, files: frozenset[str], name: str) -> bool:
        """Every mention of the class's name in `files` is a call of it, or its `super(...)`."""
        for _, names in self._spelling(files, name):
            if names is None or name in names.other_mentions:
                return False
        return True

    def _stored_only_by(self, files: frozenset[str], path: str, owner: ast.ClassDef, attribute: str) -> bool:
        """Every store to `.attribute` in `files` is `self.attribute = value` in a method of
        `owner`, and no class body there binds the name."""
        allowed = {id(target) for target, _ in _self_stores(owner, attribute)}
        for file, names in self._spelling(files, attribute):
            if names is None or attribute in names.class_bound:
                return False
            if any(file != path or id(target) not in allowed for target in names.stores.get(attribute, ())):
                return False
        return True


class _FileNames:
    """One walk of a file: the attribute stores by name, the names class bodies bind, and the
    names mentioned other than by calling them."""

    def __init__(self) -> None:
        self.stores: dict[str, list[ast.Attribute]] = {}
        self.class_bound: set[str] = set()
        self.other_mentions: set[str] = set()

    @classmethod
    def of(cls, tree: ast.Module) -> "_FileNames":
        names = cls()
        pending: list[tuple[ast.AST, Optional[ast.AST]]] = [(tree, None)]
        while pending:
            node, parent = pending.pop()
            kind = type(node)
            if kind is ast.Name:
                if not (isinstance(parent, ast.Call) and (parent.func is node or _is_super(parent))):
                    names.other_mentions.add(node.id)  # type: ignore[attr-defined]
                continue
            if kind is ast.Attribute:
                names.other_mentions.add(node.attr)  # type: ignore[attr-defined]
                if not isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                    names.stores.setdefault(node.attr, []).append(node)  # type: ignore[arg-type, attr-defined]
            elif kind is ast.ClassDef:
                names.class_bound |= class_body_names(node)  # type: ignore[arg-type]
            elif kind is ast.alias and node.asname is not None:  # type: ignore[attr-defined]
                names.other_mentions.add(node.name.split(".")[-1])  # type: ignore[attr-defined]
            pending.extend((child, node) for child in ast.iter_child_nodes(node))
        return names


# -- helpers ---------------------------------------------------------------------------------------


def _components(files: Sequence[str], imported: Callable[[str], Iterable[str]]) -> dict[str, frozenset[str]]:
    """File -> the files connected to it by imports, either way."""
    neighbours: dict[str, set[str]] = {file: set() for file in files}
    for file in files:
        for module in imported(file):
            if module in neighbours and module != file:
                neighbours[file].add(module)
                neighbours[module].add(file)
    components: dict[str, frozenset[str]] = {}
    for start in files:
        if start in components:
            continue
        found, pending = {start}, [start]
        while pending:
            for neighbour in neighbours[pending.pop()] - found:
                found.add(neighbour)
                pending.append(neighbour)
        component = frozenset(found)
        components.update((file, component) for file in component)
    return components


def _slots(call: ast.Call) -> Iterator[tuple[str, ast.expr]]:
    """("0", value) for positional arguments (before any `*`), ("name=", value) for keywords."""
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        yield str(position), arg
    for keyword in call.keywords:
        if keyword.arg is not None:
            yield f"{keyword.arg}=", keyword.value


def _parameter_for(call: ast.Call, argument: ast.expr, function: Function, is_method: bool) -> Optional[str]:
    """The parameter of `function` that `argument` of `call` fills, through the one binder; None
    when the call unpacks arguments or does not fit."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(keyword.arg is None for keyword in call.keywords):
        return None
    signature = Signature.of(cst.ensure_type(cst.parse_statement(f"def f({ast.unparse(function.args)}): pass"), cst.FunctionDef))
    spelled = cst.ensure_type(cst.parse_expression(ast.unparse(call)), cst.Call)
    bound = bind(spelled, signature, receiver=cst.Name("self") if is_method else None)
    if not bound.fits:
        return None
    if argument in call.args:
        position = call.args.index(argument)
        arg = spelled.args[position]
    else:
        keyword = next(keyword.arg for keyword in call.keywords if keyword.value is argument)
        arg = next(arg for arg in spelled.args if arg.keyword is not None and arg.keyword.value == keyword)
    return next((name for name, passed in bound.named.items() if passed is arg and name in signature), None)


def _is_super(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id == "super"


def _parameters(function: Function) -> set[str]:
    arguments = function.args
    every = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg)
    return {arg.arg for arg in every if arg is not None}


def _is_super_init(func: ast.expr) -> bool:
    """`super().__init__` or `super(C, self).__init__`."""
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "__init__"
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
        and func.value.func.id == "super"
    )


def _method(node: ast.ClassDef, name: str) -> Optional[ast.FunctionDef]:
    found = [member for member in node.body if isinstance(member, ast.FunctionDef) and member.name == name]
    return found[0] if len(found) == 1 else None


def _named(function: Function, name: str) -> Iterator[tuple[Optional[ast.Name], Optional[ast.AST], Optional[ast.AST]]]:
    """Each read of `name` in the function's body with its parent and grandparent; (None, None,
    None) once when a nested function, lambda, class or comprehension spells it."""
    pending: list[tuple[ast.AST, Optional[ast.AST], Optional[ast.AST]]] = [(statement, None, None) for statement in function.body]
    while pending:
        node, parent, grandparent = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.comprehension)):
            if any(isinstance(inner, ast.Name) and inner.id == name for inner in ast.walk(node)):
                yield None, None, None
                return
            continue
        if isinstance(node, ast.Name) and node.id == name:
            yield node, parent, grandparent
            continue
        pending.extend((child, node, parent) for child in ast.iter_child_nodes(node))


def _is_builtin(tree: Optional[ast.Module], name: str) -> bool:
    """Nothing in the file binds `name`."""
    if tree is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return False
        if isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == name:
            return False
    return True


def _plain_methods(node: ast.ClassDef) -> Iterator[tuple[ast.FunctionDef, str]]:
    """Each undecorated method with its first parameter, which it never rebinds."""
    for member in node.body:
        if isinstance(member, ast.FunctionDef) and not member.decorator_list:
            parameters = [*member.args.posonlyargs, *member.args.args]
            if parameters and not rebinds(member, parameters[0].arg):
                yield member, parameters[0].arg


def _self_stores(node: ast.ClassDef, attribute: Optional[str] = None) -> Iterator[tuple[ast.Attribute, ast.expr]]:
    """(target, value) of each `self.<attribute> = value` (one target) in the class's plain methods."""
    for method, receiver in _plain_methods(node):
        for inner in _own_nodes(method):
            if isinstance(inner, ast.Assign) and len(inner.targets) == 1:
                target = inner.targets[0]
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == receiver
                    and (attribute is None or target.attr == attribute)
                ):
                    yield target, inner.value


def _own_nodes(function: Function) -> Iterator[ast.AST]:
    """The nodes of the function, not those of the functions, classes and lambdas in it."""
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))


def _is_int_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int
