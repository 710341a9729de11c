"""Recall of the rules that must know what a value is, on planted bugs and on 0.3-era training code.

    python bench/recall.py planted             # planted bugs and look-alikes of bench/recall_cases/
    python bench/recall.py verify              # run every planted case under torch: each bug is real
    python bench/recall.py fetch CORPUS        # the legacy repositories, at their commits, into CORPUS
    python bench/recall.py legacy CORPUS       # `.data` uses, scalar reads and accumulations found there

planted: bench/recall_cases/<RULE>/<kind>.py holds one case each: `base.py` is the bug as the rule's
docs show it, the other kinds hand the same value to the same use through a helper's return, a
tuple, an attribute, a loop variable, a second name, a dict entry, a branch, a method or a lambda,
or a list; `neg_*.py` are look-alikes that are not bugs. The line the rule should report ends with
`# expect: GLxxx` (the fixtures' convention, parsed by tests/test_fixtures.py). gradlint runs once
as `check --output-format json` over all of them; a case is found when every marker is reported,
and any other finding of the rule's family in a case file is a false alarm.

verify: imports every case and calls its `run()`: GL103 cases must raise the 0-dim IndexError,
GL404 cases "Can't call numpy() on Tensor that requires grad", GL401 cases return an accumulator
that still has a `grad_fn`, GL406 cases return a generator holding gradients from the
discriminator's update, `.data` cases return the tensor whose `.data` they use. Look-alikes must
show none of it.

legacy: the repositories of bench/recall_corpus.json (0.3-era, from before torch 0.4's release),
one folder `OWNER+NAME` each under CORPUS. A plain-`ast` scanner, which shares nothing with
gradlint's analyses, lists every `.data` use whose receiver is not an evident non-tensor
(`self.data`, `dataset.data`, `args.data`, attributes of imported modules), every `x.data[0]`
read, and candidates for GL401 (`total += <...loss...>` in a loop), GL404 (`.numpy()` with no
`.data`/`.detach()` before it) and GL406 (a network named like a discriminator called on a
generator's output that nothing detaches); a use counts as reported when a finding of its rules
overlaps it (GL301/GL302/GL303 or GL103 for `.data`, GL103 for `x.data[0]`). Every candidate is
judged in bench/recall_corpus.json, and a reviewed sample of the `.data` uses gradlint did not
report says why each was missed.

Each command's Markdown goes to stdout and replaces its own section below the `<!-- results -->`
marker of bench/RECALL.md (`--no-write` before the command leaves the page alone). Run it in the
development environment: it reads the markers with tests/test_fixtures.py, which needs the `test`
extra, and `verify` needs torch.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import random
import re
import subprocess
import sys
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CASES = HERE / "recall_cases"
CORPUS_FILE = HERE / "recall_corpus.json"
PAGE = HERE / "RECALL.md"
MARKER = "<!-- results -->"
SECTIONS = ("planted", "verify", "legacy")

sys.path.insert(0, str(ROOT / "tests"))
from test_fixtures import expected_markers  # noqa: E402  (the fixtures' `# expect:` parsing)

DATA_RULES = frozenset({"GL301", "GL302", "GL303"})
# Which findings count for a case folder: the `.data` rules stand in for one another.
FAMILIES = {
    "GL103": frozenset({"GL103"}),
    "GL301": DATA_RULES,
    "GL303": DATA_RULES,
    "GL401": frozenset({"GL401"}),
    "GL404": frozenset({"GL404"}),
    "GL406": frozenset({"GL406"}),
}
SELECTED = frozenset().union(*FAMILIES.values())
KINDS = ("base", "helper", "tuple", "attribute", "loop", "alias", "dict", "conditional", "method", "closure", "list")
KIND_TITLES = {
    "base": "as documented",
    "helper": "same-file helper's return",
    "tuple": "tuple return, unpacked",
    "attribute": "attribute",
    "loop": "loop variable",
    "alias": "second assignment",
    "dict": "dict entry",
    "conditional": "assigned in a branch",
    "method": "method's return",
    "closure": "lambda / closure",
    "list": "list, then indexed",
}

Marker = tuple[int, str]  # row, rule code


# -- gradlint ------------------------------------------------------------------------------------


def gradlint_findings(paths: Iterable[Path], codes: Iterable[str]) -> list[dict]:
    """gradlint's JSON findings on `paths`, run as a user runs it."""
    command = [sys.executable, "-m", "gradlint", "check", "--output-format", "json", "--no-cache", "--exit-zero"]
    command += ["--select", ",".join(sorted(codes)), *map(str, paths)]
    completed = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(completed.stdout)


