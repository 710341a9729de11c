"""Where the installed torch says something is deprecated: a static scan of its sources.

    python bench/deprecations/harvest.py            # writes bench/deprecations/scan.json
    python bench/deprecations/harvest.py --check    # scan sites that neither catalog covers

The scan reads (never imports) every `.py` file of the installed `torch` and `functorch` and lists:
- each warning call (`warnings.warn`, `warn`, `warn_once`, `_warn_typed_storage_removal`, a logger's
  `warning`, ...) whose category is DeprecationWarning, FutureWarning or PendingDeprecationWarning,
  or whose message says deprecated / "will be removed" / "no longer" / "instead";
- each `@deprecated(...)`-like decorator or wrapper call (`typing_extensions.deprecated`,
  `torch._utils._deprecated`, ...);
- each `.. deprecated::` note of a docstring (documented deprecations that may not warn);
and, as text, the deprecation messages compiled into torch's shared libraries (TORCH_WARN,
TORCH_WARN_DEPRECATION), found with `strings`.

A site is "torch/x/y.py:123" (the path under site-packages) or "torch/lib/libtorch_cpu.so" for a
library message. A warning call outside any function is marked `on_import`: the module warns
when it is imported. `--check` lists the sites that no catalog record names in its `source` and
that no catalog's `EXCLUDED` explains.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator, Optional

HERE = Path(__file__).resolve().parent
SCAN = HERE / "scan.json"
PACKAGES = ("torch", "functorch")
DEPRECATION_CATEGORIES = ("DeprecationWarning", "FutureWarning", "PendingDeprecationWarning")
DEPRECATION_TEXT = re.compile(r"deprecat|will be removed|no longer|instead", re.IGNORECASE)
# Final names of the calls that emit a warning.
WARNING_CALLS = frozenset(
    {"warn", "warn_once", "_warn_once", "warning", "warning_once", "_warn_typed_storage_removal", "warn_deprecated", "_warn_deprecated"}
)
# Final names of the decorators (or wrappers) that mark a callable deprecated.
DEPRECATION_DECORATORS = frozenset({"deprecated", "_deprecated", "deprecate", "_deprecate", "deprecated_function"})
LIBRARIES = ("libtorch_cpu.so", "libtorch_python.so", "libtorch.so", "libc10.so")
LIBRARY_TEXT = re.compile(r"deprecat|will be removed", re.IGNORECASE)


@dataclass(frozen=True)
class Site:
    site: str  # "torch/x/y.py:123", or the library for a compiled message
    qualname: str  # the enclosing module, class and function: "torch.nn.utils.weight_norm.weight_norm"
    kind: str  # "warning", "decorator", "docstring" or "library"
    category: str  # the warning category as written ("FutureWarning"), "" when not given
    message: str  # the message, f-string holes shown as {...}
    on_import: bool = False  # a warning outside any function: the module warns when imported


def site_packages() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise SystemExit("torch is not installed in this interpreter")
    return Path(spec.origin).resolve().parent.parent


def final_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return final_name(node.func)
    return ""


def text_of(node: Optional[ast.expr]) -> str:
    """The message a string expression spells, holes as {...}; other expressions as source."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{...}" for part in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return text_of(node.left) + (text_of(node.right) if isinstance(node.op, ast.Add) else "")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("format", "strip", "replace"):
        return text_of(node.func.value)
    return ast.unparse(node)


def keyword(call: ast.Call, name: str) -> Optional[ast.expr]:
    return next((item.value for item in call.keywords if item.arg == name), None)


