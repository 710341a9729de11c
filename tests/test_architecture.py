"""The package's layering, checked from its import statements.

- no import cycle between modules (function-local imports count; `if TYPE_CHECKING:` ones do not,
  they never run);
- `gradlint.analysis` imports nothing of gradlint outside itself (type-only imports excepted);
- a rule module never imports another rule module;
- no module imports another module's `_private` name.

Each check is also fed a synthetic violation, so that a check that could never fail is caught.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping

import pytest

from support import ROOT

PACKAGE = "gradlint"


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str  # a module of the package
    names: tuple[str, ...]  # names taken from it (`from m import a, b`); () for `import m`
    type_only: bool
    line: int


def package_sources(root: Path = ROOT / PACKAGE) -> dict[str, str]:
    """Module name -> source, for every module of the package."""
    sources = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        sources[".".join(parts)] = path.read_text(encoding="utf-8")
    return sources


def imports_of(sources: Mapping[str, str]) -> list[Import]:
    found = []
    for module, source in sources.items():
        is_package = f"{module}.__init__" not in sources and any(other.startswith(module + ".") for other in sources)
        for node, type_only in _import_nodes(ast.parse(source)):
            found.extend(_resolve(node, module, is_package, type_only, sources))
    return found


def _import_nodes(tree: ast.AST) -> Iterator[tuple[ast.stmt, bool]]:
    pending: list[tuple[ast.AST, bool]] = [(tree, False)]
    while pending:
        node, type_only = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, type_only
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            pending.extend((child, True) for child in node.body)
            pending.extend((child, type_only) for child in node.orelse)
            continue
        pending.extend((child, type_only) for child in ast.iter_child_nodes(node))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _resolve(node: ast.stmt, module: str, is_package: bool, type_only: bool, sources: Mapping[str, str]) -> list[Import]:
    if isinstance(node, ast.Import):
        return [
            Import(module, _known(alias.name, sources), (), type_only, node.lineno)
            for alias in node.names
            if alias.name.split(".")[0] == PACKAGE
        ]
    base = node.module or ""
    if node.level:
        anchor = module.split(".") if is_package else module.split(".")[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join(anchor + ([base] if base else []))
    if base.split(".")[0] != PACKAGE:
        return []
    found = []
    plain_names = []
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        if submodule in sources:  # `from gradlint.rules import base`
            found.append(Import(module, submodule, (), type_only, node.lineno))
        else:
            plain_names.append(alias.name)
    if plain_names:
        found.append(Import(module, _known(base, sources), tuple(plain_names), type_only, node.lineno))
    return found


def _known(name: str, sources: Mapping[str, str]) -> str:
    """The longest prefix of a dotted name that is a module of the package."""
    parts = name.split(".")
    while parts and ".".join(parts) not in sources:
        parts.pop()
    return ".".join(parts) or name


# -- the checks --------------------------------------------------------------------------------


def cycles(imports: list[Import]) -> list[list[str]]:
    """Every import cycle, each as the list of modules around it (runtime imports only)."""
    graph: dict[str, set[str]] = {}
    for item in imports:
        if not item.type_only and item.imported != item.importer:
            graph.setdefault(item.importer, set()).add(item.imported)
    return [component for component in _strongly_connected(graph) if len(component) > 1]


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    nodes = sorted(set(graph) | {target for targets in graph.values() for target in targets})
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def analysis_upward_imports(imports: list[Import]) -> list[Import]:
    """Runtime imports from `gradlint.analysis` of anything of the package outside it."""
    layer = f"{PACKAGE}.analysis"
    return [item for item in imports if _within(item.importer, layer) and not item.type_only and not _within(item.imported, layer)]


def rule_to_rule_imports(imports: list[Import]) -> list[Import]:
    return [
        item for item in imports if _is_rule_module(item.importer) and _is_rule_module(item.imported) and item.importer != item.imported
    ]


def private_imports(imports: list[Import]) -> list[Import]:
    return [
        item
        for item in imports
        if item.imported != item.importer and any(name.startswith("_") and not name.startswith("__") for name in item.names)
    ]


def _within(module: str, layer: str) -> bool:
    return module == layer or module.startswith(layer + ".")


def _is_rule_module(module: str) -> bool:
    last = module.rsplit(".", 1)[-1]
    return _within(module, f"{PACKAGE}.rules") and last[:2] == "gl" and last[2:5].isdigit()


# -- the package itself ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def package_imports() -> list[Import]:
    return imports_of(package_sources())


def test_the_package_is_read(package_imports):
    importers = {item.importer for item in package_imports}
    assert {"gradlint.engine", "gradlint.context", "gradlint.walker", "gradlint.analysis.training"} <= importers


def test_no_import_cycle(package_imports):
    assert cycles(package_imports) == []


def test_analysis_imports_nothing_above_it(package_imports):
    assert [(i.importer, i.imported, i.line) for i in analysis_upward_imports(package_imports)] == []


def test_no_rule_imports_another_rule(package_imports):
    assert [(i.importer, i.imported) for i in rule_to_rule_imports(package_imports)] == []


def test_no_private_name_crosses_a_module(package_imports):
    assert [(i.importer, i.imported, i.names) for i in private_imports(package_imports)] == []


# -- each check catches a synthetic violation --------------------------------------------------

CLEAN = {
    "gradlint": "",
    "gradlint.context": "from gradlint.analysis import tree\n",
    "gradlint.walker": "from typing import TYPE_CHECKING\nfrom gradlint.analysis.tree import iter_children\n"
    "if TYPE_CHECKING:\n    from gradlint.context import FileContext\n",
    "gradlint.analysis": "",
    "gradlint.analysis.tree": "def iter_children(node):\n    return []\n",
    "gradlint.analysis.training": "from gradlint.analysis.tree import iter_children\nfrom . import tree\n",
    "gradlint.rules": "",
    "gradlint.rules.base": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gradlint.context import FileContext\n",
    "gradlint.rules.gl101_variable_call": "from gradlint.rules.base import Rule\n",
    "gradlint.rules.gl102_volatile_flag": "from ..analysis.tree import iter_children\n",
}


def _with(**changes: str) -> dict[str, str]:
    sources = dict(CLEAN)
    sources.update({name.replace("__", "."): source for name, source in changes.items()})
    return sources


def test_the_clean_synthetic_package_passes():
    imports = imports_of(CLEAN)
    assert (cycles(imports), analysis_upward_imports(imports), rule_to_rule_imports(imports), private_imports(imports)) == ([], [], [], [])


def test_a_cycle_through_a_function_local_import_is_found():
    imports = imports_of(
        _with(
            gradlint__analysis__training="def f():\n    from gradlint.walker import walk\n",
            gradlint__walker="from gradlint.context import X\n",
            gradlint__context="import gradlint.analysis.training\n",
        )
    )
    assert cycles(imports) == [["gradlint.analysis.training", "gradlint.context", "gradlint.walker"]]


def test_a_type_only_import_makes_no_cycle():
    imports = imports_of(
        _with(gradlint__analysis__tree="from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gradlint.context import X\n")
    )
    assert cycles(imports) == []
    assert analysis_upward_imports(imports) == []


def test_an_analysis_module_importing_upward_is_found():
    imports = imports_of(_with(gradlint__analysis__training="from gradlint.rules.base import Rule\n"))
    assert [(i.importer, i.imported) for i in analysis_upward_imports(imports)] == [("gradlint.analysis.training", "gradlint.rules.base")]


def test_a_relative_upward_import_is_found():
    imports = imports_of(_with(gradlint__analysis__training="from .. import walker\n"))
    assert [(i.importer, i.imported) for i in analysis_upward_imports(imports)] == [("gradlint.analysis.training", "gradlint.walker")]


def test_a_rule_importing_a_rule_is_found():
    imports = imports_of(_with(gradlint__rules__gl102_volatile_flag="from gradlint.rules.gl101_variable_call import helper\n"))
    assert [(i.importer, i.imported) for i in rule_to_rule_imports(imports)] == [
        ("gradlint.rules.gl102_volatile_flag", "gradlint.rules.gl101_variable_call")
    ]


def test_a_private_name_import_is_found():
    imports = imports_of(_with(gradlint__rules__gl101_variable_call="from gradlint.analysis.tree import _fields_of, iter_children\n"))
    assert [(i.importer, i.names) for i in private_imports(imports)] == [
        ("gradlint.rules.gl101_variable_call", ("_fields_of", "iter_children"))
    ]


# -- one semantic model: one parent map, one call binder ----------------------------------------
#
# The node index (`analysis.semantic.nodes`) is the one map from a node to its parent, and
# `analysis.semantic.arguments` the one binder of a call's arguments to parameters. Both checks
# read the package's syntax trees; each is also fed a synthetic violation.

SEMANTIC = f"{PACKAGE}.analysis.semantic"


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's own code (not those of the functions and classes in it)."""
    pending = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield node
        pending.extend(ast.iter_child_nodes(node))


