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


# -- torch API names are listed once, in the API table ---------------------------------------------
#
# A set, tuple, list or dict literal (a dict by its keys) outside `gradlint.analysis.torch_api` with
# at least three strings of which at least three are names the table records (tensor methods,
# `nn.Module` methods, torch functions and classes, qualified or by their last name, and the APIs of
# the migration tables) is a second list of torch's API: its knowledge belongs in the table.
#
# Limits: names that are also Python builtins (`int`, `sum`, `max`...) and tensor attribute names
# (`shape`, `dtype`: keyword names too) do not count, so a list of them is not seen; nor is a list of
# names the table does not record, a list of two, or one built other than as a literal (from a
# comprehension over another list, by splitting a string). A rule's `triggers` and
# `also_required` are exempt: they are words of a file's text for the prefilter, not API knowledge.

TORCH_API_PACKAGE = "gradlint.analysis.torch_api"
_LIST_MINIMUM = 3
_PREFILTER_DECLARATIONS = ("triggers", "also_required")


def torch_api_names() -> frozenset[str]:
    import builtins

    from gradlint.analysis import torch_api

    return torch_api.recorded_names() - set(dir(builtins)) - set(torch_api.ATTRIBUTES)


def torch_api_lists(sources: Mapping[str, str], known: frozenset[str]) -> list[tuple[str, int, tuple[str, ...]]]:
    """(module, line, the table's names it lists) of each literal listing torch API outside the table."""
    found = []
    for module, source in sources.items():
        if module == TORCH_API_PACKAGE or module.startswith(TORCH_API_PACKAGE + "."):
            continue
        tree = ast.parse(source)
        exempt = {id(node) for declaration in _prefilter_declarations(tree) for node in ast.walk(declaration)}
        for node in ast.walk(tree):
            strings = [] if id(node) in exempt else _literal_strings(node)
            names = tuple(s for s in strings if s in known)
            if len(strings) >= _LIST_MINIMUM and len(names) >= _LIST_MINIMUM:
                found.append((module, node.lineno, names))
    return sorted(found)


def _prefilter_declarations(tree: ast.AST) -> Iterator[ast.expr]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in _PREFILTER_DECLARATIONS for t in node.targets):
            yield node.value


def _literal_strings(node: ast.AST) -> list[str]:
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        elements = node.elts
    elif isinstance(node, ast.Dict):
        elements = [key for key in node.keys if key is not None]
    else:
        return []
    return [e.value for e in elements if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def test_no_torch_api_list_outside_the_table():
    assert torch_api_lists(package_sources(), torch_api_names()) == []


def test_the_table_knows_the_names_the_check_counts():
    known = torch_api_names()
    assert {"detach", "add_", "torch.zeros", "zeros", "torch.nn.functional.softmax", "parameters", "solve", "torch.gesv"} <= known
    assert not {"int", "sum", "max", "shape", "dtype", "append"} & known


def test_a_list_of_tensor_methods_outside_the_table_is_found():
    sources = {"gradlint.analysis.history": 'ENDS = frozenset({"detach", "item", "argmax", "len"})\n'}
    assert torch_api_lists(sources, torch_api_names()) == [("gradlint.analysis.history", 1, ("detach", "item", "argmax"))]


def test_torch_functions_as_dict_keys_or_last_names_are_found():
    sources = {
        "gradlint.rules.gl999_example": 'KINDS = {"torch.randn": 1, "torch.zeros": 2, "torch.nn.functional.softmax": 3}\n'
        'SHORT = ("randn", "zeros", "arange")\n'
    }
    assert [line for _, line, _ in torch_api_lists(sources, torch_api_names())] == [1, 2]


def test_builtins_attributes_pairs_prefilter_words_and_the_table_itself_are_not_lists():
    sources = {
        "gradlint.analysis.example": 'NUMBERS = {"int", "float", "sum", "max"}\nMETA = ("shape", "dtype", "device")\n'
        'PAIR = ("detach", "item")\n'
        'class Rule:\n    triggers = ("detach", "item", "argmax")\n',
        "gradlint.analysis.torch_api.method_table": 'ROWS = ("detach", "item", "argmax")\n',
    }
    assert torch_api_lists(sources, torch_api_names()) == []