def by_file(findings: Iterable[dict]) -> dict[Path, list[dict]]:
    grouped: dict[Path, list[dict]] = defaultdict(list)
    for finding in findings:
        grouped[(ROOT / finding["filename"]).resolve()].append(finding)
    return grouped


# -- planted -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    path: Path
    rule: str  # the folder: which rule the case is planted for
    kind: str  # a KINDS entry, or "neg_..." for a look-alike
    expected: frozenset[Marker]

    @property
    def negative(self) -> bool:
        return self.kind.startswith("neg_")

    @property
    def name(self) -> str:
        return f"{self.rule}/{self.path.name}"

    @property
    def family(self) -> frozenset[str]:
        return FAMILIES[self.rule]


def load_cases(root: Path = CASES) -> list[Case]:
    cases = []
    for path in sorted(root.glob("GL*/*.py")):
        markers = frozenset((row, code) for row, code, _ in expected_markers(path))
        cases.append(Case(path.resolve(), path.parent.name, path.stem, markers))
    return cases


@dataclass(frozen=True)
class Outcome:
    case: Case
    missed: frozenset[Marker]  # expected, not reported
    false_alarms: tuple[Marker, ...]  # reported by the case's family, not expected

    @property
    def found(self) -> bool:
        return not self.case.negative and not self.missed


def score(cases: Iterable[Case], findings: Iterable[dict]) -> list[Outcome]:
    reported = by_file(findings)
    outcomes = []
    for case in cases:
        markers = {(f["location"]["row"], f["code"]) for f in reported.get(case.path, ()) if f["code"] in case.family}
        alarms = tuple(sorted(marker for marker in markers if marker not in case.expected))
        outcomes.append(Outcome(case, case.expected - markers, alarms))
    return outcomes


def check_planted(cases: list[Case]) -> list[Outcome]:
    return score(cases, gradlint_findings([case.path for case in cases], SELECTED))


def ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "-"