def _functions(tree: ast.AST) -> Iterator[ast.AST]:
    yield tree  # the module's own code
    yield from (node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))


def _outside_semantic(sources: Mapping[str, str]) -> Iterator[tuple[str, ast.AST]]:
    for module, source in sources.items():
        if not _within(module, SEMANTIC):
            yield module, ast.parse(source)


def _names_in(node: ast.AST) -> set[str]:
    return {name.id for name in ast.walk(node) if isinstance(name, ast.Name)}


def _keyed_by(key: ast.AST, variables: set[str]) -> bool:
    """`key` is one of `variables`, or `id(...)` of one."""
    if isinstance(key, ast.Call) and isinstance(key.func, ast.Name) and key.func.id == "id" and len(key.args) == 1:
        key = key.args[0]
    return isinstance(key, ast.Name) and key.id in variables


def _children_of(iterable: ast.AST) -> set[str]:
    """The variables whose children `iterable` lists: `node` in `iter_children(node)`,
    `ast.iter_child_nodes(node)`, `node.children`."""
    if isinstance(iterable, ast.Call):
        function = iterable.func
        name = function.id if isinstance(function, ast.Name) else function.attr if isinstance(function, ast.Attribute) else ""
        return set().union(*map(_names_in, iterable.args)) if "child" in name else set()
    if isinstance(iterable, ast.Attribute) and "child" in iterable.attr:
        return _names_in(iterable.value)
    return set()


