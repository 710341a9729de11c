"""The package's layering, checked from its import statements.

- no import cycle between modules (function-local imports count; `if TYPE_CHECKING:` ones do not,
  they never run);
- `gradlint.analysis` imports nothing of gradlint outside itself but the data modules (type-only
  imports excepted), and the data modules import nothing of gradlint but each other;
- no import cycle either when type-only imports are counted;
- a rule module never imports another rule module, and the modules of a rule package
  (`rules/glNNN_name/`) are imported by that package only;
- no module of `gradlint.analysis` serves a single rule: such an analysis lives in the rule's package;
- no module imports another module's `_private` name;
- one history evaluator: only `gradlint.analysis.history` answers "is this value free of autograd
  history?" and reads the table's history properties.
- rules and fixes ask the value model what a value is, never the evaluators behind it.

Each check is also fed a synthetic violation, so that a check that could never fail is caught.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator, Mapping, Optional

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
    """Runtime imports from `gradlint.analysis` of anything of the package outside it and the data
    modules below it (`DATA_MODULES`)."""
    layer = f"{PACKAGE}.analysis"
    return [
        item
        for item in imports
        if _within(item.importer, layer) and not item.type_only and not _within(item.imported, layer) and not is_data_module(item.imported)
    ]


def rule_to_rule_imports(imports: list[Import]) -> list[Import]:
    return [
        item
        for item in imports
        if _is_rule_module(item.importer) and _is_rule_module(item.imported) and rule_of(item.importer) != rule_of(item.imported)
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
    """A rule's module, or a module of a rule's package (see `rule_of`)."""
    return rule_of(module) is not None


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


# -- where things belong: the data modules ------------------------------------------------------

# The values that cross layers (`Report`, `Finding`, `ProjectFacts`, and the fix vocabulary a
# report and a finding carry) sit below every layer, the analysis included.
DATA_MODULES = (f"{PACKAGE}.model", f"{PACKAGE}.fix.plan", f"{PACKAGE}.fix.kinds")


def is_data_module(module: str) -> bool:
    return any(_within(module, data) for data in DATA_MODULES)


def data_module_imports(imports: list[Import]) -> list[Import]:
    """Imports (type-only ones too) from a data module of anything of the package but the data modules."""
    return [item for item in imports if is_data_module(item.importer) and not is_data_module(item.imported)]


def cycles_counting_type_only(imports: list[Import]) -> list[list[str]]:
    """Import cycles when `if TYPE_CHECKING:` imports count too: a type that two modules need from
    each other belongs in a module below both."""
    return cycles([replace(item, type_only=False) for item in imports])


def test_the_data_modules_import_nothing_but_each_other(package_imports):
    assert {"gradlint.model", "gradlint.model.project", "gradlint.fix.plan"} <= {item.importer for item in package_imports} | {
        item.imported for item in package_imports
    }
    assert [(i.importer, i.imported, i.line) for i in data_module_imports(package_imports)] == []


def test_no_import_cycle_counting_type_only_imports(package_imports):
    assert cycles_counting_type_only(package_imports) == []


DATA = {
    "gradlint.model": "from gradlint.fix.plan import FixPlan\n",
    "gradlint.model.project": "from dataclasses import dataclass\n",
    "gradlint.fix": "",
    "gradlint.fix.plan": "import libcst\n",
    "gradlint.analysis.imports": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gradlint.model.project import ProjectFacts\n",
    "gradlint.analysis.project": "from gradlint.model.project import ProjectFacts\nfrom gradlint.analysis.imports import X\n",
}


def test_the_clean_synthetic_data_modules_pass():
    imports = imports_of(_with(**{name.replace(".", "__"): source for name, source in DATA.items()}))
    assert (data_module_imports(imports), analysis_upward_imports(imports), cycles_counting_type_only(imports)) == ([], [], [])


def test_a_data_module_importing_a_layer_is_found():
    data = {name.replace(".", "__"): source for name, source in DATA.items()}
    imports = imports_of(
        _with(
            **{**data, "gradlint__model": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gradlint.rules.base import Rule\n"}
        )
    )
    assert [(i.importer, i.imported) for i in data_module_imports(imports)] == [("gradlint.model", "gradlint.rules.base")]


def test_an_analysis_module_importing_a_layer_beside_the_data_is_still_found():
    data = {name.replace(".", "__"): source for name, source in DATA.items()}
    imports = imports_of(
        _with(**{**data, "gradlint__analysis__project": "from gradlint.model.project import P\nfrom gradlint.context import C\n"})
    )
    assert [(i.importer, i.imported) for i in analysis_upward_imports(imports)] == [("gradlint.analysis.project", "gradlint.context")]


def test_a_type_only_cycle_is_found():
    imports = imports_of(
        _with(
            gradlint__rules__base="from gradlint.model import Report\nfrom typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from gradlint.context import FileContext\n",
            gradlint__context="from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gradlint.rules.base import Report\n",
        )
    )
    assert cycles(imports) == []
    assert cycles_counting_type_only(imports) == [["gradlint.context", "gradlint.rules.base"]]


# -- where things belong: rule packages, and analyses that serve one rule ----------------------
#
# A rule with an analysis of its own is a package `rules/glNNN_name/`: the rule in `rule.py`, its
# analysis beside it. `gradlint.analysis` keeps the facts two or more rules (or other layers) use.

RULES = f"{PACKAGE}.rules"
ANALYSIS = f"{PACKAGE}.analysis"
CONTEXT = f"{PACKAGE}.context"


def rule_of(module: str) -> Optional[str]:
    """The rule a module belongs to: `gradlint.rules.glNNN_name` for that module, and for every
    module of that package; None outside the rules."""
    if not _within(module, RULES):
        return None
    parts = module.split(".")
    if len(parts) < 3 or not (parts[2][:2] == "gl" and parts[2][2:5].isdigit()):
        return None
    return ".".join(parts[:3])


def rule_package_leaks(imports: list[Import]) -> list[Import]:
    """Imports of a module inside a rule's package (`rules/glNNN_name/amp.py`) from outside that package."""
    return [
        item for item in imports if rule_of(item.imported) not in (None, item.imported) and rule_of(item.importer) != rule_of(item.imported)
    ]