def planted_markdown(outcomes: list[Outcome]) -> str:
    positives = [o for o in outcomes if not o.case.negative]
    negatives = [o for o in outcomes if o.case.negative]
    rules = sorted({o.case.rule for o in outcomes})
    cell = {(o.case.rule, o.case.kind): o for o in positives}
    lines = [
        "## Planted bugs",
        "",
        f"{len(positives)} planted bugs and {len(negatives)} look-alikes in `bench/recall_cases/`; "
        "`found` means every `# expect:` line of the case is reported by its rule.",
        "",
        "| value reaches the use through | " + " | ".join(rules) + " | found |",
        "|---|" + "---:|" * (len(rules) + 1),
    ]
    kinds = [kind for kind in KINDS if any((rule, kind) in cell for rule in rules)]
    for kind in kinds:
        marks = [("found" if cell[(rule, kind)].found else "missed") if (rule, kind) in cell else "" for rule in rules]
        planted = [cell[(rule, kind)] for rule in rules if (rule, kind) in cell]
        lines.append(f"| {KIND_TITLES[kind]} | " + " | ".join(marks) + f" | {ratio(sum(o.found for o in planted), len(planted))} |")
    lines += [
        "",
        "| rule | found / planted | variants found (base excluded) | look-alikes | false alarms on look-alikes | "
        "other findings in bug cases |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for rule in rules:
        mine = [o for o in positives if o.case.rule == rule]
        variants = [o for o in mine if o.case.kind != "base"]
        looks = [o for o in negatives if o.case.rule == rule]
        lines.append(
            f"| {rule} | {ratio(sum(o.found for o in mine), len(mine))} | {ratio(sum(o.found for o in variants), len(variants))} "
            f"| {len(looks)} | {sum(bool(o.false_alarms) for o in looks)} | {sum(len(o.false_alarms) for o in mine)} |"
        )
    total = sum(o.found for o in positives)
    lines.append(
        f"| all | {ratio(total, len(positives))} | "
        f"{ratio(sum(o.found for o in positives if o.case.kind != 'base'), sum(o.case.kind != 'base' for o in positives))} "
        f"| {len(negatives)} | {sum(bool(o.false_alarms) for o in negatives)} | {sum(len(o.false_alarms) for o in positives)} |"
    )
    alarms = [o for o in outcomes if o.false_alarms]
    if alarms:
        lines += ["", "| false alarm | rule, line |", "|---|---|"]
        for o in alarms:
            where = ", ".join(f"{code} line {row}" for row, code in o.false_alarms)
            lines.append(f"| `{o.case.name}` | {where} |")
    return "\n".join(lines) + "\n"


# -- verify --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    shows_bug: bool
    what: str


def _raised(outcome: object, kind: type, text: str) -> Observation:
    if isinstance(outcome, kind) and text in str(outcome):
        return Observation(True, f"raises {kind.__name__}: {text}")
    if isinstance(outcome, BaseException):
        return Observation(False, f"raises {type(outcome).__name__}: {str(outcome).splitlines()[0][:60]}")
    return Observation(False, "runs")


def _history(outcome: object) -> Observation:
    import torch

    values = outcome if isinstance(outcome, (list, tuple)) else [outcome]
    carried = [v for v in values if isinstance(v, torch.Tensor) and v.grad_fn is not None]
    if carried:
        return Observation(True, f"accumulator keeps `{carried[0].grad_fn.name()}`")
    return Observation(False, f"accumulator is a {type(outcome).__name__} without history")


def _generator_gradient(outcome: object) -> Observation:
    import torch

    grads = [p.grad for p in outcome.parameters()] if isinstance(outcome, torch.nn.Module) else list(outcome)
    polluted = [g for g in grads if g is not None and bool(g.abs().sum() > 0)]
    if polluted:
        return Observation(True, f"generator holds gradients ({len(polluted)}/{len(grads)} parameters)")
    return Observation(False, "generator holds no gradient")


def _tensor(outcome: object) -> Observation:
    import torch

    if isinstance(outcome, torch.Tensor):
        return Observation(True, f"receiver is a tensor (requires_grad={outcome.requires_grad})")
    return Observation(False, f"receiver is a {type(outcome).__name__}")


# What running a case's `run()` shows, per rule folder: its result, or the exception it raised.
OBSERVERS: dict[str, Callable[[object], Observation]] = {
    "GL103": lambda outcome: _raised(outcome, IndexError, "invalid index of a 0-dim tensor"),
    "GL301": _tensor,
    "GL303": _tensor,
    "GL401": _history,
    "GL404": lambda outcome: _raised(outcome, RuntimeError, "Can't call numpy() on Tensor that requires grad"),
    "GL406": _generator_gradient,
}


def observe(case: Case) -> Observation:
    spec = importlib.util.spec_from_file_location(f"recall_case_{case.rule}_{case.kind}", case.path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            outcome = module.run()
        except Exception as error:  # the bug itself, for the rules whose bug raises
            outcome = error
    return OBSERVERS[case.rule](outcome)


def verify_markdown(cases: list[Case], observations: list[Observation]) -> str:
    import torch

    wrong = [(c, o) for c, o in zip(cases, observations) if o.shows_bug == c.negative]
    lines = [
        "## Planted cases under torch",
        "",
        f"Every case's `run()` under torch {torch.__version__}: {len(cases) - len(wrong)} of {len(cases)} behave as planted "
        "(bugs show the failure, look-alikes do not).",
        "",
        "| case | planted as | observed |",
        "|---|---|---|",
    ]
    for case, observation in zip(cases, observations):
        flag = "" if observation.shows_bug != case.negative else " **(not as planted)**"
        lines.append(f"| `{case.name}` | {'look-alike' if case.negative else 'bug'} | {observation.what}{flag} |")
    return "\n".join(lines) + "\n"


# -- legacy corpus: an independent scan ------------------------------------------------------------

ARGS_LIKE = frozenset({"args", "opt", "opts", "config", "cfg", "conf", "flags", "FLAGS", "options", "hparams", "hp", "parser"})
DATASET_LIKE = re.compile(r"(?i)(dataset|loader|^(train|test|val|valid)_?set$)")


@dataclass(frozen=True)
class Use:
    path: str  # inside the repository
    row: int
    column: int  # 1-based, as gradlint reports
    end: tuple[int, int]  # row and column just after the expression
    kind: str  # read, in-place, augmented, index write, assignment; scalar read; accumulation; numpy; discriminator
    text: str  # the source line

    def covered_by(self, finding: dict) -> bool:
        """The finding's range overlaps the use's expression."""
        start = (finding["location"]["row"], finding["location"]["column"])
        end = (finding["end_location"]["row"], finding["end_location"]["column"])
        return start < self.end and (self.row, self.column) < end


def dotted_root(node: ast.expr) -> Optional[str]:
    """`a` for `a`, `a.b.c`; None for anything else (calls, subscripts...)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def last_identifier(node: ast.expr) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def imported_modules(tree: ast.Module) -> set[str]:
    """Names bound to modules: `import a.b` (a), `import a as b` (b), `from torch.utils import data`."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names if alias.name in {"data", "utils"})
    return names


def non_tensor_receiver(receiver: ast.expr, modules: set[str]) -> Optional[str]:
    """Why `receiver.data` is evidently not a tensor's `.data`, or None."""
    name = last_identifier(receiver)
    if isinstance(receiver, ast.Name) and receiver.id in {"self", "cls"}:
        return "self.data"
    if name and DATASET_LIKE.search(name):
        return "dataset.data"
    if isinstance(receiver, ast.Name) and receiver.id in ARGS_LIKE:
        return "args.data"
    if dotted_root(receiver) in modules | {"torch"}:
        return "module attribute"
    return None


def parents_of(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}


def is_scalar_read(node: ast.AST) -> bool:
    """`x.data[0]` read (also the inner part of `x.data[0][0]`)."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "data"
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == 0
    )


def data_use_kind(node: ast.Attribute, parents: dict[ast.AST, ast.AST]) -> str:
    parent = parents.get(node)
    if isinstance(node.ctx, ast.Store):
        return "augmented" if isinstance(parent, ast.AugAssign) else "assignment"
    if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, (ast.Store, ast.Del)):
        return "index write"
    if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parents.get(parent), ast.AugAssign):
        return "index write" if parents[parent].target is parent else "read"
    if isinstance(parent, ast.Attribute) and parent.attr.endswith("_") and not parent.attr.endswith("__"):
        return "in-place"
    if isinstance(parent, ast.Call) and node in parent.args and getattr(parent.func, "attr", "").endswith("_"):
        return "in-place"  # nn.init.normal_(w.data, ...)
    return "read"


def inside_no_grad(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.With) and any("no_grad" in ast.unparse(item.context_expr) for item in node.items):
            return True
    return False


def inside_loop(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
    return False


DETACHING = re.compile(r"\.data\b|\.item\(|\.detach\(|\bfloat\(|\bint\(|\.tolist\(|\.numpy\(")


DISCRIMINATOR = re.compile(r"^(D|netD|D_[A-Z]+|netD_[A-Z]+|[dD]iscriminator\w*|critic\w*)$")
GENERATOR = re.compile(r"^(G|netG|G_[A-Z]+|netG_[A-Z]+|[gG]enerator\w*)$")
CUT = re.compile(r"\.detach\(|\.data\b|Variable\(|volatile")


def calls_named(node: ast.AST, pattern: re.Pattern) -> bool:
    return any(isinstance(call, ast.Call) and pattern.match(last_identifier(call.func) or "") for call in ast.walk(node))


def generated_names(scope: ast.AST) -> set[str]:
    """Names (and attributes) bound, in source order, to a generator's output or to values built from one."""
    names: set[str] = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and not CUT.search(ast.unparse(node.value)):
            mentioned = {ast.unparse(n) for n in ast.walk(node.value) if isinstance(n, (ast.Name, ast.Attribute))}
            if calls_named(node.value, GENERATOR) or mentioned & names:
                names.update(
                    ast.unparse(n) for target in node.targets for n in ast.walk(target) if isinstance(n, (ast.Name, ast.Attribute))
                )
    return names


def discriminator_calls(tree: ast.Module, parents: dict[ast.AST, ast.AST]) -> Iterator[ast.Call]:
    """Calls of a discriminator-named network on a generator's output that nothing detaches."""
    generated = {scope: generated_names(scope) for scope in ast.walk(tree) if isinstance(scope, (ast.Module, ast.FunctionDef))}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and DISCRIMINATOR.match(last_identifier(node.func) or "")):
            continue
        if CUT.search(ast.unparse(node.args[0])):
            continue
        scope = node
        while scope in parents and not isinstance(scope, ast.FunctionDef):
            scope = parents[scope]
        names = generated.get(scope, set()) | generated[tree]
        mentioned = {ast.unparse(n) for n in ast.walk(node.args[0]) if isinstance(n, (ast.Name, ast.Attribute))}
        if calls_named(node.args[0], GENERATOR) or mentioned & names:
            yield node


EXCLUDED = "not a tensor: "  # the kind of a `.data` use the scan sets aside, followed by why


def scan(source: str, path: str) -> Iterator[Use]:
    """Every `.data` use, scalar read, candidate accumulation and `.numpy()` call of one file."""
    tree = ast.parse(source)
    lines = source.splitlines()
    parents = parents_of(tree)
    modules = imported_modules(tree)

    def use(node: ast.AST, kind: str) -> Use:
        end = (node.end_lineno, node.end_col_offset + 1)
        return Use(path, node.lineno, node.col_offset + 1, end, kind, lines[node.lineno - 1].strip())

    in_scalar = {node.value for node in ast.walk(tree) if is_scalar_read(node)}
    for node in ast.walk(tree):
        if is_scalar_read(node):
            excluded = non_tensor_receiver(node.value.value, modules)
            yield use(node, f"{EXCLUDED}{excluded}" if excluded else "scalar read")
        elif isinstance(node, ast.Attribute) and node.attr == "data" and node not in in_scalar:
            excluded = non_tensor_receiver(node.value, modules)
            yield use(node, f"{EXCLUDED}{excluded}" if excluded else data_use_kind(node, parents))
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and inside_loop(node, parents):
            value = ast.unparse(node.value)
            if "loss" in value.lower() and not DETACHING.search(value) and not inside_no_grad(node, parents):
                yield use(node, "accumulation")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "numpy" and not node.args:
            chain = ast.unparse(node.func.value)
            if not re.search(r"\.data\b|\.detach\(", chain) and not inside_no_grad(node, parents):
                yield use(node, "numpy")
    for call in discriminator_calls(tree, parents):
        yield use(call, "discriminator")


# Which findings cover which kind of use: GL103 also reports the `.data` of `x.data.cpu().numpy()[0]`.
DATA_USE_RULES = DATA_RULES | {"GL103"}
MATCHING = {
    "read": DATA_USE_RULES,
    "in-place": DATA_USE_RULES,
    "augmented": DATA_USE_RULES,
    "index write": DATA_USE_RULES,
    "assignment": DATA_USE_RULES,
    "scalar read": frozenset({"GL103"}),
    "accumulation": frozenset({"GL401"}),
    "numpy": frozenset({"GL404"}),
    "discriminator": frozenset({"GL406"}),
}
DATA_KINDS = ("read", "in-place", "augmented", "index write", "assignment")


@dataclass
class LegacyResult:
    repositories: dict[str, str]
    uses: dict[str, list[Use]] = field(default_factory=dict)  # repository -> uses
    reported: set[tuple[str, Use]] = field(default_factory=set)
    findings: Counter = field(default_factory=Counter)  # rule code -> findings in the corpus

    def is_reported(self, repository: str, use: Use) -> bool:
        return (repository, use) in self.reported

    def unreported_data(self) -> list[tuple[str, Use]]:
        return [(r, u) for r, uses in sorted(self.uses.items()) for u in uses if u.kind in DATA_KINDS and not self.is_reported(r, u)]


def folder_of(repository: str) -> str:
    return repository.replace("/", "+")


def load_corpus_file() -> dict:
    return json.loads(CORPUS_FILE.read_text(encoding="utf-8"))


def check_legacy(corpus: Path, repositories: dict[str, str]) -> LegacyResult:
    folders = {repository: corpus / folder_of(repository) for repository in repositories}
    missing = [str(folder) for folder in folders.values() if not folder.is_dir()]
    if missing:
        raise SystemExit(f"not in the corpus: {', '.join(missing)} (run `python bench/recall.py fetch {corpus}`)")
    result = LegacyResult(dict(repositories))
    for repository, folder in folders.items():
        result.uses[repository] = [
            found
            for path in sorted(folder.rglob("*.py"))
            for found in scan(path.read_text(encoding="utf-8", errors="replace"), path.relative_to(folder).as_posix())
        ]
    findings = by_file(gradlint_findings(folders.values(), SELECTED))
    for repository, folder in folders.items():
        for use in result.uses[repository]:
            reported = findings.get((folder / use.path).resolve(), ())
            if any(f["code"] in MATCHING.get(use.kind, DATA_USE_RULES) and use.covered_by(f) for f in reported):
                result.reported.add((repository, use))
    for file_findings in findings.values():
        result.findings.update(f["code"] for f in file_findings)
    return result


def legacy_markdown(result: LegacyResult, review: list[dict], candidates: list[dict]) -> str:
    kinds = (*DATA_KINDS, "scalar read")
    lines = [
        "## Legacy corpus",
        "",
        f"{len(result.repositories)} repositories at their last commit before torch 0.4. "
        "A use is reported when a finding of the rules named overlaps it.",
        "",
        "| use | rules | reported / found |",
        "|---|---|---:|",
    ]
    every = [(r, u) for r, uses in result.uses.items() for u in uses]

    def tally(selected: list[tuple[str, Use]]) -> str:
        return ratio(sum(result.is_reported(r, u) for r, u in selected), len(selected))

    titles = {
        "read": "`.data` read",
        "in-place": "`.data.op_()` / `init.*_(x.data)`",
        "augmented": "`x.data op= ...`",
        "index write": "`x.data[i] = ...`",
        "assignment": "`x.data = ...`",
        "scalar read": "`x.data[0]` (scalar read)",
    }
    for kind in kinds:
        rules = "/".join(sorted(MATCHING[kind]))
        lines.append(f"| {titles[kind]} | {rules} | {tally([(r, u) for r, u in every if u.kind == kind])} |")
    lines.append(f"| every `.data` use | GL103/GL301/GL302/GL303 | {tally([(r, u) for r, u in every if u.kind in DATA_KINDS])} |")
    excluded = Counter(u.kind[len(EXCLUDED) :] for _, u in every if u.kind.startswith(EXCLUDED))
    lines += ["", "Set aside as evidently not tensors (`.data` and `.data[0]`), and what gradlint reports there:", ""]
    lines += ["| receiver | uses | reported |", "|---|---:|---:|"]
    for reason, count in excluded.most_common():
        chosen = [(r, u) for r, u in every if u.kind == EXCLUDED + reason]
        lines.append(f"| `{reason}` | {count} | {sum(result.is_reported(r, u) for r, u in chosen)} |")
    lines += ["", "| repository | commit | `.data` uses | scalar reads |", "|---|---|---:|---:|"]
    for repository, commit in sorted(result.repositories.items()):
        uses = [(repository, u) for u in result.uses[repository]]
        lines.append(
            f"| [{repository}](https://github.com/{repository}) | `{commit[:12]}` "
            f"| {tally([(r, u) for r, u in uses if u.kind in DATA_KINDS])} | {tally([(r, u) for r, u in uses if u.kind == 'scalar read'])} |"
        )
    lines += ["", "| rule | findings in the corpus |", "|---|---:|"]
    lines += [f"| {code} | {count} |" for code, count in sorted(result.findings.items())]
    lines += candidates_markdown(result, candidates)
    if review:
        lines += review_markdown(result, review)
    return "\n".join(lines) + "\n"


def candidates_markdown(result: LegacyResult, candidates: list[dict]) -> list[str]:
    """The candidate accumulations and `.numpy()` calls, each judged by reading the code."""
    verdicts = {(c["repo"], c["path"], c["line"], c["column"], c["kind"]): c for c in candidates}
    lines = [
        "",
        "Candidates for GL401, GL404 and GL406, each judged by reading the code:",
        "",
        "| candidate | found by the scan | judged bugs | bugs reported | others reported (false alarms) | not judged |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for kind, rule in (("accumulation", "GL401"), ("numpy", "GL404"), ("discriminator", "GL406")):
        found = [(r, u) for r, uses in sorted(result.uses.items()) for u in uses if u.kind == kind]
        judged = [(r, u, verdicts.get((r, u.path, u.row, u.column, kind))) for r, u in found]
        bugs = [(r, u) for r, u, verdict in judged if verdict and verdict["bug"]]
        others = [(r, u) for r, u, verdict in judged if verdict and not verdict["bug"]]
        lines.append(
            f"| {rule} `{kind}` | {len(found)} | {len(bugs)} | {sum(result.is_reported(r, u) for r, u in bugs)} "
            f"| {sum(result.is_reported(r, u) for r, u in others)} | {sum(verdict is None for _, _, verdict in judged)} |"
        )
    notes = Counter((c["kind"], c["bug"], c["note"]) for c in candidates)
    lines += ["", "| candidate | judged | what it is | candidates |", "|---|---|---|---:|"]
    for (kind, bug, note), count in sorted(notes.items(), key=lambda item: (item[0][0], -item[1])):
        lines.append(f"| `{kind}` | {'bug' if bug else 'not a bug'} | {note} | {count} |")
    return lines


def review_markdown(result: LegacyResult, review: list[dict]) -> list[str]:
    """The reviewed sample of `.data` uses that were unreported when it was drawn, and what became of them."""
    now = {(r, u.path, u.row, u.column): result.is_reported(r, u) for r, uses in result.uses.items() for u in uses}
    reasons = Counter(entry["reason"] for entry in review)
    lines = [
        "",
        f"## Why `.data` uses were missed: a reviewed sample of {len(review)}",
        "",
        "| why the receiver was not known to be a tensor | uses | reported now |",
        "|---|---:|---:|",
    ]
    for reason, count in reasons.most_common():
        reported = sum(bool(now.get((e["repo"], e["path"], e["line"], e["column"]))) for e in review if e["reason"] == reason)
        lines.append(f"| {reason} | {count} | {reported} |")
    lines += ["", "| where | code | why | reported now |", "|---|---|---|---|"]
    for entry in review:
        reported = now.get((entry["repo"], entry["path"], entry["line"], entry["column"]))
        state = "yes" if reported else "no" if reported is not None else "not found by the scan"
        code = shorten(entry["code"]).replace("|", "\\|")
        lines.append(f"| {entry['repo']} `{entry['path']}:{entry['line']}` | `{code}` | {entry['reason']}: {entry['note']} | {state} |")
    return lines


def shorten(text: str, width: int = 90) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def draw_sample(result: LegacyResult, size: int, seed: str) -> list[tuple[str, Use]]:
    missed = result.unreported_data()
    return sorted(random.Random(seed).sample(missed, min(size, len(missed))), key=lambda item: (item[0], item[1].path, item[1].row))


def fetch(corpus: Path, repositories: dict[str, str]) -> None:
    """Each repository's Python files at its commit (GitHub serves any reachable commit)."""
    for repository, commit in sorted(repositories.items()):
        target = corpus / folder_of(repository)
        if target.is_dir():
            continue
        target.mkdir(parents=True)
        for command in (
            ["git", "init", "-q"],
            ["git", "fetch", "-q", "--depth", "1", f"https://github.com/{repository}", commit],
            ["git", "checkout", "-q", "FETCH_HEAD", "--", "*.py"],
        ):
            subprocess.run(command, cwd=target, check=True)


# -- the page ------------------------------------------------------------------------------------


def write_section(name: str, text: str, page: Path = PAGE) -> None:
    """Replace section `name` below the marker; other sections and the hand-written part stay."""
    previous = page.read_text(encoding="utf-8") if page.exists() else f"# Recall\n\n{MARKER}\n"
    intro, _, results = previous.partition(MARKER)
    sections = dict(re.findall(r"<!-- section: (\w+) -->\n(.*?)(?=<!-- section: |\Z)", results, re.S))
    sections[name] = text
    body = "".join(f"<!-- section: {key} -->\n{sections[key].rstrip()}\n\n" for key in SECTIONS if key in sections)
    page.write_text(f"{intro}{MARKER}\n{body}".rstrip() + "\n", encoding="utf-8")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("planted").add_argument("--cases", type=Path, default=CASES)
    sub.add_parser("verify").add_argument("--cases", type=Path, default=CASES)
    sub.add_parser("fetch").add_argument("corpus", type=Path)
    legacy = sub.add_parser("legacy")
    legacy.add_argument("corpus", type=Path)
    legacy.add_argument("--draw-sample", action="store_true", help="print a fresh sample of unreported `.data` uses to review")
    parser.add_argument("--no-write", action="store_true", help="print only; leave bench/RECALL.md as it is")
    args = parser.parse_args(argv)
    if args.command == "fetch":
        fetch(args.corpus, load_corpus_file()["repositories"])
        return 0
    if args.command == "planted":
        text = planted_markdown(check_planted(load_cases(args.cases)))
    elif args.command == "verify":
        cases = load_cases(args.cases)
        text = verify_markdown(cases, [observe(case) for case in cases])
    else:
        data = load_corpus_file()
        result = check_legacy(args.corpus, data["repositories"])
        if args.draw_sample:
            for repository, use in draw_sample(result, data["sample_size"], data["sample_seed"]):
                print(json.dumps({"repo": repository, "path": use.path, "line": use.row, "column": use.column, "code": use.text}))
            return 0
        text = legacy_markdown(result, data.get("missed_data_sample", []), data.get("candidate_review", []))
    print(text)
    if not args.no_write:
        write_section(args.command, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