def parent_maps(sources: Mapping[str, str]) -> list[tuple[str, int]]:
    """(module, line) of each mapping from a child to the node it is a child of, outside the
    semantic package: `parents[id(child)] = node` in a loop `for child in iter_children(node)`,
    or `{id(child): node for child in node.children}`: the key is the loop's variable (or its
    id), the value the node whose children the loop lists (a call or attribute named for them).

    Limits: a map written through `setdefault` / `update`, one whose value is not a plain
    variable, or one built over children listed some other way (`node.body`, a list made
    beforehand) is not seen; nor are ancestor stacks carried along a walk
    (`(child, (*parents, node))`), which hold no map."""
    found = []
    for module, tree in _outside_semantic(sources):
        for node in ast.walk(tree):
            if isinstance(node, (ast.For, ast.AsyncFor)):
                loop_variables, parents = _names_in(node.target), _children_of(node.iter)
                for statement in node.body:
                    for inner in ast.walk(statement):
                        if isinstance(inner, ast.Assign) and any(
                            isinstance(target, ast.Subscript) and _keyed_by(target.slice, loop_variables) for target in inner.targets
                        ):
                            if isinstance(inner.value, ast.Name) and inner.value.id in parents:
                                found.append((module, inner.lineno))
            elif isinstance(node, ast.DictComp):
                for generator in node.generators:
                    if (
                        _keyed_by(node.key, _names_in(generator.target))
                        and isinstance(node.value, ast.Name)
                        and node.value.id in _children_of(generator.iter)
                    ):
                        found.append((module, node.lineno))
    return sorted(set(found))


_PARAMETER_FIELDS = frozenset({"params", "posonly_params", "kwonly_params"})  # of `cst.Parameters`
_ARGUMENT_SEQUENCES = frozenset({"Sequence[cst.Arg]", "list[cst.Arg]", "tuple[cst.Arg, ...]"})


def argument_binders(sources: Mapping[str, str]) -> list[tuple[str, str]]:
    """(module, function) of each function outside the semantic package that matches a call's
    arguments to parameters: its own code reads a call's arguments (`.args`, or a parameter
    typed as a sequence of `cst.Arg`) and either reads a signature's parameters (`.params`,
    `.posonly_params`, `.kwonly_params`) or takes a parameter by an argument's position
    (`names[position]` where `position` counts the arguments: the index of `enumerate` over
    them, or a counter raised in a loop over them; `zip(names, arguments)`).

    Limits: a binder split across functions (one finding the slot of a parameter, another taking
    the argument at that slot) is seen only where one function does both; matching one argument
    by a literal position (`args[0]` or `params=`) is not binding a signature, and is allowed."""
    found = []
    for module, tree in _outside_semantic(sources):
        for function in _functions(tree):
            nodes = list(_own_nodes(function))
            arguments = _argument_variables(function, nodes)
            if not arguments:
                continue
            if any(isinstance(node, ast.Attribute) and node.attr in _PARAMETER_FIELDS for node in nodes) or _by_position(nodes, arguments):
                found.append((module, getattr(function, "name", "<module>")))
    return sorted(set(found))


def _argument_variables(function: ast.AST, nodes: list[ast.AST]) -> set[str]:
    """Names holding a call's arguments, or something built from them, in `function`; empty when
    it reads none. The marker "<args>" stands for a direct `.args` read."""
    arguments = set()
    signature = getattr(function, "args", None)
    if isinstance(signature, ast.arguments):
        for parameter in (*signature.posonlyargs, *signature.args, *signature.kwonlyargs):
            if parameter.annotation is not None and ast.unparse(parameter.annotation) in _ARGUMENT_SEQUENCES:
                arguments.add(parameter.arg)
    if any(isinstance(node, ast.Attribute) and node.attr == "args" for node in nodes):
        arguments.add("<args>")
    if not arguments:
        return arguments
    for node in nodes:  # `positional = [arg for arg in call.args if ...]`
        if isinstance(node, ast.Assign) and _reads_arguments(node.value, arguments):
            arguments |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return arguments