class Scanner(ast.NodeVisitor):
    """The deprecation sites of one module, each with its enclosing qualified name."""

    def __init__(self, module: str, path: str, strings: dict[str, str]) -> None:
        self.module = module
        self.path = path
        self.scope: list[str] = []
        self.functions = 0
        self.strings = strings  # module-level string constants, for messages held in a name
        self.sites: list[Site] = []

    def qualname(self) -> str:
        return ".".join([self.module, *self.scope])

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.decorators(node)
        self.docstring(node)
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.decorators(node)
        self.docstring(node)
        self.scope.append(node.name)
        self.functions += 1
        self.generic_visit(node)
        self.functions -= 1
        self.scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def decorators(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and final_name(decorator.func) in DEPRECATION_DECORATORS:
                message = text_of(decorator.args[0]) if decorator.args else ""
                category = keyword(decorator, "category")
                self.add(
                    decorator,
                    "decorator",
                    ast.unparse(category) if category is not None else "DeprecationWarning",
                    message,
                    f".{node.name}",
                )

    def docstring(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef | ast.Module) -> None:
        text = ast.get_docstring(node, clean=False) or ""
        match = re.search(r"\.\. (?:deprecated|warning)::\s*(.*(?:\n.*){0,3})", text)
        if match and (match.group(0).startswith(".. deprecated") or re.search(r"deprecat", match.group(1), re.IGNORECASE)):
            body = " ".join(match.group(1).split())
            suffix = "" if isinstance(node, ast.Module) else f".{node.name}"
            anchor = node.body[0] if not isinstance(node, ast.Module) and node.body else node
            self.add(anchor, "docstring", "", body[:300], suffix)

    def visit_Call(self, node: ast.Call) -> None:
        name = final_name(node.func)
        if name in WARNING_CALLS:
            self.warning(node)
        elif name in DEPRECATION_DECORATORS and node.args and isinstance(node.args[0], (ast.Constant, ast.JoinedStr)):
            # `f = deprecated("...")(g)` and the like, outside a decorator list.
            self.add(node, "decorator", "DeprecationWarning", text_of(node.args[0]))
        self.generic_visit(node)

    def warning(self, node: ast.Call) -> None:
        message_node = node.args[0] if node.args else keyword(node, "message") or keyword(node, "msg")
        if isinstance(message_node, ast.Name) and message_node.id in self.strings:
            message = self.strings[message_node.id]
        else:
            message = text_of(message_node)
        category_node = node.args[1] if len(node.args) > 1 else keyword(node, "category")
        category = ast.unparse(category_node) if category_node is not None else ""
        if final_name(node.func) == "_warn_typed_storage_removal":
            category, message = "UserWarning", message or "TypedStorage is deprecated"
        deprecating = any(category.endswith(name) for name in DEPRECATION_CATEGORIES)
        if deprecating or DEPRECATION_TEXT.search(message):
            self.add(node, "warning", category, message, on_import=self.functions == 0)

    def add(self, node: ast.AST, kind: str, category: str, message: str, suffix: str = "", on_import: bool = False) -> None:
        line = getattr(node, "lineno", 1)
        if any(site.site == f"{self.path}:{line}" for site in self.sites[-3:]):
            return  # a decorator call is visited once more as a call
        self.sites.append(Site(f"{self.path}:{line}", self.qualname() + suffix, kind, category, " ".join(message.split()), on_import))


def module_strings(tree: ast.Module) -> dict[str, str]:
    """Module-level `NAME = "..."` constants (messages are sometimes kept in one)."""
    found = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            if isinstance(statement.value, (ast.Constant, ast.JoinedStr)):
                found[statement.targets[0].id] = text_of(statement.value)
    return found


def scan_file(root: Path, path: Path) -> list[Site]:
    relative = path.relative_to(root).as_posix()
    module = relative[: -len(".py")].replace("/", ".").removesuffix(".__init__")
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []
    scanner = Scanner(module, relative, module_strings(tree))
    scanner.docstring(tree)
    scanner.visit(tree)
    return scanner.sites


def python_sites(root: Path) -> Iterator[Site]:
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "/testing/_internal/" in path.as_posix() or "/_vendor/" in path.as_posix():
                continue  # torch's own test helpers and vendored third-party code
            yield from scan_file(root, path)


def library_sites(root: Path) -> Iterator[Site]:
    """Deprecation messages compiled into torch's libraries (TORCH_WARN and the like)."""
    if shutil.which("strings") is None:
        return
    for library in LIBRARIES:
        path = root / "torch" / "lib" / library
        if not path.exists():
            continue
        output = subprocess.run(["strings", "-n", "12", str(path)], capture_output=True, text=True, check=False).stdout
        seen = set()
        for line in output.splitlines():
            text = " ".join(line.split())
            if LIBRARY_TEXT.search(text) and " " in text and text not in seen and not text.startswith(("_Z", "/")):
                seen.add(text)
                yield Site(f"torch/lib/{library}", "", "library", "", text[:400])


def scan(root: Path) -> list[Site]:
    return [*python_sites(root), *library_sites(root)]


def catalog_coverage() -> tuple[set[str], dict[str, str]]:
    """The sites the catalogs' records name (`source`, several separated by ", ") and their EXCLUDED."""
    sys.path.insert(0, str(HERE.parent.parent))
    from bench.deprecations.probe import load_catalogs

    covered: set[str] = set()
    excluded: dict[str, str] = {}
    for module in load_catalogs():
        for record in module.RECORDS:
            covered.update(part.strip() for part in re.split(r"[,;]\s*", record.source) if part.strip())
        excluded.update(getattr(module, "EXCLUDED", {}))
    return covered, excluded


def check(sites: list[Site]) -> int:
    covered, excluded = catalog_coverage()
    open_sites = [site for site in sites if site.kind != "library" and site.site not in covered and site.site not in excluded]
    for site in open_sites:
        print(f"{site.site}\t{site.qualname}\t{site.category}\t{site.message[:120]}")
    python = [site for site in sites if site.kind != "library"]
    print(f"{len(python)} python sites, {len(python) - len(open_sites)} covered or excluded, {len(open_sites)} open", file=sys.stderr)
    return 1 if open_sites else 0


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="list the scan sites no catalog covers (exit 1 when any)")
    parser.add_argument("--output", type=Path, default=SCAN)
    options = parser.parse_args(argv)
    sites = scan(site_packages())
    if options.check:
        return check(sites)
    options.output.write_text(json.dumps([asdict(site) for site in sites], indent=1) + "\n", encoding="utf-8")
    kinds: dict[str, int] = {}
    for site in sites:
        kinds[site.kind] = kinds.get(site.kind, 0) + 1
    print(f"{len(sites)} sites ({', '.join(f'{count} {kind}' for kind, count in sorted(kinds.items()))}) -> {options.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