def context_members(sources: Mapping[str, str], imports: list[Import]) -> dict[str, frozenset[str]]:
    """Each member of `FileContext` -> the analysis modules its answer is built from, directly or
    through other members (`self.training` inside `parameter_flow`)."""
    module_of = {
        name: item.imported for item in imports if item.importer == CONTEXT and _within(item.imported, ANALYSIS) for name in item.names
    }
    tree = ast.parse(sources.get(CONTEXT, ""))
    bodies = {
        member.name: member
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.name == "FileContext"
        for member in node.body
        if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    direct: dict[str, set[str]] = {}
    calls: dict[str, set[str]] = {}
    for name, body in bodies.items():
        nodes = list(ast.walk(body))
        direct[name] = {module_of[node.id] for node in nodes if isinstance(node, ast.Name) and node.id in module_of}
        calls[name] = {
            node.attr for node in nodes if isinstance(node, ast.Attribute) and _names(node.value, "self") and node.attr in bodies
        }
    members = {}
    for name in bodies:
        seen, pending, found = {name}, [name], set()
        while pending:
            current = pending.pop()
            found |= direct[current]
            pending.extend(calls[current] - seen)
            seen |= calls[current]
        members[name] = frozenset(found)
    return members


def context_members_used(source: str, members: Mapping[str, frozenset[str]]) -> set[str]:
    """The `FileContext` members a module asks for: `self.context.amp`, `context.is_tensor(...)`."""
    return {
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr in members and (_names(node.value, "context") or _attribute(node.value, "context"))
    }


def _names(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _attribute(node: ast.expr, attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr


def analysis_users(sources: Mapping[str, str], imports: list[Import]) -> dict[str, set[str]]:
    """Each analysis module -> who uses it. A use is an import (type-only ones too) by a module
    other than `gradlint.context`, or a question to a `FileContext` member built from the module;
    the modules of one rule (its module, or every module of its package) count as that rule."""
    users: dict[str, set[str]] = {module: set() for module in sources if _within(module, ANALYSIS) and module != ANALYSIS}
    for item in imports:
        if item.imported in users and item.importer not in (CONTEXT, item.imported):
            users[item.imported].add(rule_of(item.importer) or item.importer)
    members = context_members(sources, imports)
    for module, source in sources.items():
        if module == CONTEXT:
            continue
        for member in context_members_used(source, members):
            for analysis in members[member]:
                if analysis != module:
                    users[analysis].add(rule_of(module) or module)
    return users


def analyses_of_one_rule(sources: Mapping[str, str], imports: list[Import]) -> dict[str, str]:
    """Analysis module -> the one rule that uses it (nothing else of the package does)."""
    return {
        module: next(iter(found))
        for module, found in analysis_users(sources, imports).items()
        if len(found) == 1 and rule_of(next(iter(found))) is not None
    }


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    return package_sources()


def test_every_rule_module_and_package_is_recognised(sources):
    rules = {rule_of(module) for module in sources} - {None}
    assert len(rules) >= 60 and f"{RULES}.gl604_amp_step_order" in rules and f"{RULES}.gl101_variable_call" in rules


def test_the_context_members_are_traced_to_their_analyses(sources, package_imports):
    members = context_members(sources, package_imports)
    assert members["training"] >= {f"{ANALYSIS}.training"}
    assert f"{ANALYSIS}.optimizers" not in members["parameter_flow"] and f"{ANALYSIS}.training" in members["parameter_flow"]
    assert f"{ANALYSIS}.tensors" in members["is_tensor"]


def test_no_analysis_serves_a_single_rule(sources, package_imports):
    assert analyses_of_one_rule(sources, package_imports) == {}


def test_a_rule_package_is_imported_by_its_own_modules_only(package_imports):
    assert [(i.importer, i.imported) for i in rule_package_leaks(package_imports)] == []


# A rule package and a shared analysis, as `_with` extends CLEAN.
PACKAGED = {
    "gradlint__analysis__samplers": "class SamplerEvidence:\n    pass\n",
    "gradlint__context": "from functools import cached_property\nfrom gradlint.analysis.samplers import SamplerEvidence\n"
    "class FileContext:\n    @cached_property\n    def samplers(self):\n        return SamplerEvidence()\n"
    "    def loaders(self):\n        return self.samplers.loaders\n",
    "gradlint__rules__gl604_amp_step_order": "",
    "gradlint__rules__gl604_amp_step_order__amp": "from gradlint.analysis.tree import iter_children\n",
    "gradlint__rules__gl604_amp_step_order__rule": "from gradlint.rules.base import Rule\nfrom gradlint.rules.gl604_amp_step_order.amp import A\n"
    "from . import amp\n",
    "gradlint__rules__gl605_sampler_rule": "class R:\n    def visit_For(self, node):\n        return self.context.loaders()\n",
    "gradlint__rules__gl606_other_rule": "from gradlint.analysis.samplers import SamplerEvidence\n",
}


def _packaged(**changes: str) -> tuple[dict[str, str], list[Import]]:
    sources = _with(**{**PACKAGED, **changes})
    return sources, imports_of(sources)


def test_the_clean_synthetic_rule_package_passes():
    sources, imports = _packaged()
    assert (rule_to_rule_imports(imports), rule_package_leaks(imports), analyses_of_one_rule(sources, imports)) == ([], [], {})
    assert analysis_users(sources, imports)["gradlint.analysis.samplers"] == {
        "gradlint.rules.gl605_sampler_rule",
        "gradlint.rules.gl606_other_rule",
    }


def test_an_analysis_imported_by_one_rule_is_found():
    sources, imports = _packaged(gradlint__rules__gl605_sampler_rule="")
    assert analyses_of_one_rule(sources, imports) == {"gradlint.analysis.samplers": "gradlint.rules.gl606_other_rule"}


def test_an_analysis_asked_through_the_context_by_one_rule_is_found():
    sources, imports = _packaged(gradlint__rules__gl606_other_rule="")
    assert analyses_of_one_rule(sources, imports) == {"gradlint.analysis.samplers": "gradlint.rules.gl605_sampler_rule"}


def test_an_analysis_one_rule_uses_from_two_of_its_modules_is_found():
    sources, imports = _packaged(
        gradlint__rules__gl605_sampler_rule="",
        gradlint__rules__gl606_other_rule="",
        gradlint__rules__gl604_amp_step_order__amp="from gradlint.analysis.samplers import S\n",
    )
    assert analyses_of_one_rule(sources, imports) == {"gradlint.analysis.samplers": "gradlint.rules.gl604_amp_step_order"}


def test_an_analysis_shared_with_another_analysis_is_not_reported():
    sources, imports = _packaged(
        gradlint__rules__gl605_sampler_rule="", gradlint__analysis__training="from gradlint.analysis import samplers\n"
    )
    assert analyses_of_one_rule(sources, imports) == {}


def test_a_rule_importing_another_rules_package_is_found():
    _, imports = _packaged(gradlint__rules__gl606_other_rule="from gradlint.rules.gl604_amp_step_order.amp import A\n")
    assert [(i.importer, i.imported) for i in rule_to_rule_imports(imports)] == [
        ("gradlint.rules.gl606_other_rule", "gradlint.rules.gl604_amp_step_order.amp")
    ]
    assert [(i.importer, i.imported) for i in rule_package_leaks(imports)] == [
        ("gradlint.rules.gl606_other_rule", "gradlint.rules.gl604_amp_step_order.amp")
    ]


def test_a_packaged_rule_importing_another_rule_is_found():
    _, imports = _packaged(gradlint__rules__gl604_amp_step_order__rule="from gradlint.rules.gl101_variable_call import helper\n")
    assert [(i.importer, i.imported) for i in rule_to_rule_imports(imports)] == [
        ("gradlint.rules.gl604_amp_step_order.rule", "gradlint.rules.gl101_variable_call")
    ]


def test_the_context_importing_a_rules_analysis_is_found():
    _, imports = _packaged(gradlint__context="from gradlint.rules.gl604_amp_step_order.amp import AmpAnalysis\n")
    assert [(i.importer, i.imported) for i in rule_package_leaks(imports)] == [
        ("gradlint.context", "gradlint.rules.gl604_amp_step_order.amp")
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
    """As a rule class assigns them, or as the generated catalog records them (`RuleInfo(triggers=...)`)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in _PREFILTER_DECLARATIONS for t in node.targets):
            yield node.value
        elif isinstance(node, ast.keyword) and node.arg in _PREFILTER_DECLARATIONS:
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


# -- one history evaluator ------------------------------------------------------------------------
#
# "Does this value carry autograd history?" is answered once: the history proof
# (`analysis.history`) says which values provably carry none, and it alone reads the table's
# history properties (`torch_api.methods("ends")`, `methods("keeps")`, `functions("ends")`), for
# itself and for the evident history of `analysis.grad_tracking`, which imports them. Elsewhere a
# function named for history-freedom may only ask the proof (`context.history.is_history_free`).

HISTORY = f"{ANALYSIS}.history"
_HISTORY_FREE_NAME = re.compile(r"history_free|graph_free")
_HISTORY_PROPERTIES = {"methods": frozenset({"ends", "keeps"}), "functions": frozenset({"ends"})}


def history_evaluators(sources: Mapping[str, str]) -> list[tuple[str, str]]:
    """(module, function) of each function outside the history proof named for history-freedom
    (`is_graph_free`, `_history_free_name`) that does not ask the proof's `is_history_free`: a
    second evaluator rather than a view of the one answer.

    Limits: an evaluator under another name (`has_no_graph`) is not seen; the table check below
    catches one that reads the table's history properties."""
    found = []
    for module, source in sources.items():
        if module == HISTORY:
            continue
        for function in ast.walk(ast.parse(source)):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and _HISTORY_FREE_NAME.search(function.name):
                if not any(isinstance(node, ast.Call) and _attribute(node.func, "is_history_free") for node in ast.walk(function)):
                    found.append((module, function.name))
    return sorted(found)


def history_property_reads(sources: Mapping[str, str]) -> list[tuple[str, int]]:
    """(module, line) of each query of the table's history properties outside the history proof
    and the table itself: a call of `methods` or `functions` (through `torch_api` or imported
    from it) naming "ends" or "keeps" among its words or in `without=`."""
    found = []
    for module, source in sources.items():
        if module == HISTORY or _within(module, TORCH_API_PACKAGE):
            continue
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.Call):
                continue
            function = node.func
            query = function.attr if isinstance(function, ast.Attribute) else function.id if isinstance(function, ast.Name) else ""
            words = [*node.args, *(keyword.value for keyword in node.keywords if keyword.arg == "without")]
            if set(_query_words(words)) & _HISTORY_PROPERTIES.get(query, frozenset()):
                found.append((module, node.lineno))
    return sorted(found)


def _query_words(nodes: list[ast.expr]) -> list[str]:
    words = []
    for node in nodes:
        for inner in ast.walk(node):
            if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                words.append(inner.value)
    return words


def test_one_history_evaluator(sources):
    assert history_evaluators(sources) == []


def test_the_table_history_properties_are_read_by_the_history_proof_only(sources):
    assert history_property_reads(sources) == []


def test_a_second_history_evaluator_is_found():
    second = (
        "class GradEvidence:\n    def is_graph_free(self, node, scope, depth=0):\n"
        "        return isinstance(node, cst.Integer) or self._graph_free_name(node, scope, depth)\n"
        "    def _graph_free_name(self, node, scope, depth):\n        return self.is_graph_free(node.value, scope, depth + 1)\n"
    )
    view = (  # asks the one answer, with what only this caller knows
        "def _graph_free(context, value, scope):\n    def free(node):\n"
        "        return context.history.is_history_free(node, scope) or fresh_state(node)\n    return free(value)\n"
    )
    sources = _with(
        gradlint__analysis__grad_tracking=second,
        gradlint__rules__gl999_example="def value_is_history_free(node):\n    return node is None\n",
        gradlint__fix__no_grad=view,
        gradlint__context="class FileContext:\n    def is_history_free(self, node):\n        return self.history.is_history_free(node, self.scope())\n",
        gradlint__analysis__history="class HistoryEvidence:\n    def is_history_free(self, node, scope):\n        return _Proof(self, scope).free(node, 0)\n",
    )
    assert history_evaluators(sources) == [
        ("gradlint.analysis.grad_tracking", "_graph_free_name"),
        ("gradlint.analysis.grad_tracking", "is_graph_free"),
        ("gradlint.rules.gl999_example", "value_is_history_free"),
    ]


def test_the_table_history_properties_read_outside_the_history_proof_are_found():
    sources = _with(
        gradlint__analysis__grad_tracking='ENDS = torch_api.methods("ends")\nKEEPS = torch_api.methods("keeps")\n',
        gradlint__rules__gl999_example="from gradlint.analysis.torch_api import functions, methods\n"
        'NONE = functions("ends")\nOTHERS = methods("view", without=("keeps",))\n',
        gradlint__analysis__data_attr='PLAIN = torch_api.methods("detaches") | torch_api.functions("keeps") | torch_api.attributes("ends")\n',
        gradlint__analysis__history='ENDS = torch_api.methods("ends")\nNONE = torch_api.functions("ends")\n',
        gradlint__analysis__torch_api='def methods(*words):\n    return select("ends", words)\n',
    )
    assert history_property_reads(sources) == [
        ("gradlint.analysis.grad_tracking", 1),
        ("gradlint.analysis.grad_tracking", 2),
        ("gradlint.rules.gl999_example", 2),
        ("gradlint.rules.gl999_example", 3),
    ]


# -- rules ask the value model what a value is --------------------------------------------------
#
# "Is it a tensor, a number, 0-dim, does it carry history, what is its shape" is answered by the
# value model (`gradlint.analysis.values`, asked through `FileContext`). A rule or a fix that imports
# the evaluators behind it answers it a second way. The waivers are names of those modules that say
# nothing about what a value is, each with the reason it stays.

VALUE_EVALUATORS = tuple(f"{ANALYSIS}.{name}" for name in ("tensors", "scalars", "shapes", "grad_tracking", "history"))
VALUE_ASKERS = (RULES, f"{PACKAGE}.fix")
VALUE_IMPORT_WAIVERS = {
    (
        f"{ANALYSIS}.grad_tracking",
        "ends_history",
    ): "the syntax of a detaching call (`.detach()`, `.data`), asked of expressions without a scope",
    (f"{ANALYSIS}.grad_tracking", "mentioned_names"): "syntax: the names an expression reads",
    (f"{ANALYSIS}.history", "returns_receiver"): "identity: whether a method hands back its receiver object",
    (f"{ANALYSIS}.history", "KEEPS_HISTORY"): "a table property (methods keeping their receiver's history), read through its one reader",
    (f"{ANALYSIS}.shapes", "legacy_softmax_dim"): "a fact of torch 0.3's API: the dim an implicit softmax took for a rank",
    (f"{ANALYSIS}.tensors", "root_name"): "syntax: the name an attribute chain starts from",
    (f"{ANALYSIS}.tensors", "NON_TENSOR_ROOTS"): "names of configuration objects (`args`, `cfg`), whose attributes GL405 leaves alone",
    (f"{ANALYSIS}.scalars", "Accumulator"): "the type of GL103's answer from the legacy-read analysis (`analysis.data_attr`)",
    (f"{ANALYSIS}.scalars", "Kind"): "the type of GL103's answer from the legacy-read analysis (`analysis.data_attr`)",
}


def value_evaluator_imports(imports: list[Import]) -> list[tuple[str, str, str]]:
    """(importer, evaluator module, name) of each import by a rule or fix of a value evaluator or
    of a name from one, waivers aside; a whole-module import counts with the name "*"."""
    found = []
    for item in imports:
        if not any(_within(item.importer, asker) for asker in VALUE_ASKERS) or item.imported not in VALUE_EVALUATORS:
            continue
        for name in item.names or ("*",):
            if (item.imported, name) not in VALUE_IMPORT_WAIVERS:
                found.append((item.importer, item.imported, name))
    return sorted(found)


def value_waivers_in_use(imports: list[Import]) -> set[tuple[str, str]]:
    return {
        (item.imported, name)
        for item in imports
        if any(_within(item.importer, asker) for asker in VALUE_ASKERS)
        for name in item.names
        if (item.imported, name) in VALUE_IMPORT_WAIVERS
    }


def test_rules_ask_the_value_model_what_a_value_is(package_imports):
    assert value_evaluator_imports(package_imports) == []


def test_every_value_import_waiver_is_still_needed(package_imports):
    assert sorted(set(VALUE_IMPORT_WAIVERS) - value_waivers_in_use(package_imports)) == [], "remove the waivers of these names"


def test_a_rule_importing_a_value_evaluator_is_found():
    imports = imports_of(
        _with(
            gradlint__analysis__tensors="class TensorEvidence:\n    pass\n",
            gradlint__analysis__grad_tracking="def ends_history(node):\n    return False\n",
            gradlint__rules__gl101_variable_call="from gradlint.analysis.tensors import TensorEvidence\n"
            "from gradlint.analysis.grad_tracking import ends_history\n",
            gradlint__rules__gl102_volatile_flag="from ..analysis import tensors\n",
            gradlint__fix="",
            gradlint__fix__no_grad="import gradlint.analysis.tensors\n",
        )
    )
    assert value_evaluator_imports(imports) == [
        ("gradlint.fix.no_grad", "gradlint.analysis.tensors", "*"),
        ("gradlint.rules.gl101_variable_call", "gradlint.analysis.tensors", "TensorEvidence"),
        ("gradlint.rules.gl102_volatile_flag", "gradlint.analysis.tensors", "*"),
    ]
    assert value_waivers_in_use(imports) == {("gradlint.analysis.grad_tracking", "ends_history")}


# Nor do they reach the evaluators through `FileContext`: `context.tensors` and `context.scalars`
# are asked by the value model only. The waived rules ask the grad and history evidence questions
# that are not about what a value is, each with the reason.

VALUE_EVALUATOR_MEMBERS = ("tensors", "scalars", "grads", "history")
VALUE_MEMBER_WAIVERS = {
    (f"{RULES}.gl402_backward_without_graph", "grads"): "how a loss's graph was cut, built without grad or turned back on",
    (f"{RULES}.gl609_graph_severed_before_backward", "grads"): "how a loss's graph was cut, built without grad or turned back on",
}


def value_evaluator_members(sources: Mapping[str, str]) -> list[tuple[str, str]]:
    """(rule or module, member) of each `context.<evaluator>` a rule or fix reaches, waivers aside."""
    found = set()
    for module, source in sources.items():
        if not any(_within(module, asker) for asker in VALUE_ASKERS):
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Attribute) and node.attr in VALUE_EVALUATOR_MEMBERS:
                if _names(node.value, "context") or _attribute(node.value, "context"):
                    found.add((rule_of(module) or module, node.attr))
    return sorted(found)


def test_rules_reach_no_value_evaluator_through_the_context(sources):
    assert [found for found in value_evaluator_members(sources) if found not in VALUE_MEMBER_WAIVERS] == []


def test_every_value_member_waiver_is_still_needed(sources):
    assert sorted(set(VALUE_MEMBER_WAIVERS) - set(value_evaluator_members(sources))) == [], "remove the waivers of these rules"


def test_a_rule_asking_an_evaluator_through_the_context_is_found():
    sources = _with(
        gradlint__rules__gl101_variable_call="class R:\n    def visit_Call(self, node):\n        return self.context.tensors.is_tensor(node, None)\n",
        gradlint__rules__gl604_amp_step_order="",
        gradlint__rules__gl604_amp_step_order__amp="def judge(context, node):\n    return context.scalars.is_scalar(node, None)\n",
        gradlint__rules__gl102_volatile_flag="class R:\n    def visit_Call(self, node):\n        return self.context.values.is_tensor(node, None)\n",
    )
    assert value_evaluator_members(sources) == [
        ("gradlint.rules.gl101_variable_call", "tensors"),
        ("gradlint.rules.gl604_amp_step_order", "scalars"),
    ]