def _reads_arguments(node: ast.AST, arguments: set[str]) -> bool:
    return any(
        (isinstance(inner, ast.Attribute) and inner.attr == "args") or (isinstance(inner, ast.Name) and inner.id in arguments)
        for inner in ast.walk(node)
    )


def _by_position(nodes: list[ast.AST], arguments: set[str]) -> bool:
    positions = set()
    for node in nodes:
        if isinstance(node, (ast.For, ast.comprehension)) and _reads_arguments(node.iter, arguments):
            iterable = node.iter
            if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate":
                if isinstance(node.target, ast.Tuple) and isinstance(node.target.elts[0], ast.Name):
                    positions.add(node.target.elts[0].id)
            for inner in ast.walk(node) if isinstance(node, ast.For) else ():
                if isinstance(inner, ast.AugAssign) and isinstance(inner.target, ast.Name) and isinstance(inner.op, ast.Add):
                    positions.add(inner.target.id)
    for node in nodes:
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id in positions:
            if not (isinstance(node.value, ast.Name) and node.value.id in arguments):
                return True  # another sequence, taken at an argument's position
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "zip":
            if any(_reads_arguments(part, arguments) for part in node.args) and not all(
                _reads_arguments(part, arguments) for part in node.args
            ):
                return True
    return False


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    return package_sources()


def test_one_parent_map(sources):
    assert parent_maps(sources) == []


def test_one_argument_binder(sources):
    assert argument_binders(sources) == []


def test_a_parent_map_outside_the_semantic_package_is_found():
    loop = (
        "def parent_map(root):\n    parents = {}\n    pending = [root]\n    while pending:\n        node = pending.pop()\n"
        "        for child in iter_children(node):\n            parents[id(child)] = node\n            pending.append(child)\n"
        "    return parents\n"
    )
    comprehension = "def parents_of(node):\n    return {child: node for child in node.children}\n"
    placement = (  # a node mapped to the statement it belongs to, not to its parent
        "def units(module):\n    found = {}\n    for statement in module.body:\n        for node in walk(statement):\n"
        "            found[id(node)] = statement\n        for child in iter_children(statement):\n"
        "            found[id(child)] = module\n    return found\n"
    )
    sources = _with(gradlint__analysis__training=loop, gradlint__walker=comprehension, gradlint__context=placement)
    assert parent_maps(sources) == [("gradlint.analysis.training", 7), ("gradlint.walker", 2)]
    assert parent_maps({"gradlint.analysis.semantic.nodes": loop}) == []


def test_an_argument_binder_outside_the_semantic_package_is_found():
    by_parameters = (
        "def argument_for(call, function, name):\n    positional = [*function.params.posonly_params, *function.params.params]\n"
        "    for position, arg in enumerate(call.args):\n        if arg.keyword is None and positional[position].name.value == name:\n"
        "            return arg.value\n"
    )
    by_names = (
        "NAMES = ('data', 'requires_grad')\n\ndef named(call):\n    found = {}\n    for index, arg in enumerate(call.args):\n"
        "        found[arg.keyword.value if arg.keyword else NAMES[index]] = arg\n    return found\n"
    )
    by_counter = (
        "def named(args: Sequence[cst.Arg], parameters):\n    named, position = {}, 0\n    for arg in args:\n"
        "        named[parameters[position]] = arg\n        position += 1\n    return named\n"
    )
    by_zip = "def bind(call, names):\n    positional = [arg for arg in call.args if arg.keyword is None]\n    return dict(zip(names, positional))\n"
    allowed = (  # one argument by a literal position or keyword, and arguments read alone
        "def first(call):\n    for position, arg in enumerate(call.args):\n        if position == 0 or arg.keyword == 'params':\n"
        "            return arg\n\ndef last(call):\n    positional = [arg for arg in call.args]\n    return positional[len(positional) - 1]\n"
    )
    sources = _with(
        gradlint__analysis__training=by_parameters,
        gradlint__analysis__tree=by_names,
        gradlint__walker=by_counter,
        gradlint__context=by_zip,
        gradlint__rules__base=allowed,
    )
    assert argument_binders(sources) == [
        ("gradlint.analysis.training", "argument_for"),
        ("gradlint.analysis.tree", "named"),
        ("gradlint.context", "bind"),
        ("gradlint.walker", "named"),
    ]
    assert argument_binders({"gradlint.analysis.semantic.arguments": by_parameters}) == []
